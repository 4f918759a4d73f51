// BENCHMARKS.md §8 compile-time program, Ember side. Until ember::nn::Linear and optim::SGD exist
// it fits the same model with raw tensors: w [16,1], b [1], the gradient of the MSE written by
// hand, 200 SGD steps of lr 0.1 on y = x·w_true + 0.5, then a convergence check. One file, compiled
// and linked in one g++ call.
#include <ember/ember.h>

#include <cstdio>

int main() {
  ember::manual_seed(0);
  const int64_t n = 256;
  const auto x = ember::randn({n, 16});
  const auto w_true = ember::randn({16, 1});
  const auto y = x.mm(w_true) + 0.5;

  auto w = ember::zeros({16, 1});
  auto b = ember::zeros({1});
  const double lr = 0.1;
  float final_loss = 0;
  for (int step = 0; step < 200; ++step) {
    const auto diff = x.mm(w) + b - y;  // [n, 1]
    const auto loss = (diff * diff).mean();
    // loss = mean(diff²): dL/dw = 2/n · xᵀ·diff, dL/db = 2/n · Σ diff.
    const auto grad_w = x.t().mm(diff) * (2.0 / n);
    const auto grad_b = diff.sum() * (2.0 / n);
    w.sub_(grad_w, lr);
    b.sub_(grad_b, lr);
    final_loss = loss.item<float>();
  }
  const bool ok = final_loss < 1e-4f;
  std::printf("linear_train: final loss %.3g after 200 steps: %s\n", final_loss,
              ok ? "converged" : "NOT converged");
  return ok ? 0 : 1;
}
