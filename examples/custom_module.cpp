// A user-defined module and a user-defined autograd function, written as a LibTorch user writes
// them:
//  - ClampedSquare, an autograd::Function with static forward/backward and saved tensors: the
//    square of its input clamped to [-limit, limit], whose backward is 2x inside the limits and
//    0 outside;
//  - a ResidualBlock module with its own parameters, a submodule and a buffer, used inside a
//    Sequential, trained for a few steps, and checked with gradcheck.
//
// Usage: custom_module
#include <cstdio>

#include "ember/ember.h"

using namespace ember;
using namespace ember::autograd;

namespace {

struct ClampedSquare : Function<ClampedSquare> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, double limit) {
    ctx->save_for_backward({x});
    ctx->saved_data["limit"] = limit;
    return x.clamp(-limit, limit).pow(2);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const Tensor x = ctx->get_saved_variables()[0];
    const double limit = ctx->saved_data["limit"].toDouble();
    const Tensor inside = x.abs().le(limit).to(x.scalar_type());
    // One gradient per forward input: x's, and none for the double.
    return {grad_outputs[0] * 2 * x * inside, Tensor()};
  }
};

// y = x + fc2(ClampedSquare(fc1(x))) * scale, with `scale` a learnable scalar and `calls` a buffer
// that counts forward calls (saved in state_dict, not trained).
struct ResidualBlockImpl : nn::Module {
  explicit ResidualBlockImpl(int64_t width)
      : nn::Module("ResidualBlock"),  // the name printing shows
        fc1(register_module("fc1", nn::Linear(width, width))),
        fc2(register_module("fc2", nn::Linear(width, width))),
        scale(register_parameter("scale", full({1}, 0.5))),
        calls(register_buffer("calls", zeros({}, kLong))) {}

  Tensor forward(const Tensor& x) {
    {
      NoGradGuard no_grad;
      calls.add_(1);
    }
    return x + fc2(ClampedSquare::apply(fc1(x), 2.0)) * scale;
  }

  nn::Linear fc1, fc2;
  Tensor scale, calls;
};
EMBER_MODULE(ResidualBlock);

}  // namespace

int main() {
  manual_seed(0);

  // The custom function's gradient agrees with finite differences (float64).
  // Points away from the kinks at +-1.5, where the derivative jumps.
  const Tensor probe = tensor({-2.5, -1.0, -0.3, 0.2, 0.9, 2.0}, kDouble);
  const bool ok = gradcheck(
      [](const variable_list& in) { return variable_list{ClampedSquare::apply(in[0], 1.5)}; },
      {probe.requires_grad_()});
  std::printf("gradcheck(ClampedSquare): %s\n", ok ? "passed" : "FAILED");

  nn::Sequential net{ResidualBlock(8), nn::ReLU(), nn::Linear(8, 1)};
  std::printf("%s\n", ember::str(*net).c_str());
  for (const auto& p : net->named_parameters())
    std::printf("  parameter %-14s %s\n", p.key().c_str(), ember::str(p.value().sizes()).c_str());
  for (const auto& b : net->named_buffers())
    std::printf("  buffer    %-14s %s\n", b.key().c_str(), ember::str(b.value().sizes()).c_str());

  const Tensor x = randn({64, 8}), y = x.sum(1, /*keepdim=*/true).sin();
  optim::Adam optimizer(net->parameters(), optim::AdamOptions(1e-2));
  for (int step = 1; step <= 200; ++step) {
    optimizer.zero_grad();
    Tensor loss = nn::functional::mse_loss(net->forward(x), y);
    loss.backward();
    optimizer.step();
    if (step % 50 == 0) std::printf("step %3d  loss %.5f\n", step, loss.item<double>());
  }
  std::printf("forward calls counted by the buffer: %lld\n",
              static_cast<long long>(net->named_buffers()[0].value().item<int64_t>()));
  return ok ? 0 : 1;
}
