// Fractional max pooling (2-d and 3-d) on the CPU: PyTorch's pseudo-random window starts from
// one sample per plane and dim, then the max and its flat index over each window.
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/pool_geometry.h"
#include "kernels/cpu/pool_kernels.h"

namespace ember::kernels {
namespace {

using namespace pool_loops;

// PyTorch's fractional interval starts: alpha = (in - k) / (out - 1) in the input's dtype,
// start(i) = int((i + u)·alpha) - int(u·alpha) for i < out - 1, and the last window ends flush
// with the input.
template <class Acc>
void fractional_starts(Acc u, int64_t in, int64_t out, int64_t k, std::vector<int64_t>& seq) {
  seq.assign(static_cast<size_t>(out), 0);
  if (out > 1) {
    const Acc alpha = static_cast<Acc>(in - k) / static_cast<Acc>(out - 1);
    for (int64_t i = 0; i < out - 1; ++i)
      seq[static_cast<size_t>(i)] = static_cast<int64_t>(
          static_cast<int>((static_cast<Acc>(i) + u) * alpha) - static_cast<int>(u * alpha));
  }
  if (out > 0) seq[static_cast<size_t>(out - 1)] = in - k;
}

template <class T>
void fractional_impl(const FractionalPoolParams& p) {
  using Acc = opmath_t<T>;
  const T* x = static_cast<const T*>(p.input);
  const T* u = static_cast<const T*>(p.samples);
  T* y = static_cast<T*>(p.output);
  const int64_t planes = p.batch * p.channels, ovol = p.out.volume();
  const int64_t in_h = p.in.size[1], in_w = p.in.size[2];
  parallel_for(0, planes, pool_grain(ovol * p.kernel[0] * p.kernel[1] * p.kernel[2]),
               [&](int64_t begin, int64_t end) {
                 std::vector<int64_t> seq[kPoolMaxDims];
                 for (int64_t plane = begin; plane < end; ++plane) {
                   const T* up = u + plane * p.nd;
                   for (int i = 0; i < kPoolMaxDims; ++i) {
                     // 2-d: sample 0 drives W and sample 1 H (PyTorch's order); 3-d: T, H, W.
                     const int s = p.nd == 3 ? i : (i == 2 ? 0 : 1);
                     if (p.nd == 2 && i == 0) {
                       seq[0].assign(1, 0);
                       continue;
                     }
                     fractional_starts(static_cast<Acc>(up[s]), p.in.size[i], p.out.size[i],
                                       p.kernel[i], seq[i]);
                   }
                   const T* xp = x + plane_offset(p.in, plane, p.channels);
                   const int64_t yp = plane_offset(p.out, plane, p.channels);
                   for (int64_t k = 0; k < ovol; ++k) {
                     const PoolPos o = split_pos(p.out, k);
                     const int64_t d0 = seq[0][static_cast<size_t>(o.d)];
                     const int64_t h0 = seq[1][static_cast<size_t>(o.h)];
                     const int64_t w0 = seq[2][static_cast<size_t>(o.w)];
                     Acc best = -std::numeric_limits<Acc>::infinity();
                     int64_t best_i = (d0 * in_h + h0) * in_w + w0;
                     for (int64_t d = d0; d < d0 + p.kernel[0]; ++d)
                       for (int64_t h = h0; h < h0 + p.kernel[1]; ++h)
                         for (int64_t w = w0; w < w0 + p.kernel[2]; ++w) {
                           const Acc v = static_cast<Acc>(xp[offset_of(p.in, d, h, w)]);
                           if (v > best || std::isnan(v)) {
                             best = v;
                             best_i = (d * in_h + h) * in_w + w;
                           }
                         }
                     const int64_t yo = yp + offset_of(p.out, o.d, o.h, o.w);
                     y[yo] = static_cast<T>(best);
                     p.indices[yo] = best_i;
                   }
                 }
               });
}

template <class T>
struct FractionalRun {
  static void run(const FractionalPoolParams& p) { fractional_impl<T>(p); }
};

}  // namespace

void cpu_fractional_max_pool(ScalarType dtype, const FractionalPoolParams& p) {
  visit_pool_float<FractionalRun>(dtype, p);
}

}  // namespace ember::kernels
