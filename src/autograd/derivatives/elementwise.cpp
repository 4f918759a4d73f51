// Backward formulas of the elementwise ops, one line per op-table row, in table order. Each is
// written with differentiable ops, so create_graph gives higher derivatives. Gradients come out in
// the broadcast shape and compute dtype; the engine sums and casts them to each input's.
#include "src/autograd/derivatives/elementwise.h"

#include <cmath>

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"

namespace ember::autograd {

namespace {
constexpr double kLn2 = 0.69314718055994530942;
constexpr double kLn10 = 2.30258509299404568402;
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kSqrt1_2 = 0.70710678118654752440;

enum Uses : uint8_t { kNone = 0, kSelf = 1, kOther = 2, kThird = 4, kResult = 8 };

struct Args {
  Tensor grad, self, other, third, result;
  const OpScalars& s;
};
using GradFn = Tensor (*)(const Args&);
}  // namespace
struct ElementwiseFormula {
  const char* node_name;
  uint8_t uses;
  GradFn grad[3];
};
namespace {
using Formula = ElementwiseFormula;

// One gradient expression, with the operands named as in derivatives.yaml.
#define EMBER_GRAD(expr)                                                            \
  [](const Args& a) -> Tensor {                                                     \
    [[maybe_unused]] const Tensor &grad = a.grad, &self = a.self, &other = a.other, \
                                  &third = a.third, &result = a.result;             \
    [[maybe_unused]] const double* s = a.s.s;                                       \
    return expr;                                                                    \
  }
#define EMBER_NO_GRAD nullptr

Tensor zeros_for(const Tensor& grad) { return zeros_like(grad); }
Tensor masked_grad(const Tensor& cond, const Tensor& grad) {
  return where(cond, grad, zeros_like(grad));
}

// name, node name, what the formulas read, d/dself, d/dother, d/dthird
#define EMBER_ELEMENTWISE_DERIVATIVES(_)                                                           \
  _(exp, "ExpBackward0", kResult, EMBER_GRAD(grad* result), EMBER_NO_GRAD, EMBER_NO_GRAD)          \
  _(exp2, "Exp2Backward0", kResult, EMBER_GRAD(grad* result* kLn2), EMBER_NO_GRAD, EMBER_NO_GRAD)  \
  _(expm1, "Expm1Backward0", kResult, EMBER_GRAD(grad*(result + 1)), EMBER_NO_GRAD, EMBER_NO_GRAD) \
  _(log, "LogBackward0", kSelf, EMBER_GRAD(grad / self), EMBER_NO_GRAD, EMBER_NO_GRAD)             \
  _(log1p, "Log1PBackward0", kSelf, EMBER_GRAD(grad / (self + 1)), EMBER_NO_GRAD, EMBER_NO_GRAD)   \
  _(log2, "Log2Backward0", kSelf, EMBER_GRAD(grad / (self * kLn2)), EMBER_NO_GRAD, EMBER_NO_GRAD)  \
  _(log10, "Log10Backward0", kSelf, EMBER_GRAD(grad / (self * kLn10)), EMBER_NO_GRAD,              \
    EMBER_NO_GRAD)                                                                                 \
  _(sqrt, "SqrtBackward0", kResult, EMBER_GRAD(grad / (result * 2)), EMBER_NO_GRAD, EMBER_NO_GRAD) \
  _(rsqrt, "RsqrtBackward0", kResult, EMBER_GRAD(grad* result* result* result * -0.5),             \
    EMBER_NO_GRAD, EMBER_NO_GRAD)                                                                  \
  _(sin, "SinBackward0", kSelf, EMBER_GRAD(grad* self.cos()), EMBER_NO_GRAD, EMBER_NO_GRAD)        \
  _(cos, "CosBackward0", kSelf, EMBER_GRAD(-(grad * self.sin())), EMBER_NO_GRAD, EMBER_NO_GRAD)    \
  _(tan, "TanBackward0", kResult, EMBER_GRAD(grad*(result * result + 1)), EMBER_NO_GRAD,           \
    EMBER_NO_GRAD)                                                                                 \
  _(asin, "AsinBackward0", kSelf, EMBER_GRAD(grad*(1 - self * self).rsqrt()), EMBER_NO_GRAD,       \
    EMBER_NO_GRAD)                                                                                 \
  _(acos, "AcosBackward0", kSelf, EMBER_GRAD(-(grad * (1 - self * self).rsqrt())), EMBER_NO_GRAD,  \
    EMBER_NO_GRAD)                                                                                 \
  _(atan, "AtanBackward0", kSelf, EMBER_GRAD(grad / (self * self + 1)), EMBER_NO_GRAD,             \
    EMBER_NO_GRAD)                                                                                 \
  _(sinh, "SinhBackward0", kSelf, EMBER_GRAD(grad* self.cosh()), EMBER_NO_GRAD, EMBER_NO_GRAD)     \
  _(cosh, "CoshBackward0", kSelf, EMBER_GRAD(grad* self.sinh()), EMBER_NO_GRAD, EMBER_NO_GRAD)     \
  _(tanh, "TanhBackward0", kResult, EMBER_GRAD(grad*(1 - result * result)), EMBER_NO_GRAD,         \
    EMBER_NO_GRAD)                                                                                 \
  _(sigmoid, "SigmoidBackward0", kResult, EMBER_GRAD(grad*(result * (1 - result))), EMBER_NO_GRAD, \
    EMBER_NO_GRAD)                                                                                 \
  _(erf, "ErfBackward0", kSelf, EMBER_GRAD(grad*(-(self * self)).exp() * kTwoOverSqrtPi),          \
    EMBER_NO_GRAD, EMBER_NO_GRAD)                                                                  \
  _(erfc, "ErfcBackward0", kSelf, EMBER_GRAD(grad*(-(self * self)).exp() * -kTwoOverSqrtPi),       \
    EMBER_NO_GRAD, EMBER_NO_GRAD)                                                                  \
  _(reciprocal, "ReciprocalBackward0", kResult, EMBER_GRAD(-(grad * result * result)),             \
    EMBER_NO_GRAD, EMBER_NO_GRAD)                                                                  \
  _(neg, "NegBackward0", kNone, EMBER_GRAD(-grad), EMBER_NO_GRAD, EMBER_NO_GRAD)                   \
  _(abs, "AbsBackward0", kSelf, EMBER_GRAD(grad* self.sign()), EMBER_NO_GRAD, EMBER_NO_GRAD)       \
  _(sign, "SignBackward0", kNone, EMBER_GRAD(zeros_for(grad)), EMBER_NO_GRAD, EMBER_NO_GRAD)       \
  _(square, "PowBackward0", kSelf, EMBER_GRAD(grad* self * 2), EMBER_NO_GRAD, EMBER_NO_GRAD)       \
  _(relu, "ReluBackward0", kResult, EMBER_GRAD(threshold_backward(grad, result, 0)),               \
    EMBER_NO_GRAD, EMBER_NO_GRAD)                                                                  \
  _(floor, "FloorBackward0", kNone, EMBER_GRAD(zeros_for(grad)), EMBER_NO_GRAD, EMBER_NO_GRAD)     \
  _(ceil, "CeilBackward0", kNone, EMBER_GRAD(zeros_for(grad)), EMBER_NO_GRAD, EMBER_NO_GRAD)       \
  _(trunc, "TruncBackward0", kNone, EMBER_GRAD(zeros_for(grad)), EMBER_NO_GRAD, EMBER_NO_GRAD)     \
  _(frac, "FracBackward0", kNone, EMBER_GRAD(grad), EMBER_NO_GRAD, EMBER_NO_GRAD)                  \
  _(silu, "SiluBackward0", kSelf,                                                                  \
    EMBER_GRAD(grad* self.sigmoid() * (1 + self * (1 - self.sigmoid()))), EMBER_NO_GRAD,           \
    EMBER_NO_GRAD)                                                                                 \
  _(mish, "MishBackward0", kSelf, EMBER_GRAD(mish_grad(grad, self)), EMBER_NO_GRAD, EMBER_NO_GRAD) \
  _(mul, "MulBackward0", kSelf | kOther, EMBER_GRAD(grad * other), EMBER_GRAD(grad * self),        \
    EMBER_NO_GRAD)                                                                                 \
  _(maximum, "MaximumBackward0", kSelf | kOther,                                                   \
    EMBER_GRAD(grad * ((self > other) + (self == other) * 0.5)),                                   \
    EMBER_GRAD(grad * ((self < other) + (self == other) * 0.5)), EMBER_NO_GRAD)                    \
  _(minimum, "MinimumBackward0", kSelf | kOther,                                                   \
    EMBER_GRAD(grad * ((self < other) + (self == other) * 0.5)),                                   \
    EMBER_GRAD(grad * ((self > other) + (self == other) * 0.5)), EMBER_NO_GRAD)                    \
  _(fmod, "FmodBackward1", kSelf | kOther, EMBER_GRAD(grad),                                       \
    EMBER_GRAD(-(grad * self.div(other, "trunc"))), EMBER_NO_GRAD)                                 \
  _(remainder, "RemainderBackward1", kSelf | kOther, EMBER_GRAD(grad),                             \
    EMBER_GRAD(-(grad * self.div(other, "floor"))), EMBER_NO_GRAD)                                 \
  _(pow, "PowBackward1", kSelf | kOther | kResult, EMBER_GRAD(pow_grad_self(grad, self, other)),   \
    EMBER_GRAD(pow_grad_exponent(grad, self, other, result)), EMBER_NO_GRAD)                       \
  _(atan2, "Atan2Backward0", kSelf | kOther,                                                       \
    EMBER_GRAD(grad * other / (self * self + other * other)),                                      \
    EMBER_GRAD(-(grad * self) / (self * self + other * other)), EMBER_NO_GRAD)                     \
  _(add, "AddBackward0", kNone, EMBER_GRAD(grad), EMBER_GRAD(s[0] == 1 ? grad : grad * s[0]),      \
    EMBER_NO_GRAD)                                                                                 \
  _(sub, "SubBackward0", kNone, EMBER_GRAD(grad), EMBER_GRAD(grad * -s[0]), EMBER_NO_GRAD)         \
  _(div, "DivBackward0", kSelf | kOther, EMBER_GRAD(grad / other),                                 \
    EMBER_GRAD(-(grad * self) / (other * other)), EMBER_NO_GRAD)                                   \
  _(div_trunc, "DivBackward3", kNone, EMBER_GRAD(zeros_for(grad)), EMBER_GRAD(zeros_for(grad)),    \
    EMBER_NO_GRAD)                                                                                 \
  _(div_floor, "DivBackward3", kNone, EMBER_GRAD(zeros_for(grad)), EMBER_GRAD(zeros_for(grad)),    \
    EMBER_NO_GRAD)                                                                                 \
  _(round, "RoundBackward0", kNone, EMBER_GRAD(zeros_for(grad)), EMBER_NO_GRAD, EMBER_NO_GRAD)     \
  _(round_decimals, "RoundBackward1", kNone, EMBER_GRAD(zeros_for(grad)), EMBER_NO_GRAD,           \
    EMBER_NO_GRAD)                                                                                 \
  _(clamp, "ClampBackward1", kSelf,                                                                \
    EMBER_GRAD(masked_grad((self >= s[0]) & (self <= s[1]), grad)), EMBER_NO_GRAD, EMBER_NO_GRAD)  \
  _(clamp_min, "ClampMinBackward0", kSelf, EMBER_GRAD(masked_grad(self >= s[0], grad)),            \
    EMBER_NO_GRAD, EMBER_NO_GRAD)                                                                  \
  _(clamp_max, "ClampMaxBackward0", kSelf, EMBER_GRAD(masked_grad(self <= s[0], grad)),            \
    EMBER_NO_GRAD, EMBER_NO_GRAD)                                                                  \
  _(clamp_tensor, "ClampBackward0", kSelf | kOther | kThird,                                       \
    EMBER_GRAD(masked_grad((self >= other) & (self <= third), grad)),                              \
    EMBER_GRAD(masked_grad(self < other, grad)),                                                   \
    EMBER_GRAD(masked_grad((self > third) & (self >= other), grad)))                               \
  _(gelu, "GeluBackward0", kSelf, EMBER_GRAD(gelu_grad(grad, self)), EMBER_NO_GRAD, EMBER_NO_GRAD) \
  _(gelu_tanh, "GeluBackward0", kSelf, EMBER_GRAD(gelu_tanh_grad(grad, self)), EMBER_NO_GRAD,      \
    EMBER_NO_GRAD)                                                                                 \
  _(logit, "LogitBackward0", kSelf, EMBER_GRAD(logit_grad(grad, self, s)), EMBER_NO_GRAD,          \
    EMBER_NO_GRAD)                                                                                 \
  _(nan_to_num, "NanToNumBackward0", kSelf, EMBER_GRAD(grad* self.isfinite()), EMBER_NO_GRAD,      \
    EMBER_NO_GRAD)                                                                                 \
  _(lerp, "LerpBackward1", kSelf | kOther | kThird, EMBER_GRAD(grad * (1 - third)),                \
    EMBER_GRAD(grad * third), EMBER_GRAD(grad * (other - self)))                                   \
  _(addcmul, "AddcmulBackward0", kOther | kThird, EMBER_GRAD(grad),                                \
    EMBER_GRAD(grad * third * s[0]), EMBER_GRAD(grad * other * s[0]))                              \
  _(addcdiv, "AddcdivBackward0", kOther | kThird, EMBER_GRAD(grad),                                \
    EMBER_GRAD(grad * s[0] / third), EMBER_GRAD(-(grad * s[0] * other) / (third * third)))         \
  _(threshold_backward, "ThresholdBackwardBackward0", kOther,                                      \
    EMBER_GRAD(threshold_backward(grad, other, s[0])), EMBER_GRAD(zeros_for(grad)), EMBER_NO_GRAD) \
  _(where, "WhereBackward0", kSelf, EMBER_NO_GRAD, EMBER_GRAD(masked_grad(self, grad)),            \
    EMBER_GRAD(masked_grad(self.logical_not(), grad)))                                             \
  _(cast, "ToCopyBackward0", kNone, EMBER_GRAD(grad), EMBER_NO_GRAD, EMBER_NO_GRAD)

Tensor mish_grad(const Tensor& grad, const Tensor& self) {
  Tensor tsp = self.exp().log1p().tanh();  // tanh(softplus(x))
  return grad * (tsp + self * self.sigmoid() * (1 - tsp * tsp));
}
Tensor pow_grad_self(const Tensor& grad, const Tensor& self, const Tensor& exponent) {
  // d/dx x^e = e x^(e-1), defined as 0 where e == 0 (x^0 is constant even at x = 0).
  return masked_grad(exponent != 0, grad * exponent * self.pow(exponent - 1));
}
Tensor pow_grad_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent,
                         const Tensor& result) {
  // d/de x^e = x^e log x, defined as 0 at x == 0 for e >= 0.
  return masked_grad(((self == 0) & (exponent >= 0)).logical_not(), grad * result * self.log());
}
Tensor gelu_grad(const Tensor& grad, const Tensor& x) {
  Tensor cdf = ((x * kSqrt1_2).erf() + 1) * 0.5;
  Tensor pdf = (x * x * -0.5).exp() * kInvSqrt2Pi;
  return grad * (cdf + x * pdf);
}
Tensor gelu_tanh_grad(const Tensor& grad, const Tensor& x) {
  constexpr double kBeta = 0.79788456080286535588;  // sqrt(2 / pi)
  constexpr double kKappa = 0.044715;
  Tensor x_sq = x * x;
  Tensor inner = (x + x_sq * x * kKappa) * kBeta;
  Tensor t = inner.tanh();
  Tensor left_derivative = (t + 1) * 0.5;
  Tensor right_derivative = x * 0.5 * (1 - t * t) * kBeta * (x_sq * (3 * kKappa) + 1);
  return grad * (left_derivative + right_derivative);
}
Tensor logit_grad(const Tensor& grad, const Tensor& x, const double* s) {
  Tensor g = grad / (x * (1 - x));
  if (s[1] != 0)  // with eps: zero outside [eps, 1 - eps]
    return masked_grad((x >= s[0]) & (x <= 1 - s[0]), g);
  // without eps: NaN outside [0, 1]
  return where((x < 0) | (x > 1), full_like(g, std::nan("")), g);
}

// Every elementwise row of the op table has a formula above, or is listed here as one whose result
// carries no gradient (bool or integer results: predicates, comparisons, logical and bitwise rows;
// fill, whose derivative copy.cpp records). A new row with neither fails this file's build, so a
// differentiable op cannot be left silently without its derivative.
constexpr bool has_formula(OpId op) {
  switch (op) {
#define EMBER_HAS_FORMULA_CASE(name, ...) case OpId::name:
    EMBER_ELEMENTWISE_DERIVATIVES(EMBER_HAS_FORMULA_CASE)
#undef EMBER_HAS_FORMULA_CASE
    return true;
    default:
      return false;
  }
}
constexpr bool has_no_gradient(OpId op) {
  switch (op) {
    case OpId::isnan:
    case OpId::isinf:
    case OpId::isfinite:
    case OpId::logical_not:
    case OpId::bitwise_not:
    case OpId::eq:
    case OpId::ne:
    case OpId::lt:
    case OpId::le:
    case OpId::gt:
    case OpId::ge:
    case OpId::logical_and:
    case OpId::logical_or:
    case OpId::logical_xor:
    case OpId::bitwise_and:
    case OpId::bitwise_or:
    case OpId::bitwise_xor:
    case OpId::fill:
      return true;
    default:
      return false;
  }
}
#define EMBER_CHECK_ROW_HAS_FORMULA(name, ...)                                           \
  static_assert(has_formula(OpId::name) != has_no_gradient(OpId::name),                  \
                "elementwise row '" #name                                                \
                "' needs a derivative formula in "                                       \
                "EMBER_ELEMENTWISE_DERIVATIVES (or, if its result carries no gradient, " \
                "a place in has_no_gradient), and not both");
EMBER_UNARY_OPS(EMBER_CHECK_ROW_HAS_FORMULA)
EMBER_BINARY_OPS(EMBER_CHECK_ROW_HAS_FORMULA)
EMBER_SPECIAL_ELEMENTWISE_OPS(EMBER_CHECK_ROW_HAS_FORMULA)
#undef EMBER_CHECK_ROW_HAS_FORMULA

const Formula* formula_for(OpId op) {
  switch (op) {
#define EMBER_FORMULA_CASE(name, node, uses, g0, g1, g2) \
  case OpId::name: {                                     \
    static const Formula f{node, uses, {g0, g1, g2}};    \
    return &f;                                           \
  }
    EMBER_ELEMENTWISE_DERIVATIVES(EMBER_FORMULA_CASE)
#undef EMBER_FORMULA_CASE
    default:
      return nullptr;
  }
}
}  // namespace

bool prepare_elementwise(PendingElementwise& pending, OpId op,
                         std::initializer_list<Operand> inputs, const OpScalars& s,
                         const Tensor* out) {
  const Formula* f = formula_for(op);
  if (!f) return false;
  const Operand& first = *inputs.begin();
  bool in_place = out && first.tensor && out->is_same(*first.tensor);
  if (out && !in_place) throw_out_differentiable(op_name(op));
  if (in_place) InplaceRecording::check_inplace(op_name(op), *out);
  PendingElementwise* p = &pending;
  p->f = f;
  p->s = s;
  p->in_place = in_place;
  size_t i = 0;
  for (const Operand& in : inputs) {
    if (in.tensor) {
      p->edges.push_back(gradient_edge(*in.tensor));
      if (f->uses & (1u << i)) {
        // In place, self is about to be overwritten: its formula needs the old values.
        Tensor keep = (in_place && i == 0) ? in.tensor->clone() : *in.tensor;
        // y.mul_(y): the other operand is the node's own output; saving it plainly would be a
        // reference cycle (and its version check fails at backward, as in LibTorch).
        const bool own_output = in_place && i > 0 && in.tensor->is_same(*out);
        p->saved[i] = own_output ? save_output(keep) : save(keep);
      }
    } else {
      p->edges.push_back(Edge());
      p->scalars[i] = *in.scalar;
      p->is_scalar[i] = true;
    }
    ++i;
  }
  p->n = i;
  return true;
}

namespace {
Grads run_formula(const Formula* f, const OpScalars& s, size_t n, const Tensor& grad,
                  NeedsGrad needs, Tensor self, Tensor other, Tensor third, Tensor result) {
  Args a{grad, std::move(self), std::move(other), std::move(third), std::move(result), s};
  Grads g(n);
  for (size_t i = 0; i < n; ++i)
    if (needs[i] && f->grad[i]) g[i] = f->grad[i](a);
  return g;
}

template <class Formula>
void record_elementwise(PendingElementwise& p, const Tensor& result, Formula&& formula) {
  if (p.in_place)
    record_inplace(p.f->node_name, result, std::move(p.edges), std::forward<Formula>(formula));
  else
    record(p.f->node_name, result, std::move(p.edges), std::forward<Formula>(formula));
}
}  // namespace

void finish_elementwise(PendingElementwise& p, const Tensor& result) {
  if (p.f->uses == kNone) {  // add, sub, neg, ...: a small node that saves nothing
    record_elementwise(p, result, [f = p.f, s = p.s, n = p.n](const Tensor& grad, NeedsGrad needs) {
      return run_formula(f, s, n, grad, needs, {}, {}, {}, {});
    });
    return;
  }
  // Wrapped scalars a formula reads become 0-dim tensors of the result's dtype, as the kernel
  // saw them.
  Tensor scalar_tensors[3];
  for (size_t i = 0; i < p.n; ++i)
    if (p.is_scalar[i] && (p.f->uses & (1u << i)))
      scalar_tensors[i] = scalar_to_tensor(p.scalars[i], result.dtype(), result.device());
  SavedVariable saved_result = (p.f->uses & kResult) ? save_output(result) : SavedVariable();
  record_elementwise(
      p, result,
      [f = p.f, s = p.s, n = p.n, saved0 = std::move(p.saved[0]), saved1 = std::move(p.saved[1]),
       saved2 = std::move(p.saved[2]), c0 = scalar_tensors[0], c1 = scalar_tensors[1],
       c2 = scalar_tensors[2], res = std::move(saved_result)](const Tensor& grad, NeedsGrad needs) {
        return run_formula(f, s, n, grad, needs, c0.defined() ? c0 : saved0.unpack(),
                           c1.defined() ? c1 : saved1.unpack(), c2.defined() ? c2 : saved2.unpack(),
                           res.unpack());
      });
}

}  // namespace ember::autograd
