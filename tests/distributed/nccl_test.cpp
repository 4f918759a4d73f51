// The NCCL backend on one GPU (a one-rank job in this process): every collective runs on the
// device and DDP wraps a CUDA model. Skipped without a GPU (tools/gpu-check.sh runs it on one).
#include <gtest/gtest.h>

#include "ember/distributed/distributed.h"
#include "ember/nn/parallel/distributed.h"

namespace dist_nccl_test {

namespace dist = ember::distributed;
using ember::Tensor;

TEST(NcclBackend, OneRankCollectivesAndDdpOnTheGpu) {
  if (!dist::is_nccl_available()) GTEST_SKIP() << "this build has no NCCL";
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  dist::init_process_group("nccl", "tcp://127.0.0.1:0", 1, 0, std::chrono::seconds(60));
  EXPECT_EQ(dist::get_backend(), "nccl");
  const auto cuda = ember::TensorOptions().device(ember::kCUDA);
  Tensor t = ember::arange(6.0, cuda);
  dist::all_reduce(t, dist::ReduceOp::SUM);
  EXPECT_TRUE(ember::equal(t.cpu(), ember::arange(6.0)));
  dist::all_reduce(t, dist::ReduceOp::AVG);
  EXPECT_TRUE(ember::equal(t.cpu(), ember::arange(6.0)));
  dist::broadcast(t, 0);
  std::vector<Tensor> outs = {ember::zeros({6}, cuda)};
  dist::all_gather(outs, t);
  EXPECT_TRUE(ember::equal(outs[0].cpu(), ember::arange(6.0)));
  Tensor strided = ember::arange(12.0, cuda).view({3, 4}).t();  // non-contiguous
  dist::all_reduce(strided, dist::ReduceOp::MAX);
  EXPECT_TRUE(ember::equal(strided.cpu(), ember::arange(12.0).view({3, 4}).t()));
  dist::barrier();

  ember::manual_seed(0);
  ember::nn::Linear model(4, 3);
  model->to(ember::kCUDA);
  ember::nn::parallel::DistributedDataParallel ddp(model);
  Tensor x = ember::randn({5, 4}).to(ember::kCUDA);
  ddp->forward(x).sum().backward();
  Tensor expect = x.sum(0).view({1, 4}).expand({3, 4}).cpu();  // d sum(xW^T + b) / dW
  EXPECT_LT((model->weight.grad().cpu() - expect).abs().max().item<double>(), 1e-5);
  dist::destroy_process_group();
}

}  // namespace dist_nccl_test
