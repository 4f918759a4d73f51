// In-place ops under autograd: version checks, leaf protection, views (CopySlices).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ember/ember.h"
#include "tests/autograd/test_util.h"

using namespace ember;
using namespace autograd_test;

TEST(Inplace, ModifyingASavedTensorIsCaught) {
  Tensor x = tensor(std::vector<double>{1, 2}, kDouble).requires_grad_();
  Tensor y = x.exp();
  Tensor z = y.sum();
  {
    NoGradGuard g;  // even without recording, the version counter moves
    y.add_(1);
  }
  std::string msg = message_of([&] { z.backward(); });
  EXPECT_NE(msg.find("modified by an inplace operation"), std::string::npos) << msg;
  EXPECT_NE(msg.find("ExpBackward0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("is at version 1; expected version 0"), std::string::npos) << msg;
}

TEST(Inplace, LeafThatRequiresGradCannotBeModified) {
  // Every factory's result is a plain leaf: tensor() from a list or vector, the random ones and
  // eye() were views of a flat buffer, which slipped past the leaf check.
  const std::vector<std::pair<std::string, std::function<Tensor()>>> leaves = {
      {"ones", [] { return ones({2}, kDouble); }},
      {"tensor(list)",
       [] {
         return tensor({1.0, 2.0}, kDouble);
       }},
      {"tensor(nested)",
       [] {
         return tensor({{1.0}, {2.0}}, kDouble);
       }},
      {"tensor(vector)",
       [] {
         return tensor(std::vector<double>{1, 2}, kDouble);
       }},
      {"randn", [] { return randn({2}, kDouble); }},
      {"rand",
       [] {
         return rand({2, 1}, kDouble);
       }},
      {"eye", [] { return eye(2, kDouble); }},
      {"arange", [] { return arange(2, kDouble); }},
      {"linspace", [] { return linspace(0, 1, 2, kDouble); }},
  };
  for (const auto& [name, make] : leaves) {
    Tensor x = make().requires_grad_(true);
    EXPECT_FALSE(x.is_view()) << name;
    std::string msg = message_of([&] { x.add_(1); });
    EXPECT_NE(msg.find("a leaf Variable that requires grad"), std::string::npos) << name << msg;
    msg = message_of([&] { x.narrow(0, 0, 1).mul_(2); });
    EXPECT_NE(msg.find("a view of a leaf Variable"), std::string::npos) << name << msg;
    NoGradGuard g;
    x.add_(1);  // fine without recording
  }
}

TEST(Inplace, AViewMadeALeafIsProtectedAsALeaf) {
  // requires_grad_ on a view of a buffer that needs no grad makes the view a leaf (as PyTorch).
  Tensor buffer = zeros({4}, kDouble);
  Tensor x = buffer.view({2, 2}).requires_grad_(true);
  EXPECT_TRUE(x.is_leaf());
  EXPECT_NE(message_of([&] { x.add_(1); }).find("requires grad"), std::string::npos);
  EXPECT_NE(message_of([&] { x.select(0, 1).mul_(2); }).find("requires grad"), std::string::npos);
  EXPECT_EQ(buffer.sum().item<double>(), 0.0);
  // A view that needs no grad may still be written with a value that does.
  Tensor w = ones({2}, kDouble).requires_grad_(true);
  Tensor base = zeros({4}, kDouble);
  base.narrow(0, 0, 2).mul_(w);
  base.narrow(0, 0, 2).copy_(w * 3);
  base.narrow(0, 0, 2).mul_(2);  // the view now has history, its base too: allowed
  base.sum().backward();
  expect_values(w.grad(), {6, 6});
}

TEST(Inplace, InplaceOnNonLeafRewritesHistory) {
  Tensor x = tensor(std::vector<double>{1, 2}, kDouble).requires_grad_();
  Tensor y = x * 3;
  y.mul_(x);  // y = 3x^2, dy/dx = 6x
  EXPECT_EQ(y.grad_fn()->name(), "MulBackward0");
  y.sum().backward();
  expect_values(x.grad(), {6, 12});
}

TEST(Inplace, InplaceOpThatOverwritesItsOwnSavedOperandIsCaught) {
  // As in LibTorch: y.mul_(y) saves y as `other`, then overwrites it.
  Tensor x = tensor(std::vector<double>{1, 2}, kDouble).requires_grad_();
  Tensor y = x * 3;
  y.mul_(y);
  EXPECT_NE(message_of([&] { y.sum().backward(); }).find("modified by an inplace operation"),
            std::string::npos);
}

TEST(Inplace, InplaceOnViewUpdatesBase) {
  Tensor x = tensor(std::vector<double>{1, 2, 3, 4}, kDouble).requires_grad_();
  Tensor base = x * 1;
  Tensor v = base.narrow(0, 1, 2);
  v.mul_(10);  // base = [x0, 10 x1, 10 x2, x3]
  EXPECT_EQ(base.grad_fn()->name(), "CopySlices");
  (base * base).sum().backward();
  expect_values(x.grad(), {2, 400, 600, 8});
}

TEST(Inplace, CopyIntoViewOfPlainTensorMakesBaseRequireGrad) {
  Tensor w = tensor(std::vector<double>{5, 6}, kDouble).requires_grad_();
  Tensor buf = zeros({4}, kDouble);
  buf.narrow(0, 1, 2).copy_(w);
  EXPECT_TRUE(buf.requires_grad());
  (buf * tensor(std::vector<double>{1, 2, 3, 4}, kDouble)).sum().backward();
  expect_values(w.grad(), {2, 3});
}

TEST(Inplace, ViewSeesInplaceChangeOfBase) {
  Tensor x = tensor(std::vector<double>{1, 2, 3}, kDouble).requires_grad_();
  Tensor base = x * 1;
  Tensor v = base.narrow(0, 0, 2);
  base.mul_(2);
  EXPECT_EQ(v.grad_fn()->name(), "AsStridedBackward0");
  v.sum().backward();
  expect_values(x.grad(), {2, 2, 0});
}

namespace {
// An in-place op whose formula reads its result (sigmoid_, tanh_, exp_, sqrt_) must give the same
// second derivatives as the out-of-place op: the saved result belongs to the in-place node.
TEST(InplaceCreateGraph, SecondDerivativeThroughSavedResult) {
  for (const char* op : {"sigmoid", "tanh", "exp", "sqrt"}) {
    SCOPED_TRACE(op);
    auto apply = [&](const Tensor& t, bool in_place) -> Tensor {
      const std::string name = op;
      if (name == "sigmoid") return in_place ? t.sigmoid_() : t.sigmoid();
      if (name == "tanh") return in_place ? t.tanh_() : t.tanh();
      if (name == "exp") return in_place ? t.exp_() : t.exp();
      return in_place ? t.sqrt_() : t.sqrt();
    };
    Tensor grads[2];
    for (int in_place = 0; in_place < 2; ++in_place) {
      Tensor x = tensor({0.3, 0.7, 1.9}, kDouble).requires_grad_();
      Tensor y = x * 1.0;  // a non-leaf, so in place is allowed
      y = apply(y, in_place);
      Tensor g = autograd::grad({y.sum()}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
      grads[in_place] = autograd::grad({g.sum()}, {x})[0];
    }
    EXPECT_TRUE(allclose(grads[0], grads[1], 1e-12, 1e-12)) << grads[0] << grads[1];
  }
}
}  // namespace
