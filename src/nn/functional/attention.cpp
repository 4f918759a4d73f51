// F::multi_head_attention_forward with Python's semantics (torch.nn.functional, PyTorch 2.x):
// masks canonicalised to additive float (bool true = may not attend), key padding merged into
// the attention mask per head, the attention through scaled_dot_product_attention when weights
// are not needed (fused on the CPU), else softmax(q·kᵀ/√d + mask) by recorded ops.
#include <cmath>
#include <string>

#include "ember/nn/functional/attention.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/linear.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/core/check.h"
#include "src/ops/nn_attention_impl.h"

namespace ember::nn::functional {
namespace {

constexpr const char* kOp = "multi_head_attention_forward";

/// A bool mask as an additive float mask of `dtype` (true -> -inf); a float mask as it is.
Tensor canonical_mask(const Tensor& mask, ScalarType dtype, const char* name) {
  if (!mask.defined()) return mask;
  if (mask.scalar_type() == kBool) return ember::detail::additive_mask(mask, dtype);
  EMBER_CHECK_TYPE(is_floating_point(mask.scalar_type()),
                   "{}: only bool and floating {} are supported, got {}", kOp, name,
                   to_string(mask.scalar_type()));
  return mask.scalar_type() == dtype ? mask : mask.to(dtype);
}

/// mask with one more key position (0: takes part), for add_bias_kv and add_zero_attn.
Tensor pad_key(const Tensor& mask) {
  if (!mask.defined()) return mask;
  std::vector<int64_t> sizes(mask.sizes().begin(), mask.sizes().end());
  sizes.back() = 1;
  return cat({mask, zeros(sizes, mask.options())}, -1);
}

struct Projected {
  Tensor q, k, v;
};

/// The input projections: one GEMM for self-attention (q, k, v the same tensor), else one per
/// input, with slices of the packed weight (or the separate weights).
Projected project(const Tensor& query, const Tensor& key, const Tensor& value,
                  const MultiheadAttentionForwardFuncOptions& o, int64_t E) {
  const Tensor& b = o.in_proj_bias();
  auto bias = [&](int64_t i) { return b.defined() ? b.narrow(0, i * E, E) : Tensor(); };
  if (o.use_separate_proj_weight()) {
    EMBER_CHECK(
        o.q_proj_weight().defined() && o.k_proj_weight().defined() && o.v_proj_weight().defined(),
        "{}: use_separate_proj_weight needs q_proj_weight, k_proj_weight and "
        "v_proj_weight",
        kOp);
    return {linear(query, o.q_proj_weight(), bias(0)), linear(key, o.k_proj_weight(), bias(1)),
            linear(value, o.v_proj_weight(), bias(2))};
  }
  const Tensor& w = o.in_proj_weight();
  EMBER_CHECK(w.defined() && w.dim() == 2 && w.size(0) == 3 * E,
              "{}: expected in_proj_weight [3·embed_dim, embed_dim] = [{}, {}], got {}", kOp, 3 * E,
              E, w.defined() ? w.sizes() : IntArrayRef());
  if (query.is_same(key) && key.is_same(value)) {
    std::vector<Tensor> qkv = linear(query, w, b).chunk(3, -1);
    return {qkv[0], qkv[1], qkv[2]};
  }
  return {linear(query, w.narrow(0, 0, E), bias(0)), linear(key, w.narrow(0, E, E), bias(1)),
          linear(value, w.narrow(0, 2 * E, E), bias(2))};
}

}  // namespace

std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query_in, const Tensor& key_in, const Tensor& value_in,
    const MultiheadAttentionForwardFuncOptions& o) {
  EMBER_CHECK(query_in.dim() == 2 || query_in.dim() == 3,
              "{}: expected query of rank 2 (unbatched [L, E]) or 3 ([L, N, E]), got {}", kOp,
              query_in.sizes());
  const bool batched = query_in.dim() == 3;
  EMBER_CHECK(key_in.dim() == query_in.dim() && value_in.dim() == query_in.dim(),
              "{}: key and value must have query's rank ({}); query {}, key {}, value {}", kOp,
              query_in.dim(), query_in.sizes(), key_in.sizes(), value_in.sizes());
  // Unbatched inputs run as a batch of one.
  const Tensor query = batched ? query_in : query_in.unsqueeze(1);
  const Tensor key = batched ? key_in : (key_in.is_same(query_in) ? query : key_in.unsqueeze(1));
  const Tensor value = batched                      ? value_in
                       : value_in.is_same(key_in)   ? key
                       : value_in.is_same(query_in) ? query
                                                    : value_in.unsqueeze(1);
  const int64_t L = query.size(0), N = query.size(1), E = query.size(2);
  const int64_t H = o.num_heads();
  EMBER_CHECK(E == o.embed_dim_to_check(), "{}: was expecting embedding dimension of {}, got {}",
              kOp, o.embed_dim_to_check(), E);
  EMBER_CHECK(H > 0 && E % H == 0, "{}: embed_dim {} not divisible by num_heads {}", kOp, E, H);
  EMBER_CHECK(key.size(0) == value.size(0) && key.size(1) == N && value.size(1) == N,
              "{}: key {} and value {} must have the same length and query's batch ({})", kOp,
              key_in.sizes(), value_in.sizes(), N);
  const int64_t hd = E / H;
  const ScalarType dtype = query.scalar_type();

  // Its length is checked once the keys are final (static_k, add_bias_kv, add_zero_attn).
  Tensor kpm = canonical_mask(o.key_padding_mask(), dtype, "key_padding_mask");
  if (kpm.defined() && !batched) kpm = kpm.unsqueeze(0);
  Tensor mask = canonical_mask(o.attn_mask(), dtype, "attn_mask");
  bool is_causal = o.is_causal();
  if (is_causal)
    EMBER_CHECK(mask.defined(),
                "{}: need attn_mask if specifying the is_causal hint (pass the causal mask, e.g. "
                "generate_square_subsequent_mask)",
                kOp);
  if (is_causal && !kpm.defined() && !o.need_weights()) {
    mask = Tensor();  // SDPA applies the causal mask itself
  } else {
    is_causal = false;
  }
  if (mask.defined()) {
    if (mask.dim() == 2) {
      EMBER_CHECK(mask.size(0) == L && mask.size(1) == key.size(0),
                  "{}: the shape of the 2-D attn_mask is {}, but should be [{}, {}]", kOp,
                  mask.sizes(), L, key.size(0));
      mask = mask.unsqueeze(0);
    } else {
      EMBER_CHECK(mask.dim() == 3,
                  "{}: expected attn_mask of rank 2 ([L, S]) or 3 ([batch·num_heads, L, S]), got "
                  "{}",
                  kOp, mask.sizes());
      EMBER_CHECK(mask.size(0) == N * H && mask.size(1) == L && mask.size(2) == key.size(0),
                  "{}: the shape of the 3-D attn_mask is {}, but should be [{}, {}, {}] "
                  "(batch·num_heads, L, S)",
                  kOp, mask.sizes(), N * H, L, key.size(0));
    }
  }

  Projected p = project(query, key, value, o, E);
  Tensor k = p.k, v = p.v;
  if (o.bias_k().defined() && o.bias_v().defined()) {
    EMBER_CHECK(!o.static_k().defined() && !o.static_v().defined(),
                "{}: bias cannot be added to static key or value", kOp);
    k = cat({k, o.bias_k().reshape({1, 1, E}).expand({1, N, E})}, 0);
    v = cat({v, o.bias_v().reshape({1, 1, E}).expand({1, N, E})}, 0);
    mask = pad_key(mask);
    kpm = pad_key(kpm);
  } else {
    EMBER_CHECK(!o.bias_k().defined() && !o.bias_v().defined(),
                "{}: bias_k and bias_v must be given together", kOp);
  }
  // [L, N, E] -> [N·H, L, hd]
  Tensor q = p.q.reshape({L, N * H, hd}).transpose(0, 1);
  for (const Tensor* st : {&o.static_k(), &o.static_v()})
    EMBER_CHECK(!st->defined() || (st->dim() == 3 && st->size(0) == N * H && st->size(2) == hd),
                "{}: expected static_k and static_v of shape [batch·num_heads, S, head_dim] = "
                "[{}, S, {}], got {}",
                kOp, N * H, hd, st->sizes());
  k = o.static_k().defined() ? o.static_k() : k.reshape({k.size(0), N * H, hd}).transpose(0, 1);
  v = o.static_v().defined() ? o.static_v() : v.reshape({v.size(0), N * H, hd}).transpose(0, 1);
  EMBER_CHECK(k.size(1) == v.size(1), "{}: key and value lengths differ ({} and {})", kOp,
              k.size(1), v.size(1));
  if (o.add_zero_attn()) {
    k = cat({k, zeros({N * H, 1, hd}, k.options())}, 1);
    v = cat({v, zeros({N * H, 1, hd}, v.options())}, 1);
    mask = pad_key(mask);
    kpm = pad_key(kpm);
  }
  const int64_t S = k.size(1);
  if (kpm.defined()) {
    EMBER_CHECK(kpm.dim() == 2 && kpm.size(0) == N && kpm.size(1) == S,
                "{}: expected key_padding_mask of shape [{}, {}] (batch, key length), got {}", kOp,
                N, S - (o.add_zero_attn() ? 1 : 0) - (o.bias_k().defined() ? 1 : 0),
                o.key_padding_mask().sizes());
    Tensor per_head = kpm.view({N, 1, 1, S}).expand({N, H, 1, S}).reshape({N * H, 1, S});
    mask = mask.defined() ? mask + per_head : per_head;
  }
  const double dropout_p = o.training() ? o.dropout_p() : 0.0;

  Tensor out, weights;
  if (o.need_weights()) {
    Tensor scores = bmm(q * (1.0 / std::sqrt(static_cast<double>(hd))), k.transpose(1, 2));
    if (mask.defined()) scores = scores + mask;
    weights = softmax(scores, -1);
    // Python returns the weights after dropout, as they were applied.
    if (dropout_p > 0) weights = dropout(weights, DropoutFuncOptions().p(dropout_p));
    out = bmm(weights, v).transpose(0, 1).reshape({L * N, E});
    weights = weights.view({N, H, L, S});
    if (o.average_attn_weights()) weights = weights.mean({1});
    if (!batched) weights = weights.squeeze(0);
  } else {
    std::optional<Tensor> m;
    if (mask.defined())
      m = mask.size(0) == 1 ? mask.unsqueeze(0) : mask.view({N, H, mask.size(1), S});
    Tensor o4 = ember::scaled_dot_product_attention(q.view({N, H, L, hd}), k.view({N, H, S, hd}),
                                                    v.view({N, H, S, hd}), m, dropout_p, is_causal);
    out = o4.permute({2, 0, 1, 3}).reshape({L * N, E});
  }
  out = linear(out, o.out_proj_weight(), o.out_proj_bias()).view({L, N, E});
  if (!batched) out = out.squeeze(1);
  return {out, weights};
}

}  // namespace ember::nn::functional
