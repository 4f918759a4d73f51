// Thread settings for the LibTorch-side programs (BENCHMARKS.md "Threads"): `1`/`2` call
// torch::set_num_threads(n) and openblas_set_num_threads(n) (LibTorch 1.13 never sets OpenBLAS's
// own pool); `lt-def` calls neither; `a<N>b<M>` sets them apart (the GEMM probe rows).
#pragma once

#include <torch/torch.h>

#include "bench_timer.h"

extern "C" void openblas_set_num_threads(int);  // libopenblas.so.0, the pool under libblas.so.3

namespace bench_torch {

inline void apply_threads(const bench::Threads& t) {
  if (t.intra > 0) torch::set_num_threads(t.intra);
  if (t.blas > 0) openblas_set_num_threads(t.blas);
}

}  // namespace bench_torch
