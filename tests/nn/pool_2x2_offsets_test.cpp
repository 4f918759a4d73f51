// The training path of the 2x2, stride 2 max pool (pool::max_pool_2x2_applies): when nobody asks
// for the indices, the forward keeps one byte per output naming its window's winning tap
// (max_pool_2x2 row) and the backward reads those (max_pool_2x2_backward row). Checked against the
// int64-index path that max_pool2d_with_indices takes on the same input, by gradcheck in float64,
// and through the node names that say which path ran.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "ember/autograd/gradcheck.h"
#include "tests/nn/modules_test_util.h"

using namespace ember;

namespace pool_offsets_test {

// Small integers (many ties), NaNs in both rows of one window and an all -inf window near a row's
// start, and NaNs in the last window of a row (a vector kernel's scalar tail).
Tensor tie_heavy_input(IntArrayRef sizes, ScalarType dtype) {
  Tensor x = randint(0, 3, sizes, TensorOptions().dtype(kFloat));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  x.index_put_({0, 1, 2, 3}, nan);
  x.index_put_({0, 1, 3, 2}, nan);
  x.index_put_({0, 1, 4, 4}, nan);
  const int64_t w = sizes[3];
  x.index_put_({1, 0, 2, w - 1}, nan);
  x.index_put_({1, 0, 3, w - 2}, nan);
  x.index_put_({1, 3, 5, w - 2}, nan);
  for (int64_t i : {0, 1})
    for (int64_t j : {0, 1}) x.index_put_({0, 2, i, j}, -inf);
  return x.to(dtype);
}

// The name of the node that differentiates the input gradient of max_pool2d(x, 2) once more:
// MaxPool2DWithIndicesBackwardBackward0 on the offsets path.
std::string double_backward_node(const Tensor& x, bool ceil_mode = false) {
  Tensor a = x.detach().requires_grad_();
  Tensor y = max_pool2d(a, {2, 2}, {2, 2}, {0, 0}, {1, 1}, ceil_mode);
  const Tensor g = ones_like(y).requires_grad_();
  auto grads = autograd::grad({y}, {a}, {g}, /*retain_graph=*/true, /*create_graph=*/true);
  // An unbatched input's gradient comes back through a view to (C, H, W): look past it.
  auto fn = grads[0].grad_fn();
  while (fn && fn->name() == std::string("ViewBackward0") && !fn->next_edges().empty())
    fn = fn->next_edges()[0].function;
  return fn ? fn->name() : std::string("none");
}

}  // namespace pool_offsets_test

using namespace pool_offsets_test;

TEST(PoolOffsets, TrainingPathMatchesTheIndexPath) {
  // Widths 12, 14, 16, 36 and 70: output rows of 6, 7, 8, 18 and 35 (a partial 16-wide step of
  // the AVX-512 kernel, whole steps and a partial one; on AVX2 rows under 8 take the portable
  // loop, 8 is one whole step, 18 and 35 end in the scalar tail); every floating dtype (float32
  // takes the AVX-512 or AVX2 kernel where built for it, the others the portable loops).
  manual_seed(21);
  for (ScalarType dtype : {kFloat, kDouble, kHalf, kBFloat16})
    for (int64_t width : {12, 14, 16, 36, 70}) {
      SCOPED_TRACE(std::string(to_string(dtype)) + " width " + std::to_string(width));
      const Tensor x = tie_heavy_input({3, 4, 8, width}, dtype);
      const Tensor g = randint(-4, 5, {3, 4, 4, width / 2}, TensorOptions().dtype(dtype));
      Tensor a = x.clone().requires_grad_(), b = x.clone().requires_grad_();
      const Tensor ya = max_pool2d(a, {2, 2});              // offsets
      auto [yb, idx] = max_pool2d_with_indices(b, {2, 2});  // int64 indices, asked for
      EXPECT_TRUE(allclose(ya, yb, 0, 0, /*equal_nan=*/true));
      ya.backward(g);
      yb.backward(g);
      EXPECT_TRUE(equal(a.grad(), b.grad()));
      // Each gradient sits at the tap the index names: the offsets agree with the indices.
      const Tensor at_idx = a.grad().flatten(2).gather(2, idx.flatten(2)).view_as(g);
      EXPECT_TRUE(equal(at_idx, g));
      EXPECT_EQ(double_backward_node(x), "MaxPool2DWithIndicesBackwardBackward0");
    }
}

TEST(PoolOffsets, OtherPoolingsKeepTheIndexPath) {
  manual_seed(22);
  const Tensor x = randn({2, 3, 8, 12});
  EXPECT_NE(double_backward_node(x.contiguous(MemoryFormat::ChannelsLast)),
            "MaxPool2DWithIndicesBackwardBackward0");
  EXPECT_NE(double_backward_node(randn({2, 3, 8, 14}).slice(3, 0, 12)),
            "MaxPool2DWithIndicesBackwardBackward0");  // rows with gaps
  // Odd sizes: the last row and column are dropped, so the windows do not tile the planes.
  Tensor odd = randn({2, 3, 9, 13}).requires_grad_();
  Tensor y = max_pool2d(odd, {2, 2});
  y.backward(ones_like(y));
  EXPECT_EQ(odd.grad().sum().item<float>(), static_cast<float>(y.numel()));
  EXPECT_EQ(odd.grad().select(2, 8).abs().sum().item<float>(), 0.0f);
}

TEST(PoolOffsets, GradcheckAndDoubleBackward) {
  // Distinct values (a permutation) so that finite differences never cross a tie.
  manual_seed(23);
  const int64_t n = 2 * 3 * 6 * 8;
  const Tensor x = (randperm(n, kDouble) / static_cast<double>(n)).view({2, 3, 6, 8});
  ASSERT_EQ(double_backward_node(x), "MaxPool2DWithIndicesBackwardBackward0");
  auto fn = [](const autograd::variable_list& v) {
    return autograd::variable_list{max_pool2d(v[0], {2, 2})};
  };
  Tensor xg = x.clone().requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(fn, {xg}));
  EXPECT_TRUE(autograd::gradgradcheck(fn, {xg}));
  // The second derivative w.r.t. the output gradient equals the index path's.
  const Tensor h = randn({2, 3, 6, 8}, kDouble);
  Tensor second[2];
  for (int path = 0; path < 2; ++path) {
    Tensor a = x.clone().requires_grad_();
    Tensor y = path == 0 ? max_pool2d(a, {2, 2}) : std::get<0>(max_pool2d_with_indices(a, {2, 2}));
    Tensor g = zeros_like(y).requires_grad_();
    auto ga = autograd::grad({y}, {a}, {g}, true, /*create_graph=*/true);
    (ga[0] * h).sum().backward();
    second[path] = g.grad();
  }
  EXPECT_TRUE(equal(second[0], second[1]));
  EXPECT_GT(second[0].abs().sum().item<double>(), 0.0);
}

TEST(PoolOffsets, UnbatchedCeilModeExpandedGradientsAndUnitDims) {
  // Inputs that take the offsets path in other shapes: unbatched (C, H, W), ceil_mode with even
  // sizes (the same windows), N == 1 and C == 1, and a gradient that arrives expanded (from sum).
  manual_seed(24);
  const Tensor unbatched = randn({3, 6, 8}), single = randn({1, 1, 4, 18});
  for (const Tensor& x : {unbatched, single}) {
    for (bool ceil_mode : {false, true}) {
      EXPECT_EQ(double_backward_node(x, ceil_mode), "MaxPool2DWithIndicesBackwardBackward0")
          << "sizes " << x.sizes() << " ceil " << ceil_mode;
      Tensor a = x.clone().requires_grad_(), b = x.clone().requires_grad_();
      max_pool2d(a, {2, 2}, {2, 2}, {0, 0}, {1, 1}, ceil_mode).sum().backward();
      std::get<0>(max_pool2d_with_indices(b, {2, 2}, {2, 2}, {0, 0}, {1, 1}, ceil_mode))
          .sum()
          .backward();
      EXPECT_TRUE(equal(a.grad(), b.grad())) << "sizes " << x.sizes() << " ceil " << ceil_mode;
      EXPECT_EQ(a.grad().sum().item<float>(), static_cast<float>(x.numel() / 4));
    }
  }
}

TEST(PoolOffsets, BackwardCalledByHandChecksSizes) {
  Tensor x = randn({2, 3, 4, 6}).requires_grad_();
  Tensor y = max_pool2d(x, {2, 2});
  ASSERT_TRUE(y.grad_fn());
  ember_test::expect_error(
      [&] {
        (*y.grad_fn())({randn({2, 3, 4, 6})});
      },
      {"max_pool2d backward: expected a gradient of the pooled size [2, 3, 2, 3]"});
}

TEST(PoolOffsets, ZeroSizeBatchTakesTheIndexPathAndRunsBackward) {
  // No element to pool: the offsets path is not taken (max_pool_2x2_applies), the index path runs
  // forward and backward.
  Tensor x = randn({0, 3, 4, 6}).requires_grad_();
  EXPECT_NE(double_backward_node(x), "MaxPool2DWithIndicesBackwardBackward0");
  Tensor y = max_pool2d(x, {2, 2});
  EXPECT_EQ(y.sizes(), IntArrayRef({0, 3, 2, 3}));
  y.sum().backward();
  EXPECT_EQ(x.grad().sizes(), x.sizes());
}
