// The fused optimizer updates on CUDA (kernels/cuda/optim_kernels.cu) against the CPU ones: for
// every optimizer with a fused row, the same parameters and gradients on both devices, eight
// steps (RAdam rectifies from the sixth), then the parameters compared (within rounding: nvcc
// contracts a*b+c into FMAs, so the bits may differ). Many small parameters make one multi-tensor
// call; a large one spans many blocks; empty and 0-dim ones ride along. float32, float64 and the
// 16-bit types.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "ember/ember.h"
#include "tests/cuda/cuda_test_util.h"

namespace {

using ember::Tensor;
using ember_cuda_test::expect_close_scaled;
using ember_cuda_test::Tol;
namespace eo = ember::optim;

const std::vector<std::vector<int64_t>> kShapes = {{7, 5}, {130}, {}, {0}, {3, 1, 4}, {70001}};

// Per step, errors of a few ulps of the parameter's type; Adam-like divisions by sqrt(v) + eps
// grow them a little over the steps.
Tol optim_tolerance(ember::ScalarType t) {
  switch (t) {
    case ember::kDouble:
      return {1e-11, 1e-13};
    case ember::kFloat:
      return {1e-5, 1e-6};
    case ember::kHalf:
      return {4e-3, 2e-3};
    default:
      return {3e-2, 2e-2};
  }
}

// Runs `steps` steps of Opt(options) over equal parameters on the CPU and on CUDA, with equal
// gradients, and compares the parameters after each step.
template <class Opt, class Options>
void expect_cuda_matches_cpu(const Options& options, const std::string& label) {
  for (ember::ScalarType dtype : ember_cuda_test::float_dtypes()) {
    const std::string what = label + " " + std::string(ember::toString(dtype));
    ember::manual_seed(7);
    std::vector<Tensor> cpu, gpu;
    for (const auto& s : kShapes) {
      Tensor p = ember::randn(s, ember::TensorOptions().dtype(dtype));
      cpu.push_back(p.clone());
      gpu.push_back(p.to(ember::Device(ember::kCUDA, 0)));
    }
    Opt cpu_opt(cpu, options), gpu_opt(gpu, options);
    for (int step = 0; step < 8; ++step) {
      for (size_t i = 0; i < cpu.size(); ++i) {
        const Tensor g = ember::randn(kShapes[i], ember::TensorOptions().dtype(dtype));
        cpu[i].mutable_grad() = g.clone();
        gpu[i].mutable_grad() = g.to(ember::Device(ember::kCUDA, 0));
      }
      cpu_opt.step();
      gpu_opt.step();
      for (size_t i = 0; i < cpu.size(); ++i)
        expect_close_scaled(cpu[i].detach(), gpu[i].detach(),
                            what + " step " + std::to_string(step) + " param " + std::to_string(i),
                            optim_tolerance(dtype));
    }
  }
}

class CudaOptim : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(CudaOptim, SgdMatchesCpu) {
  using eo::SGDOptions;
  expect_cuda_matches_cpu<eo::SGD>(SGDOptions(0.1), "SGD");
  expect_cuda_matches_cpu<eo::SGD>(SGDOptions(0.1).momentum(0.9).dampening(0.3).weight_decay(0.01),
                                   "SGD momentum");
  expect_cuda_matches_cpu<eo::SGD>(SGDOptions(0.1).momentum(0.9).nesterov(true).maximize(true),
                                   "SGD nesterov maximize");
}

TEST_F(CudaOptim, AdamAndAdamWMatchCpu) {
  using eo::AdamOptions;
  expect_cuda_matches_cpu<eo::Adam>(AdamOptions(1e-2), "Adam");
  expect_cuda_matches_cpu<eo::Adam>(AdamOptions(1e-2).amsgrad(true).weight_decay(0.1),
                                    "Adam amsgrad");
  expect_cuda_matches_cpu<eo::AdamW>(eo::AdamWOptions(1e-2).weight_decay(0.1).amsgrad(true),
                                     "AdamW amsgrad");
}

TEST_F(CudaOptim, AdagradRmspropAdadeltaAdamaxMatchCpu) {
  expect_cuda_matches_cpu<eo::Adagrad>(
      eo::AdagradOptions(0.1).lr_decay(0.1).weight_decay(0.1).initial_accumulator_value(0.5),
      "Adagrad");
  expect_cuda_matches_cpu<eo::RMSprop>(eo::RMSpropOptions(0.01), "RMSprop");
  expect_cuda_matches_cpu<eo::RMSprop>(
      eo::RMSpropOptions(0.01).centered(true).momentum(0.9).weight_decay(0.1), "RMSprop centered");
  expect_cuda_matches_cpu<eo::Adadelta>(eo::AdadeltaOptions(1.0).weight_decay(0.1), "Adadelta");
  expect_cuda_matches_cpu<eo::Adamax>(eo::AdamaxOptions(2e-3).weight_decay(0.1).maximize(true),
                                      "Adamax");
}

TEST_F(CudaOptim, NadamAndRadamMatchCpu) {
  expect_cuda_matches_cpu<eo::NAdam>(eo::NAdamOptions(2e-3).weight_decay(0.1), "NAdam");
  expect_cuda_matches_cpu<eo::RAdam>(eo::RAdamOptions(1e-3).weight_decay(0.1), "RAdam");
}

}  // namespace
