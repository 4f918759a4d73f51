// Fits a cubic polynomial to noisy samples of sin(x) with a single Linear layer over the features
// [x, x^2, x^3], plain gradient descent and mean squared error: the smallest complete training
// loop (tensors, autograd, nn, optim), as LibTorch's own regression example.
//
// Usage: regression [steps]
#include <cmath>
#include <cstdio>
#include <string>

#include "ember/ember.h"

using namespace ember;

namespace {

constexpr int kDegree = 3;

// x [N] -> [N, kDegree] with columns x, x^2, x^3.
Tensor polynomial_features(const Tensor& x) { return stack({x, x.pow(2), x.pow(3)}, /*dim=*/1); }

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::stoi(argv[1]) : 2000;
  manual_seed(0);
  const Tensor x = linspace(-M_PI, M_PI, 256);
  const Tensor y = x.sin() + 0.05 * randn({256});
  const Tensor features = polynomial_features(x);

  nn::Linear model(kDegree, 1);
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.01).momentum(0.9));
  for (int step = 1; step <= steps; ++step) {
    optimizer.zero_grad();
    Tensor loss = nn::functional::mse_loss(model(features).squeeze(1), y);
    loss.backward();
    optimizer.step();
    if (step % (steps / 5) == 0) std::printf("step %4d  loss %.5f\n", step, loss.item<double>());
  }
  const Tensor w = model->weight.detach().squeeze(0);
  std::printf("fit: y = %.4f %+.4f x %+.4f x^2 %+.4f x^3\n", model->bias.item<double>(),
              w[0].item<double>(), w[1].item<double>(), w[2].item<double>());
  std::printf(
      "(sin x's Taylor cubic is x - 0.1667 x^3; a least-squares fit on [-pi, pi] is "
      "about 0.857 x - 0.093 x^3)\n");
  return 0;
}
