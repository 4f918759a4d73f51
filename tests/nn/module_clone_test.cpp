// Cloneable::clone(): deep copies of parameters, buffers, gradients and submodules, with the
// copy's members (Tensor and holder) pointing into the copy, and no reset() required; a module
// holding a submodule through a std::shared_ptr member clones LibTorch's way, through reset().
#include <gtest/gtest.h>

#include "tests/nn/test_modules.h"

using namespace ember;
using ember_test::Leaf;
using ember_test::Tree;
using ember_test::TreeImpl;

namespace {

TEST(ModuleClone, DeepCopiesAndRepointsMembers) {
  Tree tree;
  tree(ones({2})).sum().backward();
  tree->eval();
  auto copy = std::dynamic_pointer_cast<TreeImpl>(tree->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_FALSE(copy->is_training());
  auto a = tree->named_parameters(), b = copy->named_parameters();
  ASSERT_EQ(a.keys(), b.keys());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_FALSE(a[i].value().is_same(b[i].value())) << a[i].key();
    EXPECT_NE(a[i].value().data_ptr(), b[i].value().data_ptr()) << a[i].key();
    EXPECT_TRUE(b[i].value().requires_grad());
    EXPECT_TRUE(b[i].value().grad().defined()) << "gradients are cloned, as LibTorch";
  }
  // members of the copy point into the copy
  EXPECT_TRUE(copy->scale.is_same(copy->named_parameters()["scale"]));
  EXPECT_EQ(copy->first.get(), copy->get_submodule("first").get());
  EXPECT_TRUE(copy->first->w.is_same(copy->get_parameter("first.w")));
  // and changing the copy leaves the original alone
  {
    NoGradGuard g;
    copy->first->w.fill_(5.0);
  }
  EXPECT_EQ(tree->first->w.sum().item<float>(), 2.f);
  EXPECT_EQ(copy->forward(ones({2})).sum().item<float>(), 3 * 5 * 2.f);
}

struct PlainImpl : nn::Module {
  Tensor forward(const Tensor& x) { return x; }
};
EMBER_MODULE(Plain);

struct SharedPtrMemberImpl : nn::Cloneable<SharedPtrMemberImpl> {
  SharedPtrMemberImpl() {
    leaf = register_module("leaf", std::make_shared<ember_test::LeafImpl>());
  }
  std::shared_ptr<ember_test::LeafImpl> leaf;
};

TEST(ModuleClone, ClearErrors) {
  Plain plain;
  try {
    plain->clone();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Cloneable"), std::string::npos) << e.what();
  }
  auto m = std::make_shared<SharedPtrMemberImpl>();
  try {
    m->clone();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("std::shared_ptr member"), std::string::npos) << e.what();
  }
}

// LibTorch's own pattern: a std::shared_ptr member, (re)made in reset().
struct ResetNetImpl : nn::Cloneable<ResetNetImpl> {
  ResetNetImpl() { reset(); }
  void reset() override {
    fc = register_module("fc", std::make_shared<nn::LinearImpl>(3, 2));
    body = register_module("body", std::make_shared<nn::SequentialImpl>(nn::Linear(2, 2)));
    scale = register_parameter("scale", ones({1}));
    register_buffer("steps", zeros({1}, kLong));
  }
  Tensor forward(const Tensor& x) { return body->forward(fc->forward(x)) * scale; }
  std::shared_ptr<nn::LinearImpl> fc;
  std::shared_ptr<nn::SequentialImpl> body;
  Tensor scale;
};

TEST(ModuleClone, SharedPtrMembersCloneThroughReset) {
  auto net = std::make_shared<ResetNetImpl>();
  {
    NoGradGuard g;
    net->fc->weight.fill_(0.5);
    net->scale.fill_(3);
    net->named_buffers()["steps"].fill_(7);
  }
  net->forward(ones({1, 3})).sum().backward();
  net->body->eval();
  auto copy = std::dynamic_pointer_cast<ResetNetImpl>(net->clone());
  ASSERT_NE(copy, nullptr);
  // Members point into the copy; values, flags and gradients are the original's.
  EXPECT_NE(copy->fc.get(), net->fc.get());
  EXPECT_EQ(copy->fc.get(), copy->get_submodule("fc").get());
  EXPECT_TRUE(copy->scale.is_same(copy->named_parameters()["scale"]));
  EXPECT_TRUE(copy->fc->weight.is_same(copy->get_parameter("fc.weight")));
  EXPECT_EQ(copy->named_parameters().keys(), net->named_parameters().keys());
  const auto copied = copy->named_parameters();
  for (const auto& item : net->named_parameters()) {
    const Tensor& mine = copied[item.key()];
    EXPECT_NE(mine.data_ptr(), item.value().data_ptr()) << item.key();
    EXPECT_TRUE(mine.equal(item.value())) << item.key();
    EXPECT_TRUE(mine.requires_grad()) << item.key();
    ASSERT_TRUE(mine.grad().defined()) << item.key();
    EXPECT_TRUE(mine.grad().equal(item.value().grad())) << item.key();
  }
  EXPECT_EQ(copy->named_buffers()["steps"].item<int64_t>(), 7);
  EXPECT_TRUE(copy->is_training());
  EXPECT_FALSE(copy->body->is_training());
  EXPECT_TRUE(copy->forward(ones({1, 3})).equal(net->forward(ones({1, 3}))));
  {
    NoGradGuard g;
    copy->fc->weight.fill_(-1);
  }
  EXPECT_EQ(net->fc->weight.sum().item<float>(), 3.f);
}

// A reset() that does not re-create what the constructor registered is named in the error.
struct HalfResetImpl : nn::Cloneable<HalfResetImpl> {
  HalfResetImpl() {
    reset();
    register_parameter("extra", ones({1}));
  }
  void reset() override {
    leaf = register_module("leaf", std::make_shared<ember_test::LeafImpl>());
  }
  std::shared_ptr<ember_test::LeafImpl> leaf;
};

TEST(ModuleClone, ResetThatMissesAParameterIsAnError) {
  auto m = std::make_shared<HalfResetImpl>();
  try {
    m->clone();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("extra"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("reset()"), std::string::npos) << e.what();
  }
}

}  // namespace
