// Elementwise ops as free functions. The plain rows come from op_table.h; the ones with extra
// arguments are written out below. Each op broadcasts its operands and applies PyTorch's type
// promotion; `*_out` writes into `out` (resized when it is empty or of the wrong size).
#pragma once

#include <optional>
#include <string_view>

#include "ember/core/tensor.h"

namespace ember {

#define EMBER_DECLARE_UNARY_FN(name, Name, policy)     \
  EMBER_API Tensor name(const Tensor& self);           \
  EMBER_API const Tensor& name##_(const Tensor& self); \
  EMBER_API const Tensor& name##_out(const Tensor& out, const Tensor& self);
EMBER_UNARY_OPS(EMBER_DECLARE_UNARY_FN)
#undef EMBER_DECLARE_UNARY_FN

#define EMBER_DECLARE_BINARY_FN(name, Name, policy)               \
  EMBER_API Tensor name(const Tensor& self, const Tensor& other); \
  EMBER_API Tensor name(const Tensor& self, const Scalar& other); \
  EMBER_API Tensor name(const Scalar& self, const Tensor& other); \
  EMBER_API const Tensor& name##_out(const Tensor& out, const Tensor& self, const Tensor& other);
EMBER_BINARY_OPS(EMBER_DECLARE_BINARY_FN)
#undef EMBER_DECLARE_BINARY_FN

EMBER_API Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
EMBER_API Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
EMBER_API const Tensor& add_out(const Tensor& out, const Tensor& self, const Tensor& other,
                                const Scalar& alpha = 1);
EMBER_API Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
EMBER_API Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
EMBER_API const Tensor& sub_out(const Tensor& out, const Tensor& self, const Tensor& other,
                                const Scalar& alpha = 1);
EMBER_API Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
EMBER_API Tensor rsub(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
/// rounding_mode: none (true division; integers give float), "trunc" or "floor".
EMBER_API Tensor div(const Tensor& self, const Tensor& other,
                     std::optional<std::string_view> rounding_mode = std::nullopt);
EMBER_API Tensor div(const Tensor& self, const Scalar& other,
                     std::optional<std::string_view> rounding_mode = std::nullopt);
EMBER_API const Tensor& div_out(const Tensor& out, const Tensor& self, const Tensor& other,
                                std::optional<std::string_view> rounding_mode = std::nullopt);
EMBER_API Tensor true_divide(const Tensor& self, const Tensor& other);
EMBER_API Tensor floor_divide(const Tensor& self, const Tensor& other);
EMBER_API Tensor round(const Tensor& self, int64_t decimals = 0);
EMBER_API Tensor clamp(const Tensor& self, std::optional<Scalar> min,
                       std::optional<Scalar> max = std::nullopt);
EMBER_API Tensor clamp(const Tensor& self, const std::optional<Tensor>& min,
                       const std::optional<Tensor>& max = {});
EMBER_API const Tensor& clamp_out(const Tensor& out, const Tensor& self, std::optional<Scalar> min,
                                  std::optional<Scalar> max = std::nullopt);
EMBER_API Tensor clamp_min(const Tensor& self, const Scalar& min);
EMBER_API Tensor clamp_max(const Tensor& self, const Scalar& max);
EMBER_API const Tensor& clamp_min_out(const Tensor& out, const Tensor& self, const Scalar& min);
EMBER_API const Tensor& clamp_max_out(const Tensor& out, const Tensor& self, const Scalar& max);
EMBER_API Tensor clip(const Tensor& self, std::optional<Scalar> min,
                      std::optional<Scalar> max = std::nullopt);
/// approximate: "none" (0.5·x·(1+erf(x/√2)), LibTorch's default) or "tanh".
EMBER_API Tensor gelu(const Tensor& self, std::string_view approximate = "none");
EMBER_API const Tensor& gelu_out(const Tensor& out, const Tensor& self,
                                 std::string_view approximate = "none");
EMBER_API Tensor logit(const Tensor& self, std::optional<double> eps = std::nullopt);
EMBER_API Tensor nan_to_num(const Tensor& self, std::optional<double> nan = std::nullopt,
                            std::optional<double> posinf = std::nullopt,
                            std::optional<double> neginf = std::nullopt);
EMBER_API Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight);
EMBER_API Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight);
EMBER_API const Tensor& lerp_out(const Tensor& out, const Tensor& self, const Tensor& end,
                                 const Scalar& weight);
EMBER_API const Tensor& lerp_out(const Tensor& out, const Tensor& self, const Tensor& end,
                                 const Tensor& weight);
EMBER_API Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2,
                         const Scalar& value = 1);
EMBER_API Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2,
                         const Scalar& value = 1);
/// grad_output where self > threshold, else 0: the backward of threshold and relu in one pass.
EMBER_API Tensor threshold_backward(const Tensor& grad_output, const Tensor& self,
                                    const Scalar& threshold);
/// Elements of self where condition is true, else of other (broadcast together).
EMBER_API Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other);
EMBER_API Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other);
EMBER_API Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other);
EMBER_API Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other);

/// True when sizes and values are equal (dtypes may differ; NaN != NaN).
EMBER_API bool equal(const Tensor& self, const Tensor& other);
/// |self - other| <= atol + rtol·|other| everywhere.
EMBER_API bool allclose(const Tensor& self, const Tensor& other, double rtol = 1e-5,
                        double atol = 1e-8, bool equal_nan = false);
EMBER_API Tensor isclose(const Tensor& self, const Tensor& other, double rtol = 1e-5,
                         double atol = 1e-8, bool equal_nan = false);

/// PyTorch's torch.result_type for the operands of an elementwise op.
EMBER_API ScalarType result_type(const Tensor& a, const Tensor& b);
EMBER_API ScalarType result_type(const Tensor& a, const Scalar& b);

}  // namespace ember
