// F::local_response_norm and F::normalize, composed from differentiable ops as PyTorch's Python
// functions are (so double backward comes for free).
#include "ember/nn/functional/normalization.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/core/check.h"

namespace ember::nn::functional {
namespace detail {

Tensor local_response_norm(const Tensor& input, int64_t size, double alpha, double beta, double k) {
  EMBER_CHECK(input.defined(), "local_response_norm: input is an undefined tensor");
  EMBER_CHECK_VALUE(input.dim() >= 3,
                    "local_response_norm: Expected 3D or higher dimensionality input (got {} "
                    "dimensions), input {}",
                    input.dim(), input.sizes());
  EMBER_CHECK_VALUE(size > 0, "local_response_norm: size must be positive, got {}", size);
  if (input.numel() == 0) return input.clone();
  // The window of channel c is [c - size/2, c + (size-1)/2], zero padded at both ends, and its
  // mean divides by `size` whatever the padding (PyTorch's avg_pool with count_include_pad).
  const int64_t C = input.size(1), before = size / 2, after = (size - 1) / 2;
  const Tensor sq = input * input;
  std::vector<Tensor> parts;
  DimVector pad_shape;
  for (int64_t s : input.sizes()) pad_shape.push_back(s);
  if (before > 0) {
    pad_shape[1] = before;
    parts.push_back(zeros(IntArrayRef(pad_shape), sq.options()));
  }
  parts.push_back(sq);
  if (after > 0) {
    pad_shape[1] = after;
    parts.push_back(zeros(IntArrayRef(pad_shape), sq.options()));
  }
  const Tensor padded = parts.size() == 1 ? sq : cat(parts, 1);
  Tensor window = padded.narrow(1, 0, C);
  for (int64_t j = 1; j < size; ++j) window = window + padded.narrow(1, j, C);
  const Tensor div = (window * (alpha / static_cast<double>(size)) + k).pow(beta);
  return input / div;
}

Tensor normalize(const Tensor& input, double p, int64_t dim, double eps,
                 std::optional<Tensor> out) {
  EMBER_CHECK(input.defined(), "normalize: input is an undefined tensor");
  const Tensor denom =
      ember::norm(input, p, {dim}, /*keepdim=*/true).clamp_min(eps).expand_as(input);
  if (out) {
    div_out(*out, input, denom);
    return *out;
  }
  return input / denom;
}

}  // namespace detail

Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& o) {
  return detail::local_response_norm(input, o.size(), o.alpha(), o.beta(), o.k());
}

Tensor normalize(const Tensor& input, NormalizeFuncOptions o) {
  return detail::normalize(input, o.p(), o.dim(), o.eps(), o.out());
}

}  // namespace ember::nn::functional
