// The recurrent cells and layer stacks of ember/ops/nn_rnn.h, composed of recorded ops.
#include "ember/ops/nn_rnn.h"

#include <string>
#include <vector>

#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/ops/nn_ops.h"
#include "ember/ops/shape.h"
#include "src/core/check.h"
#include "src/ops/nn_rnn_common.h"
#include "src/ops/nn_rnn_lstm.h"
#include "src/ops/nn_rnn_packed.h"

namespace ember {
namespace {

enum class Cell { kTanh, kRelu, kLSTM, kGRU };

int64_t gate_count(Cell cell) {
  switch (cell) {
    case Cell::kLSTM:
      return 4;
    case Cell::kGRU:
      return 3;
    default:
      return 1;
  }
}

/// The weights of one layer and direction; the biases and w_hr may be undefined.
struct CellWeights {
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
};

Tensor opt(const std::optional<Tensor>& t) { return t ? *t : Tensor(); }

void check_matrix(const char* op, const char* name, const Tensor& t, int64_t rows, int64_t cols) {
  EMBER_CHECK_VALUE(t.dim() == 2 && t.size(0) == rows && (cols < 0 || t.size(1) == cols),
                    "{}: expected {} of size [{}, {}], got {}", op, name, rows,
                    cols < 0 ? std::string("*") : std::to_string(cols), t.sizes());
}

void check_bias(const char* op, const char* name, const Tensor& t, int64_t n) {
  if (!t.defined()) return;
  EMBER_CHECK_VALUE(t.dim() == 1 && t.size(0) == n, "{}: expected {} of size [{}], got {}", op,
                    name, n, t.sizes());
}

/// Checks the weights of a cell with hidden size H reading `in` features (H_out = the size of
/// its hidden state, H unless w_hr projects it) against each other and the input's dtype.
void check_weights(const char* op, Cell cell, const CellWeights& w, const Tensor& input) {
  const int64_t gates = gate_count(cell);
  EMBER_CHECK_VALUE(w.w_ih.dim() == 2 && w.w_ih.size(0) % gates == 0,
                    "{}: expected w_ih of size [{} * hidden_size, input_size], got {}", op, gates,
                    w.w_ih.sizes());
  const int64_t hidden = w.w_ih.size(0) / gates;
  const int64_t hidden_out = w.w_hr.defined() ? w.w_hr.size(0) : hidden;
  check_matrix(op, "w_ih", w.w_ih, gates * hidden, input.size(-1));
  check_matrix(op, "w_hh", w.w_hh, gates * hidden, hidden_out);
  if (w.w_hr.defined()) check_matrix(op, "w_hr", w.w_hr, hidden_out, hidden);
  check_bias(op, "b_ih", w.b_ih, gates * hidden);
  check_bias(op, "b_hh", w.b_hh, gates * hidden);
  EMBER_CHECK_VALUE(w.b_ih.defined() == w.b_hh.defined(), "{}: give both b_ih and b_hh or neither",
                    op);
  for (const Tensor* t : {&w.w_ih, &w.w_hh, &w.b_ih, &w.b_hh, &w.w_hr}) {
    if (!t->defined()) continue;
    EMBER_CHECK_TYPE(t->dtype() == input.dtype() && t->device() == input.device(),
                     "{}: the weights must have the input's dtype and device ({}, {}), got {} "
                     "on {}",
                     op, input.dtype(), input.device(), t->dtype(), t->device());
  }
}

void check_state(const char* op, const char* name, const Tensor& state, int64_t batch, int64_t size,
                 const Tensor& input) {
  EMBER_CHECK_VALUE(state.dim() == 2 && state.size(0) == batch && state.size(1) == size,
                    "{}: expected {} of size [{}, {}], got {}", op, name, batch, size,
                    state.sizes());
  EMBER_CHECK_TYPE(state.dtype() == input.dtype() && state.device() == input.device(),
                   "{}: {} must have the input's dtype and device ({}, {}), got {} on {}", op, name,
                   input.dtype(), input.device(), state.dtype(), state.device());
}

/// h·W_hhᵀ added to `gi`, the input's projection that already holds the biases.
Tensor recur(const Tensor& gi, const Tensor& h, const Tensor& w_hh) {
  return addmm(gi, h, w_hh.t());
}

/// One step from the input projection `gi` ([B, gates * H], biases included as
/// input_projection() puts them). Updates h (and c for LSTM).
void step(Cell cell, const Tensor& gi, const CellWeights& w, Tensor& h, Tensor& c) {
  switch (cell) {
    case Cell::kTanh:
      h = recur(gi, h, w.w_hh).tanh();
      return;
    case Cell::kRelu:
      h = recur(gi, h, w.w_hh).relu();
      return;
    case Cell::kLSTM: {
      detail::LstmCellParts s = detail::lstm_cell_composed(recur(gi, h, w.w_hh), c);
      c = s.c;
      h = w.w_hr.defined() ? mm(s.h_raw, w.w_hr.t()) : s.h_raw;
      return;
    }
    case Cell::kGRU: {
      // The hidden side keeps its own bias: r multiplies W_hn·h + b_hn, not the sum.
      Tensor gh = w.b_hh.defined() ? addmm(w.b_hh, h, w.w_hh.t()) : mm(h, w.w_hh.t());
      const std::vector<int64_t> thirds(3, gi.size(1) / 3);
      std::vector<Tensor> i = detail::split_recorded(gi, 1, thirds);
      std::vector<Tensor> hh = detail::split_recorded(gh, 1, thirds);
      Tensor r = (i[0] + hh[0]).sigmoid();
      Tensor z = (i[1] + hh[1]).sigmoid();
      Tensor n = (i[2] + r * hh[2]).tanh();
      h = n + z * (h - n);
      return;
    }
  }
}

/// x [..., in] projected by w_ih with the biases the recurrence does not need separately: both
/// for RNN and LSTM (gates = W_ih·x + W_hh·h + b_ih + b_hh), b_ih alone for GRU.
Tensor input_projection(Cell cell, const Tensor& x, const CellWeights& w) {
  Tensor bias;
  if (w.b_ih.defined()) bias = cell == Cell::kGRU ? w.b_ih : w.b_ih + w.b_hh;
  Tensor proj = mm(x.reshape({-1, x.size(-1)}), w.w_ih.t());
  if (bias.defined()) proj = proj + bias;
  return x.dim() == 3 ? proj.view({x.size(0), x.size(1), proj.size(1)}) : proj;
}

Tensor cell_forward(const char* op, Cell cell, const Tensor& input, const Tensor& hx, Tensor* cx,
                    const CellWeights& w) {
  EMBER_CHECK_VALUE(input.dim() == 2, "{}: expected input of size [batch, input_size], got {}", op,
                    input.sizes());
  check_weights(op, cell, w, input);
  const int64_t hidden = w.w_ih.size(0) / gate_count(cell);
  check_state(op, "hx", hx, input.size(0), w.w_hh.size(1), input);
  if (cx) check_state(op, "cx", *cx, input.size(0), hidden, input);
  Tensor h = hx;
  Tensor c = cx ? *cx : Tensor();
  Tensor gi = input_projection(cell, input, w);
  step(cell, gi, w, h, c);
  if (cx) *cx = c;
  return h;
}

struct DirectionResult {
  Tensor output;  // [T, B, H_out]
  Tensor h, c;    // the state after the last step taken
};

/// One layer in one direction over x [T, B, in], from state (h, c).
DirectionResult run_direction(Cell cell, const Tensor& x, Tensor h, Tensor c, const CellWeights& w,
                              bool reverse) {
  const int64_t steps = x.size(0);
  Tensor proj = input_projection(cell, x, w);
  if (cell == Cell::kLSTM && detail::lstm_layer_supported(x)) {
    detail::LstmLayerResult r = detail::lstm_layer(proj, h, c, w.w_hh, w.w_hr, reverse);
    return {r.output, r.h, r.c};
  }
  const std::vector<Tensor> per_step = detail::unbind_recorded(proj, 0);
  std::vector<Tensor> outputs(static_cast<size_t>(steps));
  for (int64_t k = 0; k < steps; ++k) {
    const int64_t t = reverse ? steps - 1 - k : k;
    step(cell, per_step[static_cast<size_t>(t)], w, h, c);
    outputs[static_cast<size_t>(t)] = h;
  }
  return {stack(outputs, 0), h, c};
}

/// One layer in one direction over packed data x [N, in] whose step t holds the first
/// batch_sizes[t] sequences (sorted longest first). A sequence that has ended (forward) or not yet
/// begun (reverse) keeps its state, so the final state is each sequence's own.
DirectionResult run_direction_packed(Cell cell, const Tensor& x, IntArrayRef batch_sizes, Tensor h,
                                     Tensor c, const CellWeights& w, bool reverse) {
  const auto steps = static_cast<int64_t>(batch_sizes.size());
  const int64_t batch = h.size(0);
  const std::vector<Tensor> per_step =
      detail::split_recorded(input_projection(cell, x, w), 0, batch_sizes);
  std::vector<Tensor> outputs(per_step.size());
  auto rejoin = [batch](const Tensor& active, const Tensor& all, int64_t n) {
    return n < batch ? cat({active, all.narrow(0, n, batch - n)}, 0) : active;
  };
  for (int64_t k = 0; k < steps; ++k) {
    const auto t = static_cast<size_t>(reverse ? steps - 1 - k : k);
    const int64_t n = batch_sizes[t];
    Tensor h_act = n < batch ? h.narrow(0, 0, n) : h;
    Tensor c_act = c.defined() && n < batch ? c.narrow(0, 0, n) : c;
    step(cell, per_step[t], w, h_act, c_act);
    outputs[t] = h_act;
    h = rejoin(h_act, h, n);
    if (c.defined()) c = rejoin(c_act, c, n);
  }
  return {cat(outputs, 0), h, c};
}

struct StackResult {
  Tensor output, h, c;
};

StackResult run_stack(const char* op, Cell cell, const Tensor& input, const Tensor& hx,
                      const Tensor& cx, TensorList params, bool has_biases, int64_t num_layers,
                      double dropout_p, bool train, bool bidirectional, bool batch_first,
                      IntArrayRef batch_sizes = {}) {
  const bool packed = !batch_sizes.empty();
  EMBER_CHECK_VALUE(packed ? input.dim() == 2 : input.dim() == 3,
                    "{}: expected input of size [seq_len, batch, input_size] (or [batch, "
                    "seq_len, input_size] with batch_first; packed data: [total, input_size]), "
                    "got {}",
                    op, input.sizes());
  const Tensor x = batch_first && !packed ? input.transpose(0, 1) : input;
  EMBER_CHECK_VALUE(x.size(0) > 0, "{}: expected a sequence length > 0, got input of size {}", op,
                    input.sizes());
  EMBER_CHECK_VALUE(num_layers >= 1, "{}: num_layers must be >= 1, got {}", op, num_layers);
  EMBER_CHECK_VALUE(dropout_p >= 0 && dropout_p <= 1, "{}: dropout must be in [0, 1], got {}", op,
                    dropout_p);
  const int64_t dirs = bidirectional ? 2 : 1;
  const int64_t units = num_layers * dirs;
  const int64_t plain = has_biases ? 4 : 2;
  const int64_t count = static_cast<int64_t>(params.size());
  const bool projected = cell == Cell::kLSTM && count == units * (plain + 1);
  const int64_t per_unit = plain + (projected ? 1 : 0);
  EMBER_CHECK_VALUE(count == units * per_unit,
                    "{}: expected {} weight tensors ({} layers x {} directions x {}), got {}", op,
                    units * plain, num_layers, dirs, plain, count);
  const int64_t batch = packed ? batch_sizes[0] : x.size(1);
  std::vector<Tensor> hs, cs;
  Tensor layer_input = x;
  for (int64_t layer = 0; layer < num_layers; ++layer) {
    std::vector<Tensor> outputs;
    for (int64_t dir = 0; dir < dirs; ++dir) {
      const int64_t unit = layer * dirs + dir;
      const size_t at = static_cast<size_t>(unit * per_unit);
      CellWeights w{params[at], params[at + 1], Tensor(), Tensor(), Tensor()};
      if (has_biases) {
        w.b_ih = params[at + 2];
        w.b_hh = params[at + 3];
      }
      if (projected) w.w_hr = params[at + static_cast<size_t>(plain)];
      check_weights(op, cell, w, layer_input);
      const int64_t hidden = w.w_ih.size(0) / gate_count(cell);
      const int64_t hidden_out = w.w_hr.defined() ? w.w_hr.size(0) : hidden;
      EMBER_CHECK_VALUE(
          hx.dim() == 3 && hx.size(0) == units && hx.size(1) == batch && hx.size(2) == hidden_out,
          "{}: expected hx of size [{}, {}, {}], got {}", op, units, batch, hidden_out, hx.sizes());
      Tensor h0 = hx.select(0, unit);
      Tensor c0;
      if (cell == Cell::kLSTM) {
        EMBER_CHECK_VALUE(
            cx.dim() == 3 && cx.size(0) == units && cx.size(1) == batch && cx.size(2) == hidden,
            "{}: expected cx of size [{}, {}, {}], got {}", op, units, batch, hidden, cx.sizes());
        c0 = cx.select(0, unit);
      }
      check_state(op, "hx", h0, batch, hidden_out, layer_input);
      DirectionResult r =
          packed ? run_direction_packed(cell, layer_input, batch_sizes, h0, c0, w, dir == 1)
                 : run_direction(cell, layer_input, h0, c0, w, dir == 1);
      outputs.push_back(r.output);
      hs.push_back(r.h);
      if (cell == Cell::kLSTM) cs.push_back(r.c);
    }
    layer_input = dirs == 2 ? cat(outputs, packed ? 1 : 2) : outputs[0];
    if (dropout_p > 0 && train && layer + 1 < num_layers)
      layer_input = ember::dropout(layer_input, dropout_p, train);
  }
  StackResult result;
  result.output = batch_first && !packed ? layer_input.transpose(0, 1) : layer_input;
  result.h = stack(hs, 0);
  if (cell == Cell::kLSTM) result.c = stack(cs, 0);
  return result;
}

Cell cell_of(detail::RnnMode mode) {
  switch (mode) {
    case detail::RnnMode::kLSTM:
      return Cell::kLSTM;
    case detail::RnnMode::kGRU:
      return Cell::kGRU;
    case detail::RnnMode::kTanh:
      return Cell::kTanh;
    default:
      return Cell::kRelu;
  }
}

}  // namespace

namespace detail {
PackedRnnResult rnn_packed(RnnMode mode, const Tensor& data, IntArrayRef batch_sizes,
                           const Tensor& hx, const Tensor& cx, TensorList params, bool has_biases,
                           int64_t num_layers, double dropout, bool train, bool bidirectional) {
  EMBER_CHECK_VALUE(!batch_sizes.empty() && batch_sizes[0] > 0,
                    "rnn: a packed sequence needs at least one step with a sequence in it");
  StackResult r = run_stack("rnn (packed)", cell_of(mode), data, hx, cx, params, has_biases,
                            num_layers, dropout, train, bidirectional, false, batch_sizes);
  return {r.output, r.h, r.c};
}
}  // namespace detail

Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh) {
  return cell_forward("rnn_tanh_cell", Cell::kTanh, input, hx, nullptr,
                      {w_ih, w_hh, opt(b_ih), opt(b_hh), Tensor()});
}

Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh) {
  return cell_forward("rnn_relu_cell", Cell::kRelu, input, hx, nullptr,
                      {w_ih, w_hh, opt(b_ih), opt(b_hh), Tensor()});
}

std::tuple<Tensor, Tensor> lstm_cell(const Tensor& input, TensorList hx, const Tensor& w_ih,
                                     const Tensor& w_hh, const std::optional<Tensor>& b_ih,
                                     const std::optional<Tensor>& b_hh) {
  EMBER_CHECK_VALUE(hx.size() == 2, "lstm_cell: expected hx = {{h, c}}, got {} tensors", hx.size());
  Tensor c = hx[1];
  Tensor h = cell_forward("lstm_cell", Cell::kLSTM, input, hx[0], &c,
                          {w_ih, w_hh, opt(b_ih), opt(b_hh), Tensor()});
  return {h, c};
}

Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh) {
  return cell_forward("gru_cell", Cell::kGRU, input, hx, nullptr,
                      {w_ih, w_hh, opt(b_ih), opt(b_hh), Tensor()});
}

std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& input, TensorList hx, TensorList params,
                                        bool has_biases, int64_t num_layers, double dropout,
                                        bool train, bool bidirectional, bool batch_first) {
  EMBER_CHECK_VALUE(hx.size() == 2, "lstm: expected hx = {{h0, c0}}, got {} tensors", hx.size());
  StackResult r = run_stack("lstm", Cell::kLSTM, input, hx[0], hx[1], params, has_biases,
                            num_layers, dropout, train, bidirectional, batch_first);
  return {r.output, r.h, r.c};
}

#define EMBER_RNN_STACK(name, cell)                                                                \
  std::tuple<Tensor, Tensor> name(const Tensor& input, const Tensor& hx, TensorList params,        \
                                  bool has_biases, int64_t num_layers, double dropout, bool train, \
                                  bool bidirectional, bool batch_first) {                          \
    StackResult r = run_stack(#name, cell, input, hx, Tensor(), params, has_biases, num_layers,    \
                              dropout, train, bidirectional, batch_first);                         \
    return {r.output, r.h};                                                                        \
  }
EMBER_RNN_STACK(gru, Cell::kGRU)
EMBER_RNN_STACK(rnn_tanh, Cell::kTanh)
EMBER_RNN_STACK(rnn_relu, Cell::kRelu)
#undef EMBER_RNN_STACK

}  // namespace ember
