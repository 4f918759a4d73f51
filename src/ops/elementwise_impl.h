// The shared bodies of elementwise ops: promote, broadcast, allocate, dispatch. Each public
// function in elementwise*.cpp is one call into these.
#pragma once

#include "src/ops/op_common.h"

namespace ember {

enum class UnaryPolicy { ToFloat, Same, SameBoolToLong, FloatOnly, Predicate };
enum class BinaryPolicy { Promote, ToFloat, Compare, Logical, Bitwise };

/// An operand that is a tensor or a wrapped scalar.
struct Operand {
  Operand(const Tensor& t) : tensor(&t) {}
  Operand(const Scalar& s) : scalar(&s) {}
  const Tensor* tensor = nullptr;
  const Scalar* scalar = nullptr;
};

/// Runs a unary kernel: returns a new tensor, or writes into `out` when given (in-place when
/// out is self).
Tensor unary_op(OpId op, UnaryPolicy policy, const Tensor& self, const OpScalars& s = {},
                const Tensor* out = nullptr);

/// Runs a binary kernel over a and b (tensors or scalars), broadcasting and promoting.
Tensor binary_op(OpId op, BinaryPolicy policy, Operand a, Operand b, const OpScalars& s = {},
                 const Tensor* out = nullptr);

/// Runs a ternary kernel (all three operands promoted to one dtype unless `compute` is given).
Tensor ternary_op(OpId op, const Tensor& a, const Tensor& b, const Tensor& c,
                  const OpScalars& s = {}, const Tensor* out = nullptr,
                  std::optional<ScalarType> compute = std::nullopt, bool float_only = false);

}  // namespace ember
