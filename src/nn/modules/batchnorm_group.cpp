// GroupNorm, LocalResponseNorm and CrossMapLRN2d modules (LibTorch's
// torch/nn/modules/normalization.h). GroupNorm and LocalResponseNorm call their functional forms;
// CrossMapLRN2d is composed here from differentiable ops.
#include <ostream>

#include "ember/nn/functional/normalization.h"
#include "ember/nn/init.h"
#include "ember/nn/modules/normalization.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "src/nn/modules/module_errors.h"

namespace ember::nn {
namespace F = functional;
using detail::named_call;

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options_) : options(options_) { reset(); }

void GroupNormImpl::reset() {
  EMBER_CHECK_VALUE(options.num_groups() > 0 && options.num_channels() >= 0 &&
                        options.num_channels() % options.num_groups() == 0,
                    "GroupNorm: num_channels must be divisible by num_groups, got num_groups={} "
                    "and num_channels={}",
                    options.num_groups(), options.num_channels());
  if (options.affine()) {
    weight = register_parameter("weight", ember::empty({options.num_channels()}));
    bias = register_parameter("bias", ember::empty({options.num_channels()}));
  } else {
    weight = register_parameter("weight", Tensor(), /*requires_grad=*/false);
    bias = register_parameter("bias", Tensor(), /*requires_grad=*/false);
  }
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  if (!options.affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  return named_call("GroupNorm", [&] {
    return F::group_norm(
        input,
        F::GroupNormFuncOptions(options.num_groups()).weight(weight).bias(bias).eps(options.eps()));
  });
}

void GroupNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::GroupNorm(" << options.num_groups() << ", "
         << options.num_channels() << ", eps=" << options.eps() << ", affine=" << options.affine()
         << ")";
}

LocalResponseNormImpl::LocalResponseNormImpl(const LocalResponseNormOptions& options_)
    : options(options_) {}

Tensor LocalResponseNormImpl::forward(const Tensor& input) {
  return named_call("LocalResponseNorm", [&] { return F::local_response_norm(input, options); });
}

void LocalResponseNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::LocalResponseNorm(" << options.size()
         << ", alpha=" << options.alpha() << ", beta=" << options.beta() << ", k=" << options.k()
         << ")";
}

CrossMapLRN2dImpl::CrossMapLRN2dImpl(const CrossMapLRN2dOptions& options_) : options(options_) {}

Tensor CrossMapLRN2dImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.defined(), "CrossMapLRN2d: input is an undefined tensor");
  EMBER_CHECK_VALUE(input.dim() == 4, "CrossMapLRN2d: Expected input to be 4D, got {}D instead",
                    input.dim());
  EMBER_CHECK_VALUE(options.size() > 0, "CrossMapLRN2d: size must be positive, got {}",
                    options.size());
  const int64_t C = input.size(1);
  if (input.numel() == 0) return input.clone();
  // LibTorch's loop: scale[0] = Σ_{j < pre_pad} x_j²; scale[c] = scale[c-1] + x²_{c+pre_pad-1}
  // (while that channel exists) - x²_{c-pre_pad} (only when c > pre_pad, so channel 0 is never
  // removed). As prefix sums P: scale[c] = P[hi(c)] - (P[c-pre_pad] - P[0]) once c > pre_pad,
  // hi(c) = min(c + pre_pad - 1, C - 1).
  const int64_t pre_pad = (options.size() - 1) / 2 + 1;
  std::vector<int64_t> hi(static_cast<size_t>(C)), lo(static_cast<size_t>(C));
  std::vector<double> drop(static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) {
    hi[c] = std::min(c + pre_pad - 1, C - 1);
    lo[c] = c > pre_pad ? c - pre_pad : 0;
    drop[c] = c > pre_pad ? 1.0 : 0.0;
  }
  const TensorOptions io = TensorOptions(kLong).device(input.device());
  const Tensor hi_t = ember::tensor(hi, io), lo_t = ember::tensor(lo, io);
  const Tensor drop_t =
      ember::tensor(drop, input.options().dtype(kDouble)).to(input.dtype()).view({1, C, 1, 1});
  const Tensor prefix = (input * input).cumsum(1);
  const Tensor removed = (prefix.index_select(1, lo_t) - prefix.narrow(1, 0, 1)) * drop_t;
  const Tensor sums = prefix.index_select(1, hi_t) - removed;
  const double a = options.alpha() / static_cast<double>(options.size());
  const Tensor scale = sums * a + static_cast<double>(options.k());
  return input * scale.pow(-options.beta());
}

void CrossMapLRN2dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::CrossMapLRN2d(" << options.size()
         << ", alpha=" << options.alpha() << ", beta=" << options.beta() << ", k=" << options.k()
         << ")";
}

}  // namespace ember::nn
