// CPU kernels of the fused LSTM cell step and its backward (kernels/common/rnn_params.h): the gate
// nonlinearities, the state update and their gradients in one pass over [batch, hidden], where
// the composition takes about fifteen elementwise ops (and their temporaries) per time step.
// float runs a register of floats at a time through vec_math.h's sigmoid and tanh; double, and
// the last hidden % lanes units of each row, take the scalar functors.
#include <algorithm>
#include <cstdint>

#include "kernels/common/rnn_params.h"
#include "kernels/common/unary_functors.h"
#include "kernels/cpu/vec_math.h"
#include "src/core/parallel.h"
#include "src/dispatch/dispatch.h"

namespace ember {
namespace {
using namespace kernels;

/// Rows per parallel chunk: a time step is small (batch x hidden), so split only big ones.
int64_t row_grain(int64_t hidden) {
  return std::max<int64_t>(1, 32768 / std::max<int64_t>(hidden, 1));
}

template <class T>
void cell_row_scalar(const T* g, const T* cp, T* h, T* c, T* a, int64_t H, int64_t j0) {
  const SigmoidOp sig;
  const TanhOp tnh;
  for (int64_t j = j0; j < H; ++j) {
    const T i = sig(g[j]), f = sig(g[H + j]), gg = tnh(g[2 * H + j]), o = sig(g[3 * H + j]);
    const T cn = f * cp[j] + i * gg;
    const T tc = tnh(cn);
    c[j] = cn;
    h[j] = o * tc;
    a[j] = i, a[H + j] = f, a[2 * H + j] = gg, a[3 * H + j] = o, a[4 * H + j] = tc;
  }
}

template <class T>
void cell_backward_row_scalar(const T* dh, const T* dc_in, const T* a, const T* cp, T* dg, T* dcp,
                              int64_t H, int64_t j0) {
  for (int64_t j = j0; j < H; ++j) {
    const T i = a[j], f = a[H + j], gg = a[2 * H + j], o = a[3 * H + j], tc = a[4 * H + j];
    const T d_h = dh[j];
    const T dc = (dc_in ? dc_in[j] : T(0)) + d_h * o * (T(1) - tc * tc);
    dg[j] = dc * gg * (i - i * i);
    dg[H + j] = dc * cp[j] * (f - f * f);
    dg[2 * H + j] = dc * i * (T(1) - gg * gg);
    dg[3 * H + j] = d_h * tc * (o - o * o);
    dcp[j] = dc * f;
  }
}

#ifdef EMBER_VEC_F32_LANES
constexpr int64_t kLanes = EMBER_VEC_F32_LANES;

/// The vectorised units of one float row; returns where the scalar tail starts.
int64_t cell_row_vec(const float* g, const float* cp, float* h, float* c, float* a, int64_t H) {
  using namespace vec;
  const int64_t body = H - H % kLanes;
  for (int64_t j = 0; j < body; j += kLanes) {
    const F i = VecMath<SigmoidOp>::apply(load(g + j));
    const F f = VecMath<SigmoidOp>::apply(load(g + H + j));
    const F gg = VecMath<TanhOp>::apply(load(g + 2 * H + j));
    const F o = VecMath<SigmoidOp>::apply(load(g + 3 * H + j));
    const F cn = fmadd(f, load(cp + j), mul(i, gg));
    const F tc = VecMath<TanhOp>::apply(cn);
    store(c + j, cn);
    store(h + j, mul(o, tc));
    store(a + j, i);
    store(a + H + j, f);
    store(a + 2 * H + j, gg);
    store(a + 3 * H + j, o);
    store(a + 4 * H + j, tc);
  }
  return body;
}

int64_t cell_backward_row_vec(const float* dh, const float* dc_in, const float* a, const float* cp,
                              float* dg, float* dcp, int64_t H) {
  using namespace vec;
  const int64_t body = H - H % kLanes;
  const F one_v = one();
  for (int64_t j = 0; j < body; j += kLanes) {
    const F i = load(a + j), f = load(a + H + j), gg = load(a + 2 * H + j);
    const F o = load(a + 3 * H + j), tc = load(a + 4 * H + j);
    const F d_h = load(dh + j);
    const F dc0 = dc_in ? load(dc_in + j) : set1(0.0f);
    // dc + dh·o·(1 - tanh(c)²); x - x·x is σ'(·) from σ's value.
    const F dc = fmadd(mul(d_h, o), fnmadd(tc, tc, one_v), dc0);
    store(dg + j, mul(mul(dc, gg), fnmadd(i, i, i)));
    store(dg + H + j, mul(mul(dc, load(cp + j)), fnmadd(f, f, f)));
    store(dg + 2 * H + j, mul(mul(dc, i), fnmadd(gg, gg, one_v)));
    store(dg + 3 * H + j, mul(mul(d_h, tc), fnmadd(o, o, o)));
    store(dcp + j, mul(dc, f));
  }
  return body;
}
#endif

template <class T>
void lstm_cell_typed(const LstmCellParams& p) {
  const int64_t H = p.hidden;
  const T* gates = static_cast<const T*>(p.gates);
  const T* c_prev = static_cast<const T*>(p.c_prev);
  T* h = static_cast<T*>(p.h);
  T* c = static_cast<T*>(p.c);
  T* act = static_cast<T*>(p.act);
  parallel_for(0, p.batch, row_grain(H), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const T* g = gates + r * 4 * H;
      const T* cp = c_prev + r * H;
      T* a = act + r * 5 * H;
      int64_t j0 = 0;
#ifdef EMBER_VEC_F32_LANES
      if constexpr (std::is_same_v<T, float>) j0 = cell_row_vec(g, cp, h + r * H, c + r * H, a, H);
#endif
      cell_row_scalar(g, cp, h + r * H, c + r * H, a, H, j0);
    }
  });
}

template <class T>
void lstm_cell_backward_typed(const LstmCellBackwardParams& p) {
  const int64_t H = p.hidden;
  const T* dh = static_cast<const T*>(p.dh);
  const T* dc = static_cast<const T*>(p.dc);
  const T* act = static_cast<const T*>(p.act);
  const T* c_prev = static_cast<const T*>(p.c_prev);
  T* dgates = static_cast<T*>(p.dgates);
  T* dc_prev = static_cast<T*>(p.dc_prev);
  parallel_for(0, p.batch, row_grain(H), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const T* dcr = dc ? dc + r * H : nullptr;
      const T* a = act + r * 5 * H;
      T* dg = dgates + r * 4 * H;
      int64_t j0 = 0;
#ifdef EMBER_VEC_F32_LANES
      if constexpr (std::is_same_v<T, float>)
        j0 = cell_backward_row_vec(dh + r * H, dcr, a, c_prev + r * H, dg, dc_prev + r * H, H);
#endif
      cell_backward_row_scalar(dh + r * H, dcr, a, c_prev + r * H, dg, dc_prev + r * H, H, j0);
    }
  });
}

void cpu_lstm_cell(ScalarType dtype, const LstmCellParams& p) {
  if (p.batch * p.hidden == 0) return;
  if (dtype == kDouble)
    lstm_cell_typed<double>(p);
  else
    lstm_cell_typed<float>(p);
}

void cpu_lstm_cell_backward(ScalarType dtype, const LstmCellBackwardParams& p) {
  if (p.batch * p.hidden == 0) return;
  if (dtype == kDouble)
    lstm_cell_backward_typed<double>(p);
  else
    lstm_cell_backward_typed<float>(p);
}

}  // namespace

void register_cpu_rnn_kernels() {
  // float16/bfloat16 take the composition (the op asks supports()).
  const DtypeMask dtypes = dtype_bit(kFloat) | dtype_bit(kDouble);
  register_kernel<OpId::lstm_cell>(kCPU, &cpu_lstm_cell, dtypes);
  register_kernel<OpId::lstm_cell_backward>(kCPU, &cpu_lstm_cell_backward, dtypes);
}

}  // namespace ember
