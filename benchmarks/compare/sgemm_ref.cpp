// BENCHMARKS.md §3, SGEMM references: OpenBLAS's cblas_sgemm and oneDNN's dnnl_sgemm (row-major),
// beta = 0, into a preallocated C. A, B ~ U[0,1) (mt19937_64, seed 0). Every size checked against
// a float64 product. Threads `1`/`2` set OpenBLAS's pool and OpenMP's (oneDNN runs on OpenMP);
// `lt-def` sets neither. Usage: sgemm_ref <openblas_cblas|onednn_sgemm> n<size> <threads>.
#include <cblas.h>
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <string>

#include "bench_timer.h"
#include "sgemm_check.h"

namespace {
const std::vector<std::string> kCases = {"n64", "n128", "n256", "n512", "n1024", "n2048"};
}

int main(int argc, char** argv) {
  if (bench::wants_list(argc, argv)) return bench::list(kCases), 0;
  const std::string impl = argc == 4 ? argv[1] : "";
  if (impl != "openblas_cblas" && impl != "onednn_sgemm") {
    std::fprintf(stderr, "usage: %s <openblas_cblas|onednn_sgemm> n<size> <threads>\n", argv[0]);
    return 2;
  }
  const int64_t n = bench::parse_n(argv[2]);
  if (n <= 0) bench::usage(argv[0], kCases);
  const auto threads = bench::parse_threads(argv[3]);
  if (threads.blas > 0) openblas_set_num_threads(threads.blas);
  if (threads.intra > 0) omp_set_num_threads(threads.intra);
  const bench::Tag tag{"sgemm", argv[2], threads.name, impl};

  const auto A = bench::uniform_floats(n * n, 0);
  const auto B = bench::uniform_floats(n * n, 1);
  std::vector<float> C(n * n);
  bench::Timing t;
  if (impl == "openblas_cblas") {
    t = bench::measure(
        [&] {
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A.data(), n,
                      B.data(), n, 0.0f, C.data(), n);
        },
        bench::sgemm_reps(n));
  } else {
    dnnl_status_t status = dnnl_success;
    t = bench::measure(
        [&] {
          status = dnnl_sgemm('N', 'N', n, n, n, 1.0f, A.data(), n, B.data(), n, 0.0f, C.data(), n);
        },
        bench::sgemm_reps(n));
    if (status != dnnl_success) {
      std::fprintf(stderr, "dnnl_sgemm failed: status %d\n", static_cast<int>(status));
      return 1;
    }
  }
  bench::print_rate(tag, t, 2.0 * n * n * n, 1e9, "GFLOP/s");
  const double err = bench::sgemm_rel_error(A.data(), B.data(), C.data(), n);
  const bool ok = err < bench::kSgemmTolerance;
  bench::print_info(
      tag, std::string("check=") + (ok ? "pass" : "FAIL") + bench::format(" rel_err=%.3g", err));
  return ok ? 0 : 1;
}
