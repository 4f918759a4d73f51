// BENCHMARKS.md §2, elementwise throughput and sum, LibTorch side (the same code as
// elementwise_ember.cpp with torch::). N = 16 Mi floats, a, b ~ randn, under NoGradGuard.
// GB/s counts 4 B x N x (inputs read + outputs written); write-allocate traffic is not counted.
// Usage: elementwise_torch <case> <threads>; --list prints the cases.
#include <torch/torch.h>

#include "bench_timer.h"
#include "torch_threads.h"

namespace {

const std::vector<std::string> kCases = {"add_alloc", "add_out",    "relu_alloc",
                                         "relu_out",  "gelu_alloc", "gelu_out",
                                         "exp_alloc", "exp_out",    "sum"};
constexpr int64_t kN = int64_t{1} << 24;
constexpr double kTensorBytes = 4.0 * kN;  // 64 MiB

}  // namespace

int main(int argc, char** argv) {
  if (bench::wants_list(argc, argv)) return bench::list(kCases), 0;
  if (argc != 3) bench::usage(argv[0], kCases);
  const std::string cas = argv[1];
  const auto threads = bench::parse_threads(argv[2]);
  bench_torch::apply_threads(threads);
  torch::manual_seed(0);
  torch::NoGradGuard no_grad;
  const bench::Tag tag{"elementwise", cas, threads.name, "libtorch"};

  auto a = torch::randn({kN});
  auto b = torch::randn({kN});
  auto out = torch::empty({kN});
  torch::Tensor last;  // holds each result until the next call replaces it, as the Ember side
  auto rate = [&](auto&& fn, double tensors_moved) {
    bench::print_rate(tag, bench::measure(fn), tensors_moved * kTensorBytes, 1e9, "GB/s");
  };

  if (cas == "add_alloc") {
    rate([&] { last = a + b; }, 3);
  } else if (cas == "add_out") {
    rate([&] { torch::add_out(out, a, b); }, 3);
  } else if (cas == "relu_alloc") {
    rate([&] { last = torch::relu(a); }, 2);
  } else if (cas == "relu_out") {
    rate([&] { torch::clamp_min_out(out, a, 0); }, 2);
  } else if (cas == "gelu_alloc") {
    rate([&] { last = torch::gelu(a); }, 2);
  } else if (cas == "gelu_out") {
    rate([&] { torch::gelu_out(out, a); }, 2);
  } else if (cas == "exp_alloc") {
    rate([&] { last = torch::exp(a); }, 2);
  } else if (cas == "exp_out") {
    rate([&] { torch::exp_out(out, a); }, 2);
  } else if (cas == "sum") {
    rate([&] { last = a.sum(); }, 1);
  } else {
    bench::usage(argv[0], kCases);
  }
  return 0;
}
