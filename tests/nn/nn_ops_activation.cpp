// The nn op table's activation entries (F::relu ... F::glu) against
// tests/golden/nn_functional.golden. How each case stores its options: the top of
// tests/golden/gen/nn_functional.py.
#include <optional>
#include <stdexcept>

#include "ember/nn/functional/activation.h"
#include "tests/nn/nn_op_info.h"

namespace F = ember::nn::functional;
using ember::ScalarType;
using ember::Tensor;
using ember_test::Args;
using ember_test::nn_op;
using ember_test::NnOpInfo;

namespace {

bool inplace(const GoldenCase& c) { return c.has_flag("inplace"); }

// The input as the op receives it: an `inplace` case writes into a copy (as its PyTorch call
// does), so a leaf that requires grad is never written and the gradient flows through the copy.
Tensor input(const Args& a, const GoldenCase& c) { return inplace(c) ? a[0].clone() : a[0]; }

// The scalar option k if the case stores it.
bool has(const GoldenCase& c, size_t k) { return c.scalars.size() > k; }

std::optional<ScalarType> dtype_of(const GoldenCase& c) {
  if (c.strs.empty()) return std::nullopt;
  if (c.strs[0] == "float64") return ember::kDouble;
  if (c.strs[0] == "float32") return ember::kFloat;
  throw std::runtime_error(c.name + ": unknown dtype " + c.strs[0]);
}

// An entry whose op takes only the input and `inplace`.
NnOpInfo inplace_only(const char* name, Tensor (*fn)(const Tensor&, bool)) {
  return nn_op(name, "nn_functional", {0},
               [fn](const Args& a, const GoldenCase& c) { return fn(input(a, c), inplace(c)); });
}

NnOpInfo plain(const char* name, Tensor (*fn)(const Tensor&)) {
  return nn_op(name, "nn_functional", {0},
               [fn](const Args& a, const GoldenCase&) { return fn(a[0]); });
}

}  // namespace

EMBER_NN_OP_FAMILY(activation) {
  return {
      nn_op("relu", "nn_functional", {0},
            [](const Args& a, const GoldenCase& c) {
              return F::relu(input(a, c), F::ReLUFuncOptions(inplace(c)));
            }),
      nn_op("relu6", "nn_functional", {0},
            [](const Args& a, const GoldenCase& c) {
              return F::relu6(input(a, c), F::ReLU6FuncOptions(inplace(c)));
            }),
      nn_op("leaky_relu", "nn_functional", {0},
            [](const Args& a, const GoldenCase& c) {
              F::LeakyReLUFuncOptions o;
              if (has(c, 0)) o.negative_slope(c.scalars[0]);
              return F::leaky_relu(input(a, c), o.inplace(inplace(c)));
            }),
      nn_op("prelu", "nn_functional", {0, 1},
            [](const Args& a, const GoldenCase&) { return F::prelu(a[0], a[1]); }),
      nn_op("rrelu", "nn_functional", {0},
            [](const Args& a, const GoldenCase& c) {
              F::RReLUFuncOptions o;  // training=false: the golden cases are deterministic
              if (has(c, 1)) o.lower(c.scalars[0]).upper(c.scalars[1]);
              return F::rrelu(input(a, c), o.inplace(inplace(c)));
            }),
      nn_op("elu", "nn_functional", {0},
            [](const Args& a, const GoldenCase& c) {
              F::ELUFuncOptions o;
              if (has(c, 0)) o.alpha(c.scalars[0]);
              return F::elu(input(a, c), o.inplace(inplace(c)));
            }),
      nn_op("selu", "nn_functional", {0},
            [](const Args& a, const GoldenCase& c) {
              return F::selu(input(a, c), F::SELUFuncOptions(inplace(c)));
            }),
      nn_op("celu", "nn_functional", {0},
            [](const Args& a, const GoldenCase& c) {
              F::CELUFuncOptions o;
              if (has(c, 0)) o.alpha(c.scalars[0]);
              return F::celu(input(a, c), o.inplace(inplace(c)));
            }),
      nn_op("gelu", "nn_functional", {0},
            [](const Args& a, const GoldenCase& c) {
              F::GELUFuncOptions o;
              if (!c.strs.empty()) o.approximate(c.strs[0]);
              return F::gelu(a[0], o);
            }),
      inplace_only("silu", &F::silu),
      inplace_only("mish", &F::mish),
      plain("sigmoid", &F::sigmoid),
      plain("tanh", &F::tanh),
      nn_op("hardtanh", "nn_functional", {0},
            [](const Args& a, const GoldenCase& c) {
              F::HardtanhFuncOptions o;
              if (has(c, 1)) o.min_val(c.scalars[0]).max_val(c.scalars[1]);
              return F::hardtanh(input(a, c), o.inplace(inplace(c)));
            }),
      inplace_only("hardsigmoid", &F::hardsigmoid),
      inplace_only("hardswish", &F::hardswish),
      nn_op("softplus", "nn_functional", {0},
            [](const Args& a, const GoldenCase& c) {
              F::SoftplusFuncOptions o;
              if (has(c, 0)) o.beta(c.scalars[0]);
              if (has(c, 1)) o.threshold(c.scalars[1]);
              return F::softplus(a[0], o);
            }),
      nn_op("softshrink", "nn_functional", {0},
            [](const Args& a, const GoldenCase& c) {
              F::SoftshrinkFuncOptions o;
              if (has(c, 0)) o.lambda(c.scalars[0]);
              return F::softshrink(a[0], o);
            }),
      nn_op("hardshrink", "nn_functional", {0},
            [](const Args& a, const GoldenCase& c) {
              F::HardshrinkFuncOptions o;
              if (has(c, 0)) o.lambda(c.scalars[0]);
              return F::hardshrink(a[0], o);
            }),
      plain("tanhshrink", &F::tanhshrink),
      nn_op("threshold", "nn_functional", {0},
            [](const Args& a, const GoldenCase& c) {
              return F::threshold(
                  input(a, c),
                  F::ThresholdFuncOptions(c.scalars.at(0), c.scalars.at(1)).inplace(inplace(c)));
            }),
      plain("logsigmoid", &F::logsigmoid),
      plain("softsign", &F::softsign),
      nn_op("softmax", "nn_functional", {0},
            [](const Args& a, const GoldenCase& c) {
              return F::softmax(a[0], F::SoftmaxFuncOptions(c.ints.at(0)).dtype(dtype_of(c)));
            }),
      nn_op("log_softmax", "nn_functional", {0},
            [](const Args& a, const GoldenCase& c) {
              return F::log_softmax(a[0],
                                    F::LogSoftmaxFuncOptions(c.ints.at(0)).dtype(dtype_of(c)));
            }),
      nn_op("softmin", "nn_functional", {0},
            [](const Args& a, const GoldenCase& c) {
              return F::softmin(a[0], F::SoftminFuncOptions(c.ints.at(0)).dtype(dtype_of(c)));
            }),
      nn_op("glu", "nn_functional", {0},
            [](const Args& a, const GoldenCase& c) {
              F::GLUFuncOptions o;
              if (!c.ints.empty()) o.dim(c.ints[0]);
              return F::glu(a[0], o);
            }),
  };
}
