// BENCHMARKS.md §5 "Attention alone" and §10 "Attention at length", Ember side (the same code as
// attention_torch.cpp, ember:: for torch::).
// §5: q, k, v [16, 4, 128, 64] ~ randn. manual = softmax(q·kᵀ/√64, -1)·v with matmul/softmax;
// sdpa = scaled_dot_product_attention(q, k, v) (LibTorch 1.13: the private
// _scaled_dot_product_attention, the same math). *_fwd under NoGradGuard; *_fwdbwd =
// out.backward(g) with q, k, v requiring grad, their grads reset after each repetition.
// §10: q, k, v [1, 8, L, 64]; longL_manual_fwd, longL_sdpa_fwd, longL_causal_sdpa_fwd (is_causal),
// longL_sdpa_fwdbwd, longL_causal_sdpa_fwdbwd (L = 4096, 8192), and long32768_causal_sdpa_fwd for
// the memory at a length the manual form cannot reach (8 x 32768² floats are 32 GiB).
// FlexAttention (§10; Ember only, LibTorch's C++ has none): flexL_dense_fwd (no block mask: every
// block read, the dense fused kernel of flex), flexL_causal_* (score_mod identity, causal
// block_mask, block 128), flexL_window_* (causal sliding window of 256), against longL_sdpa_fwd
// (SDPA's dense fused kernel) and longL_causal_sdpa_fwd.
// Reported in ms per call; the info line adds peak_mib = the process's peak resident memory
// (VmHWM) minus its resident memory once the inputs exist: what one call needed beyond them.
// The check: the output against manual's, max |diff| / max |manual| < 1e-4 (§5 shapes only; at
// length the manual form would need the memory being measured).
// Usage: attention_ember <case> <threads>; --list prints the cases.
#include "ember/ember.h"
#include "ember/nn/attention/flex_attention.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "bench_timer.h"
#include "ember_threads.h"

namespace {

const std::vector<std::string> kCases = {"manual_fwd",
                                         "manual_fwdbwd",
                                         "sdpa_fwd",
                                         "sdpa_fwdbwd",
                                         "long4096_manual_fwd",
                                         "long4096_sdpa_fwd",
                                         "long4096_causal_sdpa_fwd",
                                         "long4096_sdpa_fwdbwd",
                                         "long4096_causal_sdpa_fwdbwd",
                                         "long8192_manual_fwd",
                                         "long8192_sdpa_fwd",
                                         "long32768_causal_sdpa_fwd",
                                         "flex4096_dense_fwd",
                                         "flex4096_causal_fwd",
                                         "flex4096_window_fwd",
                                         "flex4096_causal_fwdbwd",
                                         "flex4096_window_fwdbwd"};

/// A field of /proc/self/status in MiB (VmRSS, VmHWM).
double status_mib(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string key;
  double kb = 0;
  while (f >> key) {
    if (key == std::string(field) + ":") {
      f >> kb;
      return kb / 1024.0;
    }
    f.ignore(1 << 20, '\n');
  }
  return 0;
}

ember::Tensor manual(const ember::Tensor& q, const ember::Tensor& k, const ember::Tensor& v,
                     bool causal) {
  auto s = ember::matmul(q, k.transpose(-2, -1)) / std::sqrt(double(q.size(-1)));
  if (causal) {
    const auto keep = ember::ones({q.size(-2), k.size(-2)}, ember::kBool).tril();
    s = s.masked_fill(keep.logical_not(), -INFINITY);
  }
  return ember::softmax(s, -1).matmul(v);
}

}  // namespace

int main(int argc, char** argv) {
  if (bench::wants_list(argc, argv)) return bench::list(kCases), 0;
  if (argc != 3) bench::usage(argv[0], kCases);
  const std::string cas = argv[1];
  if (std::find(kCases.begin(), kCases.end(), cas) == kCases.end()) bench::usage(argv[0], kCases);
  const auto threads = bench::parse_threads(argv[2]);
  bench_ember::apply_threads(threads);
  ember::manual_seed(0);
  const bench::Tag tag{"attention", cas, threads.name, "ember"};

  const bool flex = cas.rfind("flex", 0) == 0;
  const bool at_length = flex || cas.rfind("long", 0) == 0;
  const int64_t L = at_length ? std::stoll(cas.substr(4)) : 128;
  const std::vector<int64_t> shape =
      at_length ? std::vector<int64_t>{1, 8, L, 64} : std::vector<int64_t>{16, 4, 128, 64};
  const bool causal = cas.find("causal") != std::string::npos;
  const bool use_manual = cas.find("manual") != std::string::npos;
  const bool backward = cas.find("fwdbwd") != std::string::npos;
  auto q = ember::randn(shape), k = ember::randn(shape), v = ember::randn(shape);
  const auto g = ember::randn(shape);
  namespace fa = ember::nn::attention;
  std::optional<fa::BlockMask> block_mask;  // built once, as a training loop would
  if (flex && causal) {
    auto mask = [](int64_t, int64_t, int64_t qi, int64_t kv) { return qi >= kv; };
    block_mask = fa::create_block_mask(mask, std::nullopt, std::nullopt, L, L);
  } else if (flex && cas.find("window") != std::string::npos) {
    auto mask = [](int64_t, int64_t, int64_t qi, int64_t kv) { return qi >= kv && qi - kv < 256; };
    block_mask = fa::create_block_mask(mask, std::nullopt, std::nullopt, L, L);
  }
  auto identity = [](auto score, int64_t, int64_t, int64_t, int64_t) { return score; };
  auto run = [&] {
    if (flex) return fa::flex_attention(q, k, v, identity, block_mask);
    return use_manual ? manual(q, k, v, causal)
                      : ember::scaled_dot_product_attention(q, k, v, {}, 0.0, causal);
  };

  // Before anything runs: what the check's own temporaries take counts too, as the allocator
  // may keep them.
  const double base_mib = status_mib("VmRSS");
  double rel_err = 0;
  if (!at_length) {
    ember::NoGradGuard no_grad;
    const auto ref = manual(q, k, v, causal);
    rel_err = (run() - ref).abs().max().item<double>() / ref.abs().max().item<double>();
  }
  const int reps = bench::reps_or(at_length ? 3 : 11);
  bench::Timing t;
  if (backward) {
    for (auto* x : {&q, &k, &v}) x->set_requires_grad(true);
    t = bench::measure(
        [&] {
          run().backward(g);
          for (auto* x : {&q, &k, &v}) x->mutable_grad() = ember::Tensor();
        },
        reps);
  } else {
    ember::NoGradGuard no_grad;
    t = bench::measure([&] { bench::do_not_optimize(run()); }, reps);
  }
  const double peak_mib = status_mib("VmHWM") - base_mib;
  bench::print_time(tag, t, 1e3, "ms");
  const bool ok = rel_err < 1e-4;
  bench::print_info(tag, std::string("check=") + (ok ? "pass" : "FAIL") +
                             bench::format(" rel_err=%.3g peak_mib=%.1f", rel_err, peak_mib));
  return ok ? 0 : 1;
}
