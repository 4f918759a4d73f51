// Tensor hooks, retain_grad, post-accumulate hooks and node hooks.
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

namespace {
double first(const Tensor& t) { return t.to(kDouble).contiguous().data_ptr<double>()[0]; }
}  // namespace

TEST(Hooks, LeafHookRewritesGradient) {
  Tensor x = ones({2}, kDouble).requires_grad_();
  x.register_hook([](Tensor g) { return g * 10; });
  (x * 2).sum().backward();
  EXPECT_EQ(first(x.grad()), 20);
}

TEST(Hooks, NonLeafHookSeesAndRewritesGradient) {
  Tensor x = ones({2}, kDouble).requires_grad_();
  Tensor y = x * 3;
  double seen = 0;
  y.register_hook([&](Tensor g) { seen = first(g); });
  unsigned h = y.register_hook([](Tensor g) { return g * 2; });
  (y * 5).sum().backward({}, true);
  EXPECT_EQ(seen, 5);
  EXPECT_EQ(first(x.grad()), 30);
  y.remove_hook(h);
  x.mutable_grad() = Tensor();
  (y * 5).sum().backward();
  EXPECT_EQ(first(x.grad()), 15);
}

TEST(Hooks, RetainGradKeepsNonLeafGradient) {
  Tensor x = ones({2}, kDouble).requires_grad_();
  Tensor y = x * 3;
  y.retain_grad();
  EXPECT_TRUE(y.retains_grad());
  (y * y).sum().backward();
  EXPECT_EQ(first(y.grad()), 6);
  Tensor z = x * 2;
  EXPECT_FALSE(z.grad().defined());
}

TEST(Hooks, PostAccumulateHookRunsAfterGradIsSet) {
  Tensor x = ones({2}, kDouble).requires_grad_();
  double seen = -1;
  x.register_post_accumulate_grad_hook([&](const Tensor& p) { seen = first(p.grad()); });
  (x * 7).sum().backward();
  EXPECT_EQ(seen, 7);
}

TEST(Hooks, NodeHooksSeeGradients) {
  Tensor x = ones({2}, kDouble).requires_grad_();
  Tensor y = x * 4;
  int pre = 0, post = 0;
  y.grad_fn()->register_prehook([&](const autograd::variable_list& g) {
    ++pre;
    return std::optional<autograd::variable_list>();
  });
  y.grad_fn()->register_hook(
      [&](const autograd::variable_list& in, const autograd::variable_list&) {
        ++post;
        return std::optional<autograd::variable_list>(autograd::variable_list{in[0] * 0, Tensor()});
      });
  y.sum().backward();
  EXPECT_EQ(pre, 1);
  EXPECT_EQ(post, 1);
  EXPECT_EQ(first(x.grad()), 0);
}

TEST(Hooks, HookOnTensorWithoutGradThrows) {
  Tensor x = ones({2});
  EXPECT_THROW(x.register_hook([](Tensor g) { return g; }), Error);
}
