// nn::utils::prune against PyTorch (tests/golden/nn_prune.golden, written by
// tests/golden/gen/nn_prune.py): each record is a model and a list of pruning steps; the masks
// (ties included), the pruned output, the gradients and the state_dict must equal Python's.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/utils/prune.h"
#include "tests/support/golden.h"

using namespace ember;
namespace prune = ember::nn::utils::prune;

// A named namespace: the test sources are compiled as unity files.
namespace prune_golden_test {

nn::Sequential build(const std::string& model) {
  if (model == "mlp") return nn::Sequential(nn::Linear(6, 5), nn::ReLU(), nn::Linear(5, 4));
  return nn::Sequential(nn::Conv2d(3, 4, 3), nn::ReLU(), nn::Flatten(), nn::Linear(16, 3));
}

prune::Amount amount(const std::string& text) {
  if (text.find('.') != std::string::npos) return prune::Amount(std::stod(text));
  return prune::Amount(static_cast<int64_t>(std::stoll(text)));
}

double norm(const std::string& text) {
  if (text == "inf") return INFINITY;
  if (text == "-inf") return -INFINITY;
  return std::stod(text);
}

// "0.weight" -> (module "0" of seq, "weight").
std::pair<nn::Module*, std::string> target(nn::Sequential& seq, const std::string& path) {
  const size_t dot = path.rfind('.');
  auto child = seq->named_children()[path.substr(0, dot)];
  return {child.get(), path.substr(dot + 1)};
}

const Tensor& at_arg(const GoldenCase& c, const std::string& ref) {
  return c.args.at(std::stoul(ref.substr(1)));
}

void run_step(nn::Sequential& seq, const GoldenCase& c, const std::string& step) {
  std::istringstream in(step);  // words joined by commas
  std::vector<std::string> w;
  for (std::string word; std::getline(in, word, ',');) w.push_back(word);
  if (w[0] == "l1") {
    auto [m, name] = target(seq, w[1]);
    prune::l1_unstructured(*m, name, amount(w[2]), w.size() > 3 ? at_arg(c, w[3]) : Tensor());
  } else if (w[0] == "ln") {
    auto [m, name] = target(seq, w[1]);
    prune::ln_structured(*m, name, amount(w[2]), norm(w[3]), std::stoll(w[4]));
  } else if (w[0] == "identity") {
    auto [m, name] = target(seq, w[1]);
    prune::identity(*m, name);
  } else if (w[0] == "custom") {
    auto [m, name] = target(seq, w[1]);
    prune::custom_from_mask(*m, name, at_arg(c, w[2]));
  } else if (w[0] == "global") {
    prune::ParameterRefs refs;
    for (size_t i = 2; i < w.size(); ++i) refs.push_back(target(seq, w[i]));
    prune::global_unstructured<prune::L1Unstructured>(refs, amount(w[1]));
  } else if (w[0] == "remove") {
    auto [m, name] = target(seq, w[1]);
    prune::remove(*m, name);
  } else {
    ADD_FAILURE() << c.name << ": unknown step " << step;
  }
}

TEST(PruneGolden, MasksOutputsGradientsAndStateDicts) {
  auto cases = golden_cases_for(load_golden("nn_prune"), "prune");
  ASSERT_GE(cases.size(), 18u);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.location);
    nn::Sequential seq = build(c.strs.at(0));
    size_t i = 1;
    std::vector<std::string> steps, keys;
    for (; i < c.strs.size() && c.strs[i] != "--"; ++i) steps.push_back(c.strs[i]);
    keys.assign(c.strs.begin() + static_cast<std::ptrdiff_t>(i) + 1, c.strs.end());
    auto params = seq->parameters();
    ASSERT_LE(params.size() + 1, c.args.size()) << c.name;
    {
      NoGradGuard no_grad;
      for (size_t k = 0; k < params.size(); ++k) params[k].copy_(c.args[k]);
    }
    const Tensor& x = c.args[params.size()];
    for (const auto& step : steps) run_step(seq, c, step);
    Tensor y = seq->forward(x);
    expect_close(y, c.outs.at(0), c.name + ": output");
    auto named = seq->named_parameters();
    std::vector<Tensor> now = named.values();
    auto grads = autograd::grad({(y * y).sum()}, now);
    ASSERT_EQ(c.outs.size(), 1 + now.size() + keys.size()) << c.name;
    // Gradients sum products of two layers in float32 (up to ~1e2 with the integer weights of the
    // tie cases): an error relative to the largest entry, where cancellation leaves a small one.
    for (size_t k = 0; k < now.size(); ++k) {
      const Tensor& expected = c.outs[1 + k];
      const double scale = expected.numel() ? expected.abs().max().item<double>() : 0.0;
      expect_close(grads[k], expected, 1e-5, 2e-6 * scale,
                   c.name + ": gradient of " + named.keys()[k]);
    }
    auto sd = seq->state_dict();
    EXPECT_EQ(sd.keys(), keys) << c.name << ": state_dict keys differ from PyTorch's";
    for (size_t k = 0; k < keys.size(); ++k)
      if (sd.contains(keys[k]))
        expect_close(sd[keys[k]], c.outs[1 + now.size() + k], c.name + ": " + keys[k]);
  }
}

}  // namespace prune_golden_test
