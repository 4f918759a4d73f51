// Conv1d/2d/3d and ConvTranspose1d/2d/3d: PyTorch's _ConvNd initialisation, LibTorch's
// pretty_print, and the padding modes (reflect/replicate/circular pad the input first, then a
// convolution without padding, as PyTorch's _conv_forward).
#include "ember/nn/modules/conv.h"

#include <cmath>
#include <ostream>
#include <string>

#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/padding.h"
#include "ember/nn/init.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/nn_conv.h"
#include "src/core/check.h"

namespace ember::nn {

template <size_t D, typename Derived>
void ConvNdImpl<D, Derived>::reset() {
  const char* name = options.transposed() ? "ConvTranspose" : "Conv";
  EMBER_CHECK_VALUE(options.groups() > 0, "{}{}d: groups must be positive, got {}", name, D,
                    options.groups());
  EMBER_CHECK_VALUE(options.in_channels() % options.groups() == 0,
                    "{}{}d: in_channels must be divisible by groups, got in_channels={}, "
                    "groups={}",
                    name, D, options.in_channels(), options.groups());
  EMBER_CHECK_VALUE(options.out_channels() % options.groups() == 0,
                    "{}{}d: out_channels must be divisible by groups, got out_channels={}, "
                    "groups={}",
                    name, D, options.out_channels(), options.groups());
  _reversed_padding_repeated_twice.assign(2 * D, 0);
  const auto& padding = options.padding();
  if (std::holds_alternative<enumtype::kSame>(padding)) {
    for (size_t i = 0; i < D; ++i)
      EMBER_CHECK_VALUE((*options.stride())[i] == 1,
                        "{}{}d: padding='same' is not supported for strided convolutions "
                        "(stride {})",
                        name, D, fmt::format("{}", IntArrayRef(options.stride())));
    for (size_t i = 0; i < D; ++i) {
      // F::pad's order: the last dim's (left, right) first; the odd pixel goes right.
      const int64_t total = (*options.dilation())[i] * ((*options.kernel_size())[i] - 1);
      _reversed_padding_repeated_twice[2 * (D - 1 - i)] = total / 2;
      _reversed_padding_repeated_twice[2 * (D - 1 - i) + 1] = total - total / 2;
    }
  } else if (const auto* pad = std::get_if<ExpandingArray<D>>(&padding)) {
    for (size_t i = 0; i < D; ++i) {
      _reversed_padding_repeated_twice[2 * (D - 1 - i)] = (**pad)[i];
      _reversed_padding_repeated_twice[2 * (D - 1 - i) + 1] = (**pad)[i];
    }
  }
  std::vector<int64_t> weight_sizes =
      options.transposed()
          ? std::vector<int64_t>{options.in_channels(), options.out_channels() / options.groups()}
          : std::vector<int64_t>{options.out_channels(), options.in_channels() / options.groups()};
  for (int64_t k : *options.kernel_size()) weight_sizes.push_back(k);
  weight = this->register_parameter("weight", ember::empty(weight_sizes));
  bias = this->register_parameter(
      "bias", options.bias() ? ember::empty({options.out_channels()}) : Tensor(),
      /*requires_grad=*/options.bias());
  reset_parameters();
}

template <size_t D, typename Derived>
void ConvNdImpl<D, Derived>::reset_parameters() {
  // kaiming_uniform_(a = sqrt(5)): bound sqrt(6 / ((1 + 5)·fan_in)) = 1/sqrt(fan_in).
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const int64_t fan_in = std::get<0>(init::_calculate_fan_in_and_fan_out(weight));
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

namespace {

// The options LibTorch prints after stride, in its order.
template <size_t D>
void conv_print_tail(std::ostream& stream, const detail::ConvNdOptions<D>& o) {
  if (*o.dilation() != *ExpandingArray<D>(1)) stream << ", dilation=" << o.dilation();
  if (*o.output_padding() != *ExpandingArray<D>(0))
    stream << ", output_padding=" << o.output_padding();
  if (o.groups() != 1) stream << ", groups=" << o.groups();
  if (!o.bias()) stream << ", bias=" << std::boolalpha << false;
  if (!std::holds_alternative<enumtype::kZeros>(o.padding_mode()))
    stream << ", padding_mode=" << enumtype::get_enum_name(o.padding_mode());
  stream << ")";
}

}  // namespace

template <size_t D, typename Derived>
void ConvNdImpl<D, Derived>::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Conv" << D << "d(" << options.in_channels() << ", "
         << options.out_channels() << ", kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride();
  const auto& padding = options.padding();
  if (std::holds_alternative<enumtype::kValid>(padding)) {
    stream << ", padding='valid'";
  } else if (std::holds_alternative<enumtype::kSame>(padding)) {
    stream << ", padding='same'";
  } else {
    const auto& pad = std::get<ExpandingArray<D>>(padding);
    if (*pad != *ExpandingArray<D>(0)) stream << ", padding=" << pad;
  }
  conv_print_tail(stream, options);
}

template <size_t D, typename Derived>
void ConvTransposeNdImpl<D, Derived>::pretty_print(std::ostream& stream) const {
  const auto& o = this->options;
  stream << "ember::nn::ConvTranspose" << D << "d(" << o.in_channels() << ", " << o.out_channels()
         << ", kernel_size=" << o.kernel_size() << ", stride=" << o.stride();
  if (*padding() != *ExpandingArray<D>(0)) stream << ", padding=" << padding();
  conv_print_tail(stream, o);
}

template <size_t D, typename Derived>
IValue ConvTransposeNdImpl<D, Derived>::forward_ivalues(std::vector<IValue> inputs) {
  EMBER_CHECK_VALUE(!inputs.empty() && inputs.size() <= 2,
                    "ConvTranspose{}d: forward takes 1 or 2 arguments (input, output_size), but "
                    "got {}",
                    D, inputs.size());
  Derived& self = static_cast<Derived&>(*this);
  if (inputs.size() == 1 || inputs[1].isNone()) return self.forward(inputs[0].toTensor());
  const std::vector<int64_t> size = inputs[1].toIntVector();
  return self.forward(inputs[0].toTensor(), IntArrayRef(size));
}

template <size_t D, typename Derived>
const ExpandingArray<D>& ConvTransposeNdImpl<D, Derived>::padding() const {
  const auto* pad = std::get_if<ExpandingArray<D>>(&this->options.padding());
  EMBER_CHECK_VALUE(pad != nullptr, "ConvTranspose{}d: padding cannot be 'same' or 'valid'", D);
  return *pad;
}

template <size_t D, typename Derived>
std::vector<int64_t> ConvTransposeNdImpl<D, Derived>::_output_padding(
    const Tensor& input, const std::optional<IntArrayRef>& output_size,
    const ExpandingArray<D>& stride, const ExpandingArray<D>& padding,
    const ExpandingArray<D>& kernel_size) {
  if (!output_size)
    return std::vector<int64_t>((*this->options.output_padding()).begin(),
                                (*this->options.output_padding()).end());
  const int64_t non_spatial = input.dim() == static_cast<int64_t>(D) + 2 ? 2 : 1;
  IntArrayRef size = *output_size;
  if (static_cast<int64_t>(size.size()) == non_spatial + static_cast<int64_t>(D))
    size = size.slice(static_cast<size_t>(non_spatial));
  EMBER_CHECK_VALUE(size.size() == D,
                    "ConvTranspose{}D: for {}D input, output_size must have {} or {} elements "
                    "(got {})",
                    D, input.dim(), D, non_spatial + static_cast<int64_t>(D), output_size->size());
  std::vector<int64_t> lo, hi, result;
  for (size_t d = 0; d < D; ++d) {
    lo.push_back((input.size(non_spatial + static_cast<int64_t>(d)) - 1) * (*stride)[d] -
                 2 * (*padding)[d] + (*this->options.dilation())[d] * ((*kernel_size)[d] - 1) + 1);
    hi.push_back(lo.back() + (*stride)[d] - 1);
  }
  for (size_t d = 0; d < D; ++d)
    EMBER_CHECK_VALUE(size[d] >= lo[d] && size[d] <= hi[d],
                      "ConvTranspose{}d: requested an output size of {}, but valid sizes range "
                      "from {} to {} (for an input of {})",
                      D, size, IntArrayRef(lo), IntArrayRef(hi),
                      input.sizes().slice(static_cast<size_t>(non_spatial)));
  for (size_t d = 0; d < D; ++d) result.push_back(size[d] - lo[d]);
  return result;
}

namespace {

template <size_t D>
detail::ConvNdOptions<D> conv_nd_options(const ConvOptions<D>& o) {
  return detail::ConvNdOptions<D>(o.in_channels(), o.out_channels(), o.kernel_size())
      .stride(o.stride())
      .padding(o.padding())
      .dilation(o.dilation())
      .transposed(false)
      .output_padding(0)
      .groups(o.groups())
      .bias(o.bias())
      .padding_mode(o.padding_mode());
}

template <size_t D>
detail::ConvNdOptions<D> conv_nd_options(const ConvTransposeOptions<D>& o) {
  return detail::ConvNdOptions<D>(o.in_channels(), o.out_channels(), o.kernel_size())
      .stride(o.stride())
      .padding(o.padding())
      .dilation(o.dilation())
      .transposed(true)
      .output_padding(o.output_padding())
      .groups(o.groups())
      .bias(o.bias())
      .padding_mode(o.padding_mode());
}

// F::pad's mode for a convolution's padding_mode (kZeros never pads through F::pad).
functional::PadFuncOptions::mode_t conv_pad_mode(const detail::conv_padding_mode_t& mode) {
  if (std::holds_alternative<enumtype::kReflect>(mode)) return ember::kReflect;
  if (std::holds_alternative<enumtype::kReplicate>(mode)) return ember::kReplicate;
  return ember::kCircular;
}

// PyTorch's _conv_forward: a non-zeros padding_mode pads first and convolves without padding.
template <size_t D, class Conv>
Tensor conv_module_forward(const detail::ConvNdOptions<D>& o, const std::vector<int64_t>& pads,
                           const Tensor& input, const Tensor& weight, const Tensor& bias,
                           Conv conv) {
  typename functional::ConvFuncOptions<D> f;
  f.bias(bias).stride(o.stride()).dilation(o.dilation()).groups(o.groups());
  if (!std::holds_alternative<enumtype::kZeros>(o.padding_mode())) {
    f.padding(ExpandingArray<D>(0));
    const Tensor padded = functional::pad(
        input, functional::PadFuncOptions(pads).mode(conv_pad_mode(o.padding_mode())));
    return conv(padded, weight, f);
  }
  f.padding(o.padding());
  return conv(input, weight, f);
}

// relu(conv(input)) for ConvReLU*d: numeric padding goes to ember::convolution_relu (one pass
// where the backend fuses it), after F::pad for a non-zeros padding_mode; "same"/"valid" padding
// runs the convolution and relu.
template <size_t D, class Conv>
Tensor conv_relu_module_forward(Conv& conv, const std::vector<int64_t>& pads, const Tensor& input) {
  const detail::ConvNdOptions<D>& o = conv.options;
  const auto* padding = std::get_if<ExpandingArray<D>>(&o.padding());
  if (padding == nullptr) return ember::relu(conv._conv_forward(input, conv.weight));
  const IntArrayRef stride(o.stride()->data(), D), dilation(o.dilation()->data(), D);
  if (!std::holds_alternative<enumtype::kZeros>(o.padding_mode())) {
    const Tensor padded = functional::pad(
        input, functional::PadFuncOptions(pads).mode(conv_pad_mode(o.padding_mode())));
    return ember::convolution_relu(padded, conv.weight, conv.bias, stride,
                                   std::vector<int64_t>(D, 0), dilation, o.groups());
  }
  return ember::convolution_relu(input, conv.weight, conv.bias, stride,
                                 IntArrayRef((*padding)->data(), D), dilation, o.groups());
}

// A convolution layer's forward: itself, or what fuse_modules told it to run.
template <class Conv>
Tensor conv_layer_forward(Conv& conv, const Tensor& input) {
  if (EMBER_UNLIKELY(conv._fused_forward.active())) return conv._fused_forward(conv, input);
  return conv._conv_forward(input, conv.weight);
}

template <size_t D>
void conv_transpose_check_mode(const detail::ConvNdOptions<D>& o) {
  EMBER_CHECK_VALUE(std::holds_alternative<enumtype::kZeros>(o.padding_mode()),
                    "ConvTranspose{}d: only padding_mode kZeros is supported, got {}", D,
                    enumtype::get_enum_name(o.padding_mode()));
}

}  // namespace

Conv1dImpl::Conv1dImpl(Conv1dOptions options_) : ConvNdImpl(conv_nd_options(options_)) { reset(); }
Tensor Conv1dImpl::forward(const Tensor& input) { return conv_layer_forward(*this, input); }
Tensor Conv1dImpl::_conv_forward(const Tensor& input, const Tensor& w) {
  return conv_module_forward<1>(
      options, _reversed_padding_repeated_twice, input, w, bias,
      [](const Tensor& x, const Tensor& wt, const functional::Conv1dFuncOptions& f) {
        return functional::conv1d(x, wt, f);
      });
}
Tensor Conv1dImpl::_conv_relu_forward(const Tensor& input) {
  return conv_relu_module_forward<1>(*this, _reversed_padding_repeated_twice, input);
}

Conv2dImpl::Conv2dImpl(Conv2dOptions options_) : ConvNdImpl(conv_nd_options(options_)) { reset(); }
Tensor Conv2dImpl::forward(const Tensor& input) { return conv_layer_forward(*this, input); }
Tensor Conv2dImpl::_conv_forward(const Tensor& input, const Tensor& w) {
  return conv_module_forward<2>(
      options, _reversed_padding_repeated_twice, input, w, bias,
      [](const Tensor& x, const Tensor& wt, const functional::Conv2dFuncOptions& f) {
        return functional::conv2d(x, wt, f);
      });
}
Tensor Conv2dImpl::_conv_relu_forward(const Tensor& input) {
  return conv_relu_module_forward<2>(*this, _reversed_padding_repeated_twice, input);
}

Conv3dImpl::Conv3dImpl(Conv3dOptions options_) : ConvNdImpl(conv_nd_options(options_)) { reset(); }
Tensor Conv3dImpl::forward(const Tensor& input) { return conv_layer_forward(*this, input); }
Tensor Conv3dImpl::_conv_forward(const Tensor& input, const Tensor& w) {
  return conv_module_forward<3>(
      options, _reversed_padding_repeated_twice, input, w, bias,
      [](const Tensor& x, const Tensor& wt, const functional::Conv3dFuncOptions& f) {
        return functional::conv3d(x, wt, f);
      });
}
Tensor Conv3dImpl::_conv_relu_forward(const Tensor& input) {
  return conv_relu_module_forward<3>(*this, _reversed_padding_repeated_twice, input);
}

ConvTranspose1dImpl::ConvTranspose1dImpl(ConvTranspose1dOptions options_)
    : ConvTransposeNdImpl(conv_nd_options(options_)) {
  reset();
}
Tensor ConvTranspose1dImpl::forward(const Tensor& input,
                                    const std::optional<IntArrayRef>& output_size) {
  conv_transpose_check_mode(options);
  const std::vector<int64_t> op =
      _output_padding(input, output_size, options.stride(), padding(), options.kernel_size());
  return ember::conv_transpose1d(input, weight, bias, options.stride(), padding(), op,
                                 options.groups(), options.dilation());
}

ConvTranspose2dImpl::ConvTranspose2dImpl(ConvTranspose2dOptions options_)
    : ConvTransposeNdImpl(conv_nd_options(options_)) {
  reset();
}
Tensor ConvTranspose2dImpl::forward(const Tensor& input,
                                    const std::optional<IntArrayRef>& output_size) {
  conv_transpose_check_mode(options);
  const std::vector<int64_t> op =
      _output_padding(input, output_size, options.stride(), padding(), options.kernel_size());
  return ember::conv_transpose2d(input, weight, bias, options.stride(), padding(), op,
                                 options.groups(), options.dilation());
}

ConvTranspose3dImpl::ConvTranspose3dImpl(ConvTranspose3dOptions options_)
    : ConvTransposeNdImpl(conv_nd_options(options_)) {
  reset();
}
Tensor ConvTranspose3dImpl::forward(const Tensor& input,
                                    const std::optional<IntArrayRef>& output_size) {
  conv_transpose_check_mode(options);
  const std::vector<int64_t> op =
      _output_padding(input, output_size, options.stride(), padding(), options.kernel_size());
  return ember::conv_transpose3d(input, weight, bias, options.stride(), padding(), op,
                                 options.groups(), options.dilation());
}

template class ConvNdImpl<1, Conv1dImpl>;
template class ConvNdImpl<2, Conv2dImpl>;
template class ConvNdImpl<3, Conv3dImpl>;
template class ConvNdImpl<1, ConvTranspose1dImpl>;
template class ConvNdImpl<2, ConvTranspose2dImpl>;
template class ConvNdImpl<3, ConvTranspose3dImpl>;
template class ConvTransposeNdImpl<1, ConvTranspose1dImpl>;
template class ConvTransposeNdImpl<2, ConvTranspose2dImpl>;
template class ConvTransposeNdImpl<3, ConvTranspose3dImpl>;

}  // namespace ember::nn
