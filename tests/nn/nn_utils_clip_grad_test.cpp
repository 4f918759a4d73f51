// ember::nn::utils (src/nn/utils): clip_grad_norm_ / clip_grad_value_ against a plain double
// reference computed here from the gradients' values (the norm of all gradients concatenated,
// and Python's coefficient min(1, max_norm / (total + 1e-6))), plus values pinned from PyTorch
// 1.13, and parameters_to_vector / vector_to_parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/ember.h"
#include "tests/support/expect_error.h"
#include "tests/support/golden.h"

using namespace ember;
namespace nn_utils = ember::nn::utils;

namespace {

using ember_test::expect_error;

std::vector<double> clip_test_values(const Tensor& t) {
  Tensor c = t.to(kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

// The total p-norm of all gradients' values, in double.
double clip_test_reference_norm(const std::vector<Tensor>& grads, double p) {
  double acc = 0;
  for (const Tensor& g : grads) {
    for (double v : clip_test_values(g)) {
      if (std::isinf(p)) {
        acc = std::max(acc, std::abs(v));
      } else {
        acc += std::pow(std::abs(v), p);
      }
    }
  }
  return std::isinf(p) ? acc : std::pow(acc, 1.0 / p);
}

// Parameters of the given shapes and dtype with random gradients scaled by `scale`.
std::vector<Tensor> clip_test_params(ScalarType dtype, double scale) {
  std::vector<Tensor> params;
  const std::vector<std::vector<int64_t>> shapes{{3, 4}, {5}, {2, 1, 3}};
  for (const auto& shape : shapes) {
    Tensor p = zeros(shape, TensorOptions().dtype(dtype)).requires_grad_(true);
    p.mutable_grad() = randn(shape, TensorOptions().dtype(dtype)) * scale;
    params.push_back(p);
  }
  return params;
}

void clip_test_norm_case(ScalarType dtype, double norm_type, double scale, double max_norm) {
  SCOPED_TRACE(::testing::Message() << dtype << " p=" << norm_type << " scale=" << scale);
  manual_seed(7);
  auto params = clip_test_params(dtype, scale);
  std::vector<Tensor> before;
  for (const Tensor& p : params) before.push_back(p.grad().clone());
  const double expected = clip_test_reference_norm(before, norm_type);
  const double total = nn_utils::clip_grad_norm_(params, max_norm, norm_type);
  // float32 norms accumulate in float32 (as PyTorch's): a relative error of a few ulp per
  // element summed; float64 is checked at float64 precision.
  const double rtol = dtype == kFloat64 ? 1e-13 : 1e-5;
  EXPECT_NEAR(total, expected, rtol * expected);
  const double coef = std::min(1.0, max_norm / (expected + 1e-6));
  for (size_t i = 0; i < params.size(); ++i) {
    expect_close(params[i].grad(), before[i] * coef, rtol, 0, "grad " + std::to_string(i));
  }
}

}  // namespace

TEST(NnUtilsClipGrad, NormScalesAllGradsTogether) {
  for (ScalarType dtype : {kFloat32, kFloat64}) {
    for (double p : {2.0, 1.0, 3.0, std::numeric_limits<double>::infinity()}) {
      clip_test_norm_case(dtype, p, 10.0, 1.5);  // clipped
      clip_test_norm_case(dtype, p, 0.01, 5.0);  // below max_norm: unchanged
    }
  }
}

TEST(NnUtilsClipGrad, MatchesPyTorchOnMixedDtypes) {
  // torch.nn.utils.clip_grad_norm_([a, c], 1.0) in PyTorch 1.13 with a.grad = ones(3) (float32)
  // and c.grad = full((2,), 2.) (float64): a's norm is sqrt(3) rounded to float32, the stacked
  // norms are promoted to float64, so the total is not sqrt(11) but 3.316624774120614.
  Tensor a = zeros({3}).requires_grad_(true);
  Tensor c = zeros({2}, TensorOptions().dtype(kFloat64)).requires_grad_(true);
  a.mutable_grad() = ones({3});
  c.mutable_grad() = full({2}, 2.0, TensorOptions().dtype(kFloat64));
  const double total = nn_utils::clip_grad_norm_({a, c}, 1.0);
  EXPECT_NEAR(total, 3.316624774120614, 1e-15);
  EXPECT_EQ(a.grad().dtype(), kFloat32);
  expect_close(a.grad(), full({3}, 0.3015112578868866f), "float32 grad");
  expect_close(c.grad(), full({2}, 0.6030225102891777, TensorOptions().dtype(kFloat64)), 1e-15, 0,
               "float64 grad");
}

TEST(NnUtilsClipGrad, SkipsParametersWithoutGradAndZeroSizeGrads) {
  Tensor with = zeros({2}).requires_grad_(true);
  Tensor without = zeros({4}).requires_grad_(true);
  Tensor empty = zeros({0, 3}).requires_grad_(true);
  with.mutable_grad() = tensor({3.0f, 4.0f});
  empty.mutable_grad() = zeros({0, 3});
  EXPECT_NEAR(nn_utils::clip_grad_norm_({with, without, empty}, 1.0), 5.0, 1e-6);
  EXPECT_FALSE(without.grad().defined());
  expect_close(with.grad(), tensor({3.0f, 4.0f}) * static_cast<float>(1.0 / (5.0 + 1e-6)),
               "clipped");
  with.mutable_grad() = tensor({3.0f, -4.0f});
  EXPECT_EQ(nn_utils::clip_grad_norm_({with, empty}, 10.0, std::numeric_limits<double>::infinity()),
            4.0);
  EXPECT_EQ(nn_utils::clip_grad_norm_(empty, 1.0, std::numeric_limits<double>::infinity()), 0.0);
  EXPECT_EQ(nn_utils::clip_grad_norm_(std::vector<Tensor>{without}, 1.0), 0.0);
  EXPECT_EQ(nn_utils::clip_grad_norm_(std::vector<Tensor>{}, 1.0), 0.0);
}

TEST(NnUtilsClipGrad, NonFiniteNormIsAnErrorOnlyWhenAsked) {
  Tensor p = zeros({3}).requires_grad_(true);
  p.mutable_grad() = tensor({1.0f, std::numeric_limits<float>::infinity(), 2.0f});
  expect_error(
      [&] { nn_utils::clip_grad_norm_(p, 1.0, 2.0, /*error_if_nonfinite=*/true); },
      {"clip_grad_norm_", "total norm of order 2", "non-finite", "error_if_nonfinite=false"});
  EXPECT_EQ(p.grad()[1].item<float>(), std::numeric_limits<float>::infinity());  // unchanged
  EXPECT_TRUE(std::isinf(nn_utils::clip_grad_norm_(p, 1.0)));
}

TEST(NnUtilsClipGrad, ValueClampsEveryGrad) {
  Tensor a = zeros({4}, TensorOptions().dtype(kFloat64)).requires_grad_(true);
  Tensor b = zeros({2}).requires_grad_(true);
  Tensor none = zeros({2}).requires_grad_(true);
  a.mutable_grad() = tensor({-3.0, -0.5, 0.25, 7.0});
  b.mutable_grad() = tensor({2.0f, -2.0f});
  nn_utils::clip_grad_value_({a, b, none}, 1.0);
  expect_close(a.grad(), tensor({-1.0, -0.5, 0.25, 1.0}), "float64");
  expect_close(b.grad(), tensor({1.0f, -1.0f}), "float32");
  EXPECT_FALSE(none.grad().defined());
  nn_utils::clip_grad_value_(a, 0.3);
  expect_close(a.grad(), tensor({-0.3, -0.3, 0.25, 0.3}), "single tensor");
}

TEST(NnUtilsConvertParameters, RoundTripsThroughOneVector) {
  Tensor w = arange(6, TensorOptions().dtype(kFloat32)).reshape({2, 3}).requires_grad_(true);
  Tensor b = tensor({10.0f, 20.0f}).requires_grad_(true);
  Tensor v = nn_utils::parameters_to_vector({w, b});
  expect_close(v, tensor({0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 10.0f, 20.0f}), "flat");
  EXPECT_TRUE(v.requires_grad());  // differentiable, as Python's
  nn_utils::vector_to_parameters(v.detach() * 2, {w, b});
  expect_close(w, arange(6, TensorOptions().dtype(kFloat32)).reshape({2, 3}) * 2, "w");
  expect_close(b, tensor({20.0f, 40.0f}), "b");
  EXPECT_TRUE(w.is_leaf());
}

TEST(NnUtilsConvertParameters, WrongSizesAreErrors) {
  Tensor w = zeros({2, 3});
  Tensor b = zeros({2});
  expect_error<ValueError>(
      [&] {
        nn_utils::vector_to_parameters(zeros({7}), {w, b});
      },
      {"vector_to_parameters", "7 elements", "8"});
  expect_error<ValueError>(
      [&] {
        nn_utils::vector_to_parameters(zeros({9}), {w, b});
      },
      {"9 elements", "8"});
  expect_error<ValueError>(
      [&] {
        nn_utils::vector_to_parameters(zeros({2, 4}), {w, b});
      },
      {"1-D", "[2, 4]"});
  expect_close(w, zeros({2, 3}), "untouched");
  expect_error<ValueError>([&] { nn_utils::parameters_to_vector({}); }, {"at least one"});
}
