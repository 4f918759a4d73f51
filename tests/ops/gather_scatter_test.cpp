// The gather/scatter family (index_select, gather, take, scatter, scatter_add, index_add,
// masked_fill, masked_select, nonzero): shapes, every dtype, duplicates, broadcasting, inputs
// large enough to split over threads, and each error's message. Golden data: indexing_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "ember/ember.h"
#include "tests/ops/indexing_test_util.h"
#include "tests/support/expect_error.h"
#include "tests/support/golden.h"

using namespace ember;
using namespace ember::indexing;
using namespace indexing_test;

namespace {

using ember_test::expect_error;

// ---- index_select / gather / take ----

TEST(IndexOps, IndexSelectDimsDtypesAndErrors) {
  Tensor x = ar({3, 4}).t();  // [4, 3] non-contiguous
  expect_close(index_select(x, 1, idx({2, 0})), x.contiguous().index({Slice(), idx({2, 0})}),
               "index_select strided");
  EXPECT_EQ(vec(x.index_select(0, idx({})).sizes()), V({0, 3}));
  EXPECT_EQ(full({}, 3.0).index_select(0, idx({0})).dim(), 0);
  EXPECT_EQ(full({}, 3.0).index_select(0, full({}, 0, kLong)).item<float>(), 3);
  EXPECT_EQ(vec(ar({3}).index_select(0, full({}, 1, kLong)).sizes()), V({1}));
  for (ScalarType dt : kAllTypes) {
    SCOPED_TRACE(to_string(dt));
    Tensor l = ar({3, 4}, kLong);
    expect_close(l.to(dt).index_select(1, idx({3, 3, 0})), l.index_select(1, idx({3, 3, 0})).to(dt),
                 "index_select");
  }
  expect_error<IndexError>(
      [&] { x.index_select(0, idx({4})); },
      {"index_select", "index 4 is out of bounds for dimension 0 with size 4"});
  expect_error<IndexError>([&] { x.index_select(0, idx({-1})); },
                           {"index_select", "index -1 is out of bounds"});
  expect_error<IndexError>(
      [&] {
        x.index_select(0, idx({0, 1}).view({1, 2}));
      },
      {"index_select", "index is supposed to be a vector, got shape [1, 2]"});
  expect_error<TypeError>([&] { x.index_select(0, idx({0}).to(kInt)); },
                          {"index_select", "expected an int64 index tensor, got int32"});
  expect_error<IndexError>([&] { x.index_select(2, idx({0})); },
                           {"index_select", "dimension out of range"});
  expect_error<IndexError>(
      [&] {
        full({}, 1.0).index_select(0, idx({0, 0}));
      },
      {"index_select", "0-dim tensor can have only 1 value, got 2"});
}

TEST(IndexOps, GatherShapesDtypesAndErrors) {
  Tensor x = ar({3, 4});
  Tensor g = x.gather(1, idx({3, 0, 0, 1, 2, 2}).view({3, 2}));
  expect_close(g, tensor({{3.f, 0.f}, {4.f, 5.f}, {10.f, 10.f}}), "gather dim 1");
  expect_close(x.t().gather(0, idx({1, 2}).view({1, 2})), tensor({{1.f, 6.f}}), "gather strided");
  EXPECT_EQ(vec(x.gather(0, empty({0, 4}, kLong)).sizes()), V({0, 4}));
  EXPECT_EQ(full({}, 5.0).gather(0, full({}, 0, kLong)).item<float>(), 5);
  for (ScalarType dt : kAllTypes) {
    SCOPED_TRACE(to_string(dt));
    Tensor l = ar({3, 4}, kLong), i = idx({2, 0, 1, 1}).view({1, 4});
    expect_close(l.to(dt).gather(0, i), l.gather(0, i).to(dt), "gather");
  }
  expect_error<IndexError>(
      [&] {
        x.gather(1, idx({4}).view({1, 1}));
      },
      {"gather", "index 4 is out of bounds for dimension 1 with size 4"});
  expect_error<IndexError>(
      [&] {
        x.gather(1, idx({-1}).view({1, 1}));
      },
      {"gather", "index -1 is out of bounds"});
  expect_error<Error>([&] { x.gather(1, idx({0})); },
                      {"gather", "same number of dimensions", "index [1]", "self [3, 4]"});
  expect_error<Error>(
      [&] {
        x.gather(1, zeros({4, 1}, kLong));
      },
      {"gather", "size does not match at dimension 0", "index [4, 1]", "self [3, 4]",
       "apart from dimension 1"});
  expect_error<TypeError>([&] { x.gather(1, zeros({1, 1}, kInt)); }, {"gather", "int64", "int32"});
}

TEST(IndexOps, TakeFlattensLogically) {
  Tensor x = ar({3, 4}).t();
  expect_close(x.take(idx({0, 1, -1})), tensor({0.f, 4.f, 11.f}), "take strided");
  EXPECT_EQ(vec(x.take(empty({0, 2}, kLong)).sizes()), V({0, 2}));
  EXPECT_EQ(vec(x.take(full({}, 5, kLong)).sizes()), V({}));
  EXPECT_EQ(vec(empty({0}).take(empty({0}, kLong)).sizes()), V({0}));
  for (ScalarType dt : kAllTypes) {
    SCOPED_TRACE(to_string(dt));
    Tensor l = ar({2, 3}, kLong);
    expect_close(l.to(dt).take(idx({5, 0, 2})), l.take(idx({5, 0, 2})).to(dt), "take");
  }
  expect_error<IndexError>([&] { x.take(idx({12})); },
                           {"take", "index 12 is out of bounds for dimension 0 with size 12"});
  expect_error<IndexError>([&] { x.take(idx({-13})); }, {"take", "index -13"});
  expect_error<IndexError>([&] { empty({0}).take(idx({0})); }, {"take", "empty tensor"});
  expect_error<TypeError>([&] { x.take(ones({1}, kFloat)); }, {"take", "float32"});
}

// ---- scatter / scatter_add / index_add ----

TEST(IndexOps, ScatterInPlaceAndOutOfPlace) {
  Tensor x = zeros({2, 3});
  Tensor i = idx({2, 0}).view({1, 2});
  Tensor out = x.scatter(1, i, tensor({{5.f, 6.f, 7.f}}));
  expect_close(out, tensor({{6.f, 0.f, 5.f}, {0.f, 0.f, 0.f}}), "scatter src");
  EXPECT_EQ(x.sum().item<double>(), 0);
  const uint32_t before = x._version();
  x.scatter_(0, idx({1, 0, 1}).view({1, 3}), 2.5);
  EXPECT_GT(x._version(), before);
  expect_close(x, tensor({{0.f, 2.5f, 0.f}, {2.5f, 0.f, 2.5f}}), "scatter_ value");
  Tensor t = zeros({3, 2}).t();  // non-contiguous self
  t.scatter_(1, idx({2}).view({1, 1}), 1.f);
  EXPECT_EQ(t[0][2].item<float>(), 1);
  Tensor sa = zeros({3});
  sa.scatter_add_(0, idx({0, 0, 2, 0}), tensor({1.f, 2.f, 3.f, 4.f}));
  expect_close(sa, tensor({7.f, 0.f, 3.f}), "scatter_add duplicates");
  Tensor unchanged = ar({3});
  unchanged.scatter_(0, empty({0}, kLong), tensor({1.f}));
  expect_close(unchanged, ar({3}), "empty index");
  for (ScalarType dt : kAllTypes) {
    SCOPED_TRACE(to_string(dt));
    Tensor l = zeros({2, 3}, kLong), s = ar({1, 3}, kLong) + 1, ii = idx({1, 0, 1}).view({1, 3});
    expect_close(zeros({2, 3}, dt).scatter(0, ii, s.to(dt)), l.scatter(0, ii, s).to(dt), "scatter");
    if (dt != kBool)
      expect_close(zeros({3}, dt).scatter_add(0, idx({2, 2, 0}), ones({3}, dt)),
                   tensor({1, 0, 2}).to(dt), "scatter_add");
  }
}

TEST(IndexOps, ScatterErrors) {
  Tensor x = zeros({2, 3});
  expect_error<TypeError>(
      [&] {
        x.scatter_(1, zeros({1, 1}, kLong), ones({1, 1}, kDouble));
      },
      {"scatter_", "self.dtype to be equal to src.dtype", "float32", "float64"});
  expect_error<IndexError>(
      [&] {
        x.scatter_(1, idx({3}).view({1, 1}), 1.f);
      },
      {"scatter_", "index 3 is out of bounds for dimension 1 with size 3"});
  expect_error<Error>(
      [&] {
        x.scatter_(0, zeros({1, 4}, kLong), zeros({1, 4}));
      },
      {"scatter_", "size does not match at dimension 1", "index [1, 4]", "self [2, 3]"});
  expect_error<Error>(
      [&] {
        x.scatter_(0, zeros({1, 2}, kLong), zeros({1, 1}));
      },
      {"scatter_", "index [1, 2]", "src [1, 1]"});
  expect_error<Error>([&] { x.scatter_add_(0, zeros({2}, kLong), zeros({2})); },
                      {"scatter_add_", "same number of dimensions"});
  expect_error<TypeError>([&] { x.scatter(0, zeros({1, 1}, kBool), 1.f); }, {"scatter_", "bool"});
  expect_error<IndexError>(
      [&] {
        x.scatter_(2, zeros({1, 1}, kLong), 1.f);
      },
      {"scatter_", "dimension out of range"});
}

TEST(IndexOps, IndexAddAccumulatesWithAlpha) {
  Tensor x = zeros({3, 2});
  x.index_add_(0, idx({2, 2, 0}), ar({3, 2}), 2);
  expect_close(x, tensor({{8.f, 10.f}, {0.f, 0.f}, {4.f, 8.f}}), "index_add_ alpha 2");
  Tensor y = ar({2, 3}).t();  // non-contiguous self
  Tensor r = y.index_add(1, idx({1}), ones({3, 1}, kFloat));
  expect_close(r, y.contiguous() + tensor({{0.f, 1.f}, {0.f, 1.f}, {0.f, 1.f}}),
               "index_add strided");
  EXPECT_EQ(y[0][1].item<float>(), 3) << "out-of-place must not modify self";
  Tensor s = full({}, 1.0);
  s.index_add_(0, idx({0}), full({}, 2.0));
  EXPECT_EQ(s.item<float>(), 3);
  for (ScalarType dt : kAllTypes) {
    if (dt == kBool) continue;
    SCOPED_TRACE(to_string(dt));
    Tensor l = ar({4}, kLong), src = tensor({1, 2, 3});
    expect_close(l.to(dt).index_add(0, idx({3, 0, 3}), src.to(dt)),
                 l.index_add(0, idx({3, 0, 3}), src).to(dt), "index_add");
  }
}

TEST(IndexOps, IndexAddErrors) {
  Tensor x = zeros({3, 2});
  expect_error<Error>(
      [&] {
        x.index_add_(0, idx({0, 1}), ones({3, 2}, kFloat));
      },
      {"index_add_", "number of indices (2) should be equal to source.size(dim) (3)"});
  expect_error<TypeError>(
      [&] {
        x.index_add_(0, idx({0}), ones({1, 2}, kDouble));
      },
      {"index_add_", "self (float32) and source (float64) must have the same scalar type"});
  expect_error<TypeError>([&] { zeros({3}, kLong).index_add_(0, idx({0}), ones({1}, kLong), 0.5); },
                          {"index_add_", "alpha must not be a floating point number"});
  expect_error<Error>(
      [&] {
        x.index_add_(0, idx({0}), ones({1, 3}, kFloat));
      },
      {"index_add_", "source [1, 3] and self [3, 2] must match in every dimension but dim 0"});
  expect_error<IndexError>(
      [&] {
        x.index_add_(0, idx({3}), ones({1, 2}, kFloat));
      },
      {"index_add_", "index 3 is out of bounds for dimension 0 with size 3"});
  expect_error<IndexError>(
      [&] {
        x.index_add_(0, idx({0}).view({1, 1}), ones({1, 2}, kFloat));
      },
      {"index_add_", "vector"});
  expect_error<TypeError>(
      [&] {
        x.index_add_(0, idx({0}).to(kInt), ones({1, 2}, kFloat));
      },
      {"index_add_", "int32"});
}

// ---- masked_fill / masked_select / nonzero ----

TEST(IndexOps, MaskedFillInPlaceOutOfPlaceAndBroadcast) {
  Tensor x = ar({2, 3});
  Tensor m = tensor({true, false, true});
  Tensor out = x.masked_fill(m, -1);
  expect_close(out, tensor({{-1.f, 1.f, -1.f}, {-1.f, 4.f, -1.f}}), "masked_fill");
  EXPECT_EQ(x[0][0].item<float>(), 0);
  // Out of place, self broadcasts to the mask's shape as well.
  Tensor grown = ar({3}).masked_fill(zeros({2, 3}, kBool), 0);
  EXPECT_EQ(vec(grown.sizes()), V({2, 3}));
  const uint32_t before = x._version();
  x.masked_fill_(m, full({}, 9.0));
  EXPECT_GT(x._version(), before);
  expect_close(x, tensor({{9.f, 1.f, 9.f}, {9.f, 4.f, 9.f}}), "masked_fill_ tensor value");
  Tensor t = zeros({3, 2}).t();  // non-contiguous self
  t.masked_fill_(tensor({false, true, false}), 1);
  EXPECT_EQ(t[1][1].item<float>(), 1);
  EXPECT_EQ(t.sum().item<double>(), 2);
  Tensor b = tensor({true, false});
  b.masked_fill_(b, false);  // mask aliasing self
  EXPECT_FALSE(b[0].item<bool>());
  EXPECT_EQ(vec(empty({0, 3}).masked_fill(m, 1).sizes()), V({0, 3}));
  for (ScalarType dt : kAllTypes) {
    SCOPED_TRACE(to_string(dt));
    Tensor l = ar({2, 3}, kLong);
    expect_close(l.to(dt).masked_fill(m, 1), l.masked_fill(m, 1).to(dt), "masked_fill");
  }
}

TEST(IndexOps, MaskedFillErrors) {
  Tensor x = ar({2, 3});
  expect_error<TypeError>([&] { x.masked_fill(ones({3}, kFloat), 1); },
                          {"masked_fill", "expected a bool mask, got float32"});
  expect_error<TypeError>([&] { x.masked_fill_(ones({3}, kByte), 1); }, {"masked_fill_", "uint8"});
  expect_error<Error>(
      [&] {
        x.masked_fill_(zeros({2, 2, 3}, kBool), 1);
      },
      {"masked_fill_", "mask of shape [2, 2, 3] cannot be broadcast to self of shape [2, 3]"});
  expect_error<Error>([&] { x.masked_fill(zeros({4}, kBool), 1); },
                      {"masked_fill", "[2, 3]", "[4]"});
  expect_error<Error>([&] { x.masked_fill_(zeros({3}, kBool), ones({1}, kFloat)); },
                      {"masked_fill_", "0-dimensional value tensor", "1 dimension(s)"});
}

TEST(IndexOps, MaskedSelectAndNonzero) {
  Tensor x = ar({2, 3}).t();
  expect_close(x.masked_select(x > 2), tensor({3.f, 4.f, 5.f}), "masked_select strided");
  expect_close(masked_select(ar({3}), tensor({{true, false, true}, {false, true, false}})),
               tensor({0.f, 2.f, 1.f}), "masked_select broadcast self");
  EXPECT_EQ(vec(masked_select(full({}, 1.0), full({}, true)).sizes()), V({1}));
  EXPECT_EQ(vec(masked_select(empty({0, 2}), zeros({2}, kBool)).sizes()), V({0}));
  expect_error<TypeError>(
      [&] {
        x.masked_select(ones({3, 2}, kFloat));
      },
      {"masked_select", "bool mask"});
  expect_error<Error>([&] { x.masked_select(zeros({4}, kBool)); },
                      {"masked_select", "[3, 2]", "[4]"});

  expect_close(x.nonzero(), tensor({{0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}}), "nonzero strided");
  EXPECT_EQ(vec(full({}, 0.0).nonzero().sizes()), V({0, 0}));
  EXPECT_EQ(vec(full({}, 2.0).nonzero().sizes()), V({1, 0}));
  EXPECT_EQ(vec(empty({0, 3}).nonzero().sizes()), V({0, 2}));
  EXPECT_EQ(nonzero(ar({4})).dtype(), kLong);
  for (ScalarType dt : kAllTypes) {
    SCOPED_TRACE(to_string(dt));
    Tensor l = tensor({{0, 1, 0}, {2, 0, 3}});
    expect_close(l.to(dt).nonzero(), l.nonzero(), "nonzero");
  }
}

// ---- inputs large enough to split over threads ----

TEST(IndexOps, LargeInputsMatchAnElementwiseReference) {
  const int64_t rows = 20000, cols = 12;  // 240k elements: above every parallel grain
  Tensor x = ar({rows, cols});
  Tensor ids = randperm(rows).narrow(0, 0, 15000);
  auto xa = x.accessor<float, 2>();
  auto ia = ids.accessor<int64_t, 1>();

  Tensor sel = x.index_select(0, ids);
  auto sa = sel.accessor<float, 2>();
  Tensor adv = x.index({Slice(), idx({11, 0})}).index({ids});
  auto aa = adv.accessor<float, 2>();
  int bad = 0;
  for (int64_t i = 0; i < ids.size(0); ++i) {
    for (int64_t j = 0; j < cols; ++j) bad += sa[i][j] != xa[ia[i]][j];
    bad += aa[i][0] != xa[ia[i]][11];
    bad += aa[i][1] != xa[ia[i]][0];
  }
  EXPECT_EQ(bad, 0) << "index_select / advanced index";

  Tensor mask = (x.remainder(3) == 0);
  Tensor filled = x.masked_fill(mask, -1);
  auto fa = filled.accessor<float, 2>();
  Tensor picked = x.masked_select(mask);
  auto pa = picked.accessor<float, 1>();
  int64_t k = 0;
  bad = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      const bool m = int64_t(xa[i][j]) % 3 == 0;
      bad += fa[i][j] != (m ? -1.f : xa[i][j]);
      if (m) bad += pa[k++] != xa[i][j];
    }
  EXPECT_EQ(bad, 0) << "masked_fill / masked_select";
  EXPECT_EQ(k, picked.numel());
  EXPECT_EQ(mask.nonzero().size(0), picked.numel());

  // Every element added to row (i % 7): row r receives the sum over i = r mod 7.
  Tensor acc = zeros({7, cols}, kDouble);
  Tensor target = arange(rows, kLong).remainder(7);
  acc.index_add_(0, target, ones({rows, cols}, kDouble));
  expect_close(acc.select(1, 5), tensor({2858., 2857., 2857., 2857., 2857., 2857., 2857.}, kDouble),
               "index_add_ counts");
}

}  // namespace
