// View and shape ops as free functions. Views share storage (and the version counter) with their
// base; ops that cannot be views (cat, repeat, flip, ...) copy.
#pragma once

#include <vector>

#include "ember/core/tensor.h"

namespace ember {

EMBER_API Tensor view(const Tensor& self, IntArrayRef size);
EMBER_API Tensor reshape(const Tensor& self, IntArrayRef shape);
EMBER_API Tensor flatten(const Tensor& self, int64_t start_dim = 0, int64_t end_dim = -1);
EMBER_API Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes);
EMBER_API Tensor squeeze(const Tensor& self);
EMBER_API Tensor squeeze(const Tensor& self, int64_t dim);
EMBER_API Tensor unsqueeze(const Tensor& self, int64_t dim);
EMBER_API Tensor permute(const Tensor& self, IntArrayRef dims);
EMBER_API Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1);
EMBER_API Tensor t(const Tensor& self);
EMBER_API Tensor expand(const Tensor& self, IntArrayRef size, bool implicit = false);
EMBER_API Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length);
EMBER_API Tensor select(const Tensor& self, int64_t dim, int64_t index);
EMBER_API Tensor slice(const Tensor& self, int64_t dim = 0,
                       std::optional<int64_t> start = std::nullopt,
                       std::optional<int64_t> end = std::nullopt, int64_t step = 1);
EMBER_API std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim = 0);
EMBER_API std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim = 0);
EMBER_API std::vector<Tensor> split(const Tensor& self, IntArrayRef split_sizes, int64_t dim = 0);
EMBER_API std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes,
                                               int64_t dim = 0);
EMBER_API std::vector<Tensor> unbind(const Tensor& self, int64_t dim = 0);
EMBER_API Tensor diagonal(const Tensor& self, int64_t offset = 0, int64_t dim1 = 0,
                          int64_t dim2 = 1);
EMBER_API Tensor as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                            std::optional<int64_t> storage_offset = std::nullopt);
EMBER_API Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination);
EMBER_API Tensor movedim(const Tensor& self, int64_t source, int64_t destination);
EMBER_API Tensor unfold(const Tensor& self, int64_t dimension, int64_t size, int64_t step);

EMBER_API Tensor cat(TensorList tensors, int64_t dim = 0);
EMBER_API Tensor concat(TensorList tensors, int64_t dim = 0);
EMBER_API Tensor stack(TensorList tensors, int64_t dim = 0);
EMBER_API Tensor repeat(const Tensor& self, IntArrayRef repeats);
EMBER_API Tensor tile(const Tensor& self, IntArrayRef dims);
EMBER_API Tensor flip(const Tensor& self, IntArrayRef dims);
EMBER_API Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims = {});
EMBER_API Tensor tril(const Tensor& self, int64_t diagonal = 0);
EMBER_API Tensor triu(const Tensor& self, int64_t diagonal = 0);
/// Constant padding; `pad` lists (left, right) pairs starting from the last dim, as F::pad.
EMBER_API Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value = 0);
EMBER_API std::vector<Tensor> broadcast_tensors(TensorList tensors);
EMBER_API std::vector<int64_t> broadcast_shapes(IntArrayRef a, IntArrayRef b);

}  // namespace ember
