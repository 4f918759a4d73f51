// Autograd for the shape ops that copy (src/ops/shape_copy.cpp). Each is called with the op's
// result and inputs, only when an input requires grad and grad mode is on. The views
// (src/ops/view.cpp) are in view.h; tile, stack's unsqueeze and broadcast_tensors' expand record
// through those.
#pragma once

#include "src/autograd/record.h"

namespace ember::autograd::derivatives {

/// `dim` is wrapped; 1-D empty inputs (which cat skips) get a zero gradient of their shape.
void cat(const Tensor& result, TensorList tensors, int64_t dim);
/// `dim` is wrapped (a dim of the result).
void stack(const Tensor& result, TensorList tensors, int64_t dim);
void repeat(const Tensor& result, const Tensor& self, IntArrayRef repeats);
void flip(const Tensor& result, const Tensor& self, IntArrayRef dims);
/// `dims` empty: self was rolled flattened.
void roll(const Tensor& result, const Tensor& self, IntArrayRef shifts, IntArrayRef dims);
void tril(const Tensor& result, const Tensor& self, int64_t diagonal);
void triu(const Tensor& result, const Tensor& self, int64_t diagonal);
void constant_pad_nd(const Tensor& result, const Tensor& self, IntArrayRef pad);

}  // namespace ember::autograd::derivatives
