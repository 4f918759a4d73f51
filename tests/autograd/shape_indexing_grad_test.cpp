// Autograd of the shape and indexing ops beyond the gradcheck table (grad_ops_shape.cpp,
// grad_ops_indexing.cpp): node names, views made by basic indexing, in-place indexing on views
// and non-leaves, and the saved index tensors' version checks.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "tests/autograd/test_util.h"

using namespace ember;
using namespace autograd_test;
using indexing::Slice;

namespace {
Tensor doubles(std::vector<double> v) { return tensor(v, kDouble); }
std::string node_of(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "(none)"; }
}  // namespace

TEST(ShapeIndexingGrad, OpsRecordTheirNodes) {
  Tensor x = randn({3, 4}, kDouble).requires_grad_();
  Tensor idx = tensor({0, 2});
  Tensor mask = x.detach() > 0;
  EXPECT_EQ(node_of(cat({x, x})), "CatBackward0");
  EXPECT_EQ(node_of(stack({x, x})), "StackBackward0");
  EXPECT_EQ(node_of(x.repeat({2, 1})), "RepeatBackward0");
  EXPECT_EQ(node_of(x.tile({2})), "RepeatBackward0");
  EXPECT_EQ(node_of(x.flip({0})), "FlipBackward0");
  EXPECT_EQ(node_of(x.roll({1}, {1})), "RollBackward0");
  EXPECT_EQ(node_of(x.roll({1})), "RollBackward0");
  EXPECT_EQ(node_of(x.tril()), "TrilBackward0");
  EXPECT_EQ(node_of(x.triu()), "TriuBackward0");
  EXPECT_EQ(node_of(constant_pad_nd(x, {1, 1})), "ConstantPadNdBackward0");
  EXPECT_EQ(node_of(broadcast_tensors({x, zeros({2, 1, 1}, kDouble)})[0]), "ExpandBackward0");
  EXPECT_EQ(node_of(x.index({Slice(0, 2)})), "SliceBackward0");
  EXPECT_EQ(node_of(x.index({1})), "SelectBackward0");
  EXPECT_EQ(node_of(x.index({idx})), "IndexBackward0");
  EXPECT_EQ(node_of(x.index_select(1, idx)), "IndexSelectBackward0");
  EXPECT_EQ(node_of(x.gather(1, idx.view({1, 2}))), "GatherBackward0");
  EXPECT_EQ(node_of(x.scatter(1, idx.view({1, 2}), x.narrow(1, 0, 2))), "ScatterBackward0");
  EXPECT_EQ(node_of(x.scatter(1, idx.view({1, 2}), 1.0)), "ScatterBackward1");
  EXPECT_EQ(node_of(x.scatter_add(1, idx.view({1, 2}), x)), "ScatterAddBackward0");
  EXPECT_EQ(node_of(x.index_add(1, idx, x.narrow(1, 0, 2))), "IndexAddBackward0");
  EXPECT_EQ(node_of(x.masked_fill(mask, 1.0)), "MaskedFillBackward0");
  EXPECT_EQ(node_of(x.masked_fill(mask, doubles({1}).view({}))), "MaskedFillBackward1");
  EXPECT_EQ(node_of(x.masked_select(mask)), "MaskedSelectBackward0");
  EXPECT_EQ(node_of(x.take(idx)), "TakeBackward0");
  Tensor y = x * 1;
  y.index_put_({idx}, 0.0);
  EXPECT_EQ(node_of(y), "IndexPutBackward0");
}

TEST(ShapeIndexingGrad, NoRecordingWithoutGradMode) {
  Tensor x = randn({3, 4}, kDouble).requires_grad_();
  NoGradGuard guard;
  EXPECT_FALSE(cat({x, x}).requires_grad());
  EXPECT_FALSE(x.index({tensor({0, 2})}).requires_grad());
  EXPECT_FALSE(x.gather(1, tensor({{0}})).requires_grad());
}

TEST(ShapeIndexingGrad, BasicIndexIsAViewThatInPlaceOpsRouteThrough) {
  Tensor x = doubles({1, 2, 3, 4}).requires_grad_();
  Tensor base = x * 1;
  Tensor v = base.index({Slice(1, 3)});
  EXPECT_TRUE(v.is_view());
  v.mul_(10);  // base = [x0, 10 x1, 10 x2, x3]
  EXPECT_EQ(node_of(base), "CopySlices");
  (base * base).sum().backward();
  expect_values(x.grad(), {2, 400, 600, 8});
}

TEST(ShapeIndexingGrad, EmptyIndexIsAnAliasWithHistory) {
  Tensor x = doubles({1, 2}).requires_grad_();
  Tensor a = x.index({indexing::Ellipsis});
  EXPECT_TRUE(a.requires_grad());
  (a * 3).sum().backward();
  expect_values(x.grad(), {3, 3});
}

TEST(ShapeIndexingGrad, IndexPutOverwritesSelfAndRoutesValues) {
  Tensor x = doubles({1, 2, 3, 4}).requires_grad_();
  Tensor v = doubles({5, 6}).requires_grad_();
  Tensor y = x * 2;
  y.index_put_({tensor({0, 2})}, v);
  (y * doubles({1, 2, 3, 4})).sum().backward();
  expect_values(x.grad(), {0, 4, 0, 8});  // overwritten elements lose their gradient
  expect_values(v.grad(), {1, 3});
}

TEST(ShapeIndexingGrad, IndexPutAccumulateKeepsSelfGradient) {
  Tensor x = doubles({1, 2, 3}).requires_grad_();
  Tensor v = doubles({5, 6}).requires_grad_();
  Tensor y = x * 2;
  index_put_(y, {tensor({1, 1})}, v, /*accumulate=*/true);
  expect_values(y.detach(), {2, 15, 6});
  (y * doubles({1, 2, 3})).sum().backward();
  expect_values(x.grad(), {2, 4, 6});
  expect_values(v.grad(), {2, 2});
}

TEST(ShapeIndexingGrad, InPlaceIndexingOnRowsOfANonLeaf) {
  // y = x * 1, then y[0] and y[1] are modified in place through index_put_ and masked_fill_.
  Tensor x = doubles({1, 2, 3, 4, 5, 6}).view({2, 3}).detach().requires_grad_();
  Tensor w = doubles({7}).requires_grad_();
  Tensor y = x * 1;
  y.select(0, 0).index_put_({tensor({1})}, w);
  y.select(0, 1).masked_fill_(tensor({true, false, true}), 0.0);
  EXPECT_EQ(node_of(y), "CopySlices");
  expect_values(y.detach(), {1, 7, 3, 0, 5, 0});
  (y * doubles({1, 2, 3, 4, 5, 6}).view({2, 3})).sum().backward();
  expect_values(x.grad(), {1, 0, 3, 0, 5, 0});
  expect_values(w.grad(), {2});
}

TEST(ShapeIndexingGrad, ScatterIntoAViewOfANonLeaf) {
  Tensor x = zeros({2, 3}, kDouble).requires_grad_();
  Tensor src = doubles({1, 2}).view({1, 2}).detach().requires_grad_();
  Tensor y = x + 1;
  y.narrow(0, 1, 1).scatter_(1, tensor({{2, 0}}), src);
  expect_values(y.detach(), {1, 1, 1, 2, 1, 1});
  (y * doubles({1, 2, 3, 4, 5, 6}).view({2, 3})).sum().backward();
  expect_values(x.grad(), {1, 2, 3, 0, 5, 0});
  expect_values(src.grad(), {6, 4});
}

TEST(ShapeIndexingGrad, InPlaceIndexingOfALeafIsRefused) {
  Tensor x = zeros({2, 3}, kDouble).requires_grad_();
  Tensor idx = tensor({{0}});
  const std::string leaf = "a leaf Variable that requires grad";
  EXPECT_NE(message_of([&] { x.index_put_({0}, 1.0); }).find(leaf), std::string::npos);
  EXPECT_NE(message_of([&] { x.masked_fill_(x.detach() == 0, 1.0); }).find(leaf),
            std::string::npos);
  EXPECT_NE(message_of([&] { x.scatter_(1, idx, 1.0); }).find(leaf), std::string::npos);
  EXPECT_NE(message_of([&] {
              x.scatter_add_(1, idx, ones({1, 1}, kDouble));
            }).find(leaf),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              x.index_add_(0, tensor({1}), ones({1, 3}, kDouble));
            }).find(leaf),
            std::string::npos);
  EXPECT_NE(message_of([&] { x.select(0, 1).index_put_({0}, 1.0); }).find("a view of a leaf"),
            std::string::npos);
  expect_values(x.detach(), {0, 0, 0, 0, 0, 0});  // refused before anything was written
}

TEST(ShapeIndexingGrad, ModifiedIndexTensorIsCaught) {
  Tensor x = doubles({1, 2, 3}).requires_grad_();
  Tensor idx = tensor({0, 2});
  Tensor y = x.index_select(0, idx);
  idx.zero_();
  std::string msg = message_of([&] { y.sum().backward(); });
  EXPECT_NE(msg.find("modified by an inplace operation"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[int64 [2]]"), std::string::npos) << msg;
}

TEST(ShapeIndexingGrad, FlatRollResultIsNotAView) {
  // roll without dims rolls a flattened copy; its result must not be a view of that copy, or an
  // in-place op on it would cut the graph.
  Tensor x = doubles({1, 2, 3, 4, 5, 6}).view({2, 3}).detach().requires_grad_();
  Tensor y = x.roll({1});
  EXPECT_FALSE(y.is_view());
  expect_values(y.detach(), {6, 1, 2, 3, 4, 5});
  y.mul_(2);
  (y * doubles({1, 2, 3, 4, 5, 6}).view({2, 3})).sum().backward();
  expect_values(x.grad(), {4, 6, 8, 10, 12, 2});
}

TEST(ShapeIndexingGrad, CatGivesGradientsOnlyToInputsThatRequireThem) {
  Tensor a = doubles({1, 2}).requires_grad_();
  Tensor b = doubles({3});
  Tensor c = cat({a, empty({0}, kDouble), b});
  (c * doubles({1, 2, 3})).sum().backward();
  expect_values(a.grad(), {1, 2});
  EXPECT_FALSE(b.grad().defined());
}

TEST(ShapeIndexingGrad, MaskedFillValueGetsTheSumUnderTheMask) {
  Tensor x = doubles({1, 2, 3, 4}).view({2, 2}).detach().requires_grad_();
  Tensor value = doubles({9}).view({}).detach().requires_grad_();
  Tensor mask = tensor({{true, false}, {true, true}});
  Tensor y = x.masked_fill(mask, value);
  (y * doubles({1, 2, 3, 4}).view({2, 2})).sum().backward();
  expect_values(x.grad(), {0, 2, 0, 0});
  expect_values(value.grad(), {8});
}

TEST(ShapeIndexingGrad, TakeAddsRepeatedAndNegativePositions) {
  Tensor x = doubles({1, 2, 3, 4, 5, 6}).view({2, 3}).detach().requires_grad_();
  x.take(tensor({-1, 0, 5})).sum().backward();
  expect_values(x.grad(), {1, 0, 0, 0, 0, 2});
}

TEST(ShapeIndexingGrad, AsStridedDoubleBackwardRunsThroughIndexAdd) {
  // as_strided's backward adds the gradient at storage positions with index_add, so its second
  // derivative needs index_add's own.
  Tensor x = doubles({1, 2, 3, 4}).requires_grad_();
  Tensor y = x.as_strided({3, 2}, {1, 1});  // windows overlap
  Tensor g = autograd::grad({(y * y).sum()}, {x}, {}, true, true)[0];
  expect_values(g.detach(), {2, 8, 12, 8});  // 2 x_i times how often x_i is read
  EXPECT_TRUE(g.requires_grad());
  Tensor gg = autograd::grad({g.sum()}, {x})[0];
  expect_values(gg, {2, 4, 4, 2});
}
