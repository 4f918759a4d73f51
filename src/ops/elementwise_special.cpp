// Elementwise ops with extra arguments (alpha, rounding modes, bounds, ...), the operators, and
// the comparisons that return a bool.
#include <cmath>
#include <limits>

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"
#include "src/autograd/derivatives/elementwise.h"
#include "src/ops/elementwise_impl.h"

namespace ember {

namespace {
OpScalars one_scalar(double v) {
  OpScalars s;
  s.s[0] = v;
  return s;
}
void check_alpha(const Scalar& alpha, Operand a, Operand b, const char* op) {
  // Only a floating alpha can be wrong; skip the second result_type on the common add path.
  if (!alpha.isFloatingPoint()) return;
  ScalarType t = result_type_of({a.tensor, b.tensor}, {a.scalar, b.scalar});
  EMBER_CHECK_TYPE(is_floating_point(t) || !alpha.isFloatingPoint(),
                   "{}: for integral input tensors, argument alpha must not be a floating point "
                   "number (got {})",
                   op, alpha);
}
Tensor add_impl(Operand a, Operand b, const Scalar& alpha, const Tensor* out) {
  check_alpha(alpha, a, b, "add");
  return binary_op(OpId::add, BinaryPolicy::Promote, a, b, one_scalar(alpha.toDouble()), out);
}
Tensor sub_impl(Operand a, Operand b, const Scalar& alpha, const Tensor* out) {
  const Tensor* t = a.tensor ? a.tensor : b.tensor;
  EMBER_CHECK_TYPE(
      !(t && t->dtype() == kBool && (!a.tensor || !b.tensor || b.tensor->dtype() == kBool)),
      "sub: subtraction, the `-` operator, with a bool tensor is not supported. "
      "Hint: use logical_xor or bitwise_not instead");
  check_alpha(alpha, a, b, "sub");
  return binary_op(OpId::sub, BinaryPolicy::Promote, a, b, one_scalar(alpha.toDouble()), out);
}
OpId div_op_for(std::optional<std::string_view> mode) {
  if (!mode) return OpId::div;
  if (*mode == "trunc") return OpId::div_trunc;
  if (*mode == "floor") return OpId::div_floor;
  EMBER_FAIL("div: expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{}'",
             std::string(*mode));
}
Tensor div_impl(Operand a, Operand b, std::optional<std::string_view> mode, const Tensor* out) {
  OpId op = div_op_for(mode);
  return binary_op(op, op == OpId::div ? BinaryPolicy::ToFloat : BinaryPolicy::Promote, a, b, {},
                   out);
}
}  // namespace

Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return add_impl(self, other, alpha, nullptr);
}
Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return add_impl(self, other, alpha, nullptr);
}
const Tensor& add_out(const Tensor& out, const Tensor& self, const Tensor& other,
                      const Scalar& alpha) {
  add_impl(self, other, alpha, &out);
  return out;
}
Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return sub_impl(self, other, alpha, nullptr);
}
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return sub_impl(self, other, alpha, nullptr);
}
const Tensor& sub_out(const Tensor& out, const Tensor& self, const Tensor& other,
                      const Scalar& alpha) {
  sub_impl(self, other, alpha, &out);
  return out;
}
Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return sub_impl(other, self, alpha, nullptr);
}
Tensor rsub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return sub_impl(other, self, alpha, nullptr);
}
Tensor div(const Tensor& self, const Tensor& other, std::optional<std::string_view> mode) {
  return div_impl(self, other, mode, nullptr);
}
Tensor div(const Tensor& self, const Scalar& other, std::optional<std::string_view> mode) {
  return div_impl(self, other, mode, nullptr);
}
const Tensor& div_out(const Tensor& out, const Tensor& self, const Tensor& other,
                      std::optional<std::string_view> mode) {
  div_impl(self, other, mode, &out);
  return out;
}
Tensor true_divide(const Tensor& self, const Tensor& other) { return div(self, other); }
Tensor floor_divide(const Tensor& self, const Tensor& other) { return div(self, other, "floor"); }

Tensor round(const Tensor& self, int64_t decimals) {
  if (decimals == 0) return unary_op(OpId::round, UnaryPolicy::Same, self);
  return unary_op(OpId::round_decimals, UnaryPolicy::FloatOnly, self,
                  one_scalar(static_cast<double>(decimals)));
}

namespace {
Tensor clamp_impl(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max,
                  const Tensor* out) {
  check_defined(self, "clamp");
  EMBER_CHECK(min || max, "clamp: at least one of 'min' or 'max' must not be None");
  // A float bound on an integer tensor promotes, as PyTorch's result_type does.
  const Scalar* bound = min ? &*min : &*max;
  ScalarType t = result_type_of({&self}, {bound});
  if (min && max) t = promote_types(t, result_type_of({&self}, {&*max}));
  Tensor in = cast_to(self, t);
  if (min && max) {
    OpScalars s;
    s.s[0] = min->toDouble();
    s.s[1] = max->toDouble();
    return unary_op(OpId::clamp, UnaryPolicy::Same, in, s, out);
  }
  if (min)
    return unary_op(OpId::clamp_min, UnaryPolicy::Same, in, one_scalar(min->toDouble()), out);
  return unary_op(OpId::clamp_max, UnaryPolicy::Same, in, one_scalar(max->toDouble()), out);
}
}  // namespace

Tensor clamp(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  return clamp_impl(self, min, max, nullptr);
}
Tensor clamp(const Tensor& self, const std::optional<Tensor>& min,
             const std::optional<Tensor>& max) {
  bool has_min = min && min->defined(), has_max = max && max->defined();
  EMBER_CHECK(has_min || has_max, "clamp: at least one of 'min' or 'max' must not be None");
  if (has_min && has_max) return ternary_op(OpId::clamp_tensor, self, *min, *max);
  if (has_min) return maximum(self, *min);
  return minimum(self, *max);
}
const Tensor& clamp_out(const Tensor& out, const Tensor& self, std::optional<Scalar> min,
                        std::optional<Scalar> max) {
  clamp_impl(self, min, max, &out);
  return out;
}
Tensor clamp_min(const Tensor& self, const Scalar& min) { return clamp(self, min, std::nullopt); }
Tensor clamp_max(const Tensor& self, const Scalar& max) { return clamp(self, std::nullopt, max); }
const Tensor& clamp_min_out(const Tensor& out, const Tensor& self, const Scalar& min) {
  clamp_impl(self, min, std::nullopt, &out);
  return out;
}
const Tensor& clamp_max_out(const Tensor& out, const Tensor& self, const Scalar& max) {
  clamp_impl(self, std::nullopt, max, &out);
  return out;
}
Tensor clip(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  return clamp(self, min, max);
}

namespace {
OpId gelu_op_for(std::string_view approximate) {
  if (approximate == "none") return OpId::gelu;
  if (approximate == "tanh") return OpId::gelu_tanh;
  EMBER_FAIL("gelu: approximate argument must be either none or tanh, got '{}'",
             std::string(approximate));
}
}  // namespace

Tensor gelu(const Tensor& self, std::string_view approximate) {
  return unary_op(gelu_op_for(approximate), UnaryPolicy::FloatOnly, self);
}
const Tensor& gelu_out(const Tensor& out, const Tensor& self, std::string_view approximate) {
  unary_op(gelu_op_for(approximate), UnaryPolicy::FloatOnly, self, {}, &out);
  return out;
}

Tensor logit(const Tensor& self, std::optional<double> eps) {
  OpScalars s;
  s.s[0] = eps.value_or(0);
  s.s[1] = eps ? 1 : 0;
  return unary_op(OpId::logit, UnaryPolicy::ToFloat, self, s);
}

Tensor nan_to_num(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  check_defined(self, "nan_to_num");
  double hi = std::numeric_limits<double>::max();
  switch (self.dtype()) {
    case kFloat:
      hi = std::numeric_limits<float>::max();
      break;
    case kHalf:
      hi = 65504.0;
      break;
    case kBFloat16:
      hi = 3.3895313892515355e38;
      break;
    default:
      break;
  }
  OpScalars s;
  s.s[0] = nan.value_or(0.0);
  s.s[1] = posinf.value_or(hi);
  s.s[2] = neginf.value_or(-hi);
  return unary_op(OpId::nan_to_num, UnaryPolicy::Same, self, s);
}

Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight) {
  check_defined(self, "lerp");
  Tensor w = scalar_to_tensor(weight, self.dtype(), self.device());
  return lerp(self, end, w);
}
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {
  check_defined(self, "lerp");
  check_defined(end, "lerp", "end");
  EMBER_CHECK_TYPE(self.dtype() == end.dtype(),
                   "lerp: expected dtype {} for `end` but got dtype {}", self.dtype(), end.dtype());
  return ternary_op(OpId::lerp, self, end, weight, {}, nullptr, self.dtype(), true);
}
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return ternary_op(OpId::addcmul, self, t1, t2, one_scalar(value.toDouble()));
}
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  EMBER_CHECK(!(is_integral(t1.dtype(), true) && is_integral(t2.dtype(), true)),
              "addcdiv: integer division with addcdiv is no longer supported. Hint: convert "
              "tensor1 or tensor2 to a floating dtype");
  return ternary_op(OpId::addcdiv, self, t1, t2, one_scalar(value.toDouble()));
}

Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, const Scalar& threshold) {
  return binary_op(OpId::threshold_backward, BinaryPolicy::Promote, grad_output, self,
                   one_scalar(threshold.toDouble()), nullptr);
}

Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  if (EMBER_UNLIKELY(autograd::needs_grad(self, other)))
    return autograd::elementwise_with_grad(OpId::where,
                                           {Operand(condition), Operand(self), Operand(other)}, {},
                                           nullptr, [&] { return where(condition, self, other); });
  check_defined(condition, "where", "condition");
  check_defined(self, "where", "self");
  check_defined(other, "where", "other");
  check_same_device({&condition, &self, &other}, "where");
  EMBER_CHECK_TYPE(condition.dtype() == kBool || condition.dtype() == kByte,
                   "where: expected condition to be a boolean tensor, but got a tensor with "
                   "dtype {}",
                   condition.dtype());
  ScalarType t = result_type_of({&self, &other}, {});
  Tensor c = cast_to(condition, kBool), a = cast_to(self, t), b = cast_to(other, t);
  DimVector shape =
      broadcast_shape(broadcast_shape(c.sizes(), a.sizes(), "where"), b.sizes(), "where");
  Tensor out = empty(shape, TensorOptions().dtype(t).device(self.device()));
  run_elementwise(OpId::where, out, {&c, &a, &b}, t);
  return out;
}
Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other) {
  ScalarType t = result_type_of({&other}, {&self});
  return where(condition, scalar_to_tensor(self, t, other.device()), other.to(t));
}
Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other) {
  ScalarType t = result_type_of({&self}, {&other});
  return where(condition, self.to(t), scalar_to_tensor(other, t, self.device()));
}
Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other) {
  ScalarType t = result_type_of({}, {&self, &other});
  return where(condition, scalar_to_tensor(self, t, condition.device()),
               scalar_to_tensor(other, t, condition.device()));
}

bool equal(const Tensor& self, const Tensor& other) {
  check_defined(self, "equal");
  check_defined(other, "equal", "other");
  if (self.sizes() != other.sizes()) return false;
  if (self.numel() == 0) return true;
  return eq(self, other).all().item<bool>();
}

Tensor isclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  check_defined(self, "isclose");
  check_defined(other, "isclose", "other");
  EMBER_CHECK_TYPE(self.dtype() == other.dtype(),
                   "isclose: expected both tensors to have the same dtype, but got {} and {}",
                   self.dtype(), other.dtype());
  EMBER_CHECK_VALUE(rtol >= 0 && atol >= 0,
                    "isclose: rtol and atol must be non-negative, got rtol={} atol={}", rtol, atol);
  Tensor close = eq(self, other);
  if (equal_nan && self.is_floating_point())
    close = logical_or(close, logical_and(isnan(self), isnan(other)));
  if (self.dtype() == kBool) return close;
  Tensor a = self.is_floating_point() ? self : self.to(get_default_dtype());
  Tensor b = other.is_floating_point() ? other : other.to(get_default_dtype());
  Tensor diff = abs(sub(a, b));
  Tensor tol = add(mul(abs(b), rtol), atol);
  Tensor finite_close = logical_and(isfinite(diff), le(diff, tol));
  return logical_or(close, finite_close);
}
bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  return isclose(self, other, rtol, atol, equal_nan).all().item<bool>();
}

ScalarType result_type(const Tensor& a, const Tensor& b) { return result_type_of({&a, &b}, {}); }
ScalarType result_type(const Tensor& a, const Scalar& b) { return result_type_of({&a}, {&b}); }

// ---- Tensor methods ----
Tensor Tensor::add(const Tensor& o, const Scalar& alpha) const {
  return ember::add(*this, o, alpha);
}
Tensor Tensor::add(const Scalar& o, const Scalar& alpha) const {
  return ember::add(*this, o, alpha);
}
const Tensor& Tensor::add_(const Tensor& o, const Scalar& alpha) const {
  add_impl(*this, o, alpha, this);
  return *this;
}
const Tensor& Tensor::add_(const Scalar& o, const Scalar& alpha) const {
  add_impl(*this, o, alpha, this);
  return *this;
}
Tensor Tensor::sub(const Tensor& o, const Scalar& alpha) const {
  return ember::sub(*this, o, alpha);
}
Tensor Tensor::sub(const Scalar& o, const Scalar& alpha) const {
  return ember::sub(*this, o, alpha);
}
const Tensor& Tensor::sub_(const Tensor& o, const Scalar& alpha) const {
  sub_impl(*this, o, alpha, this);
  return *this;
}
const Tensor& Tensor::sub_(const Scalar& o, const Scalar& alpha) const {
  sub_impl(*this, o, alpha, this);
  return *this;
}
Tensor Tensor::div(const Tensor& o, std::optional<std::string_view> mode) const {
  return ember::div(*this, o, mode);
}
Tensor Tensor::div(const Scalar& o, std::optional<std::string_view> mode) const {
  return ember::div(*this, o, mode);
}
const Tensor& Tensor::div_(const Tensor& o, std::optional<std::string_view> mode) const {
  div_impl(*this, o, mode, this);
  return *this;
}
const Tensor& Tensor::div_(const Scalar& o, std::optional<std::string_view> mode) const {
  div_impl(*this, o, mode, this);
  return *this;
}
Tensor Tensor::round(int64_t decimals) const { return ember::round(*this, decimals); }
const Tensor& Tensor::round_(int64_t decimals) const {
  if (decimals == 0)
    unary_op(OpId::round, UnaryPolicy::Same, *this, {}, this);
  else
    unary_op(OpId::round_decimals, UnaryPolicy::FloatOnly, *this, one_scalar(double(decimals)),
             this);
  return *this;
}
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return ember::clamp(*this, min, max);
}
Tensor Tensor::clamp(const std::optional<Tensor>& min, const std::optional<Tensor>& max) const {
  return ember::clamp(*this, min, max);
}
const Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) const {
  clamp_impl(*this, min, max, this);
  return *this;
}
Tensor Tensor::clamp_min(const Scalar& min) const { return ember::clamp_min(*this, min); }
Tensor Tensor::clamp_max(const Scalar& max) const { return ember::clamp_max(*this, max); }
const Tensor& Tensor::clamp_min_(const Scalar& min) const { return clamp_(min, std::nullopt); }
const Tensor& Tensor::clamp_max_(const Scalar& max) const { return clamp_(std::nullopt, max); }
Tensor Tensor::gelu(std::string_view approximate) const { return ember::gelu(*this, approximate); }
Tensor Tensor::logit(std::optional<double> eps) const { return ember::logit(*this, eps); }
Tensor Tensor::nan_to_num(std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf) const {
  return ember::nan_to_num(*this, nan, posinf, neginf);
}
Tensor Tensor::lerp(const Tensor& end, const Scalar& weight) const {
  return ember::lerp(*this, end, weight);
}
Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const {
  return ember::lerp(*this, end, weight);
}
Tensor Tensor::addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return ember::addcmul(*this, t1, t2, value);
}
Tensor Tensor::addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return ember::addcdiv(*this, t1, t2, value);
}
const Tensor& Tensor::addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  ternary_op(OpId::addcmul, *this, t1, t2, one_scalar(value.toDouble()), this);
  return *this;
}
const Tensor& Tensor::addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  ternary_op(OpId::addcdiv, *this, t1, t2, one_scalar(value.toDouble()), this);
  return *this;
}
Tensor Tensor::where(const Tensor& condition, const Tensor& other) const {
  return ember::where(condition, *this, other);
}
bool Tensor::equal(const Tensor& other) const { return ember::equal(*this, other); }
bool Tensor::allclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return ember::allclose(*this, other, rtol, atol, equal_nan);
}

// ---- Operators ----
#define EMBER_DEFINE_OPERATOR(op, fn)                                       \
  Tensor operator op(const Tensor& a, const Tensor& b) { return fn(a, b); } \
  Tensor operator op(const Tensor& a, const Scalar& b) { return fn(a, b); } \
  Tensor operator op(const Scalar& a, const Tensor& b) { return fn##_scalar_first(a, b); }

namespace {
Tensor add_scalar_first(const Scalar& a, const Tensor& b) { return add_impl(a, b, 1, nullptr); }
Tensor sub_scalar_first(const Scalar& a, const Tensor& b) { return sub_impl(a, b, 1, nullptr); }
Tensor mul_scalar_first(const Scalar& a, const Tensor& b) { return mul(a, b); }
Tensor div_scalar_first(const Scalar& a, const Tensor& b) {
  return div_impl(a, b, std::nullopt, nullptr);
}
Tensor remainder_scalar_first(const Scalar& a, const Tensor& b) { return remainder(a, b); }
Tensor eq_scalar_first(const Scalar& a, const Tensor& b) { return eq(a, b); }
Tensor ne_scalar_first(const Scalar& a, const Tensor& b) { return ne(a, b); }
Tensor lt_scalar_first(const Scalar& a, const Tensor& b) { return lt(a, b); }
Tensor le_scalar_first(const Scalar& a, const Tensor& b) { return le(a, b); }
Tensor gt_scalar_first(const Scalar& a, const Tensor& b) { return gt(a, b); }
Tensor ge_scalar_first(const Scalar& a, const Tensor& b) { return ge(a, b); }
Tensor bitwise_and_scalar_first(const Scalar& a, const Tensor& b) { return bitwise_and(a, b); }
Tensor bitwise_or_scalar_first(const Scalar& a, const Tensor& b) { return bitwise_or(a, b); }
Tensor bitwise_xor_scalar_first(const Scalar& a, const Tensor& b) { return bitwise_xor(a, b); }
Tensor add2(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor add2(const Tensor& a, const Scalar& b) { return add(a, b); }
Tensor sub2(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor sub2(const Tensor& a, const Scalar& b) { return sub(a, b); }
Tensor div2(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor div2(const Tensor& a, const Scalar& b) { return div(a, b); }
Tensor add2_scalar_first(const Scalar& a, const Tensor& b) { return add_scalar_first(a, b); }
Tensor sub2_scalar_first(const Scalar& a, const Tensor& b) { return sub_scalar_first(a, b); }
Tensor div2_scalar_first(const Scalar& a, const Tensor& b) { return div_scalar_first(a, b); }
}  // namespace

EMBER_DEFINE_OPERATOR(+, add2)
EMBER_DEFINE_OPERATOR(-, sub2)
EMBER_DEFINE_OPERATOR(*, mul)
EMBER_DEFINE_OPERATOR(/, div2)
EMBER_DEFINE_OPERATOR(%, remainder)
EMBER_DEFINE_OPERATOR(==, eq)
EMBER_DEFINE_OPERATOR(!=, ne)
EMBER_DEFINE_OPERATOR(<, lt)
EMBER_DEFINE_OPERATOR(<=, le)
EMBER_DEFINE_OPERATOR(>, gt)
EMBER_DEFINE_OPERATOR(>=, ge)
EMBER_DEFINE_OPERATOR(&, bitwise_and)
EMBER_DEFINE_OPERATOR(|, bitwise_or)
EMBER_DEFINE_OPERATOR(^, bitwise_xor)
#undef EMBER_DEFINE_OPERATOR

}  // namespace ember
