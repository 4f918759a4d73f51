// BENCHMARKS.md §8 compile-time program, LibTorch side: fit nn::Linear(16, 1) with SGD for 200
// steps on y = x·w_true + 0.5 and check that it converged. One file, compiled and linked in one g++
// call.
#include <torch/torch.h>

#include <cstdio>

int main() {
  torch::manual_seed(0);
  const auto x = torch::randn({256, 16});
  const auto w_true = torch::randn({16, 1});
  const auto y = x.mm(w_true) + 0.5;

  torch::nn::Linear model(16, 1);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  float final_loss = 0;
  for (int step = 0; step < 200; ++step) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    opt.step();
    final_loss = loss.item<float>();
  }
  const bool ok = final_loss < 1e-4f;
  std::printf("linear_train: final loss %.3g after 200 steps: %s\n", final_loss,
              ok ? "converged" : "NOT converged");
  return ok ? 0 : 1;
}
