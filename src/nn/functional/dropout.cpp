// The dropout family. Every variant draws one mask (already holding the survivors' scale, so
// applying it is a single multiply) and multiplies; autograd then needs no formula of its own:
// the product's gradient is grad·mask, exactly dropout's.
#include "ember/nn/functional/dropout.h"

#include <cmath>
#include <mutex>

#include "ember/core/generator.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "kernels/common/unary_functors.h"
#include "kernels/common/visit.h"
#include "src/core/parallel.h"
#include "src/nn/functional/layer_checks.h"

namespace ember::nn::functional {
namespace {

using layer::describe;

// SELU's negative saturation value, -scale·alpha: what alpha dropout sets dropped units to.
constexpr double kAlphaPrime = 1.7580993408473766;

// splitmix64's output function: a bijective mix of 64 bits that passes BigCrush when fed the
// counter sequence seed + k·golden_gamma (that is splitmix64 itself).
inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ull;

// A tensor of `sizes` (dtype and device of `like`) holding `keep` with probability 1 - p and
// `drop` otherwise; with `bias` non-null, also bias = bias_keep / bias_drop from the same draws
// (alpha dropout's affine shift).
//
// The generator is the cost of a mask: mt19937_64 takes ~6 ns a draw here, 37x the multiply that
// applies the mask. So one mt19937_64 draw seeds a counter-based splitmix64 stream: word k is
// mix64(seed + (k+1)·gamma), computable in any order, so the fill runs on every thread and stays
// the same whatever the thread count (and reproduces under ember::manual_seed). Each 64-bit word
// decides two elements with 32 bits each, so p is honoured to 2^-32.
Tensor draw_mask(const Tensor& like, IntArrayRef sizes, double p, double keep, double drop,
                 Tensor* bias = nullptr, double bias_keep = 0, double bias_drop = 0) {
  TensorOptions host = like.options().device(Device(kCPU)).requires_grad(false);
  Tensor mask = empty(sizes, host);
  if (bias) *bias = empty(sizes, host);
  const int64_t n = mask.numel();
  const uint64_t threshold = static_cast<uint64_t>(std::ldexp(1.0 - p, 32));
  uint64_t seed;
  {
    Generator& gen = default_generator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    seed = gen.next();
  }
  visit_dtype(mask.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_type_v<T>) {
      const T k = kernels::CastTo<T>{}(keep), d = kernels::CastTo<T>{}(drop);
      const T bk = kernels::CastTo<T>{}(bias_keep), bd = kernels::CastTo<T>{}(bias_drop);
      T* m = mask.data_ptr<T>();
      T* b = bias ? bias->data_ptr<T>() : nullptr;
      parallel_for(0, (n + 1) / 2, kElementwiseGrain / 2, [&](int64_t w0, int64_t w1) {
        for (int64_t w = w0; w < w1; ++w) {
          const uint64_t bits = mix64(seed + static_cast<uint64_t>(w + 1) * kGoldenGamma);
          const int64_t i = 2 * w;
          const bool kept0 = (bits & 0xffffffffu) < threshold;
          m[i] = kept0 ? k : d;
          if (b) b[i] = kept0 ? bk : bd;
          if (i + 1 < n) {
            const bool kept1 = (bits >> 32) < threshold;
            m[i + 1] = kept1 ? k : d;
            if (b) b[i + 1] = kept1 ? bk : bd;
          }
        }
      });
    }
  });
  if (!like.is_cpu()) {
    mask = mask.to(like.device());
    if (bias) *bias = bias->to(like.device());
  }
  return mask;
}

// [N, C, 1, ..., 1] for a batched input, [C, 1, ..., 1] for an unbatched one: one draw per
// channel, broadcast over the spatial dims by the multiply.
DimVector feature_mask_sizes(const Tensor& input, bool batched) {
  DimVector sizes(input.dim(), 1);
  const int64_t keep_dims = batched ? 2 : 1;
  for (int64_t d = 0; d < keep_dims; ++d) sizes[d] = input.size(d);
  return sizes;
}

Tensor apply_mask(const Tensor& input, const Tensor& mask, bool inplace) {
  return inplace ? input.mul_(mask) : input * mask;
}

// Dropout of elements (`feature` false) or channels. Returns the input itself when there is
// nothing to drop, as PyTorch.
Tensor dropout_impl(const Tensor& input, double p, bool training, bool inplace, bool feature,
                    bool batched, const char* op) {
  layer::check_defined(input, op, "input");
  layer::check_probability(p, op);
  if (p == 0 || !training || input.numel() == 0) return input;
  layer::check_floating(input, op, "input");
  // p = 1 multiplies by zero (PyTorch's choice: the gradient is defined and zero).
  if (p == 1) return inplace ? input.mul_(0) : input * 0;
  DimVector sizes = feature ? feature_mask_sizes(input, batched) : DimVector(input.sizes());
  return apply_mask(input, draw_mask(input, sizes, p, 1.0 / (1.0 - p), 0.0), inplace);
}

// Alpha dropout: kept x becomes a·x + c_keep, dropped x becomes c_drop, with a and c chosen so
// a unit normal input keeps mean 0 and variance 1 (Klambauer et al., 2017).
Tensor alpha_dropout_impl(const Tensor& input, double p, bool training, bool inplace, bool feature,
                          const char* op) {
  layer::check_defined(input, op, "input");
  layer::check_probability(p, op);
  if (p == 0 || !training || input.numel() == 0) return input;
  layer::check_floating(input, op, "input");
  EMBER_CHECK(!feature || input.dim() >= 2,
              "{}: expected an input of at least 2 dims [N, C, *], but got {}. Hint: use "
              "alpha_dropout to drop single elements",
              op, describe(input));
  if (p == 1) return inplace ? input.mul_(0) : input * 0;
  const double a = 1.0 / std::sqrt((kAlphaPrime * kAlphaPrime * p + 1) * (1 - p));
  const double shift = kAlphaPrime * a * p;  // a·0 + shift for kept units, -α'·a + shift else
  DimVector sizes = feature ? feature_mask_sizes(input, true) : DimVector(input.sizes());
  Tensor bias;
  Tensor mask = draw_mask(input, sizes, p, a, 0.0, &bias, shift, shift - kAlphaPrime * a);
  return inplace ? input.mul_(mask).add_(bias) : input * mask + bias;
}

// dropout1d/2d/3d take a batched [N, C, *] or an unbatched [C, *] input with `spatial` dims.
Tensor channel_dropout(const Tensor& input, double p, bool training, bool inplace, int64_t spatial,
                       const char* op) {
  layer::check_defined(input, op, "input");
  static const char* const kShapes[] = {"", "[N, C, L] or [C, L]", "[N, C, H, W] or [C, H, W]",
                                        "[N, C, D, H, W] or [C, D, H, W]"};
  EMBER_CHECK(input.dim() == spatial + 1 || input.dim() == spatial + 2,
              "{}: expected a {}-D or {}-D input ({}), but got {}. Hint: {} drops whole channels "
              "of inputs with {} spatial dim(s); use dropout for elementwise dropout",
              op, spatial + 1, spatial + 2, kShapes[spatial], describe(input), op, spatial);
  return dropout_impl(input, p, training, inplace, /*feature=*/true,
                      /*batched=*/input.dim() == spatial + 2, op);
}

}  // namespace

namespace detail {
Tensor dropout(const Tensor& input, double p, bool training, bool inplace) {
  return dropout_impl(input, p, training, inplace, false, false, "dropout");
}
Tensor dropout1d(const Tensor& input, double p, bool training, bool inplace) {
  return channel_dropout(input, p, training, inplace, 1, "dropout1d");
}
Tensor dropout2d(const Tensor& input, double p, bool training, bool inplace) {
  return channel_dropout(input, p, training, inplace, 2, "dropout2d");
}
Tensor dropout3d(const Tensor& input, double p, bool training, bool inplace) {
  return channel_dropout(input, p, training, inplace, 3, "dropout3d");
}
Tensor alpha_dropout(const Tensor& input, double p, bool training, bool inplace) {
  return alpha_dropout_impl(input, p, training, inplace, false, "alpha_dropout");
}
Tensor feature_alpha_dropout(const Tensor& input, double p, bool training, bool inplace) {
  return alpha_dropout_impl(input, p, training, inplace, true, "feature_alpha_dropout");
}
Tensor feature_dropout(const Tensor& input, double p, bool training, bool inplace) {
  const char* op = "feature_dropout";
  layer::check_defined(input, op, "input");
  if (!training || p == 0) return input;  // as ATen: the rank is checked only when it drops
  EMBER_CHECK(input.dim() >= 2,
              "{}: expected an input of at least 2 dims [N, C, *], but got {}. Hint: use dropout "
              "to drop single elements",
              op, describe(input));
  return dropout_impl(input, p, training, inplace, /*feature=*/true, /*batched=*/true, op);
}
}  // namespace detail

Tensor dropout(const Tensor& input, const DropoutFuncOptions& o) {
  return detail::dropout(input, o.p(), o.training(), o.inplace());
}
Tensor dropout1d(const Tensor& input, const Dropout1dFuncOptions& o) {
  return detail::dropout1d(input, o.p(), o.training(), o.inplace());
}
Tensor dropout2d(const Tensor& input, const Dropout2dFuncOptions& o) {
  return detail::dropout2d(input, o.p(), o.training(), o.inplace());
}
Tensor dropout3d(const Tensor& input, const Dropout3dFuncOptions& o) {
  return detail::dropout3d(input, o.p(), o.training(), o.inplace());
}
Tensor alpha_dropout(const Tensor& input, const AlphaDropoutFuncOptions& o) {
  return detail::alpha_dropout(input, o.p(), o.training(), o.inplace());
}
Tensor feature_alpha_dropout(const Tensor& input, const FeatureAlphaDropoutFuncOptions& o) {
  return detail::feature_alpha_dropout(input, o.p(), o.training(), o.inplace());
}

}  // namespace ember::nn::functional
