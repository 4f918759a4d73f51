// F::conv1d/2d/3d and F::conv_transpose1d/2d/3d: the options unpacked into ember::conv*d.
#include "ember/nn/functional/conv.h"

#include "ember/ops/nn_conv.h"

namespace ember::nn::functional {
namespace {

// Calls conv (ember::conv2d etc.) with the options' padding: amounts, "valid" or "same".
template <size_t D, class Conv>
Tensor conv_functional(const Tensor& input, const Tensor& weight, const ConvFuncOptions<D>& o,
                       Conv conv) {
  const auto& padding = o.padding();
  if (const auto* amounts = std::get_if<ExpandingArray<D>>(&padding))
    return conv(input, weight, o.bias(), IntArrayRef(o.stride()), IntArrayRef(*amounts),
                IntArrayRef(o.dilation()), o.groups());
  const std::string_view mode = std::holds_alternative<enumtype::kSame>(padding) ? "same" : "valid";
  return conv(input, weight, o.bias(), IntArrayRef(o.stride()), mode, IntArrayRef(o.dilation()),
              o.groups());
}

// One overload set of ember::conv{D}d as a callable (both padding forms).
#define EMBER_CONV_CALLABLE(fn)                                                       \
  [](const Tensor& x, const Tensor& w, const Tensor& b, IntArrayRef s, const auto& p, \
     IntArrayRef d, int64_t g) { return ::ember::fn(x, w, b, s, p, d, g); }

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options) {
  return conv_functional<1>(input, weight, options, EMBER_CONV_CALLABLE(conv1d));
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options) {
  return conv_functional<2>(input, weight, options, EMBER_CONV_CALLABLE(conv2d));
}
Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options) {
  return conv_functional<3>(input, weight, options, EMBER_CONV_CALLABLE(conv3d));
}

#undef EMBER_CONV_CALLABLE

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose1dFuncOptions& o) {
  return ::ember::conv_transpose1d(input, weight, o.bias(), o.stride(), o.padding(),
                                   o.output_padding(), o.groups(), o.dilation());
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& o) {
  return ::ember::conv_transpose2d(input, weight, o.bias(), o.stride(), o.padding(),
                                   o.output_padding(), o.groups(), o.dilation());
}
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose3dFuncOptions& o) {
  return ::ember::conv_transpose3d(input, weight, o.bias(), o.stride(), o.padding(),
                                   o.output_padding(), o.groups(), o.dilation());
}

}  // namespace ember::nn::functional
