// Factories: dtypes and values as LibTorch gives them, reproducible randomness, from_blob
// ownership.
#include <gtest/gtest.h>

#include <algorithm>

#include "ember/ember.h"

using namespace ember;

TEST(Factory, OnesDefaultsToFloatAndFullInfersFromTheValue) {
  EXPECT_EQ(ones({2}).dtype(), kFloat);
  EXPECT_EQ(full({2}, 7).dtype(), kLong);
  EXPECT_EQ(full({2}, 7.5).dtype(), kFloat);
  EXPECT_EQ(full({2}, true).dtype(), kBool);
  EXPECT_EQ(full({1}, 7, kLong).item<int64_t>(), 7);
  EXPECT_EQ(zeros({3}, TensorOptions().dtype(kDouble)).dtype(), kDouble);
}

TEST(Factory, FullKeepsLargeInt64Exact) {
  const int64_t big = (int64_t(1) << 53) + 1;
  EXPECT_EQ(full({1}, big, kLong).item<int64_t>(), big);
}

TEST(Factory, ArangeInfersDtypeAndLength) {
  Tensor a = arange(5);
  EXPECT_EQ(a.dtype(), kLong);
  EXPECT_EQ(a.numel(), 5);
  EXPECT_EQ(a[4].item<int64_t>(), 4);
  Tensor b = arange(0, 1, 0.25);
  EXPECT_EQ(b.dtype(), kFloat);
  EXPECT_EQ(b.numel(), 4);
  EXPECT_FLOAT_EQ(b[3].item<float>(), 0.75f);
  EXPECT_EQ(arange(10, 0, -3).numel(), 4);  // 10 7 4 1
  EXPECT_THROW(arange(0, 5, 0), ValueError);
  EXPECT_THROW(arange(5, 0, 1), ValueError);
}

TEST(Factory, LinspaceHitsBothEnds) {
  Tensor t = linspace(-1, 1, 7, kDouble);
  EXPECT_EQ(t.numel(), 7);
  EXPECT_DOUBLE_EQ(t[0].item<double>(), -1.0);
  EXPECT_DOUBLE_EQ(t[6].item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(t[3].item<double>(), 0.0);
  EXPECT_DOUBLE_EQ(logspace(0, 2, 3, 10.0, kDouble)[2].item<double>(), 100.0);
}

TEST(Factory, EyeIsIdentity) {
  Tensor e = eye(3, 4);
  EXPECT_EQ(e.sizes(), IntArrayRef({3, 4}));
  EXPECT_EQ(e.sum().item<float>(), 3.0f);
  EXPECT_EQ((e.accessor<float, 2>()[2][2]), 1.0f);
  EXPECT_EQ((e.accessor<float, 2>()[2][3]), 0.0f);
}

TEST(Factory, ManualSeedMakesRandomReproducible) {
  manual_seed(42);
  Tensor a = randn({100});
  Tensor u = rand({100});
  manual_seed(42);
  Tensor b = randn({100});
  Tensor v = rand({100});
  EXPECT_TRUE(equal(a, b));
  EXPECT_TRUE(equal(u, v));
  EXPECT_FALSE(equal(a, randn({100})));
}

TEST(Factory, RandomValuesHaveTheRightDistributionShape) {
  manual_seed(0);
  Tensor u = rand({100000}, kDouble);
  EXPECT_GE(u.min().item<double>(), 0.0);
  EXPECT_LT(u.max().item<double>(), 1.0);
  EXPECT_NEAR(u.mean().item<double>(), 0.5, 0.01);
  Tensor n = randn({100000}, kDouble);
  EXPECT_NEAR(n.mean().item<double>(), 0.0, 0.02);
  EXPECT_NEAR(n.std().item<double>(), 1.0, 0.02);
  Tensor r = randint(3, 7, {1000});
  EXPECT_EQ(r.dtype(), kLong);
  EXPECT_EQ(r.min().item<int64_t>(), 3);
  EXPECT_EQ(r.max().item<int64_t>(), 6);
}

TEST(Factory, RandpermIsAPermutation) {
  Tensor p = randperm(1000);
  EXPECT_EQ(p.dtype(), kLong);
  std::vector<int64_t> v(p.data_ptr<int64_t>(), p.data_ptr<int64_t>() + 1000);
  std::sort(v.begin(), v.end());
  for (int64_t i = 0; i < 1000; ++i) ASSERT_EQ(v[i], i);
}

TEST(Factory, InPlaceRandomFillsRespectBounds) {
  manual_seed(1);
  Tensor t = empty({1000}).uniform_(-2, 3);
  EXPECT_GE(t.min().item<float>(), -2.0f);
  EXPECT_LT(t.max().item<float>(), 3.0f);
  Tensor b = empty({1000}).bernoulli_(0.3);
  EXPECT_TRUE(equal(b, b.round()));
  EXPECT_NEAR(b.mean().item<float>(), 0.3, 0.06);
  EXPECT_THROW(empty({3}).normal_(0, -1), ValueError);
  EXPECT_THROW(empty({3}).uniform_(2, 1), ValueError);
}

TEST(Factory, FromBlobSharesMemoryAndCallsTheDeleter) {
  float data[6] = {1, 2, 3, 4, 5, 6};
  Tensor t = from_blob(data, {2, 3});
  EXPECT_EQ(t.data_ptr<float>(), data);
  t.mul_(2);
  EXPECT_EQ(data[5], 12.0f);
  bool deleted = false;
  {
    auto* heap = new double[4]{1, 2, 3, 4};
    Tensor owned = from_blob(
        heap, {4},
        [&](void* p) {
          delete[] static_cast<double*>(p);
          deleted = true;
        },
        kDouble);
    Tensor view = owned.slice(0, 1, 3);
    owned.reset();
    EXPECT_FALSE(deleted);  // the view keeps the storage alive
    EXPECT_EQ(view[0].item<double>(), 2.0);
  }
  EXPECT_TRUE(deleted);
}

TEST(Factory, NestedInitializerListsInferShapeAndDtype) {
  Tensor a = tensor({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(a.dtype(), kLong);
  EXPECT_EQ(a.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ((a.accessor<int64_t, 2>()[1][2]), 6);
  EXPECT_EQ(tensor({1.5, 2.0}).dtype(), kFloat);
  EXPECT_EQ(tensor({true, false}).dtype(), kBool);
  EXPECT_EQ(tensor({1, 2}, kDouble).dtype(), kDouble);
  EXPECT_EQ(tensor(3.5).dim(), 0);
  EXPECT_EQ(tensor(std::vector<float>{1, 2, 3}).numel(), 3);
  EXPECT_THROW(tensor({{1, 2}, {3}}), ValueError);
}

TEST(Factory, LikeFactoriesCopyDtypeUnlessOverridden) {
  Tensor a = zeros({2, 2}, kDouble);
  EXPECT_EQ(ones_like(a).dtype(), kDouble);
  EXPECT_EQ(ones_like(a, kInt).dtype(), kInt);
  EXPECT_EQ(full_like(a, 3).sum().item<double>(), 12.0);
}

TEST(Factory, NegativeSizeIsAValueErrorNamingTheOp) {
  try {
    empty({2, -1});
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("negative dimension -1"), std::string::npos) << e.what();
  }
}
