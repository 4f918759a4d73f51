// scaled_dot_product_attention: argument checks (PyTorch 2.x's rules, our messages), the choice
// of backend under the thread's sdpa_kernel setting, and LibTorch 1.13's private form.
#include "ember/ops/nn_attention.h"

#include <cmath>
#include <string>
#include <vector>

#include "ember/ops/shape.h"
#include "src/core/check.h"
#include "src/ops/nn_attention_impl.h"

namespace ember {
namespace {

constexpr const char* kOp = "scaled_dot_product_attention";

bool allowed(SDPBackend b) {
  return (detail::sdpa_allowed_bits() >> static_cast<unsigned>(b)) & 1U;
}

std::vector<int64_t> leading(const Tensor& t) { return {t.sizes().begin(), t.sizes().end() - 2}; }

/// Checks the arguments and gathers them for either path.
detail::SdpaArgs validate(const Tensor& q, const Tensor& k, const Tensor& v,
                          const std::optional<Tensor>& attn_mask, double dropout_p, bool is_causal,
                          std::optional<double> scale, bool enable_gqa) {
  EMBER_CHECK(q.defined() && k.defined() && v.defined(), "{}: query, key and value must be defined",
              kOp);
  EMBER_CHECK(q.dim() >= 2 && k.dim() >= 2 && v.dim() >= 2,
              "{}: expected query, key and value of rank 2 or more ([..., L, E], [..., S, E], "
              "[..., S, Ev]), got query {}, key {}, value {}",
              kOp, q.sizes(), k.sizes(), v.sizes());
  EMBER_CHECK_TYPE(q.scalar_type() == k.scalar_type() && q.scalar_type() == v.scalar_type(),
                   "{}: expected query, key and value to have the same dtype, got query {}, key "
                   "{}, value {}",
                   kOp, to_string(q.scalar_type()), to_string(k.scalar_type()),
                   to_string(v.scalar_type()));
  EMBER_CHECK_TYPE(is_floating_point(q.scalar_type()),
                   "{}: expected floating-point query, key and value, got {}", kOp,
                   to_string(q.scalar_type()));
  EMBER_CHECK(q.device() == k.device() && q.device() == v.device(),
              "{}: expected query, key and value on one device, got {}, {}, {}", kOp, q.device(),
              k.device(), v.device());
  EMBER_CHECK(q.size(-1) == k.size(-1),
              "{}: query's last dim (E = {}) must equal key's ({}); query {}, key {}", kOp,
              q.size(-1), k.size(-1), q.sizes(), k.sizes());
  EMBER_CHECK(k.size(-2) == v.size(-2),
              "{}: key and value must have the same length (dim -2); key {}, value {}", kOp,
              k.sizes(), v.sizes());
  EMBER_CHECK_VALUE(dropout_p >= 0 && dropout_p <= 1, "{}: dropout_p must be in [0, 1], got {}",
                    kOp, dropout_p);
  detail::SdpaArgs a{q, k, v, Tensor(), is_causal, 0.0, 1};
  a.scale = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  if (enable_gqa && q.dim() >= 3 && k.dim() >= 3 && v.dim() >= 3 && q.size(-3) != k.size(-3)) {
    EMBER_CHECK(k.size(-3) == v.size(-3) && k.size(-3) > 0 && q.size(-3) % k.size(-3) == 0,
                "{}: with enable_gqa, query's heads (dim -3) must be a multiple of key's and "
                "value's, which must be equal; query {}, key {}, value {}",
                kOp, q.sizes(), k.sizes(), v.sizes());
    a.kv_repeat = q.size(-3) / k.size(-3);
  }
  std::vector<int64_t> batch = leading(q);
  for (const Tensor* t : {&k, &v}) {
    std::vector<int64_t> other = leading(*t);
    if (a.kv_repeat > 1) other[other.size() - 1] *= a.kv_repeat;
    try {
      batch = broadcast_shapes(batch, other);
    } catch (const Error&) {
      EMBER_CHECK(false, "{}: the batch dims of query {}, key {} and value {} do not broadcast{}",
                  kOp, q.sizes(), k.sizes(), v.sizes(),
                  q.dim() >= 3 && k.dim() >= 3 && q.size(-3) != k.size(-3) && !enable_gqa
                      ? " (different head counts need enable_gqa=true)"
                      : "");
    }
  }
  if (attn_mask && attn_mask->defined()) {
    const Tensor& m = *attn_mask;
    EMBER_CHECK(!is_causal,
                "{}: attn_mask and is_causal=true cannot both be given (is_causal is a mask)", kOp);
    // PyTorch also takes a float32 mask with any query dtype.
    EMBER_CHECK_TYPE(
        m.scalar_type() == kBool || m.scalar_type() == kFloat || m.scalar_type() == q.scalar_type(),
        "{}: expected a bool or float attn_mask or one of query's dtype ({}), got {}", kOp,
        to_string(q.scalar_type()), to_string(m.scalar_type()));
    EMBER_CHECK(m.device() == q.device(), "{}: attn_mask is on {}, query on {}", kOp, m.device(),
                q.device());
    std::vector<int64_t> target = batch;
    target.push_back(q.size(-2));
    target.push_back(k.size(-2));
    bool ok = m.dim() <= static_cast<int64_t>(target.size());
    for (int64_t d = 1; ok && d <= m.dim(); ++d) {
      const int64_t ms = m.size(-d), ts = target[target.size() - static_cast<size_t>(d)];
      ok = ms == 1 || ms == ts;
    }
    EMBER_CHECK(ok,
                "{}: attn_mask of shape {} does not broadcast to the scores' shape {} "
                "([..., L, S])",
                kOp, m.sizes(), IntArrayRef(target));
    a.mask = m;
  }
  return a;
}

/// The first allowed backend that can run `a`, in PyTorch's order (fused before math).
SDPBackend choose(const detail::SdpaArgs& a, double dropout_p) {
  std::string why;
  if (allowed(SDPBackend::flash_attention)) {
    const std::string no = detail::sdpa_fused_unsupported(a, dropout_p);
    if (no.empty()) return SDPBackend::flash_attention;
    why += "; flash_attention: " + no;
  } else {
    why += "; flash_attention: disabled by sdpa_kernel";
  }
  if (allowed(SDPBackend::math)) return SDPBackend::math;
  why += "; math: disabled by sdpa_kernel";
  for (SDPBackend b : {SDPBackend::efficient_attention, SDPBackend::cudnn_attention})
    if (allowed(b))
      why += fmt::format("; {}: not built into Ember", b == SDPBackend::efficient_attention
                                                           ? "efficient_attention"
                                                           : "cudnn_attention");
  EMBER_CHECK(false, "{}: no available kernel for query {}, key {}, value {} ({}, {}){}", kOp,
              a.q.sizes(), a.k.sizes(), a.v.sizes(), to_string(a.q.scalar_type()), a.q.device(),
              why);
  return SDPBackend::error;
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask, double dropout_p,
                                    bool is_causal, std::optional<double> scale, bool enable_gqa) {
  const detail::SdpaArgs a =
      validate(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa);
  if (choose(a, dropout_p) == SDPBackend::flash_attention) return detail::sdpa_fused(a);
  return detail::sdpa_math(a, dropout_p);
}

SDPBackend _fused_sdp_choice(const Tensor& query, const Tensor& key, const Tensor& value,
                             const std::optional<Tensor>& attn_mask, double dropout_p,
                             bool is_causal, std::optional<double> scale, bool enable_gqa) {
  return choose(validate(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa),
                dropout_p);
}

std::tuple<Tensor, Tensor> _scaled_dot_product_attention(const Tensor& query, const Tensor& key,
                                                         const Tensor& value,
                                                         const std::optional<Tensor>& attn_mask,
                                                         double dropout_p, bool need_attn_weights,
                                                         bool is_causal) {
  if (!need_attn_weights)
    return {scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal),
            Tensor()};
  // The weights exist only on the math path.
  const detail::SdpaArgs a =
      validate(query, key, value, attn_mask, dropout_p, is_causal, std::nullopt, false);
  Tensor weights;
  Tensor out = detail::sdpa_math(a, dropout_p, &weights);
  return {out, weights};
}

}  // namespace ember
