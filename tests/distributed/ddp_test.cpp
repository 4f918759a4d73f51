// DistributedDataParallel on 2 and 3 processes: after K steps each rank's parameters equal
// single-process training on the combined batch (plain, tiny buckets with gradients as bucket
// views, no_sync accumulation, unused parameters, the fp16 hook); rank 0's state reaches every
// rank; mismatched models are refused on every rank.
#include <gtest/gtest.h>

#include "ember/distributed/distributed.h"
#include "ember/nn/parallel/distributed.h"
#include "tests/distributed/harness.h"

namespace dist_ddp_test {

namespace dist = ember::distributed;
namespace nn = ember::nn;
using ember::Tensor;
using nn::parallel::DistributedDataParallel;
using nn::parallel::DistributedDataParallelOptions;

constexpr int kShard = 4;  // rows per rank
constexpr int kSteps = 3;

struct DdpNetImpl : nn::Module {
  explicit DdpNetImpl(int64_t in = 6) {
    fc1 = register_module("fc1", nn::Linear(in, 5));
    fc2 = register_module("fc2", nn::Linear(5, 3));
    head = register_module("head", nn::Linear(3, 2));  // used only with use_head
    register_buffer("marker", ember::zeros({2}));
  }
  Tensor forward(const Tensor& x) {
    Tensor h = fc2->forward(ember::relu(fc1->forward(x)));
    return use_head ? head->forward(h) : h;
  }
  nn::Linear fc1{nullptr}, fc2{nullptr}, head{nullptr};
  bool use_head = true;
};
EMBER_MODULE(DdpNet);

DdpNet make_net(uint64_t seed) {
  ember::manual_seed(seed);
  return DdpNet();
}

// The global batch of a step, the same on every rank; each rank trains on its shard.
std::pair<Tensor, Tensor> global_batch(int step, int world, int64_t outputs) {
  ember::manual_seed(1000 + static_cast<uint64_t>(step));
  Tensor x = ember::randn({world * kShard, 6});
  Tensor y = ember::randn({world * kShard, outputs});
  return {x, y};
}

Tensor shard(const Tensor& t, int rank) { return t.narrow(0, rank * kShard, kShard); }

void check_same_parameters(nn::Module& got, nn::Module& want, double tol, const std::string& what) {
  auto g = got.named_parameters();
  auto w = want.named_parameters();
  DIST_CHECK(g.size() == w.size(), "{}: {} vs {} parameters", what, g.size(), w.size());
  for (const auto& item : w) {
    const Tensor& a = g[item.key()];
    const Tensor& b = item.value();
    double worst = (a - b).abs().max().item<double>();
    double scale = 1 + b.abs().max().item<double>();
    DIST_CHECK(worst <= tol * scale, "{}: '{}' differs by {} (tolerance {})", what, item.key(),
               worst, tol * scale);
  }
}

// K steps of DDP on this rank's shards against K steps of one process on the whole batches.
void train_and_compare(const std::string& what, DistributedDataParallelOptions options,
                       nn::parallel::CommHook hook = nullptr, double tol = 1e-5) {
  const int rank = dist::get_rank(), world = dist::get_world_size();
  DdpNet local = make_net(static_cast<uint64_t>(rank));  // different on every rank...
  DistributedDataParallel ddp(local, options);           // ...until rank 0's is broadcast
  if (hook) ddp->register_comm_hook(hook);
  DdpNet reference = make_net(0);
  ember::optim::SGD opt(ddp->parameters(), ember::optim::SGDOptions(0.1).momentum(0.9));
  ember::optim::SGD ref_opt(reference->parameters(), ember::optim::SGDOptions(0.1).momentum(0.9));
  for (int step = 0; step < kSteps; ++step) {
    auto [x, y] = global_batch(step, world, 2);
    opt.zero_grad();
    ember::mse_loss(ddp->forward(shard(x, rank)), shard(y, rank)).backward();
    opt.step();
    ref_opt.zero_grad();
    ember::mse_loss(reference->forward(x), y).backward();
    ref_opt.step();
    if (step == 0) {
      // An evaluation forward between steps (on every rank: as in Python, each DDP forward may
      // broadcast buffers, so all ranks make it): the bucket rebuild waits for a forward that
      // syncs gradients, and training goes on unchanged.
      ember::NoGradGuard no_grad;
      ddp->forward(shard(x, rank));
    }
  }
  check_same_parameters(*local, *reference, tol, what);
}

EMBER_DIST_WORKER(ddp_training) {
  dist::init_process_group("gloo", "env://", -1, -1, std::chrono::seconds(60));
  const int rank = dist::get_rank(), world = dist::get_world_size();

  train_and_compare("default options", DistributedDataParallelOptions());
  // Buckets of ~20 bytes: one or two parameters each, so several reductions overlap backward;
  // the buckets are rebuilt after the first step.
  train_and_compare(
      "tiny buckets, gradient as bucket view",
      DistributedDataParallelOptions().bucket_cap_mb(2e-5).gradient_as_bucket_view(true));
  train_and_compare("fp16 compression hook", DistributedDataParallelOptions(),
                    nn::parallel::comm_hooks::fp16_compress_hook, 2e-3);

  {  // The bucket layout: tiny buckets hold few parameters; state_dict keys carry "module.".
    DistributedDataParallel ddp(make_net(0), DistributedDataParallelOptions().bucket_cap_mb(2e-5));
    DIST_CHECK(ddp->bucket_parameter_names().size() >= 4, "{} buckets",
               ddp->bucket_parameter_names().size());
    auto sd = ddp->state_dict();
    DIST_CHECK(sd.contains("module.fc1.weight") && sd.contains("module.marker"),
               "state_dict keys lack the module. prefix");
    DIST_CHECK(ddp->module<DdpNetImpl>() != nullptr, "module<T>() is null");
  }

  {  // Rank 0's buffers reach every rank at construction and before each forward.
    DdpNet net = make_net(static_cast<uint64_t>(rank));
    net->named_buffers()["marker"].fill_(static_cast<double>(rank + 1));
    DistributedDataParallel ddp(net);
    DIST_CHECK(net->named_buffers()["marker"][0].item<double>() == 1.0,
               "marker after construction");
    net->named_buffers()["marker"].fill_(static_cast<double>(rank + 7));
    ddp->forward(ember::zeros({2, 6}));
    DIST_CHECK(net->named_buffers()["marker"][0].item<double>() == 7.0, "marker after forward");
  }

  {  // no_sync: the first micro-batch accumulates locally, the second reduces the sum.
    DdpNet local = make_net(static_cast<uint64_t>(rank));
    DistributedDataParallel ddp(local);
    DdpNet reference = make_net(0);
    auto [x1, y1] = global_batch(10, world, 2);
    auto [x2, y2] = global_batch(11, world, 2);
    {
      auto guard = ddp->no_sync();
      ember::mse_loss(ddp->forward(shard(x1, rank)), shard(y1, rank)).backward();
    }
    // Without communication the local gradient is this shard's alone.
    ember::mse_loss(ddp->forward(shard(x2, rank)), shard(y2, rank)).backward();
    (ember::mse_loss(reference->forward(x1), y1) + ember::mse_loss(reference->forward(x2), y2))
        .backward();
    for (const auto& item : reference->named_parameters()) {
      const Tensor& g = local->named_parameters()[item.key()].grad();
      double worst = (g - item.value().grad()).abs().max().item<double>();
      DIST_CHECK(worst <= 1e-5, "no_sync: grad of '{}' differs by {}", item.key(), worst);
    }
  }

  {  // A parameter the forward does not use: with find_unused_parameters training goes on and
     // the unused head keeps no gradient; without it the next forward says what is missing.
    DdpNet local = make_net(static_cast<uint64_t>(rank));
    local->use_head = false;
    DistributedDataParallel ddp(local,
                                DistributedDataParallelOptions().find_unused_parameters(true));
    DdpNet reference = make_net(0);
    reference->use_head = false;
    ember::optim::SGD opt(ddp->parameters(), ember::optim::SGDOptions(0.1));
    ember::optim::SGD ref_opt(reference->parameters(), ember::optim::SGDOptions(0.1));
    for (int step = 0; step < kSteps; ++step) {
      auto [x, y] = global_batch(20 + step, world, 3);
      opt.zero_grad();
      ember::mse_loss(ddp->forward(shard(x, rank)), shard(y, rank)).backward();
      opt.step();
      ref_opt.zero_grad();
      ember::mse_loss(reference->forward(x), y).backward();
      ref_opt.step();
    }
    check_same_parameters(*local, *reference, 1e-5, "find_unused_parameters");
    DIST_CHECK(!local->head->weight.grad().defined(), "the unused head got a gradient");

    // static_graph finds the unused head once, in the first iteration, and keeps it.
    DdpNet fixed = make_net(static_cast<uint64_t>(rank));
    fixed->use_head = false;
    DistributedDataParallel fixed_ddp(fixed, DistributedDataParallelOptions().static_graph(true));
    DdpNet fixed_ref = make_net(0);
    fixed_ref->use_head = false;
    for (int step = 0; step < kSteps; ++step) {
      auto [x, y] = global_batch(40 + step, world, 3);
      fixed_ddp->zero_grad();
      ember::mse_loss(fixed_ddp->forward(shard(x, rank)), shard(y, rank)).backward();
      fixed_ref->zero_grad();
      ember::mse_loss(fixed_ref->forward(x), y).backward();
      for (const auto& item : fixed_ref->named_parameters()) {
        const Tensor& g = fixed->named_parameters()[item.key()].grad();
        DIST_CHECK(g.defined() == item.value().grad().defined(), "static_graph: '{}'", item.key());
        if (!g.defined()) continue;
        double worst = (g - item.value().grad()).abs().max().item<double>();
        DIST_CHECK(worst <= 1e-5, "static_graph: grad of '{}' differs by {}", item.key(), worst);
      }
    }

    DdpNet strict = make_net(0);
    strict->use_head = false;
    DistributedDataParallel strict_ddp(strict);
    auto [x, y] = global_batch(30, world, 3);
    ember::mse_loss(strict_ddp->forward(shard(x, rank)), shard(y, rank)).backward();
    bool refused = false;
    try {
      strict_ddp->forward(shard(x, rank));
    } catch (const ember::Error& e) {
      refused = std::string(e.what()).find("head.weight") != std::string::npos &&
                std::string(e.what()).find("find_unused_parameters(true)") != std::string::npos;
      DIST_CHECK(refused, "unexpected message: {}", e.what());
    }
    DIST_CHECK(refused, "the unfinished reduction was not reported");
  }

  {  // Different models on different ranks are refused on every rank.
    bool refused = false;
    try {
      DistributedDataParallel ddp(DdpNet(rank == 1 ? 7 : 6));
    } catch (const ember::ValueError& e) {
      const std::string msg = e.what();
      refused = msg.find(
                    "parameter 'fc1.weight' is [5, 7] float32 on rank 1 but [5, 6] "
                    "float32 on rank 0") != std::string::npos;
      DIST_CHECK(refused, "unexpected message: {}", msg);
    }
    DIST_CHECK(refused, "mismatched parameters were not detected");
  }
  dist::barrier();
  dist::destroy_process_group();
}

TEST(DistributedDataParallel, MatchesOneProcessOnTwoRanks) {
  dist_test::expect_ranks_ok(dist_test::run_ranks({"ddp_training", 2}));
}

TEST(DistributedDataParallel, MatchesOneProcessOnThreeRanks) {
  dist_test::expect_ranks_ok(dist_test::run_ranks({"ddp_training", 3}));
}

TEST(DistributedDataParallel, NeedsAProcessGroup) {
  try {
    DistributedDataParallel ddp(make_net(0));
    ADD_FAILURE() << "constructed without a process group";
  } catch (const dist::DistError& e) {
    EXPECT_NE(std::string(e.what()).find("init_process_group first"), std::string::npos);
  }
}

}  // namespace dist_ddp_test
