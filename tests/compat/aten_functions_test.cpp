// LibTorch's ATen-level NN functions (torch::mse_loss, torch::layer_norm, torch::embedding, ...)
// called as a LibTorch program calls them. Each is compared with its nn::functional form on the
// same input (values, and the gradient where cheap), and each default is pinned by a call that
// relies on it, against values PyTorch 1.13 gives for the same call with every argument spelled
// out. The file also builds against LibTorch itself (only the error texts, in EMBER_API blocks,
// are Ember's), which is how its expectations were checked.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace {

namespace F = torch::nn::functional;
using torch::Tensor;

// Expected values are PyTorch's, printed to 7 or 8 significant digits: the tolerance is relative
// to each value (a zero must come out as zero, up to float rounding of the terms that cancel).
void expect_values(const Tensor& t, const std::vector<double>& expected, double rtol = 2e-6) {
  const Tensor flat = t.detach().to(torch::kDouble).contiguous().view({-1});
  ASSERT_EQ(flat.numel(), static_cast<int64_t>(expected.size())) << t;
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(flat[static_cast<int64_t>(i)].item<double>(), expected[i],
                rtol * std::abs(expected[i]) + 1e-7)
        << "at " << i;
}

void expect_same(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.sizes().vec(), b.sizes().vec());
  EXPECT_TRUE(torch::allclose(a, b, 1e-6, 1e-7)) << a << "\nvs\n" << b;
}

// The same values and the same gradient with respect to `input` from both calls.
void expect_same_with_grad(const Tensor& input, const std::function<Tensor(const Tensor&)>& aten,
                           const std::function<Tensor(const Tensor&)>& functional) {
  Tensor a = input.detach().clone().requires_grad_(true);
  Tensor b = input.detach().clone().requires_grad_(true);
  Tensor ya = aten(a), yb = functional(b);
  expect_same(ya, yb);
  ya.sum().backward();
  yb.sum().backward();
  expect_same(a.grad(), b.grad());
}

#ifdef EMBER_API
// Ember's error texts name the op (LibTorch's differ, so only Ember checks them).
template <class Fn>
void expect_error_naming(Fn&& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "expected an error naming " << parts[0];
  } catch (const c10::Error& e) {
    const std::string msg = e.what();
    for (const std::string& p : parts)
      EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  }
}
#endif

const Tensor kX = torch::tensor({{0.5, -1.0, 2.0}, {1.5, 0.0, -0.5}});
const Tensor kY = torch::tensor({{1.0, 0.0, 2.5}, {-0.5, 0.25, 0.0}});
const Tensor kSigns = torch::tensor({{1.0, -1.0, 1.0}, {-1.0, 1.0, -1.0}});
const Tensor kLogits =
    torch::tensor({{0.2, -1.0, 0.5, 1.5}, {1.0, 0.3, -0.7, 0.0}, {-0.4, 0.8, 0.1, 0.9}});
const Tensor kClasses = torch::tensor({3, 0, 1}, torch::dtype(torch::kLong));
const Tensor kClassWeight = torch::tensor({1.0, 2.0, 0.5, 1.5});
const Tensor kAct = torch::tensor({-3.0, -1.5, -0.25, 0.0, 0.4, 1.2, 2.5, 7.0});

TEST(AtenFunctions, ReductionCodesAreATens) {
  static_assert(at::Reduction::None == 0 && at::Reduction::Mean == 1 && at::Reduction::Sum == 2,
                "ATen's values");
  const int64_t sum = at::Reduction::Sum;
  expect_values(torch::l1_loss(kX, kY, sum), {4.75});
}

TEST(AtenFunctions, RegressionLossesMatchFunctionalAndDefaults) {
  expect_values(torch::mse_loss(kX, kY), {0.96875});  // reduction = Mean
  expect_same_with_grad(
      kX, [](const Tensor& x) { return torch::mse_loss(x, kY, at::Reduction::Sum); },
      [](const Tensor& x) { return F::mse_loss(x, kY, F::MSELossFuncOptions(torch::kSum)); });
  expect_same_with_grad(
      kX, [](const Tensor& x) { return torch::l1_loss(x, kY, at::Reduction::None); },
      [](const Tensor& x) { return F::l1_loss(x, kY, F::L1LossFuncOptions(torch::kNone)); });
  expect_values(torch::smooth_l1_loss(kX, kY), {0.4010417});  // Mean, beta = 1
  expect_values(torch::smooth_l1_loss(kX, kY, at::Reduction::None, 0.5),
                {0.25, 0.75, 0.25, 1.75, 0.0625, 0.25});
  expect_same_with_grad(
      kX, [](const Tensor& x) { return torch::smooth_l1_loss(x, kY, at::Reduction::Mean, 0.5); },
      [](const Tensor& x) {
        // LibTorch 1.13's functional form reads beta from this argument, not from the options.
        return F::smooth_l1_loss(x, kY, F::SmoothL1LossFuncOptions(), 0.5);
      });
  expect_values(torch::huber_loss(kX, kY), {0.4010417});  // Mean, delta = 1
  expect_values(torch::huber_loss(kX, kY, at::Reduction::Sum, 0.75), {2.09375});
  expect_same_with_grad(
      kX, [](const Tensor& x) { return torch::huber_loss(x, kY, at::Reduction::Sum, 0.75); },
      [](const Tensor& x) {
        return F::huber_loss(x, kY, F::HuberLossFuncOptions().reduction(torch::kSum).delta(0.75));
      });

  const Tensor lp = torch::log_softmax(kX, 1), t = torch::softmax(kY, 1);
  expect_values(torch::kl_div(lp, t), {0.1026104});  // Mean over elements, log_target = false
  expect_values(torch::kl_div(lp, t.log(), at::Reduction::Sum, true), {0.6156623});
  expect_same_with_grad(
      lp, [&](const Tensor& x) { return torch::kl_div(x, t, at::Reduction::Sum); },
      [&](const Tensor& x) { return F::kl_div(x, t, F::KLDivFuncOptions(torch::kSum)); });

  expect_values(torch::poisson_nll_loss(kX, kY.abs(), true, false, 1e-8, at::Reduction::Mean),
                {1.5406461});
  expect_values(
      torch::poisson_nll_loss(kX.abs() + 0.1, kY.abs() * 4, false, true, 1e-8, at::Reduction::None),
      {5.8005657, 1.1, 9.7767105, 1.3117993, 2.4025848, 0.6});
  expect_same_with_grad(
      kX,
      [](const Tensor& x) {
        return torch::poisson_nll_loss(x, kY.abs(), true, false, 1e-8, at::Reduction::Mean);
      },
      [](const Tensor& x) { return F::poisson_nll_loss(x, kY.abs()); });
}

TEST(AtenFunctions, ClassificationLossesMatchFunctionalAndDefaults) {
  const Tensor lp = torch::log_softmax(kLogits, 1);
  expect_values(torch::nll_loss(lp, kClasses), {0.7753167});  // no weight, Mean, ignore -100
  expect_values(torch::nll_loss(lp, kClasses, kClassWeight, at::Reduction::Mean, 0), {0.8420334});
  expect_same_with_grad(
      lp,
      [](const Tensor& x) {
        return torch::nll_loss(x, kClasses, kClassWeight, at::Reduction::Sum);
      },
      [](const Tensor& x) {
        return F::nll_loss(x, kClasses,
                           F::NLLLossFuncOptions().weight(kClassWeight).reduction(torch::kSum));
      });
  // An explicit c10::nullopt weight is no weight.
  expect_same(torch::nll_loss(lp, kClasses, c10::nullopt, at::Reduction::None),
              F::nll_loss(lp, kClasses, F::NLLLossFuncOptions().reduction(torch::kNone)));
  // nll_loss2d: [N, C, H, W] against [N, H, W]; nll_loss_nd takes any rank.
  const Tensor img = torch::log_softmax(kLogits.view({1, 4, 3, 1}), 1);
  const Tensor img_target = torch::tensor({{{3}, {0}, {1}}}, torch::dtype(torch::kLong));
  expect_same(torch::nll_loss2d(img, img_target), F::nll_loss(img, img_target));
  expect_same(
      torch::nll_loss_nd(img, img_target, {}, at::Reduction::Sum, 0),
      F::nll_loss(img, img_target, F::NLLLossFuncOptions().reduction(torch::kSum).ignore_index(0)));
  expect_same(torch::nll_loss_nd(lp, kClasses), torch::nll_loss(lp, kClasses));

  expect_values(torch::cross_entropy_loss(kLogits, kClasses), {0.7753167});
  expect_values(
      torch::cross_entropy_loss(kLogits, kClasses, kClassWeight, at::Reduction::Mean, -100, 0.2),
      {0.9132975});
  expect_same_with_grad(
      kLogits,
      [](const Tensor& x) {
        return torch::cross_entropy_loss(x, kClasses, {}, at::Reduction::Mean, 1, 0.1);
      },
      [](const Tensor& x) {
        return F::cross_entropy(x, kClasses,
                                F::CrossEntropyFuncOptions().ignore_index(1).label_smoothing(0.1));
      });

  const Tensor prob = torch::sigmoid(kX);
  const Tensor tb = torch::tensor({{1.0, 0.0, 1.0}, {0.0, 1.0, 0.5}});
  const Tensor w3 = torch::tensor({1.0, 2.0, 0.5});
  expect_values(torch::binary_cross_entropy(prob, tb), {0.6721507});
  expect_values(torch::binary_cross_entropy(prob, tb, w3, at::Reduction::Sum), {4.6138101});
  expect_same_with_grad(
      prob, [&](const Tensor& x) { return torch::binary_cross_entropy(x, tb, w3); },
      [&](const Tensor& x) {
        return F::binary_cross_entropy(x, tb, F::BinaryCrossEntropyFuncOptions().weight(w3));
      });
  const Tensor pos = torch::tensor({2.0, 0.5, 1.0});
  expect_values(torch::binary_cross_entropy_with_logits(kX, tb), {0.6721508});
  expect_values(torch::binary_cross_entropy_with_logits(kX, tb, {}, pos, at::Reduction::None),
                {0.948154, 0.3132616, 0.126928, 1.7014134, 0.3465736, 0.724077});
  expect_same_with_grad(
      kX, [&](const Tensor& x) { return torch::binary_cross_entropy_with_logits(x, tb, w3, pos); },
      [&](const Tensor& x) {
        return F::binary_cross_entropy_with_logits(
            x, tb, F::BinaryCrossEntropyWithLogitsFuncOptions().weight(w3).pos_weight(pos));
      });

  expect_values(torch::multi_margin_loss(kLogits, kClasses), {0.1416667});  // p 1, margin 1
  expect_values(
      torch::multi_margin_loss(kLogits, kClasses, 2, 0.5, kClassWeight, at::Reduction::Sum),
      {0.18});
  expect_same_with_grad(
      kLogits, [](const Tensor& x) { return torch::multi_margin_loss(x, kClasses, 2, 0.5); },
      [](const Tensor& x) {
        return F::multi_margin_loss(x, kClasses, F::MultiMarginLossFuncOptions().p(2).margin(0.5));
      });
  const Tensor labels =
      torch::tensor({{3, 0, -1, 1}, {1, 2, 3, -1}, {0, -1, 2, 2}}, torch::dtype(torch::kLong));
  expect_values(torch::multilabel_margin_loss(kLogits, labels), {1.1416667});
  expect_same(
      torch::multilabel_margin_loss(kLogits, labels, at::Reduction::None),
      F::multilabel_margin_loss(kLogits, labels, F::MultilabelMarginLossFuncOptions(torch::kNone)));
}

TEST(AtenFunctions, MarginAndEmbeddingLossesMatchFunctionalAndDefaults) {
  expect_values(torch::soft_margin_loss(kX, kSigns), {0.630484});
  expect_same_with_grad(
      kX, [](const Tensor& x) { return torch::soft_margin_loss(x, kSigns, at::Reduction::Sum); },
      [](const Tensor& x) {
        return F::soft_margin_loss(x, kSigns, F::SoftMarginLossFuncOptions(torch::kSum));
      });
  expect_values(torch::margin_ranking_loss(kX, kY, kSigns), {0.5416667});  // margin 0, Mean
  expect_values(torch::margin_ranking_loss(kX, kY, kSigns, 0.5, at::Reduction::Sum), {5.25});
  expect_same_with_grad(
      kX, [](const Tensor& x) { return torch::margin_ranking_loss(x, kY, kSigns, 0.5); },
      [](const Tensor& x) {
        return F::margin_ranking_loss(x, kY, kSigns, F::MarginRankingLossFuncOptions().margin(0.5));
      });
  expect_values(torch::hinge_embedding_loss(kX, kSigns), {1.0});  // margin 1, Mean
  expect_values(torch::hinge_embedding_loss(kX, kSigns, 0.3, at::Reduction::None),
                {0.5, 1.3, 2.0, 0.0, 0.0, 0.8});
  expect_same_with_grad(
      kX, [](const Tensor& x) { return torch::hinge_embedding_loss(x, kSigns, 0.3); },
      [](const Tensor& x) {
        return F::hinge_embedding_loss(x, kSigns, F::HingeEmbeddingLossFuncOptions().margin(0.3));
      });
  const Tensor pair = torch::tensor({1.0, -1.0});
  expect_values(torch::cosine_embedding_loss(kX, kY, pair), {0.0542575});  // margin 0, Mean
  expect_values(torch::cosine_embedding_loss(kX, kY, pair, 0.1, at::Reduction::None),
                {0.108515, 0.0});
  expect_same_with_grad(
      kX, [&](const Tensor& x) { return torch::cosine_embedding_loss(x, kY, pair, -0.5); },
      [&](const Tensor& x) {
        return F::cosine_embedding_loss(x, kY, pair,
                                        F::CosineEmbeddingLossFuncOptions().margin(-0.5));
      });
  const Tensor neg = torch::tensor({{0.0, 1.0, 1.0}, {2.0, -1.0, 0.5}});
  // margin 1, p 2, eps 1e-6, no swap, Mean.
  expect_values(torch::triplet_margin_loss(kX, kY, neg), {0.7883285});
  expect_values(torch::triplet_margin_loss(kX, kY, neg, 0.5, 1.0, 1e-3, true, at::Reduction::None),
                {0.0, 0.75});
  expect_same_with_grad(
      kX, [&](const Tensor& x) { return torch::triplet_margin_loss(x, kY, neg, 2.0, 1.0); },
      [&](const Tensor& x) {
        return F::triplet_margin_loss(x, kY, neg,
                                      F::TripletMarginLossFuncOptions().margin(2.0).p(1.0));
      });

  // CTC: lengths as lists or as tensors.
  const Tensor lp = torch::log_softmax(
      torch::tensor(
          {{{0.1, 0.5, -0.2}}, {{0.3, -0.1, 0.4}}, {{0.0, 0.2, 0.6}}, {{0.5, 0.5, -0.5}}}),
      2);
  const Tensor targets = torch::tensor({{1, 2}}, torch::dtype(torch::kLong));
  expect_values(torch::ctc_loss(lp, targets, {4}, {2}), {0.840242});  // blank 0, Mean
  const Tensor four = torch::tensor({4}, torch::dtype(torch::kLong));
  const Tensor two = torch::tensor({2}, torch::dtype(torch::kLong));
  expect_values(torch::ctc_loss(lp, torch::tensor({{1, 0}}, torch::dtype(torch::kLong)), four, two,
                                2, at::Reduction::Sum, false),
                {1.6867877});
  expect_same(torch::ctc_loss(lp, targets, four, two),
              F::ctc_loss(lp, targets, four, two, F::CTCLossFuncOptions()));
}

TEST(AtenFunctions, ActivationsMatchFunctionalAndDefaults) {
  expect_values(torch::hardtanh(kAct), {-1.0, -1.0, -0.25, 0.0, 0.4, 1.0, 1.0, 1.0});
  expect_values(torch::hardtanh(kAct, -0.5, 2.0), {-0.5, -0.5, -0.25, 0.0, 0.4, 1.2, 2.0, 2.0});
  expect_same_with_grad(
      kAct, [](const Tensor& x) { return torch::hardtanh(x, -0.5, 2.0); },
      [](const Tensor& x) {
        return F::hardtanh(x, F::HardtanhFuncOptions().min_val(-0.5).max_val(2.0));
      });
  expect_values(torch::relu6(kAct), {0.0, 0.0, 0.0, 0.0, 0.4, 1.2, 2.5, 6.0});
  expect_values(torch::leaky_relu(kAct), {-0.03, -0.015, -0.0025, 0.0, 0.4, 1.2, 2.5, 7.0});
  expect_same_with_grad(
      kAct, [](const Tensor& x) { return torch::leaky_relu(x, 0.2); },
      [](const Tensor& x) {
        return F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2));
      });
  expect_values(torch::elu(kAct), {-0.950213, -0.7768698, -0.2211992, 0.0, 0.4, 1.2, 2.5, 7.0});
  // ATen's scale and input_scale (the functional form has only alpha).
  expect_values(torch::elu(kAct, 0.5, 2.0, 1.5),
                {-0.988891, -0.8946007, -0.3127107, 0.0, 0.8, 2.4, 5.0, 14.0});
  expect_same_with_grad(
      kAct, [](const Tensor& x) { return torch::elu(x, 0.5); },
      [](const Tensor& x) { return F::elu(x, F::ELUFuncOptions().alpha(0.5)); });
  expect_values(torch::selu(kAct), {-1.6705687, -1.3658143, -0.3888902, 0.0, 0.4202804, 1.2608413,
                                    2.6267526, 7.354907});
  expect_values(torch::celu(kAct), {-0.950213, -0.7768698, -0.2211992, 0.0, 0.4, 1.2, 2.5, 7.0});
  expect_values(torch::celu(kAct, 2.0),
                {-1.5537397, -1.0552669, -0.2350062, 0.0, 0.4, 1.2, 2.5, 7.0});
  expect_values(torch::softplus(kAct), {0.0485874, 0.2014133, 0.5759394, 0.6931472, 0.9130152,
                                        1.4632825, 2.5788898, 7.0009117});
  expect_values(torch::softplus(kAct, 2.0, 3.0),
                {0.0012378, 0.0242937, 0.2370385, 0.3465736, 0.5855503, 1.2434181, 2.5, 7.0});
  expect_same_with_grad(
      kAct, [](const Tensor& x) { return torch::softplus(x, 2.0, 3.0); },
      [](const Tensor& x) {
        return F::softplus(x, F::SoftplusFuncOptions().beta(2.0).threshold(3.0));
      });
  expect_values(torch::hardswish(kAct),
                {0.0, -0.375, -0.1145833, 0.0, 0.2266667, 0.84, 2.2916667, 7.0});
  expect_values(torch::hardsigmoid(kAct),
                {0.0, 0.25, 0.4583333, 0.5, 0.5666667, 0.7, 0.9166667, 1.0});
  expect_values(torch::glu(kAct.view({2, 4})), {-1.3134705, -0.75, 0.3696567, 1.1989069});  // -1
  expect_values(torch::glu(kAct.view({2, 4}), 0), {-1.7960629, -1.1527872, -0.2310355, 0.0});
  expect_same_with_grad(
      kAct.view({2, 4}), [](const Tensor& x) { return torch::glu(x, 0); },
      [](const Tensor& x) { return F::glu(x, F::GLUFuncOptions(0)); });
  const Tensor slope = torch::tensor({0.25});
  expect_values(torch::prelu(kAct.view({2, 4}), slope),
                {-0.75, -0.375, -0.0625, 0.0, 0.4, 1.2, 2.5, 7.0});
  expect_same(torch::prelu(kAct.view({2, 4}), slope), F::prelu(kAct.view({2, 4}), slope));
  // Not training by default: the mean slope (1/8 + 1/3) / 2.
  expect_values(torch::rrelu(kAct), {-0.6875, -0.34375, -0.0572917, 0.0, 0.4, 1.2, 2.5, 7.0});
  expect_same(torch::rrelu(kAct, 0.1, 0.3),
              F::rrelu(kAct, F::RReLUFuncOptions().lower(0.1).upper(0.3)));
  expect_values(torch::threshold(kAct, 0.4, -9.0), {-9.0, -9.0, -9.0, -9.0, -9.0, 1.2, 2.5, 7.0});
  expect_same(torch::threshold(kAct, 0.4, -9.0),
              F::threshold(kAct, F::ThresholdFuncOptions(0.4, -9.0)));
  expect_values(torch::log_sigmoid(kAct), {-3.0485873, -1.7014133, -0.8259394, -0.6931472,
                                           -0.5130153, -0.2632824, -0.0788897, -0.0009115});
  expect_same_with_grad(
      kAct, [](const Tensor& x) { return torch::log_sigmoid(x); },
      [](const Tensor& x) { return F::logsigmoid(x); });
  expect_values(torch::softshrink(kAct), {-2.5, -1.0, 0.0, 0.0, 0.0, 0.7, 2.0, 6.5});  // 0.5
  expect_values(torch::hardshrink(kAct), {-3.0, -1.5, 0.0, 0.0, 0.0, 1.2, 2.5, 7.0});  // 0.5
  expect_same(torch::softshrink(kAct, 1.0), F::softshrink(kAct, F::SoftshrinkFuncOptions(1.0)));
  expect_same(torch::hardshrink(kAct, 1.0), F::hardshrink(kAct, F::HardshrinkFuncOptions(1.0)));
}

TEST(AtenFunctions, InPlaceActivationsWriteIntoSelf) {
  const std::vector<std::pair<std::function<void(Tensor&)>, std::function<Tensor(const Tensor&)>>>
      cases = {
          {[](Tensor& t) { torch::hardtanh_(t, -0.5, 2.0); },
           [](const Tensor& t) { return torch::hardtanh(t, -0.5, 2.0); }},
          {[](Tensor& t) { torch::relu6_(t); }, [](const Tensor& t) { return torch::relu6(t); }},
          {[](Tensor& t) { torch::leaky_relu_(t, 0.3); },
           [](const Tensor& t) { return torch::leaky_relu(t, 0.3); }},
          {[](Tensor& t) { torch::elu_(t); }, [](const Tensor& t) { return torch::elu(t); }},
          {[](Tensor& t) { torch::elu_(t, 0.5, 2.0, 1.5); },
           [](const Tensor& t) { return torch::elu(t, 0.5, 2.0, 1.5); }},
          {[](Tensor& t) { torch::selu_(t); }, [](const Tensor& t) { return torch::selu(t); }},
          {[](Tensor& t) { torch::celu_(t, 2.0); },
           [](const Tensor& t) { return torch::celu(t, 2.0); }},
          {[](Tensor& t) { torch::gelu_(t, "tanh"); },
           [](const Tensor& t) { return torch::gelu(t, "tanh"); }},
          {[](Tensor& t) { torch::hardswish_(t); },
           [](const Tensor& t) { return torch::hardswish(t); }},
          {[](Tensor& t) { torch::hardsigmoid_(t); },
           [](const Tensor& t) { return torch::hardsigmoid(t); }},
          {[](Tensor& t) { torch::rrelu_(t); }, [](const Tensor& t) { return torch::rrelu(t); }},
          {[](Tensor& t) { torch::threshold_(t, 0.4, -9.0); },
           [](const Tensor& t) { return torch::threshold(t, 0.4, -9.0); }},
      };
  for (const auto& [in_place, plain] : cases) {
    Tensor t = kAct.clone();
    const auto version = t._version();
    in_place(t);
    expect_same(t, plain(kAct));
    EXPECT_GT(t._version(), version);
  }
  // The functional in-place path records autograd as any in-place op: the gradient flows.
  Tensor leaf = kAct.clone().requires_grad_(true);
  Tensor y = leaf * 1.0;
  torch::hardtanh_(y, -0.5, 2.0);
  y.sum().backward();
  expect_values(leaf.grad(), {0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0});
}

TEST(AtenFunctions, DropoutTakesPAndTrain) {
  const Tensor x = torch::ones({4, 3, 5});
  EXPECT_TRUE(torch::dropout(x, 0.5, false).equal(x));
  EXPECT_TRUE(torch::feature_dropout(x, 0.5, false).equal(x));
  EXPECT_TRUE(torch::alpha_dropout(x, 0.5, false).equal(x));
  EXPECT_TRUE(torch::feature_alpha_dropout(x, 0.5, false).equal(x));
  torch::manual_seed(3);
  const Tensor y = torch::dropout(x, 0.5, true);
  // Each element is dropped (0) or kept and scaled by 1 / (1 - p) = 2.
  EXPECT_TRUE(((y == 0) | (y == 2)).all().item<bool>());
  EXPECT_TRUE((y == 0).any().item<bool>());
  EXPECT_TRUE((y == 2).any().item<bool>());
  // feature_dropout drops whole channels of [N, C, *].
  const Tensor f = torch::feature_dropout(x, 0.5, true);
  const Tensor per_channel_max = std::get<0>(f.max(2)), per_channel_min = std::get<0>(f.min(2));
  EXPECT_TRUE(per_channel_max.equal(per_channel_min));
  EXPECT_TRUE(((per_channel_max == 0) | (per_channel_max == 2)).all().item<bool>());
  Tensor in_place = torch::ones({100});
  torch::dropout_(in_place, 0.25, true);
  EXPECT_TRUE(((in_place == 0) | (in_place == torch::ones({1}) / 0.75)).all().item<bool>());
  EXPECT_TRUE((in_place == 0).any().item<bool>());
  Tensor kept = torch::ones({1, 3});
  torch::feature_dropout_(kept, 0.5, false);
  EXPECT_TRUE(kept.equal(torch::ones({1, 3})));
#ifdef EMBER_API
  expect_error_naming([] { torch::feature_dropout(torch::ones({3}), 0.5, true); },
                      {"feature_dropout", "2 dims"});
#endif
}

TEST(AtenFunctions, LayerNormEmbeddingLinearMatchFunctionalAndDefaults) {
  const Tensor x = torch::tensor({{1.0, 2.0, 4.0}, {0.5, -0.5, 3.0}});
  // No weight or bias, eps = 1e-5.
  expect_values(torch::layer_norm(x, {3}),
                {-1.0690414, -0.2672603, 1.3363018, -0.3396823, -1.019047, 1.3587294});
  const Tensor g = torch::tensor({1.0, 2.0, 0.5}), b = torch::tensor({0.0, 1.0, -1.0});
  expect_values(torch::layer_norm(x, {3}, g, b, 0.1),
                {-1.0362554, 0.4818723, -0.3523403, -0.3321056, -0.9926336, -0.3357888});
  expect_same_with_grad(
      x, [&](const Tensor& t) { return torch::layer_norm(t, {3}, g, b, 0.1); },
      [&](const Tensor& t) {
        return F::layer_norm(t, F::LayerNormFuncOptions({3}).weight(g).bias(b).eps(0.1));
      });

  // ATen's order: the table first. padding_idx -1 (the default) is none.
  const Tensor table = torch::arange(12, torch::dtype(torch::kFloat)).view({4, 3}) * 0.5 - 1.0;
  const Tensor ids = torch::tensor({{0, 2}, {3, 0}}, torch::dtype(torch::kLong));
  expect_values(torch::embedding(table, ids),
                {-1.0, -0.5, 0.0, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, -1.0, -0.5, 0.0});
  expect_same_with_grad(
      table, [&](const Tensor& w) { return torch::embedding(w, ids); },
      [&](const Tensor& w) { return F::embedding(ids, w); });
  expect_same_with_grad(
      table, [&](const Tensor& w) { return torch::embedding(w, ids, 0); },
      [&](const Tensor& w) {
        return F::embedding(ids, w, F::EmbeddingFuncOptions().padding_idx(0));
      });

  const Tensor W = torch::tensor({{0.5, -1.0, 0.25}, {1.0, 0.0, 2.0}});
  const Tensor bias = torch::tensor({0.1, -0.2});
  expect_values(torch::linear(kX, W, bias), {1.85, 4.3, 0.725, 0.3});
  expect_values(torch::linear(kX, W), {1.75, 4.5, 0.625, 0.5});  // bias defaults to none
  expect_same_with_grad(
      kX, [&](const Tensor& t) { return torch::linear(t, W, bias); },
      [&](const Tensor& t) { return F::linear(t, W, bias); });
  const Tensor B3 = torch::arange(18, torch::dtype(torch::kFloat)).view({2, 3, 3}) * 0.1 - 0.5;
  expect_values(torch::bilinear(kX, kY, B3, bias), {1.375, 5.8, 0.325, -0.2});
  expect_same(torch::bilinear(kX, kY, B3), F::bilinear(kX, kY, B3));
}

TEST(AtenFunctions, EmbeddingBagReturnsATensFourOutputs) {
  const Tensor table = torch::arange(12, torch::dtype(torch::kFloat)).view({4, 3}) * 0.5 - 1.0;
  const Tensor ids = torch::tensor({0, 2, 1, 3, 3}, torch::dtype(torch::kLong));
  const Tensor offsets = torch::tensor({0, 2, 2}, torch::dtype(torch::kLong));
  // mode 1 (mean) with padding_idx 0: bag 1 is empty, the padding index counts for nothing.
  auto [mean, offset2bag, bag_size, max_indices] =
      torch::embedding_bag(table, ids, offsets, false, 1, false, {}, false, 0);
  expect_values(mean, {2.0, 2.5, 3.0, 0.0, 0.0, 0.0, 2.5, 3.0, 3.5});
  expect_values(offset2bag, {0, 0, 2, 2, 2});
  expect_values(bag_size, {1, 0, 3});
  expect_values(max_indices, {1, 0, 3});
  expect_same(mean, F::embedding_bag(ids, table,
                                     F::EmbeddingBagFuncOptions().offsets(offsets).padding_idx(0)));
  // mode 2 (max): max_indices are the winning rows per feature.
  auto [mx, o2b_max, size_max, rows] =
      torch::embedding_bag(table, ids, offsets, false, 2, false, {}, false, 0);
  expect_values(mx, {2.0, 2.5, 3.0, 0.0, 0.0, 0.0, 3.5, 4.0, 4.5});
  expect_values(rows, {2, 2, 2, 0, 0, 0, 3, 3, 3});
  // include_last_offset: the last offset ends the last bag (defaults before it: no
  // scale_grad_by_freq, sparse false, no per-sample weights).
  auto [last, o2b_last, size_last, idx_last] = torch::embedding_bag(
      table, ids, torch::tensor({0, 2, 5}, torch::dtype(torch::kLong)), false, 1, false, {}, true);
  expect_values(last, {0.5, 1.0, 1.5, 2.5, 3.0, 3.5});
  expect_values(size_last, {2, 3});
  // mode 0 (sum), the default: the same sums as the functional form, with gradients.
  expect_same_with_grad(
      table, [&](const Tensor& w) { return std::get<0>(torch::embedding_bag(w, ids, offsets)); },
      [&](const Tensor& w) {
        return F::embedding_bag(ids, w,
                                F::EmbeddingBagFuncOptions().offsets(offsets).mode(torch::kSum));
      });
#ifdef EMBER_API
  // ATen leaves these empty / zero in sum mode on the CPU; Ember fills them.
  auto [sum, o2b_sum, size_sum, unused] = torch::embedding_bag(table, ids, offsets);
  expect_values(o2b_sum, {0, 0, 2, 2, 2});
  expect_values(size_sum, {2, 0, 3});
  expect_error_naming([&] { torch::embedding_bag(table, ids, offsets, false, 3); },
                      {"embedding_bag", "mode"});
#endif
}

TEST(AtenFunctions, DistancesMatchFunctionalAndDefaults) {
  expect_values(torch::pairwise_distance(kX, kY), {1.2247432, 2.0766566});  // p 2, eps 1e-6
  expect_values(torch::pairwise_distance(kX, kY, 1.0, 1e-3, true), {1.997, 2.7490001});
  expect_same(
      torch::pairwise_distance(kX, kY, 1.0, 1e-3, true),
      F::pairwise_distance(kX, kY, F::PairwiseDistanceFuncOptions().p(1).eps(1e-3).keepdim(true)));
  expect_values(torch::cosine_similarity(kX, kY), {0.8914849, -0.8485281});  // dim 1
  expect_values(torch::cosine_similarity(kX, kY, 0), {-0.1414213, 0.0, 0.9701425});
  expect_same_with_grad(
      kX, [](const Tensor& t) { return torch::cosine_similarity(t, kY, 0); },
      [](const Tensor& t) {
        return F::cosine_similarity(t, kY, F::CosineSimilarityFuncOptions().dim(0));
      });
}

#ifdef EMBER_API
TEST(AtenFunctions, ErrorsNameTheOp) {
  expect_error_naming([] { torch::mse_loss(kX, kY, 5); }, {"mse_loss", "5", "reduction"});
  expect_error_naming([] { torch::kl_div(kX, kY, -1); }, {"kl_div", "reduction"});
  expect_error_naming(
      [] {
        torch::nll_loss(torch::zeros({1, 4, 3, 1}), torch::zeros({1, 3, 1}, torch::kLong));
      },
      {"nll_loss", "1D or 2D"});
  expect_error_naming(
      [] {
        torch::nll_loss2d(torch::zeros({3, 4}), kClasses);
      },
      {"nll_loss2d", "4D"});
  expect_error_naming([] { torch::multi_margin_loss(kLogits, kClasses, 1.5); },
                      {"multi_margin_loss", "p"});
  // The functional form's own checks name the op too.
  expect_error_naming([] { torch::mse_loss(kX, torch::zeros({4})); }, {"mse_loss"});
  expect_error_naming([] { torch::layer_norm(kX, {4}); }, {"layer_norm"});
  expect_error_naming(
      [] {
        torch::embedding(torch::zeros({4, 3}), kClasses, 0, false, true);
      },
      {"embedding", "sparse"});
}
#endif

}  // namespace
