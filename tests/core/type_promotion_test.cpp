// PyTorch's type promotion: tensor-tensor, tensor-scalar, 0-dim tensors, and the error for writing
// a float result into an integer tensor.
#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

TEST(TypePromotion, PromoteTypesMatchesPyTorchTable) {
  EXPECT_EQ(promote_types(kByte, kChar), kShort);
  EXPECT_EQ(promote_types(kByte, kLong), kLong);
  EXPECT_EQ(promote_types(kBool, kByte), kByte);
  EXPECT_EQ(promote_types(kInt, kFloat), kFloat);
  EXPECT_EQ(promote_types(kHalf, kBFloat16), kFloat);
  EXPECT_EQ(promote_types(kHalf, kDouble), kDouble);
  EXPECT_EQ(promote_types(kLong, kHalf), kHalf);
}

TEST(TypePromotion, ScalarsDoNotWidenWithinACategory) {
  EXPECT_EQ((ones({2}, kHalf) + 2.5).dtype(), kHalf);
  EXPECT_EQ((ones({2}, kInt) + 2).dtype(), kInt);
  EXPECT_EQ((ones({2}, kInt) + 2.5).dtype(), kFloat);
  EXPECT_EQ((ones({2}, kBool) + 1).dtype(), kLong);
  EXPECT_EQ((ones({2}, kByte) * true).dtype(), kByte);
}

TEST(TypePromotion, ZeroDimTensorsOnlyRaiseTheCategory) {
  EXPECT_EQ((ones({2}, kFloat) + tensor(1.0, kDouble)).dtype(), kFloat);
  EXPECT_EQ((ones({2}, kInt) + tensor(1.0, kDouble)).dtype(), kDouble);
  EXPECT_EQ((ones({2}, kInt) + tensor(int64_t(1))).dtype(), kInt);
}

TEST(TypePromotion, IntegerTrueDivisionGivesFloatAndComparisonsGiveBool) {
  Tensor a = tensor({7, -7}), b = tensor({2, 2});
  Tensor q = a / b;
  EXPECT_EQ(q.dtype(), kFloat);
  EXPECT_FLOAT_EQ(q[1].item<float>(), -3.5f);
  EXPECT_EQ(div(a, b, "floor").dtype(), kLong);
  EXPECT_EQ(div(a, b, "floor")[1].item<int64_t>(), -4);
  EXPECT_EQ(div(a, b, "trunc")[1].item<int64_t>(), -3);
  EXPECT_EQ((a < b).dtype(), kBool);
}

TEST(TypePromotion, InPlaceRejectsFloatResultIntoIntegerTensor) {
  Tensor i = ones({2}, kLong);
  try {
    i.add_(0.5);
    FAIL() << "add_ wrote a float into an int64 tensor";
  } catch (const TypeError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("add"), std::string::npos) << msg;
    EXPECT_NE(msg.find("float32"), std::string::npos) << msg;
    EXPECT_NE(msg.find("int64"), std::string::npos) << msg;
  }
  i.add_(2);  // int into int is fine
  EXPECT_EQ(i[0].item<int64_t>(), 3);
  Tensor f = ones({2});
  f.add_(tensor({1, 2}));  // int into float is fine
  EXPECT_EQ(f[1].item<float>(), 3.0f);
}

TEST(TypePromotion, IntegerDivisionByZeroRaises) {
  EXPECT_THROW(div(tensor({1, 2}), tensor({1, 0}), "floor"), ValueError);
  EXPECT_THROW(fmod(tensor({1, 2}), tensor({1, 0})), ValueError);
  // Float division by zero is IEEE: inf.
  EXPECT_TRUE(std::isinf((ones({1}) / 0).item<float>()));
}

TEST(TypePromotion, BoolSubtractionIsRejectedWithAHint) {
  Tensor b = ones({2}, kBool);
  try {
    (void)(b - b);
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("logical_xor"), std::string::npos) << e.what();
  }
}

TEST(TypePromotion, FloatAlphaIsRejectedForIntegerOperands) {
  Tensor i = tensor({1, 2});
  try {
    (void)add(i, i, 0.5);
    FAIL() << "add accepted a float alpha for int64 tensors";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("alpha"), std::string::npos) << e.what();
  }
  EXPECT_EQ(add(i, i, 2)[1].item<int64_t>(), 6);
  EXPECT_FLOAT_EQ(add(i.to(kFloat), i, 0.5)[1].item<float>(), 3.0f);
}
