// View ops (src/ops/view.cpp): results share storage and the version counter with their base,
// geometry for non-contiguous and zero-size inputs, every error with its message; diagonal,
// unfold and movedim also against PyTorch's golden outputs.
#include <gtest/gtest.h>

#include <string>

#include "ember/ember.h"
#include "tests/ops/shape_test_util.h"
#include "tests/support/expect_error.h"
#include "tests/support/golden.h"

using namespace ember;
using namespace shape_test;

namespace {

using ember_test::expect_error;

}  // namespace

// ---- golden: diagonal, unfold, movedim ----

TEST(ViewGolden, DiagonalUnfoldMovedimMatchPyTorch) {
  auto all = load_golden("shape");
  int checked = 0;
  for (const GoldenCase& c : all) {
    SCOPED_TRACE(c.location + " " + c.call);
    Tensor out;
    if (c.op() == "diagonal") {
      out = diagonal(c.arg(0), c.ints.at(0), c.ints.at(1), c.ints.at(2));
    } else if (c.op() == "unfold") {
      out = c.arg(0).unfold(c.ints.at(0), c.ints.at(1), c.ints.at(2));
    } else if (c.op() == "movedim") {
      out = c.int_lists.empty() ? movedim(c.arg(0), c.ints.at(0), c.ints.at(1))
                                : movedim(c.arg(0), c.int_lists.at(0), c.int_lists.at(1));
    } else {
      continue;
    }
    EXPECT_TRUE(same_storage(out, c.args[0])) << c.name << " should be a view";
    expect_close(out, c.outs.at(0), c.name);
    ++checked;
  }
  EXPECT_EQ(checked, 12);
}

// ---- view / reshape ----

TEST(View, SharesStorageAndVersionWithBase) {
  Tensor x = ar({2, 6});
  Tensor v = x.view({3, 4});
  EXPECT_TRUE(same_storage(x, v));
  EXPECT_EQ(vec(v.sizes()), V({3, 4}));
  EXPECT_EQ(vec(v.strides()), V({4, 1}));
  const uint32_t before = x._version();
  v.select(0, 1).fill_(-1);
  EXPECT_GT(x._version(), before);
  EXPECT_EQ(x[0][4].item<float>(), -1);
  EXPECT_EQ(x[0][3].item<float>(), 3);  // untouched neighbours
  EXPECT_EQ(x[1][2].item<float>(), 8);
}

TEST(View, InfersOneDimension) {
  Tensor x = ar({2, 6});
  EXPECT_EQ(vec(x.view({-1, 3}).sizes()), V({4, 3}));
  EXPECT_EQ(vec(x.view({-1}).sizes()), V({12}));
  EXPECT_EQ(vec(x.view({2, 1, -1}).sizes()), V({2, 1, 6}));
}

TEST(View, ErrorsNameOpAndShapes) {
  Tensor x = ar({2, 3});
  expect_error<Error>([&] { x.view({-1, -1}); }, {"view", "only one dimension can be inferred"});
  expect_error<Error>([&] { x.view({4}); }, {"view", "shape '[4]' is invalid for input of size 6"});
  expect_error<Error>([&] { x.view({-1, 4}); }, {"view", "invalid for input of size 6"});
  expect_error<Error>([&] { x.view({-2, 3}); }, {"view", "invalid shape dimension -2"});
  expect_error<Error>([&] { x.t().view({6}); },
                      {"view", "not compatible with input tensor's size and stride", "[3, 2]",
                       "Hint: use .reshape(...) instead"});
}

TEST(View, ZeroDimAndZeroSize) {
  Tensor s = full({}, 2.5);
  Tensor v = s.view({1, 1});
  EXPECT_EQ(vec(v.sizes()), V({1, 1}));
  EXPECT_TRUE(same_storage(s, v));
  EXPECT_EQ(s.view({}).dim(), 0);
  EXPECT_EQ(v.view({}).item<float>(), 2.5f);
  EXPECT_EQ(s.view({-1}).numel(), 1);

  Tensor z = empty({0, 3});
  EXPECT_EQ(vec(z.view({3, 0}).sizes()), V({3, 0}));
  EXPECT_EQ(vec(z.view({0, 5, 2}).sizes()), V({0, 5, 2}));
  EXPECT_EQ(vec(z.reshape({-1}).sizes()), V({0}));
  EXPECT_EQ(vec(z.reshape({-1, 3}).sizes()), V({0, 3}));
}

TEST(View, ViewOfNonContiguousWhereStridesAllow) {
  // [4, 6] narrowed to columns 0..2: each row is contiguous, so splitting the last dim works.
  Tensor x = ar({4, 6}).narrow(1, 0, 4);
  Tensor v = x.view({4, 2, 2});
  EXPECT_EQ(vec(v.strides()), V({6, 2, 1}));
  expect_close(v, ar({4, 6}).narrow(1, 0, 4).contiguous().view({4, 2, 2}), "view");
  // Merging rows is impossible.
  expect_error<Error>([&] { x.view({16}); }, {"view"});
}

TEST(View, ReshapeViewWhenPossibleCopyOtherwise) {
  Tensor x = ar({2, 3});
  Tensor r = x.reshape({3, 2});
  EXPECT_TRUE(same_storage(x, r));
  Tensor t = x.t().reshape({6});
  EXPECT_FALSE(same_storage(x, t));
  expect_close(t, tensor({0.f, 3.f, 1.f, 4.f, 2.f, 5.f}), "reshape of transpose");
  expect_error<Error>([&] { x.reshape({4}); },
                      {"reshape", "shape '[4]' is invalid for input of size 6"});
  EXPECT_TRUE(same_storage(x, x.reshape_as(empty({6}))));
}

// ---- flatten / unflatten ----

TEST(View, FlattenRangesAndErrors) {
  Tensor x = ar({2, 3, 4});
  EXPECT_EQ(vec(x.flatten().sizes()), V({24}));
  EXPECT_EQ(vec(x.flatten(1).sizes()), V({2, 12}));
  EXPECT_EQ(vec(x.flatten(0, 1).sizes()), V({6, 4}));
  EXPECT_EQ(vec(x.flatten(-2, -1).sizes()), V({2, 12}));
  EXPECT_EQ(vec(x.flatten(1, 1).sizes()), V({2, 3, 4}));
  EXPECT_EQ(vec(full({}, 1.0).flatten().sizes()), V({1}));
  EXPECT_TRUE(same_storage(x, x.flatten()));
  // A transposed tensor flattens to a copy with the logical order.
  expect_close(ar({2, 3}).t().flatten(), tensor({0.f, 3.f, 1.f, 4.f, 2.f, 5.f}), "flatten");
  expect_error<Error>([&] { x.flatten(2, 1); },
                      {"flatten", "start_dim (2) cannot come after end_dim (1)"});
  expect_error<IndexError>([&] { x.flatten(3); },
                           {"flatten", "dimension out of range", "[-3, 2]", "got 3"});
}

TEST(View, UnflattenSplitsOneDim) {
  Tensor x = ar({2, 12});
  EXPECT_EQ(vec(x.unflatten(1, {3, 4}).sizes()), V({2, 3, 4}));
  EXPECT_EQ(vec(x.unflatten(-1, {2, -1, 3}).sizes()), V({2, 2, 2, 3}));
  EXPECT_EQ(vec(x.unflatten(0, {1, 2}).sizes()), V({1, 2, 12}));
  EXPECT_TRUE(same_storage(x, x.unflatten(1, {3, 4})));
  expect_error<Error>([&] { x.unflatten(1, {}); }, {"unflatten", "sizes must be non-empty"});
  expect_error<Error>(
      [&] {
        x.unflatten(1, {5, 2});
      },
      {"unflatten", "shape '[5, 2]' is invalid for input of size 12"});
}

// ---- squeeze / unsqueeze ----

TEST(View, SqueezeAndUnsqueeze) {
  Tensor x = ar({1, 3, 1, 2});
  EXPECT_EQ(vec(x.squeeze().sizes()), V({3, 2}));
  EXPECT_EQ(vec(x.squeeze(0).sizes()), V({3, 1, 2}));
  EXPECT_EQ(vec(x.squeeze(-2).sizes()), V({1, 3, 2}));
  EXPECT_EQ(vec(x.squeeze(1).sizes()), V({1, 3, 1, 2}));  // not size 1: unchanged
  EXPECT_TRUE(same_storage(x, x.squeeze()));
  EXPECT_EQ(full({}, 1.0).squeeze().dim(), 0);
  EXPECT_EQ(full({}, 1.0).squeeze(0).dim(), 0);
  EXPECT_EQ(empty({0, 1}).squeeze().dim(), 1);
  expect_error<IndexError>([&] { x.squeeze(4); }, {"squeeze", "dimension out of range"});

  Tensor y = ar({2, 3});
  EXPECT_EQ(vec(y.unsqueeze(0).sizes()), V({1, 2, 3}));
  EXPECT_EQ(vec(y.unsqueeze(2).sizes()), V({2, 3, 1}));
  EXPECT_EQ(vec(y.unsqueeze(-1).sizes()), V({2, 3, 1}));
  EXPECT_EQ(vec(y.unsqueeze(1).strides()), V({3, 3, 1}));
  EXPECT_EQ(vec(full({}, 1.0).unsqueeze(0).sizes()), V({1}));
  expect_error<IndexError>([&] { y.unsqueeze(3); },
                           {"unsqueeze", "dimension out of range", "[-3, 2]", "got 3"});
}

TEST(View, InPlaceShapeMethodsKeepTheHandle) {
  Tensor x = ar({1, 3, 1});
  Tensor same = x;
  x.squeeze_();
  EXPECT_EQ(vec(same.sizes()), V({3}));
  x.unsqueeze_(0);
  EXPECT_EQ(vec(same.sizes()), V({1, 3}));
  x.squeeze_(0);
  x.unsqueeze_(1);
  EXPECT_EQ(vec(x.sizes()), V({3, 1}));
  x.t_();
  EXPECT_EQ(vec(x.sizes()), V({1, 3}));
  Tensor y = ar({2, 3, 4});
  y.transpose_(0, 2);
  EXPECT_EQ(vec(y.sizes()), V({4, 3, 2}));
  EXPECT_EQ(vec(y.strides()), V({1, 4, 12}));
}

// ---- permute / transpose / t / movedim ----

TEST(View, PermuteReordersDimsAndStrides) {
  Tensor x = ar({2, 3, 4});
  Tensor p = x.permute({2, 0, 1});
  EXPECT_EQ(vec(p.sizes()), V({4, 2, 3}));
  EXPECT_EQ(vec(p.strides()), V({1, 12, 4}));
  EXPECT_EQ(p[3][1][2].item<float>(), x[1][2][3].item<float>());
  EXPECT_EQ(vec(x.permute({-1, 0, 1}).sizes()), V({4, 2, 3}));
  EXPECT_TRUE(same_storage(x, p));
  expect_error<Error>(
      [&] {
        x.permute({0, 1});
      },
      {"permute", "number of dims don't match", "3", "2"});
  expect_error<Error>([&] { x.permute({0, 1, 1}); }, {"permute", "repeated dim 1"});
  expect_error<IndexError>([&] { x.permute({0, 1, 3}); }, {"permute", "dimension out of range"});
}

TEST(View, TransposeAndT) {
  Tensor x = ar({2, 3});
  Tensor t = x.t();
  EXPECT_EQ(vec(t.sizes()), V({3, 2}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t[2][1].item<float>(), 5);
  EXPECT_EQ(vec(x.transpose(-1, 0).sizes()), V({3, 2}));
  EXPECT_EQ(vec(ar({3}).t().sizes()), V({3}));
  EXPECT_EQ(full({}, 1.0).t().dim(), 0);
  EXPECT_EQ(vec(ar({2, 3, 4}).mT().sizes()), V({2, 4, 3}));
  expect_error<Error>(
      [&] {
        ar({2, 3, 4}).t();
      },
      {"t", "expects a tensor with <= 2 dimensions, but self is 3D"});
  expect_error<IndexError>([&] { x.transpose(0, 2); }, {"transpose", "dimension out of range"});
}

TEST(View, MovedimErrors) {
  Tensor x = ar({2, 3, 4});
  EXPECT_EQ(vec(x.movedim({0, 1}, {2, 0}).sizes()), V({3, 4, 2}));
  expect_error<Error>(
      [&] {
        x.movedim({0, 1}, {2});
      },
      {"movedim", "source (2 dims)", "destination (1 dims)"});
  expect_error<Error>([&] { x.movedim({0, 0}, {1, 2}); }, {"movedim", "repeated dim"});
  expect_error<Error>([&] { x.movedim({0, 1}, {2, 2}); }, {"movedim", "repeated dim"});
  expect_error<IndexError>([&] { x.movedim(3, 0); }, {"movedim", "dimension out of range"});
}

// ---- expand ----

TEST(View, ExpandUsesStrideZero) {
  Tensor x = ar({3, 1});
  Tensor e = x.expand({2, 3, 4});
  EXPECT_EQ(vec(e.sizes()), V({2, 3, 4}));
  EXPECT_EQ(vec(e.strides()), V({0, 1, 0}));
  EXPECT_TRUE(same_storage(x, e));
  EXPECT_EQ(e[1][2][3].item<float>(), 2);
  EXPECT_EQ(vec(x.expand({-1, 5}).sizes()), V({3, 5}));
  EXPECT_EQ(vec(x.expand_as(empty({3, 7})).sizes()), V({3, 7}));
  EXPECT_EQ(vec(full({}, 1.0).expand({2, 2}).sizes()), V({2, 2}));
  EXPECT_EQ(vec(empty({0, 1}).expand({0, 4}).sizes()), V({0, 4}));
  expect_error<Error>(
      [&] {
        x.expand({4, 4});
      },
      {"expand", "expanded size of the tensor (4) must match the existing size (3)", "[4, 4]",
       "[3, 1]"});
  expect_error<Error>([&] { x.expand({4}); }, {"expand", "number of sizes provided (1)", "(2)"});
  expect_error<Error>(
      [&] {
        x.expand({-1, 3, 4});
      },
      {"expand", "-1", "leading, non-existing dimension"});
  expect_error<Error>([&] { x.expand({3, -2}); }, {"expand", "-2"});
}

// ---- narrow / select / slice ----

TEST(View, NarrowSelectSliceAreViews) {
  Tensor x = ar({4, 5});
  Tensor n = x.narrow(1, 1, 3);
  EXPECT_EQ(vec(n.sizes()), V({4, 3}));
  EXPECT_EQ(n.storage_offset(), 1);
  n.fill_(0);
  EXPECT_EQ(x[2][2].item<float>(), 0);
  EXPECT_EQ(x[2][4].item<float>(), 14);
  EXPECT_EQ(x.narrow(0, -2, 2)[0][0].item<float>(), 10);
  EXPECT_EQ(vec(x.narrow(0, 4, 0).sizes()), V({0, 5}));

  Tensor s = x.select(0, -1);
  EXPECT_EQ(vec(s.sizes()), V({5}));
  EXPECT_EQ(s.storage_offset(), 15);
  EXPECT_EQ(x.select(1, 2).stride(0), 5);

  Tensor sl = x.slice(1, 1, std::nullopt, 2);
  EXPECT_EQ(vec(sl.sizes()), V({4, 2}));
  EXPECT_EQ(vec(sl.strides()), V({5, 2}));
  EXPECT_EQ(vec(x.slice(0, -3, -1).sizes()), V({2, 5}));
  EXPECT_EQ(vec(x.slice(0, 2, 100).sizes()), V({2, 5}));
  EXPECT_EQ(vec(x.slice(0, 3, 1).sizes()), V({0, 5}));
  EXPECT_EQ(vec(x.slice(1, -100, 2).sizes()), V({4, 2}));
  EXPECT_EQ(vec(x.slice(0, 0, 4, 3).sizes()), V({2, 5}));
}

TEST(View, NarrowSelectSliceErrors) {
  Tensor x = ar({4, 5});
  expect_error<IndexError>([&] { x.narrow(0, 5, 0); }, {"narrow", "start (5) out of range"});
  expect_error<IndexError>([&] { x.narrow(0, 2, 3); },
                           {"narrow", "start (2) + length (3) exceeds dimension size (4)"});
  expect_error<IndexError>([&] { x.narrow(0, 0, -1); }, {"narrow"});
  expect_error<Error>([&] { full({}, 1.0).narrow(0, 0, 1); }, {"narrow", "0-dim"});
  expect_error<IndexError>([&] { x.select(1, 5); },
                           {"select", "index 5 out of range", "[4, 5]", "dimension 1"});
  expect_error<IndexError>([&] { x.select(0, -5); }, {"select", "index -5"});
  expect_error<IndexError>([&] { full({}, 1.0).select(0, 0); }, {"select", "0-dim"});
  expect_error<ValueError>([&] { x.slice(0, 0, 2, 0); }, {"slice", "step must be positive, got 0"});
  expect_error<ValueError>([&] { x.slice(0, 0, 2, -1); },
                           {"slice", "step must be positive, got -1"});
}

TEST(View, NonContiguousInputs) {
  Tensor x = ar({3, 4}).t();  // [4, 3], strides [1, 4]
  EXPECT_EQ(x.narrow(0, 1, 2)[1][2].item<float>(), 10);
  EXPECT_EQ(x.select(1, 2)[3].item<float>(), 11);
  Tensor sl = x.slice(0, 0, 4, 2);
  EXPECT_EQ(vec(sl.strides()), V({2, 4}));
  expect_close(sl, tensor({{0.f, 4.f, 8.f}, {2.f, 6.f, 10.f}}), "slice of transpose");
  expect_close(x.unsqueeze(1).squeeze(1), x, "unsqueeze/squeeze");
  expect_close(x.diagonal(), tensor({0.f, 5.f, 10.f}), "diagonal of transpose");
}

// ---- chunk / split / unbind ----

TEST(View, ChunkSplitUnbind) {
  Tensor x = ar({5, 2});
  auto c = x.chunk(2);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].size(0), 3);
  EXPECT_EQ(c[1].size(0), 2);
  EXPECT_TRUE(same_storage(x, c[1]));
  EXPECT_EQ(x.chunk(10).size(), 5u);  // never more pieces than elements
  EXPECT_EQ(x.chunk(3, 1).size(), 2u);
  auto ce = empty({0, 2}).chunk(3);
  ASSERT_EQ(ce.size(), 3u);
  EXPECT_EQ(ce[2].size(0), 0);

  auto s = x.split(2);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[2].size(0), 1);
  EXPECT_EQ(s[2][0][1].item<float>(), 9);
  auto sw = x.split({1, 4});
  ASSERT_EQ(sw.size(), 2u);
  EXPECT_EQ(sw[1].size(0), 4);
  EXPECT_EQ(x.split_with_sizes({0, 5})[0].size(0), 0);
  auto se = empty({0, 2}).split(2);
  ASSERT_EQ(se.size(), 1u);
  EXPECT_EQ(se[0].size(0), 0);

  auto u = x.unbind(1);
  ASSERT_EQ(u.size(), 2u);
  expect_close(u[1], tensor({1.f, 3.f, 5.f, 7.f, 9.f}), "unbind");
  EXPECT_TRUE(empty({0, 2}).unbind(0).empty());
}

TEST(View, ChunkSplitUnbindErrors) {
  Tensor x = ar({5, 2});
  Tensor s = full({}, 1.0);
  expect_error<ValueError>([&] { x.chunk(0); },
                           {"chunk", "number of chunks must be greater than 0, got 0"});
  expect_error<Error>([&] { s.chunk(2); }, {"chunk", "at least a 1-dimensional tensor"});
  expect_error<Error>([&] { s.split(1); }, {"split", "at least a 1-dimensional tensor"});
  expect_error<ValueError>([&] { x.split(-1); },
                           {"split", "split_size must be non-negative, got -1"});
  expect_error<ValueError>([&] { x.split(0); },
                           {"split", "split_size can only be 0 if dimension size is 0"});
  expect_error<ValueError>(
      [&] {
        x.split({2, 2});
      },
      {"split_with_sizes", "sum exactly to 5", "[2, 2]"});
  expect_error<ValueError>([&] { x.split({6, -1}); }, {"split_with_sizes", "non-negative"});
  expect_error<Error>([&] { s.split_with_sizes({1}); },
                      {"split_with_sizes", "at least a 1-dimensional tensor"});
  expect_error<Error>([&] { s.unbind(0); }, {"unbind", "at least a 1-dimensional tensor"});
  expect_error<IndexError>([&] { x.unbind(2); }, {"unbind", "dimension out of range"});
}

// ---- diagonal / as_strided / unfold ----

TEST(View, DiagonalWritesThroughAndHandlesOffsets) {
  Tensor x = zeros({3, 3});
  x.diagonal().fill_(1);
  expect_close(x, eye(3), "diagonal fill");
  x.diagonal(1).fill_(2);
  EXPECT_EQ(x[1][2].item<float>(), 2);
  EXPECT_EQ(vec(x.diagonal(3).sizes()), V({0}));
  EXPECT_EQ(vec(x.diagonal(-5).sizes()), V({0}));
  EXPECT_EQ(vec(ar({2, 3, 4}).diagonal(0, -1, 0).sizes()), V({3, 2}));
  expect_error<Error>([&] { ar({3}).diagonal(); }, {"diagonal", "at least 2 dims, got 1"});
  expect_error<Error>([&] { x.diagonal(0, 1, -1); },
                      {"diagonal", "dimensions cannot be identical"});
}

TEST(View, AsStrided) {
  Tensor x = ar({6});
  Tensor a = x.as_strided({2, 2}, {1, 2}, 1);
  expect_close(a, tensor({{1.f, 3.f}, {2.f, 4.f}}), "as_strided");
  EXPECT_TRUE(same_storage(x, a));
  // Without an offset it keeps the input's.
  EXPECT_EQ(x.narrow(0, 2, 3).as_strided({2}, {1})[0].item<float>(), 2);
  EXPECT_EQ(vec(x.as_strided({0, 3}, {100, 100}).sizes()), V({0, 3}));
  expect_error<Error>(
      [&] {
        x.as_strided({2}, {1, 1});
      },
      {"as_strided", "mismatch in length of strides and shape"});
  expect_error<Error>([&] { x.as_strided({4}, {2}); },
                      {"as_strided", "7 elements", "holds only 6"});
  expect_error<Error>([&] { x.as_strided({2}, {-1}); }, {"as_strided", "negative"});
  expect_error<Error>([&] { x.as_strided({2}, {1}, -1); },
                      {"as_strided", "invalid storage offset -1"});
}

TEST(View, UnfoldWindows) {
  Tensor x = ar({7});
  Tensor u = x.unfold(0, 3, 2);
  EXPECT_EQ(vec(u.sizes()), V({3, 3}));
  EXPECT_EQ(vec(u.strides()), V({2, 1}));
  EXPECT_EQ(vec(x.unfold(0, 0, 1).sizes()), V({8, 0}));
  Tensor s = full({}, 3.0);
  EXPECT_EQ(vec(s.unfold(0, 1, 1).sizes()), V({1}));
  expect_error<Error>([&] { x.unfold(0, 8, 1); },
                      {"unfold", "maximum size for tensor at dimension 0 is 7 but size is 8"});
  expect_error<Error>([&] { x.unfold(0, 2, 0); }, {"unfold", "step is 0 but must be > 0"});
  expect_error<Error>([&] { x.unfold(0, -1, 1); }, {"unfold", "size is -1 but must be >= 0"});
  expect_error<IndexError>([&] { x.unfold(1, 2, 1); }, {"unfold", "dimension out of range"});
}
