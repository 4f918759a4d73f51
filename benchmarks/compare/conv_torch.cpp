// BENCHMARKS.md §4, Conv2d, LibTorch side (the same code as conv_ember.cpp, torch:: for ember::).
// nn::Conv2d(Conv2dOptions(Cin, Cout, 3).padding(1)), stride 1, bias, default init, NCHW, batch 32,
// input ~ randn: L1 x[32,3,32,32] -> y[32,64,32,32]; L2 x[32,64,16,16] -> y[32,128,16,16].
// fwd: conv(x) under NoGradGuard. fwdbwd: x requires grad, y = conv(x), y.backward(g) with a fixed
// g ~ randn of y's shape, then the grads of x, weight and bias reset to undefined. Reported in
// GFLOP/s (fwd = 2·N·Cout·H·W·Cin·9, fwdbwd = 3 x fwd). The check: 64 output elements against a
// float64 sum computed here from x and the weight (max |err| / max |ref| < 1e-4).
// Usage: conv_torch <case> <threads>; --list prints the cases (L1_fwd L1_fwdbwd L2_fwd L2_fwdbwd).
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bench_timer.h"
#include "torch_threads.h"

namespace {

const std::vector<std::string> kCases = {"L1_fwd", "L1_fwdbwd", "L2_fwd", "L2_fwdbwd"};

struct ConvShape {
  int64_t cin, cout, hw;
};

/// Max |y - ref| / max |ref| over 64 spread output elements, ref summed in double from x and the
/// weight (3x3, padding 1, stride 1).
double conv_check(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b,
                  const torch::Tensor& y) {
  const auto xc = x.contiguous(), wc = w.contiguous(), yc = y.contiguous();
  const float* px = xc.data_ptr<float>();
  const float* pw = wc.data_ptr<float>();
  const float* pb = b.data_ptr<float>();
  const float* py = yc.data_ptr<float>();
  const int64_t n = x.size(0), cin = x.size(1), h = x.size(2), wd = x.size(3), cout = w.size(0);
  double max_err = 0, max_ref = 0;
  for (int64_t s = 0; s < 64; ++s) {
    const int64_t in = (s * 7) % n, co = (s * 13) % cout, oh = (s * 5) % h, ow = (s * 11) % wd;
    double ref = pb[co];
    for (int64_t ci = 0; ci < cin; ++ci)
      for (int64_t kh = 0; kh < 3; ++kh)
        for (int64_t kw = 0; kw < 3; ++kw) {
          const int64_t ih = oh + kh - 1, iw = ow + kw - 1;
          if (ih < 0 || ih >= h || iw < 0 || iw >= wd) continue;
          ref += double(px[((in * cin + ci) * h + ih) * wd + iw]) *
                 double(pw[((co * cin + ci) * 3 + kh) * 3 + kw]);
        }
    const double got = py[((in * cout + co) * h + oh) * wd + ow];
    max_err = std::max(max_err, std::abs(got - ref));
    max_ref = std::max(max_ref, std::abs(ref));
  }
  return max_err / std::max(max_ref, 1e-30);
}

}  // namespace

int main(int argc, char** argv) {
  if (bench::wants_list(argc, argv)) return bench::list(kCases), 0;
  if (argc != 3) bench::usage(argv[0], kCases);
  const std::string cas = argv[1];
  if (std::find(kCases.begin(), kCases.end(), cas) == kCases.end()) bench::usage(argv[0], kCases);
  const auto threads = bench::parse_threads(argv[2]);
  bench_torch::apply_threads(threads);
  torch::manual_seed(0);
  const bench::Tag tag{"conv", cas, threads.name, "libtorch"};

  const ConvShape s = cas.rfind("L1", 0) == 0 ? ConvShape{3, 64, 32} : ConvShape{64, 128, 16};
  const bool backward = cas.find("fwdbwd") != std::string::npos;
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(s.cin, s.cout, 3).padding(1));
  auto x = torch::randn({32, s.cin, s.hw, s.hw});
  const auto g = torch::randn({32, s.cout, s.hw, s.hw});
  const double fwd_flops = 2.0 * 32 * s.cout * s.hw * s.hw * s.cin * 9;

  double rel_err = 0;
  {
    torch::NoGradGuard no_grad;
    rel_err = conv_check(x, conv->weight, conv->bias, conv->forward(x));
  }
  bench::Timing t;
  if (backward) {
    x.set_requires_grad(true);
    t = bench::measure(
        [&] {
          auto y = conv->forward(x);
          y.backward(g);
          x.mutable_grad() = torch::Tensor();
          for (auto& p : conv->parameters()) p.mutable_grad() = torch::Tensor();
        },
        11);
  } else {
    torch::NoGradGuard no_grad;
    t = bench::measure([&] { bench::do_not_optimize(conv->forward(x)); }, 11);
  }
  bench::print_rate(tag, t, backward ? 3 * fwd_flops : fwd_flops, 1e9, "GFLOP/s");
  const bool ok = rel_err < 1e-4;
  bench::print_info(tag, std::string("check=") + (ok ? "pass" : "FAIL") +
                             bench::format(" rel_err=%.3g ms=%.4g", rel_err, t.median * 1e3) +
                             " version=" + bench_torch::version());
  return ok ? 0 : 1;
}
