// The fused LSTM layer of nn_rnn_lstm.h: forward and backward through time as loops over the
// steps, each a GEMM (mm/addmm rows) plus the fused cell kernel, recorded as one node.
#include "src/ops/nn_rnn_lstm.h"

#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/ops/shape.h"
#include "kernels/common/rnn_params.h"
#include "src/autograd/record.h"
#include "src/ops/nn_rnn_common.h"
#include "src/ops/op_common.h"

namespace ember::detail {
namespace {

struct StepOut {
  Tensor h_raw;  // o·tanh(c), before w_hr
  Tensor c;
  Tensor act;  // [B, 5H]: σ(i), σ(f), tanh(g), σ(o), tanh(c)
};

/// One cell step from the gate pre-activations: the kernel when `fused`, else recorded ops (the
/// create_graph recomputation).
StepOut cell_step(const Tensor& gates, const Tensor& c_prev, bool fused) {
  const int64_t batch = gates.size(0), hidden = c_prev.size(1);
  if (!fused) {
    LstmCellParts p = lstm_cell_composed(gates, c_prev);
    return {p.h_raw, p.c, cat({p.i, p.f, p.g, p.o, p.tanh_c}, 1)};
  }
  StepOut s{empty({batch, hidden}, gates.options()), empty({batch, hidden}, gates.options()),
            empty({batch, 5 * hidden}, gates.options())};
  LstmCellParams p;
  p.batch = batch;
  p.hidden = hidden;
  p.gates = gates.data_ptr();
  p.c_prev = c_prev.data_ptr();
  p.h = s.h_raw.data_ptr();
  p.c = s.c.data_ptr();
  p.act = s.act.data_ptr();
  get_kernel<OpId::lstm_cell>(gates.device().type(), gates.scalar_type())(gates.scalar_type(), p);
  return s;
}

struct StepGrad {
  Tensor dgates, dc_prev;
};

/// The gradients of one step's gate pre-activations and previous cell state from those of h_raw
/// and c (dc undefined: zero).
StepGrad cell_step_backward(const Tensor& dh, const Tensor& dc, const Tensor& act,
                            const Tensor& c_prev, bool fused) {
  const int64_t batch = dh.size(0), hidden = c_prev.size(1);
  if (!fused) {
    std::vector<Tensor> a = act.chunk(5, 1);
    const Tensor &i = a[0], &f = a[1], &gg = a[2], &o = a[3], &tc = a[4];
    Tensor dcx = dh * o * (1 - tc * tc);
    if (dc.defined()) dcx = dcx + dc;
    Tensor dgates = cat({dcx * gg * (i - i * i), dcx * c_prev * (f - f * f),
                         dcx * i * (1 - gg * gg), dh * tc * (o - o * o)},
                        1);
    return {dgates, dcx * f};
  }
  StepGrad s{empty({batch, 4 * hidden}, dh.options()), empty({batch, hidden}, dh.options())};
  const Tensor dh_c = dh.contiguous();
  const Tensor dc_c = dc.defined() ? dc.contiguous() : Tensor();
  LstmCellBackwardParams p;
  p.batch = batch;
  p.hidden = hidden;
  p.dh = dh_c.data_ptr();
  p.dc = dc_c.defined() ? dc_c.data_ptr() : nullptr;
  p.act = act.data_ptr();
  p.c_prev = c_prev.data_ptr();
  p.dgates = s.dgates.data_ptr();
  p.dc_prev = s.dc_prev.data_ptr();
  get_kernel<OpId::lstm_cell_backward>(dh.device().type(), dh.scalar_type())(dh.scalar_type(), p);
  return s;
}

/// What the backward reads of the forward, per time index t (not per step taken).
struct Trace {
  Tensor output;                      // [T, B, H_out]
  std::vector<Tensor> act, c, h_raw;  // h_raw only with w_hr
  Tensor h_last, c_last;
};

/// The time index of the k-th step taken.
int64_t time_of(int64_t k, int64_t steps, bool reverse) { return reverse ? steps - 1 - k : k; }

Trace run_forward(const Tensor& proj, const Tensor& h0, const Tensor& c0, const Tensor& w_hh,
                  const Tensor& w_hr, bool reverse, bool fused) {
  const int64_t steps = proj.size(0);
  const std::vector<Tensor> per_step = proj.unbind(0);
  Trace tr;
  std::vector<Tensor> outputs(static_cast<size_t>(steps));
  tr.act.resize(outputs.size());
  tr.c.resize(outputs.size());
  if (w_hr.defined()) tr.h_raw.resize(outputs.size());
  Tensor h = h0, c = c0;
  for (int64_t k = 0; k < steps; ++k) {
    const auto t = static_cast<size_t>(time_of(k, steps, reverse));
    StepOut s = cell_step(addmm(per_step[t], h, w_hh.t()), c, fused);
    h = w_hr.defined() ? mm(s.h_raw, w_hr.t()) : s.h_raw;
    c = s.c;
    outputs[t] = h;
    tr.act[t] = s.act;
    tr.c[t] = s.c;
    if (w_hr.defined()) tr.h_raw[t] = s.h_raw;
  }
  tr.output = stack(outputs, 0);
  tr.h_last = h;
  tr.c_last = c;
  return tr;
}

/// Backward through time. g_out [T, B, H_out], g_h, g_c: the gradients of the layer's outputs,
/// each possibly undefined. Returns the gradients of proj, h0, c0, w_hh, w_hr.
autograd::Grads run_backward(const Trace& tr, const Tensor& h0, const Tensor& c0,
                             const Tensor& w_hh, const Tensor& w_hr, bool reverse, bool fused,
                             const Tensor& g_out, const Tensor& g_h, const Tensor& g_c) {
  const int64_t steps = tr.output.size(0), batch = tr.output.size(1);
  const int64_t hidden_out = tr.output.size(2), hidden = c0.size(1);
  std::vector<Tensor> dgates(static_cast<size_t>(steps)), dh_out, h_prev(dgates.size());
  if (w_hr.defined()) dh_out.resize(dgates.size());
  Tensor dh_next = g_h, dc_next = g_c;
  for (int64_t k = steps - 1; k >= 0; --k) {
    const auto t = static_cast<size_t>(time_of(k, steps, reverse));
    Tensor dh = g_out.defined() ? g_out[static_cast<int64_t>(t)] : Tensor();
    if (dh_next.defined()) dh = dh.defined() ? dh + dh_next : dh_next;
    if (!dh.defined()) dh = zeros({batch, hidden_out}, tr.output.options());
    Tensor dh_raw = dh;
    if (w_hr.defined()) {
      dh_out[t] = dh;
      dh_raw = mm(dh, w_hr);
    }
    const Tensor& c_prev = k == 0 ? c0 : tr.c[static_cast<size_t>(time_of(k - 1, steps, reverse))];
    h_prev[t] = k == 0 ? h0 : tr.output[time_of(k - 1, steps, reverse)];
    StepGrad sg = cell_step_backward(dh_raw, dc_next, tr.act[t], c_prev, fused);
    dgates[t] = sg.dgates;
    dh_next = mm(sg.dgates, w_hh);
    dc_next = sg.dc_prev;
  }
  Tensor dproj = stack(dgates, 0);
  const Tensor flat_dgates = dproj.reshape({steps * batch, 4 * hidden});
  Tensor dw_hh = mm(flat_dgates.t(), stack(h_prev, 0).reshape({steps * batch, hidden_out}));
  Tensor dw_hr;
  if (w_hr.defined())
    dw_hr = mm(stack(dh_out, 0).reshape({steps * batch, hidden_out}).t(),
               stack(tr.h_raw, 0).reshape({steps * batch, hidden}));
  return {dproj, dh_next, dc_next, dw_hh, dw_hr};
}

}  // namespace

bool lstm_layer_supported(const Tensor& t) {
  return supports(OpId::lstm_cell, t.device().type(), t.scalar_type()) &&
         supports(OpId::lstm_cell_backward, t.device().type(), t.scalar_type());
}

LstmLayerResult lstm_layer(const Tensor& proj, const Tensor& h0, const Tensor& c0,
                           const Tensor& w_hh, const Tensor& w_hr, bool reverse) {
  autograd::OpRecording rec(proj, h0, c0, w_hh, w_hr);
  Trace tr = run_forward(proj, h0, c0.contiguous(), w_hh, w_hr, reverse, /*fused=*/true);
  // c_last is also the trace's last cell state: the caller gets its own copy, so writing to it
  // cannot change what backward reads. The output is saved version-checked.
  LstmLayerResult r{tr.output, tr.h_last, tr.c_last.clone()};
  if (rec) {
    tr.output = Tensor();
    tr.h_last = Tensor();
    tr.c_last = Tensor();
    autograd::record(
        "LstmLayerBackward0", {r.output, r.h, r.c}, autograd::edges_of(proj, h0, c0, w_hh, w_hr),
        [proj_ = autograd::save(proj), h0_ = autograd::save(h0), c0_ = autograd::save(c0),
         w_hh_ = autograd::save(w_hh), w_hr_ = autograd::save(w_hr),
         out_ = autograd::save_output(r.output), tr = std::move(tr),
         reverse](ArrayRef<Tensor> grads, autograd::NeedsGrad) -> autograd::Grads {
          const Tensor h0v = h0_.unpack(), c0v = c0_.unpack(), w_hhv = w_hh_.unpack();
          const Tensor w_hrv = w_hr_.unpack();
          if (GradMode::is_enabled()) {
            // create_graph: the saved trace has no history; recompute it from recorded ops and
            // differentiate those.
            Trace again = run_forward(proj_.unpack(), h0v, c0v, w_hhv, w_hrv, reverse, false);
            return run_backward(again, h0v, c0v, w_hhv, w_hrv, reverse, false, grads[0], grads[1],
                                grads[2]);
          }
          Trace saved = tr;
          saved.output = out_.unpack();
          return run_backward(saved, h0v, c0v.contiguous(), w_hhv, w_hrv, reverse, true, grads[0],
                              grads[1], grads[2]);
        });
  }
  return r;
}

}  // namespace ember::detail
