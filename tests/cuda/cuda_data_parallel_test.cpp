// DataParallel on CUDA with the one GPU a lent machine has: replicas on {cuda:0, cuda:0} (the
// module's own device: parameters read in place) and on {cuda:0, cpu} (a replica on another
// device: the cached copies, refreshed by version, and gradients sent back), which is the path
// several GPUs take. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/parallel/data_parallel.h"

namespace cuda_data_parallel_test {

namespace nn = ember::nn;
using ember::Device;
using ember::Tensor;

void expect_close(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  ASSERT_EQ(got.device(), want.device()) << what;
  const double worst = (got - want).abs().max().item<double>();
  EXPECT_LE(worst, 1e-5 * (1 + want.abs().max().item<double>())) << what;
}

void check_devices(const std::vector<Device>& devices, const std::string& name) {
  SCOPED_TRACE(name);
  const Device gpu(ember::kCUDA, 0);
  ember::manual_seed(0);
  nn::Sequential model(nn::Linear(6, 8), nn::Tanh(), nn::Linear(8, 3));
  model->to(gpu);
  auto reference = std::dynamic_pointer_cast<nn::SequentialImpl>(model->clone());
  nn::parallel::DataParallel dp(model, nn::parallel::DataParallelOptions().device_ids(devices));
  ember::optim::SGD opt(dp->parameters(), 0.1);
  ember::optim::SGD ref_opt(reference->parameters(), 0.1);
  for (int step = 0; step < 2; ++step) {
    Tensor x = ember::randn({9, 6}).to(gpu);
    Tensor y = dp->forward(x);
    Tensor want = reference->forward(x);
    expect_close(y, want, "forward, step " + std::to_string(step));
    opt.zero_grad();
    ref_opt.zero_grad();
    y.square().sum().backward();
    want.square().sum().backward();
    for (const auto& item : reference->named_parameters())
      expect_close(model->named_parameters()[item.key()].grad(), item.value().grad(),
                   "grad of " + item.key());
    opt.step();
    ref_opt.step();
  }
}

TEST(CudaDataParallel, ReplicasOnTheModulesDeviceAndOnAnother) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Device gpu(ember::kCUDA, 0);
  check_devices({gpu, gpu}, "cuda:0 twice");
  check_devices({gpu, Device(ember::kCPU)}, "cuda:0 and the CPU");
}

}  // namespace cuda_data_parallel_test
