// ember::batch_norm, native_batch_norm, instance_norm and group_norm: one implementation over an
// [N, C, S] view of the input (kernels/common/batchnorm_params.h). Batch norm takes statistics
// per channel, instance norm per (sample, channel), group norm per (sample, group) on the
// [N, G, C/G·S] view; the three CPU kernel slots (statistics, per-slot sums for the backward, and
// the per-slot affine pass) do every full-size pass, and the per-slot coefficient algebra runs on
// small double tensors here. The backward is recorded as one node; under create_graph it is
// rewritten with differentiable ops (nn_batchnorm_composite below), so double backward works.
#include "ember/ops/nn_batchnorm.h"

#include <cmath>
#include <string>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"
#include "kernels/common/batchnorm_params.h"
#include "src/autograd/record.h"
#include "src/core/check.h"
#include "src/dispatch/dispatch.h"

namespace ember {
namespace {

enum class BnKind { kBatch, kInstance, kGroup };

std::string bn_describe(const Tensor& t) { return fmt::format("{} {}", t.sizes(), t.dtype()); }

// The geometry of one call: the [N, C, S] layout the apply / reduce kernels see, the statistics
// layout (the same but for group norm), and how many channels share a statistics slot.
struct BnGeometry {
  BnKind kind = BnKind::kBatch;
  ChannelLayout apply;
  ChannelLayout stats;
  int64_t groups = 1;     // statistics groups per sample (group norm), else C
  int64_t per_group = 1;  // channels per statistics slot (C / groups for group norm, else 1)
  int64_t count = 0;      // elements per statistics slot
};

void bn_check_input(const Tensor& input, const char* op) {
  EMBER_CHECK(input.defined(), "{}: input is an undefined tensor", op);
  EMBER_CHECK_TYPE(input.is_floating_point(),
                   "{}: input must have a floating dtype, but got {}. Hint: convert it with "
                   ".to(ember::kFloat)",
                   op, bn_describe(input));
  EMBER_CHECK_VALUE(input.dim() >= 2,
                    "{}: expected input with at least 2 dims [N, C, *], got input {}", op,
                    input.sizes());
}

// A per-channel tensor (weight, bias, running stats) must have C elements.
void bn_check_channels(const Tensor& t, const char* name, const Tensor& input, const char* op) {
  if (!t.defined()) return;
  EMBER_CHECK(t.dim() == 1 && t.numel() == input.size(1),
              "{}: expected input with {} channels, got {} (input {})", op, t.numel(),
              input.size(1), input.sizes());
  EMBER_CHECK_TYPE(t.is_floating_point(), "{}: {} must have a floating dtype, but got {}", op, name,
                   bn_describe(t));
}

// The input as the kernels read it: kept when contiguous or (batch / instance norm) channels-last,
// else made contiguous.
Tensor bn_materialise(const Tensor& input, bool allow_channels_last, bool* channels_last) {
  *channels_last = false;
  if (input.is_contiguous()) return input;
  if (allow_channels_last) {
    if (input.dim() == 4 && input.is_contiguous(MemoryFormat::ChannelsLast)) {
      *channels_last = true;
      return input;
    }
    if (input.dim() == 5 && input.is_contiguous(MemoryFormat::ChannelsLast3d)) {
      *channels_last = true;
      return input;
    }
  }
  return input.contiguous();
}

BnGeometry bn_geometry(const Tensor& x, BnKind kind, int64_t groups, bool channels_last) {
  BnGeometry g;
  g.kind = kind;
  const int64_t N = x.size(0), C = x.size(1);
  int64_t S = 1;
  for (int64_t d = 2; d < x.dim(); ++d) S *= x.size(d);
  g.apply = ChannelLayout{N, C, S, channels_last, kind != BnKind::kBatch};
  g.stats = g.apply;
  g.groups = C;
  if (kind == BnKind::kGroup) {
    g.groups = groups;
    g.per_group = groups > 0 ? C / groups : 0;
    g.stats = ChannelLayout{N, groups, g.per_group * S, false, true};
  }
  g.count = kind == BnKind::kBatch ? N * S : g.stats.s;
  return g;
}

// A per-channel [C] double tensor spread over the apply slots ([C], or [N·C] per sample).
Tensor bn_per_slot(const Tensor& per_channel, const BnGeometry& g) {
  if (!g.apply.per_sample) return per_channel;
  return per_channel.view({1, g.apply.c}).expand({g.apply.n, g.apply.c}).reshape({-1});
}

// A per-statistics-slot double tensor spread over the apply slots (group norm: each group's
// value repeated for its channels).
Tensor bn_stat_to_slot(const Tensor& per_stat, const BnGeometry& g) {
  if (g.kind != BnKind::kGroup) return per_stat;
  return per_stat.view({g.apply.n, g.groups, 1})
      .expand({g.apply.n, g.groups, g.per_group})
      .reshape({-1});
}

// Σ over each statistics slot's channels of an apply-slot tensor, spread back over the slots.
Tensor bn_group_sum(const Tensor& per_slot, const BnGeometry& g) {
  if (g.kind != BnKind::kGroup) return per_slot;
  return bn_stat_to_slot(per_slot.view({g.apply.n, g.groups, g.per_group}).sum({2}), g);
}

// Σ over the samples of an apply-slot tensor: the per-channel [C] gradient of weight / bias.
Tensor bn_channel_sum(const Tensor& per_slot, const BnGeometry& g) {
  if (!g.apply.per_sample) return per_slot;
  return per_slot.view({g.apply.n, g.apply.c}).sum({0});
}

Tensor bn_empty_like_layout(const Tensor& x, bool channels_last) {
  if (!channels_last) return empty(x.sizes(), x.options());
  return empty(x.sizes(), x.options().memory_format(x.dim() == 4 ? MemoryFormat::ChannelsLast
                                                                 : MemoryFormat::ChannelsLast3d));
}

// out = a·ka + b·kb + k0 through the device's batch_norm_apply kernel.
void bn_apply(const BnGeometry& g, const Tensor& a, const Tensor& ka, const Tensor& b,
              const Tensor& kb, const Tensor& k0, const Tensor& out) {
  if (out.numel() == 0) return;
  const Tensor ka_c = ka.contiguous(), k0_c = k0.contiguous();
  const Tensor kb_c = kb.defined() ? kb.contiguous() : Tensor();
  BatchNormApplyParams p;
  p.layout = g.apply;
  p.a = a.data_ptr();
  p.ka = static_cast<const double*>(ka_c.data_ptr());
  p.b = b.defined() ? b.data_ptr() : nullptr;
  p.kb = kb_c.defined() ? static_cast<const double*>(kb_c.data_ptr()) : nullptr;
  p.k0 = static_cast<const double*>(k0_c.data_ptr());
  p.out = out.data_ptr();
  get_kernel<OpId::batch_norm_apply>(a.device().type(), a.dtype())(a.dtype(), p);
}

// Per-statistics-slot mean and biased variance of x, in double.
std::pair<Tensor, Tensor> bn_stats(const BnGeometry& g, const Tensor& x) {
  const TensorOptions d = x.options().dtype(kDouble);
  Tensor mean = empty({g.stats.slots()}, d), var = empty({g.stats.slots()}, d);
  if (g.stats.slots() == 0) return {mean, var};
  BatchNormStatsParams p;
  p.layout = g.stats;
  p.x = x.data_ptr();
  p.mean = static_cast<double*>(mean.data_ptr());
  p.var = static_cast<double*>(var.data_ptr());
  get_kernel<OpId::batch_norm_stats>(x.device().type(), x.dtype())(x.dtype(), p);
  return {mean, var};
}

// Σ grad and Σ grad·(x - center) per apply slot, in double.
std::pair<Tensor, Tensor> bn_reduce(const BnGeometry& g, const Tensor& grad, const Tensor& x,
                                    const Tensor& center) {
  const TensorOptions d = x.options().dtype(kDouble);
  Tensor sg = empty({g.apply.slots()}, d), sgx = empty({g.apply.slots()}, d);
  if (g.apply.slots() == 0) return {sg, sgx};
  const Tensor c = center.contiguous();
  BatchNormReduceParams p;
  p.layout = g.apply;
  p.grad = grad.data_ptr();
  p.x = x.data_ptr();
  p.center = static_cast<const double*>(c.data_ptr());
  p.sum_grad = static_cast<double*>(sg.data_ptr());
  p.sum_grad_x = static_cast<double*>(sgx.data_ptr());
  get_kernel<OpId::batch_norm_reduce>(x.device().type(), x.dtype())(x.dtype(), p);
  return {sg, sgx};
}

bool bn_low_precision(ScalarType t) { return t == kHalf || t == kBFloat16; }

// The backward written with differentiable ops (create_graph): statistics are recomputed from x
// so their dependence on x is recorded as well. fixed_mean / fixed_rstd ([C] double) are the
// running statistics when the input's were not used.
autograd::Grads nn_batchnorm_composite(const Tensor& grad, const Tensor& x, const Tensor& w,
                                       const Tensor& b, const BnGeometry& g, bool input_stats,
                                       const Tensor& fixed_mean, const Tensor& fixed_rstd,
                                       double eps, autograd::NeedsGrad needs) {
  const int64_t N = g.apply.n, C = g.apply.c, S = g.apply.s;
  const ScalarType ct = bn_low_precision(x.dtype()) ? kFloat : x.dtype();
  const Tensor x3 = x.reshape({N, C, S}).to(ct), g3 = grad.reshape({N, C, S}).to(ct);
  const Tensor w3 = w.defined() ? w.to(ct).view({1, C, 1}) : Tensor();
  DimVector dims;
  Tensor xs = x3, gs;
  if (g.kind == BnKind::kBatch)
    dims = {0, 2};
  else
    dims = {2};
  if (g.kind == BnKind::kGroup) xs = x3.reshape({N, g.groups, g.per_group * S});
  Tensor rstd, xhat_s;
  if (input_stats) {
    auto [var, mu] = var_mean(xs, IntArrayRef(dims), /*unbiased=*/false, /*keepdim=*/true);
    rstd = rsqrt(var + eps);
    xhat_s = (xs - mu) * rstd;
  } else {
    rstd = fixed_rstd.to(ct).view({1, C, 1});
    xhat_s = (xs - fixed_mean.to(ct).view({1, C, 1})) * rstd;
  }
  const Tensor xhat3 = xhat_s.reshape({N, C, S});
  autograd::Grads out(3);
  if (needs[0]) {
    const Tensor gw3 = w3.defined() ? g3 * w3 : g3;
    Tensor dx;
    if (input_stats) {
      const Tensor gws = g.kind == BnKind::kGroup ? gw3.reshape(xs.sizes()) : gw3;
      const IntArrayRef d(dims);
      dx = rstd * (gws - gws.mean(d, true) - xhat_s * (gws * xhat_s).mean(d, true));
    } else {
      dx = gw3 * rstd;
    }
    out[0] = dx.reshape(x.sizes()).to(x.dtype());
  }
  if (needs[1] && w.defined()) out[1] = (g3 * xhat3).sum({0, 2}).to(w.dtype());
  if (needs[2] && b.defined()) out[2] = g3.sum({0, 2}).to(b.dtype());
  return out;
}

struct BnForward {
  Tensor y;
  Tensor mean, var;  // per statistics slot, double; defined when the input's statistics are used
  Tensor mean_slot, rstd_slot;  // per apply slot, double
};

// The normalisation itself: statistics (the input's, or fixed_mean / fixed_var), the affine
// pass, and the recorded backward.
BnForward bn_forward(const char* node, const Tensor& input, const Tensor& weight,
                     const Tensor& bias, BnKind kind, int64_t groups, bool input_stats,
                     const Tensor& fixed_mean, const Tensor& fixed_var, double eps) {
  autograd::OpRecording rec(input, weight, bias);
  bool cl = false;
  const Tensor x = bn_materialise(input, kind != BnKind::kGroup, &cl);
  const BnGeometry g = bn_geometry(x, kind, groups, cl);
  BnForward f;
  Tensor fixed_mean_d, fixed_rstd_d;
  if (input_stats) {
    std::tie(f.mean, f.var) = bn_stats(g, x);
    f.mean_slot = bn_stat_to_slot(f.mean, g);
    f.rstd_slot = bn_stat_to_slot(rsqrt(f.var + eps), g);
  } else {
    fixed_mean_d = fixed_mean.to(kDouble);
    fixed_rstd_d = rsqrt(fixed_var.to(kDouble) + eps);
    f.mean_slot = bn_per_slot(fixed_mean_d, g);
    f.rstd_slot = bn_per_slot(fixed_rstd_d, g);
  }
  const Tensor w_slot = weight.defined() ? bn_per_slot(weight.to(kDouble), g) : Tensor();
  const Tensor scale = w_slot.defined() ? f.rstd_slot * w_slot : f.rstd_slot;
  Tensor shift = -f.mean_slot * scale;
  if (bias.defined()) shift = shift + bn_per_slot(bias.to(kDouble), g);
  f.y = bn_empty_like_layout(x, cl);
  bn_apply(g, x, scale, Tensor(), Tensor(), shift, f.y);
  if (rec)
    autograd::record(
        node, f.y, autograd::edges_of(input, weight, bias),
        [xs = autograd::save(x), ws = autograd::save(weight), bs = autograd::save(bias), g,
         input_stats, mean_slot = f.mean_slot, rstd_slot = f.rstd_slot, w_slot, fixed_mean_d,
         fixed_rstd_d, eps](const Tensor& grad, autograd::NeedsGrad needs) -> autograd::Grads {
          const Tensor x = xs.unpack(), w = ws.unpack(), b = bs.unpack();
          if (GradMode::is_enabled())
            return nn_batchnorm_composite(grad, x, w, b, g, input_stats, fixed_mean_d, fixed_rstd_d,
                                          eps, needs);
          autograd::Grads out(3);
          if (x.numel() == 0) {
            if (needs[0]) out[0] = zeros_like(x);
            if (needs[1] && w.defined()) out[1] = zeros_like(w);
            if (needs[2] && b.defined()) out[2] = zeros_like(b);
            return out;
          }
          const Tensor gr = g.apply.channels_last
                                ? grad.contiguous(x.dim() == 4 ? MemoryFormat::ChannelsLast
                                                               : MemoryFormat::ChannelsLast3d)
                                : grad.contiguous();
          auto [sg, sgx] = bn_reduce(g, gr, x, mean_slot);
          if (needs[1] && w.defined()) out[1] = bn_channel_sum(sgx * rstd_slot, g).to(w.dtype());
          if (needs[2] && b.defined()) out[2] = bn_channel_sum(sg, g).to(b.dtype());
          if (needs[0]) {
            const Tensor ws_sg = w_slot.defined() ? sg * w_slot : sg;
            const Tensor ka = w_slot.defined() ? rstd_slot * w_slot : rstd_slot;
            Tensor dx = bn_empty_like_layout(x, g.apply.channels_last);
            if (input_stats) {
              // dx = rstd·(gw - mean(gw) - xhat·mean(gw·xhat)) with gw = grad·w, the means over
              // each statistics slot's `count` elements, written as grad·ka + x·kb + k0.
              const Tensor ws_sgx = w_slot.defined() ? sgx * w_slot : sgx;
              const double m = static_cast<double>(g.count);
              const Tensor mean_gw = bn_group_sum(ws_sg, g) / m;
              const Tensor mean_gwx = bn_group_sum(ws_sgx, g) * rstd_slot / m;
              const Tensor kb = -rstd_slot * rstd_slot * mean_gwx;
              const Tensor k0 = -rstd_slot * mean_gw - mean_slot * kb;
              bn_apply(g, gr, ka, x, kb, k0, dx);
            } else {
              bn_apply(g, gr, ka, Tensor(), Tensor(), zeros_like(ka), dx);
            }
            out[0] = dx;
          }
          return out;
        });
  return f;
}

// running = (1 - momentum)·running + momentum·batch, in place, for each defined running tensor.
void bn_update_running(const Tensor& running_mean, const Tensor& running_var, const BnForward& f,
                       const BnGeometry& g, double momentum) {
  if (g.count == 0) return;  // an empty batch leaves the running statistics alone (PyTorch)
  NoGradGuard no_grad;
  const double bessel =
      g.count > 1 ? static_cast<double>(g.count) / static_cast<double>(g.count - 1) : INFINITY;
  Tensor mean = f.mean, var = f.var * bessel;
  if (g.kind == BnKind::kInstance) {
    mean = mean.view({g.apply.n, g.apply.c}).mean({0});
    var = var.view({g.apply.n, g.apply.c}).mean({0});
  }
  if (running_mean.defined())
    running_mean.copy_(running_mean.to(kDouble) * (1 - momentum) + mean * momentum);
  if (running_var.defined())
    running_var.copy_(running_var.to(kDouble) * (1 - momentum) + var * momentum);
}

// The [N, C, S] geometry of the input (for the running update), without materialising it.
BnGeometry bn_shape_only(const Tensor& input, BnKind kind) {
  return bn_geometry(input, kind, input.size(1), false);
}

std::tuple<Tensor, Tensor, Tensor> bn_native(const char* op, const Tensor& input,
                                             const Tensor& weight, const Tensor& bias,
                                             const Tensor& running_mean, const Tensor& running_var,
                                             bool training, double momentum, double eps) {
  bn_check_input(input, op);
  bn_check_channels(weight, "weight", input, op);
  bn_check_channels(bias, "bias", input, op);
  bn_check_channels(running_mean, "running_mean", input, op);
  bn_check_channels(running_var, "running_var", input, op);
  if (!training)
    EMBER_CHECK_VALUE(running_mean.defined() && running_var.defined(),
                      "{}: running_mean and running_var must be defined in evaluation mode "
                      "(training=false). Hint: pass training=true to use the batch's statistics",
                      op);
  BnForward f = bn_forward("NativeBatchNormBackward0", input, weight, bias, BnKind::kBatch, 0,
                           training, running_mean, running_var, eps);
  if (training)
    bn_update_running(running_mean, running_var, f, bn_shape_only(input, BnKind::kBatch), momentum);
  const ScalarType st = input.dtype() == kDouble ? kDouble : kFloat;
  if (!training) {
    const Tensor none = empty({0}, input.options().dtype(st));
    return {f.y, none, none.clone()};
  }
  return {f.y, f.mean.to(st), rsqrt(f.var + eps).to(st)};
}

}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const Tensor& running_mean, const Tensor& running_var, bool training,
                  double momentum, double eps, bool /*cudnn_enabled*/) {
  return std::get<0>(bn_native("batch_norm", input, weight, bias, running_mean, running_var,
                               training, momentum, eps));
}

std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const Tensor& weight,
                                                     const Tensor& bias, const Tensor& running_mean,
                                                     const Tensor& running_var, bool training,
                                                     double momentum, double eps) {
  return bn_native("native_batch_norm", input, weight, bias, running_mean, running_var, training,
                   momentum, eps);
}

Tensor instance_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                     const Tensor& running_mean, const Tensor& running_var, bool use_input_stats,
                     double momentum, double eps, bool /*cudnn_enabled*/) {
  const char* op = "instance_norm";
  bn_check_input(input, op);
  bn_check_channels(weight, "weight", input, op);
  bn_check_channels(bias, "bias", input, op);
  bn_check_channels(running_mean, "running_mean", input, op);
  bn_check_channels(running_var, "running_var", input, op);
  if (!use_input_stats)
    EMBER_CHECK_VALUE(running_mean.defined() && running_var.defined(),
                      "{}: expected running_mean and running_var to be defined when "
                      "use_input_stats is false",
                      op);
  BnForward f = bn_forward("InstanceNormBackward0", input, weight, bias, BnKind::kInstance, 0,
                           use_input_stats, running_mean, running_var, eps);
  if (use_input_stats)
    bn_update_running(running_mean, running_var, f, bn_shape_only(input, BnKind::kInstance),
                      momentum);
  return f.y;
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias,
                  double eps, bool /*cudnn_enabled*/) {
  const char* op = "group_norm";
  bn_check_input(input, op);
  const int64_t C = input.size(1);
  EMBER_CHECK_VALUE(num_groups > 0 && C % num_groups == 0,
                    "{}: expected the number of channels in input to be divisible by num_groups, "
                    "but got input of shape {} and num_groups={}",
                    op, input.sizes(), num_groups);
  bn_check_channels(weight, "weight", input, op);
  bn_check_channels(bias, "bias", input, op);
  return bn_forward("NativeGroupNormBackward0", input, weight, bias, BnKind::kGroup, num_groups,
                    true, Tensor(), Tensor(), eps)
      .y;
}

}  // namespace ember
