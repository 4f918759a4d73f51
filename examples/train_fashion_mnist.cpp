// Trains a 784-512-256-10 ReLU MLP on Fashion-MNIST for one epoch (SGD, lr 0.01, momentum 0.9,
// batch 64) and prints the test accuracy.
//
// Until Ember's autograd and nn::Module land, the gradients are written out by hand below; the
// recipe (model, init, optimizer, data order) is the one the nn issue's trainer will use, so its
// accuracy is the number to compare with LibTorch's 85.2%.
//
// Usage: train_fashion_mnist [data_root] [epochs]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

struct Layer {
  Tensor weight, bias;      // [out, in], [out]
  Tensor weight_v, bias_v;  // momentum buffers
  Tensor weight_grad, bias_grad;
};

// PyTorch's nn.Linear init: kaiming_uniform(a = sqrt(5)) = U(±1/sqrt(fan_in)), bias likewise.
Layer make_layer(int64_t in, int64_t out) {
  double bound = 1.0 / std::sqrt(static_cast<double>(in));
  Layer l;
  l.weight = empty({out, in}).uniform_(-bound, bound);
  l.bias = empty({out}).uniform_(-bound, bound);
  l.weight_v = zeros_like(l.weight);
  l.bias_v = zeros_like(l.bias);
  return l;
}

Tensor linear(const Tensor& x, const Layer& l) { return addmm(l.bias, x, l.weight.t()); }

// Gradients of a linear layer given dL/dy; returns dL/dx.
Tensor linear_backward(const Tensor& x, Layer& l, const Tensor& grad_y) {
  l.weight_grad = grad_y.t().mm(x);
  l.bias_grad = grad_y.sum({0});
  return grad_y.mm(l.weight);
}

// SGD with momentum (PyTorch's form: v = momentum·v + g; w -= lr·v).
void sgd_step(Layer& l, double lr, double momentum) {
  l.weight_v.mul_(momentum).add_(l.weight_grad);
  l.bias_v.mul_(momentum).add_(l.bias_grad);
  l.weight.sub_(l.weight_v, lr);
  l.bias.sub_(l.bias_v, lr);
}

Tensor normalize(const Tensor& images) {
  return images.view({images.size(0), 784}).sub(0.2860).div(0.3530);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : "/usr/share/datasets/fashion-mnist";
  const int epochs = argc > 2 ? std::stoi(argv[2]) : 1;
  const int64_t batch = 64;
  const double lr = 0.01, momentum = 0.9;

  auto t0 = std::chrono::steady_clock::now();
  data::datasets::MNIST train(root, data::datasets::MNIST::Mode::kTrain);
  data::datasets::MNIST test(root, data::datasets::MNIST::Mode::kTest);
  Tensor train_x = normalize(train.images()), train_y = train.targets();
  Tensor test_x = normalize(test.images()), test_y = test.targets();
  auto t1 = std::chrono::steady_clock::now();
  std::printf("loaded %lld train / %lld test images in %.2f s\n",
              static_cast<long long>(train.size()), static_cast<long long>(test.size()),
              std::chrono::duration<double>(t1 - t0).count());

  manual_seed(0);
  std::vector<Layer> layers = {make_layer(784, 512), make_layer(512, 256), make_layer(256, 10)};
  const Tensor classes = arange(10);

  for (int epoch = 0; epoch < epochs; ++epoch) {
    auto start = std::chrono::steady_clock::now();
    Tensor perm = randperm(train.size());
    double loss_sum = 0;
    int64_t steps = 0;
    for (int64_t i = 0; i < train.size(); i += batch) {
      Tensor idx = perm.slice(0, i, std::min(i + batch, train.size()));
      Tensor x = train_x.index_select(0, idx);
      Tensor y = train_y.index_select(0, idx);
      const double n = static_cast<double>(x.size(0));

      Tensor h1 = linear(x, layers[0]).relu();
      Tensor h2 = linear(h1, layers[1]).relu();
      Tensor logits = linear(h2, layers[2]);
      Tensor log_probs = logits.log_softmax(1);
      Tensor one_hot = eq(y.unsqueeze(1), classes).to(kFloat);
      loss_sum += -(log_probs * one_hot).sum().item<double>() / n;

      // d(mean cross-entropy)/d(logits) = (softmax - one_hot) / n.
      Tensor grad = log_probs.exp().sub(one_hot).div(n);
      grad = linear_backward(h2, layers[2], grad).mul(gt(h2, 0));
      grad = linear_backward(h1, layers[1], grad).mul(gt(h1, 0));
      linear_backward(x, layers[0], grad);
      for (Layer& l : layers) sgd_step(l, lr, momentum);
      ++steps;
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    int64_t correct = 0;
    for (int64_t i = 0; i < test.size(); i += 250) {
      Tensor x = test_x.slice(0, i, i + 250);
      Tensor h = linear(linear(linear(x, layers[0]).relu(), layers[1]).relu(), layers[2]);
      correct += eq(h.argmax(1), test_y.slice(0, i, i + 250)).sum().item<int64_t>();
    }
    std::printf("epoch %d: mean loss %.4f, %.1f s (%.2f ms/step), test accuracy %.2f%%\n",
                epoch + 1, loss_sum / steps, seconds, 1e3 * seconds / steps,
                100.0 * correct / test.size());
  }
  return 0;
}
