// The differentiable convolution core: runs the `convolution*` kernel slots on a checked geometry
// and records ConvolutionBackward0. Transposed convolution maps onto the same three slots
// (kernels/common/conv_params.h): its forward is the non-transposed view's backward data.
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/shape.h"
#include "kernels/common/conv_params.h"
#include "src/autograd/record.h"
#include "src/dispatch/dispatch.h"
#include "src/ops/nn_conv_impl.h"

namespace ember::conv_detail {
namespace {

// The memory format the kernels run in: channels-last when the input is (rank 4/5 only).
MemoryFormat conv_format(const Tensor& input) {
  if (input.dim() == 4 || input.dim() == 5) {
    const MemoryFormat f = input.suggest_memory_format();
    if (f != MemoryFormat::Contiguous) return f;
  }
  return MemoryFormat::Contiguous;
}

// ConvParams of the non-transposed view: x [n, ic, in] -> y [n, oc, out], w [oc, ic/g, k].
ConvParams conv_params(const ConvGeometry& g, IntArrayRef x_sizes, IntArrayRef y_sizes,
                       IntArrayRef w_sizes, bool channels_last) {
  ConvParams p;
  p.spatial = g.spatial;
  p.n = x_sizes[0];
  p.ic = x_sizes[1];
  p.oc = y_sizes[1];
  p.groups = g.groups;
  for (int i = 0; i < g.spatial; ++i) {
    p.in[i] = x_sizes[2 + i];
    p.out[i] = y_sizes[2 + i];
    p.k[i] = w_sizes[2 + i];
    p.stride[i] = g.stride[i];
    p.pad[i] = g.pad_l[i];
    p.dilation[i] = g.dilation[i];
  }
  p.channels_last = channels_last;
  return p;
}

bool conv_nonempty(IntArrayRef a, IntArrayRef b) {
  for (int64_t v : a)
    if (v == 0) return false;
  for (int64_t v : b)
    if (v == 0) return false;
  return true;
}

// The three kernels on (x, y, w) given in the non-transposed view's roles; `relu`: the forward
// through the convolution_relu row.
void conv_run_forward(const ConvGeometry& g, const Tensor& x, const Tensor& w, const Tensor& b,
                      Tensor& y, bool cl, bool relu = false) {
  if (!conv_nonempty(x.sizes(), y.sizes())) return;
  ConvParams p = conv_params(g, x.sizes(), y.sizes(), w.sizes(), cl);
  p.x = x.data_ptr();
  p.w = w.data_ptr();
  p.b = b.defined() ? b.data_ptr() : nullptr;
  p.y = y.data_ptr();
  if (relu)
    get_kernel<OpId::convolution_relu>(x.device().type(), x.dtype())(x.dtype(), p);
  else
    get_kernel<OpId::convolution>(x.device().type(), x.dtype())(x.dtype(), p);
}

void conv_run_backward_data(const ConvGeometry& g, Tensor& dx, const Tensor& w, const Tensor& dy,
                            bool cl) {
  if (!conv_nonempty(dx.sizes(), dy.sizes())) return;
  ConvParams p = conv_params(g, dx.sizes(), dy.sizes(), w.sizes(), cl);
  p.x = dx.data_ptr();
  p.w = w.data_ptr();
  p.y = const_cast<void*>(dy.data_ptr());
  get_kernel<OpId::convolution_backward_data>(dy.device().type(), dy.dtype())(dy.dtype(), p);
}

// Σ of grad over every dim but the channels: a bias's gradient.
Tensor conv_bias_grad(const Tensor& grad) {
  std::vector<int64_t> dims = {0};
  for (int64_t d = 2; d < grad.dim(); ++d) dims.push_back(d);
  return grad.sum(dims);
}

void conv_run_backward_weights(const ConvGeometry& g, const Tensor& x, const Tensor& dy, Tensor& dw,
                               Tensor* db, bool cl) {
  if (!conv_nonempty(x.sizes(), dy.sizes())) {
    // No product to sum: the weight gets zeros; the bias still gets Σ dy (all of y is bias).
    dw.zero_();
    if (db) db->copy_(conv_bias_grad(dy));
    return;
  }
  ConvParams p = conv_params(g, x.sizes(), dy.sizes(), dw.sizes(), cl);
  p.x = x.data_ptr();
  p.y = const_cast<void*>(dy.data_ptr());
  p.w = dw.data_ptr();
  p.b = db ? db->data_ptr() : nullptr;
  get_kernel<OpId::convolution_backward_weights>(x.device().type(), x.dtype())(x.dtype(), p);
}

// The output sizes of the convolution of `input` with `weight` under g.
std::vector<int64_t> conv_output_sizes(const Tensor& input, const Tensor& weight,
                                       const ConvGeometry& g) {
  std::vector<int64_t> out = {input.size(0),
                              g.transposed ? weight.size(1) * g.groups : weight.size(0)};
  for (int i = 0; i < g.spatial; ++i) {
    const int64_t in = input.size(2 + i), k = weight.size(2 + i);
    const int64_t span = g.dilation[i] * (k - 1) + 1;
    out.push_back(g.transposed ? (in - 1) * g.stride[i] - g.pad_l[i] - g.pad_r[i] + span
                               : (in + g.pad_l[i] + g.pad_r[i] - span) / g.stride[i] + 1);
  }
  return out;
}

Tensor conv_bias_view(const Tensor& bias, int spatial) {
  std::vector<int64_t> shape = {1, bias.size(0)};
  for (int i = 0; i < spatial; ++i) shape.push_back(1);
  return bias.view(shape);
}

}  // namespace

Tensor conv_weight_grad_composite(const Tensor& x, const Tensor& gy, const ConvGeometry& g,
                                  IntArrayRef kernel) {
  // dW[o, c, k] = Σ_n,q gy[n, o, q]·x[n, c, q·s - pl + k·d]: a convolution of x (channels and
  // batch exchanged) with gy as the weight, stride and dilation exchanged; per group.
  ConvGeometry h = g;
  h.groups = 1;
  h.transposed = false;
  for (int i = 0; i < g.spatial; ++i) {
    h.stride[i] = g.dilation[i];
    h.dilation[i] = g.stride[i];
  }
  const int64_t icg = x.size(1) / g.groups, ocg = gy.size(1) / g.groups;
  std::vector<Tensor> parts;
  for (int64_t grp = 0; grp < g.groups; ++grp) {
    const Tensor xg = x.narrow(1, grp * icg, icg).transpose(0, 1);
    const Tensor gg = gy.narrow(1, grp * ocg, ocg).transpose(0, 1);
    Tensor r = conv_core(xg.contiguous(), gg.contiguous(), Tensor(), h);  // [icg, ocg, k]
    for (int i = 0; i < g.spatial; ++i) r = r.narrow(2 + i, 0, kernel[i]);
    parts.push_back(r.transpose(0, 1));
  }
  return parts.size() == 1 ? parts[0].contiguous() : cat(parts, 0);
}

// The operands in the layout the kernels run in, and the output allocated. Without an input
// channel or a weight element there is nothing to sum: y is then already the result (the bias
// alone; an empty batch leaves y empty too) and `empty_sum` is set.
struct ConvOperands {
  MemoryFormat fmt;
  bool cl;
  Tensor x, w, b, y;
  bool empty_sum;
};

ConvOperands conv_operands(const Tensor& input, const Tensor& weight, const Tensor& bias,
                           const ConvGeometry& g) {
  ConvOperands o;
  o.fmt = conv_format(input);
  o.cl = o.fmt != MemoryFormat::Contiguous;
  o.x = input.contiguous(o.fmt);
  o.w = weight.contiguous();
  o.b = bias.defined() ? bias.contiguous() : Tensor();
  o.y = empty(conv_output_sizes(o.x, o.w, g), o.x.options(), o.fmt);
  o.empty_sum = o.x.numel() == 0 || o.w.numel() == 0;
  if (o.empty_sum) {
    o.y.zero_();
    if (o.b.defined() && o.y.numel() > 0) o.y.add_(conv_bias_view(o.b, g.spatial));
  }
  return o;
}

Tensor conv_relu_core(const Tensor& input, const Tensor& weight, const Tensor& bias,
                      const ConvGeometry& g) {
  ConvOperands o = conv_operands(input, weight, bias, g);
  if (o.empty_sum)
    relu_(o.y);
  else
    conv_run_forward(g, o.x, o.w, o.b, o.y, o.cl, /*relu=*/true);
  return o.y;
}

Tensor conv_core(const Tensor& input, const Tensor& weight, const Tensor& bias,
                 const ConvGeometry& g) {
  autograd::OpRecording rec(input, weight, bias);
  ConvOperands o = conv_operands(input, weight, bias, g);
  const MemoryFormat fmt = o.fmt;
  const bool cl = o.cl;
  const Tensor &x = o.x, &w = o.w, &b = o.b;
  Tensor& y = o.y;
  if (!o.empty_sum && !g.transposed) {
    conv_run_forward(g, x, w, b, y, cl);
  } else if (!o.empty_sum) {
    // The non-transposed view runs from y to x: y is its input's gradient.
    conv_run_backward_data(g, y, w, x, cl);
    if (b.defined()) y.add_(conv_bias_view(b, g.spatial));
  }
  if (!rec) return y;
  autograd::record(
      "ConvolutionBackward0", y, autograd::edges_of(input, weight, bias),
      [x = autograd::save(x), w = autograd::save(w), has_bias = b.defined(), g, fmt, cl](
          const Tensor& grad, autograd::NeedsGrad needs) -> autograd::Grads {
        const Tensor xs = x.unpack(), ws = w.unpack();
        autograd::Grads out(3);
        if (GradMode::is_enabled()) {
          // create_graph: the gradients as differentiable convolutions, so they record too.
          ConvGeometry flipped = g;
          flipped.transposed = !g.transposed;
          if (needs[0]) out[0] = conv_core(grad, ws, Tensor(), flipped);
          if (needs[1])
            out[1] = g.transposed ? conv_weight_grad_composite(grad, xs, g, ws.sizes().slice(2))
                                  : conv_weight_grad_composite(xs, grad, g, ws.sizes().slice(2));
          if (needs[2] && has_bias) out[2] = conv_bias_grad(grad);
          return out;
        }
        const Tensor gy = grad.contiguous(fmt);
        if (needs[0]) {
          Tensor dx = empty(xs.sizes(), xs.options(), fmt);
          // With no output channel (or an empty output) nothing reaches x: its gradient is 0.
          if (gy.numel() == 0 || ws.numel() == 0) dx.zero_();
          if (g.transposed) {
            conv_run_forward(g, gy, ws, Tensor(), dx, cl);
          } else {
            conv_run_backward_data(g, dx, ws, gy, cl);
          }
          out[0] = dx;
        }
        const bool fused_bias = needs[2] && has_bias && !g.transposed;
        if (needs[1]) {
          Tensor dw = empty(ws.sizes(), ws.options());
          Tensor db = fused_bias ? empty({ws.size(0)}, ws.options()) : Tensor();
          if (g.transposed)
            conv_run_backward_weights(g, gy, xs, dw, nullptr, cl);
          else
            conv_run_backward_weights(g, xs, gy, dw, fused_bias ? &db : nullptr, cl);
          out[1] = dw;
          if (fused_bias) out[2] = db;
        }
        if (needs[2] && has_bias && !out[2].defined()) out[2] = conv_bias_grad(gy);
        return out;
      });
  return y;
}

}  // namespace ember::conv_detail
