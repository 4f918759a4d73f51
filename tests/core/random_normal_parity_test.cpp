// Normal draws are PyTorch's: after manual_seed(s), randn, normal_ and the normal initialisers give
// the numbers torch 1.13 gives (tests/golden/gen/random.py), in ATen's order: one value at a time
// below 16 elements, blocks of 16 from there (src/ops/random_draws.cpp).
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "tests/support/golden.h"

using namespace ember;

namespace {

// float64 follows the same libm calls as ATen: equal up to the last bit a libm variant may round
// differently. float32 blocks: ATen's AVX2 log/sincos polynomials are within a few float32 ulps of
// the C library's, scaled by the radius (|x| < 6 for these draws). The 16-bit types round each
// step to their 11 (8) bits as ATen's Half (BFloat16) arithmetic does; a float32 ulp of difference
// in the log or sine can still move a value by one ulp of the type.
void expect_draws(const Tensor& got, const Tensor& expected, const std::string& what) {
  switch (expected.scalar_type()) {
    case kDouble:
      expect_close(got, expected, 4e-16, 4e-16, what);
      break;
    case kFloat:
      expect_close(got, expected, 1e-6, 1e-6, what);
      break;
    case kHalf:
      expect_close(got, expected, 0x1.0p-10, 0x1.0p-12, what);
      break;
    default:
      expect_close(got, expected, 0x1.0p-7, 0x1.0p-9, what);
  }
}

TEST(RandomNormalParity, MatchesPyTorchAfterManualSeed) {
  int checked = 0;
  for (const GoldenCase& c : load_golden("random")) {
    SCOPED_TRACE(c.location);
    const std::string op = c.op();
    if (op != "randn" && op != "randn_twice" && op != "normal" && op != "init") continue;
    manual_seed(static_cast<uint64_t>(c.ints.at(0)));
    const IntArrayRef size = c.int_lists.at(0);
    if (op == "randn") {
      expect_draws(randn(size, golden_dtype(c.strs.at(0))), c.outs.at(0), c.name);
    } else if (op == "randn_twice") {
      // The second call starts with the value the first one cached (below 16 elements).
      Tensor first = randn(size, golden_dtype(c.strs.at(0)));
      Tensor second = randn(size, golden_dtype(c.strs.at(0)));
      expect_draws(first, c.outs.at(0), c.name + " first");
      expect_draws(second, c.outs.at(1), c.name + " second");
    } else if (op == "normal") {
      Tensor t = empty(size, golden_dtype(c.strs.at(0)));
      t.normal_(c.scalars.at(0), c.scalars.at(1));
      expect_draws(t, c.outs.at(0), c.name);
    } else {
      Tensor t = empty(size);
      if (c.name.find("kaiming_normal_") != std::string::npos) {
        nn::init::kaiming_normal_(t);
      } else if (c.name.find("xavier_normal_") != std::string::npos) {
        nn::init::xavier_normal_(t, 0.5);
      } else if (c.name.find("trunc_normal_") != std::string::npos) {
        nn::init::trunc_normal_(t, 0.5, 2.0, -1.0, 3.0);
      } else {
        nn::init::normal_(t, 1.0, 3.0);
      }
      expect_draws(t, c.outs.at(0), c.name);
    }
    ++checked;
  }
  // 4 dtypes x (7 randn + 2 twice + 2 normal), 4 initialisers x 2 shapes.
  EXPECT_EQ(checked, 4 * 11 + 8);
}

TEST(RandomNormalParity, ManualSeedDropsTheCachedValue) {
  manual_seed(3);
  Tensor a = randn({1}, kDouble);  // caches the pair's second value
  manual_seed(3);
  Tensor b = randn({1}, kDouble);
  EXPECT_TRUE(a.equal(b));
}

TEST(RandomNormalParity, StridedTargetsDrawOneAtATimeInMemoryOrder) {
  // A non-contiguous normal_ takes ATen's one-value path whatever its size, visiting the elements
  // in memory order: for a transposed buffer, the buffer's own order (checked against torch 1.13).
  manual_seed(9);
  Tensor buffer = empty({6, 4}, kDouble);
  buffer.t().normal_(0, 1);
  manual_seed(9);
  std::vector<double> expected;
  for (int i = 0; i < 24; ++i) expected.push_back(randn({1}, kDouble).item<double>());
  Tensor flat = buffer.reshape({-1});
  for (int i = 0; i < 24; ++i) EXPECT_EQ(flat[i].item<double>(), expected[i]) << i;
}

}  // namespace
