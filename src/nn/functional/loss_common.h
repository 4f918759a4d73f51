// What the loss files share: reductions, the float32 compute dtype for float16/bfloat16, the
// stable softplus, and the checks whose messages name the loss, shapes and dtypes.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "ember/core/tensor.h"
#include "ember/nn/enum.h"
#include "src/core/check.h"
#include "src/nn/functional/layer_checks.h"

namespace ember::nn::functional::detail {

enum class Reduction { kNone, kMean, kSum, kBatchMean };

/// The Reduction a reduction tag variant holds.
template <class... Tags>
Reduction reduction_of(const std::variant<Tags...>& r) {
  return std::visit(
      [](const auto& tag) {
        using T = std::decay_t<decltype(tag)>;
        if constexpr (std::is_same_v<T, enumtype::kNone>) return Reduction::kNone;
        if constexpr (std::is_same_v<T, enumtype::kMean>) return Reduction::kMean;
        if constexpr (std::is_same_v<T, enumtype::kSum>) return Reduction::kSum;
        if constexpr (std::is_same_v<T, enumtype::kBatchMean>) return Reduction::kBatchMean;
      },
      r);
}

/// kNone: the losses as they are; kMean: their mean (nan when empty); kSum: their sum.
Tensor reduce(const Tensor& loss, Reduction r);

/// "[4, 10] float32" (the layer functionals' helper: one function, whichever namespace a file
/// uses).
using layer::describe;

/// float16/bfloat16 are computed in float32 (PyTorch's kernels accumulate in float too), other
/// dtypes as they are; narrow_to rounds a result back to the input's dtype.
Tensor widen(const Tensor& t);
Tensor narrow_to(const Tensor& result, ScalarType dtype);

/// log(1 + exp(z)) without overflow: m + log(exp(-m) + exp(z - m)) with m = max(z, 0) held
/// constant for autograd, so the gradient is exactly sigmoid(z) everywhere (also at z = 0, where
/// a relu/abs split would give a subgradient).
Tensor softplus(const Tensor& z);

/// Throws unless `t` is defined and floating: "<op>: <what> must be a floating tensor ...".
void check_floating(const char* op, const char* what, const Tensor& t);
/// Throws unless `t` is int64: "<op>: <what> must be int64 class indices ...".
void check_class_indices(const char* op, const Tensor& t, const Tensor& input);
/// Throws when a target (other than ignore_index) is outside [0, C), naming the value and C.
void check_class_range(const char* op, const Tensor& target, int64_t num_classes,
                       std::optional<int64_t> ignore_index);
/// Throws unless the weight is a 1-D tensor of C values.
void check_class_weight(const char* op, const Tensor& weight, int64_t num_classes);
/// Throws unless input and target broadcast together, naming the loss and both shapes.
void check_broadcast(const char* op, const Tensor& input, const Tensor& target);
/// Throws unless the shapes are equal (PyTorch's "same size" losses).
void check_same_shape(const char* op, const Tensor& input, const Tensor& target);

}  // namespace ember::nn::functional::detail
