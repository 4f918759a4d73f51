// Autograd for the indexing ops (src/ops/indexing*.cpp). Index tensors and masks never get a
// gradient; they are saved with version checks like any other saved tensor. In-place ops take
// their edges before they write, as copy_ does.
#pragma once

#include <vector>

#include "ember/core/tensor_index.h"
#include "src/autograd/record.h"

namespace ember::autograd::derivatives {

/// The advanced part of Tensor::index: `self` is the view the basic indices made, `indices` only
/// Slice()s and index tensors/masks, in self's dims.
void index(const Tensor& result, const Tensor& self, ArrayRef<TensorIndex> indices);
/// `edges`: of self and values.
void index_put_(const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& values,
                bool accumulate, Edges edges);
void index_select(const Tensor& result, const Tensor& self, int64_t dim, const Tensor& index);
void gather(const Tensor& result, const Tensor& self, int64_t dim, const Tensor& index);
/// `src` undefined for the Scalar overload; `edges`: of self (and src).
void scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, Edges edges);
void scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                  Edges edges);
void index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                const Scalar& alpha, Edges edges);
/// `value` undefined for the Scalar overload. The result has the broadcast shape.
void masked_fill(const Tensor& result, const Tensor& self, const Tensor& mask, const Tensor& value);
void masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value, Edges edges);
void masked_select(const Tensor& result, const Tensor& self, const Tensor& mask);
void take(const Tensor& result, const Tensor& self, const Tensor& index);

}  // namespace ember::autograd::derivatives
