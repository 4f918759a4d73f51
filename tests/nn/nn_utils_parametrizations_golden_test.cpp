// spectral_norm, weight_norm and orthogonal against PyTorch (tests/golden/nn_parametrize.golden,
// written by tests/golden/gen/nn_parametrize.py): outputs in training and eval mode, the
// power-iteration buffers, gradients to the originals, state_dict keys and values, and Python's
// state_dict loaded into a fresh Ember module.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/utils/parametrizations.h"
#include "tests/support/golden.h"

using namespace ember;

// A named namespace: the test sources are compiled as unity files.
namespace parametrizations_golden_test {

constexpr int64_t kNotGiven = -100;

std::shared_ptr<nn::Module> build(const std::string& kind) {
  std::shared_ptr<nn::Module> m;
  if (kind == "linear") m = nn::Linear(5, 4).ptr();
  if (kind == "conv2d") m = nn::Conv2d(2, 3, 3).ptr();
  if (kind == "conv_transpose2d") m = nn::ConvTranspose2d(2, 3, 3).ptr();
  EXPECT_TRUE(m != nullptr) << "no builder for " << kind;
  if (m) m->to(kFloat64);
  return m;
}

// The module part of "<family>/<module>_<rest>".
std::string module_kind(const GoldenCase& c) {
  std::string v = c.variant();
  for (const char* kind : {"conv_transpose2d", "conv2d", "linear"})
    if (v.rfind(kind, 0) == 0) return kind;
  return v;
}

void set_tensor(nn::Module& m, const std::string& key, const Tensor& value) {
  NoGradGuard no_grad;
  auto sd = m.state_dict("", /*keep_vars=*/true);
  ASSERT_TRUE(sd.contains(key)) << key;
  sd[key].copy_(value);
}

// Through the module's call path (hooks included), as `lin(x)` in a user's model.
Tensor call(nn::Module& m, const Tensor& x) {
  if (auto* lin = dynamic_cast<nn::LinearImpl*>(&m)) return nn::call_module(*lin, x);
  if (auto* conv = dynamic_cast<nn::Conv2dImpl*>(&m)) return nn::call_module(*conv, x);
  if (auto* convt = dynamic_cast<nn::ConvTranspose2dImpl*>(&m)) return nn::call_module(*convt, x);
  ADD_FAILURE() << "no call for " << m.name();
  return {};
}

void expect_state_dict(nn::Module& m, const GoldenCase& c, size_t first_out) {
  auto sd = m.state_dict();
  EXPECT_EQ(sd.keys(), c.strs) << c.name << ": state_dict keys differ from PyTorch's";
  for (size_t k = 0; k < c.strs.size() && first_out + k < c.outs.size(); ++k)
    if (sd.contains(c.strs[k]))
      expect_close(sd[c.strs[k]], c.outs[first_out + k], c.name + ": " + c.strs[k]);
}

// Python's state_dict loaded into a freshly parametrized module gives Python's eval output.
void expect_python_state_dict_loads(const GoldenCase& c,
                                    const std::function<void(nn::Module&)>& reg, const Tensor& x,
                                    const Tensor& y, size_t first_out) {
  auto fresh = build(module_kind(c));
  reg(*fresh);
  nn::StateDict sd;
  for (size_t k = 0; k < c.strs.size(); ++k) sd.insert(c.strs[k], c.outs[first_out + k]);
  fresh->load_state_dict(sd);
  fresh->eval();
  expect_close(call(*fresh, x), y, c.name + ": eval output after loading Python's state_dict");
}

TEST(ParametrizationsGolden, SpectralNorm) {
  auto cases = golden_cases_for(load_golden("nn_parametrize"), "spectral_norm");
  ASSERT_GE(cases.size(), 6u);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.location);
    const int64_t n_iter = c.ints[0], steps = c.ints[1], dim = c.ints[2];
    std::optional<int64_t> d = dim == kNotGiven ? std::nullopt : std::optional<int64_t>(dim);
    auto reg = [&](nn::Module& m) {
      nn::utils::parametrizations::spectral_norm(m, "weight", n_iter, 1e-12, d);
    };
    auto m = build(module_kind(c));
    set_tensor(*m, "weight", c.args[0]);
    set_tensor(*m, "bias", c.args[1]);
    reg(*m);
    set_tensor(*m, "parametrizations.weight.0._u", c.args[2]);
    set_tensor(*m, "parametrizations.weight.0._v", c.args[3]);
    const Tensor& x = c.args[4];
    m->train();
    Tensor y_train;
    for (int64_t s = 0; s < steps; ++s) y_train = call(*m, x);
    expect_close(y_train, c.outs[0], c.name + ": training output");
    m->eval();
    Tensor y_eval = call(*m, x);
    expect_close(y_eval, c.outs[1], c.name + ": eval output");
    Tensor original = m->named_parameters()["parametrizations.weight.original"];
    auto grads = autograd::grad({(y_eval * y_eval).sum()}, {original});
    expect_close(grads[0], c.outs[2], c.name + ": gradient of the original");
    expect_state_dict(*m, c, 3);
    expect_python_state_dict_loads(c, reg, x, c.outs[1], 3);
  }
}

TEST(ParametrizationsGolden, WeightNorm) {
  auto cases = golden_cases_for(load_golden("nn_parametrize"), "weight_norm");
  ASSERT_GE(cases.size(), 5u);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.location);
    const int64_t dim = c.ints[0];
    std::optional<int64_t> d = dim == kNotGiven ? std::nullopt : std::optional<int64_t>(dim);
    auto reg = [&](nn::Module& m) { nn::utils::parametrizations::weight_norm(m, "weight", d); };
    auto m = build(module_kind(c));
    set_tensor(*m, "weight", c.args[0]);
    set_tensor(*m, "bias", c.args[1]);
    reg(*m);
    auto params = m->named_parameters();
    Tensor g = params["parametrizations.weight.original0"];
    Tensor v = params["parametrizations.weight.original1"];
    {
      NoGradGuard no_grad;
      g.mul_(c.args[3]);
    }
    const Tensor& x = c.args[2];
    Tensor y = call(*m, x);
    expect_close(y, c.outs[0], c.name + ": output");
    auto grads = autograd::grad({(y * y).sum()}, {g, v});
    expect_close(grads[0], c.outs[1], c.name + ": gradient of original0 (g)");
    expect_close(grads[1], c.outs[2], c.name + ": gradient of original1 (v)");
    expect_state_dict(*m, c, 3);
    expect_python_state_dict_loads(c, reg, x, c.outs[0], 3);
  }
}

TEST(ParametrizationsGolden, Orthogonal) {
  static const char* const kMaps[] = {"matrix_exp", "cayley", "householder"};
  auto cases = golden_cases_for(load_golden("nn_parametrize"), "orthogonal");
  ASSERT_GE(cases.size(), 18u);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.location);
    const int64_t in_f = c.ints[0], out_f = c.ints[1];
    const bool triv = c.ints[3] != 0;
    const size_t n_keys = c.strs.size();
    auto reg = [&](nn::Module& m) {
      nn::utils::parametrizations::orthogonal(m, "weight", kMaps[c.ints[2]], triv);
    };
    nn::Linear lin(nn::LinearOptions(in_f, out_f));
    lin->to(kFloat64);
    set_tensor(*lin, "weight", c.args[0]);
    set_tensor(*lin, "bias", c.args[1]);
    reg(*lin);
    // Right after registration: everything but a non-square base (Python completes it with
    // torch.randn columns) equals Python's.
    auto sd0 = lin->state_dict();
    ASSERT_EQ(sd0.keys(), c.strs) << c.name << ": state_dict keys differ from PyTorch's";
    for (size_t k = 0; k < n_keys; ++k)
      if (in_f == out_f || c.strs[k] != "parametrizations.weight.0.base")
        expect_close(sd0[c.strs[k]], c.outs[k], c.name + ": after registration: " + c.strs[k]);
    // Python's state_dict after registration (its base included), then original += delta.
    nn::StateDict python_sd0;
    for (size_t k = 0; k < n_keys; ++k) python_sd0.insert(c.strs[k], c.outs[k]);
    lin->load_state_dict(python_sd0);
    Tensor original = lin->named_parameters()["parametrizations.weight.original"];
    {
      NoGradGuard no_grad;
      original.add_(c.args[3]);
    }
    Tensor y = lin(c.args[2]);
    expect_close(y, c.outs[n_keys], c.name + ": output");
    expect_close(lin->weight, c.outs[n_keys + 1], c.name + ": parametrized weight");
    auto grads = autograd::grad({(y * y).sum()}, {original});
    expect_close(grads[0], c.outs[n_keys + 2], c.name + ": gradient of the original");
    expect_state_dict(*lin, c, n_keys + 3);
  }
}

}  // namespace parametrizations_golden_test
