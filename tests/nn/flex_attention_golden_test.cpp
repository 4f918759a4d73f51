// flex_attention against PyTorch 2.x's definition (tests/golden/nn_flex.golden, written by
// tests/golden/gen/nn_flex.py): output and the gradients of q, k, v and of the learned table a
// score_mod reads, for causal, sliding-window, prefix-LM, document, ALiBi (learned slopes),
// relative position bias (learned table), tanh soft-capping and rows with no key, with L != S,
// GQA and an explicit scale, float64 and float32. The BlockMasks use small blocks so that skipped,
// partial and full blocks all occur; the results do not depend on the block size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/attention/flex_attention.h"
#include "tests/support/golden.h"

namespace flex_golden_test {

using namespace ember;
using namespace ember::nn::attention;

// The `kind` iarg (gen/nn_flex.py).
enum Kind : int64_t {
  kCausal = 0,
  kWindow = 1,
  kPrefix = 2,
  kDocument = 3,
  kAlibi = 4,
  kRelative = 5,
  kSoftcap = 6,
  kLate = 7,
  kKinds = 8,
};

/// A case's iargs (kind param block_q block_kv enable_gqa has_scale has_table) and sargs
/// (scale cap).
struct Params {
  int64_t kind = 0, param = 0;
  BlockSize block;
  bool gqa = false, has_table = false;
  std::optional<double> scale;
  double cap = 0;
};

Params params_of(const GoldenCase& c) {
  Params p;
  p.kind = c.ints.at(0);
  p.param = c.ints.at(1);
  p.block = BlockSize(c.ints.at(2), c.ints.at(3));
  p.gqa = c.ints.at(4) != 0;
  if (c.ints.at(5) != 0) p.scale = c.scalars.at(0);
  p.has_table = c.ints.at(6) != 0;
  p.cap = c.scalars.at(1);
  return p;
}

/// The case's mask_mod as a BlockMask over [L, S] (nullopt: no mask).
std::optional<BlockMask> mask_of(const Params& p, int64_t L, int64_t S) {
  auto make = [&](auto mod) {
    return create_block_mask(mod, std::nullopt, std::nullopt, L, S, kCPU, p.block);
  };
  const int64_t n = p.param;
  switch (p.kind) {
    case kCausal:
    case kAlibi:
    case kSoftcap:
      return make([](int64_t, int64_t, int64_t q, int64_t kv) { return q >= kv; });
    case kWindow:
      return make([n](int64_t, int64_t, int64_t q, int64_t kv) { return q >= kv && q - kv <= n; });
    case kPrefix:
      return make([n](int64_t, int64_t, int64_t q, int64_t kv) { return kv < n || q >= kv; });
    case kDocument: {
      // Document ids per position, read through a pointer: the Tensor captured by value keeps
      // the data alive for backward, which runs after flex_attention returns.
      Tensor doc = arange(std::max(L, S)).div(n, "floor");
      const int64_t* d = doc.data_ptr<int64_t>();
      return make([doc, d](int64_t, int64_t, int64_t q, int64_t kv) { return d[q] == d[kv]; });
    }
    case kLate:
      return make([n](int64_t, int64_t, int64_t q, int64_t kv) { return q >= n && kv <= q; });
    default:
      return std::nullopt;
  }
}

/// flex_attention with the case's score_mod (reading `table` where the kind has one) and mask.
Tensor run_flex(const Params& p, const Tensor& q, const Tensor& k, const Tensor& v,
                const Tensor& table, const std::optional<BlockMask>& mask) {
  switch (p.kind) {
    case kAlibi: {
      Captured slope(table);  // [Hq]
      auto alibi = [=](auto score, int64_t, int64_t h, int64_t qi, int64_t kv) {
        return score + slope(h) * (kv - qi);
      };
      return flex_attention(q, k, v, alibi, mask, p.scale, p.gqa);
    }
    case kRelative: {
      Captured bias(table);  // [Hq, L + S - 1]
      const int64_t off = k.size(2) - 1;
      auto rel = [=](auto score, int64_t, int64_t h, int64_t qi, int64_t kv) {
        return score + bias(h, qi - kv + off);
      };
      return flex_attention(q, k, v, rel, mask, p.scale, p.gqa);
    }
    case kSoftcap: {
      const double cap = p.cap;
      auto softcap = [=](auto score, int64_t, int64_t, int64_t, int64_t) {
        return cap * tanh(score / cap);
      };
      return flex_attention(q, k, v, softcap, mask, p.scale, p.gqa);
    }
    default:
      return flex_attention(q, k, v, nullptr, mask, p.scale, p.gqa);
  }
}

/// The largest |x| of a tensor (0 for an empty one).
double max_abs(const Tensor& t) {
  return t.numel() == 0 ? 0.0 : t.abs().max().to(kFloat64).item<double>();
}

TEST(FlexGolden, EveryCaseMatchesPyTorch) {
  const std::vector<GoldenCase> cases = load_golden("nn_flex");
  ASSERT_GE(cases.size(), 30U) << "nn_flex.golden has too few cases";
  std::set<int64_t> kinds_seen;
  std::set<std::string> dtypes_seen;
  bool saw_gqa = false, saw_scale = false, saw_long = false, saw_l_ne_s = false;
  int64_t partial_blocks = 0, full_blocks = 0;
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(c.name + " (" + c.location + "): " + c.call);
    ASSERT_EQ(c.ints.size(), 7U);
    ASSERT_EQ(c.scalars.size(), 2U);
    const Params p = params_of(c);
    ASSERT_GE(p.kind, 0);
    ASSERT_LT(p.kind, kKinds);
    const size_t n_in = p.has_table ? 4 : 3;
    ASSERT_EQ(c.args.size(), n_in + 1);
    ASSERT_EQ(c.outs.size(), n_in + 1);
    const bool f64 = c.args[0].scalar_type() == kFloat64;
    kinds_seen.insert(p.kind);
    dtypes_seen.insert(to_string(c.args[0].scalar_type()));
    const int64_t L = c.args[0].size(2), S = c.args[1].size(2);
    saw_gqa = saw_gqa || p.gqa;
    saw_scale = saw_scale || p.scale.has_value();
    saw_long = saw_long || L > 128;
    saw_l_ne_s = saw_l_ne_s || L != S;

    std::vector<Tensor> in;
    for (size_t i = 0; i < n_in; ++i) in.push_back(c.args[i].clone().requires_grad_(true));
    const Tensor& cot = c.args[n_in];
    const std::optional<BlockMask> mask = mask_of(p, L, S);
    if (mask) {
      partial_blocks += mask->kv_num_blocks.sum().item<int64_t>();
      full_blocks += mask->full_kv_num_blocks.sum().item<int64_t>();
    }
    Tensor out = run_flex(p, in[0], in[1], in[2], p.has_table ? in[3] : Tensor(), mask);
    autograd::variable_list g = autograd::grad({(out * cot).sum()}, in);
    std::vector<Tensor> got{out};
    got.insert(got.end(), g.begin(), g.end());

    // Relative to each value, with an absolute floor a little below the tensor's own scale (for
    // elements that are sums cancelling to near 0). float64 at float64 precision; float32 a
    // little above its epsilon (sums over up to 141 keys in another order than the reference's).
    const double rtol = f64 ? 1e-10 : 1e-4;
    const char* names[] = {"output", "dq", "dk", "dv", "d(table)"};
    for (size_t i = 0; i < got.size(); ++i) {
      const double atol = rtol * 0.1 * std::max(1.0, max_abs(c.outs[i]));
      expect_close(got[i], c.outs[i], rtol, atol, c.name + " " + names[i]);
    }
    if (p.kind == kLate) {
      // Rows before `param` keep no key: exactly 0 output and 0 query gradient.
      EXPECT_EQ(max_abs(out.slice(2, 0, p.param)), 0.0);
      EXPECT_EQ(max_abs(g[0].slice(2, 0, p.param)), 0.0);
      EXPECT_GT(max_abs(out.slice(2, p.param, L)), 0.0);
    }
  }
  EXPECT_EQ(kinds_seen.size(), static_cast<size_t>(kKinds));
  EXPECT_EQ(dtypes_seen, (std::set<std::string>{to_string(kFloat32), to_string(kFloat64)}));
  EXPECT_TRUE(saw_gqa && saw_scale && saw_long && saw_l_ne_s);
  EXPECT_GT(partial_blocks, 0);
  EXPECT_GT(full_blocks, 0);
}

}  // namespace flex_golden_test
