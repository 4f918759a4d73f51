// RNN, LSTM, GRU and their cells against PyTorch (tests/golden/nn_rnn.golden, written by
// tests/golden/gen/nn_rnn.py): parameter names and order, outputs, final states and the gradients
// of every input and parameter, in float64 and float32.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn.h"
#include "tests/support/golden.h"

using namespace ember;

namespace {

using StepFn = std::function<std::vector<Tensor>(const Tensor& x, const std::vector<Tensor>& st)>;

/// A module built as the case says and the call that runs it.
struct Built {
  std::shared_ptr<nn::Module> module;
  StepFn run;
  size_t states = 0;  // initial-state tensors the case gives
  size_t outputs = 0;
};

namespace rnn = nn::utils::rnn;

/// The padded output of a packed run, total_length steps long, in the input's layout.
Tensor padded(const rnn::PackedSequence& p, bool batch_first, int64_t total_length) {
  return std::get<0>(rnn::pad_packed_sequence(p, batch_first, 0.0, total_length));
}

/// `lengths` given: the layer runs on pack_padded_sequence(x, lengths, batch_first, false).
Built build_layer(const GoldenCase& c, const std::string& op, const Tensor& lengths) {
  const auto& i = c.ints;
  const int64_t in = i[0], hidden = i[1], layers = i[2], proj = i[6];
  const bool bias = i[3] != 0, batch_first = i[4] != 0, bidir = i[5] != 0, state = i[7] != 0;
  Built b;
  const bool packed = lengths.defined();
  const int64_t steps = c.args[0].size(batch_first ? 1 : 0);
  auto pack = [lengths, batch_first](const Tensor& x) {
    return rnn::pack_padded_sequence(x, lengths, batch_first, /*enforce_sorted=*/false);
  };
  // RNN and GRU: one state tensor, forward and forward_with_packed_input alike.
  auto one_state = [&](auto m) {
    b.module = m.ptr();
    b.run = [=](const Tensor& x, const std::vector<Tensor>& st) mutable {
      const Tensor s0 = st.empty() ? Tensor() : st[0];
      if (packed) {
        auto [out, h] = m->forward_with_packed_input(pack(x), s0);
        return std::vector<Tensor>{padded(out, batch_first, steps), h};
      }
      auto [out, h] = m->forward(x, s0);
      return std::vector<Tensor>{out, h};
    };
    b.states = state ? 1 : 0;
    b.outputs = 2;
  };
  if (op == "LSTM") {
    nn::LSTM m(nn::LSTMOptions(in, hidden)
                   .num_layers(layers)
                   .bias(bias)
                   .batch_first(batch_first)
                   .bidirectional(bidir)
                   .proj_size(proj));
    b.module = m.ptr();
    b.run = [=](const Tensor& x, const std::vector<Tensor>& st) mutable {
      std::optional<std::tuple<Tensor, Tensor>> s0;
      if (!st.empty()) s0 = std::make_tuple(st[0], st[1]);
      if (packed) {
        auto [out, hc] = m->forward_with_packed_input(pack(x), s0);
        return std::vector<Tensor>{padded(out, batch_first, steps), std::get<0>(hc),
                                   std::get<1>(hc)};
      }
      auto [out, hc] = m->forward(x, s0);
      return std::vector<Tensor>{out, std::get<0>(hc), std::get<1>(hc)};
    };
    b.states = state ? 2 : 0;
    b.outputs = 3;
  } else if (op == "GRU") {
    nn::GRU m(nn::GRUOptions(in, hidden)
                  .num_layers(layers)
                  .bias(bias)
                  .batch_first(batch_first)
                  .bidirectional(bidir));
    one_state(m);
  } else {
    nn::RNNOptions o(in, hidden);
    o.num_layers(layers).bias(bias).batch_first(batch_first).bidirectional(bidir);
    if (c.has_flag("relu")) o.nonlinearity(ember::kReLU);
    nn::RNN m(o);
    one_state(m);
  }
  return b;
}

Built build_cell(const GoldenCase& c) {
  const auto& i = c.ints;
  const int64_t in = i[0], hidden = i[1];
  const bool bias = i[2] != 0, state = i[3] != 0;
  Built b;
  const std::string op = c.op();
  if (op == "LSTMCell") {
    nn::LSTMCell m(nn::LSTMCellOptions(in, hidden).bias(bias));
    b.module = m.ptr();
    b.run = [m](const Tensor& x, const std::vector<Tensor>& st) mutable {
      auto [h, cell] = st.empty() ? m->forward(x) : m->forward(x, std::make_tuple(st[0], st[1]));
      return std::vector<Tensor>{h, cell};
    };
    b.states = state ? 2 : 0;
    b.outputs = 2;
  } else if (op == "GRUCell") {
    nn::GRUCell m(nn::GRUCellOptions(in, hidden).bias(bias));
    b.module = m.ptr();
    b.run = [m](const Tensor& x, const std::vector<Tensor>& st) mutable {
      return std::vector<Tensor>{m->forward(x, st.empty() ? Tensor() : st[0])};
    };
    b.states = state ? 1 : 0;
    b.outputs = 1;
  } else {
    nn::RNNCellOptions o(in, hidden);
    o.bias(bias);
    if (c.has_flag("relu")) o.nonlinearity(ember::kReLU);
    nn::RNNCell m(o);
    b.module = m.ptr();
    b.run = [m](const Tensor& x, const std::vector<Tensor>& st) mutable {
      return std::vector<Tensor>{m->forward(x, st.empty() ? Tensor() : st[0])};
    };
    b.states = state ? 1 : 0;
    b.outputs = 1;
  }
  return b;
}

/// Runs one case: the module gets the case's parameters (names checked), runs forward, and
/// backward from the case's cotangents. Returns outputs then gradients, in the record's order.
std::vector<Tensor> run_case(const GoldenCase& c) {
  const bool cell = c.op().find("Cell") != std::string::npos;
  const std::string suffix = "Packed";
  const bool packed = c.op().size() > suffix.size() &&
                      c.op().compare(c.op().size() - suffix.size(), suffix.size(), suffix) == 0;
  const size_t first_state = packed ? 2 : 1;  // a packed record has its lengths after the input
  Built b = cell     ? build_cell(c)
            : packed ? build_layer(c, c.op().substr(0, c.op().size() - suffix.size()), c.args[1])
                     : build_layer(c, c.op(), Tensor());
  const ScalarType dtype = c.args[0].scalar_type();
  b.module->to(dtype);
  std::vector<Tensor> params;
  {
    auto named = b.module->named_parameters();
    EXPECT_EQ(named.keys(), c.strs) << c.name << ": parameter names differ from PyTorch's";
    NoGradGuard no_grad;
    const size_t first = first_state + b.states + b.outputs;
    EXPECT_EQ(c.args.size(), first + c.strs.size()) << c.name;
    for (size_t k = 0; k < c.strs.size() && first + k < c.args.size(); ++k) {
      Tensor& p = named[c.strs[k]];
      EXPECT_EQ(p.sizes(), c.args[first + k].sizes()) << c.name << ": " << c.strs[k];
      p.copy_(c.args[first + k]);
      params.push_back(p);
    }
  }
  Tensor x = c.args[0].clone().requires_grad_(true);
  std::vector<Tensor> states;
  for (size_t k = 0; k < b.states; ++k)
    states.push_back(c.args[first_state + k].clone().requires_grad_(true));
  b.module->eval();
  std::vector<Tensor> outs = b.run(x, states);
  Tensor loss = zeros({}, x.options());
  for (size_t k = 0; k < outs.size(); ++k)
    loss = loss + (outs[k] * c.args[first_state + b.states + k]).sum();
  autograd::variable_list wrt{x};
  wrt.insert(wrt.end(), states.begin(), states.end());
  wrt.insert(wrt.end(), params.begin(), params.end());
  autograd::variable_list grads = autograd::grad({loss}, wrt);
  std::vector<Tensor> result(outs.begin(), outs.end());
  result.insert(result.end(), grads.begin(), grads.end());
  return result;
}

TEST(RNNGolden, EveryModuleMatchesPyTorch) {
  const std::vector<GoldenCase> cases = load_golden("nn_rnn");
  std::map<std::string, int> per_module;
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(c.name + " (" + c.location + "): " + c.call);
    ++per_module[c.op()];
    std::vector<Tensor> got = run_case(c);
    ASSERT_EQ(got.size(), c.outs.size());
    // float64 at float64 precision; float32 a little above its epsilon (the sums over time
    // and the folded biases round in another order than PyTorch's).
    const bool f64 = c.args[0].scalar_type() == kFloat64;
    const double rtol = f64 ? 1e-11 : 2e-5, atol = f64 ? 1e-13 : 2e-6;
    for (size_t k = 0; k < got.size(); ++k)
      expect_close(got[k], c.outs[k], rtol, atol, c.name + " result " + std::to_string(k));
  }
  for (const char* m : {"RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"})
    EXPECT_GE(per_module[m], 4) << m << " has too few golden cases";
  for (const char* m : {"RNNPacked", "LSTMPacked", "GRUPacked"})
    EXPECT_GE(per_module[m], 2) << m << " has too few golden cases";
}

}  // namespace
