// BENCHMARKS.md §2, elementwise throughput and sum, Ember side (the same code as
// elementwise_torch.cpp with ember::). N = 16 Mi floats, a, b ~ randn, under NoGradGuard (once
// Ember has one; until then nothing is recorded anyway). After timing, the result is checked
// against scalar math on a sample of elements (an INFO check=... line), so a fast wrong kernel
// shows. Usage: elementwise_ember <case> <threads>; --list prints the cases.
#include <cmath>
#include <string>

#include "ember_features.h"
#include "ember_threads.h"

namespace {

const std::vector<std::string> kCases = {"add_alloc", "add_out",    "relu_alloc",
                                         "relu_out",  "gelu_alloc", "gelu_out",
                                         "exp_alloc", "exp_out",    "sum"};
constexpr int64_t kN = int64_t{1} << 24;
constexpr double kTensorBytes = 4.0 * kN;  // 64 MiB

/// Max relative error of `got` against ref(i) over a strided sample of elements.
template <class Ref>
double sample_error(const ember::Tensor& got, Ref&& ref) {
  const float* g = got.data_ptr<float>();
  double worst = 0;
  for (int64_t i = 0; i < kN; i += 4099) {
    const double r = ref(i);
    worst = std::max(worst, std::abs(g[i] - r) / std::max(1.0, std::abs(r)));
  }
  return worst;
}

int run(const std::string& cas, const bench::Tag& tag) {
  auto a = ember::randn({kN});
  auto b = ember::randn({kN});
  auto out = ember::empty({kN});
  const float* pa = a.data_ptr<float>();
  const float* pb = b.data_ptr<float>();
  ember::Tensor last;  // the result the check looks at
  double err = 0;
  auto rate = [&](auto&& fn, double tensors_moved) {
    bench::print_rate(tag, bench::measure(fn), tensors_moved * kTensorBytes, 1e9, "GB/s");
  };
  auto add_ref = [&](int64_t i) { return double(pa[i]) + pb[i]; };
  auto relu_ref = [&](int64_t i) { return std::max(0.0, double(pa[i])); };
  auto gelu_ref = [&](int64_t i) {
    const double x = pa[i];
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  };
  auto exp_ref = [&](int64_t i) { return std::exp(double(pa[i])); };

  if (cas == "add_alloc") {
    rate([&] { last = a + b; }, 3);
    err = sample_error(last, add_ref);
  } else if (cas == "add_out") {
    rate([&] { ember::add_out(out, a, b); }, 3);
    err = sample_error(out, add_ref);
  } else if (cas == "relu_alloc") {
    rate([&] { last = ember::relu(a); }, 2);
    err = sample_error(last, relu_ref);
  } else if (cas == "relu_out") {
    rate([&] { ember::clamp_min_out(out, a, 0); }, 2);
    err = sample_error(out, relu_ref);
  } else if (cas == "gelu_alloc") {
    rate([&] { last = ember::gelu(a); }, 2);
    err = sample_error(last, gelu_ref);
  } else if (cas == "gelu_out") {
    rate([&] { ember::gelu_out(out, a); }, 2);
    err = sample_error(out, gelu_ref);
  } else if (cas == "exp_alloc") {
    rate([&] { last = ember::exp(a); }, 2);
    err = sample_error(last, exp_ref);
  } else if (cas == "exp_out") {
    rate([&] { ember::exp_out(out, a); }, 2);
    err = sample_error(out, exp_ref);
  } else if (cas == "sum") {
    rate([&] { last = a.sum(); }, 1);
    double ref = 0;
    for (int64_t i = 0; i < kN; ++i) ref += pa[i];
    // float32 accumulation of 16 Mi terms: pairwise/blocked sums stay well inside 1e-3 of sqrt(N).
    err = std::abs(last.item<double>() - ref) / std::sqrt(double(kN));
  } else {
    return 2;
  }
  const bool ok = err < 1e-3;
  bench::print_info(
      tag, std::string("check=") + (ok ? "pass" : "FAIL") + bench::format(" max_err=%.3g", err));
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (bench::wants_list(argc, argv)) return bench::list(kCases), 0;
  if (argc != 3) bench::usage(argv[0], kCases);
  const auto threads = bench::parse_threads(argv[2]);
  bench_ember::apply_threads(threads);
  ember::manual_seed(0);
  const bench::Tag tag{"elementwise", argv[1], threads.name, "ember"};
  int rc = 0;
  ember_bench::maybe_guarded<ember::NoGradGuard>([&] { rc = run(argv[1], tag); });
  if (rc == 2) bench::usage(argv[0], kCases);
  return rc;
}
