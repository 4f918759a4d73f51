// The GPU side of the benchmarks: shared/BENCHMARKS.md's workloads (per-op overhead, elementwise
// and sum over 16 Mi floats, float32 mm at n = 64 ... 2048, §4's Conv2d layers, §5(b)'s LeNet
// training step with SGD) plus bmm and host<->device copies, on the first CUDA device. One source
// for both libraries, since Ember's API is LibTorch's: built against Ember by CMake (target
// ember_compare_cuda), and against LibTorch with -DBENCH_LIB_TORCH by
// benchmarks/compare/run_cuda.py, which runs the two and prints the ratios.
//
// Timing is bench_timer.h's method; a call only enqueues work on the GPU, so each repetition ends
// with cuda::synchronize() inside the timed span (over >= 0.2 s of calls, its cost is noise).
// After timing, each result is compared with the same op on the CPU (an INFO check=... line), so
// a fast wrong kernel shows. Without a CUDA device every case prints `NA ... reason=no_cuda_device`
// and the program exits 0.
//
// Usage: <program> <case> gpu      --list prints the cases.
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#ifdef BENCH_LIB_TORCH
#include <torch/torch.h>
namespace lib = torch;
#define BENCH_LIB_NAME "libtorch"
#else
#include <ember/ember.h>
namespace lib = ember;
#define BENCH_LIB_NAME "ember"
#endif

#include "bench_timer.h"

namespace {

constexpr int64_t kN = int64_t{1} << 24;   // elementwise and sum: 16 Mi floats, 64 MiB a tensor
constexpr double kTensorBytes = 4.0 * kN;  //
const std::vector<int64_t> kMmSizes = {64, 128, 256, 512, 1024, 2048};

using Tensor = lib::Tensor;

/// An elementwise workload: `<name>_alloc` times alloc(a, b) (a fresh output per call),
/// `<name>_out` times out(o, a, b) into one preallocated output; both are checked against alloc on
/// the CPU. Unary ops ignore b.
struct Elementwise {
  double tensors_moved;  // read + written, 64 MiB each
  Tensor (*alloc)(const Tensor& a, const Tensor& b);
  void (*out)(Tensor& o, const Tensor& a, const Tensor& b);
};
const std::map<std::string, Elementwise> kElementwise = {
    {"add",
     {3, [](const Tensor& a, const Tensor& b) { return a + b; },
      [](Tensor& o, const Tensor& a, const Tensor& b) { lib::add_out(o, a, b); }}},
    {"relu",
     {2, [](const Tensor& a, const Tensor&) { return lib::relu(a); },
      [](Tensor& o, const Tensor& a, const Tensor&) { lib::clamp_min_out(o, a, 0); }}},
    {"gelu",
     {2, [](const Tensor& a, const Tensor&) { return lib::gelu(a); },
      [](Tensor& o, const Tensor& a, const Tensor&) { lib::gelu_out(o, a); }}},
    {"exp",
     {2, [](const Tensor& a, const Tensor&) { return lib::exp(a); },
      [](Tensor& o, const Tensor& a, const Tensor&) { lib::exp_out(o, a); }}},
};

std::vector<std::string> cases() {
  std::vector<std::string> c = {"add_1elem", "add_1elem_sync"};
  for (const auto& [name, e] : kElementwise) {
    c.push_back(name + "_alloc");
    c.push_back(name + "_out");
  }
  for (const char* other : {"sum", "copy_d2d", "copy_h2d", "copy_d2h", "bmm_64x256"})
    c.push_back(other);
  for (int64_t n : kMmSizes) c.push_back("mm_" + std::to_string(n));
  for (const char* conv : {"conv_L1_fwd", "conv_L1_fwdbwd", "conv_L2_fwd", "conv_L2_fwdbwd"})
    c.push_back(conv);
  c.push_back("lenet_sgd");
  return c;
}

bool records_gradients(const std::string& cas) {
  return cas.rfind("conv_", 0) == 0 || cas == "lenet_sgd";
}

lib::Tensor on_gpu(const lib::Tensor& cpu) { return cpu.to(lib::Device(lib::kCUDA, 0)); }
lib::Tensor on_cpu(const lib::Tensor& t) { return t.to(lib::Device(lib::kCPU)); }
void sync() { lib::cuda::synchronize(); }

/// Whether the GPU result matches the CPU one; prints the INFO line either way.
bool check(const bench::Tag& tag, const lib::Tensor& gpu_result, const lib::Tensor& cpu_result,
           double rtol, double atol) {
  const lib::Tensor got = on_cpu(gpu_result).to(lib::kDouble);
  const lib::Tensor want = cpu_result.to(lib::kDouble);
  const bool ok = got.sizes() == want.sizes() && lib::allclose(got, want, rtol, atol);
  const double err = got.sizes() == want.sizes() ? (got - want).abs().max().item<double>() : -1.0;
  bench::print_info(tag, std::string("check=") + (ok ? "pass" : "FAIL") +
                             bench::format(" max_abs_err=%.3g", err));
  return ok;
}

int run(const std::string& cas, const bench::Tag& tag) {
  lib::manual_seed(0);
  auto rate = [&](auto&& fn, double work, double scale, const char* unit) {
    bench::print_rate(tag, bench::measure(fn, 11, sync), work, scale, unit);
  };
  const double gb = 1e9;

  if (cas == "add_1elem" || cas == "add_1elem_sync") {
    // Per-op cost of a 1-element add: enqueue only (the host's dispatch + launch), or a full
    // round trip (launch, run, synchronise).
    const lib::Tensor a = on_gpu(lib::randn({1})), b = on_gpu(lib::randn({1}));
    lib::Tensor last;
    const bool round_trip = cas == "add_1elem_sync";
    const bench::Timing t = bench::measure(
        [&] {
          last = a + b;
          if (round_trip) sync();
        },
        11, sync);
    bench::print_time(tag, t, 1e6, "us");
    return check(tag, last, on_cpu(a) + on_cpu(b), 1e-6, 1e-6) ? 0 : 1;
  }

  if (cas == "copy_h2d" || cas == "copy_d2h") {
    const lib::Tensor host = lib::randn({kN});
    const lib::Tensor device = on_gpu(host);
    lib::Tensor last;
    if (cas == "copy_h2d") {
      rate([&] { last = on_gpu(host); }, kTensorBytes, gb, "GB/s");
    } else {
      rate([&] { last = on_cpu(device); }, kTensorBytes, gb, "GB/s");
    }
    return check(tag, last, host, 0, 0) ? 0 : 1;
  }

  if (cas.rfind("mm_", 0) == 0 || cas == "bmm_64x256") {
    const bool batched = cas == "bmm_64x256";
    const int64_t n = batched ? 256 : std::stoll(cas.substr(3));
    const std::vector<int64_t> shape =
        batched ? std::vector<int64_t>{64, n, n} : std::vector<int64_t>{n, n};
    const lib::Tensor ha = lib::rand(shape), hb = lib::rand(shape);
    const lib::Tensor a = on_gpu(ha), b = on_gpu(hb);
    lib::Tensor last;
    const double flops = 2.0 * n * n * n * (batched ? 64 : 1);
    if (batched) {
      rate([&] { last = lib::bmm(a, b); }, flops, 1e9, "GFLOP/s");
    } else {
      rate([&] { last = lib::mm(a, b); }, flops, 1e9, "GFLOP/s");
    }
    // float32 products of U[0,1) values over k = n terms: both sides round differently.
    const lib::Tensor ref = batched ? lib::bmm(ha.to(lib::kDouble), hb.to(lib::kDouble))
                                    : lib::mm(ha.to(lib::kDouble), hb.to(lib::kDouble));
    return check(tag, last, ref, 1e-4, 1e-3) ? 0 : 1;
  }

  const lib::Tensor ha = lib::randn({kN}), hb = lib::randn({kN});
  const lib::Tensor a = on_gpu(ha), b = on_gpu(hb);
  lib::Tensor out = on_gpu(lib::empty({kN}));
  lib::Tensor last;
  lib::Tensor ref;
  const size_t form_at = cas.rfind('_');
  const auto op = kElementwise.find(cas.substr(0, form_at));
  const std::string form = form_at == std::string::npos ? "" : cas.substr(form_at + 1);
  if (op != kElementwise.end() && (form == "alloc" || form == "out")) {
    const Elementwise& e = op->second;
    const double bytes = e.tensors_moved * kTensorBytes;
    if (form == "alloc") {
      rate([&] { last = e.alloc(a, b); }, bytes, gb, "GB/s");
    } else {
      rate([&] { e.out(out, a, b); }, bytes, gb, "GB/s");
      last = out;
    }
    ref = e.alloc(ha, hb);  // the same op on the CPU copies
  } else if (cas == "copy_d2d") {
    // The bandwidth roofline the memory-bound cases are read against.
    rate([&] { out.copy_(a); }, 2 * kTensorBytes, gb, "GB/s");
    last = out, ref = ha;
  } else if (cas == "sum") {
    rate([&] { last = a.sum(); }, kTensorBytes, gb, "GB/s");
    // float32 sums of 16 Mi terms in different orders: compare against the float64 sum with a
    // tolerance of sqrt(N) * 1e-3, as the CPU elementwise workload does.
    return check(tag, last, ha.to(lib::kDouble).sum(), 0, 1e-3 * std::sqrt(double(kN))) ? 0 : 1;
  } else {
    return 2;
  }
  return check(tag, last, ref, 1e-5, 1e-6) ? 0 : 1;
}

/// §4: one Conv2d(Cin, Cout, 3, padding 1) on x[32, Cin, H, W]; fwd, or fwd+bwd with a fixed
/// output gradient (grads reset to undefined each time). Checked against the same layer on the CPU
/// (cuDNN runs float32 without TF32, so the two agree to float32 rounding).
int run_conv(const std::string& cas, const bench::Tag& tag) {
  lib::manual_seed(0);
  const bool l1 = cas.find("_L1_") != std::string::npos;
  const bool backward = cas.find("fwdbwd") != std::string::npos;
  const int64_t cin = l1 ? 3 : 64, cout = l1 ? 64 : 128, hw = l1 ? 32 : 16;
  lib::nn::Conv2d cpu_conv(lib::nn::Conv2dOptions(cin, cout, 3).padding(1));
  lib::nn::Conv2d conv(lib::nn::Conv2dOptions(cin, cout, 3).padding(1));
  {
    lib::NoGradGuard no_grad;
    conv->weight.copy_(cpu_conv->weight);
    conv->bias.copy_(cpu_conv->bias);
  }
  conv->to(lib::Device(lib::kCUDA, 0));
  const lib::Tensor hx = lib::randn({32, cin, hw, hw}), hg = lib::randn({32, cout, hw, hw});
  lib::Tensor x = on_gpu(hx);
  const lib::Tensor g = on_gpu(hg);
  const double fwd_flops = 2.0 * 32 * cout * hw * hw * cin * 9;
  lib::Tensor last;
  bench::Timing t;
  if (backward) {
    x.set_requires_grad(true);
    t = bench::measure(
        [&] {
          lib::Tensor y = conv->forward(x);
          y.backward(g);
          last = x.grad();
          x.mutable_grad() = lib::Tensor();
          for (auto& p : conv->parameters()) p.mutable_grad() = lib::Tensor();
        },
        11, sync);
  } else {
    lib::NoGradGuard no_grad;
    t = bench::measure([&] { last = conv->forward(x); }, 11, sync);
  }
  bench::print_rate(tag, t, backward ? 3 * fwd_flops : fwd_flops, 1e9, "GFLOP/s");
  lib::Tensor ref;
  if (backward) {
    const lib::Tensor cx = hx.clone().set_requires_grad(true);
    cpu_conv->forward(cx).backward(hg);
    ref = cx.grad();
  } else {
    lib::NoGradGuard no_grad;
    ref = cpu_conv->forward(hx);
  }
  // Sums of Cin*9 (fwd) or Cout*9 (bwd data) float32 products of O(1) terms.
  return check(tag, last, ref, 1e-4, 1e-4) ? 0 : 1;
}

/// The §5(b) LeNet-style CNN with each library's default initialisation.
lib::nn::Sequential lenet() {
  namespace nn = lib::nn;
  return nn::Sequential(
      nn::Conv2d(nn::Conv2dOptions(1, 32, 5)), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2)),
      nn::Conv2d(nn::Conv2dOptions(32, 64, 5)), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2)),
      nn::Flatten(), nn::Linear(1024, 128), nn::ReLU(), nn::Linear(128, 10));
}

/// §5(b) with SGD(0.01, momentum 0.9), in us per step. Checked: three steps from the same start on
/// the GPU and on the CPU end at the same parameters (float32 rounding apart).
int run_lenet(const bench::Tag& tag) {
  const lib::Device gpu(lib::kCUDA, 0);
  lib::manual_seed(0);
  const lib::Tensor hx = lib::randn({64, 1, 28, 28});
  const lib::Tensor hlabels = lib::randint(0, 10, {64}, lib::TensorOptions().dtype(lib::kLong));
  auto steps = [&](lib::nn::Sequential& model, const lib::Tensor& x, const lib::Tensor& labels,
                   int n, bool timed) {
    lib::optim::SGD opt(model->parameters(), lib::optim::SGDOptions(0.01).momentum(0.9));
    auto step = [&] {
      opt.zero_grad();
      lib::Tensor loss = lib::nn::functional::cross_entropy(model->forward(x), labels);
      loss.backward();
      opt.step();
    };
    if (timed) return bench::print_time(tag, bench::measure(step, 11, sync), 1e6, "us");
    for (int i = 0; i < n; ++i) step();
  };
  lib::manual_seed(1);
  lib::nn::Sequential cpu_model = lenet();
  lib::nn::Sequential gpu_model = lenet();
  {
    lib::NoGradGuard no_grad;
    const auto src = cpu_model->parameters();
    auto dst = gpu_model->parameters();
    for (size_t i = 0; i < src.size(); ++i) dst[i].copy_(src[i]);
  }
  gpu_model->to(gpu);
  const lib::Tensor x = on_gpu(hx), labels = on_gpu(hlabels);
  steps(gpu_model, x, labels, 3, false);
  steps(cpu_model, hx, hlabels, 3, false);
  bool ok = true;
  const auto want = cpu_model->parameters();
  const auto got = gpu_model->parameters();
  for (size_t i = 0; i < want.size(); ++i) ok = check(tag, got[i], want[i], 1e-3, 1e-4) && ok;
  lib::nn::Sequential timed_model = lenet();
  timed_model->to(gpu);
  steps(timed_model, x, labels, 0, true);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> all = cases();
  if (bench::wants_list(argc, argv)) return bench::list(all), 0;
  if (argc != 3) bench::usage(argv[0], all);
  const bench::Tag tag{"cuda", argv[1], argv[2], BENCH_LIB_NAME};
  if (!lib::cuda::is_available()) {
    bench::print_na(tag, "no_cuda_device");
    return 0;
  }
  if (records_gradients(argv[1]))
    return std::string(argv[1]) == "lenet_sgd" ? run_lenet(tag) : run_conv(argv[1], tag);
  lib::NoGradGuard no_grad;
  const int rc = run(argv[1], tag);
  if (rc == 2) bench::usage(argv[0], all);
  return rc;
}
