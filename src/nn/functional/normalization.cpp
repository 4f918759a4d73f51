// F::layer_norm and F::rms_norm. Where the input's device has a kernel in the `layer_norm` slot
// (the CPU's kernels/cpu/norm_kernels.cpp: forward ~6x, forward+backward ~20x faster than the
// composition; CUDA's kernels/cuda/norm_kernels.cu) they run it with a recorded backward through
// `layer_norm_backward`; otherwise, and for mixed dtypes or devices, they are composed from
// reductions and elementwise ops. float16/bfloat16 inputs are normalised in float32 and rounded
// once at the end, as PyTorch's kernels accumulate them.
#include "ember/nn/functional/normalization.h"

#include <limits>
#include <tuple>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"
#include "kernels/common/row_norm_params.h"
#include "src/autograd/record.h"
#include "src/dispatch/dispatch.h"
#include "src/nn/functional/layer_checks.h"

namespace ember::nn::functional {
namespace {

using layer::describe;

// The trailing dims of `input` that `normalized_shape` names, after checking that they match.
DimVector normalized_dims(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight,
                          const Tensor& bias, const char* op) {
  layer::check_defined(input, op, "input");
  layer::check_floating(input, op, "input");
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  EMBER_CHECK_VALUE(k > 0, "{}: normalized_shape must name at least one dim, but got []", op);
  bool match = input.dim() >= k;
  for (int64_t i = 0; match && i < k; ++i)
    match = input.size(input.dim() - k + i) == normalized_shape[i];
  EMBER_CHECK(match,
              "{}: input {} does not end in normalized_shape {}: expected input of shape [*, {}]. "
              "Hint: normalized_shape lists the input's last dims",
              op, describe(input), normalized_shape,
              fmt::format("{}", fmt::join(normalized_shape.begin(), normalized_shape.end(), ", ")));
  for (const auto& [t, name] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}}) {
    if (!t->defined()) continue;
    EMBER_CHECK(t->sizes() == normalized_shape,
                "{}: {} {} does not match normalized_shape {}: expected {} of shape {}", op, name,
                describe(*t), normalized_shape, name, normalized_shape);
    layer::check_floating(*t, op, name);
  }
  DimVector dims;
  for (int64_t i = input.dim() - k; i < input.dim(); ++i) dims.push_back(i);
  return dims;
}

bool is_low_precision(ScalarType t) { return t == kHalf || t == kBFloat16; }

// The fused kernels take one dtype and one device for input, weight and bias, and exist only
// where a backend registered both directions for that dtype.
bool fusable(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  auto same = [&](const Tensor& t) {
    return !t.defined() || (t.dtype() == input.dtype() && t.device() == input.device());
  };
  const DeviceType dev = input.device().type();
  return same(weight) && same(bias) && supports(OpId::layer_norm, dev, input.dtype()) &&
         supports(OpId::layer_norm_backward, dev, input.dtype());
}

void* norm_operand(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

// The rows, their length and which norm: what both directions of a fused call share.
struct NormRows {
  int64_t rows = 0, d = 0;
  bool rms = false;
};

// The backward of a row normalisation written with differentiable ops, for create_graph (double
// backward): statistics are recomputed from x so their own dependence on x is recorded too.
autograd::Grads composite_backward(const Tensor& grad, const Tensor& x, const Tensor& w,
                                   const Tensor& b, const NormRows& s, double eps,
                                   autograd::NeedsGrad needs) {
  const bool low = is_low_precision(x.dtype());
  auto rows = [&](const Tensor& t) {
    Tensor r = t.reshape({s.rows, s.d});
    return low ? r.to(kFloat) : r;
  };
  const Tensor X = rows(x), G = rows(grad);
  const Tensor W = w.defined() ? (low ? w.reshape({s.d}).to(kFloat) : w.reshape({s.d})) : Tensor();
  Tensor rs, xhat;
  if (s.rms) {
    rs = rsqrt(X.square().mean({1}, true) + eps);
    xhat = X * rs;
  } else {
    auto [var, mu] = var_mean(X, 1, /*unbiased=*/false, /*keepdim=*/true);
    rs = rsqrt(var + eps);
    xhat = (X - mu) * rs;
  }
  autograd::Grads out(3);
  if (needs[0]) {
    const Tensor gw = W.defined() ? G * W : G;
    Tensor inner = gw - xhat * (gw * xhat).mean({1}, true);
    if (!s.rms) inner = inner - gw.mean({1}, true);
    out[0] = (rs * inner).to(x.dtype()).view(x.sizes());
  }
  if (needs[1] && w.defined()) out[1] = (G * xhat).sum({0}).to(w.dtype()).view(w.sizes());
  if (needs[2] && b.defined()) out[2] = G.sum({0}).to(b.dtype()).view(b.sizes());
  return out;
}

// layer_norm / rms_norm through the input device's fused kernels, recording their fused backward.
Tensor fused_row_norm(const char* node, const Tensor& input, const Tensor& weight,
                      const Tensor& bias, int64_t d, double eps, bool rms) {
  autograd::OpRecording rec(input, weight, bias);
  const Tensor x = input.contiguous();
  const Tensor w = weight.defined() ? weight.contiguous() : Tensor();
  const Tensor b = bias.defined() ? bias.contiguous() : Tensor();
  const NormRows s{d == 0 ? 0 : x.numel() / d, d, rms};
  const DeviceType dev = x.device().type();
  const TensorOptions stat = x.options().dtype(row_norm_stat_dtype(x.dtype()));
  Tensor y = empty(x.sizes(), x.options());
  Tensor rstd = empty({s.rows}, stat);
  Tensor mean = rms ? Tensor() : empty({s.rows}, stat);
  if (y.numel() > 0) {
    RowNormParams p;
    p.rows = s.rows;
    p.d = s.d;
    p.rms = rms;
    p.eps = eps;
    p.x = x.data_ptr();
    p.w = norm_operand(w);
    p.b = norm_operand(b);
    p.y = y.data_ptr();
    p.mean = norm_operand(mean);
    p.rstd = rstd.data_ptr();
    get_kernel<OpId::layer_norm>(dev, x.dtype())(x.dtype(), p);
  }
  if (rec)
    autograd::record(
        node, y, autograd::edges_of(input, weight, bias),
        [x = autograd::save(x), w = autograd::save(w), b = autograd::save(b), mean, rstd, s, eps](
            const Tensor& grad, autograd::NeedsGrad needs) -> autograd::Grads {
          const Tensor xs = x.unpack(), ws = w.unpack(), bs = b.unpack();
          if (GradMode::is_enabled()) return composite_backward(grad, xs, ws, bs, s, eps, needs);
          const Tensor g = grad.contiguous();
          autograd::Grads out(3);
          if (needs[0]) out[0] = empty(xs.sizes(), xs.options());
          if (needs[1] && ws.defined()) out[1] = empty(ws.sizes(), ws.options());
          if (needs[2] && bs.defined()) out[2] = empty(bs.sizes(), bs.options());
          if (s.rows == 0 || s.d == 0) {
            for (size_t i = 0; i < 3; ++i)
              if (out[i].defined()) out[i].zero_();
            return out;
          }
          RowNormBackwardParams p;
          p.rows = s.rows;
          p.d = s.d;
          p.rms = s.rms;
          p.grad = g.data_ptr();
          p.x = xs.data_ptr();
          p.w = norm_operand(ws);
          p.mean = norm_operand(mean);
          p.rstd = rstd.data_ptr();
          p.dx = norm_operand(out[0]);
          p.dw = norm_operand(out[1]);
          p.db = norm_operand(out[2]);
          get_kernel<OpId::layer_norm_backward>(xs.device().type(), xs.dtype())(xs.dtype(), p);
          return out;
        });
  return y;
}

int64_t numel_of(IntArrayRef shape) {
  int64_t n = 1;
  for (int64_t v : shape) n *= v;
  return n;
}

}  // namespace

namespace detail {

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps) {
  const DimVector dims = normalized_dims(input, normalized_shape, weight, bias, "layer_norm");
  if (fusable(input, weight, bias))
    return fused_row_norm("NativeLayerNormBackward0", input, weight, bias,
                          numel_of(normalized_shape), eps, /*rms=*/false);
  const Tensor x = is_low_precision(input.dtype()) ? input.to(kFloat) : input;
  auto [var, mean] = var_mean(x, IntArrayRef(dims), /*unbiased=*/false, /*keepdim=*/true);
  Tensor y = (x - mean) * rsqrt(var + eps);
  if (weight.defined()) y = y * weight;
  if (bias.defined()) y = y + bias;
  return y.dtype() == input.dtype() ? y : y.to(input.dtype());
}

Tensor rms_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight,
                std::optional<double> eps) {
  const DimVector dims = normalized_dims(input, normalized_shape, weight, Tensor(), "rms_norm");
  // The default is the epsilon of the dtype the statistics are computed in (PyTorch's).
  const double e = eps ? *eps
                       : (input.dtype() == kDouble ? std::numeric_limits<double>::epsilon()
                                                   : std::numeric_limits<float>::epsilon());
  if (fusable(input, weight, Tensor()))
    return fused_row_norm("RmsNormBackward0", input, weight, Tensor(), numel_of(normalized_shape),
                          e, /*rms=*/true);
  const Tensor x = is_low_precision(input.dtype()) ? input.to(kFloat) : input;
  Tensor y = x * rsqrt(x.square().mean(IntArrayRef(dims), /*keepdim=*/true) + e);
  if (weight.defined()) y = y * weight;
  return y.dtype() == input.dtype() ? y : y.to(input.dtype());
}

}  // namespace detail

Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& o) {
  return detail::layer_norm(input, o.normalized_shape(), o.weight(), o.bias(), o.eps());
}

Tensor rms_norm(const Tensor& input, const RMSNormFuncOptions& o) {
  return detail::rms_norm(input, o.normalized_shape(), o.weight(), o.eps());
}

}  // namespace ember::nn::functional
