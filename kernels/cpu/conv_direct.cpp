// Direct convolution loops for the conv slots: the float64 path (oneDNN has no f64 convolution)
// and the fallback for configurations oneDNN refuses. Correctness over speed: each output element
// is one dot product over (input channel, kernel position), accumulated in float64 for float64
// and float32 otherwise (as PyTorch's CPU kernels accumulate bfloat16). The geometry is always
// treated as 3-D: unused leading spatial dims have size 1, kernel 1, stride 1, no padding.
#include <cstdint>

#include "ember/core/half.h"
#include "kernels/cpu/conv_c1.h"
#include "kernels/cpu/conv_kernels.h"
#include "src/core/check.h"
#include "src/core/parallel.h"

namespace ember::kernels {
namespace {

// ConvParams with its spatial dims moved to the last of three slots, and element strides for x
// and y in either layout.
struct ConvGeom {
  int64_t n, ic, oc, g, icg, ocg;
  int64_t in[3], out[3], k[3], s[3], p[3], d[3];
  int64_t xs_n, xs_c, xs[3];  // x strides (elements)
  int64_t ys_n, ys_c, ys[3];  // y strides
};

void conv_direct_strides(const int64_t* sizes, int64_t c, bool channels_last, int64_t& sn,
                         int64_t& sc, int64_t* ss) {
  const int64_t spatial = sizes[0] * sizes[1] * sizes[2];
  if (channels_last) {
    sc = 1;
    ss[2] = c;
    ss[1] = c * sizes[2];
    ss[0] = c * sizes[2] * sizes[1];
    sn = c * spatial;
  } else {
    ss[2] = 1;
    ss[1] = sizes[2];
    ss[0] = sizes[2] * sizes[1];
    sc = spatial;
    sn = c * spatial;
  }
}

ConvGeom conv_direct_geom(const ConvParams& p) {
  ConvGeom g{};
  g.n = p.n;
  g.ic = p.ic;
  g.oc = p.oc;
  g.g = p.groups;
  g.icg = p.ic / p.groups;
  g.ocg = p.oc / p.groups;
  const int off = 3 - p.spatial;
  for (int i = 0; i < 3; ++i) {
    g.in[i] = g.out[i] = g.k[i] = g.s[i] = g.d[i] = 1;
    g.p[i] = 0;
  }
  for (int i = 0; i < p.spatial; ++i) {
    g.in[off + i] = p.in[i];
    g.out[off + i] = p.out[i];
    g.k[off + i] = p.k[i];
    g.s[off + i] = p.stride[i];
    g.p[off + i] = p.pad[i];
    g.d[off + i] = p.dilation[i];
  }
  conv_direct_strides(g.in, g.ic, p.channels_last, g.xs_n, g.xs_c, g.xs);
  conv_direct_strides(g.out, g.oc, p.channels_last, g.ys_n, g.ys_c, g.ys);
  return g;
}

// w [oc, icg, k0, k1, k2] contiguous.
inline int64_t conv_direct_w_index(const ConvGeom& g, int64_t o, int64_t c, int64_t a, int64_t b,
                                   int64_t e) {
  return (((o * g.icg + c) * g.k[0] + a) * g.k[1] + b) * g.k[2] + e;
}

template <class T, class Acc>
void direct_forward(const ConvParams& p) {
  const ConvGeom g = conv_direct_geom(p);
  const T* x = static_cast<const T*>(p.x);
  const T* w = static_cast<const T*>(p.w);
  const T* b = static_cast<const T*>(p.b);
  T* y = static_cast<T*>(p.y);
  const int64_t per = g.out[0] * g.out[1] * g.out[2] * g.icg * g.k[0] * g.k[1] * g.k[2];
  parallel_for(
      0, g.n * g.oc, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, per)),
      [&](int64_t begin, int64_t end) {
        for (int64_t job = begin; job < end; ++job) {
          const int64_t ni = job / g.oc, o = job % g.oc, grp = o / g.ocg;
          const T* xn = x + ni * g.xs_n + grp * g.icg * g.xs_c;
          for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
            for (int64_t o1 = 0; o1 < g.out[1]; ++o1)
              for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
                Acc acc = b ? Acc(b[o]) : Acc(0);
                for (int64_t c = 0; c < g.icg; ++c)
                  for (int64_t a = 0; a < g.k[0]; ++a) {
                    const int64_t i0 = o0 * g.s[0] - g.p[0] + a * g.d[0];
                    if (i0 < 0 || i0 >= g.in[0]) continue;
                    for (int64_t bb = 0; bb < g.k[1]; ++bb) {
                      const int64_t i1 = o1 * g.s[1] - g.p[1] + bb * g.d[1];
                      if (i1 < 0 || i1 >= g.in[1]) continue;
                      for (int64_t e = 0; e < g.k[2]; ++e) {
                        const int64_t i2 = o2 * g.s[2] - g.p[2] + e * g.d[2];
                        if (i2 < 0 || i2 >= g.in[2]) continue;
                        acc += Acc(xn[c * g.xs_c + i0 * g.xs[0] + i1 * g.xs[1] + i2 * g.xs[2]]) *
                               Acc(w[conv_direct_w_index(g, o, c, a, bb, e)]);
                      }
                    }
                  }
                y[ni * g.ys_n + o * g.ys_c + o0 * g.ys[0] + o1 * g.ys[1] + o2 * g.ys[2]] = T(acc);
              }
        }
      });
}

// Start of the output positions o with o·s = i + pad - k·d, and whether there is one.
inline bool conv_direct_source(int64_t i, int64_t pad, int64_t kk, int64_t d, int64_t s,
                               int64_t out, int64_t& o) {
  const int64_t t = i + pad - kk * d;
  if (t < 0 || t % s != 0) return false;
  o = t / s;
  return o < out;
}

template <class T, class Acc>
void direct_backward_data(const ConvParams& p) {
  const ConvGeom g = conv_direct_geom(p);
  T* dx = static_cast<T*>(const_cast<void*>(p.x));
  const T* w = static_cast<const T*>(p.w);
  const T* dy = static_cast<const T*>(p.y);
  const int64_t per = g.in[0] * g.in[1] * g.in[2] * g.ocg * g.k[0] * g.k[1] * g.k[2];
  parallel_for(
      0, g.n * g.ic, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, per)),
      [&](int64_t begin, int64_t end) {
        for (int64_t job = begin; job < end; ++job) {
          const int64_t ni = job / g.ic, c = job % g.ic, grp = c / g.icg, cg = c % g.icg;
          const T* dyn = dy + ni * g.ys_n + grp * g.ocg * g.ys_c;
          for (int64_t i0 = 0; i0 < g.in[0]; ++i0)
            for (int64_t i1 = 0; i1 < g.in[1]; ++i1)
              for (int64_t i2 = 0; i2 < g.in[2]; ++i2) {
                Acc acc(0);
                for (int64_t a = 0; a < g.k[0]; ++a) {
                  int64_t o0;
                  if (!conv_direct_source(i0, g.p[0], a, g.d[0], g.s[0], g.out[0], o0)) continue;
                  for (int64_t bb = 0; bb < g.k[1]; ++bb) {
                    int64_t o1;
                    if (!conv_direct_source(i1, g.p[1], bb, g.d[1], g.s[1], g.out[1], o1)) continue;
                    for (int64_t e = 0; e < g.k[2]; ++e) {
                      int64_t o2;
                      if (!conv_direct_source(i2, g.p[2], e, g.d[2], g.s[2], g.out[2], o2))
                        continue;
                      const int64_t pos = o0 * g.ys[0] + o1 * g.ys[1] + o2 * g.ys[2];
                      for (int64_t og = 0; og < g.ocg; ++og)
                        acc += Acc(dyn[og * g.ys_c + pos]) *
                               Acc(w[conv_direct_w_index(g, grp * g.ocg + og, cg, a, bb, e)]);
                    }
                  }
                }
                dx[ni * g.xs_n + c * g.xs_c + i0 * g.xs[0] + i1 * g.xs[1] + i2 * g.xs[2]] = T(acc);
              }
        }
      });
}

template <class T, class Acc>
void direct_backward_weights(const ConvParams& p) {
  const ConvGeom g = conv_direct_geom(p);
  const T* x = static_cast<const T*>(p.x);
  const T* dy = static_cast<const T*>(p.y);
  T* dw = static_cast<T*>(const_cast<void*>(p.w));
  T* db = static_cast<T*>(const_cast<void*>(p.b));
  const int64_t kvol = g.k[0] * g.k[1] * g.k[2];
  parallel_for(0, g.oc * g.icg * kvol, 1, [&](int64_t begin, int64_t end) {
    for (int64_t job = begin; job < end; ++job) {
      const int64_t o = job / (g.icg * kvol), rest = job % (g.icg * kvol);
      const int64_t c = rest / kvol, kk = rest % kvol;
      const int64_t a = kk / (g.k[1] * g.k[2]), bb = (kk / g.k[2]) % g.k[1], e = kk % g.k[2];
      const int64_t grp = o / g.ocg;
      Acc acc(0);
      for (int64_t ni = 0; ni < g.n; ++ni) {
        const T* xn = x + ni * g.xs_n + (grp * g.icg + c) * g.xs_c;
        const T* dyn = dy + ni * g.ys_n + o * g.ys_c;
        for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
          const int64_t i0 = o0 * g.s[0] - g.p[0] + a * g.d[0];
          if (i0 < 0 || i0 >= g.in[0]) continue;
          for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
            const int64_t i1 = o1 * g.s[1] - g.p[1] + bb * g.d[1];
            if (i1 < 0 || i1 >= g.in[1]) continue;
            for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
              const int64_t i2 = o2 * g.s[2] - g.p[2] + e * g.d[2];
              if (i2 < 0 || i2 >= g.in[2]) continue;
              acc += Acc(xn[i0 * g.xs[0] + i1 * g.xs[1] + i2 * g.xs[2]]) *
                     Acc(dyn[o0 * g.ys[0] + o1 * g.ys[1] + o2 * g.ys[2]]);
            }
          }
        }
      }
      dw[job] = T(acc);
    }
  });
  if (db) {
    for (int64_t o = 0; o < g.oc; ++o) {
      Acc acc(0);
      for (int64_t ni = 0; ni < g.n; ++ni)
        for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
          for (int64_t o1 = 0; o1 < g.out[1]; ++o1)
            for (int64_t o2 = 0; o2 < g.out[2]; ++o2)
              acc += Acc(dy[ni * g.ys_n + o * g.ys_c + o0 * g.ys[0] + o1 * g.ys[1] + o2 * g.ys[2]]);
      db[o] = T(acc);
    }
  }
}

template <template <class, class> class Fn>
void conv_direct_visit(ScalarType dtype, const ConvParams& p, const char* op) {
  switch (dtype) {
    case ScalarType::Double:
      return Fn<double, double>::run(p);
    case ScalarType::Float:
      return Fn<float, float>::run(p);
    case ScalarType::BFloat16:
      return Fn<BFloat16, float>::run(p);
    default:
      EMBER_CHECK_TYPE(false, "{}: expected a float32, float64 or bfloat16 tensor, got {}", op,
                       dtype);
  }
}

template <class T, class Acc>
struct ConvDirectFwd {
  static void run(const ConvParams& p) { direct_forward<T, Acc>(p); }
};
// max(y, 0) over a forward's output (any layout: every element is one).
template <class T, class Acc>
struct ConvReluPass {
  static void run(const ConvParams& p) {
    int64_t count = p.n * p.oc;
    for (int i = 0; i < p.spatial; ++i) count *= p.out[i];
    T* y = static_cast<T*>(p.y);
    parallel_for(0, count, 1 << 15, [y](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        if (static_cast<Acc>(y[i]) < Acc(0)) y[i] = T(0);
    });
  }
};
template <class T, class Acc>
struct ConvDirectBwdData {
  static void run(const ConvParams& p) { direct_backward_data<T, Acc>(p); }
};
template <class T, class Acc>
struct ConvDirectBwdWeights {
  static void run(const ConvParams& p) { direct_backward_weights<T, Acc>(p); }
};

}  // namespace

void conv_direct_forward(ScalarType dtype, const ConvParams& p) {
  conv_direct_visit<ConvDirectFwd>(dtype, p, "convolution");
}
void conv_direct_backward_data(ScalarType dtype, const ConvParams& p) {
  conv_direct_visit<ConvDirectBwdData>(dtype, p, "convolution_backward_data");
}
void conv_direct_backward_weights(ScalarType dtype, const ConvParams& p) {
  conv_direct_visit<ConvDirectBwdWeights>(dtype, p, "convolution_backward_weights");
}

// float32 with one input channel (an image CNN's first layer) tries the direct kernel of
// conv_c1.h first: it reads and writes NCHW where oneDNN's fast kernels need reorders.
void cpu_convolution(ScalarType dtype, const ConvParams& p) {
  if (dtype == ScalarType::Float && conv_c1_forward(p)) return;
  if (!conv_onednn_forward(dtype, p)) conv_direct_forward(dtype, p);
}
// The forward with oneDNN's ReLU post-op; where that path is not taken (one input channel,
// float64, a geometry oneDNN refuses) the plain forward and one pass over y.
void cpu_convolution_relu(ScalarType dtype, const ConvParams& p) {
  if (dtype == ScalarType::Float && conv_c1_forward(p)) {
    conv_direct_visit<ConvReluPass>(dtype, p, "convolution_relu");
    return;
  }
  if (conv_onednn_forward_relu(dtype, p)) return;
  conv_direct_forward(dtype, p);
  conv_direct_visit<ConvReluPass>(dtype, p, "convolution_relu");
}
void cpu_convolution_backward_data(ScalarType dtype, const ConvParams& p) {
  if (!conv_onednn_backward_data(dtype, p)) conv_direct_backward_data(dtype, p);
}
void cpu_convolution_backward_weights(ScalarType dtype, const ConvParams& p) {
  if (dtype == ScalarType::Float && conv_c1_backward_weights(p)) return;
  if (!conv_onednn_backward_weights(dtype, p)) conv_direct_backward_weights(dtype, p);
}

}  // namespace ember::kernels
