// BENCHMARKS.md §1, eager per-op overhead, Ember side (the same code as overhead_torch.cpp with
// ember::). Cases that need a feature Ember does not have yet (InferenceMode, autograd) print NA;
// they turn on by themselves when the feature lands (see ember_features.h).
// Usage: overhead_ember <case> <threads>; --list prints the cases.
#include "ember/nn.h"
#include "ember/nn/functional/linear.h"
#include "ember/nn/modules/linear.h"
#include "ember_features.h"
#include "ember_threads.h"

namespace {

const std::vector<std::string> kCases = {"add_1elem_nograd",        "add_1elem_inference_mode",
                                         "add_1elem_requires_grad", "chain10_fwd_bwd",
                                         "linear16_module_call",    "linear16_functional"};

// Issue #4: a module call `lin(x)` (hooks machinery present, no hook registered) against the bare
// functional call on the same parameters; Linear(16, 16), x [1, 16], grad mode on (the
// parameters require grad, so both record the same autograd node).
void linear16(const bench::Tag& tag, bool module_call) {
  ember::nn::Linear lin(16, 16);
  auto x = ember::randn({1, 16});
  const auto t = module_call ? bench::measure([&] {
    auto y = lin(x);
    bench::do_not_optimize(y);
  })
                             : bench::measure([&] {
                                 auto y = ember::nn::functional::linear(x, lin->weight, lin->bias);
                                 bench::do_not_optimize(y);
                               });
  bench::print_time(tag, t, 1e6, "us/call");
}

/// The workload is defined on float32 (torch::ones' dtype): say so when Ember's result is not.
void check_float(const bench::Tag& tag, const ember::Tensor& c) {
  const bool ok = c.dtype() == ember::kFloat && c.numel() == 1;
  bench::print_info(tag, std::string("check=") + (ok ? "pass" : "FAIL") +
                             " result_dtype=" + ember::to_string(c.dtype()));
}

template <class G>
void add_inference_mode(const bench::Tag& tag) {
  if constexpr (!ember_bench::is_present<G>::value) {
    bench::print_na(tag, "no_ember::InferenceMode_yet");
  } else {
    G guard;
    auto a = ember::ones({1});
    auto b = ember::ones({1});
    bench::print_time(tag, bench::measure([&] {
                        auto c = a.add(b);
                        bench::do_not_optimize(c);
                      }),
                      1e6, "us/call");
  }
}

template <class T>
void add_requires_grad(const bench::Tag& tag) {
  if constexpr (!ember_bench::has_autograd<T>::value) {
    bench::print_na(tag, "no_ember_autograd_yet");
  } else {
    T a = ember::ones({1}, ember::requires_grad());
    T b = ember::ones({1}, ember::requires_grad());
    bench::print_time(tag, bench::measure([&] {
                        T c = a.add(b);  // records the add node; c and its node die here
                        bench::do_not_optimize(c);
                      }),
                      1e6, "us/call");
  }
}

template <class T>
void chain10(const bench::Tag& tag) {
  bench::Tag per_op = tag;
  per_op.cas = "chain10_fwd_bwd_per_op";
  if constexpr (!ember_bench::has_autograd<T>::value) {
    bench::print_na(tag, "no_ember_autograd_yet");
    bench::print_na(per_op, "no_ember_autograd_yet");
  } else {
    T x = ember::full({}, 0.5, ember::requires_grad());
    T w = ember::full({}, 1.5, ember::requires_grad());
    auto iteration = [&] {
      T y = x * w;
      y = y + x;
      y = ember::sin(y);
      y = y * w;
      y = y - x;
      y = ember::tanh(y);
      y = y * y;
      y = y + w;
      y = ember::sigmoid(y);
      y = y * x;
      y.backward();
      x.mutable_grad().reset();
      w.mutable_grad().reset();
    };
    const auto t = bench::measure(iteration);
    bench::print_time(tag, t, 1e6, "us/iter");
    bench::print_time(per_op, t, 1e6 / 10, "us/op");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (bench::wants_list(argc, argv)) return bench::list(kCases), 0;
  if (argc != 3) bench::usage(argv[0], kCases);
  const std::string cas = argv[1];
  const auto threads = bench::parse_threads(argv[2]);
  bench_ember::apply_threads(threads);
  ember::manual_seed(0);
  const bench::Tag tag{"overhead", cas, threads.name, "ember"};

  if (cas == "add_1elem_nograd") {
    // requires_grad false, grad mode on (Ember without autograd: nothing to record anyway).
    auto a = ember::ones({1});
    auto b = ember::ones({1});
    bench::print_time(tag, bench::measure([&] {
                        auto c = a.add(b);
                        bench::do_not_optimize(c);
                      }),
                      1e6, "us/call");
    check_float(tag, a.add(b));
  } else if (cas == "add_1elem_inference_mode") {
    add_inference_mode<ember::InferenceMode>(tag);
  } else if (cas == "add_1elem_requires_grad") {
    add_requires_grad<ember::Tensor>(tag);
  } else if (cas == "chain10_fwd_bwd") {
    chain10<ember::Tensor>(tag);
  } else if (cas == "linear16_module_call" || cas == "linear16_functional") {
    linear16(tag, cas == "linear16_module_call");
  } else {
    bench::usage(argv[0], kCases);
  }
  return 0;
}
