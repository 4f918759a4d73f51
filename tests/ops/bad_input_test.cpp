// Bad input an API fuzzer found (issue #14): calls that crashed, hung or gave silent garbage, each
// now a result or a clear ember::Error naming the op. One test per finding.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "ember/ember.h"
#include "tests/support/expect_error.h"

using namespace ember;
using ember_test::expect_error;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(BadInput, MovedimOfAZeroDimTensor) {
  Tensor t = full({}, 3.0);
  Tensor moved = t.movedim(0, 0);  // was an out-of-range read
  EXPECT_EQ(moved.dim(), 0);
  EXPECT_EQ(moved.item<float>(), 3.0f);
  EXPECT_EQ(t.movedim(-1, 0).dim(), 0);
  expect_error<IndexError>([&] { t.movedim(1, 0); }, {"movedim"});
}

// The minimum over -1 overflows; the CPU's division instruction traps (SIGFPE) on it.
template <class T>
void check_min_over_minus_one(ScalarType dtype) {
  const int64_t lowest = std::numeric_limits<T>::min();
  Tensor a = full({2}, lowest, dtype), b = full({2}, -1, dtype);
  SCOPED_TRACE(to_string(dtype));
  EXPECT_EQ(a.div(b, "trunc")[0].item<int64_t>(), lowest);  // wraps, as two's complement
  EXPECT_EQ(a.div(b, "floor")[0].item<int64_t>(), lowest);
  EXPECT_EQ(a.div(-1, "trunc")[1].item<int64_t>(), lowest);
  EXPECT_EQ(floor_divide(a, b)[0].item<int64_t>(), lowest);
  EXPECT_EQ(remainder(a, b)[0].item<int64_t>(), 0);
  EXPECT_EQ(fmod(a, b)[1].item<int64_t>(), 0);
  EXPECT_EQ(a.remainder(-1)[0].item<int64_t>(), 0);
  // Ordinary values are unchanged by the special case.
  Tensor seven = full({1}, -7, dtype);
  EXPECT_EQ(seven.div(2, "floor").item<int64_t>(), -4);
  EXPECT_EQ(seven.div(-1, "trunc").item<int64_t>(), 7);
  EXPECT_EQ(seven.remainder(3).item<int64_t>(), 2);
  EXPECT_EQ(seven.fmod(3).item<int64_t>(), -1);
}

TEST(BadInput, IntegerMinimumOverMinusOneDoesNotTrap) {
  check_min_over_minus_one<int64_t>(kLong);
  check_min_over_minus_one<int32_t>(kInt);
  check_min_over_minus_one<int16_t>(kShort);
  check_min_over_minus_one<int8_t>(kChar);
}

// Signed overflow is undefined in C++ (UBSan stopped the fuzzer on 2^32 * 2^32); integer
// arithmetic wraps as two's complement, which is what PyTorch's kernels give.
TEST(BadInput, IntegerOverflowWraps) {
  Tensor big = full({1}, int64_t{1} << 32, kLong);
  EXPECT_EQ((big * big).item<int64_t>(), 0);
  EXPECT_EQ(big.pow(2).item<int64_t>(), 0);
  EXPECT_EQ(big.square().item<int64_t>(), 0);
  EXPECT_EQ(full({1}, kMax, kLong).add(1).item<int64_t>(), kMin);
  EXPECT_EQ(full({1}, kMin, kLong).sub(1).item<int64_t>(), kMax);
  EXPECT_EQ(full({1}, kMin, kLong).neg().item<int64_t>(), kMin);
  EXPECT_EQ(full({1}, kMin, kLong).abs().item<int64_t>(), kMin);
  EXPECT_EQ((full({1}, 256, kShort) * 256).item<int64_t>(), 0);
  EXPECT_EQ((full({1}, 65535, kInt) * 65537).item<int64_t>(), -1);  // 2^32 - 1 wraps to -1
  EXPECT_EQ(full({3}, kMax, kLong).sum().item<int64_t>(), kMax - 2);
}

TEST(BadInput, FactoriesCheckTheirElementAndByteCounts) {
  // numel 2^64 wrapped to 0 and gave an empty storage that select(...).fill_ then wrote past.
  expect_error<ValueError>([] { zeros({int64_t{1} << 62, 4}); }, {"zeros", "2^63"});
  expect_error<ValueError>([] { ones({int64_t{1} << 62, 4}); }, {"ones"});
  expect_error<ValueError>([] { full({int64_t{1} << 62, 4}, 1.0); }, {"full"});
  expect_error<ValueError>([] { empty({int64_t{1} << 40, int64_t{1} << 40}); }, {"empty"});
  // 2^62 elements fit in int64, their bytes do not.
  expect_error<ValueError>([] { empty({int64_t{1} << 62}); }, {"empty", "bytes"});
  expect_error<ValueError>([] { empty_strided({2, 2}, {int64_t{1} << 62, 1}); }, {"empty_strided"});
  expect_error<ValueError>([] { empty_strided({2}, {-1}); }, {"empty_strided", "negative"});
  expect_error<ValueError>([] { eye(int64_t{1} << 40, int64_t{1} << 40); }, {"eye"});
  expect_error<ValueError>([] { linspace(0, 1, int64_t{1} << 62); }, {"linspace"});
  expect_error<ValueError>([] { arange(0, kMax, 1).sum(); }, {"arange"});
  expect_error<ValueError>([] { arange(kMin, kMax, 1); }, {"arange"});
  expect_error<ValueError>([] { arange(0.0, 1e300, 1e-300); }, {"arange"});
  // A negative num_embeddings with a padding_idx: refused before -num_embeddings is formed.
  expect_error<ValueError>([] { nn::Embedding(nn::EmbeddingOptions(kMin, 4).padding_idx(0)); },
                           {"num_embeddings must be >= 0", std::to_string(kMin)});
  // roll by INT64_MIN: its backward rolls back by the shift modulo the size, not by -INT64_MIN.
  Tensor r = arange(6, TensorOptions().dtype(kDouble)).requires_grad_();
  Tensor rolled = r.roll({kMin});
  EXPECT_TRUE(rolled.equal(r.detach().roll({4})));  // INT64_MIN = -2 (mod 6)
  (rolled * arange(6, TensorOptions().dtype(kDouble))).sum().backward();
  EXPECT_TRUE(r.grad().equal(arange(6, TensorOptions().dtype(kDouble)).roll({-4})));
  // Values near the int64 limits, where i * step alone overflows but every value fits (found by
  // the fuzzer under UBSan). PyTorch 1.13 returns an empty tensor here: its int64 end - start
  // overflows.
  const Tensor wide = arange(kMin + 1, kMax, int64_t{1} << 62);
  ASSERT_EQ(wide.numel(), 4);
  EXPECT_EQ(wide[0].item<int64_t>(), kMin + 1);
  EXPECT_EQ(wide[1].item<int64_t>(), -(int64_t{1} << 62) + 1);
  EXPECT_EQ(wide[2].item<int64_t>(), 1);
  EXPECT_EQ(wide[3].item<int64_t>(), (int64_t{1} << 62) + 1);
  // A size past int64 in a dim that is not last, with a zero elsewhere, is still empty.
  EXPECT_EQ(zeros({int64_t{1} << 62, 4, 0}).numel(), 0);
}

// On a machine that overcommits memory (the lent GPU VMs), a 4 TiB request was granted and
// linspace's fill ran for hours; found by the fuzzer there. Refused before asking the system.
TEST(BadInput, AllocationsBeyondTheMachinesMemoryAreRefusedAtOnce) {
  expect_error<OutOfMemoryError>([] { linspace(4, 1.67, int64_t{1} << 40); },
                                 {"out of memory", "memory and swap"});
  expect_error<OutOfMemoryError>([] { empty({int64_t{1} << 45}, kByte); }, {"out of memory"});
}

// PyTorch converts an integral bound to the tensor's type with wrap-around (-1 is 255 in uint8);
// CUDA saturated it to 0 while x86 wrapped, so the two devices disagreed (first GPU run).
TEST(BadInput, IntegralClampBoundsWrapToTheTensorsType) {
  const Tensor x = arange(11, TensorOptions().dtype(kByte));
  EXPECT_TRUE(clamp_min(x, -1).equal(full({11}, 255, kByte)));
  EXPECT_TRUE(clamp(x, Scalar(-1), Scalar(2)).equal(full({11}, 2, kByte)));
  EXPECT_TRUE(clamp_max(x, -2).equal(x));  // -2 is 254, above every element
}

TEST(BadInput, ViewsCheckTheirElementCounts) {
  expect_error<ValueError>(
      [] {
        zeros({1}).expand({int64_t{1} << 40, int64_t{1} << 40});
      },
      {"expand", "2^63"});
  // as_strided's bound (3 << 61) * 2 wrapped negative and passed; sum() then read anywhere.
  expect_error<ValueError>([] { zeros({4}).as_strided({3}, {int64_t{3} << 61}).sum(); },
                           {"as_strided"});
  expect_error<Error>([] { zeros({4}).as_strided({2}, {kMax / 2 + 1}, 0); }, {"as_strided"});
  expect_error<ValueError>([] { zeros({2}).repeat({int64_t{1} << 62}); }, {"repeat"});
  expect_error<ValueError>([] { zeros({2}).tile({int64_t{1} << 62}); }, {"tile"});
  expect_error<ValueError>([] { zeros({2, 2}).repeat({int64_t{1} << 62, 4}); }, {"repeat"});
}

TEST(BadInput, ChunkWithHugeCounts) {
  // The empty dim was split into 2^40 empty tensors, one at a time.
  expect_error<ValueError>([] { zeros({1, 0, 1}).chunk(int64_t{1} << 40, 1); }, {"chunk"});
  EXPECT_EQ(zeros({1, 0, 1}).chunk(3, 1).size(), 3u);  // PyTorch's count for a small one
  // n + chunks - 1 overflowed for chunks = INT64_MAX.
  std::vector<Tensor> parts = arange(5).chunk(kMax, 0);
  ASSERT_EQ(parts.size(), 5u);
  EXPECT_EQ(parts[4].item<int64_t>(), 4);
}

TEST(BadInput, SliceNarrowAndTriangleArithmeticDoesNotWrap) {
  Tensor x = arange(10);
  Tensor every = x.slice(0, 0, 10, kMax);  // (end - start + step - 1) / step wrapped
  ASSERT_EQ(every.numel(), 1);
  EXPECT_EQ(every.item<int64_t>(), 0);
  EXPECT_EQ(x.slice(0, 3, 10, kMax / 2).item<int64_t>(), 3);
  expect_error<IndexError>([&] { x.narrow(0, 1, kMax); }, {"narrow"});
  Tensor m = ones({3, 4});
  EXPECT_TRUE(m.tril(kMax).equal(m));
  EXPECT_EQ(m.tril(kMin).sum().item<float>(), 0.0f);
  EXPECT_EQ(m.triu(kMax).sum().item<float>(), 0.0f);
  EXPECT_TRUE(m.triu(kMin).equal(m));
  EXPECT_EQ(m.tril(1).sum().item<float>(), 3.0f + 3 + 3);  // ordinary diagonals unchanged
}

TEST(BadInput, RandomFactoriesRefuseDtypesThatCannotHoldTheRange) {
  expect_error<ValueError>([] { randint(-5, -2, {8}, kByte); }, {"randint", "uint8"});
  expect_error<ValueError>([] { randint(0, 257, {8}, kByte); }, {"randint"});
  expect_error<ValueError>([] { randint(0, (int64_t{1} << 24) + 2, {8}, kFloat); }, {"randint"});
  Tensor bytes = randint(0, 256, {64}, kByte);
  EXPECT_EQ(bytes.dtype(), kByte);
  // Values past 2^53 stay exact (they went through double).
  const int64_t base = int64_t{1} << 60;
  Tensor big = randint(base, base + 4, {64});
  EXPECT_GE(big.min().item<int64_t>(), base);
  EXPECT_LT(big.max().item<int64_t>(), base + 4);
  EXPECT_GT(big.max().item<int64_t>(), base);
  // The widest range: high - low wrapped.
  Tensor wide = randint(kMin, kMax, {16});
  EXPECT_EQ(wide.numel(), 16);
  expect_error<ValueError>([] { randperm(int64_t{1} << 40, kBFloat16); }, {"randperm", "bfloat16"});
  expect_error<ValueError>([] { randperm(300, kByte); }, {"randperm"});
  EXPECT_EQ(randperm(256, kByte).max().item<int64_t>(), 255);
}

TEST(BadInput, ConstantPadReportsPaddingThatOverflows) {
  expect_error<ValueError>(
      [] {
        constant_pad_nd(zeros({2}), {kMax, kMax});
      },
      {"constant_pad_nd", "overflows"});
  expect_error<ValueError>([] { constant_pad_nd(zeros({2}), {kMin, kMax}); }, {"constant_pad_nd"});
  EXPECT_EQ(constant_pad_nd(ones({2}), {1, -1}).sizes().vec(), std::vector<int64_t>{2});
}

TEST(BadInput, WritesIntoOverlappingMemoryAreRefused) {
  // Every element of a row of the expanded tensor is one memory location: add_ gave 2s.
  Tensor base = zeros({3});
  expect_error<Error>(
      [&] {
        base.expand({2, 3}).add_(1);
      },
      {"add", "more than one element of the written-to tensor"});
  expect_error<Error>([&] { base.expand({2, 3}).copy_(ones({2, 3})); }, {"copy_"});
  expect_error<Error>([&] { add_out(base.expand({2, 3}), ones({2, 3}), ones({2, 3})); }, {"add"});
  expect_error<Error>([&] { base.expand({2, 3}).relu_(); }, {"relu"});
  EXPECT_EQ(base.sum().item<float>(), 0.0f);
  // LibTorch allows fill_ and zero_ (every write stores the same value), and size-1 dims.
  base.expand({2, 3}).fill_(2);
  EXPECT_EQ(base.sum().item<float>(), 6.0f);
  Tensor one = zeros({1, 3});
  one.expand({1, 3}).add_(1);
  EXPECT_EQ(one.sum().item<float>(), 3.0f);
}

TEST(BadInput, TensorHooksMayNotChangeTheGradientsShapeOrType) {
  Tensor x = ones({2, 3}, requires_grad());
  Tensor y = x * 2;
  y.register_hook([](const Tensor&) { return ones({3}); });  // was summed to fit
  expect_error<Error>([&] { y.sum().backward(); }, {"hook", "sizes [3]", "[2, 3]"});
  Tensor x2 = ones({2}, requires_grad());
  Tensor y2 = x2 * 2;
  y2.register_hook([](const Tensor& g) { return g.to(kDouble); });
  expect_error<Error>([&] { y2.sum().backward(); }, {"hook", "float64"});
  Tensor x3 = ones({2}, requires_grad());
  Tensor y3 = x3 * 2;
  y3.register_hook([](const Tensor& g) { return g * 10; });  // values may change
  y3.sum().backward();
  EXPECT_EQ(x3.grad()[0].item<float>(), 20.0f);
}

TEST(BadInput, AnIntegerGradientIsCastToTheOutputsDtype) {
  Tensor x = ones({2}, requires_grad());
  Tensor y = x / 4;
  y.backward(ones({2}, kLong));  // run in int64, 1 / 4 floored to 0
  EXPECT_EQ(x.grad().dtype(), kFloat);
  EXPECT_EQ(x.grad()[0].item<float>(), 0.25f);
}

TEST(BadInput, MessagesNameTheOpTheUserCalled) {
  expect_error<IndexError>(
      [] {
        gather(zeros({2, 3}), 1, tensor({{5}}));
      },
      {"gather", "index 5", "[2, 3]", "float32", "int64", "[1, 1]"});
  expect_error<Error>([] { matmul(zeros({2, 3}), zeros({4, 5})); }, {"matmul"});
  expect_error<Error>([] { matmul(zeros({3}), zeros({4})); }, {"matmul"});
  expect_error<TypeError>([] { matmul(zeros({2, 2}), zeros({2, 2}, kDouble)); }, {"matmul"});
  expect_error<ValueError>([] { zeros({-1}); }, {"zeros"});
  expect_error<ValueError>([] { ones({2, -3}); }, {"ones"});
  expect_error<Error>([] { zeros({2}).tile({-1}); }, {"tile"});
}

// Found in review: each compiled (or ran) but meant something else.
TEST(BadInput, ReviewFindings) {
  // A literal 0 took the const char* overload of norm (a null pointer) instead of ord 0.
  Tensor v = tensor({0.0, 2.0, -3.0, 0.0}, kDouble);
  EXPECT_EQ(linalg::norm(v, 0).item<double>(), 2.0);
  EXPECT_EQ(linalg::norm(v, 1).item<double>(), 5.0);
  EXPECT_EQ(linalg::norm(ones({2, 2}, kDouble), "fro").item<double>(), 2.0);
  expect_error<Error>([] { linalg::matrix_norm(ones({2, 2}), 0); }, {"matrix_norm"});
  // An int64_t dim is a dim (the int overloads made it ambiguous with unbiased).
  const int64_t dim = 1;
  Tensor x = tensor({{0.0, 2.0}, {4.0, 4.0}}, kDouble);
  EXPECT_EQ(x.var(dim).sizes().vec(), std::vector<int64_t>{2});
  EXPECT_EQ(var(x, dim)[0].item<double>(), 2.0);
  EXPECT_EQ(std::get<0>(std_mean(x, dim))[1].item<double>(), 0.0);
  // Scaled elu: the negative branch's expm1 overflowed for large x, and its gradient was NaN.
  Tensor big = tensor({100.0f, -1.0f}).requires_grad_();
  elu(big, 1.0, 2.0, 1.0).sum().backward();
  EXPECT_EQ(big.grad()[0].item<float>(), 2.0f);
  EXPECT_NEAR(big.grad()[1].item<float>(), 2.0f * std::exp(-1.0f), 1e-6);
  // feature_dropout in eval mode returns its input whatever the rank, as ATen.
  Tensor flat = ones({3});
  EXPECT_TRUE(feature_dropout(flat, 0.5, /*train=*/false).equal(flat));
  expect_error<Error>([&] { feature_dropout(flat, 0.5, /*train=*/true); }, {"feature_dropout"});
}

}  // namespace
