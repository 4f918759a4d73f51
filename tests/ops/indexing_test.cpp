// Indexing (src/ops/indexing.cpp): Tensor::index and index_put_ with TensorIndex lists, and the
// gather/scatter family, against PyTorch's golden outputs; then, for index and index_put_, views
// vs copies, writes through views, duplicates, every dtype, non-contiguous and zero-size inputs,
// and each error's message (the gather/scatter family's: gather_scatter_test.cpp).
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

namespace {

using ember_test::expect_error;
using namespace indexing_test;

Tensor run_index_case(const GoldenCase& c) {
  const std::string op = c.op();
  if (op == "index") return c.arg(0).index(golden_index(c));
  if (op == "index_select") return index_select(c.arg(0), c.ints.at(0), c.args.at(1));
  if (op == "gather") return gather(c.arg(0), c.ints.at(0), c.args.at(1));
  if (op == "scatter")
    return c.args.size() == 3 ? scatter(c.arg(0), c.ints.at(0), c.args[1], c.args[2])
                              : scatter(c.arg(0), c.ints.at(0), c.args.at(1), c.scalar_args.at(0));
  if (op == "scatter_add") return scatter_add(c.arg(0), c.ints.at(0), c.args.at(1), c.args.at(2));
  if (op == "index_add")
    return index_add(c.arg(0), c.ints.at(0), c.args.at(1), c.args.at(2),
                     c.scalar_args.empty() ? Scalar(1) : c.scalar_args[0]);
  if (op == "masked_fill")
    return c.args.size() == 3 ? masked_fill(c.arg(0), c.args[1], c.args[2])
                              : masked_fill(c.arg(0), c.args.at(1), c.scalar_args.at(0));
  if (op == "masked_select") return masked_select(c.arg(0), c.args.at(1));
  if (op == "nonzero") return nonzero(c.arg(0));
  if (op == "take") return take(c.arg(0), c.args.at(1));
  throw std::runtime_error("no runner");
}

}  // namespace

// ---- golden ----

TEST(IndexGolden, IndexingOpsMatchPyTorch) {
  const std::vector<std::string> ops = {
      "index",     "index_select", "gather",        "scatter", "scatter_add",
      "index_add", "masked_fill",  "masked_select", "nonzero", "take"};
  std::map<std::string, int> seen;
  for (const GoldenCase& c : load_golden("shape")) {
    if (std::find(ops.begin(), ops.end(), c.op()) == ops.end()) continue;
    SCOPED_TRACE(c.location + " " + c.call);
    ++seen[c.op()];
    Tensor input = c.arg(0).clone();
    try {
      expect_close(run_index_case(c), c.outs.at(0), c.name);
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.name << " threw: " << e.what();
    }
    expect_close(c.arg(0), input, c.name + " must not modify its input");
  }
  for (const std::string& op : ops) EXPECT_GT(seen[op], 0) << "no golden case for " << op;
}

// ---- Tensor::index: basic indexing gives views ----

TEST(Index, BasicIndexingReturnsViewsThatWriteThrough) {
  Tensor x = ar({3, 4, 5});
  Tensor v = x.index({Slice(1, 3), Ellipsis, 2});
  EXPECT_EQ(vec(v.sizes()), V({2, 4}));
  EXPECT_TRUE(same_storage(v, x));
  const uint32_t before = x._version();
  v.fill_(-1);
  EXPECT_GT(x._version(), before);
  EXPECT_EQ(x[1][3][2].item<float>(), -1);
  EXPECT_EQ(x[0][3][2].item<float>(), 17);  // outside the slice
  EXPECT_EQ(x[1][3][3].item<float>(), 38);

  Tensor w = x.index({"...", Slice(None, None, 2)});
  EXPECT_EQ(vec(w.sizes()), V({3, 4, 3}));
  EXPECT_EQ(vec(w.strides()), V({20, 5, 2}));
  EXPECT_TRUE(same_storage(w, x));
  Tensor all = x.index({});
  EXPECT_TRUE(same_storage(all, x));
  EXPECT_FALSE(all.is_same(x));
  EXPECT_EQ(vec(all.sizes()), V({3, 4, 5}));
}

TEST(Index, NoneEllipsisIntegersAndSlices) {
  Tensor x = ar({3, 4, 5});
  EXPECT_EQ(vec(x.index({None}).sizes()), V({1, 3, 4, 5}));
  EXPECT_EQ(vec(x.index({Ellipsis, None}).sizes()), V({3, 4, 5, 1}));
  EXPECT_EQ(vec(x.index({0, None, Slice(), None}).sizes()), V({1, 4, 1, 5}));
  EXPECT_EQ(vec(x.index({Ellipsis, 1, Slice(1, None)}).sizes()), V({3, 4}));
  EXPECT_EQ(vec(x.index({1, Ellipsis}).sizes()), V({4, 5}));
  EXPECT_EQ(vec(x.index({1, 2, 3, Ellipsis}).sizes()), V({}));
  EXPECT_EQ(x.index({-1, -1, -1}).item<float>(), 59);
  EXPECT_EQ(x.index({Slice(-2, None), Slice(None, -3)}).size(1), 1);
  EXPECT_EQ(x.index({Slice(5, 10)}).size(0), 0);
  EXPECT_EQ(x.index({Slice(None, None, 4)}).size(0), 1);
  // A 0-dim integer tensor acts as an integer (a view).
  Tensor by_tensor = x.index({full({}, 2, kLong)});
  EXPECT_TRUE(same_storage(by_tensor, x));
  EXPECT_EQ(vec(by_tensor.sizes()), V({4, 5}));
  // 0-dim input: None and Ellipsis only.
  Tensor s = full({}, 7.0);
  EXPECT_EQ(vec(s.index({None}).sizes()), V({1}));
  EXPECT_EQ(s.index({Ellipsis}).item<float>(), 7);
}

TEST(Index, BoolScalarsAddADim) {
  Tensor x = ar({2, 3});
  Tensor t = x.index({true});
  EXPECT_EQ(vec(t.sizes()), V({1, 2, 3}));
  expect_close(t[0], x, "x[True]");
  EXPECT_EQ(vec(x.index({false}).sizes()), V({0, 2, 3}));
  EXPECT_EQ(vec(x.index({Slice(), true, 1}).sizes()), V({2, 1}));
  EXPECT_EQ(vec(x.index({full({}, false)}).sizes()), V({0, 2, 3}));
}

TEST(Index, AdvancedIndexingPlacesDimsLikeNumpy) {
  Tensor x = ar({3, 4, 5});
  // Adjacent advanced indices stay in place.
  Tensor a = x.index({Slice(), idx({0, 3}), idx({1, 4})});
  EXPECT_EQ(vec(a.sizes()), V({3, 2}));
  EXPECT_EQ(a[2][1].item<float>(), 2 * 20 + 3 * 5 + 4);
  // Separated ones go first.
  Tensor b = x.index({idx({0, 2}), Slice(1, 3), idx({4, 0})});
  EXPECT_EQ(vec(b.sizes()), V({2, 2}));
  EXPECT_EQ(b[1][0].item<float>(), 2 * 20 + 1 * 5 + 0);
  // Index tensors broadcast together: [2, 1] with [3] -> [2, 3].
  Tensor c = x.index({idx({0, 2}).view({2, 1}), Slice(), idx({0, 1, 2})});
  EXPECT_EQ(vec(c.sizes()), V({2, 3, 4}));
  EXPECT_EQ(c[1][2][3].item<float>(), 2 * 20 + 3 * 5 + 2);
  // An integer applies first (a select), so the advanced indices around it become adjacent.
  EXPECT_EQ(vec(x.index({idx({0, 1}), 0, idx({0, 1})}).sizes()), V({2}));
  EXPECT_EQ(vec(x.index({Slice(), idx({0, 1}), None}).sizes()), V({3, 2, 1, 5}));
  // The result is a copy.
  EXPECT_FALSE(same_storage(a, x));
  // operator[] with a tensor.
  expect_close(x[idx({2, -3})], stack({x[2], x[0]}), "operator[](Tensor)");
}

TEST(Index, MasksSelectWithNonzeroPositions) {
  Tensor x = ar({3, 4, 5});
  Tensor m2 = zeros({3, 4}, kBool);
  m2.index_put_({0, 1}, true);
  m2.index_put_({2, 3}, true);
  Tensor sel = x.index({m2});
  EXPECT_EQ(vec(sel.sizes()), V({2, 5}));
  expect_close(sel, stack({x[0][1], x[2][3]}), "2-D mask");
  // A 2-D mask consumes two dims, so the slice applies to the last one (pytorch#71673 fixed).
  Tensor sliced = x.index({m2, Slice(1, 3)});
  EXPECT_EQ(vec(sliced.sizes()), V({2, 2}));
  EXPECT_EQ(sliced[1][0].item<float>(), 2 * 20 + 3 * 5 + 1);
  Tensor m1 = tensor({false, true, true, false});
  EXPECT_EQ(vec(x.index({Slice(), m1}).sizes()), V({3, 2, 5}));
  EXPECT_EQ(vec(x.index({zeros({3, 4, 5}, kBool)}).sizes()), V({0}));
  // uint8 masks still work as masks.
  EXPECT_EQ(vec(x.index({Slice(), m1.to(kByte)}).sizes()), V({3, 2, 5}));
  // Mask on a transposed input follows the logical layout.
  Tensor xt = ar({4, 3}).t();
  expect_close(xt.index({xt > 8}), tensor({9.f, 10.f, 11.f}), "mask on transpose");
}

TEST(Index, NonContiguousAndZeroSize) {
  Tensor base = ar({6, 5});
  Tensor x = base.t().slice(1, 0, 6, 2);  // [5, 3], strides [1, 10]
  Tensor got = x.index({idx({4, 0}), idx({2, 1})});
  expect_close(got, tensor({24.f, 10.f}), "gather through strides");
  EXPECT_EQ(vec(x.index({idx({})}).sizes()), V({0, 3}));
  EXPECT_EQ(vec(empty({0, 3}).index({Slice(), idx({2, 0})}).sizes()), V({0, 2}));
  EXPECT_EQ(vec(empty({0, 3}).index({empty({0}, kBool)}).sizes()), V({0, 3}));
  for (ScalarType dt : kAllTypes) {
    SCOPED_TRACE(to_string(dt));
    Tensor l = ar({3, 4}, kLong);
    expect_close(l.to(dt).index({idx({2, 0}), Slice(1, None, 2)}),
                 l.index({idx({2, 0}), Slice(1, None, 2)}).to(dt), "index");
  }
}

TEST(Index, Errors) {
  Tensor x = ar({3, 4});
  expect_error<IndexError>(
      [&] {
        x.index({0, 0, 0});
      },
      {"index", "too many indices for tensor of dimension 2"});
  expect_error<IndexError>([&] { x.index({zeros({3, 4, 1}, kBool)}); }, {"too many indices"});
  expect_error<IndexError>([&] { full({}, 1.0).index({0}); },
                           {"too many indices for tensor of dimension 0"});
  expect_error<IndexError>([&] { x.index({5}); },
                           {"index", "index 5 is out of bounds for dimension 0 with size 3"});
  expect_error<IndexError>(
      [&] {
        x.index({Slice(), -5});
      },
      {"index -5 is out of bounds for dimension 1 with size 4"});
  expect_error<IndexError>(
      [&] {
        x.index({idx({0, 3})});
      },
      {"index", "index 3 is out of bounds for dimension 0 with size 3"});
  expect_error<IndexError>(
      [&] {
        x.index({Slice(), idx({-5})});
      },
      {"index -5 is out of bounds for dimension 1 with size 4"});
  expect_error<IndexError>(
      [&] {
        x.index({Ellipsis, 0, Ellipsis});
      },
      {"index", "only have a single ellipsis"});
  expect_error<ValueError>([&] { x.index({Slice(None, None, 0)}); },
                           {"index", "step must be greater than zero, got 0"});
  expect_error<TypeError>([&] { x.index({idx({0}).to(kInt)}); },
                          {"index", "must be int64 or bool", "int32"});
  expect_error<TypeError>([&] { x.index({ones({2}, kFloat)}); }, {"index", "float32"});
  expect_error<IndexError>(
      [&] {
        x.index({idx({0, 1}), idx({0, 1, 2})});
      },
      {"index", "shape mismatch", "could not be broadcast together", "[2], [3]"});
  expect_error<IndexError>(
      [&] {
        x.index({zeros({3, 5}, kBool)});
      },
      {"index", "the shape of the mask [3, 5] at index 1 does not match", "[3, 4] at index 1"});
  expect_error<IndexError>(
      [&] {
        empty({0, 3}).index({idx({0})});
      },
      {"index 0 is out of bounds for dimension 0 with size 0"});
  expect_error<Error>([&] { TensorIndex bad("..x"); }, {"TensorIndex", "\"...\"", "\"..x\""});
  expect_error<Error>([&] { x.index({Tensor()}); }, {"index", "undefined"});
}

// ---- index_put_ ----

TEST(IndexPut, BasicIndexingWritesThroughAViewAndBumpsVersion) {
  Tensor x = zeros({3, 4});
  const uint32_t before = x._version();
  x.index_put_({Slice(), 1}, tensor({1.f, 2.f, 3.f}));
  EXPECT_GT(x._version(), before);
  expect_close(x.select(1, 1), tensor({1.f, 2.f, 3.f}), "column put");
  x.index_put_({0}, 5);
  expect_close(x[0], full({4}, 5.0), "row put scalar");
  x.index_put_({Ellipsis}, ones({1, 1, 4}, kFloat));  // leading 1s beyond the rank are dropped
  expect_close(x, ones({3, 4}, kFloat), "broadcast put");
  Tensor t = zeros({2, 3}).t();  // non-contiguous target
  t.index_put_({Slice(1, None)}, 2.5);
  expect_close(t, tensor({{0.f, 0.f}, {2.5f, 2.5f}, {2.5f, 2.5f}}), "put into transpose");
}

TEST(IndexPut, AdvancedDuplicatesAndAccumulate) {
  Tensor x = zeros({5});
  x.index_put_({idx({1, 3})}, tensor({10.f, 30.f}));
  expect_close(x, tensor({0.f, 10.f, 0.f, 30.f, 0.f}), "scatter put");
  Tensor acc = zeros({5});
  index_put_(acc, {idx({1, 1, 4, -1})}, tensor({1.f, 2.f, 3.f, 4.f}), true);
  expect_close(acc, tensor({0.f, 3.f, 0.f, 0.f, 7.f}), "accumulate duplicates");
  Tensor y = ar({3, 4});
  index_put_(y, {Slice(), 0}, ones({3}, kFloat), true);  // accumulate through basic indexing
  expect_close(y.select(1, 0), tensor({1.f, 5.f, 9.f}), "accumulate basic");
  Tensor m = ar({2, 3});
  m.index_put_({m > 2}, -1);
  expect_close(m, tensor({{0.f, 1.f, 2.f}, {-1.f, -1.f, -1.f}}), "mask put");
  Tensor z = ar({3, 4});
  z.index_put_({idx({0, 2}), Slice(1, 3)}, tensor({7.f, 8.f}));
  expect_close(z, tensor({{0.f, 7.f, 8.f, 3.f}, {4.f, 5.f, 6.f, 7.f}, {8.f, 7.f, 8.f, 11.f}}),
               "put rows");
}

TEST(IndexPut, CastsValuesAndReadsBeforeWriting) {
  Tensor x = zeros({3}, kLong);
  x.index_put_({idx({0, 2})}, tensor({1.9, -2.7}));
  expect_close(x, tensor({1, 0, -2}), "float into int64");
  Tensor y = ar({5});
  y.index_put_({idx({0, 1, 2, 3, 4})}, y.flip({0}));
  expect_close(y, tensor({4.f, 3.f, 2.f, 1.f, 0.f}), "reverse in place");
  Tensor z = ar({5});
  z.index_put_({Slice(1, None)}, z.index({Slice(None, -1)}));  // overlapping views
  expect_close(z, tensor({0.f, 0.f, 1.f, 2.f, 3.f}), "overlapping shift");
  Tensor w = ar({4});
  w.index_put_({idx({3, 0})}, w.index({idx({0, 3})}));
  expect_close(w, tensor({3.f, 1.f, 2.f, 0.f}), "swap");
}

TEST(IndexPut, EveryDtypeAndZeroSize) {
  for (ScalarType dt : kAllTypes) {
    SCOPED_TRACE(to_string(dt));
    Tensor l = zeros({2, 3}, kLong), v = tensor({1, 0});
    Tensor x = zeros({2, 3}, dt);
    x.index_put_({idx({1, 0}), 2}, v.to(dt));
    l.index_put_({idx({1, 0}), 2}, v);
    expect_close(x, l.to(dt), "index_put_");
    Tensor a = zeros({3}, dt);
    index_put_(a, {idx({2, 2})}, ones({2}, dt), true);
    Tensor ea = zeros({3}, kLong);
    ea.index_put_({2}, dt == kBool ? 1 : 2);
    expect_close(a, ea.to(dt), "accumulate");
  }
  Tensor x = ar({3});
  x.index_put_({idx({})}, tensor({1.f}).index({Slice(0, 0)}));
  x.index_put_({zeros({3}, kBool)}, 9.f);
  expect_close(x, ar({3}), "empty puts change nothing");
}

TEST(IndexPut, Errors) {
  Tensor x = zeros({3, 4});
  expect_error<Error>(
      [&] {
        x.index_put_({Slice()}, ones({2, 4}, kFloat));
      },
      {"index_put_",
       "shape mismatch: value tensor of shape [2, 4] cannot be broadcast to indexing result of "
       "shape [3, 4]"});
  expect_error<Error>(
      [&] {
        x.index_put_({idx({0, 1})}, ones({3, 4}, kFloat));
      },
      {"index_put_", "value tensor of shape [3, 4]", "indexing result of shape [2, 4]"});
  expect_error<IndexError>([&] { x.index_put_({idx({3})}, 1.f); },
                           {"index_put_", "index 3 is out of bounds for dimension 0 with size 3"});
  expect_error<IndexError>(
      [&] {
        x.index_put_({0, 0, 0}, 1.f);
      },
      {"index_put_", "too many indices"});
  expect_error<TypeError>([&] { x.index_put_({idx({0}).to(kShort)}, 1.f); },
                          {"index_put_", "int16"});
  expect_error<Error>([&] { x.index_put_({0}, Tensor()); }, {"index_put_", "value", "undefined"});
  EXPECT_EQ(x.sum().item<double>(), 0) << "failed puts must not write";
}
