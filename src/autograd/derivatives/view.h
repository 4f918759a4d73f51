// Autograd for the view ops (src/ops/view.cpp). Each is called with the view just made and the
// tensor it views, only when that tensor requires grad and grad mode is on.
#pragma once

#include "src/autograd/record.h"

namespace ember::autograd::derivatives {

/// Views whose gradient is the incoming one reshaped to the input's sizes (view, reshape,
/// squeeze, unsqueeze, t of a 0/1-dim tensor).
void reshape_alias(const char* node_name, const Tensor& result, const Tensor& self);
void permute(const Tensor& result, const Tensor& self, IntArrayRef dims);
void transpose(const Tensor& result, const Tensor& self, int64_t dim0, int64_t dim1);
void expand(const Tensor& result, const Tensor& self);
void select(const Tensor& result, const Tensor& self, int64_t dim, int64_t index);
void slice(const Tensor& result, const Tensor& self, int64_t dim, int64_t start, int64_t end,
           int64_t step);
void diagonal(const Tensor& result, const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2);
/// Any view, by storage position (as_strided, unfold): overlapping elements add up.
void strided_view(const char* node_name, const Tensor& result, const Tensor& self);

/// An in-place view op (t_, squeeze_, ...) that re-pointed `self` at the geometry of `view`,
/// which was made (and recorded) from self beforehand.
void restride_(const Tensor& self, const Tensor& view);

}  // namespace ember::autograd::derivatives
