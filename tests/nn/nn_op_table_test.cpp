// Runs the nn test op table (tests/nn/nn_op_info.h): forward and gradients against PyTorch golden
// data, a float64 gradcheck per op, and coverage of every functional op the library promises.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "tests/nn/nn_op_info.h"

using namespace ember;
using ember::autograd::variable_list;
using ember_test::Args;
using ember_test::nn_op_infos;
using ember_test::NnOpInfo;

namespace ember_test {
std::vector<NnOpInfo>& nn_op_infos() {
  static std::vector<NnOpInfo> infos;
  return infos;
}
}  // namespace ember_test

namespace {

// Every op of nn::functional that the table must cover (issue #4's catalogue).
const std::vector<std::string> kNnFunctionalOps = {
    // activations
    "relu", "relu6", "leaky_relu", "prelu", "rrelu", "elu", "selu", "celu", "gelu", "silu", "mish",
    "sigmoid", "tanh", "hardtanh", "hardsigmoid", "hardswish", "softplus", "softshrink",
    "hardshrink", "tanhshrink", "threshold", "logsigmoid", "softsign", "softmax", "log_softmax",
    "softmin", "glu",
    // layers
    "linear", "bilinear", "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
    "feature_alpha_dropout", "embedding", "embedding_bag", "layer_norm", "rms_norm",
    "cosine_similarity", "pairwise_distance",
    // losses
    "l1_loss", "mse_loss", "cross_entropy", "nll_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "kl_div", "huber_loss", "smooth_l1_loss",
    "soft_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss", "margin_ranking_loss",
    "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss", "poisson_nll_loss",
    "gaussian_nll_loss", "ctc_loss",
    // vision layers (issue #16)
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
    "adaptive_max_pool2d", "adaptive_max_pool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d",
    "max_unpool1d", "max_unpool2d", "max_unpool3d", "fractional_max_pool2d",
    "fractional_max_pool3d", "batch_norm", "instance_norm", "group_norm", "local_response_norm",
    "normalize", "pad", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "unfold", "fold",
    "interpolate", "grid_sample", "affine_grid"};

const std::vector<GoldenCase>& golden(const std::string& family) {
  static std::map<std::string, std::vector<GoldenCase>> cache;
  auto it = cache.find(family);
  if (it == cache.end()) it = cache.emplace(family, load_golden(family)).first;
  return it->second;
}

std::vector<const GoldenCase*> cases_of(const NnOpInfo& info) {
  std::vector<const GoldenCase*> out;
  for (const GoldenCase& c : golden(info.family))
    if (c.op() == info.name) out.push_back(&c);
  return out;
}

// The op's inputs: the case's args without the trailing cotangent of a `grads` case.
Args inputs_of(const GoldenCase& c) {
  Args in;
  size_t n = c.args.size() - (c.has_flag("grads") ? 1 : 0);
  for (size_t i = 0; i < n; ++i) in.push_back(c.arg(i));
  return in;
}

Tolerance forward_tolerance(const NnOpInfo& info, ScalarType dtype) {
  if (dtype == kFloat && info.rtol32 > 0) return {info.rtol32, info.atol32};
  return default_tolerance(dtype);
}

// Gradients sum over many terms, in another order than PyTorch's: a little looser than forward.
Tolerance gradient_tolerance(const NnOpInfo& info, ScalarType dtype) {
  if (dtype == kFloat) {
    if (info.rtol32 > 0) return {info.rtol32, info.atol32};
    return {1e-4, 1e-5};
  }
  if (dtype == kDouble) return {1e-7, 1e-9};
  if (dtype == kHalf) return {1e-2, 1e-2};
  return {5e-2, 5e-2};
}

class NnOp : public ::testing::TestWithParam<size_t> {
 protected:
  const NnOpInfo& info() const { return nn_op_infos()[GetParam()]; }
};

TEST_P(NnOp, ForwardMatchesPyTorch) {
  auto cases = cases_of(info());
  ASSERT_FALSE(cases.empty()) << info().name << " has no case in " << info().family << ".golden";
  for (const GoldenCase* c : cases) {
    SCOPED_TRACE(c->location + " " + c->call);
    Tensor out;
    try {
      out = info().run(inputs_of(*c), *c);
    } catch (const std::exception& e) {
      ADD_FAILURE() << c->name << " threw: " << e.what();
      continue;
    }
    Tolerance tol = forward_tolerance(info(), c->outs[0].scalar_type());
    expect_close(out, c->outs[0], tol.rtol, tol.atol, c->name);
  }
}

TEST_P(NnOp, GradientsMatchPyTorch) {
  if (info().grad_args.empty()) GTEST_SKIP() << info().name << " is not differentiable";
  int checked = 0;
  for (const GoldenCase* c : cases_of(info())) {
    if (!c->has_flag("grads")) continue;
    SCOPED_TRACE(c->location + " " + c->call);
    ASSERT_EQ(c->outs.size(), 1 + info().grad_args.size())
        << c->name << ": the golden case has another number of gradients than grad_args";
    Args in = inputs_of(*c);
    variable_list wrt;
    for (size_t k : info().grad_args) {
      ASSERT_LT(k, in.size()) << c->name;
      in[k] = in[k].detach().clone().requires_grad_(true);
      wrt.push_back(in[k]);
    }
    Tensor out = info().run(in, *c);
    variable_list grads =
        autograd::grad({out}, wrt, {c->args.back()}, std::nullopt, false, /*allow_unused=*/true);
    for (size_t i = 0; i < wrt.size(); ++i) {
      Tensor g = grads[i].defined() ? grads[i] : zeros_like(wrt[i]);
      Tolerance tol = gradient_tolerance(info(), c->outs[1 + i].scalar_type());
      expect_close(g, c->outs[1 + i], tol.rtol, tol.atol,
                   c->name + " d/d(arg " + std::to_string(info().grad_args[i]) + ")");
    }
    ++checked;
  }
  EXPECT_GT(checked, 0) << info().name << " is differentiable but no golden case has `grads`";
}

TEST_P(NnOp, GradcheckFloat64) {
  if (info().grad_args.empty()) GTEST_SKIP() << info().name << " is not differentiable";
  if (!info().no_gradcheck_reason.empty()) GTEST_SKIP() << info().no_gradcheck_reason;
  const GoldenCase* pick = nullptr;
  for (const GoldenCase* c : cases_of(info())) {
    if (c->has_flag("grads") && c->args[info().grad_args[0]].scalar_type() == kFloat) {
      pick = c;
      break;
    }
  }
  ASSERT_NE(pick, nullptr) << info().name << ": no float32 `grads` case to gradcheck";
  SCOPED_TRACE(pick->location + " " + pick->call);
  Args base = inputs_of(*pick);
  for (Tensor& t : base)
    if (t.is_floating_point()) t = t.to(kDouble);
  variable_list wrt;
  for (size_t k : info().grad_args) wrt.push_back(base[k].detach().clone().requires_grad_(true));
  const NnOpInfo& op = info();
  const GoldenCase& c = *pick;
  auto fn = [&](const variable_list& x) {
    Args in = base;
    for (size_t i = 0; i < op.grad_args.size(); ++i) in[op.grad_args[i]] = x[i];
    return variable_list{op.run(in, c)};
  };
  try {
    autograd::gradcheck(fn, wrt, op.gradcheck_options);
  } catch (const Error& e) {
    ADD_FAILURE() << e.what();
  }
}

std::string entry_name(const ::testing::TestParamInfo<size_t>& info) {
  std::string n = nn_op_infos()[info.param].name;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Table, NnOp, ::testing::Range<size_t>(0, nn_op_infos().size()),
                         entry_name);

TEST(NnOpTable, EveryFunctionalOpHasAnEntry) {
  std::set<std::string> have;
  for (const NnOpInfo& info : nn_op_infos()) have.insert(info.name);
  std::vector<std::string> missing;
  for (const std::string& op : kNnFunctionalOps)
    if (!have.count(op)) missing.push_back(op);
  EXPECT_TRUE(missing.empty()) << "no nn op table entry for: " << ::testing::PrintToString(missing);
}

TEST(NnOpTable, EntryNamesAreUnique) {
  std::set<std::string> seen;
  for (const NnOpInfo& info : nn_op_infos())
    EXPECT_TRUE(seen.insert(info.name).second) << "duplicate entry " << info.name;
}

}  // namespace
