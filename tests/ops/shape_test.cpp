// Copying shape ops (src/ops/shape_copy.cpp): cat, stack, repeat, tile, flip, roll, tril, triu,
// constant_pad_nd against PyTorch's golden outputs, then behaviour the golden data cannot show:
// every dtype, non-contiguous and zero-size inputs, fresh storage, and each error's message.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "ember/ember.h"
#include "tests/ops/shape_test_util.h"
#include "tests/support/expect_error.h"
#include "tests/support/golden.h"

using namespace ember;
using namespace shape_test;

namespace {

using ember_test::expect_error;

const ScalarType kAllTypes[] = {kByte, kChar,  kShort,  kInt,  kLong,
                                kHalf, kFloat, kDouble, kBool, kBFloat16};

// The ops of shape.golden and the test file that checks them against PyTorch.
const std::set<std::string> kShapeOps = {"cat",  "stack", "repeat", "tile",           "flip",
                                         "roll", "tril",  "triu",   "constant_pad_nd"};
const std::set<std::string> kViewOps = {"diagonal", "unfold", "movedim"};
const std::set<std::string> kIndexOps = {
    "index",     "index_select", "gather",        "scatter", "scatter_add",
    "index_add", "masked_fill",  "masked_select", "nonzero", "take"};

Tensor run_shape_case(const GoldenCase& c) {
  const std::string op = c.op();
  std::vector<Tensor> args;
  for (size_t i = 0; i < c.args.size(); ++i) args.push_back(c.arg(i));
  if (op == "cat") return cat(args, c.ints.at(0));
  if (op == "stack") return stack(args, c.ints.at(0));
  if (op == "repeat") return args[0].repeat(c.int_lists.at(0));
  if (op == "tile") return tile(args[0], c.int_lists.at(0));
  if (op == "flip") return flip(args[0], c.int_lists.at(0));
  if (op == "roll")
    return c.int_lists.size() == 1 ? roll(args[0], c.int_lists[0])
                                   : roll(args[0], c.int_lists[0], c.int_lists.at(1));
  if (op == "tril") return tril(args[0], c.ints.at(0));
  if (op == "triu") return args[0].triu(c.ints.at(0));
  if (op == "constant_pad_nd")
    return constant_pad_nd(args[0], c.int_lists.at(0), c.scalar_args.at(0));
  throw std::runtime_error("no runner for " + op);
}

}  // namespace

// ---- golden ----

TEST(ShapeGolden, EveryCaseHasARunner) {
  for (const GoldenCase& c : load_golden("shape")) {
    const std::string op = c.op();
    EXPECT_TRUE(kShapeOps.count(op) || kViewOps.count(op) || kIndexOps.count(op))
        << c.location << ": op '" << op << "' is not checked by any shape/view/indexing test";
  }
}

TEST(ShapeGolden, CopyingShapeOpsMatchPyTorch) {
  std::map<std::string, int> seen;
  for (const GoldenCase& c : load_golden("shape")) {
    if (!kShapeOps.count(c.op())) continue;
    SCOPED_TRACE(c.location + " " + c.call);
    ++seen[c.op()];
    try {
      Tensor out = run_shape_case(c);
      expect_close(out, c.outs.at(0), c.name);
      for (const Tensor& a : c.args)
        EXPECT_FALSE(same_storage(out, a)) << c.name << ": the result must not alias an input";
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.name << " threw: " << e.what();
    }
  }
  for (const std::string& op : kShapeOps) EXPECT_GT(seen[op], 0) << "no golden case for " << op;
}

// ---- cat / stack ----

TEST(Shape, CatPromotesAcrossInputs) {
  Tensor out = cat({ar({1, 2}, kInt), ar({1, 2}, kHalf), ar({1, 2}, kBool)});
  EXPECT_EQ(out.dtype(), kHalf);
  EXPECT_EQ(vec(out.sizes()), V({3, 2}));
  EXPECT_EQ(cat({ar({2}, kByte), ar({2}, kChar)}).dtype(), kShort);
  EXPECT_EQ(cat({ar({2}, kBFloat16), ar({2}, kHalf)}).dtype(), kFloat);
  // A skipped legacy empty tensor still takes part in promotion (PyTorch 1.13).
  Tensor mixed = cat({empty({0}, kDouble), ar({2, 2}, kLong)});
  EXPECT_EQ(mixed.dtype(), kDouble);
  expect_close(mixed, ar({2, 2}, kDouble), "cat with skipped empty");
}

TEST(Shape, CatLegacyEmptyAndZeroSize) {
  Tensor only_empty = cat({empty({0}), empty({0})});
  EXPECT_EQ(vec(only_empty.sizes()), V({0}));
  // The skipped tensor does not fix the dim count; dim wraps against the first real input.
  Tensor t = cat({empty({0}), ar({2, 3}), empty({0}), ar({2, 3})}, -1);
  EXPECT_EQ(vec(t.sizes()), V({2, 6}));
  Tensor z = cat({empty({0, 3}), empty({0, 3})});
  EXPECT_EQ(vec(z.sizes()), V({0, 3}));
  Tensor z2 = cat({empty({2, 0}), empty({2, 0})}, 1);
  EXPECT_EQ(vec(z2.sizes()), V({2, 0}));
}

TEST(Shape, CatNonContiguousAndEveryDtype) {
  Tensor base = ar({4, 6});
  Tensor a = base.t().slice(0, 0, 6, 2);  // [3, 4], strided
  Tensor b = base.narrow(1, 1, 3).t();    // [3, 4]
  Tensor out = cat({a, b}, 1);
  expect_close(out, cat({a.contiguous(), b.contiguous()}, 1), "cat of strided views");
  for (ScalarType dt : kAllTypes) {
    SCOPED_TRACE(to_string(dt));
    Tensor x = ar({2, 3}, kLong), y = ar({2, 2}, kLong) + 7;
    Tensor got = cat({x.to(dt), y.to(dt)}, 1);
    EXPECT_EQ(got.dtype(), dt);
    expect_close(got, cat({x, y}, 1).to(dt), "cat");
  }
}

TEST(Shape, CatErrors) {
  Tensor x = ar({2, 3});
  expect_error<Error>([&] { cat({}); }, {"cat", "expected a non-empty list of Tensors"});
  expect_error<Error>(
      [&] {
        cat({x, full({}, 1.0)});
      },
      {"cat", "zero-dimensional tensor (at position 1) cannot be concatenated"});
  expect_error<Error>(
      [&] {
        cat({x, ar({2, 3, 1})});
      },
      {"cat", "same number of dimensions", "got 2 and 3", "tensor number 1", "[2, 3]",
       "[2, 3, 1]"});
  expect_error<Error>(
      [&] {
        cat({x, x, ar({2, 2})});
      },
      {"cat", "sizes of tensors must match except in dimension 0", "expected size 3 but got size 2",
       "tensor number 2", "[2, 2]"});
  expect_error<Error>([&] { cat({x, ar({3})}); }, {"cat", "tensor number 1"});
  expect_error<IndexError>([&] { cat({x, x}, 2); }, {"cat", "dimension out of range", "got 2"});
  expect_error<Error>([&] { cat({x, Tensor()}); }, {"cat", "tensor 1", "undefined"});
}

TEST(Shape, StackInsertsADim) {
  Tensor a = ar({2, 3}), b = ar({2, 3}) + 10;
  EXPECT_EQ(vec(stack({a, b}).sizes()), V({2, 2, 3}));
  EXPECT_EQ(vec(stack({a, b}, 2).sizes()), V({2, 3, 2}));
  EXPECT_EQ(vec(stack({a, b}, -1).sizes()), V({2, 3, 2}));
  expect_close(stack({a, b}, -1)[1][2], tensor({5.f, 15.f}), "stack last dim");
  EXPECT_EQ(vec(stack({empty({0}), empty({0})}).sizes()), V({2, 0}));
  EXPECT_EQ(vec(stack({a.t(), b.t()}, 1).sizes()), V({3, 2, 2}));
  expect_close(stack({a.t(), b.t()}, 1), stack({a.t().contiguous(), b.t().contiguous()}, 1),
               "stack of strided");
  EXPECT_EQ(stack({ar({2}, kInt), ar({2}, kDouble)}).dtype(), kDouble);
}

TEST(Shape, StackErrors) {
  Tensor a = ar({2, 3});
  expect_error<Error>([&] { stack({}); }, {"stack", "expected a non-empty list of Tensors"});
  expect_error<Error>(
      [&] {
        stack({a, a.t()});
      },
      {"stack",
       "expects each tensor to be equal size, but got [2, 3] at entry 0 and [3, 2] at entry 1"});
  expect_error<IndexError>(
      [&] {
        stack({a, a}, 3);
      },
      {"stack", "dimension out of range", "[-3, 2]", "got 3"});
}

// ---- repeat / tile ----

TEST(Shape, RepeatAndTile) {
  Tensor s = full({}, 4.0);
  expect_close(s.repeat({2, 3}), full({2, 3}, 4.0), "repeat 0-dim");
  EXPECT_EQ(s.repeat({}).dim(), 0);
  Tensor x = ar({2, 3}).t();  // non-contiguous
  expect_close(x.repeat({2, 1, 2}), x.contiguous().repeat({2, 1, 2}), "repeat strided");
  EXPECT_EQ(vec(empty({0, 2}).repeat({3, 2}).sizes()), V({0, 4}));
  EXPECT_EQ(vec(ar({2}).repeat({0}).sizes()), V({0}));
  Tensor r = ar({2}).repeat({1});
  EXPECT_FALSE(same_storage(r, ar({2})));
  expect_close(ar({3}).tile({2}), tensor({0.f, 1.f, 2.f, 0.f, 1.f, 2.f}), "tile 1-D");
  EXPECT_EQ(vec(ar({2, 3}).tile({}).sizes()), V({2, 3}));
  EXPECT_EQ(vec(ar({2, 3}).tile({2}).sizes()), V({2, 6}));
  for (ScalarType dt : kAllTypes) {
    SCOPED_TRACE(to_string(dt));
    Tensor l = ar({2, 2}, kLong);
    expect_close(l.to(dt).repeat({2, 3}), l.repeat({2, 3}).to(dt), "repeat");
  }
}

TEST(Shape, RepeatErrors) {
  Tensor x = ar({2, 3});
  expect_error<Error>([&] { x.repeat({2}); }, {"repeat",
                                               "number of dimensions of repeat dims (1) can not be "
                                               "smaller than number of dimensions of tensor (2)"});
  expect_error<Error>([&] { x.repeat({2, -1}); }, {"repeat", "non-negative", "[2, -1]"});
  expect_error<Error>([&] { x.tile({-1}); }, {"repeat", "non-negative"});
}

// ---- flip / roll ----

TEST(Shape, FlipDimsDtypesAndShapes) {
  Tensor x = ar({2, 3});
  expect_close(x.flip({0, 1}), tensor({{5.f, 4.f, 3.f}, {2.f, 1.f, 0.f}}), "flip both");
  expect_close(x.flip({}), x, "flip none");
  EXPECT_FALSE(same_storage(x.flip({}), x));
  expect_close(full({}, 3.0).flip({0}), full({}, 3.0), "flip 0-dim");
  EXPECT_EQ(vec(empty({0, 3}).flip({0, 1}).sizes()), V({0, 3}));
  Tensor strided = ar({4, 6}).slice(1, 0, 6, 2);  // [4, 3], strides [6, 2]
  expect_close(strided.flip({1}), strided.contiguous().flip({1}), "flip strided");
  for (ScalarType dt : kAllTypes) {
    SCOPED_TRACE(to_string(dt));
    Tensor l = ar({2, 3, 2}, kLong);
    expect_close(l.to(dt).flip({0, 2}), l.flip({0, 2}).to(dt), "flip");
  }
  expect_error<Error>(
      [&] {
        x.flip({0, -2});
      },
      {"flip", "dim 0 appears multiple times", "[0, -2]"});
  expect_error<IndexError>([&] { x.flip({2}); }, {"flip", "dimension out of range"});
}

TEST(Shape, RollShiftsWrapAround) {
  Tensor x = ar({2, 3});
  expect_close(x.roll({1}), tensor({{5.f, 0.f, 1.f}, {2.f, 3.f, 4.f}}), "roll flat");
  expect_close(x.roll({-1}, {1}), tensor({{1.f, 2.f, 0.f}, {4.f, 5.f, 3.f}}), "roll -1 dim 1");
  expect_close(x.roll({7}, {1}), x.roll({1}, {1}), "roll beyond size");
  expect_close(x.roll({3}, {1}), x, "roll full turn");
  expect_close(x.roll({1, 1}, {1, 1}), x.roll({2}, {1}), "roll same dim twice");
  expect_close(x.roll({1, 2}, {0, 1}), x.roll({1}, {0}).roll({2}, {1}), "roll two dims");
  expect_close(x.t().roll({1}, {0}), x.t().contiguous().roll({1}, {0}), "roll strided");
  expect_close(x.t().roll({2}), x.t().contiguous().roll({2}), "roll flat strided");
  expect_close(full({}, 2.0).roll({3}), full({}, 2.0), "roll 0-dim");
  EXPECT_EQ(vec(empty({0, 3}).roll({1}, {0}).sizes()), V({0, 3}));
  for (ScalarType dt : kAllTypes) {
    SCOPED_TRACE(to_string(dt));
    Tensor l = ar({3, 4}, kLong);
    expect_close(l.to(dt).roll({1, -1}, {0, 1}), l.roll({1, -1}, {0, 1}).to(dt), "roll");
  }
}

TEST(Shape, RollErrors) {
  Tensor x = ar({2, 3});
  expect_error<Error>([&] { x.roll({}); }, {"roll", "`shifts` required"});
  expect_error<Error>(
      [&] {
        x.roll({1, 2});
      },
      {"roll", "shifts and dimensions must align", "[1, 2]"});
  expect_error<Error>([&] { x.roll({1, 2}, {0}); }, {"roll", "shifts: 2, dims: 1"});
  expect_error<IndexError>([&] { x.roll({1}, {2}); }, {"roll", "dimension out of range"});
}

// ---- tril / triu ----

TEST(Shape, TrilTriuBatchedDtypesAndShapes) {
  Tensor x = ones({2, 3, 4}, kFloat);
  Tensor lo = tril(x, -1);
  EXPECT_EQ(lo.sum().item<double>(), 2 * 3);  // 0 + 1 + 2 per matrix
  Tensor up = x.triu(1);
  EXPECT_EQ(up.sum().item<double>(), 2 * (3 + 2 + 1));
  expect_close(x.tril(10), x, "tril beyond");
  expect_close(x.triu(-10), x, "triu beyond");
  EXPECT_EQ(x.triu(10).sum().item<double>(), 0);
  EXPECT_EQ(vec(tril(empty({0, 3, 3})).sizes()), V({0, 3, 3}));
  EXPECT_EQ(vec(triu(empty({3, 0})).sizes()), V({3, 0}));
  Tensor strided = ar({5, 8}).slice(1, 0, 8, 2);
  expect_close(strided.tril(1), strided.contiguous().tril(1), "tril strided");
  Tensor in = ar({3, 3});
  Tensor out = in.triu();
  EXPECT_FALSE(same_storage(in, out));
  EXPECT_EQ(in[2][0].item<float>(), 6);  // the input is untouched
  for (ScalarType dt : kAllTypes) {
    SCOPED_TRACE(to_string(dt));
    Tensor l = ar({2, 3, 3}, kLong) + 1;
    expect_close(l.to(dt).tril(), l.tril().to(dt), "tril");
    expect_close(l.to(dt).triu(1), l.triu(1).to(dt), "triu");
  }
  expect_error<Error>([&] { tril(ar({3})); }, {"tril", "at least 2 dimensions", "[3]"});
  expect_error<Error>([&] { full({}, 1.0).triu(); }, {"triu", "at least 2 dimensions"});
}

// ---- constant_pad_nd ----

TEST(Shape, ConstantPadPadsAndCrops) {
  Tensor x = ar({2, 3});
  Tensor p = constant_pad_nd(x, {1, 1, 0, 1}, 9);
  EXPECT_EQ(vec(p.sizes()), V({3, 5}));
  expect_close(
      p, tensor({{9.f, 0.f, 1.f, 2.f, 9.f}, {9.f, 3.f, 4.f, 5.f, 9.f}, {9.f, 9.f, 9.f, 9.f, 9.f}}),
      "pad");
  expect_close(constant_pad_nd(x, {-1, 0}), tensor({{1.f, 2.f}, {4.f, 5.f}}), "crop left");
  expect_close(constant_pad_nd(x, {-3, 1}, 7), full({2, 1}, 7.0), "crop all, pad one");
  expect_close(constant_pad_nd(x, {-4, 2}, 7), full({2, 1}, 7.0), "crop past the data");
  expect_close(constant_pad_nd(x, {}), x, "no pad");
  expect_close(constant_pad_nd(x.t(), {0, 1}), constant_pad_nd(x.t().contiguous(), {0, 1}),
               "pad strided");
  EXPECT_EQ(vec(constant_pad_nd(empty({0, 2}), {1, 1, 1, 0}, 1).sizes()), V({1, 4}));
  expect_close(constant_pad_nd(empty({0, 2}), {1, 1, 1, 0}, 1), ones({1, 4}, kFloat),
               "pad zero-size");
  Tensor ints = constant_pad_nd(ar({2}, kLong), {1, 0}, 2.7);
  EXPECT_EQ(ints.dtype(), kLong);
  EXPECT_EQ(ints[0].item<int64_t>(), 2);
  for (ScalarType dt : kAllTypes) {
    SCOPED_TRACE(to_string(dt));
    Tensor l = ar({2, 2}, kLong);
    expect_close(constant_pad_nd(l.to(dt), {1, -1, 1, 0}, 1),
                 constant_pad_nd(l, {1, -1, 1, 0}, 1).to(dt), "pad");
  }
}

TEST(Shape, ConstantPadErrors) {
  Tensor x = ar({2, 3});
  expect_error<Error>(
      [&] {
        constant_pad_nd(x, {1, 2, 3});
      },
      {"constant_pad_nd", "must be even but instead it equals 3"});
  expect_error<Error>(
      [&] {
        constant_pad_nd(x, {1, 1, 1, 1, 1, 1});
      },
      {"constant_pad_nd", "Pad length is 6 while the input has 2 dimensions"});
  expect_error<Error>(
      [&] {
        constant_pad_nd(x, {-2, -2});
      },
      {"constant_pad_nd",
       "input size 3, plus negative padding -2 and -2 resulted in a negative output size",
       "dimension 1"});
}

// ---- broadcast_tensors / broadcast_shapes ----

TEST(Shape, BroadcastTensorsAreViews) {
  Tensor a = ar({3, 1}), b = ar({4}), c = full({}, 1.0);
  auto out = broadcast_tensors({a, b, c});
  ASSERT_EQ(out.size(), 3u);
  for (const Tensor& t : out) EXPECT_EQ(vec(t.sizes()), V({3, 4}));
  EXPECT_TRUE(same_storage(out[0], a));
  EXPECT_EQ(vec(out[1].strides()), V({0, 1}));
  EXPECT_TRUE(broadcast_tensors({}).empty());
  EXPECT_EQ(vec(broadcast_tensors({empty({0, 1}), ar({3})})[0].sizes()), V({0, 3}));
  expect_error<Error>(
      [&] {
        broadcast_tensors({a, b, ar({2})});
      },
      {"broadcast_tensors", "[3, 4]", "[2]"});
  EXPECT_EQ(broadcast_shapes({2, 1, 3}, {4, 1}), V({2, 4, 3}));
  EXPECT_EQ(broadcast_shapes({}, {5}), V({5}));
  EXPECT_EQ(broadcast_shapes({0, 1}, {1, 7}), V({0, 7}));
  expect_error<Error>(
      [&] {
        broadcast_shapes({2, 3}, {4});
      },
      {"broadcast_shapes", "[2, 3]", "[4]"});
}
