// scaled_dot_product_attention beyond the golden cases: the fused kernel equals the math path over
// a sweep of shapes (L != S, head dims 1..256, lengths that are not multiples of the kernel's
// blocks, masks, causal, GQA) in float32, float64 and bfloat16; gradchecks of both paths; rows no
// key takes part in; empty operands with backward; the sdpa_kernel guard; errors.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "tests/support/golden.h"

using namespace ember;
namespace F = ember::nn::functional;
using nn::attention::sdpa_kernel;

// A named namespace: the test sources are compiled as unity files.
namespace sdpa_test {

struct Shape {
  int64_t B, H, Hk, L, S, E, Ev;
  int mask;  // 0 none, 1 bool [L, S], 2 additive [B, 1, L, S], 3 causal
};

struct Result {
  Tensor out, dq, dk, dv;
};

Result run(SDPBackend backend, const Tensor& q0, const Tensor& k0, const Tensor& v0,
           const std::optional<Tensor>& mask, bool causal, bool gqa, const Tensor& cot) {
  sdpa_kernel only({backend});
  Tensor q = q0.clone().requires_grad_(true), k = k0.clone().requires_grad_(true),
         v = v0.clone().requires_grad_(true);
  Tensor out = F::scaled_dot_product_attention(q, k, v, mask, 0.0, causal, std::nullopt, gqa);
  autograd::variable_list g = autograd::grad({(out * cot).sum()}, {q, k, v});
  return {out, g[0], g[1], g[2]};
}

void expect_same(const Result& got, const Result& want, double rtol, double atol,
                 const std::string& what) {
  expect_close(got.out, want.out.to(got.out.scalar_type()), rtol, atol, what + " output");
  expect_close(got.dq, want.dq.to(got.dq.scalar_type()), rtol, atol, what + " dq");
  expect_close(got.dk, want.dk.to(got.dk.scalar_type()), rtol, atol, what + " dk");
  expect_close(got.dv, want.dv.to(got.dv.scalar_type()), rtol, atol, what + " dv");
}

std::string describe(const Shape& s) {
  return "B" + std::to_string(s.B) + " H" + std::to_string(s.H) + " Hk" + std::to_string(s.Hk) +
         " L" + std::to_string(s.L) + " S" + std::to_string(s.S) + " E" + std::to_string(s.E) +
         " Ev" + std::to_string(s.Ev) + " mask" + std::to_string(s.mask);
}

/// Fused against math for one shape in `dtype`; bfloat16 is compared with float's math path.
void check_shape(const Shape& s, ScalarType dtype, double rtol, double atol) {
  manual_seed(static_cast<uint64_t>(s.L * 131 + s.S * 7 + s.E));
  Tensor q = randn({s.B, s.H, s.L, s.E}).to(dtype), k = randn({s.B, s.Hk, s.S, s.E}).to(dtype);
  Tensor v = randn({s.B, s.Hk, s.S, s.Ev}).to(dtype), cot = randn({s.B, s.H, s.L, s.Ev}).to(dtype);
  std::optional<Tensor> mask;
  if (s.mask == 1) {
    Tensor m = rand({s.L, s.S}) < 0.7;
    m.index_put_({"...", 0}, true);
    mask = m;
  } else if (s.mask == 2) {
    mask = randn({s.B, 1, s.L, s.S}).to(dtype);
  }
  const bool causal = s.mask == 3, gqa = s.H != s.Hk;
  EXPECT_EQ(_fused_sdp_choice(q, k, v, mask, 0.0, causal, std::nullopt, gqa), SDPBackend::kFlash);
  const Result fused = run(SDPBackend::kFlash, q, k, v, mask, causal, gqa, cot);
  std::optional<Tensor> wide_mask = mask;
  if (mask && mask->scalar_type() != kBool) wide_mask = mask->to(kFloat64);
  const Result math = run(SDPBackend::kMath, q.to(kFloat64), k.to(kFloat64), v.to(kFloat64),
                          wide_mask, causal, gqa, cot.to(kFloat64));
  expect_same(fused, math, rtol, atol, describe(s) + " " + to_string(dtype));
}

const std::vector<Shape> kSweep = {
    {1, 1, 1, 1, 1, 1, 1, 0},       {2, 2, 2, 63, 17, 7, 5, 0},     {1, 2, 2, 64, 256, 16, 16, 0},
    {1, 1, 1, 65, 257, 64, 64, 1},  {2, 4, 2, 130, 300, 32, 8, 3},  {1, 2, 1, 70, 33, 100, 3, 2},
    {1, 1, 1, 5, 513, 256, 256, 0}, {1, 3, 3, 129, 129, 24, 40, 3}, {1, 4, 1, 66, 70, 8, 8, 1},
    {2, 2, 2, 3, 600, 17, 9, 2},
};

TEST(Attention, FusedEqualsMathFloat64) {
  for (const Shape& s : kSweep) check_shape(s, kFloat64, 1e-10, 1e-12);
}

TEST(Attention, FusedEqualsMathFloat32) {
  for (const Shape& s : kSweep) check_shape(s, kFloat32, 2e-4, 2e-5);
}

TEST(Attention, FusedEqualsMathBFloat16) {
  // bfloat16 inputs, float accumulation: within a few bfloat16 roundings of the exact result.
  for (const Shape& s : kSweep) check_shape(s, kBFloat16, 4e-2, 2e-2);
}

TEST(Attention, Float16AndBFloat16MathPathMatchesFused) {
  for (ScalarType dt : {kBFloat16, kFloat16}) {
    manual_seed(3);
    Tensor q = randn({1, 2, 20, 8}).to(dt), k = randn({1, 2, 30, 8}).to(dt);
    Tensor v = randn({1, 2, 30, 8}).to(dt), cot = randn({1, 2, 20, 8}).to(dt);
    const Result fused = run(SDPBackend::kFlash, q, k, v, std::nullopt, true, false, cot);
    const Result math = run(SDPBackend::kMath, q, k, v, std::nullopt, true, false, cot);
    EXPECT_EQ(fused.out.scalar_type(), dt);
    EXPECT_EQ(fused.dq.scalar_type(), dt);
    expect_same(fused, math, 2e-2, 1e-2, to_string(dt));
  }
}

TEST(Attention, StridedOperandsNeedNoCopy) {
  // [B, L, H, E] storage seen as [B, H, L, E] (what projections give), and a sliced head dim:
  // the fused kernel reads them in place and writes its output in q's layout. (run() clones,
  // which makes operands contiguous, so the leaves here are the storages.)
  for (ScalarType dt : {kFloat32, kBFloat16}) {
    manual_seed(11);
    Tensor qs = randn({2, 70, 3, 8}).to(dt).requires_grad_(true);
    Tensor ks = randn({2, 300, 3, 8}).to(dt).requires_grad_(true);
    Tensor vs = randn({2, 3, 300, 12}).to(dt).requires_grad_(true);
    Tensor cot = randn({2, 3, 70, 6}).to(dt);
    std::vector<Result> r;
    for (SDPBackend b : {SDPBackend::kFlash, SDPBackend::kMath}) {
      sdpa_kernel only({b});
      Tensor out = F::scaled_dot_product_attention(qs.transpose(1, 2), ks.transpose(1, 2),
                                                   vs.narrow(3, 2, 6), std::nullopt, 0.0, true);
      if (b == SDPBackend::kFlash) {
        EXPECT_EQ(out.stride(2), 3 * 6) << "output in q's [B, L, H, E] layout";
      }
      autograd::variable_list g = autograd::grad({(out * cot).sum()}, {qs, ks, vs});
      r.push_back({out, g[0], g[1], g[2]});
    }
    const double tol = dt == kFloat32 ? 1e-5 : 2e-2;
    expect_same(r[0], r[1], tol, tol, std::string("strided ") + to_string(dt));
  }
}

TEST(Attention, ExpandedGradientsAndNaNRowsOnBothBackends) {
  manual_seed(12);
  Tensor q = randn({1, 2, 5, 4}), k = randn({1, 2, 7, 4}), v = randn({1, 2, 7, 3});
  for (int64_t ev : {3, 1}) {
    std::vector<Tensor> grads;
    for (SDPBackend b : {SDPBackend::kFlash, SDPBackend::kMath}) {
      sdpa_kernel only({b});
      Tensor qq = q.clone().requires_grad_(true);
      // sum(-2) and, with Ev = 1, sum() give gradients whose rows are stride-0 expansions.
      Tensor out = scaled_dot_product_attention(qq, k, v.narrow(3, 0, ev).contiguous());
      (ev == 1 ? out.sum() : out.sum(-2).sum()).backward();
      grads.push_back(qq.grad());
    }
    expect_close(grads[0], grads[1], 1e-5, 1e-6, "expanded gradient, Ev " + std::to_string(ev));
  }
  // A NaN in a query row makes that row NaN (not a row with no key) on both backends.
  Tensor qn = q.clone();
  qn.index_put_({0, 1, 2, 0}, std::numeric_limits<float>::quiet_NaN());
  for (SDPBackend b : {SDPBackend::kFlash, SDPBackend::kMath}) {
    sdpa_kernel only({b});
    Tensor out = scaled_dot_product_attention(qn, k, v);
    EXPECT_TRUE(out.index({0, 1, 2}).isnan().all().item<bool>()) << int(b);
    EXPECT_FALSE(out.index({0, 1, 1}).isnan().any().item<bool>()) << int(b);
  }
  // A float32 mask with a bfloat16 query, as PyTorch allows.
  Tensor mask = randn({5, 7});
  Tensor lo = scaled_dot_product_attention(q.to(kBFloat16), k.to(kBFloat16), v.to(kBFloat16), mask);
  expect_close(lo.to(kFloat32), scaled_dot_product_attention(q, k, v, mask), 3e-2, 3e-2,
               "float mask, bfloat16 query");
}

TEST(Attention, GradcheckBothBackends) {
  manual_seed(5);
  auto opts = TensorOptions().dtype(kFloat64).requires_grad(true);
  Tensor q = randn({1, 2, 5, 3}, opts), k = randn({1, 1, 7, 3}, opts),
         v = randn({1, 1, 7, 4}, opts);
  Tensor mask = randn({5, 7}, TensorOptions().dtype(kFloat64));
  for (SDPBackend b : {SDPBackend::kMath, SDPBackend::kFlash}) {
    sdpa_kernel only({b});
    for (int variant = 0; variant < 3; ++variant) {
      auto f = [&](const autograd::variable_list& x) {
        std::optional<Tensor> m = variant == 1 ? std::optional<Tensor>(mask) : std::nullopt;
        return autograd::variable_list{
            scaled_dot_product_attention(x[0], x[1], x[2], m, 0.0, variant == 2, 0.7, true)};
      };
      EXPECT_TRUE(autograd::gradcheck(f, {q, k, v})) << int(b) << " variant " << variant;
      EXPECT_TRUE(autograd::gradgradcheck(f, {q, k, v})) << int(b) << " variant " << variant;
    }
  }
}

TEST(Attention, MaskGradientOnTheMathPath) {
  // A float mask that requires grad (a learned bias) is differentiated: the fused kernel does
  // not, so the choice falls to math.
  manual_seed(6);
  auto opts = TensorOptions().dtype(kFloat64).requires_grad(true);
  Tensor q = randn({1, 1, 4, 3}, opts), k = randn({1, 1, 6, 3}, opts),
         v = randn({1, 1, 6, 2}, opts), bias = randn({4, 6}, opts);
  EXPECT_EQ(_fused_sdp_choice(q, k, v, bias), SDPBackend::kMath);
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& x) {
        return autograd::variable_list{scaled_dot_product_attention(x[0], x[1], x[2], x[3])};
      },
      {q, k, v, bias}));
}

TEST(Attention, RowsWithNoKeyGiveZeroAndZeroGradients) {
  manual_seed(7);
  Tensor q = randn({1, 1, 3, 4}), k = randn({1, 1, 5, 4}), v = randn({1, 1, 5, 4});
  Tensor mask = ones({3, 5}, TensorOptions().dtype(kBool));
  mask.index_put_({1}, false);
  Tensor cot = ones({1, 1, 3, 4});
  for (SDPBackend b : {SDPBackend::kMath, SDPBackend::kFlash}) {
    const Result r = run(b, q, k, v, mask, false, false, cot);
    EXPECT_TRUE(r.out.isfinite().all().item<bool>());
    EXPECT_TRUE(r.dq.isfinite().all().item<bool>() && r.dk.isfinite().all().item<bool>() &&
                r.dv.isfinite().all().item<bool>());
    EXPECT_EQ(r.out.index({0, 0, 1}).abs().max().item<float>(), 0.0f);
    EXPECT_EQ(r.dq.index({0, 0, 1}).abs().max().item<float>(), 0.0f);
    EXPECT_GT(r.out.index({0, 0, 0}).abs().max().item<float>(), 0.0f);
  }
}

TEST(Attention, EmptyOperandsRunForwardAndBackward) {
  for (auto [L, S, B] :
       std::vector<std::tuple<int64_t, int64_t, int64_t>>{{0, 4, 1}, {3, 0, 1}, {3, 4, 0}}) {
    Tensor q = randn({B, 2, L, 3}).requires_grad_(true);
    Tensor k = randn({B, 2, S, 3}).requires_grad_(true);
    Tensor v = randn({B, 2, S, 5}).requires_grad_(true);
    Tensor out = scaled_dot_product_attention(q, k, v);
    EXPECT_EQ(out.sizes(), IntArrayRef({B, 2, L, 5}));
    EXPECT_EQ(out.abs().sum().item<float>(), 0.0f);  // no key: 0 (and nothing when L or B is 0)
    out.sum().backward();
    ASSERT_TRUE(q.grad().defined() && k.grad().defined() && v.grad().defined());
    EXPECT_EQ(q.grad().sizes(), q.sizes());
    EXPECT_EQ(k.grad().sizes(), k.sizes());
    EXPECT_EQ(v.grad().sizes(), v.sizes());
  }
}

TEST(Attention, BroadcastingBatchDimsAndTwoDimensionalInputs) {
  manual_seed(8);
  Tensor q = randn({2, 3, 4, 5}), k = randn({1, 3, 6, 5}), v = randn({1, 3, 6, 2});
  Tensor out = scaled_dot_product_attention(q, k, v);  // math: k and v broadcast over batch
  Tensor ref = softmax(matmul(q, k.transpose(-2, -1)) / std::sqrt(5.0), -1).matmul(v);
  expect_close(out, ref, 1e-5, 1e-6, "broadcast batch");
  Tensor q2 = randn({4, 5}), k2 = randn({6, 5}), v2 = randn({6, 2});
  expect_close(scaled_dot_product_attention(q2, k2, v2),
               softmax(matmul(q2, k2.t()) / std::sqrt(5.0), -1).matmul(v2), 1e-5, 1e-6, "2-D");
}

TEST(Attention, DropoutAndWeights) {
  manual_seed(9);
  Tensor q = randn({1, 2, 4, 3}), k = randn({1, 2, 6, 3}), v = randn({1, 2, 6, 3});
  EXPECT_EQ(_fused_sdp_choice(q, k, v, std::nullopt, 0.5), SDPBackend::kMath);
  EXPECT_EQ(scaled_dot_product_attention(q, k, v, std::nullopt, 1.0).abs().max().item<float>(),
            0.0f);
  auto [out, w] = _scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, true);
  ASSERT_TRUE(w.defined());
  expect_close(w.sum(-1), ones({1, 2, 4}), 1e-6, 1e-6, "weights sum to 1");
  expect_close(out, scaled_dot_product_attention(q, k, v), 1e-5, 1e-6, "1.13 form");
  auto [out2, none] = _scaled_dot_product_attention(q, k, v);
  EXPECT_FALSE(none.defined());
  // Dropout zeroes weights and scales the rest by 1 / (1 - p).
  auto [o3, w3] = _scaled_dot_product_attention(q, k, v, std::nullopt, 0.5, true);
  const Tensor kept = w3.ne(0);
  EXPECT_GT(kept.sum().item<int64_t>(), 0);
  EXPECT_LT(kept.sum().item<int64_t>(), w3.numel());
  expect_close(w3.masked_select(kept), (w * 2).masked_select(kept), 1e-5, 1e-6, "dropout scale");
}

TEST(Attention, BackendGuardIsScopedAndExplainsRefusals) {
  Tensor q = randn({1, 1, 4, 3}), k = randn({1, 1, 4, 3}), v = randn({1, 1, 4, 3});
  EXPECT_EQ(_fused_sdp_choice(q, k, v), SDPBackend::kFlash);
  {
    sdpa_kernel only_math(SDPBackend::kMath);
    EXPECT_EQ(_fused_sdp_choice(q, k, v), SDPBackend::kMath);
    EXPECT_EQ(nn::attention::allowed_sdpa_backends(), std::vector<SDPBackend>{SDPBackend::math});
    {
      sdpa_kernel only_flash({SDPBackend::kFlash});
      try {
        scaled_dot_product_attention(q, k, v, std::nullopt, 0.1);
        ADD_FAILURE() << "dropout on the fused-only backend did not throw";
      } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("no available kernel"), std::string::npos) << msg;
        EXPECT_NE(msg.find("dropout"), std::string::npos) << msg;
      }
    }
    EXPECT_EQ(_fused_sdp_choice(q, k, v), SDPBackend::kMath);
  }
  EXPECT_EQ(_fused_sdp_choice(q, k, v), SDPBackend::kFlash);
  sdpa_kernel cuda_only({SDPBackend::kEfficient});
  EXPECT_THROW(scaled_dot_product_attention(q, k, v), Error);
}

void expect_error(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing: " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Attention, ClearErrors) {
  Tensor q = randn({2, 4, 5, 8}), k = randn({2, 4, 6, 8}), v = randn({2, 4, 6, 3});
  expect_error([&] { scaled_dot_product_attention(randn({5}), k, v); }, "rank 2 or more");
  expect_error(
      [&] {
        scaled_dot_product_attention(q, randn({2, 4, 6, 7}), v);
      },
      "query's last dim");
  expect_error([&] { scaled_dot_product_attention(q, k, randn({2, 4, 7, 3})); }, "same length");
  expect_error([&] { scaled_dot_product_attention(q, k.to(kFloat64), v); }, "same dtype");
  expect_error([&] { scaled_dot_product_attention(q, k, v, randn({5, 7})); }, "does not broadcast");
  expect_error(
      [&] {
        scaled_dot_product_attention(q, k, v, randn({5, 6}).to(kFloat64));
      },
      "bool or float attn_mask");
  expect_error(
      [&] {
        scaled_dot_product_attention(q, k, v, ones({5, 6}, kBool), 0.0, true);
      },
      "is_causal");
  expect_error(
      [&] {
        scaled_dot_product_attention(q, randn({2, 3, 6, 8}), randn({2, 3, 6, 3}));
      },
      "enable_gqa");
  expect_error(
      [&] {
        scaled_dot_product_attention(q, randn({2, 3, 6, 8}), randn({2, 3, 6, 3}), std::nullopt, 0.0,
                                     false, std::nullopt, true);
      },
      "multiple");
  expect_error([&] { scaled_dot_product_attention(q, k, v, std::nullopt, 1.5); }, "dropout_p");
  expect_error([&] { scaled_dot_product_attention(q.to(kInt64), k.to(kInt64), v.to(kInt64)); },
               "floating-point");
}

}  // namespace sdpa_test
