// The elementwise op table: each elementwise op is declared once here. From these rows come the
// dispatch enum (src/dispatch), the public functions and Tensor methods (declared below and in
// tensor.h), the CPU and CUDA kernel instantiations (kernels/*/elementwise_*), and the generic
// tests (tests/ops/op_info.cpp). The math of row `Name` is `NameOp` in kernels/common/*_functors.h.
#pragma once

#include "ember/ops/op_table_attention.h"
#include "ember/ops/op_table_batchnorm.h"
#include "ember/ops/op_table_conv.h"
#include "ember/ops/op_table_optim.h"
#include "ember/ops/op_table_pad.h"
#include "ember/ops/op_table_pool.h"
#include "ember/ops/op_table_resample.h"
#include "ember/ops/op_table_rnn.h"

// Input policy of a unary row:
//   ToFloat   integer and bool inputs are promoted to the default float dtype (exp(int) -> float)
//   Same      the result keeps the input dtype (all dtypes the functor supports)
//   SameBoolToLong  as Same, but bool inputs compute in int64 (square(bool) -> int64, as pow)
//   FloatOnly floating dtypes only; other dtypes are a TypeError
//   Predicate any dtype in, bool out (isnan, logical_not)
// _(name, Name, policy)
#define EMBER_UNARY_OPS(_)              \
  _(exp, Exp, ToFloat)                  \
  _(exp2, Exp2, ToFloat)                \
  _(expm1, Expm1, ToFloat)              \
  _(log, Log, ToFloat)                  \
  _(log1p, Log1p, ToFloat)              \
  _(log2, Log2, ToFloat)                \
  _(log10, Log10, ToFloat)              \
  _(sqrt, Sqrt, ToFloat)                \
  _(rsqrt, Rsqrt, ToFloat)              \
  _(sin, Sin, ToFloat)                  \
  _(cos, Cos, ToFloat)                  \
  _(tan, Tan, ToFloat)                  \
  _(asin, Asin, ToFloat)                \
  _(acos, Acos, ToFloat)                \
  _(atan, Atan, ToFloat)                \
  _(sinh, Sinh, ToFloat)                \
  _(cosh, Cosh, ToFloat)                \
  _(tanh, Tanh, ToFloat)                \
  _(sigmoid, Sigmoid, ToFloat)          \
  _(erf, Erf, ToFloat)                  \
  _(erfc, Erfc, ToFloat)                \
  _(reciprocal, Reciprocal, ToFloat)    \
  _(neg, Neg, Same)                     \
  _(abs, Abs, Same)                     \
  _(sign, Sign, Same)                   \
  _(square, Square, SameBoolToLong)     \
  _(relu, Relu, Same)                   \
  _(floor, Floor, Same)                 \
  _(ceil, Ceil, Same)                   \
  _(trunc, Trunc, Same)                 \
  _(frac, Frac, FloatOnly)              \
  _(silu, Silu, FloatOnly)              \
  _(mish, Mish, FloatOnly)              \
  _(bitwise_not, BitwiseNot, Same)      \
  _(logical_not, LogicalNot, Predicate) \
  _(isnan, IsNan, Predicate)            \
  _(isinf, IsInf, Predicate)            \
  _(isfinite, IsFinite, Predicate)

// Binary rows with one public form each: f(a, b), f(a, scalar), a.f(b), a.f_(b), f_out(out, a, b).
// Result policy:
//   Promote   the common dtype of the operands (PyTorch's result_type)
//   ToFloat   the common dtype, with integer/bool promoted to the default float dtype
//   Compare   computed in the common dtype, result bool
//   Logical   any dtypes, result bool
//   Bitwise   integer and bool dtypes only
// _(name, Name, policy)
#define EMBER_BINARY_OPS(_)           \
  _(mul, Mul, Promote)                \
  _(maximum, Maximum, Promote)        \
  _(minimum, Minimum, Promote)        \
  _(fmod, Fmod, Promote)              \
  _(remainder, Remainder, Promote)    \
  _(pow, Pow, Promote)                \
  _(atan2, Atan2, ToFloat)            \
  _(eq, Eq, Compare)                  \
  _(ne, Ne, Compare)                  \
  _(lt, Lt, Compare)                  \
  _(le, Le, Compare)                  \
  _(gt, Gt, Compare)                  \
  _(ge, Ge, Compare)                  \
  _(logical_and, LogicalAnd, Logical) \
  _(logical_or, LogicalOr, Logical)   \
  _(logical_xor, LogicalXor, Logical) \
  _(bitwise_and, BitwiseAnd, Bitwise) \
  _(bitwise_or, BitwiseOr, Bitwise)   \
  _(bitwise_xor, BitwiseXor, Bitwise)

// Elementwise rows whose public functions take extra arguments and are written by hand in
// elementwise.h. Their kernels come from the generic loops over functor NameOp, registered by each
// backend from this list. _(name, Name, arity)
#define EMBER_SPECIAL_FUNCTOR_OPS(_)  \
  _(add, Add, 2)                      \
  _(sub, Sub, 2)                      \
  _(div, Div, 2)                      \
  _(div_trunc, DivTrunc, 2)           \
  _(div_floor, DivFloor, 2)           \
  _(round, Round, 1)                  \
  _(round_decimals, RoundDecimals, 1) \
  _(clamp, Clamp, 1)                  \
  _(clamp_min, ClampMin, 1)           \
  _(clamp_max, ClampMax, 1)           \
  _(clamp_tensor, ClampTensor, 3)     \
  _(gelu, Gelu, 1)                    \
  _(gelu_tanh, GeluTanh, 1)           \
  _(logit, Logit, 1)                  \
  _(nan_to_num, NanToNum, 1)          \
  _(lerp, Lerp, 3)                    \
  _(addcmul, Addcmul, 3)              \
  _(addcdiv, Addcdiv, 3)              \
  _(threshold_backward, ThresholdBackward, 2)
// Elementwise rows with a kernel of their own in each backend. _(name, Name, arity)
#define EMBER_CUSTOM_KERNEL_ELEMENTWISE_OPS(_) \
  _(where, Where, 3)                           \
  _(cast, Cast, 1)                             \
  _(fill, Fill, 0)
#define EMBER_SPECIAL_ELEMENTWISE_OPS(_) \
  EMBER_SPECIAL_FUNCTOR_OPS(_) EMBER_CUSTOM_KERNEL_ELEMENTWISE_OPS(_)

// Kernel ops of the other families (one kernel slot per device each), with the kind of kernel
// their slot holds (src/dispatch/kernel_signatures.h). _(name, Kind)
#define EMBER_KERNEL_OPS(_)               \
  _(copy, CrossDeviceCopy)                \
  _(sum, Reduce)                          \
  _(prod, Reduce)                         \
  _(amax, Reduce)                         \
  _(amin, Reduce)                         \
  _(mm, Gemm)                             \
  _(bmm, Gemm)                            \
  _(argmax, Reduce)                       \
  _(argmin, Reduce)                       \
  _(var, Reduce)                          \
  _(norm, Reduce)                         \
  _(all, Reduce)                          \
  _(any, Reduce)                          \
  _(cumsum, AlongDim)                     \
  _(cumprod, AlongDim)                    \
  _(softmax, AlongDim)                    \
  _(log_softmax, AlongDim)                \
  _(softmax_backward, AlongDim)           \
  _(log_softmax_backward, AlongDim)       \
  _(sort, AlongDim)                       \
  _(topk, AlongDim)                       \
  _(median, AlongDim)                     \
  _(layer_norm, RowNorm)                  \
  _(layer_norm_backward, RowNormBackward) \
  _(embedding, GatherRows)                \
  _(embedding_bag, BagSumRows)            \
  _(embedding_backward, ScatterAddRows)   \
  _(index_gather, IndexGather)            \
  _(index_put, IndexPut)                  \
  _(masked_fill, MaskedFill)              \
  _(lu_factor, LuFactor)                  \
  _(lu_solve, LuSolve)                    \
  _(cholesky, Cholesky)                   \
  _(geqrf, QrFactor)                      \
  _(orgqr, QrOrgqr)                       \
  _(svd, Svd)                             \
  _(eigh, Eigh)                           \
  EMBER_CONV_KERNEL_OPS(_)                \
  EMBER_POOL_KERNEL_OPS(_)                \
  EMBER_BATCHNORM_KERNEL_OPS(_)           \
  EMBER_PAD_KERNEL_OPS(_)                 \
  EMBER_RNN_KERNEL_OPS(_)                 \
  EMBER_ATTENTION_KERNEL_OPS(_)           \
  EMBER_RESAMPLE_KERNEL_OPS(_)            \
  EMBER_OPTIM_KERNEL_OPS(_)
