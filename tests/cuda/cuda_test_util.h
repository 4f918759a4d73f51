// Helpers shared by the CUDA tests: every dtype, inputs per dtype, and a CPU-vs-CUDA comparison.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember_cuda_test {

inline std::vector<ember::ScalarType> all_dtypes() {
  return {
#define EMBER_TEST_DTYPE(ctype, name, short_name) ember::ScalarType::name,
      EMBER_FORALL_SCALAR_TYPES(EMBER_TEST_DTYPE)
#undef EMBER_TEST_DTYPE
  };
}

inline std::vector<ember::ScalarType> float_dtypes() {
  return {ember::kFloat, ember::kDouble, ember::kHalf, ember::kBFloat16};
}

/// Tolerances for comparing a CUDA result with the CPU one. Libm and CUDA's math library may
/// differ by an ulp or two of float, and nvcc contracts a*b+c into FMAs; a 16-bit result may then
/// round the other way, one ulp of its own type.
struct Tol {
  double rtol, atol;
};
inline Tol tolerance_for(ember::ScalarType t) {
  switch (t) {
    case ember::kFloat:
      return {2e-5, 1e-6};
    case ember::kDouble:
      return {1e-12, 1e-14};
    case ember::kHalf:
      return {2e-3, 1e-3};
    case ember::kBFloat16:
      return {1.6e-2, 1e-2};
    default:
      return {0, 0};
  }
}

/// Expects `cuda_result` (a CUDA tensor) to match `cpu_result`: same dtype and shape, values
/// within the tolerance of the dtype (NaN matches NaN, inf matches inf of the same sign).
inline void expect_matches_cpu(const ember::Tensor& cpu_result, const ember::Tensor& cuda_result,
                               const std::string& what) {
  ASSERT_TRUE(cuda_result.is_cuda()) << what << ": the result is on " << cuda_result.device();
  ember::Tensor got = cuda_result.to(ember::Device(ember::kCPU));
  ASSERT_EQ(got.dtype(), cpu_result.dtype()) << what;
  ASSERT_EQ(got.sizes(), cpu_result.sizes()) << what;
  const Tol tol = tolerance_for(cpu_result.dtype());
  ember::Tensor a = cpu_result.to(ember::kDouble), b = got.to(ember::kDouble);
  EXPECT_TRUE(ember::allclose(b, a, tol.rtol, tol.atol, /*equal_nan=*/true))
      << what << " (" << cpu_result.dtype() << ")\ncpu:  " << a << "\ncuda: " << b;
}

/// Expects `cuda` to match `cpu` (either may be undefined, then both must be): same dtype and
/// shape; int64 results (indices) exactly; others within `tol`, its absolute part scaled by the
/// largest |value| (sums over many elements err in proportion to their size). NaN matches NaN.
inline void expect_close_scaled(const ember::Tensor& cpu, const ember::Tensor& cuda,
                                const std::string& what, Tol tol) {
  ASSERT_EQ(cpu.defined(), cuda.defined()) << what;
  if (!cpu.defined()) return;
  ASSERT_TRUE(cuda.is_cuda()) << what;
  const ember::Tensor got = cuda.to(ember::Device(ember::kCPU));
  ASSERT_EQ(got.dtype(), cpu.dtype()) << what;
  ASSERT_EQ(got.sizes(), cpu.sizes()) << what;
  if (cpu.numel() == 0) return;
  if (cpu.dtype() == ember::kLong) {
    EXPECT_TRUE(ember::equal(got, cpu))
        << what << ": values differ\ncpu:  " << cpu << "\ncuda: " << got;
    return;
  }
  const ember::Tensor a = cpu.to(ember::kDouble), b = got.to(ember::kDouble);
  const double scale = std::max(1.0, a.abs().max().item<double>());
  const double max_err = (a - b).abs().max().item<double>();
  EXPECT_TRUE(ember::allclose(b, a, tol.rtol, tol.atol * scale, /*equal_nan=*/true))
      << what << " (" << cpu.dtype() << "): max |cpu - cuda| = " << max_err << ", scale " << scale;
}

/// Whether `part` occurs in `s` (error-text checks).
inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

/// Values for an op test of `dtype`: floats span [-3, 3] (zero and both signs included), signed
/// integers [-5, 5], uint8 [0, 10], bool alternates.
inline ember::Tensor sample(ember::ScalarType dtype, int64_t n = 97) {
  using namespace ember;
  if (is_floating_point(dtype)) return linspace(-3, 3, n, TensorOptions().dtype(kDouble)).to(dtype);
  Tensor i = remainder(arange(n, TensorOptions().dtype(kLong)), 11);
  if (dtype == kBool) return remainder(i, 2).to(kBool);
  if (dtype == kByte) return i.to(dtype);
  return sub(i, 5).to(dtype);
}

/// A second operand: no zeros for integers (integer division by zero is an error), floats that
/// interleave with sample() without hitting 0.
inline ember::Tensor sample2(ember::ScalarType dtype, int64_t n = 97) {
  using namespace ember;
  if (is_floating_point(dtype))
    return linspace(2.65, -2.55, n, TensorOptions().dtype(kDouble)).to(dtype);
  Tensor i = remainder(arange(n, TensorOptions().dtype(kLong)), 7);
  if (dtype == kBool) return remainder(add(i, 1), 2).to(kBool);
  if (dtype == kByte) return add(i, 1).to(dtype);
  Tensor v = sub(i, 3);  // -3..3, zero mapped to 4
  return where(eq(v, 0), Scalar(4), v).to(dtype);
}

inline ember::Tensor on_cuda(const ember::Tensor& t) {
  return t.to(ember::Device(ember::kCUDA, 0));
}

}  // namespace ember_cuda_test
