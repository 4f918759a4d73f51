// Cloneable::clone(): deep copies of parameters, buffers, gradients and submodules, with the
// copy's members (Tensor and holder) pointing into the copy, and no reset() required.
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

}  // namespace
