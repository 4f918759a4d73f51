// layer_norm / rms_norm reach their fused kernels through the dispatcher: the CPU backend
// registers `layer_norm` and `layer_norm_backward` for the float dtypes, and a call whose input,
// weight and bias share a dtype records the fused node; a call the kernels cannot take (another
// weight dtype) is composed of ordinary ops instead.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "ember/nn/functional/normalization.h"
#include "src/dispatch/dispatch.h"

using namespace ember;
namespace F = ember::nn::functional;

TEST(NormDispatch, CpuRegistersBothDirectionsForTheFloatDtypes) {
  for (ScalarType t : {kFloat, kDouble, kHalf, kBFloat16}) {
    EXPECT_TRUE(supports(OpId::layer_norm, kCPU, t)) << t;
    EXPECT_TRUE(supports(OpId::layer_norm_backward, kCPU, t)) << t;
  }
  EXPECT_FALSE(supports(OpId::layer_norm, kCPU, kLong));
  EXPECT_FALSE(supports(OpId::layer_norm_backward, kCPU, kInt));
}

TEST(NormDispatch, SameDtypeCallsRecordTheFusedNodeOthersAreComposed) {
  Tensor x = randn({3, 6}).requires_grad_();
  Tensor w = randn({6}), b = randn({6});
  EXPECT_EQ(F::layer_norm(x, F::LayerNormFuncOptions({6}).weight(w).bias(b)).grad_fn()->name(),
            "NativeLayerNormBackward0");
  EXPECT_EQ(F::rms_norm(x, F::RMSNormFuncOptions({6}).weight(w)).grad_fn()->name(),
            "RmsNormBackward0");
  Tensor y = F::layer_norm(x, F::LayerNormFuncOptions({6}).weight(w.to(kDouble)));
  EXPECT_NE(y.grad_fn()->name(), "NativeLayerNormBackward0");
}
