// scaled_dot_product_attention against PyTorch 2.x's definition (tests/golden/nn_attention.golden,
// written by tests/golden/gen/nn_attention.py): output and the gradients of q, k and v, through
// each backend that can run the case (the fused kernel, the math composition), float64 and
// float32.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "tests/support/golden.h"

using namespace ember;

namespace sdpa_golden_test {

using nn::attention::sdpa_kernel;

/// Runs a case on `backend`; returns output, dq, dk, dv.
std::vector<Tensor> run_case(const GoldenCase& c, SDPBackend backend) {
  const bool causal = c.ints[0] != 0, gqa = c.ints[1] != 0, has_mask = c.ints[2] != 0;
  const std::optional<double> scale =
      c.ints[3] != 0 ? std::optional<double>(c.scalars[0]) : std::nullopt;
  Tensor q = c.args[0].clone().requires_grad_(true);
  Tensor k = c.args[1].clone().requires_grad_(true);
  Tensor v = c.args[2].clone().requires_grad_(true);
  std::optional<Tensor> mask;
  if (has_mask) mask = c.args[3];
  const Tensor& cot = c.args[has_mask ? 4 : 3];
  sdpa_kernel only({backend});
  EXPECT_EQ(_fused_sdp_choice(q, k, v, mask, 0.0, causal, scale, gqa), backend);
  Tensor out = scaled_dot_product_attention(q, k, v, mask, 0.0, causal, scale, gqa);
  autograd::variable_list g = autograd::grad({(out * cot).sum()}, {q, k, v});
  return {out, g[0], g[1], g[2]};
}

TEST(AttentionGolden, EveryCaseMatchesPyTorchOnEveryBackend) {
  const std::vector<GoldenCase> cases = load_golden("nn_attention");
  ASSERT_GE(cases.size(), 30U);
  int fused_cases = 0;
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(c.name + " (" + c.location + "): " + c.call);
    const bool f64 = c.args[0].scalar_type() == kFloat64;
    // float64 at float64 precision; float32 a little above its epsilon (sums over up to 270
    // keys in another order than the reference's).
    const double rtol = f64 ? 1e-11 : 3e-5, atol = f64 ? 1e-13 : 3e-6;
    std::vector<SDPBackend> backends{SDPBackend::math};
    if (c.args[0].dim() == 3 || c.args[0].dim() == 4) backends.push_back(SDPBackend::kFlash);
    for (SDPBackend b : backends) {
      const std::string which = b == SDPBackend::math ? " (math)" : " (fused)";
      std::vector<Tensor> got = run_case(c, b);
      ASSERT_EQ(got.size(), c.outs.size());
      const char* names[] = {"output", "dq", "dk", "dv"};
      for (size_t k = 0; k < got.size(); ++k)
        expect_close(got[k], c.outs[k], rtol, atol, c.name + which + " " + names[k]);
      if (b == SDPBackend::kFlash) ++fused_cases;
    }
  }
  EXPECT_GE(fused_cases, 30);
}

}  // namespace sdpa_golden_test
