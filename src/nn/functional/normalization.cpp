// F::layer_norm and F::rms_norm, composed from reductions and elementwise ops, so autograd
// (including double backward) needs no formula of their own. float16/bfloat16 inputs are
// normalised in float32 and rounded once at the end, as PyTorch's kernels accumulate them.
#include "ember/nn/functional/normalization.h"

#include <limits>
#include <tuple>

#include "ember/ops/elementwise.h"
#include "ember/ops/reduction.h"
#include "src/nn/functional/layer_checks.h"

namespace ember::nn::functional {
namespace {

using layer::describe;

// The trailing dims of `input` that `normalized_shape` names, after checking that they match.
DimVector normalized_dims(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight,
                          const Tensor& bias, const char* op) {
  layer::check_defined(input, op, "input");
  layer::check_floating(input, op, "input");
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  EMBER_CHECK_VALUE(k > 0, "{}: normalized_shape must name at least one dim, but got []", op);
  bool match = input.dim() >= k;
  for (int64_t i = 0; match && i < k; ++i)
    match = input.size(input.dim() - k + i) == normalized_shape[i];
  EMBER_CHECK(match,
              "{}: input {} does not end in normalized_shape {}: expected input of shape [*, {}]. "
              "Hint: normalized_shape lists the input's last dims",
              op, describe(input), normalized_shape,
              fmt::format("{}", fmt::join(normalized_shape.begin(), normalized_shape.end(), ", ")));
  for (const auto& [t, name] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}}) {
    if (!t->defined()) continue;
    EMBER_CHECK(t->sizes() == normalized_shape,
                "{}: {} {} does not match normalized_shape {}: expected {} of shape {}", op, name,
                describe(*t), normalized_shape, name, normalized_shape);
    layer::check_floating(*t, op, name);
  }
  DimVector dims;
  for (int64_t i = input.dim() - k; i < input.dim(); ++i) dims.push_back(i);
  return dims;
}

bool is_low_precision(ScalarType t) { return t == kHalf || t == kBFloat16; }

}  // namespace

namespace detail {

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps) {
  const DimVector dims = normalized_dims(input, normalized_shape, weight, bias, "layer_norm");
  const Tensor x = is_low_precision(input.dtype()) ? input.to(kFloat) : input;
  auto [var, mean] = var_mean(x, IntArrayRef(dims), /*correction=*/0.0, /*keepdim=*/true);
  Tensor y = (x - mean) * rsqrt(var + eps);
  if (weight.defined()) y = y * weight;
  if (bias.defined()) y = y + bias;
  return y.dtype() == input.dtype() ? y : y.to(input.dtype());
}

Tensor rms_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight,
                std::optional<double> eps) {
  const DimVector dims = normalized_dims(input, normalized_shape, weight, Tensor(), "rms_norm");
  const Tensor x = is_low_precision(input.dtype()) ? input.to(kFloat) : input;
  // The default is the epsilon of the dtype the statistics are computed in (PyTorch's).
  const double e = eps ? *eps
                       : (x.dtype() == kDouble ? std::numeric_limits<double>::epsilon()
                                               : std::numeric_limits<float>::epsilon());
  Tensor y = x * rsqrt(x.square().mean(IntArrayRef(dims), /*keepdim=*/true) + e);
  if (weight.defined()) y = y * weight;
  return y.dtype() == input.dtype() ? y : y.to(input.dtype());
}

}  // namespace detail

Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& o) {
  return detail::layer_norm(input, o.normalized_shape(), o.weight(), o.bias(), o.eps());
}

Tensor rms_norm(const Tensor& input, const RMSNormFuncOptions& o) {
  return detail::rms_norm(input, o.normalized_shape(), o.weight(), o.eps());
}

}  // namespace ember::nn::functional
