// RNN, LSTM, GRU and the cells beyond the golden values: finite-difference gradients, errors,
// zero-size batches, dropout between layers, initialisation, printing, cloning, and the
// ATen-level functions the modules call.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "ember/autograd/gradcheck.h"
#include "ember/ember.h"
#include "ember/nn.h"
#include "tests/support/expect_error.h"

using namespace ember;
using ember_test::expect_error;

namespace {

TensorOptions f64() { return TensorOptions().dtype(kFloat64); }

Tensor leaf(std::vector<int64_t> sizes) { return randn(sizes, f64()).requires_grad_(true); }

/// params for ember::lstm/gru/rnn_*: per layer and direction w_ih, w_hh, b_ih, b_hh[, w_hr].
std::vector<Tensor> stack_params(int64_t gates, int64_t in, int64_t hidden, int64_t layers,
                                 int64_t dirs, int64_t proj) {
  std::vector<Tensor> p;
  const int64_t out = proj ? proj : hidden;
  for (int64_t l = 0; l < layers; ++l)
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t layer_in = l == 0 ? in : out * dirs;
      p.push_back(leaf({gates * hidden, layer_in}));
      p.push_back(leaf({gates * hidden, out}));
      p.push_back(leaf({gates * hidden}));
      p.push_back(leaf({gates * hidden}));
      if (proj) p.push_back(leaf({proj, hidden}));
    }
  return p;
}

TEST(RNNGradcheck, LSTMStackWithProjectionBidirectional) {
  manual_seed(1);
  const int64_t layers = 2, dirs = 2, hidden = 3, proj = 2;
  std::vector<Tensor> inputs{leaf({3, 2, 2}), leaf({layers * dirs, 2, proj}),
                             leaf({layers * dirs, 2, hidden})};
  for (Tensor& p : stack_params(4, 2, hidden, layers, dirs, proj)) inputs.push_back(p);
  auto fn = [&](const autograd::variable_list& v) {
    std::vector<Tensor> params(v.begin() + 3, v.end());
    auto [out, h, c] =
        ember::lstm(v[0], {v[1], v[2]}, params, true, layers, 0.0, false, true, false);
    return autograd::variable_list{out, h, c};
  };
  EXPECT_TRUE(autograd::gradcheck(fn, inputs));
}

TEST(RNNGradcheck, FusedLSTMLayerDoubleBackward) {
  // float64 on the CPU runs the fused layer (one LstmLayerBackward0 node per layer and
  // direction); under create_graph its backward recomputes the forward from recorded ops.
  manual_seed(5);
  const int64_t hidden = 3, proj = 2;
  std::vector<Tensor> inputs{leaf({3, 2, 2}), leaf({2, 2, proj}), leaf({2, 2, hidden})};
  for (Tensor& p : stack_params(4, 2, hidden, 1, 2, proj)) inputs.push_back(p);
  auto fn = [&](const autograd::variable_list& v) {
    std::vector<Tensor> params(v.begin() + 3, v.end());
    auto [out, h, c] = ember::lstm(v[0], {v[1], v[2]}, params, true, 1, 0.0, false, true, false);
    return autograd::variable_list{out, h, c};
  };
  auto out = fn(inputs);
  // c_n stacks the directions' final cell states, each an output of the layer's node.
  ASSERT_TRUE(out[2].grad_fn());
  const auto& layer = out[2].grad_fn()->next_edge(0).function;
  ASSERT_TRUE(layer);
  EXPECT_EQ(layer->name(), "LstmLayerBackward0");
  // The recomputed (create_graph) backward gives the fused one's gradients...
  Tensor loss = (out[0] * out[0]).sum() + out[1].sum() + (out[2] * 3).sum();
  auto fused = autograd::grad({loss}, inputs, {}, /*retain_graph=*/true);
  auto composed = autograd::grad({loss}, inputs, {}, /*retain_graph=*/true, /*create_graph=*/true);
  for (size_t k = 0; k < inputs.size(); ++k)
    EXPECT_TRUE(allclose(fused[k], composed[k], 1e-12, 1e-13)) << "input " << k;
  // ...and those are differentiable.
  EXPECT_TRUE(autograd::gradgradcheck(fn, inputs));
}

TEST(RNNModules, SixteenBitLSTMTakesTheComposition) {
  // No fused kernel for bfloat16: the composed path runs and agrees with float32.
  manual_seed(6);
  nn::LSTM lstm(nn::LSTMOptions(4, 8).num_layers(2));
  Tensor x = randn({5, 3, 4});
  Tensor ref = std::get<0>(lstm->forward(x));
  lstm->to(kBFloat16);
  Tensor y = std::get<0>(lstm->forward(x.to(kBFloat16)));
  EXPECT_EQ(y.dtype(), kBFloat16);
  // float32 ends in the fused layer's node, bfloat16 in the composition's.
  ASSERT_TRUE(ref.grad_fn() && y.grad_fn());
  EXPECT_EQ(ref.grad_fn()->name(), "LstmLayerBackward0");
  EXPECT_NE(y.grad_fn()->name(), "LstmLayerBackward0");
  EXPECT_TRUE(allclose(y.to(kFloat), ref, 0.05, 0.02)) << (y.to(kFloat) - ref).abs().max();
}

TEST(RNNGradcheck, GRUAndRNNStacks) {
  manual_seed(2);
  for (int kind = 0; kind < 3; ++kind) {
    SCOPED_TRACE(kind);
    const int64_t gates = kind == 0 ? 3 : 1;
    std::vector<Tensor> inputs{leaf({2, 4, 3}), leaf({2, 2, 3})};  // batch_first
    for (Tensor& p : stack_params(gates, 3, 3, 1, 2, 0)) inputs.push_back(p);
    auto fn = [&](const autograd::variable_list& v) {
      std::vector<Tensor> params(v.begin() + 2, v.end());
      auto run = kind == 0 ? &ember::gru : kind == 1 ? &ember::rnn_tanh : &ember::rnn_relu;
      auto [out, h] = run(v[0], v[1], params, true, 1, 0.0, false, true, true);
      return autograd::variable_list{out, h};
    };
    EXPECT_TRUE(autograd::gradcheck(fn, inputs));
  }
}

TEST(RNNGradcheck, Cells) {
  manual_seed(3);
  Tensor x = leaf({2, 3}), h = leaf({2, 4}), c = leaf({2, 4});
  Tensor w_ih = leaf({16, 3}), w_hh = leaf({16, 4}), b_ih = leaf({16}), b_hh = leaf({16});
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& v) {
        auto [h1, c1] = ember::lstm_cell(v[0], {v[1], v[2]}, v[3], v[4], v[5], v[6]);
        return autograd::variable_list{h1, c1};
      },
      {x, h, c, w_ih, w_hh, b_ih, b_hh}));
  Tensor g_ih = leaf({12, 3}), g_hh = leaf({12, 4});
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& v) {
        return autograd::variable_list{ember::gru_cell(v[0], v[1], v[2], v[3])};
      },
      {x, h, g_ih, g_hh}));
}

TEST(RNNModules, ParameterNamesShapesAndInitialisation) {
  manual_seed(0);
  nn::LSTM lstm(nn::LSTMOptions(10, 20).num_layers(2).bidirectional(true).proj_size(5));
  const std::vector<std::string> first{"weight_ih_l0", "weight_hh_l0", "bias_ih_l0",
                                       "bias_hh_l0",   "weight_hr_l0", "weight_ih_l0_reverse"};
  auto names = lstm->named_parameters().keys();
  ASSERT_EQ(names.size(), 20u);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 6), first);
  auto named = lstm->named_parameters();
  EXPECT_EQ(named["weight_ih_l1"].sizes(), (std::vector<int64_t>{80, 10}));
  EXPECT_EQ(named["weight_hh_l1_reverse"].sizes(), (std::vector<int64_t>{80, 5}));
  EXPECT_EQ(named["weight_hr_l1"].sizes(), (std::vector<int64_t>{5, 20}));
  EXPECT_EQ(lstm->all_weights().size(), 20u);
  const double bound = 1.0 / std::sqrt(20.0);
  for (const auto& p : lstm->parameters()) {
    EXPECT_LE(p.abs().max().item<double>(), bound) << "uniform in +-1/sqrt(hidden_size)";
    EXPECT_GT(p.abs().max().item<double>(), 0.8 * bound);
  }
  nn::GRU gru(nn::GRUOptions(4, 6).bias(false));
  EXPECT_EQ(gru->named_parameters().keys(),
            (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0"}));
  nn::LSTMCell cell(nn::LSTMCellOptions(3, 4).bias(false));
  EXPECT_EQ(cell->named_parameters().keys(), (std::vector<std::string>{"weight_ih", "weight_hh"}));
  EXPECT_FALSE(cell->bias_ih.defined());
}

TEST(RNNModules, Printing) {
  std::ostringstream s;
  s << *nn::LSTM(nn::LSTMOptions(3, 4).num_layers(2).proj_size(2)) << " | "
    << *nn::GRUCell(nn::GRUCellOptions(3, 4).bias(false)) << " | "
    << *nn::RNNCell(nn::RNNCellOptions(3, 4).nonlinearity(ember::kReLU));
  EXPECT_EQ(s.str(),
            "ember::nn::LSTM(input_size=3, hidden_size=4, num_layers=2, bias=true, "
            "batch_first=false, dropout=0, bidirectional=false, proj_size=2) | "
            "ember::nn::GRUCell(3, 4, bias=false) | ember::nn::RNNCell(3, 4, nonlinearity=kReLU)");
}

TEST(RNNModules, ClearErrors) {
  nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(2));
  expect_error(
      [&] {
        lstm->forward(randn({2, 3, 4, 3}));
      },
      {"LSTM", "Expected input to be 2-D or 3-D", "4-D"});
  expect_error(
      [&] {
        lstm->forward(randn({5, 2, 7}));
      },
      {"LSTM", "input.size(-1) must be equal to input_size", "Expected 3, got 7"});
  expect_error(
      [&] {
        lstm->forward(randn({5, 2, 3}), std::make_tuple(zeros({1, 2, 4}), zeros({2, 2, 4})));
      },
      {"LSTM", "Expected hidden[0] size [2, 2, 4], got [1, 2, 4]"});
  expect_error(
      [&] {
        lstm->forward(randn({5, 2, 3}), std::make_tuple(zeros({2, 2, 4}), zeros({2, 2})));
      },
      {"LSTM", "hx should also be 3-D"});
  expect_error(
      [&] {
        lstm->forward(randn({5, 2, 3}, f64()));
      },
      {"LSTM", "dtype", "float32", "float64"});
  expect_error([&] { lstm->forward(randn({0, 2, 3})); }, {"lstm", "sequence length > 0"});
  nn::GRU gru(3, 4);
  expect_error(
      [&] {
        gru->forward(randn({5, 3}), zeros({1, 2, 4}));
      },
      {"GRU", "For unbatched 2-D input, hx should also be 2-D"});
  expect_error([&] { nn::LSTM(nn::LSTMOptions(3, 4).proj_size(4)); },
               {"proj_size has to be smaller than hidden_size"});
  expect_error([&] { nn::GRU(nn::GRUOptions(3, 4).dropout(1.5)); }, {"GRU", "dropout"});
  nn::GRUCell cell(3, 4);
  expect_error(
      [&] {
        cell->forward(randn({2, 5}));
      },
      {"GRUCell", "input has inconsistent input_size: got 5, expected 3"});
  expect_error(
      [&] {
        cell->forward(randn({2, 3}), zeros({3, 4}));
      },
      {"GRUCell", "Input batch size 2 doesn't match hidden batch size 3"});
  expect_error([&] { cell->forward(randn({2, 2, 3})); }, {"Expected input to be 1D or 2D"});
  expect_error(
      [&] {
        ember::lstm_cell(randn({2, 3}), {zeros({2, 4})}, randn({16, 3}), randn({16, 4}));
      },
      {"lstm_cell", "hx = {h, c}"});
  expect_error(
      [&] {
        ember::gru_cell(randn({2, 3}), zeros({2, 4}), randn({12, 3}), randn({12, 5}));
      },
      {"gru_cell", "w_hh", "[12, 4]", "[12, 5]"});
  expect_error(
      [&] {
        ember::gru(randn({3, 2, 3}), zeros({1, 2, 4}), {randn({12, 3})}, false, 1, 0.0, false,
                   false, false);
      },
      {"gru", "expected 2 weight tensors"});
}

TEST(RNNModules, ZeroSizeBatchRunsBackward) {
  nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true));
  Tensor x = randn({5, 0, 3}).requires_grad_(true);
  auto [out, hc] = lstm->forward(x);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{5, 0, 8}));
  EXPECT_EQ(std::get<1>(hc).sizes(), (std::vector<int64_t>{4, 0, 4}));
  (out.sum() + std::get<0>(hc).sum()).backward();
  EXPECT_EQ(x.grad().sizes(), x.sizes());
  for (const auto& p : lstm->parameters()) {
    ASSERT_TRUE(p.grad().defined());
    EXPECT_EQ(p.grad().abs().sum().item<double>(), 0.0);
  }
}

TEST(RNNModules, DropoutOnlyBetweenLayersAndOnlyInTraining) {
  manual_seed(4);
  nn::GRU gru(nn::GRUOptions(3, 4).num_layers(2).dropout(1.0));
  Tensor x = randn({4, 2, 3}).requires_grad_(true);
  // p = 1 drops all of layer 0's output in training: layer 1 sees zeros, so nothing flows back
  // to the input, while the final state of layer 0 still depends on it.
  auto [out, h] = gru->forward(x);
  out.sum().backward();
  EXPECT_EQ(x.grad().abs().sum().item<double>(), 0.0);
  // In eval the same module is the dropout-free one.
  gru->eval();
  nn::GRU plain(nn::GRUOptions(3, 4).num_layers(2));
  {
    NoGradGuard no_grad;
    auto src = gru->parameters();
    auto dst = plain->parameters();
    for (size_t k = 0; k < src.size(); ++k) dst[k].copy_(src[k]);
  }
  plain->eval();
  Tensor y = x.detach();
  EXPECT_TRUE(std::get<0>(gru->forward(y)).equal(std::get<0>(plain->forward(y))));
  EXPECT_GT(std::get<0>(gru->forward(y)).abs().sum().item<double>(), 0.0);
}

TEST(RNNModules, UnbatchedEqualsABatchOfOne) {
  nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(2).batch_first(true));
  Tensor x = randn({5, 3});
  auto [out, hc] = lstm->forward(x);
  auto [out_b, hc_b] = lstm->forward(x.unsqueeze(0));
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{5, 4}));
  EXPECT_TRUE(out.equal(out_b.squeeze(0)));
  EXPECT_TRUE(std::get<1>(hc).equal(std::get<1>(hc_b).squeeze(1)));
  nn::RNNCell cell(3, 4);
  Tensor v = randn({3});
  EXPECT_TRUE(cell(v).equal(cell(v.unsqueeze(0)).squeeze(0)));
}

TEST(RNNModules, CellStepsMakeTheLayer) {
  // A one-layer LSTM is its cell applied step by step with the same weights.
  nn::LSTM lstm(3, 4);
  nn::LSTMCell cell(3, 4);
  {
    NoGradGuard no_grad;
    auto named = lstm->named_parameters();
    cell->weight_ih.copy_(named["weight_ih_l0"]);
    cell->weight_hh.copy_(named["weight_hh_l0"]);
    cell->bias_ih.copy_(named["bias_ih_l0"]);
    cell->bias_hh.copy_(named["bias_hh_l0"]);
  }
  Tensor x = randn({6, 2, 3});
  auto [out, hc] = lstm->forward(x);
  Tensor h = zeros({2, 4}), c = zeros({2, 4});
  for (int64_t t = 0; t < 6; ++t) {
    std::tie(h, c) = cell->forward(x[t], std::make_tuple(h, c));
    EXPECT_TRUE(allclose(out[t], h, 1e-6, 1e-7)) << "step " << t;
  }
  EXPECT_TRUE(allclose(std::get<1>(hc)[0], c, 1e-6, 1e-7));
}

TEST(RNNModules, CloneOwnsItsWeights) {
  nn::GRU gru(nn::GRUOptions(3, 4).num_layers(2));
  auto copy = std::dynamic_pointer_cast<nn::GRUImpl>(gru->clone());
  ASSERT_TRUE(copy);
  Tensor x = randn({3, 2, 3});
  EXPECT_TRUE(std::get<0>(copy->forward(x)).equal(std::get<0>(gru->forward(x))));
  {
    NoGradGuard no_grad;
    copy->named_parameters()["weight_hh_l1"].add_(1.0);
  }
  EXPECT_FALSE(std::get<0>(copy->forward(x)).equal(std::get<0>(gru->forward(x))));
  EXPECT_EQ(copy->all_weights()[5].data_ptr(), copy->named_parameters()["weight_hh_l1"].data_ptr());
}

}  // namespace

namespace {

namespace rnn = ember::nn::utils::rnn;

TEST(PackedSequences, PackAndPadRoundTrip) {
  std::vector<Tensor> seqs{arange(6, kFloat).view({3, 2}), arange(2, kFloat).view({1, 2}) + 10,
                           arange(8, kFloat).view({4, 2}) + 20};
  Tensor padded = rnn::pad_sequence(seqs, /*batch_first=*/true, -1.0);
  EXPECT_EQ(padded.sizes(), (std::vector<int64_t>{3, 4, 2}));
  EXPECT_EQ(padded[1][1][0].item<float>(), -1.0f);
  rnn::PackedSequence packed = rnn::pack_sequence(seqs, /*enforce_sorted=*/false);
  EXPECT_TRUE(packed.batch_sizes().equal(tensor(std::vector<int64_t>{3, 2, 2, 1})));
  EXPECT_TRUE(packed.sorted_indices().equal(tensor(std::vector<int64_t>{2, 0, 1})));
  EXPECT_TRUE(packed.unsorted_indices().equal(tensor(std::vector<int64_t>{1, 2, 0})));
  EXPECT_EQ(packed.data().size(0), 8);
  auto [back, lengths] = rnn::pad_packed_sequence(packed, /*batch_first=*/true, -1.0, 5);
  EXPECT_TRUE(lengths.equal(tensor(std::vector<int64_t>{3, 1, 4})));
  EXPECT_EQ(back.sizes(), (std::vector<int64_t>{3, 5, 2}));
  EXPECT_TRUE(back.narrow(1, 0, 4).equal(padded));
}

TEST(PackedSequences, ClearErrors) {
  Tensor x = randn({4, 3, 2});
  expect_error(
      [&] {
        rnn::pack_padded_sequence(x, tensor(std::vector<int64_t>{2, 4, 1}));
      },
      {"pack_padded_sequence", "sorted in decreasing order", "enforce_sorted"});
  expect_error(
      [&] {
        rnn::pack_padded_sequence(x, tensor(std::vector<int64_t>{4, 2, 0}));
      },
      {"pack_padded_sequence", "greater than 0"});
  expect_error(
      [&] {
        rnn::pack_padded_sequence(x, tensor(std::vector<int64_t>{5, 2, 1}));
      },
      {"pack_padded_sequence", "exceeds"});
  auto packed = rnn::pack_padded_sequence(x, tensor(std::vector<int64_t>{4, 2, 1}));
  expect_error([&] { rnn::pad_packed_sequence(packed, false, 0.0, 3); },
               {"pad_packed_sequence", "total_length"});
  nn::GRU gru(5, 4);
  expect_error([&] { gru->forward_with_packed_input(packed); },
               {"GRU", "input.size(-1) must be equal to input_size"});
}

TEST(PackedSequences, FinalStateIsEachSequencesOwnLastStep) {
  // Each sequence run alone gives the state the packed batch reports for it.
  manual_seed(7);
  nn::LSTM lstm(nn::LSTMOptions(3, 4).bidirectional(true));
  std::vector<Tensor> seqs{randn({2, 3}), randn({5, 3}), randn({3, 3})};
  auto [out, hc] = lstm->forward_with_packed_input(rnn::pack_sequence(seqs, false));
  for (size_t b = 0; b < seqs.size(); ++b) {
    auto [alone, hc1] = lstm->forward(seqs[b]);
    EXPECT_TRUE(
        allclose(std::get<0>(hc).select(1, static_cast<int64_t>(b)), std::get<0>(hc1), 1e-5, 1e-6))
        << b;
  }
}

}  // namespace
