// F::dropout1d/2d/3d on the vision layouts ([N, C, L], [N, C, H, W], [N, C, D, H, W] and their
// unbatched forms): whole channels are zeroed, survivors are scaled by 1/(1-p), the fraction
// dropped is p within a few standard deviations (seeded), and the gradient uses the same mask.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "ember/ember.h"
#include "ember/nn/functional/dropout.h"

namespace {

namespace F = ember::nn::functional;
using ember::Tensor;

using PadDropoutFn = std::function<Tensor(const Tensor&, const F::DropoutFuncOptions&)>;

// Checks one layout: `channel_dims` leading dims name a channel (2 batched, 1 unbatched).
void pad_expect_channel_dropout(const PadDropoutFn& fn, std::vector<int64_t> shape,
                                int64_t channel_dims, double p, const std::string& what) {
  SCOPED_TRACE(what);
  ember::manual_seed(1234);
  const Tensor x = ember::ones(shape).requires_grad_(true);
  const Tensor y = fn(x, F::DropoutFuncOptions().p(p));
  ASSERT_EQ(y.sizes(), x.sizes());
  int64_t channels = 1;
  for (int64_t d = 0; d < channel_dims; ++d) channels *= shape[d];
  const Tensor rows = y.detach().reshape({channels, -1});
  const Tensor lo = std::get<0>(rows.min(1)), hi = std::get<0>(rows.max(1));
  // Whole channels: every row is constant, either 0 or 1/(1-p).
  EXPECT_TRUE(ember::equal(lo, hi)) << "a channel was partly dropped";
  const double scale = 1.0 / (1.0 - p);
  const Tensor kept = lo.gt(0.5);
  EXPECT_TRUE(ember::allclose(lo.masked_select(kept),
                              ember::full({kept.sum().item<int64_t>()}, scale), 1e-6, 0));
  const double dropped = 1.0 - kept.to(ember::kDouble).mean().item<double>();
  const double sigma = std::sqrt(p * (1 - p) / static_cast<double>(channels));
  EXPECT_NEAR(dropped, p, 5 * sigma + 1e-12) << channels << " channels";
  // The gradient of sum(y) is the same scaled mask.
  y.sum().backward();
  EXPECT_TRUE(ember::equal(x.grad(), y.detach()));
}

TEST(PadDropoutLayouts, Dropout1dZeroesWholeChannels) {
  const PadDropoutFn fn = [](const Tensor& x, const F::DropoutFuncOptions& o) {
    return F::dropout1d(x, o);
  };
  pad_expect_channel_dropout(fn, {40, 50, 7}, 2, 0.3, "[N, C, L]");
  pad_expect_channel_dropout(fn, {1500, 9}, 1, 0.6, "[C, L]");
}

TEST(PadDropoutLayouts, Dropout2dZeroesWholeChannels) {
  const PadDropoutFn fn = [](const Tensor& x, const F::DropoutFuncOptions& o) {
    return F::dropout2d(x, o);
  };
  pad_expect_channel_dropout(fn, {30, 60, 3, 4}, 2, 0.25, "[N, C, H, W]");
  pad_expect_channel_dropout(fn, {1200, 3, 5}, 1, 0.5, "[C, H, W]");
}

TEST(PadDropoutLayouts, Dropout3dZeroesWholeChannels) {
  const PadDropoutFn fn = [](const Tensor& x, const F::DropoutFuncOptions& o) {
    return F::dropout3d(x, o);
  };
  pad_expect_channel_dropout(fn, {20, 60, 2, 3, 2}, 2, 0.4, "[N, C, D, H, W]");
  pad_expect_channel_dropout(fn, {1000, 2, 2, 3}, 1, 0.2, "[C, D, H, W]");
}

TEST(PadDropoutLayouts, SeedMakesTheMaskReproducibleAndEvalIsIdentity) {
  const Tensor x = ember::ones({4, 16, 3, 3});
  ember::manual_seed(99);
  const Tensor a = F::dropout2d(x, F::DropoutFuncOptions().p(0.5));
  ember::manual_seed(99);
  const Tensor b = F::dropout2d(x, F::DropoutFuncOptions().p(0.5));
  EXPECT_TRUE(ember::equal(a, b));
  EXPECT_TRUE(ember::equal(
      F::dropout3d(ember::ones({2, 3, 2, 2, 2}), F::DropoutFuncOptions().p(0.5).training(false)),
      ember::ones({2, 3, 2, 2, 2})));
}

}  // namespace
