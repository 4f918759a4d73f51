// ember::convolution, conv1d/2d/3d (with int or "same"/"valid" padding) and
// conv_transpose1d/2d/3d: argument checks with PyTorch's rules and the geometry they imply; the
// computation is conv_detail::conv_core (src/ops/nn_conv_core.cpp).
#include "ember/ops/nn_conv.h"

#include <string>
#include <vector>

#include "ember/ops/elementwise.h"
#include "src/autograd/record.h"
#include "src/core/check.h"
#include "src/dispatch/dispatch.h"
#include "src/ops/nn_conv_impl.h"

namespace ember {
namespace {

using conv_detail::ConvGeometry;

// One value per spatial dim from a list of 1 or `spatial` values.
std::vector<int64_t> conv_expand(const char* op, const char* what, IntArrayRef v, int spatial) {
  EMBER_CHECK_VALUE(v.size() == 1 || static_cast<int>(v.size()) == spatial,
                    "{}: expected {} to have 1 or {} values, got {}", op, what, spatial, v);
  std::vector<int64_t> out(static_cast<size_t>(spatial));
  for (int i = 0; i < spatial; ++i) out[i] = v.size() == 1 ? v[0] : v[i];
  return out;
}

std::string conv_list(const std::vector<int64_t>& v) { return fmt::format("{}", IntArrayRef(v)); }

// The checks every convolution shares; returns the input with a batch dim.
Tensor conv_check(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                  int spatial, int64_t groups, bool transposed) {
  EMBER_CHECK(input.defined() && weight.defined(), "{}: expected defined input and weight", op);
  EMBER_CHECK_VALUE(weight.dim() == spatial + 2,
                    "{}: expected a {}-D weight [{}, {}, *kernel_size], got weight {}", op,
                    spatial + 2, transposed ? "in_channels" : "out_channels",
                    transposed ? "out_channels/groups" : "in_channels/groups", weight.sizes());
  EMBER_CHECK_VALUE(input.dim() == spatial + 1 || input.dim() == spatial + 2,
                    "{}: expected a {}-D (unbatched) or {}-D (batched) input, got input {} ({}-D)",
                    op, spatial + 1, spatial + 2, input.sizes(), input.dim());
  EMBER_CHECK_TYPE(is_floating_point(input.dtype()), "{}: expected a floating-point input, got {}",
                   op, input.dtype());
  EMBER_CHECK_TYPE(weight.dtype() == input.dtype(),
                   "{}: input ({}) and weight ({}) must have the same dtype", op, input.dtype(),
                   weight.dtype());
  EMBER_CHECK(weight.device() == input.device(),
              "{}: input ({}) and weight ({}) must be on the same device", op, input.device(),
              weight.device());
  EMBER_CHECK_VALUE(groups > 0, "{}: groups must be positive, got {}", op, groups);
  const Tensor x = input.dim() == spatial + 1 ? input.unsqueeze(0) : input;
  const int64_t channels = x.size(1);
  const int64_t expected = transposed ? weight.size(0) : weight.size(1) * groups;
  EMBER_CHECK_VALUE(channels == expected,
                    "{}: expected input with {} channels, got {} (input {}, weight {})", op,
                    expected, channels, input.sizes(), weight.sizes());
  const int64_t out_channels = transposed ? weight.size(1) * groups : weight.size(0);
  if (transposed)
    EMBER_CHECK_VALUE(weight.size(0) % groups == 0,
                      "{}: groups={} must divide the input channels, but weight {} has {}", op,
                      groups, weight.sizes(), weight.size(0));
  else
    EMBER_CHECK_VALUE(weight.size(0) % groups == 0,
                      "{}: groups={} must divide the output channels, but weight {} has {}", op,
                      groups, weight.sizes(), weight.size(0));
  if (bias.defined()) {
    EMBER_CHECK_VALUE(bias.dim() == 1 && bias.size(0) == out_channels,
                      "{}: expected bias of shape [{}], got bias {}", op, out_channels,
                      bias.sizes());
    EMBER_CHECK_TYPE(bias.dtype() == input.dtype(),
                     "{}: input ({}) and bias ({}) must have the same dtype", op, input.dtype(),
                     bias.dtype());
    EMBER_CHECK(bias.device() == input.device(),
                "{}: input ({}) and bias ({}) must be on the same device", op, input.device(),
                bias.device());
  }
  return x;
}

// Checks stride/padding/dilation values and fills g; pad_r is the user's right padding here.
ConvGeometry conv_geometry(const char* op, int spatial, const std::vector<int64_t>& stride,
                           const std::vector<int64_t>& pad_l, const std::vector<int64_t>& pad_r,
                           const std::vector<int64_t>& dilation, int64_t groups, bool transposed) {
  ConvGeometry g;
  g.spatial = spatial;
  g.groups = groups;
  g.transposed = transposed;
  for (int i = 0; i < spatial; ++i) {
    EMBER_CHECK_VALUE(stride[i] > 0, "{}: stride must be positive, got {}", op, conv_list(stride));
    EMBER_CHECK_VALUE(dilation[i] > 0, "{}: dilation must be positive, got {}", op,
                      conv_list(dilation));
    EMBER_CHECK_VALUE(pad_l[i] >= 0 && pad_r[i] >= 0, "{}: padding must be non-negative, got {}",
                      op, conv_list(pad_l));
    g.stride[i] = stride[i];
    g.pad_l[i] = pad_l[i];
    g.pad_r[i] = pad_r[i];
    g.dilation[i] = dilation[i];
  }
  return g;
}

// Non-transposed: checks the output is not empty and makes pad_r exact (see ConvGeometry).
void conv_fix_output(const char* op, const Tensor& x, const Tensor& weight, ConvGeometry& g) {
  std::vector<int64_t> padded, span, k, dil;
  bool ok = true;
  for (int i = 0; i < g.spatial; ++i) {
    padded.push_back(x.size(2 + i) + g.pad_l[i] + g.pad_r[i]);
    k.push_back(weight.size(2 + i));
    dil.push_back(g.dilation[i]);
    span.push_back(g.dilation[i] * (weight.size(2 + i) - 1) + 1);
    ok = ok && padded.back() >= span.back();
  }
  EMBER_CHECK_VALUE(ok,
                    "{}: the output would be empty: the padded input {} is smaller than the "
                    "dilated kernel {} (input {}, kernel_size {}, dilation {})",
                    op, conv_list(padded), conv_list(span), x.sizes(), conv_list(k),
                    conv_list(dil));
  for (int i = 0; i < g.spatial; ++i) {
    const int64_t out = (padded[i] - span[i]) / g.stride[i] + 1;
    g.pad_r[i] = (out - 1) * g.stride[i] + span[i] - x.size(2 + i) - g.pad_l[i];
  }
}

// `relu`: the fused convolution_relu path (conv_relu_core, which records nothing).
Tensor conv_run(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                int spatial, IntArrayRef stride, const std::vector<int64_t>& pad_l,
                const std::vector<int64_t>& pad_r, IntArrayRef dilation, int64_t groups,
                bool relu = false) {
  const Tensor x = conv_check(op, input, weight, bias, spatial, groups, false);
  ConvGeometry g =
      conv_geometry(op, spatial, conv_expand(op, "stride", stride, spatial), pad_l, pad_r,
                    conv_expand(op, "dilation", dilation, spatial), groups, false);
  conv_fix_output(op, x, weight, g);
  Tensor y = relu ? conv_detail::conv_relu_core(x, weight, bias, g)
                  : conv_detail::conv_core(x, weight, bias, g);
  return input.dim() == spatial + 1 ? y.squeeze(0) : y;
}

Tensor conv_padded(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                   int spatial, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                   int64_t groups, bool relu = false) {
  const std::vector<int64_t> pad = conv_expand(op, "padding", padding, spatial);
  return conv_run(op, input, weight, bias, spatial, stride, pad, pad, dilation, groups, relu);
}

Tensor conv_string_padded(const char* op, const Tensor& input, const Tensor& weight,
                          const Tensor& bias, int spatial, IntArrayRef stride,
                          std::string_view padding, IntArrayRef dilation, int64_t groups) {
  std::vector<int64_t> pl(static_cast<size_t>(spatial), 0), pr = pl;
  if (padding == "same") {
    const std::vector<int64_t> s = conv_expand(op, "stride", stride, spatial);
    for (int64_t v : s)
      EMBER_CHECK_VALUE(v == 1,
                        "{}: padding='same' is not supported for strided convolutions (stride "
                        "{}). Hint: compute the padding yourself or use stride 1",
                        op, conv_list(s));
    const std::vector<int64_t> d = conv_expand(op, "dilation", dilation, spatial);
    EMBER_CHECK_VALUE(weight.dim() == spatial + 2,
                      "{}: expected a {}-D weight [out_channels, in_channels/groups, "
                      "*kernel_size], got weight {}",
                      op, spatial + 2, weight.sizes());
    for (int i = 0; i < spatial; ++i) {
      // PyTorch's split: the extra pixel of an odd total goes to the right.
      const int64_t total = d[i] * (weight.size(2 + i) - 1);
      pl[i] = total / 2;
      pr[i] = total - pl[i];
    }
  } else {
    EMBER_CHECK_VALUE(padding == "valid",
                      "{}: padding must be \"same\", \"valid\" or integers, got \"{}\"", op,
                      std::string(padding));
  }
  return conv_run(op, input, weight, bias, spatial, stride, pl, pr, dilation, groups);
}

Tensor conv_transposed(const char* op, const Tensor& input, const Tensor& weight,
                       const Tensor& bias, int spatial, IntArrayRef stride, IntArrayRef padding,
                       IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  const Tensor x = conv_check(op, input, weight, bias, spatial, groups, true);
  const std::vector<int64_t> s = conv_expand(op, "stride", stride, spatial);
  const std::vector<int64_t> d = conv_expand(op, "dilation", dilation, spatial);
  const std::vector<int64_t> p = conv_expand(op, "padding", padding, spatial);
  const std::vector<int64_t> op_pad = conv_expand(op, "output_padding", output_padding, spatial);
  ConvGeometry g = conv_geometry(op, spatial, s, p, p, d, groups, true);
  std::vector<int64_t> out;
  bool ok = true;
  for (int i = 0; i < spatial; ++i) {
    EMBER_CHECK_VALUE(op_pad[i] >= 0 && (op_pad[i] < s[i] || op_pad[i] < d[i]),
                      "{}: output_padding must be smaller than either stride or dilation, got "
                      "output_padding {}, stride {}, dilation {}",
                      op, conv_list(op_pad), conv_list(s), conv_list(d));
    // The right padding of the non-transposed view: output_padding extends the output there.
    g.pad_r[i] = p[i] - op_pad[i];
    out.push_back((x.size(2 + i) - 1) * s[i] - 2 * p[i] + d[i] * (weight.size(2 + i) - 1) +
                  op_pad[i] + 1);
    ok = ok && out.back() > 0;
  }
  EMBER_CHECK_VALUE(ok,
                    "{}: the output would be empty: output size {} (input {}, weight {}, stride "
                    "{}, padding {}, dilation {}, output_padding {})",
                    op, conv_list(out), input.sizes(), weight.sizes(), conv_list(s), conv_list(p),
                    conv_list(d), conv_list(op_pad));
  Tensor y = conv_detail::conv_core(x, weight, bias, g);
  return input.dim() == spatial + 1 ? y.squeeze(0) : y;
}

const char* conv_name(int spatial, bool transposed) {
  static const char* const kNames[] = {"conv1d", "conv2d", "conv3d"};
  static const char* const kTNames[] = {"conv_transpose1d", "conv_transpose2d", "conv_transpose3d"};
  return transposed ? kTNames[spatial - 1] : kNames[spatial - 1];
}

}  // namespace

Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias,
                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                   IntArrayRef output_padding, int64_t groups) {
  EMBER_CHECK(weight.defined(), "convolution: expected a defined weight");
  const int spatial = static_cast<int>(weight.dim()) - 2;
  EMBER_CHECK_VALUE(spatial >= 1 && spatial <= 3,
                    "convolution: expected a 3-D, 4-D or 5-D weight, got weight {}",
                    weight.sizes());
  const char* op = conv_name(spatial, transposed);
  if (transposed)
    return conv_transposed(op, input, weight, bias, spatial, stride, padding, output_padding,
                           groups, dilation);
  for (int64_t v : output_padding)
    EMBER_CHECK_VALUE(v == 0,
                      "convolution: output_padding is only for transposed convolution, "
                      "got {}",
                      output_padding);
  return conv_padded(op, input, weight, bias, spatial, stride, padding, dilation, groups);
}

Tensor convolution_relu(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                        int64_t groups) {
  EMBER_CHECK(input.defined() && weight.defined(),
              "convolution_relu: expected defined input and weight");
  if (autograd::needs_grad(input, weight, bias) ||
      !supports(OpId::convolution_relu, input.device().type(), input.dtype())) {
    // Recorded (or no fused kernel here): the two ops, relu in place when nothing records.
    Tensor y = convolution(input, weight, bias, stride, padding, dilation, /*transposed=*/false,
                           IntArrayRef(), groups);
    return autograd::needs_grad(y) ? relu(y) : relu_(y);
  }
  const int spatial = static_cast<int>(weight.dim()) - 2;
  EMBER_CHECK_VALUE(spatial >= 1 && spatial <= 3,
                    "convolution_relu: expected a 3-D, 4-D or 5-D weight, got weight {}",
                    weight.sizes());
  return conv_padded("convolution_relu", input, weight, bias, spatial, stride, padding, dilation,
                     groups, /*relu=*/true);
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_padded("conv1d", input, weight, bias, 1, stride, padding, dilation, groups);
}
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_string_padded("conv1d", input, weight, bias, 1, stride, padding, dilation, groups);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_padded("conv2d", input, weight, bias, 2, stride, padding, dilation, groups);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_string_padded("conv2d", input, weight, bias, 2, stride, padding, dilation, groups);
}
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_padded("conv3d", input, weight, bias, 3, stride, padding, dilation, groups);
}
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_string_padded("conv3d", input, weight, bias, 3, stride, padding, dilation, groups);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                        int64_t groups, IntArrayRef dilation) {
  return conv_transposed("conv_transpose1d", input, weight, bias, 1, stride, padding,
                         output_padding, groups, dilation);
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                        int64_t groups, IntArrayRef dilation) {
  return conv_transposed("conv_transpose2d", input, weight, bias, 2, stride, padding,
                         output_padding, groups, dilation);
}
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                        int64_t groups, IntArrayRef dilation) {
  return conv_transposed("conv_transpose3d", input, weight, bias, 3, stride, padding,
                         output_padding, groups, dilation);
}

}  // namespace ember
