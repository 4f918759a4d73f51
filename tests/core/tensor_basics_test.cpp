#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ember/ember.h"

using namespace ember;

TEST(TensorBasics, ZerosHaveShapeDtypeAndValues) {
  Tensor t = zeros({2, 3});
  EXPECT_EQ(t.dim(), 2);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.dtype(), kFloat);
  EXPECT_TRUE(t.is_contiguous());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t.data_ptr<float>()[i], 0.0f);
}

TEST(TensorBasics, AddBroadcastsAndPromotes) {
  Tensor a = tensor({{1, 2, 3}, {4, 5, 6}});
  Tensor b = tensor({0.5, 1.5, 2.5});
  Tensor c = a + b;
  EXPECT_EQ(c.dtype(), kFloat);
  EXPECT_EQ(c.sizes(), IntArrayRef({2, 3}));
  EXPECT_FLOAT_EQ(c.data_ptr<float>()[5], 8.5f);
  EXPECT_EQ(a.dtype(), kLong);
}

TEST(TensorBasics, ShapeMismatchNamesOpAndShapes) {
  Tensor a = zeros({2, 3});
  Tensor b = zeros({4});
  try {
    (void)(a + b);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("add"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[2, 3]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[4]"), std::string::npos) << msg;
  }
}

TEST(TensorBasics, UndefinedTensorAccessorsThrowInsteadOfCrashing) {
  // LibTorch: scalar_type() of an undefined tensor is Undefined; the geometry has none to give.
  const ember::Tensor t;
  EXPECT_EQ(t.scalar_type(), ember::ScalarType::Undefined);
  EXPECT_EQ(t.dtype(), ember::ScalarType::Undefined);
  for (auto [what, call] : std::vector<std::pair<const char*, std::function<void()>>>{
           {"dim", [&] { (void)t.dim(); }},
           {"numel", [&] { (void)t.numel(); }},
           {"sizes", [&] { (void)t.sizes(); }},
           {"strides", [&] { (void)t.strides(); }},
           {"device", [&] { (void)t.device(); }},
           {"is_contiguous", [&] { (void)t.is_contiguous(); }},
           {"storage_offset", [&] { (void)t.storage_offset(); }}}) {
    try {
      call();
      ADD_FAILURE() << what << " did not throw";
    } catch (const ember::Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(what) + ": called on an undefined tensor"),
                std::string::npos)
          << e.what();
    }
  }
}
