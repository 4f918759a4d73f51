// Behaviour of the functional activations beyond the golden table (tests/nn/nn_ops_activation.cpp):
// in-place variants, rrelu's sampling, softmax's dtype option, argument errors, options defaults,
// numerical stability far from 0 and second derivatives of the ops with their own backward node.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/functional/activation.h"

using namespace ember;
namespace F = ember::nn::functional;

namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "message: " << (text)

double max_abs_diff(const Tensor& a, const Tensor& b) {
  return (a.to(kDouble) - b.to(kDouble)).abs().max().item<double>();
}

// Every activation with an `inplace` option, as f(x, inplace).
struct InplaceOp {
  std::string name;
  std::function<Tensor(const Tensor&, bool)> fn;
};

std::vector<InplaceOp> inplace_ops() {
  return {
      {"relu", [](const Tensor& x, bool ip) { return F::relu(x, F::ReLUFuncOptions(ip)); }},
      {"relu6", [](const Tensor& x, bool ip) { return F::relu6(x, F::ReLU6FuncOptions(ip)); }},
      {"leaky_relu",
       [](const Tensor& x, bool ip) {
         return F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2).inplace(ip));
       }},
      {"leaky_relu_negative_slope",
       [](const Tensor& x, bool ip) {
         return F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(-0.5).inplace(ip));
       }},
      {"rrelu_eval",
       [](const Tensor& x, bool ip) { return F::rrelu(x, F::RReLUFuncOptions().inplace(ip)); }},
      {"elu", [](const Tensor& x,
                 bool ip) { return F::elu(x, F::ELUFuncOptions().alpha(0.7).inplace(ip)); }},
      {"elu_negative_alpha",
       [](const Tensor& x, bool ip) {
         return F::elu(x, F::ELUFuncOptions().alpha(-1.5).inplace(ip));
       }},
      {"selu", [](const Tensor& x, bool ip) { return F::selu(x, F::SELUFuncOptions(ip)); }},
      {"celu", [](const Tensor& x,
                  bool ip) { return F::celu(x, F::CELUFuncOptions().alpha(2).inplace(ip)); }},
      {"hardtanh",
       [](const Tensor& x, bool ip) {
         return F::hardtanh(x, F::HardtanhFuncOptions().min_val(-0.5).max_val(0.8).inplace(ip));
       }},
      {"threshold",
       [](const Tensor& x, bool ip) {
         return F::threshold(x, F::ThresholdFuncOptions(0.1, -3).inplace(ip));
       }},
      {"silu", [](const Tensor& x, bool ip) { return F::silu(x, ip); }},
      {"mish", [](const Tensor& x, bool ip) { return F::mish(x, ip); }},
      {"hardsigmoid", [](const Tensor& x, bool ip) { return F::hardsigmoid(x, ip); }},
      {"hardswish", [](const Tensor& x, bool ip) { return F::hardswish(x, ip); }},
  };
}

// Inputs spread over [-5, 5] with exact kink points (0, ±3, bounds) planted.
Tensor sample_input(ScalarType dtype = kDouble) {
  Generator g(7);
  Tensor x = rand({4, 6}, g, TensorOptions().dtype(kDouble)) * 10 - 5;
  x.index_put_({0, 0}, 0.0);
  x.index_put_({0, 1}, 3.0);
  x.index_put_({0, 2}, -3.0);
  x.index_put_({0, 3}, -0.5);
  x.index_put_({0, 4}, 0.8);
  return x.to(dtype);
}

class ActivationInplace : public ::testing::TestWithParam<size_t> {
 protected:
  const InplaceOp& op() const {
    static const std::vector<InplaceOp> ops = inplace_ops();
    return ops[GetParam()];
  }
};

TEST_P(ActivationInplace, WritesIntoTheInputAndMatchesOutOfPlace) {
  Tensor x = sample_input();
  Tensor expected = op().fn(x, false);
  EXPECT_EQ(max_abs_diff(x, sample_input()), 0) << "the out-of-place form changed its input";
  Tensor y = x.clone();
  const void* data = y.data_ptr();
  const uint32_t version = y._version();
  Tensor out = op().fn(y, true);
  EXPECT_EQ(out.data_ptr(), data) << "the result is not the input's memory";
  EXPECT_EQ(y.data_ptr(), data);
  EXPECT_GT(y._version(), version) << "an in-place write must bump the version counter";
  EXPECT_EQ(max_abs_diff(y, expected), 0);
}

TEST_P(ActivationInplace, GradientMatchesOutOfPlace) {
  Tensor cot = sample_input().flip({1}).cos();  // a cotangent that is not all ones
  Tensor a = sample_input().requires_grad_();
  (op().fn(a, false) * cot).sum().backward();
  Tensor b = sample_input().requires_grad_();
  Tensor y = b * 1;  // a non-leaf the op may overwrite
  Tensor out = op().fn(y, true);
  EXPECT_TRUE(out.is_same(y));
  EXPECT_TRUE(y.requires_grad());
  (y * cot).sum().backward();
  ASSERT_TRUE(a.grad().defined());
  ASSERT_TRUE(b.grad().defined());
  EXPECT_LT(max_abs_diff(a.grad(), b.grad()), 1e-12) << op().name;
}

TEST_P(ActivationInplace, OnATransposedViewUpdatesTheBase) {
  Tensor cot = sample_input().cos();
  Tensor a = sample_input().requires_grad_();
  (op().fn(a, false) * cot).sum().backward();
  Tensor b = sample_input().requires_grad_();
  Tensor base = b * 1;
  Tensor view = base.t();  // non-contiguous
  op().fn(view, true);
  EXPECT_LT(max_abs_diff(base, op().fn(sample_input(), false)), 1e-15);
  (base * cot).sum().backward();
  EXPECT_LT(max_abs_diff(a.grad(), b.grad()), 1e-12) << op().name;
}

TEST_P(ActivationInplace, RefusesALeafThatRequiresGrad) {
  Tensor x = sample_input().requires_grad_();
  EXPECT_CONTAINS(message_of([&] { op().fn(x, true); }), "a leaf Variable that requires grad");
  NoGradGuard guard;  // without recording, writing a leaf is allowed
  op().fn(x, true);
  EXPECT_EQ(max_abs_diff(x, op().fn(sample_input(), false)), 0);
}

TEST_P(ActivationInplace, WorksWithoutAutograd) {
  Tensor x = sample_input(kFloat);
  Tensor expected = op().fn(x, false);
  op().fn(x, true);
  EXPECT_EQ(max_abs_diff(x, expected), 0);
}

INSTANTIATE_TEST_SUITE_P(F, ActivationInplace, ::testing::Range<size_t>(0, inplace_ops().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return inplace_ops()[info.param].name;
                         });

TEST(ActivationInplace, ModifyingTheSavedResultIsCaught) {
  // hardtanh_ and elu_ read their result at backward; writing it again afterwards is an error.
  Tensor x = sample_input().requires_grad_();
  Tensor y = x * 1;
  F::hardtanh(y, F::HardtanhFuncOptions().inplace(true));
  Tensor z = y.sum();
  {
    NoGradGuard g;
    y.add_(1);
  }
  EXPECT_CONTAINS(message_of([&] { z.backward(); }), "modified by an inplace operation");

  Tensor y2 = x * 1;
  F::elu(y2, F::ELUFuncOptions().inplace(true));
  Tensor s = y2.sum();  // sum saves nothing; EluBackward saved y2 itself
  {
    NoGradGuard g;
    y2.mul_(3);
  }
  std::string m = message_of([&] { s.backward(); });
  EXPECT_CONTAINS(m, "modified by an inplace operation");
  EXPECT_CONTAINS(m, "EluBackward0");
}

TEST(ActivationGrad, KinkGradientsArePyTorchs) {
  // The golden table checks these against PyTorch; here the conventions are spelled out.
  Tensor x = tensor({-1.0, 0.0, 1.0, 6.0}, kDouble).requires_grad_();
  auto grad_of = [&](const std::function<Tensor(const Tensor&)>& f) {
    x.mutable_grad() = Tensor();
    f(x).sum().backward();
    std::vector<double> g;
    for (int64_t i = 0; i < 4; ++i) g.push_back(x.grad()[i].item<double>());
    return g;
  };
  EXPECT_EQ(grad_of([](const Tensor& t) { return F::relu(t); }), (std::vector<double>{0, 0, 1, 1}));
  EXPECT_EQ(grad_of([](const Tensor& t) { return F::relu6(t); }),
            (std::vector<double>{0, 0, 1, 0}));
  EXPECT_EQ(grad_of([](const Tensor& t) { return F::hardtanh(t); }),
            (std::vector<double>{0, 1, 0, 0}));
  EXPECT_EQ(grad_of([](const Tensor& t) {
              return F::leaky_relu(t, F::LeakyReLUFuncOptions().negative_slope(0.25));
            }),
            (std::vector<double>{0.25, 0.25, 1, 1}));
  EXPECT_EQ(grad_of([](const Tensor& t) { return F::elu(t, F::ELUFuncOptions().alpha(2)); })[1],
            2.0);
  EXPECT_EQ(grad_of([](const Tensor& t) { return F::softshrink(t, 1.0); }),
            (std::vector<double>{0, 0, 0, 1}));
  EXPECT_EQ(grad_of([](const Tensor& t) { return F::hardshrink(t, 1.0); }),
            (std::vector<double>{0, 0, 0, 1}));
  EXPECT_EQ(grad_of([](const Tensor& t) { return F::threshold(t, F::ThresholdFuncOptions(1, 9)); }),
            (std::vector<double>{0, 0, 0, 1}));
  EXPECT_EQ(grad_of([](const Tensor& t) { return F::logsigmoid(t); })[1], 0.5);
}

TEST(ActivationGrad, SecondDerivativesOfTheOwnBackwardNodes) {
  // elu'' = alpha·e^x below 0 and 0 above; softplus'' = s(1 - s) with s = sigmoid(x);
  // logsigmoid'' = -s(1 - s); hardswish'' = 1/3 on (-3, 3).
  Tensor x = tensor({-2.0, -0.5, 0.5, 2.0}, kDouble).requires_grad_();
  auto second = [&](const std::function<Tensor(const Tensor&)>& f) {
    Tensor g = autograd::grad({f(x).sum()}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
    return autograd::grad({g.sum()}, {x})[0];
  };
  Tensor s = x.detach().sigmoid();
  Tensor d_elu = second([](const Tensor& t) { return F::elu(t, F::ELUFuncOptions().alpha(1.5)); });
  Tensor want_elu = where(x.detach() < 0, x.detach().exp() * 1.5, 0);
  EXPECT_LT(max_abs_diff(d_elu, want_elu), 1e-12);
  EXPECT_LT(max_abs_diff(second([](const Tensor& t) { return F::softplus(t); }), s * (1 - s)),
            1e-12);
  EXPECT_LT(max_abs_diff(second([](const Tensor& t) { return F::logsigmoid(t); }), -s * (1 - s)),
            1e-12);
  EXPECT_LT(max_abs_diff(second([](const Tensor& t) { return F::hardswish(t); }),
                         full({4}, 1.0 / 3, kDouble)),
            1e-12);
}

TEST(ActivationGrad, SecondDerivativesInPlace) {
  // In place the saved tensor is the result (elu_) or a copy of the input (hardswish_, elu_ with
  // a negative alpha); both must stay differentiable under create_graph.
  Tensor x = tensor({-2.0, -0.5, 0.5, 2.0}, kDouble).requires_grad_();
  auto second = [&](const std::function<void(const Tensor&)>& f) {
    Tensor y = x * 1;
    f(y);
    Tensor g = autograd::grad({y.sum()}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
    return autograd::grad({g.sum()}, {x})[0];
  };
  Tensor xd = x.detach();
  for (double alpha : {1.5, -0.5}) {
    Tensor d =
        second([&](const Tensor& y) { F::elu(y, F::ELUFuncOptions().alpha(alpha).inplace(true)); });
    EXPECT_LT(max_abs_diff(d, where(xd < 0, xd.exp() * alpha, 0)), 1e-12) << alpha;
  }
  Tensor d = second([](const Tensor& y) { F::hardswish(y, true); });
  EXPECT_LT(max_abs_diff(d, full({4}, 1.0 / 3, kDouble)), 1e-12);
  Tensor dc =
      second([](const Tensor& y) { F::celu(y, F::CELUFuncOptions().alpha(2).inplace(true)); });
  EXPECT_LT(max_abs_diff(dc, where(xd < 0, (xd / 2).exp() / 2, 0)), 1e-12);
}

TEST(ActivationStability, LargeInputsGiveFiniteValuesAndGradients) {
  for (ScalarType dt : {kFloat, kDouble}) {
    Tensor x = tensor({-1000.0, -100.0, 0.0, 100.0, 1000.0}, dt).requires_grad_();
    for (auto f : std::vector<std::function<Tensor(const Tensor&)>>{
             [](const Tensor& t) { return F::elu(t); }, [](const Tensor& t) { return F::selu(t); },
             [](const Tensor& t) { return F::celu(t, F::CELUFuncOptions().alpha(0.5)); },
             [](const Tensor& t) { return F::softplus(t); },
             [](const Tensor& t) { return F::softplus(t, F::SoftplusFuncOptions().beta(3)); },
             [](const Tensor& t) { return F::logsigmoid(t); },
             [](const Tensor& t) { return F::mish(t); },
             [](const Tensor& t) { return F::softsign(t); }}) {
      x.mutable_grad() = Tensor();
      Tensor y = f(x);
      EXPECT_TRUE(y.isfinite().all().item<bool>()) << y;
      y.sum().backward();
      EXPECT_TRUE(x.grad().isfinite().all().item<bool>()) << x.grad();
    }
    Tensor sp = F::softplus(x.detach());
    EXPECT_EQ(sp[4].item<double>(), 1000.0);
    EXPECT_EQ(sp[0].item<double>(), 0.0);
    Tensor ls = F::logsigmoid(x.detach());
    EXPECT_EQ(ls[0].item<double>(), -1000.0);
    EXPECT_EQ(ls[4].item<double>(), 0.0);
  }
}

TEST(ActivationStability, SoftshrinkPropagatesNan) {
  // torch 1.13 returns 0 for NaN (hence no NaN in its golden case); PyTorch >= 2.6 and Ember
  // return NaN.
  Tensor y = F::softshrink(tensor({std::nan(""), 0.25, -2.0}));
  EXPECT_TRUE(std::isnan(y[0].item<double>()));
  EXPECT_EQ(y[1].item<double>(), 0.0);
  EXPECT_EQ(y[2].item<double>(), -1.5);
}

TEST(Rrelu, TrainingSamplesSlopesUniformlyInTheBounds) {
  const double lower = 0.1, upper = 0.4;
  const int64_t n = 200000;
  manual_seed(123);
  Tensor x = full({n}, -2.0, kDouble);
  x.index_put_({indexing::Slice(0, 1000)}, 3.0);  // positive inputs pass unchanged
  Tensor y = F::rrelu(x, F::RReLUFuncOptions().lower(lower).upper(upper).training(true));
  EXPECT_EQ(max_abs_diff(y.narrow(0, 0, 1000), full({1000}, 3.0, kDouble)), 0);
  Tensor slope = y.narrow(0, 1000, n - 1000) / -2.0;
  EXPECT_GE(slope.min().item<double>(), lower);
  EXPECT_LE(slope.max().item<double>(), upper);
  // Uniform on [0.1, 0.4]: mean 0.25, variance 0.0075; with 199000 samples the standard error of
  // the mean is 1.9e-4 and the bounds below are over 5 of them (a fixed slope of 0.25 would fail
  // the variance, a slope range of [0, 0.5] both).
  EXPECT_NEAR(slope.mean().item<double>(), 0.25, 1e-3);
  EXPECT_NEAR(slope.var().item<double>(), 0.0075, 2e-4);
  // Near the ends too: the lowest and highest tenths hold a tenth each.
  double low_tenth = (slope < 0.13).to(kDouble).mean().item<double>();
  double high_tenth = (slope > 0.37).to(kDouble).mean().item<double>();
  EXPECT_NEAR(low_tenth, 0.1, 5e-3);
  EXPECT_NEAR(high_tenth, 0.1, 5e-3);
}

TEST(Rrelu, TrainingIsReproducibleAfterManualSeed) {
  Tensor x = tensor({-1.0, -2.0, 0.0, 1.5, -0.5, -3.0}, kFloat);
  auto opts = F::RReLUFuncOptions().training(true);
  manual_seed(5);
  Tensor a = F::rrelu(x, opts);
  manual_seed(5);
  Tensor b = F::rrelu(x, opts);
  Tensor c = F::rrelu(x, opts);  // the generator moved on
  EXPECT_EQ(max_abs_diff(a, b), 0);
  EXPECT_GT(max_abs_diff(a, c), 0);
  EXPECT_EQ(a[3].item<double>(), 1.5);
  EXPECT_EQ(a[2].item<double>(), 0.0);
}

TEST(Rrelu, TrainingGradientIsTheSampledSlope) {
  manual_seed(9);
  Tensor x = tensor({-1.0, -2.0, 0.0, 1.5, -0.5, -3.0}, kDouble).requires_grad_();
  Tensor y = F::rrelu(x, F::RReLUFuncOptions().training(true));
  y.sum().backward();
  Tensor g = x.grad();
  // Negative inputs: the gradient is y / x, the slope used; positive ones: 1; zero: a slope too.
  for (int64_t i : {0, 1, 4, 5})
    EXPECT_NEAR(g[i].item<double>(), (y[i] / x[i]).item<double>(), 1e-15);
  EXPECT_EQ(g[3].item<double>(), 1.0);
  EXPECT_GE(g[2].item<double>(), 1.0 / 8);
  EXPECT_LE(g[2].item<double>(), 1.0 / 3);

  // In place, the same slopes are drawn and the gradient is the same.
  manual_seed(9);
  Tensor x2 = x.detach().clone().requires_grad_();
  Tensor y2 = x2 * 1;
  F::rrelu(y2, F::RReLUFuncOptions().training(true).inplace(true));
  EXPECT_EQ(max_abs_diff(y2, y), 0);
  y2.sum().backward();
  EXPECT_EQ(max_abs_diff(x2.grad(), g), 0);
}

TEST(Rrelu, EvaluationUsesTheMeanSlopeAndEqualBoundsAFixedOne) {
  Tensor x = tensor({-4.0, 2.0}, kDouble);
  EXPECT_EQ(F::rrelu(x, F::RReLUFuncOptions().lower(0.1).upper(0.3))[0].item<double>(), -0.8);
  Tensor t = F::rrelu(x, F::RReLUFuncOptions().lower(0.2).upper(0.2).training(true));
  EXPECT_NEAR(t[0].item<double>(), -0.8, 1e-15);
  EXPECT_CONTAINS(message_of([&] { F::rrelu(x, F::RReLUFuncOptions().lower(0.5).upper(0.1)); }),
                  "rrelu: the lower bound must not exceed the upper bound");
}

TEST(Softmax, DtypeOptionCastsFirst) {
  Generator g(3);
  Tensor x = randn({3, 5}, g).to(kHalf);
  Tensor y = F::softmax(x, F::SoftmaxFuncOptions(1).dtype(kFloat));
  EXPECT_EQ(y.dtype(), kFloat);
  EXPECT_LT(max_abs_diff(y, F::softmax(x.to(kFloat), 1)), 1e-7);
  EXPECT_LT(max_abs_diff(y.sum({1}), ones({3})), 1e-6);
  Tensor ls = F::log_softmax(x, F::LogSoftmaxFuncOptions(0).dtype(kDouble));
  EXPECT_EQ(ls.dtype(), kDouble);
  EXPECT_LT(max_abs_diff(ls, ember::log_softmax(x.to(kDouble), 0)), 1e-15);
  Tensor sm = F::softmin(x, F::SoftminFuncOptions(1).dtype(kDouble));
  EXPECT_EQ(sm.dtype(), kDouble);
  EXPECT_LT(max_abs_diff(sm, ember::softmax(-x.to(kDouble), 1)), 1e-15);
  // Without dtype the input's dtype is kept.
  EXPECT_EQ(F::softmax(x, 1).dtype(), kHalf);
  // The gradient comes back in the input's dtype.
  Tensor xf = x.to(kFloat).requires_grad_();
  F::softmax(xf, F::SoftmaxFuncOptions(1).dtype(kDouble)).select(1, 0).sum().backward();
  EXPECT_EQ(xf.grad().dtype(), kFloat);
  // Integer inputs need a dtype, as in PyTorch.
  Tensor i = tensor({1, 2, 3});
  EXPECT_FALSE(message_of([&] { F::softmax(i, 0); }).empty());
  EXPECT_EQ(F::softmax(i, F::SoftmaxFuncOptions(0).dtype(kFloat)).dtype(), kFloat);
}

TEST(Prelu, WeightShapeErrors) {
  Tensor x = zeros({4, 3, 5});
  EXPECT_CONTAINS(message_of([&] {
                    F::prelu(x, ones({3, 1}));
                  }),
                  "prelu: weight must be a scalar or a 1-D tensor, got weight [3, 1]");
  std::string m = message_of([&] { F::prelu(x, ones({4})); });
  EXPECT_CONTAINS(m, "prelu: weight has 4 elements but input [4, 3, 5] float32 has 3 channels");
  EXPECT_CONTAINS(m, "Hint:");
  EXPECT_CONTAINS(message_of([&] { F::prelu(zeros({}), ones({2})); }),
                  "prelu: a 0-dim input takes a single slope");
  EXPECT_CONTAINS(message_of([&] { F::prelu(zeros({5}), ones({5})); }), "has 1 channels");
  EXPECT_CONTAINS(message_of([&] { F::prelu(x, ones({3}, kDouble)); }),
                  "prelu: weight dtype float64 does not match input dtype float32");
  EXPECT_CONTAINS(message_of([&] { F::prelu(tensor({1, 2}), ones({1}, kLong)); }), "prelu");
}

TEST(Prelu, PerChannelSlopesAndTheirGradient) {
  Tensor x = tensor({{-1.0, 2.0}, {-3.0, 0.0}}, kDouble).reshape({1, 2, 2}).requires_grad_();
  Tensor w = tensor({0.5, -2.0}, kDouble).requires_grad_();
  Tensor y = F::prelu(x, w);
  EXPECT_EQ(max_abs_diff(y, tensor({{-0.5, 2.0}, {6.0, 0.0}}, kDouble).reshape({1, 2, 2})), 0);
  y.sum().backward();
  // d/dw_c = sum of x over channel c where x <= 0; d/dx = w_c where x <= 0 (also at 0).
  EXPECT_EQ(max_abs_diff(w.grad(), tensor({-1.0, -3.0}, kDouble)), 0);
  EXPECT_EQ(max_abs_diff(x.grad(), tensor({{0.5, 1.0}, {-2.0, -2.0}}, kDouble).reshape({1, 2, 2})),
            0);
}

TEST(Glu, ErrorsNameTheOpAndShape) {
  std::string m = message_of([&] { F::glu(zeros({4, 5})); });
  EXPECT_CONTAINS(m,
                  "glu: the halved dim must have an even size: dim -1 of input [4, 5] float32 "
                  "has size 5");
  EXPECT_CONTAINS(m, "Hint:");
  EXPECT_CONTAINS(message_of([&] { F::glu(zeros({3, 4}), 0); }), "dim 0 of input [3, 4]");
  EXPECT_CONTAINS(message_of([&] { F::glu(zeros({})); }), "glu: a 0-dim input cannot be halved");
  EXPECT_CONTAINS(message_of([&] { F::glu(zeros({2, 4}), 2); }), "glu");
  EXPECT_THROW(F::glu(zeros({2, 4}), 2), IndexError);
  EXPECT_THROW(F::glu(zeros({2, 4}, kLong)), TypeError);
}

TEST(ActivationErrors, FloatOnlyOpsRejectIntegers) {
  Tensor i = tensor({-1, 2});
  for (auto [name, f] : std::vector<std::pair<std::string, std::function<void()>>>{
           {"elu", [&] { F::elu(i); }},
           {"selu", [&] { F::selu(i); }},
           {"celu", [&] { F::celu(i); }},
           {"leaky_relu", [&] { F::leaky_relu(i); }},
           {"rrelu", [&] { F::rrelu(i, F::RReLUFuncOptions().training(true)); }},
           {"rrelu", [&] { F::rrelu(i); }},
           {"hardsigmoid", [&] { F::hardsigmoid(i); }},
           {"hardswish", [&] { F::hardswish(i); }},
           {"softplus", [&] { F::softplus(i); }},
           {"softshrink", [&] { F::softshrink(i); }},
           {"hardshrink", [&] { F::hardshrink(i); }},
           {"logsigmoid", [&] { F::logsigmoid(i); }},
           {"glu", [&] { F::glu(i); }}}) {
    std::string m = message_of(f);
    EXPECT_CONTAINS(m, name + ": expected a floating point input, got [2] int64");
    EXPECT_THROW(f(), TypeError) << name;
  }
  // These keep or promote integers, as PyTorch.
  EXPECT_EQ(F::relu(i).dtype(), kLong);
  EXPECT_EQ(F::relu6(i).dtype(), kLong);
  EXPECT_EQ(F::hardtanh(i).dtype(), kLong);
  EXPECT_EQ(F::threshold(i, F::ThresholdFuncOptions(0, 7)).dtype(), kLong);
  EXPECT_EQ(F::sigmoid(i).dtype(), kFloat);
  EXPECT_EQ(F::softsign(i).dtype(), kFloat);
}

TEST(ActivationErrors, BadOptionValues) {
  Tensor x = zeros({2});
  EXPECT_CONTAINS(message_of([&] { F::celu(x, F::CELUFuncOptions().alpha(0)); }),
                  "celu: alpha must not be 0");
  EXPECT_CONTAINS(message_of([&] { F::softshrink(x, -1.0); }),
                  "softshrink: lambda must be >= 0, got lambda=-1");
  EXPECT_CONTAINS(message_of([&] { F::gelu(x, F::GELUFuncOptions().approximate("fast")); }),
                  "gelu: approximate argument must be either none or tanh");
  EXPECT_CONTAINS(message_of([&] { F::softmax(zeros({2, 3}), 2); }), "softmax");
}

TEST(ActivationOptions, DefaultsAreLibTorchs) {
  EXPECT_EQ(nn::ELUOptions().alpha(), 1.0);
  EXPECT_FALSE(nn::ELUOptions().inplace());
  EXPECT_FALSE(nn::SELUOptions().inplace());
  EXPECT_TRUE(nn::SELUOptions(true).inplace());
  EXPECT_EQ(nn::CELUOptions().alpha(), 1.0);
  EXPECT_EQ(nn::GLUOptions().dim(), -1);
  EXPECT_EQ(nn::GELUOptions().approximate(), "none");
  EXPECT_EQ(nn::HardshrinkOptions().lambda(), 0.5);
  EXPECT_EQ(nn::HardtanhOptions().min_val(), -1.0);
  EXPECT_EQ(nn::HardtanhOptions().max_val(), 1.0);
  EXPECT_EQ(nn::LeakyReLUOptions().negative_slope(), 0.01);
  EXPECT_EQ(nn::SoftmaxOptions(2).dim(), 2);
  EXPECT_EQ(nn::SoftminOptions(-1).dim(), -1);
  EXPECT_EQ(nn::LogSoftmaxOptions(0).dim(), 0);
  EXPECT_EQ(nn::PReLUOptions().num_parameters(), 1);
  EXPECT_EQ(nn::PReLUOptions().init(), 0.25);
  EXPECT_FALSE(nn::ReLUOptions().inplace());
  EXPECT_FALSE(nn::ReLU6Options().inplace());
  EXPECT_EQ(nn::RReLUOptions().lower(), 1.0 / 8);
  EXPECT_EQ(nn::RReLUOptions().upper(), 1.0 / 3);
  EXPECT_EQ(nn::SoftplusOptions().beta(), 1.0);
  EXPECT_EQ(nn::SoftplusOptions().threshold(), 20.0);
  EXPECT_EQ(nn::SoftshrinkOptions().lambda(), 0.5);
  EXPECT_EQ(nn::ThresholdOptions(0.1, 20).threshold(), 0.1);
  EXPECT_EQ(nn::ThresholdOptions(0.1, 20).value(), 20);
  EXPECT_FALSE(nn::ThresholdOptions(0.1, 20).inplace());
  EXPECT_FALSE(F::SoftmaxFuncOptions(1).dtype().has_value());
  EXPECT_FALSE(F::RReLUFuncOptions().training());
  EXPECT_FALSE(F::RReLUFuncOptions().inplace());
  // LibTorch's implicit conversions: F::softmax(x, 1), F::relu(x, true), F::glu(x, 0).
  Tensor x = tensor({{1.0, 2.0}, {3.0, 4.0}});
  EXPECT_EQ(max_abs_diff(F::softmax(x, 1), ember::softmax(x, 1)), 0);
  EXPECT_EQ(max_abs_diff(F::log_softmax(x, 0), ember::log_softmax(x, 0)), 0);
  EXPECT_EQ(max_abs_diff(F::softmin(x, 1), ember::softmax(-x, 1)), 0);
  EXPECT_EQ(F::glu(x, 0).size(0), 1);
  EXPECT_EQ(F::softshrink(x, 1.5)[0][0].item<double>(), 0.0);
}

}  // namespace
