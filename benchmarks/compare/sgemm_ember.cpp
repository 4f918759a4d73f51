// BENCHMARKS.md §3, SGEMM, Ember side (the same code as sgemm_torch.cpp with ember::):
// ember::mm(a, b), which allocates C each call, A, B ~ U[0,1) (ember::rand). Every size checked
// against a float64 product. Usage: sgemm_ember n<size> <threads>.
#include <string>

#include "ember_features.h"
#include "ember_threads.h"
#include "sgemm_check.h"

namespace {
const std::vector<std::string> kCases = {"n64", "n128", "n256", "n512", "n1024", "n2048"};
}

int main(int argc, char** argv) {
  if (bench::wants_list(argc, argv)) return bench::list(kCases), 0;
  if (argc != 3) bench::usage(argv[0], kCases);
  const int64_t n = bench::parse_n(argv[1]);
  if (n <= 0) bench::usage(argv[0], kCases);
  const auto threads = bench::parse_threads(argv[2]);
  const bench::Tag tag{"sgemm", argv[1], threads.name, "ember"};
  if (threads.intra != threads.blas) {
    bench::print_na(tag, "ember_has_one_thread_setting");  // the probe of LibTorch's two pools
    return 0;
  }
  bench_ember::apply_threads(threads);
  ember::manual_seed(0);
  int rc = 0;
  ember_bench::maybe_guarded<ember::NoGradGuard>([&] {
    auto a = ember::rand({n, n});
    auto b = ember::rand({n, n});
    ember::Tensor c;
    const auto t = bench::measure([&] { c = ember::mm(a, b); }, bench::sgemm_reps(n));
    bench::print_rate(tag, t, 2.0 * n * n * n, 1e9, "GFLOP/s");
    const double err = bench::sgemm_rel_error(a.data_ptr<float>(), b.data_ptr<float>(),
                                              c.contiguous().data_ptr<float>(), n);
    const bool ok = err < bench::kSgemmTolerance;
    bench::print_info(
        tag, std::string("check=") + (ok ? "pass" : "FAIL") + bench::format(" rel_err=%.3g", err));
    rc = ok ? 0 : 1;
  });
  return rc;
}
