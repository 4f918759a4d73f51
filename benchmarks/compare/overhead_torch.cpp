// BENCHMARKS.md §1, eager per-op overhead, LibTorch side (the same code as overhead_ember.cpp with
// torch::). Usage: overhead_torch <case> <threads>; --list prints the cases.
#include <torch/torch.h>

#include "bench_timer.h"
#include "torch_threads.h"

namespace {

const std::vector<std::string> kCases = {"add_1elem_nograd",        "add_1elem_inference_mode",
                                         "add_1elem_requires_grad", "chain10_fwd_bwd",
                                         "linear16_module_call",    "linear16_functional"};

// Issue #4's module-call case: LibTorch's own module call is lin->forward(x) (its holder's
// operator() runs no hooks); the functional case is F::linear on the same parameters.
void linear16(const bench::Tag& tag, bool module_call) {
  torch::nn::Linear lin(16, 16);
  auto x = torch::randn({1, 16});
  const auto t = module_call ? bench::measure([&] {
    auto y = lin->forward(x);
    bench::do_not_optimize(y);
  })
                             : bench::measure([&] {
                                 auto y = torch::nn::functional::linear(x, lin->weight, lin->bias);
                                 bench::do_not_optimize(y);
                               });
  bench::print_time(tag, t, 1e6, "us/call");
}

void chain10(const bench::Tag& tag) {
  auto x = torch::full({}, 0.5, torch::requires_grad());
  auto w = torch::full({}, 1.5, torch::requires_grad());
  auto iteration = [&] {
    auto y = x * w;
    y = y + x;
    y = torch::sin(y);
    y = y * w;
    y = y - x;
    y = torch::tanh(y);
    y = y * y;
    y = y + w;
    y = torch::sigmoid(y);
    y = y * x;
    y.backward();
    x.mutable_grad().reset();
    w.mutable_grad().reset();
  };
  const auto t = bench::measure(iteration);
  bench::print_time(tag, t, 1e6, "us/iter");
  bench::Tag per_op = tag;
  per_op.cas = "chain10_fwd_bwd_per_op";
  bench::print_time(per_op, t, 1e6 / 10, "us/op");
}

}  // namespace

int main(int argc, char** argv) {
  if (bench::wants_list(argc, argv)) return bench::list(kCases), 0;
  if (argc != 3) bench::usage(argv[0], kCases);
  const std::string cas = argv[1];
  const auto threads = bench::parse_threads(argv[2]);
  bench_torch::apply_threads(threads);
  torch::manual_seed(0);
  const bench::Tag tag{"overhead", cas, threads.name, "libtorch"};

  if (cas == "add_1elem_nograd") {
    auto a = torch::ones({1});
    auto b = torch::ones({1});
    bench::print_time(tag, bench::measure([&] {
                        auto c = a.add(b);
                        bench::do_not_optimize(c);
                      }),
                      1e6, "us/call");
  } else if (cas == "add_1elem_inference_mode") {
    c10::InferenceMode guard;
    auto a = torch::ones({1});
    auto b = torch::ones({1});
    bench::print_time(tag, bench::measure([&] {
                        auto c = a.add(b);
                        bench::do_not_optimize(c);
                      }),
                      1e6, "us/call");
  } else if (cas == "add_1elem_requires_grad") {
    auto a = torch::ones({1}, torch::requires_grad());
    auto b = torch::ones({1}, torch::requires_grad());
    bench::print_time(tag, bench::measure([&] {
                        auto c = a.add(b);  // records AddBackward0; c and its node die here
                        bench::do_not_optimize(c);
                      }),
                      1e6, "us/call");
  } else if (cas == "chain10_fwd_bwd") {
    chain10(tag);
  } else if (cas == "linear16_module_call" || cas == "linear16_functional") {
    linear16(tag, cas == "linear16_module_call");
  } else {
    bench::usage(argv[0], kCases);
  }
  return 0;
}
