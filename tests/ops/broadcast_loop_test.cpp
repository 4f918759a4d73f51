// The CPU loop's path for inputs that stay put along a row (a wrapped scalar, a [N, 1] column):
// their value is repeated into a chunk buffer so the dense body runs. Every result must equal
// the one computed from fully materialised operands, at lengths around the 32-element entry
// point, the 256-element chunk and the thread grain, for every operand position.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "tests/support/expect_error.h"

using namespace ember;

namespace {

const int64_t kLengths[] = {1, 31, 32, 33, 255, 256, 257, 1000, 70001};

Tensor materialised(const Tensor& t, IntArrayRef shape) { return t.expand(shape).contiguous(); }

TEST(BroadcastLoop, WrappedScalarOperandsMatchMaterialisedOnes) {
  manual_seed(3);
  for (int64_t n : kLengths) {
    const Tensor x = randn({n});
    const Tensor half_x = x.to(kHalf);
    const Tensor ints = randint(-50, 50, {n});
    const Tensor s = full({}, 0.75), si = full({}, 7, kLong);
    EXPECT_TRUE(equal(x * 0.75, x * materialised(s.to(kFloat), {n}))) << n;
    EXPECT_TRUE(equal(0.75 - x, materialised(s.to(kFloat), {n}) - x)) << n;
    EXPECT_TRUE(equal(x.pow(2.0), x.pow(materialised(full({}, 2.0f), {n})))) << n;
    EXPECT_TRUE(equal(half_x + 0.75, half_x + materialised(s.to(kHalf), {n}))) << n;
    EXPECT_TRUE(equal(ints * 7, ints * materialised(si, {n}))) << n;
    EXPECT_TRUE(equal(ints.remainder(7), ints.remainder(materialised(si, {n})))) << n;
    EXPECT_TRUE(equal(x.lt(0.5), x.lt(materialised(full({}, 0.5f), {n})))) << n;
    EXPECT_TRUE(equal(x.to(kDouble).div(3), x.to(kDouble).div(materialised(full({}, 3.0), {n}))))
        << n;
  }
}

TEST(BroadcastLoop, ColumnAndZeroDimTensorOperandsMatchMaterialisedOnes) {
  manual_seed(4);
  for (int64_t m : kLengths) {
    const Tensor x = randn({3, m}), col = randn({3, 1}), w = full({}, 0.25f);
    EXPECT_TRUE(equal(x - col, x - materialised(col, {3, m}))) << m;
    EXPECT_TRUE(equal(col * x, materialised(col, {3, m}) * x)) << m;
    EXPECT_TRUE(equal(maximum(x, col), maximum(x, materialised(col, {3, m})))) << m;
    // Ternary rows: one operand broadcast, in each position.
    const Tensor y = randn({3, m});
    EXPECT_TRUE(equal(lerp(x, y, w), lerp(x, y, materialised(w, {3, m})))) << m;
    EXPECT_TRUE(equal(addcmul(x, col, y, 0.5), addcmul(x, materialised(col, {3, m}), y, 0.5))) << m;
    EXPECT_TRUE(equal(addcdiv(col, x, y), addcdiv(materialised(col, {3, m}), x, y))) << m;
  }
}

TEST(BroadcastLoop, InPlaceAndOutFormsWithAScalarOperand) {
  manual_seed(5);
  const Tensor x = randn({5000});
  Tensor a = x.clone();
  a.mul_(3.0).add_(1.0);
  EXPECT_TRUE(
      equal(a, x * materialised(full({}, 3.0f), {5000}) + materialised(full({}, 1.0f), {5000})));
  Tensor out = empty({5000});
  add_out(out, x, full({}, 2.0f));
  EXPECT_TRUE(equal(out, x + materialised(full({}, 2.0f), {5000})));
}

// CPU ops read a wrapped scalar straight from a buffer (no 0-dim tensor): its conversion, the
// out= dtype rules and the integer-division check must be the tensor path's.
TEST(WrappedScalar, ConvertsAsFillAndKeepsTheOutAndErrorRules) {
  const Tensor i = tensor({1, 2, 3}, kLong);
  EXPECT_TRUE(equal(i + int64_t(9007199254740993),
                    tensor({9007199254740994, 9007199254740995, 9007199254740996}, kLong)));
  EXPECT_TRUE(equal(tensor({1.0f}, kHalf) + 0.1, tensor({1.0f}, kHalf) + full({1}, 0.1, kHalf)));
  EXPECT_EQ((i * 2.5).dtype(), kFloat);
  EXPECT_EQ((i < 2).dtype(), kBool);
  Tensor out = empty({3}, kDouble);
  add_out(out, tensor({1.0f, 2.0f, 3.0f}), full({}, 0.5f));
  EXPECT_TRUE(equal(out, tensor({1.5, 2.5, 3.5}, kDouble)));
  Tensor ints = i.clone();
  ember_test::expect_error<TypeError>([&] { ints.add_(0.5); }, {"add", "float32", "int64"});
  ember_test::expect_error([&] { i.remainder(0); }, {"remainder", "division by zero"});
  ember_test::expect_error([&] { i.div(0, "floor"); }, {"division by zero"});
}

}  // namespace
