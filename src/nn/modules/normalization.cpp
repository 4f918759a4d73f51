// LayerNorm and RMSNorm modules: parameters, the input shape check that names the module, and
// printing (the math is in src/nn/functional/normalization.cpp).
#include "ember/nn/modules/normalization.h"

#include <ostream>

#include "ember/nn/functional/normalization.h"
#include "ember/nn/init.h"
#include "ember/ops/factory.h"
#include "src/nn/modules/module_errors.h"

namespace ember::nn {
namespace F = functional;
using detail::describe;
using detail::named_call;

namespace {

void check_normalized_shape(const std::vector<int64_t>& shape, const char* module) {
  EMBER_CHECK_VALUE(!shape.empty(),
                    "{}: normalized_shape must name at least one dim, but got []. Hint: pass the "
                    "sizes of the input's last dims, e.g. {{512}}",
                    module);
  for (int64_t s : shape)
    EMBER_CHECK_VALUE(s >= 0, "{}: normalized_shape {} has a negative size", module,
                      IntArrayRef(shape));
}

// The message users see most often from a norm layer, so it is the module's own and shows the
// expected shape in the notation of the docs: "[*, 4, 5]".
void check_input(const Tensor& input, const std::vector<int64_t>& shape, const char* module) {
  EMBER_CHECK(input.defined(), "{}: input is an undefined tensor", module);
  const int64_t k = static_cast<int64_t>(shape.size());
  bool match = input.dim() >= k;
  for (int64_t i = 0; match && i < k; ++i) match = input.size(input.dim() - k + i) == shape[i];
  EMBER_CHECK(match,
              "{}: expected input with shape [*, {}], got {}. Hint: normalized_shape {} must be "
              "the input's last dims",
              module, fmt::join(shape.begin(), shape.end(), ", "), describe(input),
              IntArrayRef(shape));
}

void print_shape(std::ostream& stream, const std::vector<int64_t>& shape) {
  stream << "[";
  for (size_t i = 0; i < shape.size(); ++i) stream << (i ? ", " : "") << shape[i];
  stream << "]";
}

}  // namespace

LayerNormImpl::LayerNormImpl(const LayerNormOptions& options_) : options(options_) { reset(); }

void LayerNormImpl::reset() {
  check_normalized_shape(options.normalized_shape(), "LayerNorm");
  if (options.elementwise_affine()) {
    weight = register_parameter("weight", ember::empty(options.normalized_shape()));
    bias = register_parameter("bias",
                              options.bias() ? ember::empty(options.normalized_shape()) : Tensor(),
                              /*requires_grad=*/options.bias());
  } else {
    // Registered as "no parameter", as Python's register_parameter(name, None).
    weight = register_parameter("weight", Tensor(), /*requires_grad=*/false);
    bias = register_parameter("bias", Tensor(), /*requires_grad=*/false);
  }
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (!options.elementwise_affine()) return;
  init::ones_(weight);
  if (bias.defined()) init::zeros_(bias);
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  check_input(input, options.normalized_shape(), "LayerNorm");
  return named_call("LayerNorm", [&] {
    return F::layer_norm(input, F::LayerNormFuncOptions(options.normalized_shape())
                                    .weight(weight)
                                    .bias(bias)
                                    .eps(options.eps()));
  });
}

void LayerNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::LayerNorm(";
  print_shape(stream, options.normalized_shape());
  stream << ", eps=" << options.eps() << ", elementwise_affine=" << options.elementwise_affine()
         << ")";
}

RMSNormImpl::RMSNormImpl(const RMSNormOptions& options_) : options(options_) { reset(); }

void RMSNormImpl::reset() {
  check_normalized_shape(options.normalized_shape(), "RMSNorm");
  if (options.elementwise_affine()) {
    weight = register_parameter("weight", ember::empty(options.normalized_shape()));
  } else {
    weight = register_parameter("weight", Tensor(), /*requires_grad=*/false);
  }
  reset_parameters();
}

void RMSNormImpl::reset_parameters() {
  if (!options.elementwise_affine()) return;
  init::ones_(weight);
}

Tensor RMSNormImpl::forward(const Tensor& input) {
  check_input(input, options.normalized_shape(), "RMSNorm");
  return named_call("RMSNorm", [&] {
    return F::rms_norm(
        input, F::RMSNormFuncOptions(options.normalized_shape()).weight(weight).eps(options.eps()));
  });
}

void RMSNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::RMSNorm(";
  print_shape(stream, options.normalized_shape());
  stream << ", eps=";
  if (options.eps())
    stream << *options.eps();
  else
    stream << "None";
  stream << ", elementwise_affine=" << options.elementwise_affine() << ")";
}

}  // namespace ember::nn
