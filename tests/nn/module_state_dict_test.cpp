// state_dict / load_state_dict: keys, detaching, strict and non-strict loading, errors that list
// every problem, the module left untouched on failure, and the state_dict hooks.
#include <gtest/gtest.h>

#include "tests/nn/test_modules.h"

using namespace ember;
using ember_test::Leaf;
using ember_test::Tree;

namespace {

std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(StateDict, KeysSkipNonPersistentBuffersAndDetach) {
  Tree tree;
  nn::StateDict sd = tree->state_dict();
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"scale", "first.w", "first.b", "first.running",
                                                 "second.w", "second.b", "second.running"}));
  EXPECT_FALSE(sd["first.w"].requires_grad());
  EXPECT_EQ(sd["first.w"].data_ptr(), tree->first->w.data_ptr());  // shares memory
  EXPECT_TRUE(tree->state_dict("", /*keep_vars=*/true)["first.w"].is_same(tree->first->w));
  EXPECT_EQ(tree->state_dict("model.").keys()[0], "model.scale");
}

TEST(StateDict, LoadCopiesInPlace) {
  Tree a, b;
  {
    NoGradGuard g;
    b->first->w.fill_(7.0);
    b->get_buffer("second.running").fill_(-1.0);
  }
  Tensor handle = a->first->w;
  nn::IncompatibleKeys keys = a->load_state_dict(b->state_dict());
  EXPECT_TRUE(keys.empty());
  EXPECT_TRUE(handle.is_same(a->first->w));
  EXPECT_EQ(handle.sum().item<float>(), 14.f);
  EXPECT_EQ(a->get_buffer("second.running").sum().item<float>(), -2.f);
  EXPECT_TRUE(a->first->w.requires_grad());
  EXPECT_TRUE(a->first->w.is_leaf());
}

TEST(StateDict, LoadStrictReportsMissingAndUnexpectedKeysAtOnce) {
  Tree a;
  nn::StateDict sd = a->state_dict();
  sd.erase("first.b");
  sd.erase("scale");
  sd.insert("first.extra", zeros({1}));
  sd.insert("ghost.w", zeros({1}));
  std::string msg = message_of([&] { a->load_state_dict(sd); });
  EXPECT_NE(msg.find("Missing key(s) in state_dict: \"scale\", \"first.b\"."), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("Unexpected key(s) in state_dict: \"ghost.w\", \"first.extra\"."),
            std::string::npos)
      << msg;
  nn::IncompatibleKeys keys = a->load_state_dict(sd, /*strict=*/false);
  EXPECT_EQ(keys.missing_keys, (std::vector<std::string>{"scale", "first.b"}));
  // Python's order: the root's own unexpected keys, then each child's.
  EXPECT_EQ(keys.unexpected_keys, (std::vector<std::string>{"ghost.w", "first.extra"}));
}

TEST(StateDict, FailedLoadLeavesTheModuleUntouched) {
  Tree a, b;
  {
    NoGradGuard g;
    for (Tensor& p : b->parameters()) p.fill_(5.0);
  }
  nn::StateDict sd = b->state_dict();
  sd.insert_or_assign("second.w", zeros({3}));          // wrong shape
  sd.insert_or_assign("first.b", zeros({2}, kDouble));  // wrong dtype
  sd.erase("scale");
  std::string msg = message_of([&] { a->load_state_dict(sd, /*strict=*/false); });
  EXPECT_NE(msg.find("size mismatch for second.w: copying a param with shape [3] from "
                     "checkpoint, the shape in current model is [2]."),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("dtype mismatch for first.b"), std::string::npos) << msg;
  EXPECT_EQ(a->first->w.sum().item<float>(), 2.f) << "first.w was valid but must not be loaded";
  msg = message_of([&] { a->load_state_dict(sd); });
  EXPECT_NE(msg.find("Missing key(s) in state_dict: \"scale\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("size mismatch"), std::string::npos) << msg;
}

TEST(StateDict, LoadPreHookCanRenameKeys) {
  Leaf leaf(2);
  leaf->register_load_state_dict_pre_hook(
      [](nn::Module&, nn::StateDict& sd, const std::string& prefix, bool, auto&, auto&, auto&) {
        if (sd.contains(prefix + "weight")) {
          sd.insert(prefix + "w", sd[prefix + "weight"]);
          sd.erase(prefix + "weight");
        }
      });
  nn::StateDict old;
  old.insert("weight", full({2}, 4.0));
  old.insert("b", zeros({2}));
  old.insert("running", zeros({2}));
  EXPECT_TRUE(leaf->load_state_dict(old).empty());
  EXPECT_EQ(leaf->w.sum().item<float>(), 8.f);
}

TEST(StateDict, LoadPostHookCanForgiveKeysAndFailureRollsBack) {
  Tree a;
  nn::StateDict sd = a->state_dict();
  for (auto& item : sd) item.value() = item.value().clone().fill_(9.0);
  sd.erase("second.b");
  bool saw_loaded_value = false;
  auto h = a->register_load_state_dict_post_hook([&](nn::Module& m, nn::IncompatibleKeys& keys) {
    saw_loaded_value = m.get_parameter("first.w").sum().item<float>() == 18.f;
    keys.missing_keys.clear();
  });
  EXPECT_TRUE(a->load_state_dict(sd).empty());
  EXPECT_TRUE(saw_loaded_value) << "post hooks see the loaded values, as in Python";
  h.remove();
  Tree fresh;
  fresh->register_load_state_dict_post_hook([](nn::Module&, nn::IncompatibleKeys&) {});
  EXPECT_THROW(fresh->load_state_dict(sd), Error);
  EXPECT_EQ(fresh->first->w.sum().item<float>(), 2.f) << "rolled back";
}

TEST(StateDict, StateDictHooks) {
  Tree tree;
  std::vector<std::string> order;
  tree->register_state_dict_pre_hook(
      [&](nn::Module&, const std::string& prefix, bool) { order.push_back("pre:" + prefix); });
  tree->first->register_state_dict_pre_hook(
      [&](nn::Module&, const std::string& prefix, bool) { order.push_back("pre:" + prefix); });
  auto h =
      tree->register_state_dict_post_hook([&](nn::Module&, nn::StateDict& sd, const std::string&) {
        order.push_back("post");
        sd.erase("scale");
      });
  EXPECT_FALSE(tree->state_dict().contains("scale"));
  EXPECT_EQ(order, (std::vector<std::string>{"pre:", "pre:first.", "post"}));
  h.remove();
  EXPECT_TRUE(tree->state_dict().contains("scale"));
}

}  // namespace
