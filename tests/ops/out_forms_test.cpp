// The out= forms of the reductions and products (sum_out, max_out, matmul_out, ...) and
// Tensor::lerp_: each equals its plain op, follows LibTorch's dtype rules (expected values from
// PyTorch 1.13), resizes any out (warning when it held elements), refuses inputs that require grad,
// bumps out's version once, and names the op in its errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "tests/support/expect_error.h"

using namespace ember;
using ember_test::expect_error;

namespace {

const Tensor kOutX = tensor({{1.5, 2.5}, {1.25, 3.0}});

void expect_out_values(const Tensor& t, const std::vector<double>& expected) {
  const Tensor flat = t.to(kDouble).contiguous().view({-1});
  ASSERT_EQ(flat.numel(), static_cast<int64_t>(expected.size())) << t;
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_DOUBLE_EQ(flat[static_cast<int64_t>(i)].item<double>(), expected[i]) << "at " << i;
}

// An out= call against its plain op, for an empty out (resized) and a right-shaped one: the same
// values and dtype, the returned reference is out, and out's version moves by exactly one.
void expect_out_matches(const char* what, const Tensor& expected,
                        const std::function<const Tensor&(const Tensor&)>& call) {
  for (bool empty_out : {true, false}) {
    Tensor out = empty_out ? empty({0}, expected.options())
                           : full(expected.sizes(), -7.0, expected.options());
    const uint32_t version = out._version();
    const Tensor& r = call(out);
    EXPECT_TRUE(r.is_same(out)) << what;
    EXPECT_EQ(out._version(), version + 1) << what;
    EXPECT_EQ(out.sizes(), expected.sizes()) << what;
    EXPECT_TRUE(out.equal(expected)) << what << ": " << out << " vs " << expected;
  }
}

TEST(OutForms, ReductionsMatchThePlainOps) {
  const Tensor x = arange(24, dtype(kFloat)).view({2, 3, 4}) * 0.25 - 2;
  expect_out_matches("sum dim", sum(x, {1}, true),
                     [&](const Tensor& o) -> const Tensor& { return sum_out(o, x, {1}, true); });
  expect_out_matches("sum all dims", sum(x, IntArrayRef()), [&](const Tensor& o) -> const Tensor& {
    return sum_out(o, x, OptionalIntArrayRef());
  });
  expect_out_matches("sum full", sum(x),
                     [&](const Tensor& o) -> const Tensor& { return sum_out(o, x); });
  expect_out_matches("mean", mean(x, {0, 2}), [&](const Tensor& o) -> const Tensor& {
    return mean_out(o, x, {0, 2});
  });
  expect_out_matches("prod dim", prod(x, 2),
                     [&](const Tensor& o) -> const Tensor& { return prod_out(o, x, 2); });
  expect_out_matches("prod full", prod(x),
                     [&](const Tensor& o) -> const Tensor& { return prod_out(o, x); });
  expect_out_matches("amax", amax(x, {2}),
                     [&](const Tensor& o) -> const Tensor& { return amax_out(o, x, {2}); });
  expect_out_matches("amin keepdim", amin(x, {0}, true),
                     [&](const Tensor& o) -> const Tensor& { return amin_out(o, x, {0}, true); });
  expect_out_matches("cumsum", cumsum(x, 1),
                     [&](const Tensor& o) -> const Tensor& { return cumsum_out(o, x, 1); });
  expect_out_matches("cumprod", cumprod(x, -1),
                     [&](const Tensor& o) -> const Tensor& { return cumprod_out(o, x, -1); });
  expect_out_values(sum_out(empty({0}), kOutX, {0}), {2.75, 5.5});
  expect_out_values(amax_out(empty({0}), kOutX), {3.0});  // dim defaults to every dim
}

TEST(OutForms, SumProdCumsumComputeInOutsDtype) {
  // As LibTorch: without dtype, the reduction runs in out's dtype (float inputs truncated first).
  expect_out_values(sum_out(empty({0}, dtype(kLong)), kOutX, {0}), {2, 5});
  Tensor as_double = empty({0}, dtype(kDouble));
  sum_out(as_double, kOutX, {0});
  EXPECT_EQ(as_double.dtype(), kDouble);
  expect_out_values(as_double, {2.75, 5.5});
  expect_out_values(prod_out(empty({0}, dtype(kLong)), kOutX, 0), {1, 6});
  expect_out_values(cumsum_out(empty({0}, dtype(kLong)), kOutX, 0), {1, 2, 2, 5});
  // sum_out(out, self, dtype): the dtype overload.
  expect_out_values(sum_out(empty({0}, dtype(kDouble)), kOutX, kDouble), {8.25});
  // An explicit dtype must be out's.
  expect_error<TypeError>([] { sum_out(empty({0}), kOutX, {0}, false, kDouble); },
                          {"sum_out: expected out to have dtype float64, but got float32"});
  expect_error<TypeError>([] { cumsum_out(empty({0}), kOutX, 0, kDouble); },
                          {"cumsum_out", "float64"});
  // mean: a float result cannot go into an integer out; a double out computes in double.
  expect_error<TypeError>([] { mean_out(empty({0}, dtype(kLong)), kOutX, {0}); },
                          {"mean_out", "can't be cast", "int64"});
  expect_out_values(mean_out(empty({0}, dtype(kDouble)), kOutX, {0}), {1.375, 2.75});
  // amax/amin/max/min need out in self's dtype.
  expect_error<TypeError>([] { amax_out(empty({0}, dtype(kDouble)), kOutX, {0}); },
                          {"amax_out: expected out to have dtype float32, but got float64"});
  expect_error<TypeError>([] { amin_out(empty({0}, dtype(kLong)), kOutX, {0}); },
                          {"amin_out", "float32"});
}

TEST(OutForms, MaxAndMinWriteValuesAndIndices) {
  const Tensor x = tensor({{1.0, 5.0, 3.0}, {4.0, 2.0, 6.0}});
  Tensor values = empty({0}), indices = empty({0}, dtype(kLong));
  auto [v, i] = max_out(values, indices, x, 1);
  EXPECT_TRUE(v.is_same(values));
  EXPECT_TRUE(i.is_same(indices));
  expect_out_values(values, {5, 6});
  expect_out_values(indices, {1, 2});
  auto [plain_v, plain_i] = max(x, 1);
  EXPECT_TRUE(values.equal(plain_v));
  EXPECT_TRUE(indices.equal(plain_i));
  Tensor min_values = empty({0}), min_indices = empty({0}, dtype(kLong));
  min_out(min_values, min_indices, x, 0, true);
  EXPECT_EQ(min_values.sizes(), IntArrayRef({1, 3}));
  expect_out_values(min_values, {1, 2, 3});
  expect_out_values(min_indices, {0, 1, 0});
  // LibTorch's rules: values in self's dtype, indices int64; both are checked before either is
  // written.
  Tensor untouched = full({2}, -1.0);
  expect_error<TypeError>([&] { max_out(untouched, empty({0}, dtype(kInt)), x, 1); },
                          {"max_out: expected indices to have dtype int64, but got int32"});
  expect_out_values(untouched, {-1, -1});
  expect_error<TypeError>([&] { min_out(empty({0}, dtype(kDouble)), indices, x, 1); },
                          {"min_out", "values", "float32"});
  Tensor long_indices = full({3}, 0, dtype(kLong));  // another shape: resized (with a warning)
  max_out(untouched, long_indices, x, 1);
  EXPECT_EQ(long_indices.sizes(), IntArrayRef({2}));
}

// Collects the warnings of the calling thread while installed.
class CaptureWarnings : public WarningHandler {
 public:
  void process(const SourceLocation&, const std::string& msg, bool) override {
    messages.push_back(msg);
  }
  std::vector<std::string> messages;
};

TEST(OutForms, AnyOutIsResizedAndANonEmptyOneWarns) {
  // LibTorch's rule: an out of another shape is resized; one that held elements also warns
  // (the deprecation PyTorch announces).
  CaptureWarnings capture;
  WarningHandlerGuard guard(&capture);
  Tensor wrong = zeros({3});
  sum_out(wrong, kOutX, {0});
  EXPECT_EQ(wrong.sizes(), IntArrayRef({2}));
  expect_out_values(wrong, {2.75, 5.5});
  ASSERT_EQ(capture.messages.size(), 1u);
  EXPECT_NE(capture.messages[0].find("sum_out: an out tensor of shape [3] with elements was "
                                     "resized to [2]"),
            std::string::npos)
      << capture.messages[0];
  Tensor same_count = zeros({2, 1});  // same numel, other shape: resized in place
  const void* storage = same_count.data_ptr();
  mean_out(same_count, kOutX, {0});
  EXPECT_EQ(same_count.sizes(), IntArrayRef({2}));
  EXPECT_EQ(same_count.data_ptr(), storage);
  expect_out_values(same_count, {1.375, 2.75});
  EXPECT_EQ(capture.messages.size(), 2u);
  Tensor empty_2d = empty({0, 5});  // empty: resized without a word
  sum_out(empty_2d, kOutX, {1}, true);
  EXPECT_EQ(empty_2d.sizes(), IntArrayRef({2, 1}));
  expect_out_values(empty_2d, {4.0, 4.25});
  EXPECT_EQ(capture.messages.size(), 2u);
  // Another device is refused, naming the op and both devices.
  if (cuda::is_available())
    expect_error([&] { sum_out(zeros({2}, TensorOptions().device(kCUDA)), kOutX, {0}); },
                 {"sum_out: expected out to be on cpu", "cuda"});
}

TEST(OutForms, ResizeIsLibTorchs) {
  Tensor t = arange(6, TensorOptions().dtype(kFloat));
  const void* storage = t.data_ptr();
  t.resize_({2, 2});  // smaller: the same storage, the first elements
  EXPECT_EQ(t.sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(t.data_ptr(), storage);
  expect_out_values(t, {0, 1, 2, 3});
  t.resize_({0});
  EXPECT_EQ(t.numel(), 0);
  t.resize_({4, 4});  // larger: new storage, row-major
  EXPECT_EQ(t.strides(), IntArrayRef({4, 1}));
  Tensor nchw = empty({0});
  nchw.resize_({2, 3, 4, 5}, MemoryFormat::ChannelsLast);
  EXPECT_TRUE(nchw.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_EQ(nchw.strides(), IntArrayRef({60, 1, 15, 3}));
  expect_error([&] { zeros({2}).requires_grad_().resize_({3}); },
               {"resize_: cannot resize a tensor that requires grad"});
  expect_error([&] { zeros({2}).resize_({-1}); }, {"resize_", "non-negative", "[-1]"});
  expect_error(
      [&] {
        zeros({2}).resize_({2, 2}, MemoryFormat::ChannelsLast);
      },
      {"resize_", "rank 4"});
}

TEST(OutForms, RefuseInputsThatRequireGrad) {
  const Tensor leaf = kOutX.clone().requires_grad_(true);
  const std::vector<std::pair<const char*, std::function<void()>>> calls = {
      {"sum_out", [&] { sum_out(empty({0}), leaf, {0}); }},
      {"mean_out", [&] { mean_out(empty({0}), leaf, {0}); }},
      {"prod_out", [&] { prod_out(empty({0}), leaf); }},
      {"amax_out", [&] { amax_out(empty({0}), leaf); }},
      {"max_out", [&] { max_out(empty({0}), empty({0}, dtype(kLong)), leaf, 0); }},
      {"cumsum_out", [&] { cumsum_out(empty({0}), leaf, 0); }},
      {"matmul_out", [&] { matmul_out(empty({0}), leaf, kOutX); }},
      {"addmm_out", [&] { addmm_out(empty({0}), kOutX, kOutX, leaf); }},
  };
  for (const auto& [op, call] : calls)
    expect_error(call, {op, "out=... arguments don't support automatic differentiation"});
  NoGradGuard no_grad;  // as in LibTorch, allowed without grad mode
  expect_out_values(sum_out(empty({0}), leaf, {0}), {2.75, 5.5});
}

TEST(OutForms, ProductsMatchThePlainOps) {
  Generator g(5);
  const Tensor a = randn({3, 4}, g, dtype(kDouble)), b = randn({4, 2}, g, dtype(kDouble));
  const Tensor ba = randn({2, 3, 4}, g, dtype(kDouble)), bb = randn({2, 4, 5}, g, dtype(kDouble));
  const Tensor bias = randn({2}, g, dtype(kDouble));
  expect_out_matches("matmul 2-D", matmul(a, b),
                     [&](const Tensor& o) -> const Tensor& { return matmul_out(o, a, b); });
  expect_out_matches("matmul batched", matmul(ba, bb),
                     [&](const Tensor& o) -> const Tensor& { return matmul_out(o, ba, bb); });
  expect_out_matches("bmm", bmm(ba, bb),
                     [&](const Tensor& o) -> const Tensor& { return bmm_out(o, ba, bb); });
  expect_out_matches("addmm", addmm(bias, a, b, 0.5, 2.0), [&](const Tensor& o) -> const Tensor& {
    return addmm_out(o, bias, a, b, 0.5, 2.0);
  });
  expect_out_values(addmm_out(empty({0}), tensor({1.0, 2.0}), tensor({{1.0, 2.0}, {3.0, 4.0}}),
                              tensor({{1.0, 0.0}, {0.0, 1.0}})),
                    {2, 4, 4, 6});  // beta = alpha = 1
  // out may be an input: the product is computed before out is written.
  Tensor sq = tensor({{1.0, 2.0}, {3.0, 4.0}});
  matmul_out(sq, sq, sq);
  expect_out_values(sq, {7, 10, 15, 22});
  expect_error<TypeError>([&] { matmul_out(empty({0}), a, b); },
                          {"matmul_out: expected out to have dtype float64, but got float32"});
  expect_error<TypeError>([&] { bmm_out(empty({0}), ba, bb); }, {"bmm_out", "float64"});
  expect_error([&] { bmm_out(empty({0}, dtype(kDouble)), a, b); }, {"bmm"});
}

TEST(OutForms, LerpInPlace) {
  const Tensor start = tensor({1.0, 2.0, 4.0}), end = tensor({3.0, 2.0, 0.0});
  Tensor s = start.clone();
  const uint32_t version = s._version();
  const Tensor& r = s.lerp_(end, 0.25);
  EXPECT_TRUE(r.is_same(s));
  EXPECT_EQ(s._version(), version + 1);
  expect_out_values(s, {1.5, 2.0, 3.0});
  EXPECT_TRUE(s.equal(start.lerp(end, 0.25)));
  Tensor t = start.clone();
  t.lerp_(end, tensor({0.0, 0.5, 1.0}));
  expect_out_values(t, {1.0, 2.0, 0.0});
  Tensor rows = zeros({2, 3});
  rows.lerp_(end, tensor({{1.0}, {0.5}}));  // end and weight broadcast to self's shape
  expect_out_values(rows, {3, 2, 0, 1.5, 1, 0});
  // Autograd: through a non-leaf as lerp does, and refused on a leaf that requires grad.
  const Tensor w = tensor({0.25, 0.5, 0.75});
  Tensor x1 = start.clone().requires_grad_(true), e1 = end.clone().requires_grad_(true);
  Tensor x2 = start.clone().requires_grad_(true), e2 = end.clone().requires_grad_(true);
  Tensor y1 = x1 * 2;
  y1.lerp_(e1, w);
  (y1 * tensor({1.0, 2.0, 3.0})).sum().backward();
  (x2 * 2).lerp(e2, w).mul(tensor({1.0, 2.0, 3.0})).sum().backward();
  EXPECT_TRUE(x1.grad().allclose(x2.grad()));
  EXPECT_TRUE(e1.grad().allclose(e2.grad()));
  expect_out_values(x1.grad(), {1.5, 2.0, 1.5});
  expect_error([&] { x1.lerp_(end, 0.5); }, {"lerp", "leaf"});
  expect_error([&] { zeros({3}).lerp_(zeros({2, 3}), 0.5); }, {"lerp", "[2, 3]"});
  expect_error<TypeError>([&] { zeros({3}).lerp_(zeros({3}, dtype(kDouble)), 0.5); },
                          {"lerp_", "same dtype"});
  expect_error<TypeError>([&] { zeros({3}, dtype(kLong)).lerp_(zeros({3}, dtype(kLong)), 1); },
                          {"lerp", "floating"});
}

// Expected values from PyTorch 1.13.
void expect_near_values(const Tensor& t, const std::vector<double>& expected, double rtol) {
  const Tensor flat = t.to(kDouble).contiguous().view({-1});
  ASSERT_EQ(flat.numel(), static_cast<int64_t>(expected.size())) << t;
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(flat[static_cast<int64_t>(i)].item<double>(), expected[i],
                rtol * std::abs(expected[i]))
        << "at " << i;
}

TEST(OutForms, LogsumexpSoftmaxAndLerpOut) {
  Tensor lse = empty({0});
  logsumexp_out(lse, kOutX, {1});
  expect_near_values(lse, {2.8132617473602295, 3.160224199295044}, 1e-6);
  Tensor sm = empty({2, 2});
  EXPECT_TRUE(softmax_out(sm, kOutX, 1).is_same(sm));
  expect_near_values(
      sm, {0.2689414322376251, 0.7310585975646973, 0.14804719388484955, 0.8519527316093445}, 1e-6);
  Tensor lsm = empty({0}, dtype(kDouble));
  log_softmax_out(lsm, kOutX, 0, kDouble);
  expect_near_values(
      lsm, {-0.5759394198788437, -0.9740769841801067, -0.8259394198788437, -0.4740769841801067},
      1e-14);
  expect_error<TypeError>([] { softmax_out(empty({0}, dtype(kDouble)), kOutX, 1); },
                          {"softmax_out", "float32", "float64"});
  const Tensor end = tensor({{0.0f, 1.0f}, {2.0f, 3.0f}});
  Tensor l = empty({0});
  lerp_out(l, kOutX, end, 0.25);
  expect_out_values(l, {1.125, 2.125, 1.4375, 3.0});
  lerp_out(l, kOutX, end, tensor({0.5f, 2.0f}));
  expect_out_values(l, {0.75, -0.5, 1.625, 3.0});
  expect_error<TypeError>([&] { lerp_out(empty({0}, dtype(kDouble)), kOutX, end, 0.5); },
                          {"lerp_out", "same dtype"});
}

}  // namespace
