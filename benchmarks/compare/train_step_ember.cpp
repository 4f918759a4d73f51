// BENCHMARKS.md §5(a), (b) and (c), one training step of an MLP, a LeNet-style CNN or an LSTM
// language model, Ember side (the same code as train_step_torch.cpp, ember:: for torch::). §5(a):
// Linear 784->512, ReLU, Linear 512->256, ReLU, Linear 256->10 (default init); x [64, 784] ~ randn
// and labels [64] ~ U{0..9}, created once; one step = zero_grad, forward, cross_entropy (mean),
// backward, opt.step(). §5(b): Conv 1->32 5x5, ReLU, MaxPool 2, Conv 32->64 5x5, ReLU, MaxPool 2,
// flatten (1024), Linear 1024->128, ReLU, Linear 128->10 on x [64, 1, 28, 28] ~ randn. §5(c):
// LstmLm below on tokens [35, 20] ~ U{0..9999}, cross_entropy over the 700 positions. §5(d):
// TransformerEncoderLayer(256, 4, 1024, dropout 0) on x [128, 16, 256], mse_loss. Cases:
// mlp_sgd, lenet_sgd, lstm_sgd, transformer_sgd (SGD lr 0.01, momentum 0.9), mlp_adam, lenet_adam,
// lstm_adam, transformer_adam (Adam
// lr 1e-3, betas 0.9/0.999, eps 1e-8). Reported in ms per step, 5 timed repetitions. The check:
// the first loss is near ln(classes) (a default-initialised classifier) and the loss after the
// timed steps is lower. Usage: train_step_ember <case> <threads>; --list prints the cases.
#include "ember/ember.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "bench_timer.h"
#include "ember_threads.h"

namespace {

const std::vector<std::string> kCases = {"mlp_sgd",         "mlp_adam",        "lenet_sgd",
                                         "lenet_adam",      "lstm_sgd",        "lstm_adam",
                                         "transformer_sgd", "transformer_adam"};

/// The §5(a) MLP with each library's default initialisation.
ember::nn::Sequential train_step_mlp() {
  return ember::nn::Sequential(ember::nn::Linear(784, 512), ember::nn::ReLU(),
                               ember::nn::Linear(512, 256), ember::nn::ReLU(),
                               ember::nn::Linear(256, 10));
}

/// The §5(b) LeNet-style CNN with each library's default initialisation.
ember::nn::Sequential train_step_lenet() {
  namespace nn = ember::nn;
  return nn::Sequential(
      nn::Conv2d(nn::Conv2dOptions(1, 32, 5)), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2)),
      nn::Conv2d(nn::Conv2dOptions(32, 64, 5)), nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2)),
      nn::Flatten(), nn::Linear(1024, 128), nn::ReLU(), nn::Linear(128, 10));
}

bool train_step_is_lenet(const std::string& cas) { return cas.rfind("lenet", 0) == 0; }

/// The §5(c) LSTM language model with each library's default initialisation: Embedding(10000,
/// 128), LSTM(128, 256, 2 layers, seq-first, zero initial state), Linear(256, 10000); forward
/// gives the logits of every position, [seq * batch, 10000].
struct LstmLmImpl : ember::nn::Module {
  LstmLmImpl()
      : embed(register_module("embed", ember::nn::Embedding(10000, 128))),
        lstm(register_module("lstm",
                             ember::nn::LSTM(ember::nn::LSTMOptions(128, 256).num_layers(2)))),
        head(register_module("head", ember::nn::Linear(256, 10000))) {}
  ember::Tensor forward(const ember::Tensor& tokens) {
    auto out = std::get<0>(lstm->forward(embed->forward(tokens)));
    return head->forward(out).view({-1, 10000});
  }
  ember::nn::Embedding embed{nullptr};
  ember::nn::LSTM lstm{nullptr};
  ember::nn::Linear head{nullptr};
};

/// The case's optimizer over `params`.
std::unique_ptr<ember::optim::Optimizer> train_step_optimizer(const std::string& cas,
                                                              std::vector<ember::Tensor> params) {
  if (cas.size() > 4 && cas.compare(cas.size() - 4, 4, "_sgd") == 0) {
    return std::make_unique<ember::optim::SGD>(std::move(params),
                                               ember::optim::SGDOptions(0.01).momentum(0.9));
  }
  return std::make_unique<ember::optim::Adam>(
      std::move(params),
      ember::optim::AdamOptions(1e-3).betas(std::make_tuple(0.9, 0.999)).eps(1e-8).weight_decay(0));
}

/// The loss of the current parameters, without recording a graph.
double train_step_loss(const std::function<ember::Tensor()>& loss) {
  ember::NoGradGuard no_grad;
  return loss().item<double>();
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
  const bench::Tag tag{"train_step", cas, threads.name, "ember"};

  // The case's model, its fixed inputs (created once) and its loss.
  std::vector<ember::Tensor> params;
  std::function<ember::Tensor()> loss_fn;
  double classes = 10;
  bool regression = false;
  if (cas.rfind("transformer", 0) == 0) {
    // §5(d): TransformerEncoderLayer(256, 4, 1024, dropout 0, relu, post-norm) on x [128, 16, 256],
    // mse_loss against a fixed random target.
    ember::nn::TransformerEncoderLayer layer(
        ember::nn::TransformerEncoderLayerOptions(256, 4).dim_feedforward(1024).dropout(0.0));
    const auto x = ember::randn({128, 16, 256});
    const auto target = ember::randn({128, 16, 256});
    params = layer->parameters();
    loss_fn = [layer, x, target]() mutable {
      return ember::nn::functional::mse_loss(layer->forward(x), target);
    };
    regression = true;
  } else if (cas.rfind("lstm", 0) == 0) {
    auto lm = std::make_shared<LstmLmImpl>();
    const auto tokens = ember::randint(0, 10000, {35, 20});
    const auto targets = ember::randint(0, 10000, {35 * 20});
    params = lm->parameters();
    loss_fn = [lm, tokens, targets] {
      return ember::nn::functional::cross_entropy(lm->forward(tokens), targets);
    };
    classes = 10000;
  } else {
    auto model = train_step_is_lenet(cas) ? train_step_lenet() : train_step_mlp();
    const auto x =
        train_step_is_lenet(cas) ? ember::randn({64, 1, 28, 28}) : ember::randn({64, 784});
    const auto labels = ember::randint(0, 10, {64});
    params = model->parameters();
    loss_fn = [model, x, labels]() mutable {
      return ember::nn::functional::cross_entropy(model->forward(x), labels);
    };
  }
  auto opt = train_step_optimizer(cas, params);
  const double first_loss = train_step_loss(loss_fn);

  long steps = 0;
  const auto t = bench::measure(
      [&] {
        opt->zero_grad();
        auto loss = loss_fn();
        loss.backward();
        opt->step();
        ++steps;
      },
      5);
  bench::print_time(tag, t, 1e3, "ms/step");

  const double last_loss = train_step_loss(loss_fn);
  // A classifier's first loss is near ln(classes); the regression's (unit-variance target
  // against a layer-normed output) near 2.
  const double expected_first = regression ? 2.0 : std::log(classes);
  const bool ok = std::isfinite(last_loss) && std::abs(first_loss - expected_first) < 0.5 &&
                  last_loss < first_loss;
  bench::print_info(tag, std::string("check=") + (ok ? "pass" : "FAIL") +
                             bench::format(" first_loss=%.4f last_loss=%.4g steps=%ld", first_loss,
                                           last_loss, steps));
  return ok ? 0 : 1;
}
