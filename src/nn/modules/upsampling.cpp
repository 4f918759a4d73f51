// The Upsample module (the math is F::interpolate, src/nn/functional/resample.cpp).
#include "ember/nn/modules/upsampling.h"

#include <ostream>

#include "ember/nn/functional/upsampling.h"
#include "src/nn/modules/module_errors.h"

namespace ember::nn {
namespace F = functional;
using detail::named_call;

Tensor UpsampleImpl::forward(const Tensor& input) {
  // Upsample's modes are a subset of interpolate's, in the same order of alternatives but
  // without kArea / kNearestExact: convert by tag.
  const F::InterpolateFuncOptions::mode_t mode = std::visit(
      [](const auto& tag) -> F::InterpolateFuncOptions::mode_t { return tag; }, options.mode());
  return named_call("Upsample", [&] {
    return F::detail::interpolate(input, options.size(), options.scale_factor(), mode,
                                  options.align_corners(), std::nullopt, false);
  });
}

void UpsampleImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Upsample(";
  auto list = [&stream](const auto& v) {
    stream << "[";
    for (size_t i = 0; i < v.size(); ++i) stream << (i ? ", " : "") << v[i];
    stream << "]";
  };
  if (options.scale_factor()) {
    stream << "scale_factor=";
    list(*options.scale_factor());
  } else {
    stream << "size=";
    if (options.size()) list(*options.size());
  }
  stream << ", mode=" << enumtype::get_enum_name(options.mode()) << ")";
}

}  // namespace ember::nn
