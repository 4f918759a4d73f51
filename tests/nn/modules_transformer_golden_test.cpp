// MultiheadAttention and the Transformer family against PyTorch
// (tests/golden/nn_transformer.golden, written by tests/golden/gen/nn_transformer.py): parameter
// names and order, outputs, attention weights and the gradients of every input and parameter, in
// float64 and float32.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn.h"
#include "tests/support/golden.h"

using namespace ember;

// A named namespace: the test sources are compiled as unity files.
namespace transformer_golden_test {

/// Copies the case's parameters (from args[first]) into the module, checking names and shapes.
std::vector<Tensor> load_parameters(nn::Module& m, const GoldenCase& c, size_t first) {
  auto named = m.named_parameters();
  EXPECT_EQ(named.keys(), c.strs) << c.name << ": parameter names differ from PyTorch's";
  EXPECT_EQ(c.args.size(), first + c.strs.size()) << c.name;
  std::vector<Tensor> params;
  NoGradGuard no_grad;
  for (size_t k = 0; k < c.strs.size() && first + k < c.args.size(); ++k) {
    Tensor& p = named[c.strs[k]];
    EXPECT_EQ(p.sizes(), c.args[first + k].sizes()) << c.name << ": " << c.strs[k];
    p.copy_(c.args[first + k]);
    params.push_back(p);
  }
  return params;
}

/// outputs, then the gradients of Σ (output·cotangent) for `inputs` and `params`.
std::vector<Tensor> with_gradients(const std::vector<Tensor>& outs, const std::vector<Tensor>& cots,
                                   const std::vector<Tensor>& inputs,
                                   const std::vector<Tensor>& params) {
  Tensor loss = zeros({}, outs[0].options());
  for (size_t k = 0; k < outs.size(); ++k) loss = loss + (outs[k] * cots[k]).sum();
  autograd::variable_list wrt(inputs.begin(), inputs.end());
  wrt.insert(wrt.end(), params.begin(), params.end());
  autograd::variable_list grads = autograd::grad({loss}, wrt);
  std::vector<Tensor> result(outs);
  result.insert(result.end(), grads.begin(), grads.end());
  return result;
}

// iarg: embed_dim num_heads bias add_bias_kv add_zero_attn kdim vdim batch_first need_weights
//       average_attn_weights has_key_padding_mask has_attn_mask is_causal
std::vector<Tensor> run_mha(const GoldenCase& c) {
  const auto& i = c.ints;
  nn::MultiheadAttentionOptions o(i[0], i[1]);
  o.bias(i[2] != 0).add_bias_kv(i[3] != 0).add_zero_attn(i[4] != 0).batch_first(i[7] != 0);
  if (i[5] != 0) o.kdim(i[5]);
  if (i[6] != 0) o.vdim(i[6]);
  const bool need_weights = i[8] != 0, average = i[9] != 0, has_kpm = i[10] != 0,
             has_mask = i[11] != 0, causal = i[12] != 0;
  nn::MultiheadAttention mha(o);
  mha->to(c.args[0].scalar_type());
  mha->eval();
  size_t a = 3;
  const Tensor kpm = has_kpm ? c.args[a++] : Tensor();
  const Tensor mask = has_mask ? c.args[a++] : Tensor();
  std::vector<Tensor> cots{c.args[a++]};
  if (need_weights) cots.push_back(c.args[a++]);
  std::vector<Tensor> params = load_parameters(*mha, c, a);
  std::vector<Tensor> inputs;
  for (size_t k = 0; k < 3; ++k) inputs.push_back(c.args[k].clone().requires_grad_(true));
  auto [out, weights] =
      mha->forward(inputs[0], inputs[1], inputs[2], kpm, need_weights, mask, average, causal);
  EXPECT_EQ(weights.defined(), need_weights) << c.name;
  std::vector<Tensor> outs{out};
  if (need_weights) outs.push_back(weights);
  return with_gradients(outs, cots, inputs, params);
}

TEST(TransformerGolden, MultiheadAttentionMatchesPyTorch) {
  const std::vector<GoldenCase> cases =
      golden_cases_for(load_golden("nn_transformer"), "MultiheadAttention");
  ASSERT_GE(cases.size(), 20U);
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(c.name + " (" + c.location + "): " + c.call);
    std::vector<Tensor> got = run_mha(c);
    ASSERT_EQ(got.size(), c.outs.size());
    const bool f64 = c.args[0].scalar_type() == kFloat64;
    const double rtol = f64 ? 1e-11 : 2e-5, atol = f64 ? 1e-13 : 2e-6;
    for (size_t k = 0; k < got.size(); ++k)
      expect_close(got[k], c.outs[k], rtol, atol, c.name + " result " + std::to_string(k));
  }
}

/// The next optional tensor argument: args[a++] when `present`, else undefined.
Tensor optional_arg(const GoldenCase& c, size_t& a, bool present) {
  return present ? c.args[a++] : Tensor();
}

template <class Options>
Options layer_options(const GoldenCase& c) {
  const auto& i = c.ints;
  Options o(i[0], i[1]);
  o.dim_feedforward(i[2])
      .dropout(0.0)
      .layer_norm_eps(c.scalars[0])
      .batch_first(i[4] != 0)
      .norm_first(i[5] != 0);
  if (i[3] != 0) o.activation(ember::kGELU);
  return o;
}

/// Runs `module` on the case (its inputs the first `n_inputs` args, then the optional masks
/// flagged by `mask_flags`), backward from the cotangent; `call` maps (inputs, masks) to the
/// output.
template <class M, class Call>
std::vector<Tensor> run_module(const GoldenCase& c, M& module, size_t n_inputs,
                               const std::vector<bool>& mask_flags, Call call) {
  module->to(c.args[0].scalar_type());
  module->eval();
  size_t a = n_inputs;
  std::vector<Tensor> masks;
  for (bool f : mask_flags) masks.push_back(optional_arg(c, a, f));
  const Tensor cot = c.args[a++];
  std::vector<Tensor> params = load_parameters(*module.ptr(), c, a);
  std::vector<Tensor> inputs;
  for (size_t k = 0; k < n_inputs; ++k) inputs.push_back(c.args[k].clone().requires_grad_(true));
  return with_gradients({call(inputs, masks)}, {cot}, inputs, params);
}

std::vector<Tensor> run_encoder_layer(const GoldenCase& c) {
  nn::TransformerEncoderLayer m(layer_options<nn::TransformerEncoderLayerOptions>(c));
  return run_module(c, m, 1, {c.ints[6] != 0, c.ints[7] != 0},
                    [&](auto& in, auto& mk) { return m(in[0], mk[0], mk[1]); });
}

std::vector<Tensor> run_decoder_layer(const GoldenCase& c) {
  nn::TransformerDecoderLayer m(layer_options<nn::TransformerDecoderLayerOptions>(c));
  const auto& i = c.ints;
  return run_module(c, m, 2, {i[6] != 0, i[7] != 0, i[8] != 0, i[9] != 0}, [&](auto& in, auto& mk) {
    return m(in[0], in[1], mk[0], mk[1], mk[2], mk[3]);
  });
}

std::vector<Tensor> run_encoder(const GoldenCase& c) {
  const auto& i = c.ints;
  nn::TransformerEncoderOptions o(layer_options<nn::TransformerEncoderLayerOptions>(c), i[6]);
  if (i[7] != 0)
    o.norm(nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({i[0]}).eps(c.scalars[0]))));
  nn::TransformerEncoder m(o);
  return run_module(c, m, 1, {i[8] != 0, i[9] != 0},
                    [&](auto& in, auto& mk) { return m(in[0], mk[0], mk[1]); });
}

std::vector<Tensor> run_decoder(const GoldenCase& c) {
  const auto& i = c.ints;
  nn::TransformerDecoderOptions o(layer_options<nn::TransformerDecoderLayerOptions>(c), i[6]);
  if (i[7] != 0)
    o.norm(nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({i[0]}).eps(c.scalars[0]))));
  nn::TransformerDecoder m(o);
  return run_module(
      c, m, 2, {i[8] != 0, i[9] != 0, i[10] != 0, i[11] != 0},
      [&](auto& in, auto& mk) { return m(in[0], in[1], mk[0], mk[1], mk[2], mk[3]); });
}

std::vector<Tensor> run_transformer(const GoldenCase& c) {
  const auto& i = c.ints;
  nn::TransformerOptions o(i[0], i[1], i[2], i[3]);
  o.dim_feedforward(i[4]).dropout(0.0).batch_first(i[6] != 0).norm_first(i[7] != 0).layer_norm_eps(
      c.scalars[0]);
  if (i[5] != 0) o.activation(ember::kGELU);
  nn::Transformer m(o);
  return run_module(c, m, 2, {i[8] != 0, i[9] != 0, i[10] != 0, i[11] != 0, i[12] != 0, i[13] != 0},
                    [&](auto& in, auto& mk) {
                      return m(in[0], in[1], mk[0], mk[1], mk[2], mk[3], mk[4], mk[5]);
                    });
}

TEST(TransformerGolden, EveryTransformerModuleMatchesPyTorch) {
  const std::vector<GoldenCase> cases = load_golden("nn_transformer");
  const std::map<std::string, std::vector<Tensor> (*)(const GoldenCase&)> runners{
      {"TransformerEncoderLayer", &run_encoder_layer},
      {"TransformerDecoderLayer", &run_decoder_layer},
      {"TransformerEncoder", &run_encoder},
      {"TransformerDecoder", &run_decoder},
      {"Transformer", &run_transformer}};
  std::map<std::string, int> seen;
  for (const GoldenCase& c : cases) {
    auto it = runners.find(c.op());
    if (it == runners.end()) continue;
    SCOPED_TRACE(c.name + " (" + c.location + "): " + c.call);
    ++seen[c.op()];
    std::vector<Tensor> got = it->second(c);
    ASSERT_EQ(got.size(), c.outs.size());
    const bool f64 = c.args[0].scalar_type() == kFloat64;
    // float32: the layer norms divide by small variances of 4-8 features, so a little above the
    // attention's tolerance.
    const double rtol = f64 ? 1e-10 : 5e-5, atol = f64 ? 1e-12 : 5e-6;
    for (size_t k = 0; k < got.size(); ++k)
      expect_close(got[k], c.outs[k], rtol, atol, c.name + " result " + std::to_string(k));
  }
  for (const auto& [op, run] : runners) EXPECT_GE(seen[op], 2) << op << " has too few cases";
}

TEST(TransformerGolden, SquareSubsequentMaskMatchesPyTorch) {
  const std::vector<GoldenCase> cases =
      golden_cases_for(load_golden("nn_transformer"), "generate_square_subsequent_mask");
  ASSERT_GE(cases.size(), 3U);
  for (const GoldenCase& c : cases)
    expect_close(nn::TransformerImpl::generate_square_subsequent_mask(c.ints[0]), c.outs[0], 0, 0,
                 c.name);
}

}  // namespace transformer_golden_test
