// Module registries, traversal order, names, train/eval, zero_grad, to() and printing.
#include <gtest/gtest.h>

#include <sstream>

#include "ember/ember.h"
#include "ember/nn.h"
#include "tests/nn/test_modules.h"

using namespace ember;

namespace {

using ember_test::Leaf;
using ember_test::LeafImpl;
using ember_test::Tree;
using ember_test::TreeImpl;

std::vector<std::string> keys_of(const OrderedDict<std::string, Tensor>& d) { return d.keys(); }

TEST(ModuleRegistry, NamedParametersArePreOrderWithDottedNames) {
  Tree tree;
  EXPECT_EQ(keys_of(tree->named_parameters()),
            (std::vector<std::string>{"scale", "first.w", "first.b", "second.w", "second.b"}));
  EXPECT_EQ(keys_of(tree->named_parameters(/*recurse=*/false)), std::vector<std::string>{"scale"});
  EXPECT_EQ(keys_of(tree->named_buffers()),
            (std::vector<std::string>{"first.running", "first.scratch", "second.running",
                                      "second.scratch"}));
  EXPECT_EQ(tree->parameters().size(), 5u);
  EXPECT_EQ(tree->named_modules().keys(), (std::vector<std::string>{"", "first", "second"}));
  EXPECT_EQ(tree->named_modules("net", false).keys(),
            (std::vector<std::string>{"net.first", "net.second"}));
  EXPECT_EQ(tree->named_children().keys(), (std::vector<std::string>{"first", "second"}));
}

TEST(ModuleRegistry, SharedModulesAndTensorsAreVisitedOnce) {
  auto root = std::make_shared<nn::Module>();
  Leaf shared(2);
  root->register_module("a", shared);
  root->register_module("b", shared);
  EXPECT_EQ(root->named_parameters().keys(), (std::vector<std::string>{"a.w", "a.b"}));
  EXPECT_EQ(root->modules().size(), 2u);
  // state_dict follows Python: a shared module appears under each name.
  EXPECT_EQ(root->state_dict().keys(),
            (std::vector<std::string>{"a.w", "a.b", "a.running", "b.w", "b.b", "b.running"}));
}

TEST(ModuleRegistry, BadNamesAreRejected) {
  nn::Module m;
  m.register_parameter("x", zeros({1}));
  EXPECT_THROW(m.register_parameter("", zeros({1})), ValueError);
  try {
    m.register_buffer("a.b", zeros({1}));
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("contains '.'"), std::string::npos) << e.what();
  }
  try {
    m.register_module("x", Leaf(1));
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("'x' is already a parameter"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(m.register_parameter("i", zeros({1}, kLong)), ValueError);
  EXPECT_NO_THROW(m.register_parameter("i", zeros({1}, kLong), /*requires_grad=*/false));
}

TEST(ModuleRegistry, UndefinedParameterIsRegisteredButSkipped) {
  nn::Module m;
  m.register_parameter("bias", Tensor());
  EXPECT_TRUE(m.named_parameters().is_empty());
  EXPECT_TRUE(m.state_dict().is_empty());
  EXPECT_THROW(m.register_parameter("bias", zeros({1})), ValueError);
}

TEST(ModuleRegistry, ReplaceAndUnregisterModule) {
  Tree tree;
  auto fresh = std::make_shared<LeafImpl>(2);
  tree->replace_module("first", fresh);
  EXPECT_EQ(tree->get_submodule("first").get(), fresh.get());
  tree->unregister_module("second");
  EXPECT_EQ(tree->named_children().keys(), std::vector<std::string>{"first"});
  EXPECT_THROW(tree->unregister_module("second"), ValueError);
  EXPECT_THROW(tree->replace_module("nope", fresh), ValueError);
}

TEST(ModuleRegistry, GetSubmoduleParameterBuffer) {
  auto outer = std::make_shared<nn::Module>();
  Tree tree;
  outer->register_module("tree", tree);
  EXPECT_EQ(outer->get_submodule("tree.first").get(), tree->first.get());
  EXPECT_TRUE(outer->get_parameter("tree.first.w").is_same(tree->first->w));
  EXPECT_TRUE(outer->get_buffer("tree.second.running").defined());
  EXPECT_EQ(outer->get_submodule("").get(), outer.get());
  try {
    outer->get_submodule("tree.third.x");
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("no submodule 'third'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(outer->get_parameter("tree.first.running"), ValueError);
}

TEST(ModuleRegistry, TrainEvalPropagates) {
  Tree tree;
  tree->eval();
  EXPECT_FALSE(tree->is_training());
  EXPECT_FALSE(tree->first->is_training());
  tree->train();
  EXPECT_TRUE(tree->second->is_training());
}

TEST(ModuleRegistry, ZeroGradSetsToNoneOrZeros) {
  Leaf leaf(3);
  leaf(ones({3})).sum().backward();
  ASSERT_TRUE(leaf->w.grad().defined());
  leaf->zero_grad(/*set_to_none=*/false);
  EXPECT_TRUE(leaf->w.grad().defined());
  EXPECT_EQ(leaf->w.grad().abs().sum().item<float>(), 0.f);
  leaf->zero_grad();
  EXPECT_FALSE(leaf->w.grad().defined());
}

TEST(ModuleRegistry, ToKeepsHandlesValid) {
  Tree tree;
  Tensor w = tree->first->w;  // a handle the user holds
  tree->first(ones({2})).sum().backward();
  tree->to(kDouble);
  EXPECT_EQ(w.scalar_type(), kDouble);
  EXPECT_EQ(tree->first->w.scalar_type(), kDouble);
  EXPECT_EQ(w.grad().scalar_type(), kDouble);
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());
  EXPECT_TRUE(tree->named_parameters()["first.w"].is_same(w));
  // integer buffers keep their dtype (as PyTorch)
  nn::Module m;
  m.register_buffer("count", zeros({1}, kLong));
  m.to(kFloat);
  EXPECT_EQ(m.get_buffer("count").scalar_type(), kLong);
  EXPECT_THROW(m.to(kLong), TypeError);
  // a forward after the cast works in the new dtype
  Tensor y = tree(ones({2}, kDouble));
  EXPECT_EQ(y.scalar_type(), kDouble);
}

TEST(ModuleRegistry, PrintsTheTree) {
  Tree tree;
  std::ostringstream s;
  s << *tree;
  // name() is the demangled class name, as LibTorch's.
  const std::string ns = "ember_test::";
  EXPECT_EQ(s.str(),
            ns + "TreeImpl(\n  (first): " + ns + "LeafImpl\n  (second): " + ns + "LeafImpl\n)");
  nn::Module named("Custom");
  EXPECT_EQ(named.name(), "Custom");
}

TEST(ModuleRegistry, AsCastsToTheImpl) {
  Tree tree;
  std::shared_ptr<nn::Module> base = tree.ptr();
  EXPECT_EQ(base->as<Tree>(), tree.get());
  EXPECT_EQ(base->as<TreeImpl>(), tree.get());
  EXPECT_EQ(base->as<Leaf>(), nullptr);
}

TEST(ModuleRegistry, EmptyHolderThrows) {
  Leaf empty = nullptr;
  EXPECT_TRUE(empty.is_empty());
  EXPECT_THROW(empty->forward(ones({1})), Error);
}

}  // namespace
