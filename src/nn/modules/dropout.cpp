// Dropout modules: the probability check at construction, forward with the module's training
// flag, and printing (the math is in src/nn/functional/dropout.cpp).
#include "ember/nn/modules/dropout.h"

#include <ostream>

#include "ember/nn/functional/dropout.h"
#include "src/nn/modules/module_errors.h"

namespace ember::nn {
namespace F = functional;
using detail::named_call;

namespace {

// Checked when the module is built, so a bad p fails where it was written, not at the first
// training step.
void check_p(double p, const char* module) {
  EMBER_CHECK_VALUE(p >= 0.0 && p <= 1.0,
                    "{}: dropout probability has to be between 0 and 1, but got {}", module, p);
}

void print(std::ostream& stream, const char* module, const DropoutOptions& options) {
  stream << std::boolalpha << "ember::nn::" << module << "(p=" << options.p()
         << ", inplace=" << options.inplace() << ")";
}

}  // namespace

DropoutImpl::DropoutImpl(const DropoutOptions& options_) : options(options_) { reset(); }
void DropoutImpl::reset() { check_p(options.p(), "Dropout"); }
Tensor DropoutImpl::forward(Tensor input) {
  return named_call("Dropout", [&] {
    return F::detail::dropout(input, options.p(), is_training(), options.inplace());
  });
}
void DropoutImpl::pretty_print(std::ostream& stream) const { print(stream, "Dropout", options); }

Dropout1dImpl::Dropout1dImpl(const Dropout1dOptions& options_) : options(options_) { reset(); }
void Dropout1dImpl::reset() { check_p(options.p(), "Dropout1d"); }
Tensor Dropout1dImpl::forward(Tensor input) {
  return named_call("Dropout1d", [&] {
    return F::detail::dropout1d(input, options.p(), is_training(), options.inplace());
  });
}
void Dropout1dImpl::pretty_print(std::ostream& stream) const {
  print(stream, "Dropout1d", options);
}

Dropout2dImpl::Dropout2dImpl(const Dropout2dOptions& options_) : options(options_) { reset(); }
void Dropout2dImpl::reset() { check_p(options.p(), "Dropout2d"); }
Tensor Dropout2dImpl::forward(Tensor input) {
  return named_call("Dropout2d", [&] {
    return F::detail::dropout2d(input, options.p(), is_training(), options.inplace());
  });
}
void Dropout2dImpl::pretty_print(std::ostream& stream) const {
  print(stream, "Dropout2d", options);
}

Dropout3dImpl::Dropout3dImpl(const Dropout3dOptions& options_) : options(options_) { reset(); }
void Dropout3dImpl::reset() { check_p(options.p(), "Dropout3d"); }
Tensor Dropout3dImpl::forward(Tensor input) {
  return named_call("Dropout3d", [&] {
    return F::detail::dropout3d(input, options.p(), is_training(), options.inplace());
  });
}
void Dropout3dImpl::pretty_print(std::ostream& stream) const {
  print(stream, "Dropout3d", options);
}

AlphaDropoutImpl::AlphaDropoutImpl(const AlphaDropoutOptions& options_) : options(options_) {
  reset();
}
void AlphaDropoutImpl::reset() { check_p(options.p(), "AlphaDropout"); }
Tensor AlphaDropoutImpl::forward(const Tensor& input) {
  return named_call("AlphaDropout", [&] {
    return F::detail::alpha_dropout(input, options.p(), is_training(), /*inplace=*/false);
  });
}
void AlphaDropoutImpl::pretty_print(std::ostream& stream) const {
  print(stream, "AlphaDropout", options);
}

FeatureAlphaDropoutImpl::FeatureAlphaDropoutImpl(const FeatureAlphaDropoutOptions& options_)
    : options(options_) {
  reset();
}
void FeatureAlphaDropoutImpl::reset() { check_p(options.p(), "FeatureAlphaDropout"); }
Tensor FeatureAlphaDropoutImpl::forward(const Tensor& input) {
  return named_call("FeatureAlphaDropout", [&] {
    return F::detail::feature_alpha_dropout(input, options.p(), is_training(), /*inplace=*/false);
  });
}
void FeatureAlphaDropoutImpl::pretty_print(std::ostream& stream) const {
  print(stream, "FeatureAlphaDropout", options);
}

}  // namespace ember::nn
