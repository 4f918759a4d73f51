// Tag constants for options that choose among a few named behaviours, as LibTorch's torch/enum.h:
//   F::mse_loss(x, y, F::MSELossFuncOptions().reduction(ember::kSum));
//   nn::init::kaiming_normal_(w, 0.0, ember::kFanOut, ember::kReLU);
// Each tag is an empty struct in ember::enumtype and a constant of that type in ember; an option
// that takes one of several tags is a std::variant of them, and enumtype::get_enum_name names the
// held tag for messages and pretty_print ("kMean").
#pragma once

#include <string>
#include <variant>

#include "ember/core/macros.h"

// X(Name): one row per tag; the tag is enumtype::kName, the constant ember::kName.
// clang-format off
#define EMBER_ENUM_TAGS(X)                                                                    \
  X(Linear) X(Conv1D) X(Conv2D) X(Conv3D) X(ConvTranspose1D) X(ConvTranspose2D)               \
  X(ConvTranspose3D) X(Sigmoid) X(Tanh) X(ReLU) X(GELU) X(SiLU) X(Mish) X(LeakyReLU) X(FanIn) \
  X(FanOut) X(Constant) X(Reflect) X(Replicate) X(Circular) X(Nearest) X(Bilinear) X(Bicubic) \
  X(Trilinear) X(Area) X(NearestExact) X(Sum) X(Mean) X(Max) X(None) X(BatchMean) X(Zeros)    \
  X(Border) X(Reflection) X(RNN_TANH) X(RNN_RELU) X(LSTM) X(GRU) X(Valid) X(Same) X(SELU)
// clang-format on

namespace ember {
namespace enumtype {
#define EMBER_ENUM_STRUCT(Name) \
  struct k##Name {              \
    k##Name() {}                \
  };
EMBER_ENUM_TAGS(EMBER_ENUM_STRUCT)
#undef EMBER_ENUM_STRUCT

/// "k<Name>" for a tag (the name LibTorch prints).
#define EMBER_ENUM_NAME(Name) \
  inline std::string get_enum_name(k##Name) { return "k" #Name; }
EMBER_ENUM_TAGS(EMBER_ENUM_NAME)
#undef EMBER_ENUM_NAME

/// The name of the tag a variant holds.
template <typename... Tags>
std::string get_enum_name(const std::variant<Tags...>& v) {
  return std::visit([](const auto& tag) { return get_enum_name(tag); }, v);
}
}  // namespace enumtype

#define EMBER_ENUM_CONSTANT(Name) inline const enumtype::k##Name k##Name;
EMBER_ENUM_TAGS(EMBER_ENUM_CONSTANT)
#undef EMBER_ENUM_CONSTANT

/// The reduction most losses take: kNone, kMean or kSum.
using loss_reduction_t = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;

}  // namespace ember
