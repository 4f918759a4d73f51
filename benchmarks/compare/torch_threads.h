// Thread settings for the LibTorch-side programs (BENCHMARKS.md "Threads"): `1`/`2` call
// torch::set_num_threads(n) and openblas_set_num_threads(n) (LibTorch 1.13 never sets OpenBLAS's
// own pool); `lt-def` calls neither; `a<N>b<M>` sets them apart (the GEMM probe rows).
//
// The newest LibTorch (the PyPI wheel's, built with -DBENCH_TORCH_BUNDLED_BLAS by run.py) links
// its BLAS (MKL) statically inside libtorch_cpu and sizes it together with its OpenMP pool in
// torch::set_num_threads; there is no OpenBLAS pool to set, so only that call is made (and the
// program does not link Debian's OpenBLAS: two BLAS libraries in one process invite clashes).
#pragma once

#include <torch/torch.h>
#include <torch/version.h>

#include "bench_timer.h"

#ifndef BENCH_TORCH_BUNDLED_BLAS
extern "C" void openblas_set_num_threads(int);  // libopenblas.so.0, the pool under libblas.so.3
#endif

namespace bench_torch {

inline void apply_threads(const bench::Threads& t) {
  if (t.intra > 0) torch::set_num_threads(t.intra);
#ifndef BENCH_TORCH_BUNDLED_BLAS
  if (t.blas > 0) openblas_set_num_threads(t.blas);
#endif
}

/// The LibTorch version the program was compiled against (TORCH_VERSION of its headers).
inline const char* version() { return TORCH_VERSION; }

}  // namespace bench_torch
