// Pooling modules (LibTorch's torch/nn/modules/pooling.h): MaxPool, AvgPool, AdaptiveMaxPool,
// AdaptiveAvgPool, MaxUnpool, LPPool (1-d, 2-d, 3-d) and FractionalMaxPool (2-d, 3-d). None has
// parameters or buffers; each forwards to the functional form with its options.
//
//   nn::MaxPool2d pool(nn::MaxPool2dOptions(2));
//   auto [y, indices] = pool->forward_with_indices(x);
//   nn::MaxUnpool2d unpool(nn::MaxUnpool2dOptions(2));
//   Tensor back = unpool(y, indices);
#pragma once

#include <optional>
#include <ostream>
#include <tuple>
#include <vector>

#include "ember/nn/cloneable.h"
#include "ember/nn/options/pooling.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

/// The base of AvgPool1d/2d/3d: keeps the options, prints them.
template <size_t D, typename Derived>
class AvgPoolImpl : public Cloneable<Derived> {
 public:
  AvgPoolImpl(ExpandingArray<D> kernel_size) : AvgPoolImpl(AvgPoolOptions<D>(kernel_size)) {}
  explicit AvgPoolImpl(const AvgPoolOptions<D>& options_) : options(options_) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override {
    stream << "ember::nn::AvgPool" << D << "d(kernel_size=" << options.kernel_size()
           << ", stride=" << options.stride() << ", padding=" << options.padding() << ")";
  }
  AvgPoolOptions<D> options;
};

/// The base of MaxPool1d/2d/3d.
template <size_t D, typename Derived>
class MaxPoolImpl : public Cloneable<Derived> {
 public:
  MaxPoolImpl(ExpandingArray<D> kernel_size) : MaxPoolImpl(MaxPoolOptions<D>(kernel_size)) {}
  explicit MaxPoolImpl(const MaxPoolOptions<D>& options_) : options(options_) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override {
    stream << std::boolalpha << "ember::nn::MaxPool" << D
           << "d(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
           << ", padding=" << options.padding() << ", dilation=" << options.dilation()
           << ", ceil_mode=" << options.ceil_mode() << ")";
  }
  MaxPoolOptions<D> options;
};

/// The base of AdaptiveMaxPool1d/2d/3d.
template <size_t D, typename output_size_t, typename Derived>
class AdaptiveMaxPoolImpl : public Cloneable<Derived> {
 public:
  AdaptiveMaxPoolImpl(output_size_t output_size)
      : AdaptiveMaxPoolImpl(AdaptiveMaxPoolOptions<output_size_t>(output_size)) {}
  explicit AdaptiveMaxPoolImpl(const AdaptiveMaxPoolOptions<output_size_t>& options_)
      : options(options_) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override {
    stream << "ember::nn::AdaptiveMaxPool" << D << "d(output_size=" << options.output_size() << ")";
  }
  AdaptiveMaxPoolOptions<output_size_t> options;
};

/// The base of AdaptiveAvgPool1d/2d/3d.
template <size_t D, typename output_size_t, typename Derived>
class AdaptiveAvgPoolImpl : public Cloneable<Derived> {
 public:
  AdaptiveAvgPoolImpl(output_size_t output_size)
      : AdaptiveAvgPoolImpl(AdaptiveAvgPoolOptions<output_size_t>(output_size)) {}
  explicit AdaptiveAvgPoolImpl(const AdaptiveAvgPoolOptions<output_size_t>& options_)
      : options(options_) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override {
    stream << "ember::nn::AdaptiveAvgPool" << D << "d(output_size=" << options.output_size() << ")";
  }
  AdaptiveAvgPoolOptions<output_size_t> options;
};

/// The base of MaxUnpool1d/2d/3d.
template <size_t D, typename Derived>
class MaxUnpoolImpl : public Cloneable<Derived> {
 public:
  MaxUnpoolImpl(ExpandingArray<D> kernel_size) : MaxUnpoolImpl(MaxUnpoolOptions<D>(kernel_size)) {}
  explicit MaxUnpoolImpl(const MaxUnpoolOptions<D>& options_) : options(options_) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override {
    stream << "ember::nn::MaxUnpool" << D << "d(kernel_size=" << options.kernel_size()
           << ", stride=" << options.stride() << ", padding=" << options.padding() << ")";
  }
  MaxUnpoolOptions<D> options;
};

/// The base of LPPool1d/2d/3d.
template <size_t D, typename Derived>
class LPPoolImpl : public Cloneable<Derived> {
 public:
  LPPoolImpl(double norm_type, ExpandingArray<D> kernel_size)
      : LPPoolImpl(LPPoolOptions<D>(norm_type, kernel_size)) {}
  explicit LPPoolImpl(const LPPoolOptions<D>& options_) : options(options_) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override {
    stream << std::boolalpha << "ember::nn::LPPool" << D << "d(norm_type=" << options.norm_type()
           << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
           << ", ceil_mode=" << options.ceil_mode() << ")";
  }
  LPPoolOptions<D> options;
};

/// Average pooling over 1-d windows of [N, C, *] or [C, *] inputs.
class EMBER_API AvgPool1dImpl : public AvgPoolImpl<1, AvgPool1dImpl> {
 public:
  using AvgPoolImpl<1, AvgPool1dImpl>::AvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AvgPool1d);

/// Max pooling over 1-d windows; forward_with_indices also returns the int64 indices.
class EMBER_API MaxPool1dImpl : public MaxPoolImpl<1, MaxPool1dImpl> {
 public:
  using MaxPoolImpl<1, MaxPool1dImpl>::MaxPoolImpl;
  Tensor forward(const Tensor& input);
  /// The output and the flat spatial index of each maximum (for MaxUnpool1d).
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
EMBER_MODULE(MaxPool1d);

/// Adaptive max pooling to a fixed 1-d output size.
class EMBER_API AdaptiveMaxPool1dImpl
    : public AdaptiveMaxPoolImpl<1, ExpandingArray<1>, AdaptiveMaxPool1dImpl> {
 public:
  using AdaptiveMaxPoolImpl<1, ExpandingArray<1>, AdaptiveMaxPool1dImpl>::AdaptiveMaxPoolImpl;
  Tensor forward(const Tensor& input);
  /// The output and the flat spatial index of each maximum.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
EMBER_MODULE(AdaptiveMaxPool1d);

/// Adaptive average pooling to a fixed 1-d output size.
class EMBER_API AdaptiveAvgPool1dImpl
    : public AdaptiveAvgPoolImpl<1, ExpandingArray<1>, AdaptiveAvgPool1dImpl> {
 public:
  using AdaptiveAvgPoolImpl<1, ExpandingArray<1>, AdaptiveAvgPool1dImpl>::AdaptiveAvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AdaptiveAvgPool1d);

/// The partial inverse of MaxPool1d: values put back at their indices, zeros elsewhere.
class EMBER_API MaxUnpool1dImpl : public MaxUnpoolImpl<1, MaxUnpool1dImpl> {
 public:
  using MaxUnpoolImpl<1, MaxUnpool1dImpl>::MaxUnpoolImpl;
  /// output_size: D or D + 2 sizes choosing among the sizes the pooling could have come from.
  Tensor forward(const Tensor& input, const Tensor& indices,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);
};
EMBER_MODULE(MaxUnpool1d);

/// Power-average pooling, (sum x^p)^(1/p), over 1-d windows.
class EMBER_API LPPool1dImpl : public LPPoolImpl<1, LPPool1dImpl> {
 public:
  using LPPoolImpl<1, LPPool1dImpl>::LPPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(LPPool1d);

/// Average pooling over 2-d windows of [N, C, *] or [C, *] inputs.
class EMBER_API AvgPool2dImpl : public AvgPoolImpl<2, AvgPool2dImpl> {
 public:
  using AvgPoolImpl<2, AvgPool2dImpl>::AvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AvgPool2d);

/// Max pooling over 2-d windows; forward_with_indices also returns the int64 indices.
class EMBER_API MaxPool2dImpl : public MaxPoolImpl<2, MaxPool2dImpl> {
 public:
  using MaxPoolImpl<2, MaxPool2dImpl>::MaxPoolImpl;
  Tensor forward(const Tensor& input);
  /// The output and the flat spatial index of each maximum (for MaxUnpool2d).
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
EMBER_MODULE(MaxPool2d);

/// Adaptive max pooling to a fixed 2-d output size.
class EMBER_API AdaptiveMaxPool2dImpl
    : public AdaptiveMaxPoolImpl<2, ExpandingArrayWithOptionalElem<2>, AdaptiveMaxPool2dImpl> {
 public:
  using AdaptiveMaxPoolImpl<2, ExpandingArrayWithOptionalElem<2>,
                            AdaptiveMaxPool2dImpl>::AdaptiveMaxPoolImpl;
  Tensor forward(const Tensor& input);
  /// The output and the flat spatial index of each maximum.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
EMBER_MODULE(AdaptiveMaxPool2d);

/// Adaptive average pooling to a fixed 2-d output size.
class EMBER_API AdaptiveAvgPool2dImpl
    : public AdaptiveAvgPoolImpl<2, ExpandingArrayWithOptionalElem<2>, AdaptiveAvgPool2dImpl> {
 public:
  using AdaptiveAvgPoolImpl<2, ExpandingArrayWithOptionalElem<2>,
                            AdaptiveAvgPool2dImpl>::AdaptiveAvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AdaptiveAvgPool2d);

/// The partial inverse of MaxPool2d: values put back at their indices, zeros elsewhere.
class EMBER_API MaxUnpool2dImpl : public MaxUnpoolImpl<2, MaxUnpool2dImpl> {
 public:
  using MaxUnpoolImpl<2, MaxUnpool2dImpl>::MaxUnpoolImpl;
  /// output_size: D or D + 2 sizes choosing among the sizes the pooling could have come from.
  Tensor forward(const Tensor& input, const Tensor& indices,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);
};
EMBER_MODULE(MaxUnpool2d);

/// Power-average pooling, (sum x^p)^(1/p), over 2-d windows.
class EMBER_API LPPool2dImpl : public LPPoolImpl<2, LPPool2dImpl> {
 public:
  using LPPoolImpl<2, LPPool2dImpl>::LPPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(LPPool2d);

/// Average pooling over 3-d windows of [N, C, *] or [C, *] inputs.
class EMBER_API AvgPool3dImpl : public AvgPoolImpl<3, AvgPool3dImpl> {
 public:
  using AvgPoolImpl<3, AvgPool3dImpl>::AvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AvgPool3d);

/// Max pooling over 3-d windows; forward_with_indices also returns the int64 indices.
class EMBER_API MaxPool3dImpl : public MaxPoolImpl<3, MaxPool3dImpl> {
 public:
  using MaxPoolImpl<3, MaxPool3dImpl>::MaxPoolImpl;
  Tensor forward(const Tensor& input);
  /// The output and the flat spatial index of each maximum (for MaxUnpool3d).
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
EMBER_MODULE(MaxPool3d);

/// Adaptive max pooling to a fixed 3-d output size.
class EMBER_API AdaptiveMaxPool3dImpl
    : public AdaptiveMaxPoolImpl<3, ExpandingArrayWithOptionalElem<3>, AdaptiveMaxPool3dImpl> {
 public:
  using AdaptiveMaxPoolImpl<3, ExpandingArrayWithOptionalElem<3>,
                            AdaptiveMaxPool3dImpl>::AdaptiveMaxPoolImpl;
  Tensor forward(const Tensor& input);
  /// The output and the flat spatial index of each maximum.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
EMBER_MODULE(AdaptiveMaxPool3d);

/// Adaptive average pooling to a fixed 3-d output size.
class EMBER_API AdaptiveAvgPool3dImpl
    : public AdaptiveAvgPoolImpl<3, ExpandingArrayWithOptionalElem<3>, AdaptiveAvgPool3dImpl> {
 public:
  using AdaptiveAvgPoolImpl<3, ExpandingArrayWithOptionalElem<3>,
                            AdaptiveAvgPool3dImpl>::AdaptiveAvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AdaptiveAvgPool3d);

/// The partial inverse of MaxPool3d: values put back at their indices, zeros elsewhere.
class EMBER_API MaxUnpool3dImpl : public MaxUnpoolImpl<3, MaxUnpool3dImpl> {
 public:
  using MaxUnpoolImpl<3, MaxUnpool3dImpl>::MaxUnpoolImpl;
  /// output_size: D or D + 2 sizes choosing among the sizes the pooling could have come from.
  Tensor forward(const Tensor& input, const Tensor& indices,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);
};
EMBER_MODULE(MaxUnpool3d);

/// Power-average pooling, (sum x^p)^(1/p), over 3-d windows.
class EMBER_API LPPool3dImpl : public LPPoolImpl<3, LPPool3dImpl> {
 public:
  using LPPoolImpl<3, LPPool3dImpl>::LPPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(LPPool3d);

/// Fractional max pooling (Graham, 2014) over 2-d windows; the window placement is drawn from
/// ember's default generator on each call unless options._random_samples() is set.
class EMBER_API FractionalMaxPool2dImpl : public Cloneable<FractionalMaxPool2dImpl> {
 public:
  FractionalMaxPool2dImpl(ExpandingArray<2> kernel_size)
      : FractionalMaxPool2dImpl(FractionalMaxPool2dOptions(kernel_size)) {}
  explicit FractionalMaxPool2dImpl(const FractionalMaxPool2dOptions& options_);
  /// Checks the options (exactly one of output_size and output_ratio; ratios in (0, 1)).
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  /// The output and the flat spatial index of each maximum.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  FractionalMaxPool2dOptions options;
};
EMBER_MODULE(FractionalMaxPool2d);

/// Fractional max pooling (Graham, 2014) over 3-d windows; the window placement is drawn from
/// ember's default generator on each call unless options._random_samples() is set.
class EMBER_API FractionalMaxPool3dImpl : public Cloneable<FractionalMaxPool3dImpl> {
 public:
  FractionalMaxPool3dImpl(ExpandingArray<3> kernel_size)
      : FractionalMaxPool3dImpl(FractionalMaxPool3dOptions(kernel_size)) {}
  explicit FractionalMaxPool3dImpl(const FractionalMaxPool3dOptions& options_);
  /// Checks the options (exactly one of output_size and output_ratio; ratios in (0, 1)).
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  /// The output and the flat spatial index of each maximum.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  FractionalMaxPool3dOptions options;
};
EMBER_MODULE(FractionalMaxPool3d);

}  // namespace ember::nn
