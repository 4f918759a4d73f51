// A LibTorch program, unchanged: it builds against LibTorch (g++ -isystem
// /usr/include/torch/csrc/api/include ... -ltorch -ltorch_cpu -lc10) and, through Ember's compat
// headers (include/ember/compat on the include path), against Ember. It trains a small MLP with
// the idioms LibTorch users write and returns 0 when the loss fell.
#include <torch/torch.h>

#include <iostream>

struct NetImpl : torch::nn::Module {
  NetImpl(int64_t in, int64_t hidden, int64_t out)
      : fc1(register_module("fc1", torch::nn::Linear(in, hidden))),
        fc2(register_module("fc2", torch::nn::Linear(torch::nn::LinearOptions(hidden, out)))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(fc1->forward(x));
    return torch::log_softmax(fc2->forward(x), /*dim=*/1);
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Net);

int run_libtorch_program() {
  namespace F = torch::nn::functional;
  torch::manual_seed(0);
  Net net(4, 16, 3);
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  torch::Tensor x = torch::randn({32, 4});
  torch::Tensor y = torch::argmax(x.slice(/*dim=*/1, 0, 3), /*dim=*/1);
  double first = 0, last = 0;
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    torch::Tensor loss = F::nll_loss(net->forward(x), y);
    loss.backward();
    optimizer.step();
    if (step == 0) first = loss.item<double>();
    last = loss.item<double>();
  }
  TORCH_CHECK(last < first, "loss did not fall: ", first, " -> ", last);
  {
    torch::NoGradGuard no_grad;
    at::Tensor probs = net->forward(x).exp();
    TORCH_CHECK(probs.sizes() == std::vector<int64_t>({32, 3}), "wrong output shape");
    TORCH_CHECK(probs.scalar_type() == torch::kFloat32);
  }
  auto params = net->named_parameters();
  TORCH_CHECK(params.size() == 4 && params.contains("fc1.weight"));
  for (const auto& p : params) TORCH_CHECK(p.value().grad().defined(), p.key(), " has no grad");
  torch::nn::Sequential seq(torch::nn::Linear(3, 2), torch::nn::ReLU());
  TORCH_CHECK(seq->forward(torch::ones({1, 3})).size(1) == 2);
  c10::Device cpu(torch::kCPU);
  TORCH_CHECK(net->fc1->weight.device() == cpu);
  return last < first ? 0 : 1;
}
