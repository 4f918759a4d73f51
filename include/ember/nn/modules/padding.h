// Padding modules (LibTorch's torch/nn/modules/padding.h, with the ZeroPad1d/3d and CircularPad*
// modules of newer LibTorch): ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d, CircularPad1d/2d/3d,
// ZeroPad1d/2d/3d and ConstantPad1d/2d/3d. Each holds its options and pads through F::pad.
//
//   nn::ReflectionPad2d pad(nn::ReflectionPad2dOptions({1, 1, 2, 0}));  // or pad(1): 1 everywhere
//   Tensor y = pad(x);   // x [N, C, H, W] -> [N, C, H + 2, W + 2]
#pragma once

#include <ostream>
#include <vector>

#include "ember/nn/cloneable.h"
#include "ember/nn/functional/padding.h"
#include "ember/nn/options/padding.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

namespace detail {
/// The padding as F::pad's list.
template <size_t N>
std::vector<int64_t> pad_module_list(const ExpandingArray<N>& padding) {
  return std::vector<int64_t>(padding->begin(), padding->end());
}
}  // namespace detail

/// Shared body of ReflectionPad{D}d: pads the last D dims by mirroring (no parameters).
template <size_t D, typename Derived>
class ReflectionPadImpl : public Cloneable<Derived> {
 public:
  ReflectionPadImpl(ExpandingArray<D * 2> padding)  // NOLINT
      : ReflectionPadImpl(ReflectionPadOptions<D>(padding)) {}
  explicit ReflectionPadImpl(const ReflectionPadOptions<D>& options_) : options(options_) {}
  void reset() override {}
  /// [C, *] or [N, C, *] with D padded dims.
  Tensor forward(const Tensor& input) {
    return functional::pad(input,
                           functional::PadFuncOptions(detail::pad_module_list(options.padding()))
                               .mode(ember::kReflect));
  }
  void pretty_print(std::ostream& stream) const override {
    stream << "ember::nn::ReflectionPad" << D << "d(padding=" << options.padding() << ")";
  }
  ReflectionPadOptions<D> options;
};

/// ReflectionPad1d: [C, W] or [N, C, W].
class ReflectionPad1dImpl : public ReflectionPadImpl<1, ReflectionPad1dImpl> {
 public:
  using ReflectionPadImpl<1, ReflectionPad1dImpl>::ReflectionPadImpl;
};
EMBER_MODULE(ReflectionPad1d);
/// ReflectionPad2d: [C, H, W] or [N, C, H, W].
class ReflectionPad2dImpl : public ReflectionPadImpl<2, ReflectionPad2dImpl> {
 public:
  using ReflectionPadImpl<2, ReflectionPad2dImpl>::ReflectionPadImpl;
};
EMBER_MODULE(ReflectionPad2d);
/// ReflectionPad3d: [C, D, H, W] or [N, C, D, H, W].
class ReflectionPad3dImpl : public ReflectionPadImpl<3, ReflectionPad3dImpl> {
 public:
  using ReflectionPadImpl<3, ReflectionPad3dImpl>::ReflectionPadImpl;
};
EMBER_MODULE(ReflectionPad3d);

/// Shared body of ReplicationPad{D}d: pads the last D dims by repeating the edge.
template <size_t D, typename Derived>
class ReplicationPadImpl : public Cloneable<Derived> {
 public:
  ReplicationPadImpl(ExpandingArray<D * 2> padding)  // NOLINT
      : ReplicationPadImpl(ReplicationPadOptions<D>(padding)) {}
  explicit ReplicationPadImpl(const ReplicationPadOptions<D>& options_) : options(options_) {}
  void reset() override {}
  /// [C, *] or [N, C, *] with D padded dims.
  Tensor forward(const Tensor& input) {
    return functional::pad(input,
                           functional::PadFuncOptions(detail::pad_module_list(options.padding()))
                               .mode(ember::kReplicate));
  }
  void pretty_print(std::ostream& stream) const override {
    stream << "ember::nn::ReplicationPad" << D << "d(padding=" << options.padding() << ")";
  }
  ReplicationPadOptions<D> options;
};

/// ReplicationPad1d: [C, W] or [N, C, W].
class ReplicationPad1dImpl : public ReplicationPadImpl<1, ReplicationPad1dImpl> {
 public:
  using ReplicationPadImpl<1, ReplicationPad1dImpl>::ReplicationPadImpl;
};
EMBER_MODULE(ReplicationPad1d);
/// ReplicationPad2d: [C, H, W] or [N, C, H, W].
class ReplicationPad2dImpl : public ReplicationPadImpl<2, ReplicationPad2dImpl> {
 public:
  using ReplicationPadImpl<2, ReplicationPad2dImpl>::ReplicationPadImpl;
};
EMBER_MODULE(ReplicationPad2d);
/// ReplicationPad3d: [C, D, H, W] or [N, C, D, H, W].
class ReplicationPad3dImpl : public ReplicationPadImpl<3, ReplicationPad3dImpl> {
 public:
  using ReplicationPadImpl<3, ReplicationPad3dImpl>::ReplicationPadImpl;
};
EMBER_MODULE(ReplicationPad3d);

/// Shared body of CircularPad{D}d: pads the last D dims by wrapping around.
template <size_t D, typename Derived>
class CircularPadImpl : public Cloneable<Derived> {
 public:
  CircularPadImpl(ExpandingArray<D * 2> padding)  // NOLINT
      : CircularPadImpl(CircularPadOptions<D>(padding)) {}
  explicit CircularPadImpl(const CircularPadOptions<D>& options_) : options(options_) {}
  void reset() override {}
  /// [C, *] or [N, C, *] with D padded dims.
  Tensor forward(const Tensor& input) {
    return functional::pad(input,
                           functional::PadFuncOptions(detail::pad_module_list(options.padding()))
                               .mode(ember::kCircular));
  }
  void pretty_print(std::ostream& stream) const override {
    stream << "ember::nn::CircularPad" << D << "d(padding=" << options.padding() << ")";
  }
  CircularPadOptions<D> options;
};

/// CircularPad1d: [C, W] or [N, C, W].
class CircularPad1dImpl : public CircularPadImpl<1, CircularPad1dImpl> {
 public:
  using CircularPadImpl<1, CircularPad1dImpl>::CircularPadImpl;
};
EMBER_MODULE(CircularPad1d);
/// CircularPad2d: [C, H, W] or [N, C, H, W].
class CircularPad2dImpl : public CircularPadImpl<2, CircularPad2dImpl> {
 public:
  using CircularPadImpl<2, CircularPad2dImpl>::CircularPadImpl;
};
EMBER_MODULE(CircularPad2d);
/// CircularPad3d: [C, D, H, W] or [N, C, D, H, W].
class CircularPad3dImpl : public CircularPadImpl<3, CircularPad3dImpl> {
 public:
  using CircularPadImpl<3, CircularPad3dImpl>::CircularPadImpl;
};
EMBER_MODULE(CircularPad3d);

/// Shared body of ZeroPad{D}d: pads the last D dims with zeros (any rank of at least D).
template <size_t D, typename Derived>
class ZeroPadImpl : public Cloneable<Derived> {
 public:
  ZeroPadImpl(ExpandingArray<D * 2> padding)  // NOLINT
      : ZeroPadImpl(ZeroPadOptions<D>(padding)) {}
  explicit ZeroPadImpl(const ZeroPadOptions<D>& options_) : options(options_) {}
  void reset() override {}
  /// Any input with at least D dims; negative pads crop.
  Tensor forward(const Tensor& input) {
    return functional::pad(input,
                           functional::PadFuncOptions(detail::pad_module_list(options.padding())));
  }
  void pretty_print(std::ostream& stream) const override {
    stream << "ember::nn::ZeroPad" << D << "d(padding=" << options.padding() << ")";
  }
  ZeroPadOptions<D> options;
};

/// ZeroPad1d: zeros around the last dim.
class ZeroPad1dImpl : public ZeroPadImpl<1, ZeroPad1dImpl> {
 public:
  using ZeroPadImpl<1, ZeroPad1dImpl>::ZeroPadImpl;
};
EMBER_MODULE(ZeroPad1d);
/// ZeroPad2d: zeros around the last 2 dims.
class ZeroPad2dImpl : public ZeroPadImpl<2, ZeroPad2dImpl> {
 public:
  using ZeroPadImpl<2, ZeroPad2dImpl>::ZeroPadImpl;
};
EMBER_MODULE(ZeroPad2d);
/// ZeroPad3d: zeros around the last 3 dims.
class ZeroPad3dImpl : public ZeroPadImpl<3, ZeroPad3dImpl> {
 public:
  using ZeroPadImpl<3, ZeroPad3dImpl>::ZeroPadImpl;
};
EMBER_MODULE(ZeroPad3d);

/// Shared body of ConstantPad{D}d: pads the last D dims with options.value().
template <size_t D, typename Derived>
class ConstantPadImpl : public Cloneable<Derived> {
 public:
  ConstantPadImpl(ExpandingArray<D * 2> padding, double value)
      : ConstantPadImpl(ConstantPadOptions<D>(padding, value)) {}
  explicit ConstantPadImpl(const ConstantPadOptions<D>& options_) : options(options_) {}
  void reset() override {}
  /// Any input with at least D dims; negative pads crop.
  Tensor forward(const Tensor& input) {
    return functional::pad(input,
                           functional::PadFuncOptions(detail::pad_module_list(options.padding()))
                               .value(options.value()));
  }
  void pretty_print(std::ostream& stream) const override {
    stream << "ember::nn::ConstantPad" << D << "d(padding=" << options.padding()
           << ", value=" << options.value() << ")";
  }
  ConstantPadOptions<D> options;
};

/// ConstantPad1d: `value` around the last dim.
class ConstantPad1dImpl : public ConstantPadImpl<1, ConstantPad1dImpl> {
 public:
  using ConstantPadImpl<1, ConstantPad1dImpl>::ConstantPadImpl;
};
EMBER_MODULE(ConstantPad1d);
/// ConstantPad2d: `value` around the last 2 dims.
class ConstantPad2dImpl : public ConstantPadImpl<2, ConstantPad2dImpl> {
 public:
  using ConstantPadImpl<2, ConstantPad2dImpl>::ConstantPadImpl;
};
EMBER_MODULE(ConstantPad2d);
/// ConstantPad3d: `value` around the last 3 dims.
class ConstantPad3dImpl : public ConstantPadImpl<3, ConstantPad3dImpl> {
 public:
  using ConstantPadImpl<3, ConstantPad3dImpl>::ConstantPadImpl;
};
EMBER_MODULE(ConstantPad3d);

}  // namespace ember::nn
