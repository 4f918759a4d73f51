// Every entry of the gradient test table against finite differences (float64): contiguous,
// non-contiguous, broadcast and zero-size inputs, plus gradgradcheck on the entries that ask.
#include <gtest/gtest.h>

#include <set>

#include "ember/ember.h"
#include "tests/autograd/grad_op_info.h"

using namespace ember;
using autograd::variable_list;

namespace {

enum class Variant { Plain, NonContiguous, Broadcast, ZeroSize };

Tensor make_one(const GradOpInfo& op, size_t i, const std::vector<int64_t>& shape) {
  if (op.make_input) return op.make_input(i, shape);
  return uniform_double(shape, op.low, op.high);
}

// The inputs of `op` for `variant`, or empty when the variant does not apply.
std::vector<Tensor> make_inputs(const GradOpInfo& op, Variant variant) {
  std::vector<Tensor> inputs;
  bool applies = variant == Variant::Plain;
  for (size_t i = 0; i < op.shapes.size(); ++i) {
    std::vector<int64_t> shape = op.shapes[i];
    Tensor t;
    switch (variant) {
      case Variant::Plain:
        t = make_one(op, i, shape);
        break;
      case Variant::NonContiguous:
        if (shape.size() >= 2) {
          // Made transposed, then transposed back: the same shape with swapped strides.
          std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
          t = make_one(op, i, shape).transpose(-1, -2);
          applies = true;
        } else {
          t = make_one(op, i, shape);
        }
        break;
      case Variant::Broadcast:
        if (op.broadcast && i >= 1 && shape.size() >= 2 && shape[0] > 1) {
          shape[0] = 1;
          applies = true;
        }
        t = make_one(op, i, shape);
        break;
      case Variant::ZeroSize:
        if (op.zero_size && !shape.empty()) {
          shape[0] = 0;
          applies = true;
        }
        t = make_one(op, i, shape);
        break;
    }
    bool differentiable = std::find(op.non_differentiable.begin(), op.non_differentiable.end(),
                                    i) == op.non_differentiable.end();
    if (differentiable) t.requires_grad_();
    inputs.push_back(t);
  }
  if (!applies) inputs.clear();
  return inputs;
}

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::Plain:
      return "plain";
    case Variant::NonContiguous:
      return "non-contiguous";
    case Variant::Broadcast:
      return "broadcast";
    case Variant::ZeroSize:
      return "zero-size";
  }
  return "";
}

class GradcheckOp : public ::testing::TestWithParam<size_t> {};

TEST_P(GradcheckOp, MatchesFiniteDifferences) {
  const GradOpInfo& op = grad_op_infos()[GetParam()];
  manual_seed(static_cast<uint64_t>(GetParam()) + 1);
  auto fn = [&](const variable_list& x) { return variable_list{op.fn(x)}; };
  for (Variant v :
       {Variant::Plain, Variant::NonContiguous, Variant::Broadcast, Variant::ZeroSize}) {
    std::vector<Tensor> inputs = make_inputs(op, v);
    if (inputs.empty()) continue;
    SCOPED_TRACE(std::string(op.name) + " " + variant_name(v));
    Tensor out = op.fn(inputs);
    if (v != Variant::ZeroSize) {
      EXPECT_TRUE(out.requires_grad()) << op.name << ": the result does not require grad";
    }
    try {
      autograd::gradcheck(fn, inputs);
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
    }
  }
  if (op.gradgrad) {
    std::vector<Tensor> inputs = make_inputs(op, Variant::Plain);
    SCOPED_TRACE(op.name + " gradgradcheck");
    try {
      autograd::gradgradcheck(fn, inputs);
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
    }
  }
}

std::string entry_name(const ::testing::TestParamInfo<size_t>& info) {
  std::string n = grad_op_infos()[info.param].name + "_" + std::to_string(info.param);
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(AllOps, GradcheckOp, ::testing::Range<size_t>(0, grad_op_infos().size()),
                         entry_name);

// Elementwise rows without a gradient, and why.
const std::set<std::string> kNotDifferentiable = {
    "bitwise_not", "logical_not", "isnan",       "isinf",       "isfinite",  // bool/int results
    "eq",          "ne",          "lt",          "le",          "gt",         "ge",
    "logical_and", "logical_or",  "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
    "fill",  // fill_ is covered in the in-place tests (its gradient is zero)
    "cast",  // .to(dtype): a float32 round trip is too coarse for finite differences; see
             // Engine.PromotedInputGetsGradientInItsDtype
};

// The differentiable public ops of the other families (their names in grad_op_infos()).
const std::vector<std::string> kFamilyOps = {
    // reductions (argmax, argmin, argsort, all, any, count_nonzero have integer/bool results)
    "sum", "mean", "prod", "amax", "amin", "max", "min", "var", "std", "var_mean", "std_mean",
    "norm", "logsumexp", "softmax", "log_softmax", "_softmax_backward_data",
    "_log_softmax_backward_data", "cumsum", "cumprod", "sort", "topk", "median",
    // views and shapes
    "view", "reshape", "flatten", "unflatten", "squeeze", "unsqueeze", "permute", "transpose", "t",
    "expand", "narrow", "select", "slice", "split", "split_with_sizes", "chunk", "unbind",
    "diagonal", "as_strided", "movedim", "unfold", "cat", "stack", "repeat", "tile", "flip", "roll",
    "tril", "triu", "constant_pad_nd", "contiguous", "clone", "broadcast_tensors",
    // indexing (nonzero has an integer result)
    "index", "index_put", "index_select", "gather", "scatter", "scatter_add", "index_add",
    "masked_fill", "masked_select", "take",
    // linear algebra
    "mm", "bmm", "matmul", "addmm", "baddbmm", "dot", "mv", "outer", "einsum", "linalg_qr",
    "linalg_svd", "linalg_svdvals", "linalg_eigh", "linalg_eigvalsh", "linalg_inv", "linalg_solve",
    "linalg_cholesky", "linalg_det", "linalg_slogdet", "linalg_matrix_norm", "linalg_vector_norm",
    "linalg_matrix_exp", "linalg_householder_product"};

TEST(GradCoverage, EveryDifferentiableOpHasAnEntry) {
  std::set<std::string> have;
  for (const GradOpInfo& op : grad_op_infos()) have.insert(op.name);
  std::vector<std::string> missing;
  auto need = [&](const std::string& name) {
    if (!kNotDifferentiable.count(name) && !have.count(name)) missing.push_back(name);
  };
#define EMBER_NEED(name, ...) need(#name);
  EMBER_UNARY_OPS(EMBER_NEED)
  EMBER_BINARY_OPS(EMBER_NEED)
  EMBER_SPECIAL_ELEMENTWISE_OPS(EMBER_NEED)
#undef EMBER_NEED
  for (const std::string& name : kFamilyOps) need(name);
  EXPECT_TRUE(missing.empty()) << "no gradient test entry for: "
                               << ::testing::PrintToString(missing);
}

}  // namespace
