// The optimizer base (src/optim/optimizer.cpp): param groups and their options, zero_grad's two
// modes, the parameter checks of add_param_group, parameters()/size(), and the options base class.
// SGD is the concrete optimizer used to drive them.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/optim/sgd.h"
#include "tests/support/expect_error.h"

using namespace ember;
using namespace ember::optim;

namespace {

using ember_test::expect_error;

// Gives p the gradient of sum(p * p * 0.5) = p, computed by backward.
void backward_identity(const Tensor& p, bool create_graph = false) {
  (p * p * 0.5).sum().backward({}, std::nullopt, create_graph);
}

}  // namespace

TEST(Optimizer, ZeroGradSetsToNoneByDefault) {
  Tensor p = full({3}, 2.0).requires_grad_();
  SGD opt({p}, SGDOptions(0.1));
  backward_identity(p);
  ASSERT_TRUE(p.grad().defined());
  opt.zero_grad();
  EXPECT_FALSE(p.grad().defined());
  opt.zero_grad();  // no gradient: nothing to do
  EXPECT_FALSE(p.grad().defined());
  // With set_to_none, the next backward starts afresh instead of accumulating.
  backward_identity(p);
  EXPECT_TRUE(p.grad().equal(full({3}, 2.0)));
}

TEST(Optimizer, ZeroGradInPlaceZeroesAndDetaches) {
  Tensor p = full({3}, 2.0).requires_grad_();
  SGD opt({p}, SGDOptions(0.1));
  backward_identity(p, /*create_graph=*/true);
  ASSERT_TRUE(p.grad().defined());
  ASSERT_TRUE(p.grad().requires_grad());  // a gradient with history
  Tensor before = p.grad();
  opt.zero_grad(/*set_to_none=*/false);
  ASSERT_TRUE(p.grad().defined());
  EXPECT_TRUE(p.grad().is_same(before));  // the same tensor, zeroed in place
  EXPECT_TRUE(p.grad().equal(zeros({3})));
  EXPECT_FALSE(p.grad().requires_grad());
  EXPECT_FALSE(p.grad().grad_fn());
  backward_identity(p);
  EXPECT_TRUE(p.grad().equal(full({3}, 2.0)));  // accumulated into the zeros
}

TEST(Optimizer, GroupsWithoutOptionsGetACopyOfTheDefaults) {
  Tensor a = zeros({2}).requires_grad_(), b = zeros({3}).requires_grad_();
  Tensor c = zeros({4}).requires_grad_();
  SGD opt(
      std::vector<OptimizerParamGroup>{
          OptimizerParamGroup({a, b}),
          OptimizerParamGroup({c}, std::make_unique<SGDOptions>(SGDOptions(0.01)))},
      SGDOptions(0.1).momentum(0.9));
  ASSERT_EQ(opt.param_groups().size(), 2u);
  EXPECT_TRUE(opt.param_groups()[0].has_options());
  auto& g0 = static_cast<SGDOptions&>(opt.param_groups()[0].options());
  auto& g1 = static_cast<SGDOptions&>(opt.param_groups()[1].options());
  EXPECT_TRUE(g0 == SGDOptions(0.1).momentum(0.9));
  EXPECT_TRUE(g1 == SGDOptions(0.01));
  g0.lr(5);  // the group's copy, not the defaults
  EXPECT_DOUBLE_EQ(opt.defaults().get_lr(), 0.1);
  EXPECT_EQ(opt.size(), 3u);
  ASSERT_EQ(opt.parameters().size(), 2u);
  EXPECT_TRUE(opt.parameters()[0].is_same(a));
  EXPECT_TRUE(opt.parameters()[1].is_same(b));

  Tensor d = zeros({1}).requires_grad_();
  opt.add_param_group(OptimizerParamGroup({d}));
  EXPECT_EQ(opt.param_groups().size(), 3u);
  EXPECT_TRUE(static_cast<SGDOptions&>(opt.param_groups()[2].options()) ==
              SGDOptions(0.1).momentum(0.9));
  Tensor e = zeros({1}).requires_grad_();
  opt.add_parameters({e});
  EXPECT_EQ(opt.param_groups().size(), 3u);
  EXPECT_EQ(opt.parameters().size(), 3u);
  EXPECT_EQ(opt.size(), 5u);
}

TEST(Optimizer, ParamGroupCopiesOwnTheirOptions) {
  OptimizerParamGroup g({zeros({1})}, std::make_unique<SGDOptions>(SGDOptions(0.1)));
  OptimizerParamGroup copy(g);
  copy.options().set_lr(0.7);
  EXPECT_DOUBLE_EQ(g.options().get_lr(), 0.1);
  OptimizerParamGroup assigned(std::vector<Tensor>{});
  EXPECT_FALSE(assigned.has_options());
  expect_error<Error>([&] { assigned.options(); }, {"no options"});
  assigned = g;
  EXPECT_DOUBLE_EQ(assigned.options().get_lr(), 0.1);
  EXPECT_TRUE(assigned.params()[0].is_same(g.params()[0]));  // parameters are shared, not copied
}

TEST(Optimizer, AddParamGroupChecksParameters) {
  Tensor a = zeros({2}).requires_grad_();
  SGD opt({a}, SGDOptions(0.1));
  expect_error<ValueError>([&] { opt.add_param_group(OptimizerParamGroup({a})); },
                           {"some parameters appear in more than one parameter group"});
  Tensor b = zeros({2}).requires_grad_();
  expect_error<ValueError>(
      [&] {
        opt.add_param_group(OptimizerParamGroup({b, b}));
      },
      {"more than one parameter group", "parameter 1"});
  Tensor nonleaf = a * 2;
  expect_error<Error>([&] { opt.add_param_group(OptimizerParamGroup({nonleaf})); },
                      {"can't optimize a non-leaf Tensor", "[2]"});
  expect_error<Error>([&] { opt.add_param_group(OptimizerParamGroup({Tensor()})); }, {"undefined"});
  EXPECT_EQ(opt.param_groups().size(), 1u);  // nothing was added by the failed calls
  EXPECT_EQ(opt.size(), 1u);
}

TEST(Optimizer, BaseOptionsHaveNoLearningRate) {
  OptimizerOptions base;
  expect_error<Error>([&] { base.get_lr(); }, {"get_lr", "override"});
  expect_error<Error>([&] { base.set_lr(0.1); }, {"set_lr", "override"});
  EXPECT_NE(base.clone(), nullptr);
}

TEST(Optimizer, EmptyOptimizerHasNoParameters) {
  SGD opt(std::vector<OptimizerParamGroup>{}, SGDOptions(0.1));
  EXPECT_EQ(opt.size(), 0u);
  expect_error<Error>([&] { opt.parameters(); }, {"no param groups"});
  EXPECT_FALSE(opt.step().defined());
  opt.zero_grad();
}
