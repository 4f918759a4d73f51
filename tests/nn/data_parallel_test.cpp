// DataParallel over a list of CPU devices: the mechanics a multi-GPU run uses (split, replicas
// on threads, join, gradients summed into the module), checked against the module alone.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "ember/nn/parallel/data_parallel.h"
#include "tests/support/expect_error.h"

namespace data_parallel_test {

namespace nn = ember::nn;
using ember::Tensor;

struct DpNetImpl : nn::Cloneable<DpNetImpl> {
  DpNetImpl() {
    fc1 = register_module("fc1", nn::Linear(6, 8));
    fc2 = register_module("fc2", nn::Linear(8, 3));
  }
  Tensor forward(const Tensor& x) { return fc2->forward(ember::tanh(fc1->forward(x))); }
  nn::Linear fc1{nullptr}, fc2{nullptr};
};
EMBER_MODULE(DpNet);

std::vector<ember::Device> cpus(int n) { return std::vector<ember::Device>(n, ember::kCPU); }

void expect_close(const Tensor& a, const Tensor& b, double tol, const std::string& what) {
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  const double worst = (a - b).abs().max().item<double>();
  EXPECT_LE(worst, tol * (1 + b.abs().max().item<double>())) << what;
}

TEST(DataParallel, MatchesTheModuleForwardAndBackward) {
  ember::manual_seed(0);
  DpNet model;
  DpNet reference = std::dynamic_pointer_cast<DpNetImpl>(model->clone());
  nn::parallel::DataParallel dp(model, nn::parallel::DataParallelOptions().device_ids(cpus(3)));
  ember::optim::SGD opt(dp->parameters(), 0.1);
  ember::optim::SGD ref_opt(reference->parameters(), 0.1);
  for (int step = 0; step < 3; ++step) {
    Tensor x = ember::randn({10, 6});  // 4 + 3 + 3 rows
    Tensor y = dp->forward(x);
    Tensor want = reference->forward(x);
    expect_close(y, want, 1e-6, "forward");
    opt.zero_grad();
    ref_opt.zero_grad();
    y.square().sum().backward();
    want.square().sum().backward();
    for (const auto& item : reference->named_parameters())
      expect_close(model->named_parameters()[item.key()].grad(), item.value().grad(), 1e-5,
                   "grad of " + item.key());
    opt.step();
    ref_opt.step();
  }
  // The replicas were cloned once; on the module's own device they read its parameters in place.
  EXPECT_EQ(dp->clones(), 2);
  EXPECT_EQ(dp->parameter_refreshes(), 0);
  EXPECT_TRUE(dp->named_parameters().contains("module.fc1.weight"));
}

TEST(DataParallel, FewerRowsThanDevicesAndOtherDims) {
  ember::manual_seed(1);
  DpNet model;
  nn::parallel::DataParallel dp(model, nn::parallel::DataParallelOptions().device_ids(cpus(4)));
  Tensor x = ember::randn({2, 6});  // two replicas run
  expect_close(dp->forward(x), model->forward(x), 1e-6, "2 rows over 4 devices");
  // Split along dim 1 of a [5, 4, 6] input: Linear acts on the last dim, so the join is exact.
  nn::parallel::DataParallel dp1(model,
                                 nn::parallel::DataParallelOptions().device_ids(cpus(2)).dim(1));
  Tensor x3 = ember::randn({5, 4, 6});
  expect_close(dp1->forward(x3), model->forward(x3), 1e-6, "dim 1");
}

TEST(DataParallel, FunctionalFormAndErrors) {
  ember::manual_seed(2);
  DpNet model;
  Tensor x = ember::randn({6, 6});
  expect_close(nn::parallel::data_parallel(model, x, cpus(2)), model->forward(x), 1e-6,
               "data_parallel");
  nn::parallel::DataParallel dp(model, nn::parallel::DataParallelOptions().device_ids(cpus(2)));
  ember_test::expect_error([&] { dp->forward(ember::tensor(1.0)); }, {"0-dimensional"});
  // An error inside a replica's thread reaches the caller.
  ember_test::expect_error([&] { dp->forward(ember::randn({4, 5})); }, {"5"});
}

// Arguments other than one tensor: a vector of tensors (each split), a number (given to every
// replica), and a vector of tensors back (each joined).
struct PairNetImpl : nn::Cloneable<PairNetImpl> {
  PairNetImpl() { fc = register_module("fc", nn::Linear(6, 3)); }
  std::vector<Tensor> forward(const std::vector<Tensor>& ab, double scale) {
    Tensor h = fc->forward(ab[0]) * scale;
    return {h, h + ab[1]};
  }
  nn::Linear fc{nullptr};
};
EMBER_MODULE(PairNet);

TEST(DataParallel, VectorsOfTensorsAndOtherArguments) {
  ember::manual_seed(3);
  PairNet model;
  nn::parallel::DataParallel dp(model, nn::parallel::DataParallelOptions().device_ids(cpus(3)));
  std::vector<Tensor> ab = {ember::randn({7, 6}), ember::randn({7, 3})};
  auto got = dp->forward<std::vector<Tensor>>(ab, 0.5);
  auto want = model->forward(ab, 0.5);
  ASSERT_EQ(got.size(), 2u);
  expect_close(got[0], want[0], 1e-6, "first output");
  expect_close(got[1], want[1], 1e-6, "second output");
  (got[0].sum() + got[1].square().sum()).backward();
  Tensor g = model->fc->weight.grad().clone();
  model->zero_grad();
  (want[0].sum() + want[1].square().sum()).backward();
  expect_close(g, model->fc->weight.grad(), 1e-5, "gradient through vector outputs");
}

}  // namespace data_parallel_test
