// CPU GEMM kernels for the `mm` and `bmm` slots: the dtype switch, plus the integer loop (no BLAS
// does integer GEMM with PyTorch's wrap-around semantics). float32/float64: gemm_blas.cpp;
// bfloat16/float16: gemm_onednn.cpp.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "kernels/common/visit.h"
#include "kernels/cpu/gemm_cpu.h"
#include "src/core/parallel.h"
#include "src/dispatch/dispatch.h"

namespace ember {
namespace cpu {
namespace {

// Integer products are summed in uint64 so overflow wraps (mod 2^64, hence mod 2^bits of T once
// truncated) instead of being undefined behaviour: the result matches PyTorch's int mm bit for bit.
template <class T>
void gemm_integer_typed(const GemmParams& p) {
  using U = uint64_t;
  auto widen = [](T v) { return static_cast<U>(static_cast<int64_t>(v)); };
  const U alpha = static_cast<U>(p.alpha.toLong()), beta = static_cast<U>(p.beta.toLong());
  const T* a = static_cast<const T*>(p.a);
  const T* b = static_cast<const T*>(p.b);
  T* c = static_cast<T*>(p.c);
  const int64_t rows = p.batch * p.m;
  // Each row of C costs n·k multiply-adds; keep at least ~32k of them per thread.
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, p.n * p.k));
  parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
    std::vector<U> acc(static_cast<size_t>(p.n));
    for (int64_t r = begin; r < end; ++r) {
      const int64_t bi = r / p.m, i = r % p.m;
      const T* ar = a + bi * p.a_bs + i * p.a_rs;
      const T* bb = b + bi * p.b_bs;
      std::fill(acc.begin(), acc.end(), U(0));
      for (int64_t q = 0; q < p.k; ++q) {
        const U x = widen(ar[q * p.a_cs]);
        const T* br = bb + q * p.b_rs;
        if (p.b_cs == 1) {
          for (int64_t j = 0; j < p.n; ++j) acc[j] += x * widen(br[j]);
        } else {
          for (int64_t j = 0; j < p.n; ++j) acc[j] += x * widen(br[j * p.b_cs]);
        }
      }
      T* cr = c + bi * p.c_bs + i * p.c_rs;
      for (int64_t j = 0; j < p.n; ++j) {
        U v = alpha * acc[j];
        if (beta != 0) v += beta * widen(cr[j * p.c_cs]);
        cr[j * p.c_cs] = static_cast<T>(static_cast<int64_t>(v));
      }
    }
  });
}

}  // namespace

void gemm_integer(ScalarType dtype, const GemmParams& p) {
  if (p.batch == 0 || p.m == 0 || p.n == 0) return;
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_int_type_v<T>) gemm_integer_typed<T>(p);
  });
}

namespace {
void cpu_gemm(ScalarType dtype, const GemmParams& p) {
  switch (dtype) {
    case ScalarType::Float:
      gemm_float(p);
      return;
    case ScalarType::Double:
      gemm_double(p);
      return;
    case ScalarType::BFloat16:
    case ScalarType::Half:
      gemm_reduced_float(dtype, p);
      return;
    default:
      gemm_integer(dtype, p);
      return;
  }
}
}  // namespace
}  // namespace cpu

void register_cpu_blas_kernels() {
  // Every dtype but bool (PyTorch: "addmm_impl_cpu_" not implemented for 'Bool').
  const DtypeMask dtypes = kAllDtypes & ~dtype_bit(kBool);
  register_kernel<OpId::mm>(kCPU, &cpu::cpu_gemm, dtypes);
  register_kernel<OpId::bmm>(kCPU, &cpu::cpu_gemm, dtypes);
}

}  // namespace ember
