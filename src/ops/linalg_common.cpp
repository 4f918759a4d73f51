// The tensor-level preparation around the LAPACK slots (linalg_common.h). The layout helpers have
// a host-loop path for CPU tensors (written to keep OpenMP regions away from OpenBLAS's threads,
// see the header)
// and a tensor-op path for every other device.
#include "src/ops/linalg_common.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"
#include "kernels/common/visit.h"

namespace ember::linalg::detail {
namespace {

// Calls f(offset) for every element of a tensor of `sizes` and element `strides`, in row-major
// order.
template <class F>
void for_each_offset(IntArrayRef sizes, IntArrayRef strides, F&& f) {
  const size_t nd = sizes.size();
  for (int64_t s : sizes)
    if (s == 0) return;
  if (nd == 0) return f(int64_t{0});
  DimVector idx(nd, 0);
  const int64_t inner = sizes[nd - 1], inner_stride = strides[nd - 1];
  int64_t base = 0;
  while (true) {
    for (int64_t i = 0; i < inner; ++i) f(base + i * inner_stride);
    size_t d = nd - 1;
    while (d-- > 0) {
      base += strides[d];
      if (++idx[d] < sizes[d]) break;
      base -= strides[d] * sizes[d];
      idx[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) return;
  }
}

// Tensor path: true on the kept triangle of a rows x cols matrix ('U': column >= row, 'L':
// column <= row), as one broadcast comparison (tril/triu zero each row with its own launch).
Tensor triangle_mask(int64_t rows, int64_t cols, char uplo, Device device) {
  const TensorOptions o = TensorOptions().dtype(kLong).device(device);
  const Tensor r = arange(rows, o).unsqueeze(1), c = arange(cols, o);
  return uplo == 'U' ? ge(c, r) : le(c, r);
}

template <class T>
void copy_to(const Tensor& src, T* dst) {
  const T* s = src.data_ptr<T>();
  if (src.is_contiguous()) {  // the common case, one block copy (small matrices pay per element)
    std::copy(s, s + src.numel(), dst);
    return;
  }
  for_each_offset(src.sizes(), src.strides(), [&](int64_t off) { *dst++ = s[off]; });
}
}  // namespace

Tensor packed_copy(const Tensor& src) {
  Tensor out = empty(src.sizes(), src.options());
  if (!src.is_cpu()) {
    out.copy_(src);
    return out;
  }
  visit_float_or_double(src.dtype(),
                        [&](auto tag) { copy_to(src, out.data_ptr<decltype(tag)>()); });
  return out;
}

Tensor column_major(const Tensor& A, int64_t width) {
  const int64_t count = A.size(0), m = A.size(1), n = A.size(2);
  const int64_t w = std::max(n, width);
  if (!A.is_cpu()) {
    Tensor out = w > n ? zeros({count, w, m}, A.options()) : empty({count, w, m}, A.options());
    out.narrow(1, 0, n).copy_(A.mT());
    return out;
  }
  if (w == n) return packed_copy(A.mT());
  Tensor out = empty({count, w, m}, A.options());
  visit_float_or_double(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* dst = out.data_ptr<T>();
    for (int64_t b = 0; b < count; ++b) {
      copy_to(A.select(0, b).mT(), dst + b * w * m);
      std::fill(dst + b * w * m + n * m, dst + (b + 1) * w * m, T(0));
    }
  });
  return out;
}

Tensor identity_batch(int64_t count, int64_t n, const TensorOptions& options) {
  if (options.device().type() != kCPU) return eye(n, options).expand({count, n, n}).contiguous();
  Tensor out = zeros({count, n, n}, options);
  visit_float_or_double(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data_ptr<T>();
    for (int64_t b = 0; b < count; ++b)
      for (int64_t i = 0; i < n; ++i) p[(b * n + i) * n + i] = T(1);
  });
  return out;
}

LapackMatrices matrices_of(const Tensor& cm, int64_t cols) {
  LapackMatrices M;
  M.data = cm.data_ptr();
  M.batch = cm.size(0);
  M.rows = cm.size(2);
  M.cols = cols < 0 ? cm.size(1) : cols;
  M.ld = std::max<int64_t>(M.rows, 1);
  M.batch_stride = cm.size(1) * cm.size(2);
  return M;
}

Tensor from_column_major(const Tensor& cm, int64_t rows, int64_t cols, char uplo) {
  if (!cm.is_cpu()) {
    const Tensor block = cm.narrow(1, 0, cols).narrow(2, 0, rows).mT();
    if (uplo == 'A') return block.contiguous();
    return where(triangle_mask(rows, cols, uplo, cm.device()), block, Scalar(0.0));
  }
  const int64_t count = cm.size(0);
  Tensor out = empty({count, rows, cols}, cm.options());
  visit_float_or_double(cm.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = cm.data_ptr<T>();
    T* dst = out.data_ptr<T>();
    const int64_t bs = cm.stride(0), cs = cm.stride(1), rs = cm.stride(2);
    // Row i keeps columns [j0, j1) (the triangle) and zeroes the rest: no test per element.
    for (int64_t b = 0; b < count; ++b)
      for (int64_t i = 0; i < rows; ++i) {
        const T* row = src + b * bs + i * rs;
        const int64_t j0 = uplo == 'U' ? std::min(i, cols) : 0;
        const int64_t j1 = uplo == 'L' ? std::min(i + 1, cols) : cols;
        dst = std::fill_n(dst, j0, T(0));
        for (int64_t j = j0; j < j1; ++j) *dst++ = row[j * cs];
        dst = std::fill_n(dst, cols - j1, T(0));
      }
  });
  return out;
}

FiniteMask finite_mask_from(std::vector<uint8_t> ok, Device device) {
  FiniteMask f;
  f.ok = std::move(ok);
  if (std::all_of(f.ok.begin(), f.ok.end(), [](uint8_t x) { return x != 0; })) return f;
  Tensor host = empty({static_cast<int64_t>(f.ok.size())}, TensorOptions().dtype(kBool));
  std::copy(f.ok.begin(), f.ok.end(), host.data_ptr<bool>());
  f.mask = host.to(device);
  return f;
}

FiniteMask finite_mask(const Tensor& t, char uplo) {
  const int64_t count = t.size(0), r = t.size(1), c = t.size(2);
  std::vector<uint8_t> ok(static_cast<size_t>(count), 1);
  if (count == 0 || r == 0 || c == 0) return finite_mask_from(std::move(ok), t.device());
  if (t.is_cpu()) {
    visit_float_or_double(t.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* p = t.data_ptr<T>();
      const int64_t s0 = t.stride(0), s1 = t.stride(1), s2 = t.stride(2);
      for (int64_t b = 0; b < count; ++b) {
        bool good = true;
        for (int64_t i = 0; i < r && good; ++i) {
          const int64_t j0 = uplo == 'U' ? std::min(i, c) : 0;
          const int64_t j1 = uplo == 'L' ? std::min(i + 1, c) : c;
          for (int64_t j = j0; j < j1; ++j)
            if (!std::isfinite(p[b * s0 + i * s1 + j * s2])) {
              good = false;
              break;
            }
        }
        ok[static_cast<size_t>(b)] = good;
      }
    });
  } else {
    Tensor finite = isfinite(t);
    if (uplo != 'A')
      finite = logical_or(finite, logical_not(triangle_mask(r, c, uplo, t.device())));
    // One bool per entry comes back to the host: the op needs them to decide what to report.
    const Tensor flags = all(finite.reshape({count, r * c}), 1).cpu();
    const bool* p = flags.data_ptr<bool>();
    for (int64_t b = 0; b < count; ++b) ok[static_cast<size_t>(b)] = p[b];
  }
  return finite_mask_from(std::move(ok), t.device());
}

namespace {
// The mask as (count, 1, ..., 1), to broadcast over t's entries.
Tensor entry_mask(const FiniteMask& f, const Tensor& t) {
  DimVector shape(static_cast<size_t>(t.dim()), 1);
  shape[0] = t.size(0);
  return f.mask.reshape(shape);
}
}  // namespace

Tensor keep_finite(const FiniteMask& f, const Tensor& t) {
  if (f.all()) return t;
  return where(entry_mask(f, t), t, eye(t.size(-2), t.size(-1), t.options()));
}

Tensor with_nan(const FiniteMask& f, const Tensor& t) {
  if (f.all()) return t;
  return where(entry_mask(f, t), t, Scalar(std::numeric_limits<double>::quiet_NaN()));
}

void check_lapack_call(const char* op, const char* routine, const std::vector<int32_t>& info) {
  for (int32_t i : info)
    EMBER_CHECK(i >= 0, "{}: LAPACK's {} rejected argument {} (an Ember bug, please report it)", op,
                routine, -i);
}

Tensor info_tensor(const std::vector<int32_t>& info, IntArrayRef batch, Device device) {
  Tensor host = empty(batch, TensorOptions().dtype(kInt));
  std::copy(info.begin(), info.end(), host.data_ptr<int32_t>());
  return host.to(device);
}

}  // namespace ember::linalg::detail
