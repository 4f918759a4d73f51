// BENCHMARKS.md §5(a) and §5(b), one training step of an MLP or a LeNet-style CNN, LibTorch side
// (the same code as train_step_ember.cpp, torch:: for ember::). Linear 784->512, ReLU, Linear
// 512->256, ReLU, Linear 256->10 (default init); x [64, 784] ~ randn and labels [64] ~ U{0..9},
// created once; one step = zero_grad, forward, cross_entropy (mean), backward, opt.step(). §5(b):
// Conv 1->32 5x5, ReLU, MaxPool 2, Conv 32->64 5x5, ReLU, MaxPool 2, flatten (1024), Linear
// 1024->128, ReLU, Linear 128->10 on x [64, 1, 28, 28] ~ randn. Cases: mlp_sgd, lenet_sgd (SGD lr
// 0.01, momentum 0.9), mlp_adam, lenet_adam (Adam lr 1e-3, betas 0.9/0.999, eps 1e-8). Reported in
// ms per step, 5 timed repetitions. The check: the first loss is near ln(10) (a default-initialised
// classifier on 10 classes) and the loss after the timed steps is lower.
// Usage: train_step_torch <case> <threads>; --list prints the cases.
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "bench_timer.h"
#include "torch_threads.h"

namespace {

const std::vector<std::string> kCases = {"mlp_sgd", "mlp_adam", "lenet_sgd", "lenet_adam"};

/// The §5(a) MLP with each library's default initialisation.
torch::nn::Sequential train_step_mlp() {
  return torch::nn::Sequential(torch::nn::Linear(784, 512), torch::nn::ReLU(),
                               torch::nn::Linear(512, 256), torch::nn::ReLU(),
                               torch::nn::Linear(256, 10));
}

/// The §5(b) LeNet-style CNN with each library's default initialisation.
torch::nn::Sequential train_step_lenet() {
  namespace nn = torch::nn;
  return nn::Sequential(
      nn::Conv2d(nn::Conv2dOptions(1, 32, 5)), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2)),
      nn::Conv2d(nn::Conv2dOptions(32, 64, 5)), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2)),
      nn::Flatten(), nn::Linear(1024, 128), nn::ReLU(), nn::Linear(128, 10));
}

bool train_step_is_lenet(const std::string& cas) { return cas.rfind("lenet", 0) == 0; }

/// The case's optimizer over `params`.
std::unique_ptr<torch::optim::Optimizer> train_step_optimizer(const std::string& cas,
                                                              std::vector<torch::Tensor> params) {
  if (cas == "mlp_sgd" || cas == "lenet_sgd") {
    return std::make_unique<torch::optim::SGD>(std::move(params),
                                               torch::optim::SGDOptions(0.01).momentum(0.9));
  }
  return std::make_unique<torch::optim::Adam>(
      std::move(params),
      torch::optim::AdamOptions(1e-3).betas(std::make_tuple(0.9, 0.999)).eps(1e-8).weight_decay(0));
}

/// The loss of the current parameters, without recording a graph.
double train_step_loss(torch::nn::Sequential& model, const torch::Tensor& x,
                       const torch::Tensor& labels) {
  torch::NoGradGuard no_grad;
  return torch::nn::functional::cross_entropy(model->forward(x), labels).item<double>();
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
  const bench::Tag tag{"train_step", cas, threads.name, "libtorch"};

  auto model = train_step_is_lenet(cas) ? train_step_lenet() : train_step_mlp();
  const auto x = train_step_is_lenet(cas) ? torch::randn({64, 1, 28, 28}) : torch::randn({64, 784});
  const auto labels = torch::randint(0, 10, {64});
  auto opt = train_step_optimizer(cas, model->parameters());
  const double first_loss = train_step_loss(model, x, labels);

  long steps = 0;
  const auto t = bench::measure(
      [&] {
        opt->zero_grad();
        auto loss = torch::nn::functional::cross_entropy(model->forward(x), labels);
        loss.backward();
        opt->step();
        ++steps;
      },
      5);
  bench::print_time(tag, t, 1e3, "ms/step");

  const double last_loss = train_step_loss(model, x, labels);
  const bool ok = std::isfinite(last_loss) && std::abs(first_loss - std::log(10.0)) < 0.5 &&
                  last_loss < first_loss;
  bench::print_info(tag, std::string("check=") + (ok ? "pass" : "FAIL") +
                             bench::format(" first_loss=%.4f last_loss=%.4g steps=%ld", first_loss,
                                           last_loss, steps) +
                             " version=" + bench_torch::version());
  return ok ? 0 : 1;
}
