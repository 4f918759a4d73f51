// Ember's CPU generator draws as PyTorch's does: after manual_seed(s), rand, uniform_ (16-bit types
// from 11 or 8 bits of a draw, as ATen), randperm and randint give PyTorch's numbers
// (tests/golden/gen/random.py). This is what makes a model's default initialisation and a training
// run's batch order the same as in PyTorch and LibTorch.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "tests/support/golden.h"

using namespace ember;

namespace {

TEST(RandomParity, MatchesPyTorchAfterManualSeed) {
  int checked = 0;
  for (const GoldenCase& c : load_golden("random")) {
    SCOPED_TRACE(c.location);
    Tensor got;
    manual_seed(static_cast<uint64_t>(c.ints.at(0)));
    if (c.op() == "rand") {
      got = rand(c.int_lists.at(0), golden_dtype(c.strs.at(0)));
    } else if (c.op() == "uniform") {
      got = empty(c.int_lists.at(0), golden_dtype(c.strs.at(0)))
                .uniform_(c.scalars.at(0), c.scalars.at(1));
    } else if (c.op() == "randperm") {
      got = randperm(c.ints.at(1));
    } else if (c.op() == "randint") {
      got = randint(static_cast<int64_t>(c.scalars.at(0)), static_cast<int64_t>(c.scalars.at(1)),
                    c.int_lists.at(0));
    } else {
      continue;  // nn cases: tests/nn/init_parity_test.cpp
    }
    if (c.op() == "uniform") {
      // from + (to - from) * u may be fused into one FMA here and not in PyTorch: a last-bit
      // difference in float64 (float32 rounds it away).
      expect_close(got, c.outs[0], 1e-15, 1e-15, c.name);
    } else {
      EXPECT_TRUE(got.equal(c.outs[0])) << c.name << "\n" << got << "\n" << c.outs[0];
    }
    ++checked;
  }
  EXPECT_EQ(checked, 26);  // 3 seeds x (2 rand, 2 uniform, 3 randperm, 1 randint), 2 16-bit uniform
}

}  // namespace
