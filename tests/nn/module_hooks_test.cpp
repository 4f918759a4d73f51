// Module hooks with Python's semantics: forward pre-hooks and hooks (replacing inputs/outputs),
// order (global first, prepend), removal, direct forward() bypassing them, full backward hooks
// and backward pre-hooks.
#include <gtest/gtest.h>

#include "tests/nn/test_modules.h"

using namespace ember;
using ember::autograd::variable_list;
using ember_test::Leaf;
using ember_test::Tree;

namespace {

TEST(ModuleHooks, ForwardPreHookReplacesInputsAndForwardHookReplacesOutput) {
  Leaf leaf(2);
  leaf->register_forward_pre_hook([](nn::Module&, const std::vector<IValue>& in) {
    return std::optional<std::vector<IValue>>({in[0].toTensor() * 2});
  });
  leaf->register_forward_hook(
      [](nn::Module&, const std::vector<IValue>& in, const IValue& out) -> std::optional<IValue> {
        EXPECT_EQ(in[0].toTensor().sum().item<float>(), 4.f) << "hooks see the replaced inputs";
        return out.toTensor() + 100;
      });
  Tensor y = leaf(ones({2}));
  EXPECT_EQ(y.sum().item<float>(), 2 * 2 + 200.f);
  EXPECT_EQ(leaf->forward(ones({2})).sum().item<float>(), 2.f) << "->forward() bypasses hooks";
}

TEST(ModuleHooks, OrderGlobalFirstPrependAndRemoval) {
  Leaf leaf(1);
  std::vector<std::string> order;
  auto record = [&](std::string tag) {
    return [&order, tag](nn::Module&, const std::vector<IValue>&,
                         const IValue&) -> std::optional<IValue> {
      order.push_back(tag);
      return std::nullopt;
    };
  };
  auto h1 = leaf->register_forward_hook(record("a"));
  auto h2 = leaf->register_forward_hook(record("b"));
  auto h3 = leaf->register_forward_hook(record("first"), /*prepend=*/true);
  auto g = nn::register_module_forward_hook(record("global"));
  leaf(ones({1}));
  EXPECT_EQ(order, (std::vector<std::string>{"global", "first", "a", "b"}));
  order.clear();
  g.remove();
  h1.remove();
  h1.remove();  // harmless twice
  leaf(ones({1}));
  EXPECT_EQ(order, (std::vector<std::string>{"first", "b"}));
  h2.remove();
  h3.remove();
  EXPECT_FALSE(leaf->has_call_hooks());
}

TEST(ModuleHooks, HooksFireForSubmodulesCalledThroughHolders) {
  Tree tree;
  std::vector<std::string> names;
  auto g = nn::register_module_forward_pre_hook(
      [&](nn::Module& m, const std::vector<IValue>&) -> std::optional<std::vector<IValue>> {
        names.push_back(m.name());
        return std::nullopt;
      });
  tree(ones({2}));
  g.remove();
  EXPECT_EQ(names, (std::vector<std::string>{"ember_test::TreeImpl", "ember_test::LeafImpl",
                                             "ember_test::LeafImpl"}));
}

TEST(ModuleHooks, HandleOutlivesModule) {
  nn::RemovableHandle h;
  {
    Leaf leaf(1);
    h = leaf->register_forward_hook(
        [](nn::Module&, const std::vector<IValue>&, const IValue&) -> std::optional<IValue> {
          return std::nullopt;
        });
  }
  EXPECT_NO_THROW(h.remove());
}

TEST(ModuleHooks, FullBackwardHookSeesGradInputAndGradOutput) {
  Leaf leaf(3);  // y = x * w + b, w = 1
  variable_list seen_in, seen_out;
  leaf->register_full_backward_hook([&](nn::Module&, const variable_list& gin,
                                        const variable_list& gout) -> std::optional<variable_list> {
    seen_in = gin;
    seen_out = gout;
    return variable_list{gin[0] * 10};
  });
  Tensor x = ones({3}).requires_grad_();
  Tensor y = leaf(x);
  (y * full({3}, 2.0)).sum().backward();
  ASSERT_EQ(seen_out.size(), 1u);
  EXPECT_EQ(seen_out[0].sum().item<float>(), 6.f);
  ASSERT_EQ(seen_in.size(), 1u);
  EXPECT_EQ(seen_in[0].sum().item<float>(), 6.f);
  EXPECT_EQ(x.grad().sum().item<float>(), 60.f) << "the hook's grad_input replaced x's gradient";
  EXPECT_EQ(leaf->w.grad().sum().item<float>(), 6.f) << "parameters are not affected";
}

TEST(ModuleHooks, BackwardPreHookReplacesGradOutput) {
  Leaf leaf(2);
  leaf->register_full_backward_pre_hook(
      [](nn::Module&, const variable_list& gout) -> std::optional<variable_list> {
        return variable_list{gout[0] * 0.5};
      });
  Tensor x = ones({2}).requires_grad_();
  leaf(x).sum().backward();
  EXPECT_EQ(x.grad().sum().item<float>(), 1.f);
  EXPECT_EQ(leaf->b.grad().sum().item<float>(), 1.f);
}

TEST(ModuleHooks, BackwardHookWithoutInputGradGetsUndefinedGradInput) {
  Leaf leaf(2);
  int calls = 0;
  leaf->register_full_backward_hook([&](nn::Module&, const variable_list& gin,
                                        const variable_list& gout) -> std::optional<variable_list> {
    ++calls;
    EXPECT_EQ(gin.size(), 1u);
    EXPECT_FALSE(gin[0].defined());
    EXPECT_TRUE(gout[0].defined());
    return std::nullopt;
  });
  leaf(ones({2})).sum().backward();
  EXPECT_EQ(calls, 1);
}

TEST(ModuleHooks, NoBackwardNodesUnderNoGrad) {
  Leaf leaf(2);
  leaf->register_full_backward_hook(
      [](nn::Module&, const variable_list&, const variable_list&) -> std::optional<variable_list> {
        return std::nullopt;
      });
  NoGradGuard g;
  EXPECT_FALSE(leaf(ones({2})).requires_grad());
}

}  // namespace
