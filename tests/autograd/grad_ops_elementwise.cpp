// Gradient test entries of the elementwise ops (see grad_op_info.h), in op_table.h order.
#include "tests/autograd/grad_op_info.h"

using namespace ember;

namespace {
using Inputs = std::vector<Tensor>;
const std::vector<std::vector<int64_t>> kUnary = {{3, 4}};
const std::vector<std::vector<int64_t>> kBinary = {{3, 4}, {3, 4}};
const std::vector<std::vector<int64_t>> kTernary = {{3, 4}, {3, 4}, {3, 4}};

// Input i is drawn from [lo, hi] (for divisors, bases of pow, ...).
std::function<Tensor(size_t, const std::vector<int64_t>&)> input_in(size_t which, double lo,
                                                                    double hi) {
  return [=](size_t i, const std::vector<int64_t>& shape) {
    return i == which ? uniform_double(shape, lo, hi) : uniform_double(shape, -2, 2);
  };
}

GradOpInfo unary(std::string name, Tensor (*f)(const Tensor&), double lo = -2, double hi = 2,
                 bool gradgrad = false) {
  GradOpInfo info;
  info.name = std::move(name);
  info.shapes = kUnary;
  info.fn = [f](const Inputs& x) { return f(x[0]); };
  info.low = lo;
  info.high = hi;
  info.gradgrad = gradgrad;
  return info;
}
GradOpInfo binary(std::string name, std::function<Tensor(const Tensor&, const Tensor&)> f,
                  bool gradgrad = false) {
  GradOpInfo info;
  info.name = std::move(name);
  info.shapes = kBinary;
  info.fn = [f](const Inputs& x) { return f(x[0], x[1]); };
  info.gradgrad = gradgrad;
  return info;
}
}  // namespace

void add_elementwise_grad_ops(std::vector<GradOpInfo>& ops) {
  // Unary rows.
  ops.push_back(unary("exp", ember::exp, -2, 2, true));
  ops.push_back(unary("exp2", ember::exp2));
  ops.push_back(unary("expm1", ember::expm1));
  ops.push_back(unary("log", ember::log, 0.5, 2, true));
  ops.push_back(unary("log1p", ember::log1p, -0.5, 2));
  ops.push_back(unary("log2", ember::log2, 0.5, 2));
  ops.push_back(unary("log10", ember::log10, 0.5, 2));
  ops.push_back(unary("sqrt", ember::sqrt, 0.5, 2, true));
  ops.push_back(unary("rsqrt", ember::rsqrt, 0.5, 2));
  ops.push_back(unary("sin", ember::sin, -2, 2, true));
  ops.push_back(unary("cos", ember::cos));
  ops.push_back(unary("tan", ember::tan, -1, 1));
  ops.push_back(unary("asin", ember::asin, -0.9, 0.9));
  ops.push_back(unary("acos", ember::acos, -0.9, 0.9));
  ops.push_back(unary("atan", ember::atan));
  ops.push_back(unary("sinh", ember::sinh));
  ops.push_back(unary("cosh", ember::cosh));
  ops.push_back(unary("tanh", ember::tanh, -2, 2, true));
  ops.push_back(unary("sigmoid", ember::sigmoid, -2, 2, true));
  ops.push_back(unary("erf", ember::erf));
  ops.push_back(unary("erfc", ember::erfc));
  ops.push_back(unary("reciprocal", ember::reciprocal, 0.5, 2));
  ops.push_back(unary("neg", ember::neg));
  ops.push_back(unary("abs", ember::abs, -2, 2, true));
  ops.push_back(unary("sign", ember::sign));
  ops.push_back(unary("square", ember::square, -2, 2, true));
  ops.push_back(unary("relu", ember::relu, -2, 2, true));
  ops.push_back(unary("floor", ember::floor));
  ops.push_back(unary("ceil", ember::ceil));
  ops.push_back(unary("trunc", ember::trunc));
  ops.push_back(unary("frac", ember::frac));
  ops.push_back(unary("silu", ember::silu, -2, 2, true));
  ops.push_back(unary("mish", ember::mish));

  // Binary rows.
  ops.push_back(binary(
      "mul", [](const Tensor& a, const Tensor& b) { return a * b; }, true));
  ops.push_back(binary(
      "maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); }, true));
  ops.push_back(binary("minimum", [](const Tensor& a, const Tensor& b) { return minimum(a, b); }));
  GradOpInfo fmod_info =
      binary("fmod", [](const Tensor& a, const Tensor& b) { return fmod(a, b); });
  fmod_info.make_input = input_in(1, 0.5, 1.5);
  ops.push_back(fmod_info);
  GradOpInfo rem =
      binary("remainder", [](const Tensor& a, const Tensor& b) { return remainder(a, b); });
  rem.make_input = input_in(1, 0.5, 1.5);
  ops.push_back(rem);
  GradOpInfo pow_info = binary(
      "pow", [](const Tensor& a, const Tensor& b) { return pow(a, b); }, true);
  pow_info.make_input = input_in(0, 0.5, 2);
  ops.push_back(pow_info);
  GradOpInfo pow_scalar = unary("pow", nullptr, 0.5, 2, true);
  pow_scalar.fn = [](const Inputs& x) { return pow(x[0], 2.5); };
  ops.push_back(pow_scalar);
  GradOpInfo scalar_pow = unary("pow", nullptr, -1, 1);
  scalar_pow.fn = [](const Inputs& x) { return pow(Scalar(1.7), x[0]); };
  ops.push_back(scalar_pow);
  ops.push_back(binary("atan2", [](const Tensor& a, const Tensor& b) { return atan2(a, b); }));

  // Rows with extra arguments.
  ops.push_back(binary(
      "add", [](const Tensor& a, const Tensor& b) { return add(a, b, 2.5); }, true));
  GradOpInfo add_scalar = unary("add", nullptr);
  add_scalar.fn = [](const Inputs& x) { return 3 + x[0]; };
  ops.push_back(add_scalar);
  ops.push_back(binary(
      "sub", [](const Tensor& a, const Tensor& b) { return sub(a, b, 0.5); }, true));
  GradOpInfo rsub_scalar = unary("sub", nullptr);
  rsub_scalar.fn = [](const Inputs& x) { return 3 - x[0]; };
  ops.push_back(rsub_scalar);
  GradOpInfo div_info = binary(
      "div", [](const Tensor& a, const Tensor& b) { return a / b; }, true);
  div_info.make_input = input_in(1, 0.5, 2);
  ops.push_back(div_info);
  GradOpInfo div_scalar = unary("div", nullptr);
  div_scalar.fn = [](const Inputs& x) { return 2 / x[0]; };
  div_scalar.low = 0.5;
  ops.push_back(div_scalar);
  GradOpInfo div_trunc =
      binary("div_trunc", [](const Tensor& a, const Tensor& b) { return div(a, b, "trunc"); });
  div_trunc.make_input = input_in(1, 0.5, 2);
  ops.push_back(div_trunc);
  GradOpInfo div_floor =
      binary("div_floor", [](const Tensor& a, const Tensor& b) { return div(a, b, "floor"); });
  div_floor.make_input = input_in(1, 0.5, 2);
  ops.push_back(div_floor);
  ops.push_back(unary("round", [](const Tensor& x) { return ember::round(x); }));
  ops.push_back(unary("round_decimals", [](const Tensor& x) { return ember::round(x, 2); }));
  ops.push_back(unary(
      "clamp", [](const Tensor& x) { return clamp(x, -0.5, 0.7); }, -2, 2, true));
  ops.push_back(unary("clamp_min", [](const Tensor& x) { return clamp_min(x, -0.5); }));
  ops.push_back(unary("clamp_max", [](const Tensor& x) { return clamp_max(x, 0.5); }));
  GradOpInfo clamp_t;
  clamp_t.name = "clamp_tensor";
  clamp_t.shapes = kTernary;
  clamp_t.fn = [](const Inputs& x) { return clamp(x[0], x[1], x[2]); };
  clamp_t.make_input = [](size_t i, const std::vector<int64_t>& shape) {
    return i == 0   ? uniform_double(shape, -2, 2)
           : i == 1 ? uniform_double(shape, -1.5, -0.5)
                    : uniform_double(shape, 0.5, 1.5);
  };
  ops.push_back(clamp_t);
  ops.push_back(unary(
      "gelu", [](const Tensor& x) { return gelu(x); }, -2, 2, true));
  ops.push_back(unary(
      "gelu_tanh", [](const Tensor& x) { return gelu(x, "tanh"); }, -2, 2, true));
  ops.push_back(unary(
      "logit", [](const Tensor& x) { return logit(x); }, 0.1, 0.9));
  ops.push_back(unary(
      "logit", [](const Tensor& x) { return logit(x, 0.2); }, 0.1, 0.9));
  ops.push_back(unary("nan_to_num", [](const Tensor& x) { return nan_to_num(x); }));
  GradOpInfo lerp_info;
  lerp_info.name = "lerp";
  lerp_info.shapes = kTernary;
  lerp_info.fn = [](const Inputs& x) { return lerp(x[0], x[1], x[2]); };
  lerp_info.gradgrad = true;
  ops.push_back(lerp_info);
  GradOpInfo lerp_scalar =
      binary("lerp", [](const Tensor& a, const Tensor& b) { return lerp(a, b, 0.3); });
  ops.push_back(lerp_scalar);
  GradOpInfo addcmul_info;
  addcmul_info.name = "addcmul";
  addcmul_info.shapes = kTernary;
  addcmul_info.fn = [](const Inputs& x) { return addcmul(x[0], x[1], x[2], 0.5); };
  addcmul_info.gradgrad = true;
  ops.push_back(addcmul_info);
  GradOpInfo addcdiv_info = addcmul_info;
  addcdiv_info.name = "addcdiv";
  addcdiv_info.fn = [](const Inputs& x) { return addcdiv(x[0], x[1], x[2], 0.5); };
  addcdiv_info.make_input = input_in(2, 0.5, 2);
  ops.push_back(addcdiv_info);
  // Linear in the gradient; piecewise constant (derivative 0) in self away from the threshold.
  ops.push_back(binary(
      "threshold_backward",
      [](const Tensor& g, const Tensor& x) { return threshold_backward(g, x, 0.3); }, true));
  GradOpInfo where_info;
  where_info.name = "where";
  where_info.shapes = kTernary;
  where_info.fn = [](const Inputs& x) { return where(x[0], x[1], x[2]); };
  where_info.non_differentiable = {0};
  where_info.make_input = [](size_t i, const std::vector<int64_t>& shape) {
    return i == 0 ? empty(shape, kDouble).uniform_(0, 1) > 0.5 : uniform_double(shape, -2, 2);
  };
  where_info.gradgrad = true;
  ops.push_back(where_info);
}
