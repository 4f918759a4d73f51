// Gather/scatter style indexing as free functions. Index tensors are int64.
#pragma once

#include "ember/core/tensor.h"
#include "ember/core/tensor_index.h"

namespace ember {

EMBER_API Tensor index(const Tensor& self, ArrayRef<TensorIndex> indices);
EMBER_API const Tensor& index_put_(const Tensor& self, ArrayRef<TensorIndex> indices,
                                   const Tensor& value, bool accumulate = false);
EMBER_API Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
EMBER_API Tensor gather(const Tensor& self, int64_t dim, const Tensor& index);
EMBER_API Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
EMBER_API Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
EMBER_API Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index,
                             const Tensor& src);
EMBER_API Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index,
                           const Tensor& source, const Scalar& alpha = 1);
EMBER_API Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
EMBER_API Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
EMBER_API Tensor masked_select(const Tensor& self, const Tensor& mask);
/// Indices of nonzero elements, shape [count, dim] (int64).
EMBER_API Tensor nonzero(const Tensor& self);
/// self.flatten()[index], shaped like index.
EMBER_API Tensor take(const Tensor& self, const Tensor& index);

}  // namespace ember
