// FlexAttention: the fused kernel against a float64 composition of recorded ops (scores, the
// score_mod written as tensor ops, the mask as a bool tensor, softmax, ·V), outputs and the
// gradients of q, k, v and of captured tables, for the shipped examples (causal, sliding window,
// prefix-LM, document masking, ALiBi, relative position bias, tanh soft-capping) over shapes with
// L != S, lengths that are not multiples of the blocks, small blocks (many partial ones), GQA,
// bfloat16; gradcheck in float64; BlockMask tables; empty operands with backward; errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/attention/flex_attention.h"
#include "tests/support/golden.h"

using namespace ember;
using namespace ember::nn::attention;

namespace flex_test {

namespace F = ember::nn::functional;

struct Shape {
  int64_t B, H, Hk, L, S, E, Ev;
  int64_t block_q, block_kv;
};

struct Result {
  Tensor out, dq, dk, dv, dtable;
};

/// k or v [B, Hk, S, D] with each head repeated `group` times (GQA), by recorded ops.
Tensor repeat_heads(const Tensor& t, int64_t group) {
  if (group == 1) return t;
  return t.unsqueeze(2)
      .expand({t.size(0), t.size(1), group, t.size(2), t.size(3)})
      .reshape({t.size(0), t.size(1) * group, t.size(2), t.size(3)});
}

/// The reference: softmax(mask(mod(scale·q·kᵀ)))·v in recorded ops. keep [B or 1, H or 1, L, S].
Tensor reference(const Tensor& q, const Tensor& k, const Tensor& v,
                 const std::function<Tensor(const Tensor&)>& mod, const Tensor& keep,
                 double scale) {
  const int64_t group = q.size(1) / k.size(1);
  Tensor s = matmul(q, repeat_heads(k, group).transpose(-2, -1)) * scale;
  if (mod) s = mod(s);
  if (keep.defined()) s = s.masked_fill(keep.logical_not(), -INFINITY);
  return matmul(s.softmax(-1), repeat_heads(v, group));
}

/// [L, S] int64 q_idx and kv_idx grids.
Tensor q_grid(int64_t L, int64_t S) { return arange(L).view({L, 1}).expand({L, S}); }
Tensor kv_grid(int64_t L, int64_t S) { return arange(S).view({1, S}).expand({L, S}); }

template <class Run>
Result grads_of(const Tensor& q0, const Tensor& k0, const Tensor& v0, const Tensor& table0,
                const Tensor& cot, Run run) {
  Tensor q = q0.detach().requires_grad_(true), k = k0.detach().requires_grad_(true),
         v = v0.detach().requires_grad_(true);
  Tensor table = table0.defined() ? table0.detach().requires_grad_(true) : Tensor();
  Tensor out = run(q, k, v, table);
  autograd::variable_list inputs{q, k, v};
  if (table.defined()) inputs.push_back(table);
  autograd::variable_list g = autograd::grad({(out * cot).sum()}, inputs);
  return {out, g[0], g[1], g[2], table.defined() ? g[3] : Tensor()};
}

void expect_same(const Result& got, const Result& want, double rtol, double atol,
                 const std::string& what) {
  expect_close(got.out, want.out.to(got.out.scalar_type()), rtol, atol, what + " output");
  expect_close(got.dq, want.dq.to(got.dq.scalar_type()), rtol, atol, what + " dq");
  expect_close(got.dk, want.dk.to(got.dk.scalar_type()), rtol, atol, what + " dk");
  expect_close(got.dv, want.dv.to(got.dv.scalar_type()), rtol, atol, what + " dv");
  if (want.dtable.defined())
    expect_close(got.dtable, want.dtable.to(got.dtable.scalar_type()), rtol, atol,
                 what + " d(table)");
}

std::string describe(const Shape& s) {
  return "B" + std::to_string(s.B) + " H" + std::to_string(s.H) + " Hk" + std::to_string(s.Hk) +
         " L" + std::to_string(s.L) + " S" + std::to_string(s.S) + " E" + std::to_string(s.E) +
         " Ev" + std::to_string(s.Ev) + " blocks " + std::to_string(s.block_q) + "x" +
         std::to_string(s.block_kv);
}

const std::vector<Shape> kShapes = {
    {1, 1, 1, 1, 1, 1, 1, 128, 128},   {2, 2, 2, 37, 37, 8, 5, 16, 16},
    {1, 4, 2, 70, 70, 16, 16, 32, 16}, {1, 2, 2, 130, 130, 24, 40, 128, 128},
    {2, 2, 1, 33, 33, 7, 9, 8, 32},    {1, 1, 1, 300, 300, 64, 64, 128, 128},
};

/// One example: the flex call (mask_mod → BlockMask, score_mod with an optional table) against
/// the reference, in `dtype` (float64 reference), on every shape.
struct Example {
  std::string name;
  // Builds the table the score_mod reads ([H, ...]); undefined for none.
  std::function<Tensor(const Shape&)> table;
  // flex_attention with that table (a leaf) and the shape's block mask.
  std::function<Tensor(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Shape&)>
      flex;
  // The reference's score_mod as tensor ops and its keep mask.
  std::function<Tensor(const Tensor&, const Tensor&, const Shape&)> ref_mod;
  std::function<Tensor(const Shape&)> keep;
};

void check_example(const Example& ex, ScalarType dtype, double rtol, double atol) {
  for (const Shape& s : kShapes) {
    manual_seed(static_cast<uint64_t>(s.L * 31 + s.E));
    Tensor q = randn({s.B, s.H, s.L, s.E}, kFloat64), k = randn({s.B, s.Hk, s.S, s.E}, kFloat64);
    Tensor v = randn({s.B, s.Hk, s.S, s.Ev}, kFloat64),
           cot = randn({s.B, s.H, s.L, s.Ev}, kFloat64);
    Tensor table = ex.table ? ex.table(s) : Tensor();
    const double scale = 1.0 / std::sqrt(static_cast<double>(s.E));
    const Result want = grads_of(q, k, v, table, cot, [&](auto q_, auto k_, auto v_, auto t_) {
      std::function<Tensor(const Tensor&)> mod;
      if (ex.ref_mod) mod = [&](const Tensor& sc) { return ex.ref_mod(sc, t_, s); };
      return reference(q_, k_, v_, mod, ex.keep ? ex.keep(s) : Tensor(), scale);
    });
    const Result got =
        grads_of(q.to(dtype), k.to(dtype), v.to(dtype), table.defined() ? table.to(dtype) : table,
                 cot.to(dtype),
                 [&](auto q_, auto k_, auto v_, auto t_) { return ex.flex(q_, k_, v_, t_, s); });
    expect_same(got, want, rtol, atol, ex.name + " " + describe(s) + " " + to_string(dtype));
  }
}

BlockSize block_of(const Shape& s) { return {s.block_q, s.block_kv}; }

/// flex_attention with a shipped score_mod (flex_mods.h) and a block mask from a shipped mask_mod.
template <class Mod, class Mask>
Tensor flex_with(const Tensor& q, const Tensor& k, const Tensor& v, Mod mod, Mask mask,
                 const Shape& s) {
  BlockMask m = create_block_mask(mask, std::nullopt, std::nullopt, s.L, s.S, kCPU, block_of(s));
  return flex_attention(q, k, v, mod, m, std::nullopt, s.H != s.Hk);
}

Tensor causal_keep(const Shape& s) { return q_grid(s.L, s.S) >= kv_grid(s.L, s.S); }

/// The seven examples the issue names, through the shipped callables of flex_mods.h.
std::vector<Example> examples() {
  std::vector<Example> ex;
  ex.push_back({"causal", nullptr,
                [](auto q, auto k, auto v, auto, const Shape& s) {
                  return flex_with(q, k, v, nullptr, causal_mask(), s);
                },
                nullptr, causal_keep});
  // Sliding window of 5 behind (causal); the mask broadcast from B = H = 1 given explicitly.
  ex.push_back({"sliding_window", nullptr,
                [](auto q, auto k, auto v, auto, const Shape& s) {
                  BlockMask m =
                      create_block_mask(sliding_window_mask(5), 1, 1, s.L, s.S, kCPU, block_of(s));
                  return flex_attention(q, k, v, nullptr, m, std::nullopt, s.H != s.Hk);
                },
                nullptr,
                [](const Shape& s) {
                  Tensor d = q_grid(s.L, s.S) - kv_grid(s.L, s.S);
                  return (d >= 0).logical_and(d <= 5);
                }});
  // Prefix-LM: the first 9 keys are visible to all, the rest causally.
  ex.push_back({"prefix_lm", nullptr,
                [](auto q, auto k, auto v, auto, const Shape& s) {
                  return flex_with(q, k, v, nullptr, prefix_lm_mask(9), s);
                },
                nullptr,
                [](const Shape& s) { return (kv_grid(s.L, s.S) < 9).logical_or(causal_keep(s)); }});
  // Document masking: documents of 7 positions, causal within each (and_masks).
  ex.push_back({"document", nullptr,
                [](auto q, auto k, auto v, auto, const Shape& s) {
                  // The mask keeps the ids alive for backward, which runs after this returns.
                  const Tensor doc = arange(std::max(s.L, s.S)).div(7, "floor");
                  return flex_with(q, k, v, nullptr, and_masks(document_mask(doc), causal_mask()),
                                   s);
                },
                nullptr,
                [](const Shape& s) {
                  return (q_grid(s.L, s.S).div(7, "floor") == kv_grid(s.L, s.S).div(7, "floor"))
                      .logical_and(causal_keep(s));
                }});
  // ALiBi with learned slopes [H], causal.
  ex.push_back({"alibi", [](const Shape& s) { return rand({s.H}, kFloat64) + 0.1; },
                [](auto q, auto k, auto v, auto t, const Shape& s) {
                  return flex_with(q, k, v, alibi(t), causal_mask(), s);
                },
                [](const Tensor& sc, const Tensor& t, const Shape& s) {
                  Tensor dist = (kv_grid(s.L, s.S) - q_grid(s.L, s.S)).to(kFloat64);
                  return sc + t.view({1, s.H, 1, 1}) * dist;
                },
                causal_keep});
  // Relative position bias: a learned table [H, 2·max + 1], read at q - kv + max; with a noop
  // mask (every block full) through or_masks of two halves.
  ex.push_back({"relative_bias",
                [](const Shape& s) {
                  return randn({s.H, 2 * std::max(s.L, s.S) - 1}, kFloat64);
                },
                [](auto q, auto k, auto v, auto t, const Shape& s) {
                  auto upper = [](int64_t, int64_t, int64_t qi, int64_t kv) { return kv > qi; };
                  return flex_with(q, k, v, relative_position_bias(t),
                                   or_masks(causal_mask(), upper), s);
                },
                [](const Tensor& sc, const Tensor& t, const Shape& s) {
                  const int64_t max = std::max(s.L, s.S) - 1;
                  Tensor idx = (q_grid(s.L, s.S) - kv_grid(s.L, s.S) + max).reshape({-1});
                  return sc + t.index_select(1, idx).view({1, s.H, s.L, s.S});
                },
                nullptr});
  // tanh soft-capping at 2 (scores of randn data reach past it), with a causal mask.
  ex.push_back(
      {"softcap", nullptr,
       [](auto q, auto k, auto v, auto, const Shape& s) {
         return flex_with(q, k, v, tanh_softcap(2.0), causal_mask(), s);
       },
       [](const Tensor& sc, const Tensor&, const Shape&) { return (sc / 2.0).tanh() * 2.0; },
       causal_keep});
  return ex;
}

}  // namespace flex_test

using namespace flex_test;

TEST(FlexAttention, ExamplesMatchTheCompositionInFloat64) {
  for (const Example& ex : examples()) check_example(ex, kFloat64, 1e-10, 1e-12);
}

TEST(FlexAttention, ExamplesMatchTheCompositionInFloat32) {
  for (const Example& ex : examples()) check_example(ex, kFloat32, 2e-4, 2e-5);
}

TEST(FlexAttention, ExamplesIn16BitAccumulateInFloat) {
  // 16-bit inputs round each operand (bf16 to 8 bits of mantissa, fp16 to 11); the check is that
  // nothing worse happens (float accumulation), not 16-bit equality.
  for (const Example& ex : examples()) check_example(ex, kBFloat16, 5e-2, 5e-2);
  for (const Example& ex : examples()) check_example(ex, kHalf, 1e-2, 1e-2);
}

TEST(FlexAttention, StridedOperandsPerHeadMaskAndGqaInBackward) {
  // [B, L, H, E] operands seen through transposes, a mask that differs per query head, GQA, two
  // tables in one score_mod, and one element read twice (its terms merge).
  manual_seed(8);
  const int64_t B = 2, Hq = 4, Hk = 2, L = 37, S = 41, E = 6;
  Tensor q0 = randn({B, L, Hq, E}, kFloat64), k0 = randn({B, S, Hk, E}, kFloat64);
  Tensor v0 = randn({B, S, Hk, 3}, kFloat64), cot = randn({B, Hq, L, 3}, kFloat64);
  Tensor gain0 = rand({Hq}, kFloat64) + 0.5, bias0 = randn({Hq, L + S - 1}, kFloat64);
  auto per_head = [](int64_t b, int64_t h, int64_t qi, int64_t kv) {
    return h % 2 == 0 ? qi >= kv : (kv + b + h) % 3 != 0;
  };
  BlockMask m = create_block_mask(per_head, B, Hq, L, S, kCPU, {16, 8});
  Tensor keep = empty({B, Hq, L, S}, kBool);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h)
      keep.index_put_({b, h}, h % 2 == 0 ? q_grid(L, S) >= kv_grid(L, S)
                                         : (kv_grid(L, S) + b + h).remainder(3) != 0);
  Tensor gain = gain0.detach().requires_grad_(true), bias = bias0.detach().requires_grad_(true);
  Tensor q = q0.detach().requires_grad_(true), k = k0.detach().requires_grad_(true);
  Tensor v = v0.detach().requires_grad_(true);
  Captured g_t(gain), b_t(bias);
  auto mod = [=](auto score, int64_t, int64_t h, int64_t qi, int64_t kv) {
    return score * g_t(h) * g_t(h) + b_t(h, qi - kv + S - 1);
  };
  Tensor out = flex_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), mod, m,
                              std::nullopt, true);
  autograd::variable_list g = autograd::grad({(out * cot).sum()}, {q, k, v, gain, bias});
  Tensor qr = q0.detach().requires_grad_(true), kr = k0.detach().requires_grad_(true);
  Tensor vr = v0.detach().requires_grad_(true);
  Tensor gr = gain0.detach().requires_grad_(true), br = bias0.detach().requires_grad_(true);
  Tensor idx = (q_grid(L, S) - kv_grid(L, S) + (S - 1)).reshape({-1});
  auto ref_mod = [&](const Tensor& sc) {
    return sc * (gr * gr).view({1, Hq, 1, 1}) + br.index_select(1, idx).view({1, Hq, L, S});
  };
  Tensor want = reference(qr.transpose(1, 2), kr.transpose(1, 2), vr.transpose(1, 2), ref_mod, keep,
                          1.0 / std::sqrt(double(E)));
  autograd::variable_list w = autograd::grad({(want * cot).sum()}, {qr, kr, vr, gr, br});
  expect_close(out, want, 1e-10, 1e-12, "output");
  const char* names[] = {"dq", "dk", "dv", "d(gain)", "d(bias)"};
  for (size_t i = 0; i < 5; ++i) expect_close(g[i], w[i], 1e-10, 1e-12, names[i]);
}

TEST(FlexAttention, NoModNoMaskEqualsSdpa) {
  manual_seed(3);
  Tensor q = randn({2, 3, 45, 16}), k = randn({2, 3, 70, 16}), v = randn({2, 3, 70, 8});
  expect_close(flex_attention(q, k, v), F::scaled_dot_product_attention(q, k, v), 1e-5, 1e-6,
               "dense");
  expect_close(flex_attention(q, k, v, nullptr, std::nullopt, 0.3),
               F::scaled_dot_product_attention(q, k, v, {}, 0.0, false, 0.3), 1e-5, 1e-6, "scale");
}

TEST(FlexAttention, StridedOperandsAndHeadsBroadcastMask) {
  // Per-head masks (H given) and [B, L, H, E] operands seen through transposes.
  manual_seed(4);
  Tensor q = randn({2, 50, 2, 8}, kFloat64).transpose(1, 2),
         k = randn({2, 60, 2, 8}, kFloat64).transpose(1, 2);
  Tensor v = randn({2, 60, 2, 4}, kFloat64).transpose(1, 2);
  auto per_head = [](int64_t b, int64_t h, int64_t qi, int64_t kv) {
    return h == 0 ? qi >= kv : (kv + b) % 3 != 0;
  };
  BlockMask m = create_block_mask(per_head, 2, 2, 50, 60, kCPU, 16);
  Tensor keep = empty({2, 2, 50, 60}, kBool);
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t h = 0; h < 2; ++h)
      keep.index_put_({b, h}, h == 0 ? q_grid(50, 60) >= kv_grid(50, 60)
                                     : (kv_grid(50, 60) + b).remainder(3) != 0);
  expect_close(flex_attention(q, k, v, nullptr, m),
               reference(q, k, v, nullptr, keep, 1.0 / std::sqrt(8.0)), 1e-10, 1e-12, "per head");
}

TEST(FlexAttention, GradcheckFloat64WithTableAndMask) {
  manual_seed(5);
  Tensor q = randn({1, 2, 9, 3}, kFloat64).requires_grad_(true);
  Tensor k = randn({1, 1, 11, 3}, kFloat64).requires_grad_(true);
  Tensor v = randn({1, 1, 11, 2}, kFloat64).requires_grad_(true);
  Tensor t = randn({2, 20}, kFloat64).requires_grad_(true);
  auto mask = [](int64_t, int64_t, int64_t qi, int64_t kv) { return kv <= qi + 2; };
  BlockMask m = create_block_mask(mask, std::nullopt, std::nullopt, 9, 11, kCPU, {4, 4});
  auto fn = [&](const autograd::variable_list& in) -> autograd::variable_list {
    Captured bias(in[3]);
    auto mod = [=](auto score, int64_t, int64_t h, int64_t qi, int64_t kv) {
      return 1.5 * tanh(score / 1.5) + bias(h, qi - kv + 10);
    };
    return {flex_attention(in[0], in[1], in[2], mod, m, std::nullopt, true)};
  };
  EXPECT_TRUE(autograd::gradcheck(fn, {q, k, v, t}));
}

TEST(FlexAttention, ShippedHelpers) {
  EXPECT_NEAR(alibi_slopes(8)[0].item<float>(), 0.5f, 1e-7);
  EXPECT_NEAR(alibi_slopes(8)[7].item<float>(), 1.0f / 256, 1e-9);
  EXPECT_EQ(relative_position_bias(zeros({2, 9})).max_distance, 4);
  EXPECT_THROW(relative_position_bias(zeros({2, 8})), Error);
  EXPECT_THROW(document_mask(zeros({4})), Error);
  EXPECT_TRUE(noop_mask()(0, 0, 0, 9));
  EXPECT_FALSE(and_masks(causal_mask(), noop_mask())(0, 0, 1, 2));
  EXPECT_TRUE(or_masks(causal_mask(), sliding_window_mask(0))(0, 0, 3, 2));  // causal only
  EXPECT_FALSE(and_masks(causal_mask(), sliding_window_mask(0))(0, 0, 3, 2));
  EXPECT_FALSE(or_masks(causal_mask(), sliding_window_mask(0))(0, 0, 2, 3));
  EXPECT_NEAR(tanh_softcap(2.0)(10.0f, 0, 0, 0, 0), 2.0 * std::tanh(5.0), 1e-12);
}

TEST(FlexAttention, BlockMaskTablesAndSparsity) {
  auto causal = [](int64_t, int64_t, int64_t qi, int64_t kv) { return qi >= kv; };
  BlockMask m = create_block_mask(causal, std::nullopt, std::nullopt, 512, 512);
  EXPECT_EQ(m.BLOCK_SIZE, (std::pair<int64_t, int64_t>{128, 128}));
  EXPECT_EQ(m.kv_num_blocks.sizes(), (std::vector<int64_t>{1, 1, 4}));
  // Diagonal blocks are partial, those below full, those above skipped.
  EXPECT_EQ(m.kv_num_blocks.sum().item<int64_t>(), 4);
  EXPECT_EQ(m.full_kv_num_blocks.sum().item<int64_t>(), 6);
  for (int64_t j = 0; j < 3; ++j)
    EXPECT_EQ(m.full_kv_indices.index({0, 0, 3, j}).item<int32_t>(), j);
  EXPECT_EQ(m.kv_indices.index({0, 0, 3, 0}).item<int32_t>(), 3);
  EXPECT_NEAR(m.sparsity(), 37.5, 1e-9);
  EXPECT_EQ(m.to_dense().sum().item<int64_t>(), 10);
  EXPECT_TRUE(m.mask_mod()(0, 0, 5, 3));
  EXPECT_FALSE(m.mask_mod()(0, 0, 3, 5));
  EXPECT_NE(m.to_string().find("sparsity=37.5"), std::string::npos);
}

TEST(FlexAttention, RowsWithNoKeyGiveZerosAndZeroGradients) {
  manual_seed(6);
  Tensor q = randn({1, 1, 20, 4}).requires_grad_(true),
         k = randn({1, 1, 20, 4}).requires_grad_(true);
  Tensor v = randn({1, 1, 20, 4}).requires_grad_(true);
  auto late = [](int64_t, int64_t, int64_t qi, int64_t kv) { return qi >= 10 && kv <= qi; };
  BlockMask m = create_block_mask(late, std::nullopt, std::nullopt, 20, 20, kCPU, 8);
  Tensor out = flex_attention(q, k, v, nullptr, m);
  EXPECT_EQ(out.slice(2, 0, 10).abs().max().item<float>(), 0.0f);
  EXPECT_GT(out.slice(2, 10, 20).abs().max().item<float>(), 0.0f);
  out.sum().backward();
  EXPECT_EQ(q.grad().slice(2, 0, 10).abs().max().item<float>(), 0.0f);
  EXPECT_TRUE(k.grad().isfinite().all().item<bool>());
}

TEST(FlexAttention, EmptyOperandsRunBackward) {
  for (auto [L, S] : std::vector<std::pair<int64_t, int64_t>>{{0, 5}, {5, 0}, {0, 0}}) {
    Tensor q = randn({1, 2, L, 4}).requires_grad_(true),
           k = randn({1, 2, S, 4}).requires_grad_(true);
    Tensor v = randn({1, 2, S, 3}).requires_grad_(true);
    Tensor out = flex_attention(q, k, v);
    EXPECT_EQ(out.sizes(), (std::vector<int64_t>{1, 2, L, 3}));
    if (L > 0) {
      EXPECT_EQ(out.abs().sum().item<float>(), 0.0f);
    }
    out.sum().backward();
    EXPECT_EQ(q.grad().sizes(), q.sizes());
    EXPECT_EQ(k.grad().sizes(), k.sizes());
    EXPECT_EQ(v.grad().sizes(), v.sizes());
  }
}

namespace flex_test {
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace flex_test

TEST(FlexAttention, ErrorsNameTheProblem) {
  Tensor q = randn({1, 2, 8, 4}), k = randn({1, 2, 8, 4}), v = randn({1, 2, 8, 4});
  EXPECT_NE(error_of([&] { flex_attention(q[0], k, v); }).find("must be 4-D"), std::string::npos);
  EXPECT_NE(error_of([&] {
              flex_attention(q, randn({1, 1, 8, 4}), randn({1, 1, 8, 4}));
            }).find("enable_gqa"),
            std::string::npos);
  auto all = [](int64_t, int64_t, int64_t, int64_t) { return true; };
  BlockMask m = create_block_mask(all, std::nullopt, std::nullopt, 16, 8);
  EXPECT_NE(error_of([&] { flex_attention(q, k, v, nullptr, m); }).find("Q_LEN=16"),
            std::string::npos);
  // A score_mod on plain floats runs, but cannot be differentiated.
  auto plain = [](float s, int64_t, int64_t, int64_t, int64_t) { return s * 0.5f; };
  EXPECT_NO_THROW(flex_attention(q, k, v, plain));
  Tensor qg = q.detach().requires_grad_(true);
  EXPECT_NE(error_of([&] { flex_attention(qg, k, v, plain); }).find("auto score"),
            std::string::npos);
  // Reads outside a captured table.
  Captured small(randn({2}));
  auto oob = [=](auto s, int64_t, int64_t, int64_t qi, int64_t) { return s + small(qi); };
  EXPECT_NE(error_of([&] { flex_attention(q, k, v, oob); }).find("out of range"),
            std::string::npos);
  // A table read only at positions the probe does not visit.
  Tensor tab = randn({8}).requires_grad_(true);
  Captured hidden(tab);
  auto sometimes = [=](auto s, int64_t, int64_t, int64_t qi, int64_t kv) {
    return qi == 3 && kv == 2 ? s + hidden(qi) : s;
  };
  Tensor out = flex_attention(qg, k, v, sometimes);
  EXPECT_NE(error_of([&] { out.sum().backward(); }).find("unconditionally"), std::string::npos);
  // More distinct elements in one score than a ScoreDual tracks.
  Tensor wide = randn({8}).requires_grad_(true);
  Captured w(wide);
  auto many = [=](auto s, int64_t, int64_t, int64_t, int64_t) {
    return s + w(0) + w(1) + w(2) + w(3) + w(4);
  };
  Tensor out2 = flex_attention(k, q, v, many);
  EXPECT_NE(error_of([&] { out2.sum().backward(); }).find("more than 4"), std::string::npos);
  // A BlockMask edited by hand is checked before the kernel reads it.
  BlockMask bad = create_block_mask(causal_mask(), std::nullopt, std::nullopt, 8, 8, kCPU, 4);
  bad.kv_indices.index_put_({0, 0, 1, 0}, 7);
  EXPECT_NE(error_of([&] { flex_attention(q, k, v, nullptr, bad); }).find("block index 7"),
            std::string::npos);
  BlockMask resized = create_block_mask(causal_mask(), std::nullopt, std::nullopt, 8, 8, kCPU, 4);
  resized.BLOCK_SIZE = {2, 4};
  EXPECT_NE(error_of([&] { flex_attention(q, k, v, nullptr, resized); }).find("BlockMask tables"),
            std::string::npos);
  EXPECT_NE(error_of([&] { flex_attention(q, k, v, nullptr, BlockMask()); }).find("Q_LEN"),
            std::string::npos);
}

TEST(FlexAttention, ExceptionsFromCallablesReachTheCaller) {
  // A mask_mod that throws inside the (multi-threaded) block classification and a score_mod
  // that throws inside the kernel: the caller gets the exception, the process lives on.
  auto throwing_mask = [](int64_t, int64_t, int64_t qi, int64_t) -> bool {
    if (qi == 300) throw Error("mask_mod failed");
    return true;
  };
  EXPECT_THROW(create_block_mask(throwing_mask, 4, 4, 512, 512, kCPU, 16), Error);
  Tensor q = randn({2, 4, 300, 8});
  auto throwing_mod = [](auto s, int64_t, int64_t h, int64_t qi, int64_t) {
    if (h == 2 && qi == 150) throw Error("score_mod failed");  // not where the probe looks
    return s;
  };
  EXPECT_THROW(flex_attention(q, q, q, throwing_mod), Error);
}
