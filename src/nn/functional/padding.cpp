// F::pad: LibTorch's mode tags onto ember::pad's mode names (src/ops/nn_pad.cpp does the work).
#include "ember/nn/functional/padding.h"

#include <optional>

#include "ember/ops/nn_pad.h"

namespace ember::nn::functional {

namespace detail {
Tensor pad(const Tensor& input, IntArrayRef pad, PadFuncOptions::mode_t mode, double value) {
  const char* name = std::visit(
      [](const auto& tag) -> const char* {
        using Tag = std::decay_t<decltype(tag)>;
        if constexpr (std::is_same_v<Tag, enumtype::kConstant>) return "constant";
        if constexpr (std::is_same_v<Tag, enumtype::kReflect>) return "reflect";
        if constexpr (std::is_same_v<Tag, enumtype::kReplicate>) return "replicate";
        return "circular";
      },
      mode);
  // LibTorch passes value 0 as "not given", so F::pad(x, {1, 1}).mode(kReflect) is valid.
  const std::optional<double> fill = value != 0.0 ? std::optional<double>(value) : std::nullopt;
  return ember::pad(input, pad, name, fill);
}
}  // namespace detail

Tensor pad(const Tensor& input, const PadFuncOptions& options) {
  return detail::pad(input, options.pad(), options.mode(), options.value());
}

}  // namespace ember::nn::functional
