// nn::utils::parametrize and functional_call: state_dict keys as Python's, the module's member
// holding the parametrized value, gradients reaching the originals (checked against the same
// composition written by hand), removal, caching, errors, and functional_call's swap-and-restore
// with graphs that outlive the call.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "ember/nn/utils/parametrizations.h"
#include "ember/nn/utils/parametrize.h"
#include "ember/nn/utils/stateless.h"
#include "tests/support/expect_error.h"

using namespace ember;
namespace parametrize = ember::nn::utils::parametrize;

namespace parametrize_test {

using ember_test::expect_error;

int symmetric_calls = 0;

struct SymmetricImpl : nn::Module {
  Tensor forward(const Tensor& x) {
    ++symmetric_calls;
    return x.triu() + x.triu(1).transpose(0, 1);
  }
};
EMBER_MODULE(Symmetric);

// forward(x) = 2x with right_inverse(y) = y / 2.
struct DoubleImpl : nn::Module {
  Tensor forward(const Tensor& x) { return x * 2.0; }
  Tensor right_inverse(const Tensor& y) { return y / 2.0; }
};
EMBER_MODULE(Double);

// Two originals: forward(a, b) = a + b, right_inverse(y) = (y, 0).
struct SplitImpl : nn::Module {
  Tensor forward(const Tensor& a, const Tensor& b) { return a + b; }
  std::vector<Tensor> right_inverse(const Tensor& y) { return {y, ember::zeros_like(y)}; }
};
EMBER_MODULE(Split);

struct FlattenImpl : nn::Module {
  Tensor forward(const Tensor& x) { return x.reshape({-1}); }
};
EMBER_MODULE(Flatten);

std::vector<std::string> keys_of(const nn::StateDict& sd) { return sd.keys(); }

bool same_values(const Tensor& a, const Tensor& b) {
  return a.sizes().equals(b.sizes()) && ember::equal(a.contiguous(), b.contiguous());
}

TEST(Parametrize, StateDictKeysMatchPython) {
  nn::Linear lin(3, 3);
  parametrize::register_parametrization(*lin, "weight", Symmetric());
  EXPECT_EQ(keys_of(lin->state_dict()),
            (std::vector<std::string>{"bias", "parametrizations.weight.original"}));
  EXPECT_TRUE(parametrize::is_parametrized(*lin));
  EXPECT_TRUE(parametrize::is_parametrized(*lin, "weight"));
  EXPECT_FALSE(parametrize::is_parametrized(*lin, "bias"));
  EXPECT_EQ(lin->parameters().size(), 2u);
  EXPECT_EQ(parametrize::type_before_parametrizations(*lin),
            std::type_index(typeid(nn::LinearImpl)));
}

TEST(Parametrize, MemberHoldsValueAndGradientsReachOriginal) {
  ember::manual_seed(1);
  nn::Linear lin(4, 4);
  Tensor w0 = lin->weight.detach().clone();
  parametrize::register_parametrization(*lin, "weight", Symmetric());
  Tensor original = lin->get_parameter("parametrizations.weight.original");
  EXPECT_TRUE(same_values(original, w0));  // no right_inverse: the original is the old weight
  EXPECT_TRUE(same_values(lin->weight, w0.triu() + w0.triu(1).t()));

  Tensor x = ember::randn({5, 4});
  Tensor y = lin(x);
  y.pow(2).sum().backward();

  // The same composition by hand.
  Tensor w = w0.clone().requires_grad_(true);
  Tensor b = lin->bias.detach().clone().requires_grad_(true);
  Tensor ref = ember::nn::functional::linear(x, w.triu() + w.triu(1).t(), b);
  ref.pow(2).sum().backward();
  EXPECT_TRUE(ember::allclose(y, ref, 1e-6, 1e-6));
  ASSERT_TRUE(original.grad().defined());
  EXPECT_TRUE(ember::allclose(original.grad(), w.grad(), 1e-5, 1e-6));
  EXPECT_TRUE(ember::allclose(lin->bias.grad(), b.grad(), 1e-5, 1e-6));

  // An optimizer step on the original shows in the member at the next call.
  {
    NoGradGuard ng;
    original.add_(1.0);
  }
  lin(x);
  Tensor w1 = w0 + 1.0;
  EXPECT_TRUE(same_values(lin->weight, w1.triu() + w1.triu(1).t()));
}

TEST(Parametrize, GraphSurvivesRefresh) {
  // Two calls before one backward: the first graph keeps the value it saw.
  nn::Linear lin(3, 2);
  parametrize::register_parametrization(*lin, "weight", Double());
  Tensor x = ember::randn({4, 3});
  Tensor a = lin(x).sum();
  Tensor b = lin(x * 2.0).sum();
  (a + b).backward();
  Tensor original = parametrize::parametrization_list(*lin, "weight")->original();
  // d/dW sum(x W^T) = sum over rows of x (per output row), weight = 2 * original.
  Tensor col = x.sum(0) + (x * 2.0).sum(0);
  Tensor expect = (col * 2.0).unsqueeze(0).expand({2, 3});
  EXPECT_TRUE(ember::allclose(original.grad(), expect, 1e-5, 1e-6));
}

TEST(Parametrize, RightInverseAndAssign) {
  nn::Linear lin(3, 2);
  Tensor w0 = lin->weight.detach().clone();
  parametrize::register_parametrization(*lin, "weight", Double());
  auto list = parametrize::parametrization_list(*lin, "weight");
  EXPECT_TRUE(ember::allclose(list->original(), w0 / 2.0));
  EXPECT_TRUE(ember::allclose(lin->weight, w0));
  Tensor target = ember::ones({2, 3});
  parametrize::assign(*lin, "weight", target);
  EXPECT_TRUE(ember::allclose(list->original(), target / 2.0));
  EXPECT_TRUE(ember::allclose(lin->weight, target));
}

TEST(Parametrize, ChainAndSeveralOriginals) {
  nn::Linear lin(3, 3);
  Tensor w0 = lin->weight.detach().clone();
  parametrize::register_parametrization(*lin, "weight", Split());
  parametrize::register_parametrization(*lin, "weight", Double());
  EXPECT_EQ(keys_of(lin->state_dict()),
            (std::vector<std::string>{"bias", "parametrizations.weight.original0",
                                      "parametrizations.weight.original1"}));
  EXPECT_TRUE(ember::allclose(lin->weight, w0 * 2.0));
  expect_error<ValueError>(
      [&] { parametrize::remove_parametrizations(*lin, "weight", /*leave_parametrized=*/false); },
      {"remove_parametrizations", "sequence of tensors"});
  parametrize::remove_parametrizations(*lin, "weight");
  EXPECT_FALSE(parametrize::is_parametrized(*lin));
  EXPECT_EQ(keys_of(lin->state_dict()), (std::vector<std::string>{"bias", "weight"}));
  EXPECT_TRUE(ember::allclose(lin->weight, w0 * 2.0));
  EXPECT_TRUE(lin->weight.is_leaf());
  EXPECT_TRUE(lin->weight.requires_grad());
}

TEST(Parametrize, RemoveLeavesParameterInTheMember) {
  nn::Linear lin(3, 3);
  Tensor w0 = lin->weight.detach().clone();
  parametrize::register_parametrization(*lin, "weight", Symmetric());
  parametrize::remove_parametrizations(*lin, "weight", /*leave_parametrized=*/false);
  EXPECT_TRUE(same_values(lin->weight, w0));
  EXPECT_TRUE(lin->weight.is_leaf());
  EXPECT_EQ(lin->named_parameters()["weight"].unsafeGetTensorImpl(),
            lin->weight.unsafeGetTensorImpl());
  Tensor x = ember::randn({2, 3});
  lin(x).sum().backward();
  EXPECT_TRUE(lin->weight.grad().defined());
  EXPECT_EQ(keys_of(lin->state_dict()), (std::vector<std::string>{"bias", "weight"}));
}

TEST(Parametrize, CachedComputesOnce) {
  nn::Linear lin(3, 3);
  parametrize::register_parametrization(*lin, "weight", Symmetric());
  Tensor x = ember::randn({2, 3});
  symmetric_calls = 0;
  lin(x);
  lin(x);
  EXPECT_EQ(symmetric_calls, 2);
  symmetric_calls = 0;
  {
    auto guard = parametrize::cached();
    lin(x);
    lin(x);
    lin(x);
  }
  EXPECT_EQ(symmetric_calls, 1);
}

TEST(Parametrize, Errors) {
  nn::Linear lin(3, 4);
  Tensor w0 = lin->weight.detach().clone();
  expect_error<ValueError>(
      [&] { parametrize::register_parametrization(*lin, "nope", Symmetric()); },
      {"register_parametrization", "nope", "does not have a parameter"});
  expect_error<ValueError>(
      [&] { parametrize::register_parametrization(*lin, "weight", Flatten()); },
      {"may not change the shape", "[4, 3]", "[12]"});
  // A failed registration leaves the module as it was.
  EXPECT_FALSE(parametrize::is_parametrized(*lin));
  EXPECT_EQ(keys_of(lin->state_dict()), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_TRUE(same_values(lin->weight, w0));
  // unsafe allows it.
  parametrize::register_parametrization(*lin, "weight", Flatten(), /*unsafe=*/true);
  EXPECT_EQ(lin->weight.dim(), 1);
  expect_error<ValueError>([&] { parametrize::remove_parametrizations(*lin, "bias"); },
                           {"remove_parametrizations", "bias"});
  expect_error<ValueError>([&] { parametrize::assign(*lin, "weight", w0); },
                           {"does not implement right_inverse"});
}

// ---- functional_call ----

TEST(FunctionalCall, ReplacesAndRestores) {
  ember::manual_seed(2);
  nn::Linear lin(3, 2);
  Tensor w0 = lin->weight.detach().clone();
  Tensor b0 = lin->bias.detach().clone();
  Tensor w = ember::randn({2, 3}).requires_grad_(true);
  Tensor x = ember::randn({4, 3});
  Tensor y = nn::utils::functional_call(*lin, {{"weight", w}}, x);
  // The module has its own tensors back, untouched, before backward runs.
  EXPECT_TRUE(same_values(lin->weight, w0));
  EXPECT_TRUE(lin->weight.is_leaf());
  y.pow(2).sum().backward();
  Tensor w_ref = w.detach().clone().requires_grad_(true);
  Tensor ref = ember::nn::functional::linear(x, w_ref, b0);
  ref.pow(2).sum().backward();
  EXPECT_TRUE(ember::allclose(y, ref, 1e-6, 1e-6));
  ASSERT_TRUE(w.grad().defined());
  EXPECT_TRUE(ember::allclose(w.grad(), w_ref.grad(), 1e-5, 1e-6));
  EXPECT_FALSE(lin->weight.grad().defined());
  EXPECT_TRUE(lin->bias.grad().defined());  // the bias was the module's own
}

TEST(FunctionalCall, NestedNamesStrictAndThrowingForward) {
  nn::Sequential seq(nn::Linear(3, 3), nn::ReLU(), nn::Linear(3, 1));
  Tensor x = ember::randn({2, 3});
  auto sd = seq->state_dict();
  OrderedDict<std::string, Tensor> zeros;
  for (const auto& item : sd) zeros.insert(item.key(), ember::zeros_like(item.value()));
  Tensor y =
      nn::utils::functional_call(*seq, zeros, nn::utils::FunctionalCallOptions().strict(true), x);
  EXPECT_TRUE(same_values(y, ember::zeros({2, 1})));
  expect_error<ValueError>(
      [&] {
        nn::utils::functional_call(*seq, {{"0.weight", ember::zeros({3, 3})}, {"9.bias", x}},
                                   nn::utils::FunctionalCallOptions().strict(true), x);
      },
      {"functional_call", "Missing key(s)", "'0.bias'", "Unexpected key(s)", "'9.bias'"});
  // A forward that throws still gets the module's tensors back.
  Tensor w_before = seq->named_parameters()["0.weight"].detach().clone();
  EXPECT_THROW(
      nn::utils::functional_call(*seq, {{"0.weight", ember::zeros({3, 3})}}, ember::randn({2, 5})),
      Error);
  EXPECT_TRUE(same_values(seq->named_parameters()["0.weight"], w_before));
  EXPECT_TRUE(seq->named_parameters()["0.weight"].is_leaf());
}

TEST(FunctionalCall, ThroughParametrizationOriginal) {
  nn::Linear lin(3, 3);
  parametrize::register_parametrization(*lin, "weight", Symmetric());
  Tensor a = ember::randn({3, 3}).requires_grad_(true);
  Tensor x = ember::randn({2, 3});
  Tensor y = nn::utils::functional_call(*lin, {{"parametrizations.weight.original", a}}, x);
  Tensor ref = ember::nn::functional::linear(x, a.triu() + a.triu(1).t(), lin->bias);
  EXPECT_TRUE(ember::allclose(y, ref, 1e-6, 1e-6));
  y.sum().backward();
  EXPECT_TRUE(a.grad().defined());
}

// A module whose forward saves its weight itself for backward (mul saves both operands).
struct ScaleImpl : nn::Module {
  ScaleImpl() { weight = register_parameter("weight", ember::full({3}, 3.0)); }
  Tensor forward(const Tensor& x) { return x * weight; }
  Tensor weight;
};
EMBER_MODULE(Scale);

TEST(FunctionalCall, SavedSlotKeepsTheGivenTensorAfterRestore) {
  Scale scale;
  Tensor w = ember::full({3}, 5.0).requires_grad_(true);
  Tensor x = ember::ones({3}).requires_grad_(true);
  Tensor y = nn::utils::functional_call(*scale, {{"weight", w}}, x);
  y.sum().backward();  // after the module got its own weight (3) back
  EXPECT_TRUE(same_values(x.grad(), ember::full({3}, 5.0)));
  EXPECT_TRUE(same_values(w.grad(), ember::ones({3})));
}

TEST(WeightNorm, KeysShapesValueAndGradients) {
  ember::manual_seed(3);
  nn::Linear lin(3, 2);
  Tensor w0 = lin->weight.detach().clone();
  nn::utils::parametrizations::weight_norm(*lin, "weight", 0);
  EXPECT_EQ(keys_of(lin->state_dict()),
            (std::vector<std::string>{"bias", "parametrizations.weight.original0",
                                      "parametrizations.weight.original1"}));
  auto list = parametrize::parametrization_list(*lin, "weight");
  Tensor g = list->original(0);
  Tensor v = list->original(1);
  EXPECT_EQ(g.sizes().vec(), (std::vector<int64_t>{2, 1}));
  EXPECT_TRUE(ember::allclose(g, (w0 * w0).sum(1, true).sqrt(), 1e-6, 1e-7));
  EXPECT_TRUE(ember::allclose(lin->weight, w0, 1e-6, 1e-7));

  {
    NoGradGuard ng;
    g.mul_(3.0);
  }
  Tensor x = ember::randn({4, 3});
  Tensor y = lin(x);
  y.pow(2).sum().backward();
  Tensor g_ref = g.detach().clone().requires_grad_(true);
  Tensor v_ref = v.detach().clone().requires_grad_(true);
  Tensor w_ref = v_ref * (g_ref / (v_ref * v_ref).sum(1, true).sqrt());
  Tensor ref = ember::nn::functional::linear(x, w_ref, lin->bias.detach());
  ref.pow(2).sum().backward();
  EXPECT_TRUE(ember::allclose(y, ref, 1e-5, 1e-6));
  EXPECT_TRUE(ember::allclose(lin->weight, w0 * 3.0, 1e-5, 1e-6));
  EXPECT_TRUE(ember::allclose(g.grad(), g_ref.grad(), 1e-4, 1e-6));
  EXPECT_TRUE(ember::allclose(v.grad(), v_ref.grad(), 1e-4, 1e-6));

  // dim = nullopt: one norm over the whole tensor.
  nn::Linear whole(3, 2);
  Tensor w1 = whole->weight.detach().clone();
  nn::utils::parametrizations::weight_norm(*whole, "weight", std::nullopt);
  Tensor g1 = parametrize::parametrization_list(*whole, "weight")->original(0);
  EXPECT_EQ(g1.dim(), 0);
  EXPECT_TRUE(ember::allclose(g1, (w1 * w1).sum().sqrt(), 1e-6, 1e-7));
  EXPECT_TRUE(ember::allclose(whole->weight, w1, 1e-6, 1e-7));
}

// Registration runs Python's 15 warm-up steps plus the one of the registration check, and binding
// the member does not advance the vectors again (Python computes nothing more until an access).
TEST(SpectralNorm, RegistrationStepsAndSigma) {
  ember::manual_seed(11);
  nn::Linear lin(6, 4);
  Tensor w = lin->weight.detach().clone();
  ember::manual_seed(5);
  nn::utils::parametrizations::spectral_norm(*lin, "weight");
  auto sd = lin->state_dict();
  EXPECT_EQ(keys_of(sd), (std::vector<std::string>{"bias", "parametrizations.weight.original",
                                                   "parametrizations.weight.0._u",
                                                   "parametrizations.weight.0._v"}));
  ember::manual_seed(5);
  auto normalize = [](const Tensor& x) { return x / x.norm(); };
  Tensor u = normalize(ember::randn({4}));
  Tensor v = normalize(ember::randn({6}));
  for (int i = 0; i < 16; ++i) {
    u = normalize(ember::mv(w, v));
    v = normalize(ember::mv(w.t(), u));
  }
  EXPECT_TRUE(ember::allclose(sd["parametrizations.weight.0._u"], u, 1e-5, 1e-7));
  EXPECT_TRUE(ember::allclose(sd["parametrizations.weight.0._v"], v, 1e-5, 1e-7));
  // The member holds what Python's first `module.weight` access gives: one more step, taken on
  // copies so the buffers stay at step 16.
  Tensor u17 = normalize(ember::mv(w, v));
  Tensor v17 = normalize(ember::mv(w.t(), u17));
  EXPECT_TRUE(ember::allclose(lin->weight, w / ember::dot(u17, ember::mv(w, v17)), 1e-5, 1e-7));
  EXPECT_FALSE(ember::allclose(u17, u, 1e-9, 0));  // the step is visible

  // Eval calls leave the vectors alone; training calls converge to sigma = 1.
  lin->eval();
  Tensor x = ember::randn({2, 6});
  lin(x);
  EXPECT_TRUE(same_values(lin->state_dict()["parametrizations.weight.0._u"], u));
  lin->train();
  for (int i = 0; i < 50; ++i) lin(x);
  Tensor sigma = ember::linalg::svdvals(lin->weight.detach()).max();
  EXPECT_NEAR(sigma.item<double>(), 1.0, 1e-4);
}

TEST(SpectralNorm, VectorAndErrors) {
  nn::Linear lin(3, 4);
  Tensor b = lin->bias.detach().clone();
  nn::utils::parametrizations::spectral_norm(*lin, "bias");
  EXPECT_TRUE(ember::allclose(lin->bias, b / b.norm(), 1e-6, 1e-7));
  EXPECT_EQ(lin->named_buffers().size(), 0u);  // no power iteration for a vector

  nn::Linear other(3, 4);
  expect_error<ValueError>([&] { nn::utils::parametrizations::spectral_norm(*other, "weight", 0); },
                           {"spectral_norm", "n_power_iterations"});
  expect_error<IndexError>(
      [&] { nn::utils::parametrizations::spectral_norm(*other, "weight", 1, 1e-12, 2); },
      {"spectral_norm", "out of range"});
  expect_error<ValueError>([&] { nn::utils::parametrizations::spectral_norm(*other, "kernel"); },
                           {"spectral_norm", "kernel"});
  EXPECT_FALSE(parametrize::is_parametrized(*other));
}

// Q of every map has orthonormal columns (tall) or rows (wide) to 1e-5 in float32, before and
// after a gradient step on the original; assign() goes through right_inverse.
TEST(Orthogonal, OrthonormalForEveryMapAndShape) {
  for (const char* map : {"matrix_exp", "cayley", "householder"}) {
    for (auto [in_f, out_f] : {std::pair<int64_t, int64_t>{6, 6}, {4, 7}, {7, 4}}) {
      for (bool triv : {true, false}) {
        SCOPED_TRACE(std::string(map) + " " + std::to_string(out_f) + "x" + std::to_string(in_f) +
                     (triv ? "" : " without trivialization"));
        nn::Linear lin(in_f, out_f);
        nn::utils::parametrizations::orthogonal(*lin, "weight", map, triv);
        auto orthonormal = [&](const Tensor& q) {
          Tensor g = out_f >= in_f ? q.t().matmul(q) : q.matmul(q.t());
          Tensor id = ember::eye(std::min(in_f, out_f));
          return (g - id).abs().max().item<double>();
        };
        EXPECT_LT(orthonormal(lin->weight), 1e-5);
        Tensor original = parametrize::parametrization_list(*lin, "weight")->original();
        Tensor before = lin->weight.detach().clone();
        lin(ember::randn({3, in_f})).pow(2).sum().backward();
        ASSERT_TRUE(original.grad().defined());
        {
          NoGradGuard ng;
          original.sub_(original.grad() * 0.5);
        }
        lin(ember::randn({3, in_f}));
        EXPECT_LT(orthonormal(lin->weight), 1e-5);
        EXPECT_GT((lin->weight - before).abs().max().item<double>(), 1e-4);  // it moved

        // assign: an orthogonal target comes back as the weight (trivialization or householder).
        Tensor target = std::get<0>(
            ember::linalg::qr(ember::randn({std::max(in_f, out_f), std::min(in_f, out_f)})));
        if (out_f < in_f) target = target.t().contiguous();
        if (triv || std::string(map) == "householder") {
          parametrize::assign(*lin, "weight", target);
          EXPECT_TRUE(ember::allclose(lin->weight, target, 1e-4, 1e-5));
        } else {
          expect_error<NotImplementedError>([&] { parametrize::assign(*lin, "weight", target); },
                                            {"orthogonal", "Cayley"});
        }
      }
    }
  }
}

TEST(Orthogonal, Errors) {
  nn::Linear lin(3, 4);
  expect_error<ValueError>([&] { nn::utils::parametrizations::orthogonal(*lin, "bias"); },
                           {"orthogonal", "matrix", "1 dimensions"});
  expect_error<ValueError>([&] { nn::utils::parametrizations::orthogonal(*lin, "weight", "qr"); },
                           {"orthogonal_map", "qr"});
  EXPECT_FALSE(parametrize::is_parametrized(*lin));
  nn::utils::parametrizations::orthogonal(*lin);
  expect_error<ValueError>(
      [&] {
        parametrize::assign(*lin, "weight", ember::zeros({3, 4}));
      },
      {"orthogonal", "[4, 3]", "[3, 4]"});
}

}  // namespace parametrize_test
