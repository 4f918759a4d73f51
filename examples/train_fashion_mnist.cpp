// Trains a 784-512-256-10 ReLU MLP on Fashion-MNIST for one epoch (SGD, lr 0.01, momentum 0.9,
// batch 64, cross-entropy) and prints the test accuracy: the README's default command, written
// the way a LibTorch user writes it (a module of its own, nn layers, autograd, optim::SGD).
//
// Usage: train_fashion_mnist [data_root] [epochs]
#include <chrono>
#include <cstdio>
#include <string>

#include "ember/ember.h"

using namespace ember;
namespace F = ember::nn::functional;

namespace {

struct MlpImpl : nn::Module {
  MlpImpl()
      : layers(register_module("layers", nn::Sequential(nn::Linear(784, 512), nn::ReLU(),
                                                        nn::Linear(512, 256), nn::ReLU(),
                                                        nn::Linear(256, 10)))) {}
  // images [N, 1, 28, 28] -> logits [N, 10]
  Tensor forward(const Tensor& x) { return layers(x.flatten(1)); }
  nn::Sequential layers;
};
EMBER_MODULE(Mlp);

// Fashion-MNIST's mean and standard deviation over the training pixels.
Tensor normalize(const Tensor& images) { return images.sub(0.2860).div(0.3530); }

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double test_accuracy(Mlp& model, const Tensor& images, const Tensor& labels) {
  model->eval();
  NoGradGuard no_grad;
  int64_t correct = 0;
  for (int64_t i = 0; i < images.size(0); i += 250) {
    Tensor logits = model(images.slice(0, i, i + 250));
    correct += logits.argmax(1).eq(labels.slice(0, i, i + 250)).sum().item<int64_t>();
  }
  model->train();
  return 100.0 * static_cast<double>(correct) / static_cast<double>(images.size(0));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : "/usr/share/datasets/fashion-mnist";
  const int epochs = argc > 2 ? std::stoi(argv[2]) : 1;
  const int64_t batch = 64;

  auto t0 = std::chrono::steady_clock::now();
  data::datasets::MNIST train(root, data::datasets::MNIST::Mode::kTrain);
  data::datasets::MNIST test(root, data::datasets::MNIST::Mode::kTest);
  Tensor train_x = normalize(train.images()), train_y = train.targets();
  Tensor test_x = normalize(test.images()), test_y = test.targets();
  std::printf("loaded %lld train / %lld test images in %.2f s\n",
              static_cast<long long>(train.size()), static_cast<long long>(test.size()),
              seconds_since(t0));

  manual_seed(0);
  Mlp model;
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.01).momentum(0.9));

  for (int epoch = 0; epoch < epochs; ++epoch) {
    auto start = std::chrono::steady_clock::now();
    Tensor perm = randperm(train.size());
    double loss_sum = 0;
    int64_t steps = 0;
    for (int64_t i = 0; i < train.size(); i += batch) {
      Tensor idx = perm.slice(0, i, std::min(i + batch, train.size()));
      optimizer.zero_grad();
      Tensor loss = F::cross_entropy(model(train_x.index_select(0, idx)),
                                     train_y.index_select(0, idx));
      loss.backward();
      optimizer.step();
      loss_sum += loss.item<double>();
      ++steps;
    }
    const double seconds = seconds_since(start);
    std::printf("epoch %d: mean loss %.4f, %.1f s (%.2f ms/step), test accuracy %.2f%%\n",
                epoch + 1, loss_sum / static_cast<double>(steps), seconds,
                1e3 * seconds / static_cast<double>(steps), test_accuracy(model, test_x, test_y));
  }
  return 0;
}
