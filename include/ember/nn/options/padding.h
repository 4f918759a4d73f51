// Options of the padding modules and of F::pad, as LibTorch's torch/nn/options/padding.h (with
// the ZeroPad1d/3d and CircularPad1d/2d/3d options of newer LibTorch):
//   nn::ReflectionPad2d pad(nn::ReflectionPad2dOptions({1, 1, 2, 0}));
//   F::pad(x, F::PadFuncOptions({1, 1, 2, 2}).mode(ember::kReflect));
// A padding of D dims is 2·D values (left, right, top, bottom, front, back: the last dim first)
// or one value for all of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <variant>
#include <vector>

#include "ember/core/arg.h"
#include "ember/core/expanding_array.h"
#include "ember/nn/enum.h"

namespace ember::nn {

/// Options of ReflectionPad{D}d: the input is mirrored at its edges (the edge is not repeated).
template <size_t D>
struct ReflectionPadOptions {
  ReflectionPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}  // NOLINT
  /// (left, right[, top, bottom[, front, back]]), each smaller than the dim it pads.
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
/// ReflectionPad1d(ReflectionPad1dOptions({3, 1})).
using ReflectionPad1dOptions = ReflectionPadOptions<1>;
/// ReflectionPad2d(ReflectionPad2dOptions({1, 1, 2, 0})).
using ReflectionPad2dOptions = ReflectionPadOptions<2>;
/// ReflectionPad3d(ReflectionPad3dOptions({1, 1, 2, 0, 1, 1})).
using ReflectionPad3dOptions = ReflectionPadOptions<3>;

/// Options of ReplicationPad{D}d: the edge element is repeated.
template <size_t D>
struct ReplicationPadOptions {
  ReplicationPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}  // NOLINT
  /// (left, right[, top, bottom[, front, back]]).
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
/// ReplicationPad1d(ReplicationPad1dOptions({3, 1})).
using ReplicationPad1dOptions = ReplicationPadOptions<1>;
/// ReplicationPad2d(ReplicationPad2dOptions({1, 1, 2, 0})).
using ReplicationPad2dOptions = ReplicationPadOptions<2>;
/// ReplicationPad3d(ReplicationPad3dOptions({1, 2, 1, 2, 1, 2})).
using ReplicationPad3dOptions = ReplicationPadOptions<3>;

/// Options of CircularPad{D}d: the input wraps around (each pad at most the dim's size).
template <size_t D>
struct CircularPadOptions {
  CircularPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}  // NOLINT
  /// (left, right[, top, bottom[, front, back]]).
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
/// CircularPad1d(CircularPad1dOptions({3, 1})).
using CircularPad1dOptions = CircularPadOptions<1>;
/// CircularPad2d(CircularPad2dOptions({1, 1, 2, 0})).
using CircularPad2dOptions = CircularPadOptions<2>;
/// CircularPad3d(CircularPad3dOptions({1, 2, 1, 2, 1, 2})).
using CircularPad3dOptions = CircularPadOptions<3>;

/// Options of ZeroPad{D}d: pads with zeros (negative pads crop).
template <size_t D>
struct ZeroPadOptions {
  ZeroPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}  // NOLINT
  /// (left, right[, top, bottom[, front, back]]).
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
/// ZeroPad1d(ZeroPad1dOptions({3, 1})).
using ZeroPad1dOptions = ZeroPadOptions<1>;
/// ZeroPad2d(ZeroPad2dOptions({1, 1, 2, 0})).
using ZeroPad2dOptions = ZeroPadOptions<2>;
/// ZeroPad3d(ZeroPad3dOptions({1, 2, 1, 2, 1, 2})).
using ZeroPad3dOptions = ZeroPadOptions<3>;

/// Options of ConstantPad{D}d: pads with `value` (negative pads crop).
template <size_t D>
struct ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<D * 2> padding, double value)
      : padding_(padding), value_(value) {}
  /// (left, right[, top, bottom[, front, back]]).
  EMBER_ARG(ExpandingArray<D * 2>, padding);
  /// The fill value.
  EMBER_ARG(double, value);
};
/// ConstantPad1d(ConstantPad1dOptions({3, 1}, 3.5)).
using ConstantPad1dOptions = ConstantPadOptions<1>;
/// ConstantPad2d(ConstantPad2dOptions({3, 0, 2, 1}, 3.5)).
using ConstantPad2dOptions = ConstantPadOptions<2>;
/// ConstantPad3d(ConstantPad3dOptions({1, 2, 1, 2, 1, 2}, 3.5)).
using ConstantPad3dOptions = ConstantPadOptions<3>;

namespace functional {

/// Options of F::pad: F::pad(x, F::PadFuncOptions({1, 2, 2, 1, 1, 2}).mode(ember::kReplicate)).
struct PadFuncOptions {
  using mode_t = std::variant<enumtype::kConstant, enumtype::kReflect, enumtype::kReplicate,
                              enumtype::kCircular>;
  PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}  // NOLINT
  /// (left, right) pairs from the last dim backwards; at most twice the input's rank values.
  EMBER_ARG(std::vector<int64_t>, pad);
  /// kConstant (default), kReflect, kReplicate or kCircular.
  EMBER_ARG(mode_t, mode) = ember::kConstant;
  /// The fill value of kConstant (the other modes take none).
  EMBER_ARG(double, value) = 0;
};

}  // namespace functional

}  // namespace ember::nn
