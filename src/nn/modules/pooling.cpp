// The pooling modules: forwards onto the functional forms (the bases print themselves inline in
// the header), FractionalMaxPool's option checks.
#include "ember/nn/modules/pooling.h"

#include <ostream>

#include "ember/nn/functional/pooling.h"
#include "src/core/check.h"

namespace ember::nn {

namespace F = functional;

// ---- 1-d ----

Tensor AvgPool1dImpl::forward(const Tensor& input) { return F::avg_pool1d(input, options); }
Tensor MaxPool1dImpl::forward(const Tensor& input) { return F::max_pool1d(input, options); }
std::tuple<Tensor, Tensor> MaxPool1dImpl::forward_with_indices(const Tensor& input) {
  return F::max_pool1d_with_indices(input, options);
}
Tensor AdaptiveMaxPool1dImpl::forward(const Tensor& input) {
  return F::adaptive_max_pool1d(input, options);
}
std::tuple<Tensor, Tensor> AdaptiveMaxPool1dImpl::forward_with_indices(const Tensor& input) {
  return F::adaptive_max_pool1d_with_indices(input, options);
}
Tensor AdaptiveAvgPool1dImpl::forward(const Tensor& input) {
  return F::adaptive_avg_pool1d(input, options);
}
Tensor MaxUnpool1dImpl::forward(const Tensor& input, const Tensor& indices,
                                const std::optional<std::vector<int64_t>>& output_size) {
  return F::max_unpool1d(input, indices,
                         F::MaxUnpool1dFuncOptions(options.kernel_size())
                             .stride(options.stride())
                             .padding(options.padding())
                             .output_size(output_size));
}
Tensor LPPool1dImpl::forward(const Tensor& input) { return F::lp_pool1d(input, options); }

// ---- 2-d ----

Tensor AvgPool2dImpl::forward(const Tensor& input) { return F::avg_pool2d(input, options); }
Tensor MaxPool2dImpl::forward(const Tensor& input) { return F::max_pool2d(input, options); }
std::tuple<Tensor, Tensor> MaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return F::max_pool2d_with_indices(input, options);
}
Tensor AdaptiveMaxPool2dImpl::forward(const Tensor& input) {
  return F::adaptive_max_pool2d(input, options);
}
std::tuple<Tensor, Tensor> AdaptiveMaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return F::adaptive_max_pool2d_with_indices(input, options);
}
Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) {
  return F::adaptive_avg_pool2d(input, options);
}
Tensor MaxUnpool2dImpl::forward(const Tensor& input, const Tensor& indices,
                                const std::optional<std::vector<int64_t>>& output_size) {
  return F::max_unpool2d(input, indices,
                         F::MaxUnpool2dFuncOptions(options.kernel_size())
                             .stride(options.stride())
                             .padding(options.padding())
                             .output_size(output_size));
}
Tensor LPPool2dImpl::forward(const Tensor& input) { return F::lp_pool2d(input, options); }

// ---- 3-d ----

Tensor AvgPool3dImpl::forward(const Tensor& input) { return F::avg_pool3d(input, options); }
Tensor MaxPool3dImpl::forward(const Tensor& input) { return F::max_pool3d(input, options); }
std::tuple<Tensor, Tensor> MaxPool3dImpl::forward_with_indices(const Tensor& input) {
  return F::max_pool3d_with_indices(input, options);
}
Tensor AdaptiveMaxPool3dImpl::forward(const Tensor& input) {
  return F::adaptive_max_pool3d(input, options);
}
std::tuple<Tensor, Tensor> AdaptiveMaxPool3dImpl::forward_with_indices(const Tensor& input) {
  return F::adaptive_max_pool3d_with_indices(input, options);
}
Tensor AdaptiveAvgPool3dImpl::forward(const Tensor& input) {
  return F::adaptive_avg_pool3d(input, options);
}
Tensor MaxUnpool3dImpl::forward(const Tensor& input, const Tensor& indices,
                                const std::optional<std::vector<int64_t>>& output_size) {
  return F::max_unpool3d(input, indices,
                         F::MaxUnpool3dFuncOptions(options.kernel_size())
                             .stride(options.stride())
                             .padding(options.padding())
                             .output_size(output_size));
}
Tensor LPPool3dImpl::forward(const Tensor& input) { return F::lp_pool3d(input, options); }

// ---- FractionalMaxPool2d ----
FractionalMaxPool2dImpl::FractionalMaxPool2dImpl(const FractionalMaxPool2dOptions& options_)
    : options(options_) {
  reset();
}

void FractionalMaxPool2dImpl::reset() {
  EMBER_CHECK_VALUE(options.output_size() || options.output_ratio(),
                    "FractionalMaxPool2d requires specifying either an output_size or an "
                    "output_ratio");
  EMBER_CHECK_VALUE(!(options.output_size() && options.output_ratio()),
                    "FractionalMaxPool2d: only one of output_size and output_ratio may be "
                    "specified");
  if (options.output_ratio()) {
    for (double r : **options.output_ratio())
      EMBER_CHECK_VALUE(r > 0 && r < 1,
                        "FractionalMaxPool2d: output_ratio must be between 0 and 1 (exclusive), "
                        "but got {}",
                        r);
  }
}

void FractionalMaxPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::FractionalMaxPool2d()";
}

Tensor FractionalMaxPool2dImpl::forward(const Tensor& input) {
  return F::fractional_max_pool2d(input, options);
}
std::tuple<Tensor, Tensor> FractionalMaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return F::fractional_max_pool2d_with_indices(input, options);
}

// ---- FractionalMaxPool3d ----
FractionalMaxPool3dImpl::FractionalMaxPool3dImpl(const FractionalMaxPool3dOptions& options_)
    : options(options_) {
  reset();
}

void FractionalMaxPool3dImpl::reset() {
  EMBER_CHECK_VALUE(options.output_size() || options.output_ratio(),
                    "FractionalMaxPool3d requires specifying either an output_size or an "
                    "output_ratio");
  EMBER_CHECK_VALUE(!(options.output_size() && options.output_ratio()),
                    "FractionalMaxPool3d: only one of output_size and output_ratio may be "
                    "specified");
  if (options.output_ratio()) {
    for (double r : **options.output_ratio())
      EMBER_CHECK_VALUE(r > 0 && r < 1,
                        "FractionalMaxPool3d: output_ratio must be between 0 and 1 (exclusive), "
                        "but got {}",
                        r);
  }
}

void FractionalMaxPool3dImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::FractionalMaxPool3d()";
}

Tensor FractionalMaxPool3dImpl::forward(const Tensor& input) {
  return F::fractional_max_pool3d(input, options);
}
std::tuple<Tensor, Tensor> FractionalMaxPool3dImpl::forward_with_indices(const Tensor& input) {
  return F::fractional_max_pool3d_with_indices(input, options);
}

}  // namespace ember::nn
