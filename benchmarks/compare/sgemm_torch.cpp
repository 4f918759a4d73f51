// BENCHMARKS.md §3, SGEMM, LibTorch side: torch::mm(a, b), which allocates C each call, with
// A, B ~ U[0,1) (torch::rand). Square n in {64 ... 2048}; GFLOP/s = 2n^3 / time / 1e9; every size
// checked against a float64 product. The probe rows are the thread settings a1b1, a2b1, a1b2
// (ATen threads, OpenBLAS threads) at n = 1024. Usage: sgemm_torch n<size> <threads>.
#include <torch/torch.h>

#include <string>

#include "bench_timer.h"
#include "sgemm_check.h"
#include "torch_threads.h"

namespace {
const std::vector<std::string> kCases = {"n64", "n128", "n256", "n512", "n1024", "n2048"};
}

int main(int argc, char** argv) {
  if (bench::wants_list(argc, argv)) return bench::list(kCases), 0;
  if (argc != 3) bench::usage(argv[0], kCases);
  const int64_t n = bench::parse_n(argv[1]);
  if (n <= 0) bench::usage(argv[0], kCases);
  const auto threads = bench::parse_threads(argv[2]);
  bench_torch::apply_threads(threads);
  torch::manual_seed(0);
  torch::NoGradGuard no_grad;
  const bench::Tag tag{"sgemm", argv[1], threads.name, "torch_mm"};

  auto a = torch::rand({n, n});
  auto b = torch::rand({n, n});
  torch::Tensor c;
  const auto t = bench::measure([&] { c = torch::mm(a, b); }, bench::sgemm_reps(n));
  bench::print_rate(tag, t, 2.0 * n * n * n, 1e9, "GFLOP/s");
  const double err = bench::sgemm_rel_error(a.data_ptr<float>(), b.data_ptr<float>(),
                                            c.contiguous().data_ptr<float>(), n);
  const bool ok = err < bench::kSgemmTolerance;
  bench::print_info(
      tag, std::string("check=") + (ok ? "pass" : "FAIL") + bench::format(" rel_err=%.3g", err));
  return ok ? 0 : 1;
}
