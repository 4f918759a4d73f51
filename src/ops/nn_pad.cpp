// Reflect, replicate and circular padding (ember::pad, reflection_pad*d, replication_pad*d,
// _pad_circular) through the `pad_nd` / `pad_nd_backward` kernel slots, and ember::pad's mode
// switch. Each padded dim becomes an index map (output position -> input position) built here on
// the host; the kernels gather through the maps and scatter-add back (kernels/common/pad_params.h).
// The two ops are each other's backward, so double backward needs nothing more.
#include <algorithm>
#include <memory>
#include <string>

#include "ember/ops/factory.h"
#include "ember/ops/nn_pad.h"
#include "ember/ops/shape.h"
#include "kernels/common/pad_params.h"
#include "src/autograd/record.h"
#include "src/core/check.h"
#include "src/dispatch/dispatch.h"

namespace ember {
namespace {

enum class PadMapMode { Reflect, Replicate, Circular };

const char* pad_map_mode_name(PadMapMode m) {
  switch (m) {
    case PadMapMode::Reflect:
      return "reflect";
    case PadMapMode::Replicate:
      return "replicate";
    default:
      return "circular";
  }
}

// Node names as PyTorch's (ReflectionPad2DBackward0), and those of the backward ops.
const char* pad_map_node_name(PadMapMode m, int nd, bool backward) {
  static const char* const kForward[3][3] = {
      {"ReflectionPad1DBackward0", "ReflectionPad2DBackward0", "ReflectionPad3DBackward0"},
      {"ReplicationPad1DBackward0", "ReplicationPad2DBackward0", "ReplicationPad3DBackward0"},
      {"CircularPad1DBackward0", "CircularPad2DBackward0", "CircularPad3DBackward0"}};
  static const char* const kBackward[3][3] = {
      {"ReflectionPad1DBackwardBackward0", "ReflectionPad2DBackwardBackward0",
       "ReflectionPad3DBackwardBackward0"},
      {"ReplicationPad1DBackwardBackward0", "ReplicationPad2DBackwardBackward0",
       "ReplicationPad3DBackwardBackward0"},
      {"CircularPad1DBackwardBackward0", "CircularPad2DBackwardBackward0",
       "CircularPad3DBackwardBackward0"}};
  return (backward ? kBackward : kForward)[static_cast<int>(m)][nd - 1];
}

// What the gather and its scatter-add share: shapes, the maps (on the input's device), the mode.
struct PadMapGeometry {
  PadMapMode mode = PadMapMode::Reflect;
  int nd = 0;
  int padded_dims = 0;  // of the op as called (nd counts the channels of a channels-last run too)
  int64_t outer = 0;
  DimVector in_shape, out_shape;
  Tensor map[3];
};
using PadMapGeometryPtr = std::shared_ptr<const PadMapGeometry>;

// The input position output position o reads along one dim of size n padded by (pl, pr).
int64_t pad_map_source(PadMapMode mode, int64_t o, int64_t n, int64_t pl, int64_t pr) {
  switch (mode) {
    case PadMapMode::Reflect: {
      int64_t i = o - pl;
      if (i < 0) i = -i;
      if (i >= n) i = 2 * (n - 1) - i;
      return i;
    }
    case PadMapMode::Replicate:
      return std::min(std::max<int64_t>(o - pl, 0), n - 1);
    default: {
      // Negative pads crop first; the wrap then repeats what is left, [lo, lo + kept).
      const int64_t lo = std::max<int64_t>(-pl, 0);
      const int64_t kept = n - lo - std::max<int64_t>(-pr, 0);
      const int64_t c = ((o - std::max<int64_t>(pl, 0)) % kept + kept) % kept;
      return lo + c;
    }
  }
}

std::string pad_map_op_name(PadMapMode mode, int nd) {
  switch (mode) {
    case PadMapMode::Reflect:
      return fmt::format("reflection_pad{}d", nd);
    case PadMapMode::Replicate:
      return fmt::format("replication_pad{}d", nd);
    default:
      return "_pad_circular";
  }
}

// Checks the input and pads as PyTorch does and builds the maps.
PadMapGeometryPtr pad_map_geometry(const Tensor& self, IntArrayRef pad, PadMapMode mode,
                                   const std::string& op) {
  EMBER_CHECK(self.defined(), "{}: input is an undefined tensor. Hint: pass a tensor", op);
  const int64_t npad = static_cast<int64_t>(pad.size());
  EMBER_CHECK_VALUE(npad == 2 || npad == 4 || npad == 6,
                    "{}: padding must have 2, 4 or 6 values ((left, right) per padded dim), but "
                    "got {} values {}",
                    op, npad, pad);
  const int nd = static_cast<int>(npad / 2);
  EMBER_CHECK_VALUE(self.dim() == nd + 1 || self.dim() == nd + 2,
                    "{}: {} padding of {} dim(s) expects a {}-D or {}-D (batched) input, but got "
                    "input {} of {} dims",
                    op, pad_map_mode_name(mode), nd, nd + 1, nd + 2, self.sizes(), self.dim());
  const bool batched = self.dim() == nd + 2;
  for (int64_t d = batched ? 1 : 0; d < self.dim(); ++d)
    EMBER_CHECK_VALUE(self.size(d) > 0,
                      "{}: expected a {}-D or {}-D (batched) input with non-zero sizes outside the "
                      "batch dim, but got input {} (dim {} is empty)",
                      op, nd + 1, nd + 2, self.sizes(), d);
  auto g = std::make_shared<PadMapGeometry>();
  g->mode = mode;
  g->nd = nd;
  g->padded_dims = nd;
  g->in_shape = DimVector(self.sizes());
  g->out_shape = g->in_shape;
  g->outer = 1;
  for (int64_t d = 0; d < self.dim() - nd; ++d) g->outer *= self.size(d);
  for (int k = 0; k < nd; ++k) {
    // pad lists the last dim first; map k is the k-th padded dim from the outside.
    const int64_t d = self.dim() - nd + k;
    const int64_t pl = pad[2 * (nd - 1 - k)], pr = pad[2 * (nd - 1 - k) + 1];
    const int64_t n = self.size(d);
    if (mode == PadMapMode::Reflect)
      EMBER_CHECK_VALUE(pl < n && pr < n,
                        "{}: padding size should be less than the corresponding input dimension, "
                        "but got padding ({}, {}) at dimension {} of input {}",
                        op, pl, pr, d, self.sizes());
    if (mode == PadMapMode::Circular) {
      EMBER_CHECK_VALUE(pl <= n && pr <= n,
                        "{}: padding ({}, {}) at dimension {} of input {} wraps around more than "
                        "once: circular padding may be at most the dim's size {}",
                        op, pl, pr, d, self.sizes(), n);
      EMBER_CHECK_VALUE(n - std::max<int64_t>(-pl, 0) - std::max<int64_t>(-pr, 0) > 0,
                        "{}: negative padding ({}, {}) at dimension {} of input {} leaves nothing "
                        "of the dim to wrap around",
                        op, pl, pr, d, self.sizes());
    }
    const int64_t out = n + pl + pr;
    EMBER_CHECK_VALUE(out >= 1,
                      "{}: input {} is too small along dimension {}: size {} with padding ({}, {}) "
                      "gives an output size of {}, expected at least 1",
                      op, self.sizes(), d, n, pl, pr, out);
    g->out_shape[d] = out;
    Tensor map = empty({out}, TensorOptions().dtype(kLong));
    int64_t* m = map.data_ptr<int64_t>();
    for (int64_t o = 0; o < out; ++o) m[o] = pad_map_source(mode, o, n, pl, pr);
    g->map[k] = self.device().type() == kCPU ? map : map.to(self.device());
  }
  return g;
}

PadIndexParams pad_map_params(const PadMapGeometry& g, const void* src, void* dst) {
  PadIndexParams p;
  p.src = src;
  p.dst = dst;
  p.outer = g.outer;
  p.nd = g.nd;
  const int64_t rank = static_cast<int64_t>(g.in_shape.size());
  for (int k = 0; k < g.nd; ++k) {
    p.in_size[k] = g.in_shape[rank - g.nd + k];
    p.out_size[k] = g.out_shape[rank - g.nd + k];
    p.map[k] = g.map[k].data_ptr<int64_t>();
  }
  return p;
}

bool pad_map_low_precision(ScalarType t) { return t == kHalf || t == kBFloat16; }

Tensor pad_map_scatter(const Tensor& grad, const PadMapGeometryPtr& g);

// The gather (the padding itself); records pad_map_scatter as its backward.
Tensor pad_map_gather(const Tensor& input, const PadMapGeometryPtr& g) {
  autograd::OpRecording rec(input);
  const Tensor x = input.contiguous();
  Tensor y = empty(g->out_shape, x.options());
  if (y.numel() > 0) {
    const PadIndexParams p = pad_map_params(*g, x.data_ptr(), y.data_ptr());
    get_kernel<OpId::pad_nd>(x.device().type(), x.dtype())(x.dtype(), p);
  }
  if (rec)
    autograd::record(pad_map_node_name(g->mode, g->padded_dims, false), y,
                     autograd::edges_of(input),
                     [g](const Tensor& grad) { return pad_map_scatter(grad, g); });
  return y;
}

// The scatter-add (the padding's gradient); records pad_map_gather as its backward. float16 and
// bfloat16 gradients are summed in float32 and rounded once.
Tensor pad_map_scatter(const Tensor& grad, const PadMapGeometryPtr& g) {
  autograd::OpRecording rec(grad);
  const bool low = pad_map_low_precision(grad.dtype());
  const Tensor gy = low ? grad.to(kFloat).contiguous() : grad.contiguous();
  Tensor gx = empty(g->in_shape, gy.options());
  if (gx.numel() > 0) {
    const PadIndexParams p = pad_map_params(*g, gy.data_ptr(), gx.data_ptr());
    get_kernel<OpId::pad_nd_backward>(gy.device().type(), gy.dtype())(gy.dtype(), p);
  }
  if (low) gx = gx.to(grad.dtype());
  if (rec)
    autograd::record(pad_map_node_name(g->mode, g->padded_dims, true), gx, autograd::edges_of(grad),
                     [g](const Tensor& gg) { return pad_map_gather(gg, g); });
  return gx;
}

// A channels-last [N, C, H, W] input padded in H and W is a contiguous [N, H, W, C] padded in H
// and W with C copied unchanged: the same kernel with an identity map for C pads it with no
// layout copies (contiguous() in and contiguous(ChannelsLast) out would move it twice more).
PadMapGeometryPtr pad_map_channels_last(const PadMapGeometry& g, const Tensor& self) {
  auto cl = std::make_shared<PadMapGeometry>();
  cl->mode = g.mode;
  cl->nd = 3;
  cl->padded_dims = g.padded_dims;
  cl->outer = self.size(0);
  const int64_t c = self.size(1);
  cl->in_shape = DimVector{self.size(0), self.size(2), self.size(3), c};
  cl->out_shape = DimVector{self.size(0), g.out_shape[2], g.out_shape[3], c};
  cl->map[0] = g.map[0];
  cl->map[1] = g.map[1];
  cl->map[2] = arange(c, TensorOptions().dtype(kLong).device(self.device()));
  return cl;
}

// The padded input, in the input's memory format when that is channels-last (PyTorch keeps it).
Tensor pad_map_apply(const Tensor& self, IntArrayRef pad, PadMapMode mode, const std::string& op) {
  const PadMapGeometryPtr g = pad_map_geometry(self, pad, mode, op);
  if (self.dim() == 4 && g->nd == 2 && !self.is_contiguous() &&
      self.is_contiguous(MemoryFormat::ChannelsLast))
    return pad_map_gather(self.permute({0, 2, 3, 1}), pad_map_channels_last(*g, self))
        .permute({0, 3, 1, 2});
  Tensor y = pad_map_gather(self, g);
  if (self.dim() == 4 || self.dim() == 5) {
    const MemoryFormat f = self.suggest_memory_format();
    if (f != MemoryFormat::Contiguous) y = y.contiguous(f);
  }
  return y;
}

Tensor pad_map_fixed_rank(const Tensor& self, IntArrayRef padding, PadMapMode mode, int nd) {
  const std::string op = pad_map_op_name(mode, nd);
  EMBER_CHECK_VALUE(static_cast<int>(padding.size()) == 2 * nd,
                    "{}: padding must have {} values, but got {} values {}", op, 2 * nd,
                    padding.size(), padding);
  return pad_map_apply(self, padding, mode, op);
}

}  // namespace

Tensor reflection_pad1d(const Tensor& self, IntArrayRef padding) {
  return pad_map_fixed_rank(self, padding, PadMapMode::Reflect, 1);
}
Tensor reflection_pad2d(const Tensor& self, IntArrayRef padding) {
  return pad_map_fixed_rank(self, padding, PadMapMode::Reflect, 2);
}
Tensor reflection_pad3d(const Tensor& self, IntArrayRef padding) {
  return pad_map_fixed_rank(self, padding, PadMapMode::Reflect, 3);
}
Tensor replication_pad1d(const Tensor& self, IntArrayRef padding) {
  return pad_map_fixed_rank(self, padding, PadMapMode::Replicate, 1);
}
Tensor replication_pad2d(const Tensor& self, IntArrayRef padding) {
  return pad_map_fixed_rank(self, padding, PadMapMode::Replicate, 2);
}
Tensor replication_pad3d(const Tensor& self, IntArrayRef padding) {
  return pad_map_fixed_rank(self, padding, PadMapMode::Replicate, 3);
}
Tensor _pad_circular(const Tensor& self, IntArrayRef padding) {
  return pad_map_apply(self, padding, PadMapMode::Circular, "_pad_circular");
}

Tensor pad(const Tensor& self, IntArrayRef pad, std::string_view mode,
           std::optional<double> value) {
  EMBER_CHECK(self.defined(), "pad: input is an undefined tensor. Hint: pass a tensor");
  EMBER_CHECK_VALUE(pad.size() % 2 == 0,
                    "pad: padding length must be divisible by 2 ((left, right) pairs), but got {} "
                    "values {}",
                    pad.size(), pad);
  EMBER_CHECK_VALUE(static_cast<int64_t>(pad.size()) <= 2 * self.dim(),
                    "pad: padding length too large: {} values {} pad more dims than input {} has "
                    "({} dims, so at most {} values)",
                    pad.size(), pad, self.sizes(), self.dim(), 2 * self.dim());
  if (mode == "constant") return constant_pad_nd(self, pad, value.value_or(0.0));
  PadMapMode m;
  if (mode == "reflect")
    m = PadMapMode::Reflect;
  else if (mode == "replicate")
    m = PadMapMode::Replicate;
  else if (mode == "circular")
    m = PadMapMode::Circular;
  else
    EMBER_FAIL(
        "pad: unrecognised padding mode \"{}\": expected \"constant\", \"reflect\", "
        "\"replicate\" or \"circular\"",
        mode);
  EMBER_CHECK_VALUE(!value.has_value() || *value == 0.0,
                    "pad: padding mode \"{}\" doesn't take in value argument (got {}). Hint: only "
                    "\"constant\" fills with a value",
                    mode, value.value_or(0.0));
  const int64_t nd = static_cast<int64_t>(pad.size()) / 2;
  EMBER_CHECK_VALUE(nd >= 1 && (self.dim() == nd + 1 || self.dim() == nd + 2),
                    "pad: mode \"{}\" pads the last 1, 2 or 3 dims of a batched or unbatched "
                    "input (2 pad values for a 2-D or 3-D input, 4 for 3-D or 4-D, 6 for 4-D or "
                    "5-D), but got {} pad values for input {}",
                    mode, pad.size(), self.sizes());
  return pad_map_apply(self, pad, m, fmt::format("pad ({})", mode));
}

}  // namespace ember
