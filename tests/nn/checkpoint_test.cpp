// ember::utils::checkpoint and checkpoint_sequential: gradients bit-identical to the plain run
// (dropout included, through the saved random state), gradients to parameters when the input needs
// none, to captured tensors, through autograd::grad, the memory it saves, and its errors; plus the
// generator state it relies on.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/core/storage.h"
#include "ember/ember.h"
#include "ember/utils/checkpoint.h"
#include "tests/support/expect_error.h"

using namespace ember;
using ember_test::expect_error;

// A named namespace: the test sources are compiled as unity files.
namespace checkpoint_test {

nn::Sequential deep_mlp(int64_t width, int64_t depth, double dropout) {
  nn::Sequential seq;
  for (int64_t i = 0; i < depth; ++i) {
    seq->push_back(nn::Linear(width, width));
    seq->push_back(nn::ReLU());
    if (dropout > 0) seq->push_back(nn::Dropout(dropout));
  }
  seq->push_back(nn::Linear(width, 3));
  return seq;
}

std::vector<Tensor> grads_of(nn::Module& m) {
  std::vector<Tensor> g;
  for (const Tensor& p : m.parameters()) g.push_back(p.grad().clone());
  return g;
}

TEST(GeneratorState, GetSetReplaysDraws) {
  Generator& g = default_generator();
  manual_seed(7);
  randn({3});  // leaves a cached normal behind
  Tensor state = g.get_state();
  EXPECT_EQ(state.scalar_type(), kByte);
  Tensor a = ember::cat({ember::randn({5}), ember::rand({4})});
  g.set_state(state);
  Tensor b = ember::cat({ember::randn({5}), ember::rand({4})});
  EXPECT_TRUE(ember::equal(a, b));
  expect_error<Error>([&] { g.set_state(ember::zeros({4}, kByte)); }, {"set_state"});
  expect_error<Error>([&] { g.set_state(ember::zeros({4})); }, {"set_state", "uint8"});
}

TEST(Checkpoint, SequentialWithDropoutIsBitIdenticalToPlain) {
  manual_seed(1);
  nn::Sequential seq = deep_mlp(16, 6, 0.3);
  Tensor x = ember::randn({8, 16});
  for (bool input_grad : {false, true}) {
    SCOPED_TRACE(input_grad ? "input requires grad" : "input needs no grad");
    Tensor xi = x.clone().requires_grad_(input_grad);
    manual_seed(42);
    seq->zero_grad();
    Tensor y = seq->forward(xi);
    y.pow(2).sum().backward();
    std::vector<Tensor> plain = grads_of(*seq);
    Tensor plain_x = input_grad ? xi.grad().clone() : Tensor();

    Tensor xc = x.clone().requires_grad_(input_grad);
    manual_seed(42);
    seq->zero_grad();
    Tensor yc = utils::checkpoint_sequential(seq, 3, xc);
    EXPECT_TRUE(ember::equal(yc, y));
    Tensor after_forward = default_generator().get_state();
    yc.pow(2).sum().backward();
    // The recomputation replays the random state without moving it on.
    EXPECT_TRUE(ember::equal(default_generator().get_state(), after_forward));
    std::vector<Tensor> ckpt = grads_of(*seq);
    ASSERT_EQ(ckpt.size(), plain.size());
    for (size_t i = 0; i < plain.size(); ++i)
      EXPECT_TRUE(ember::equal(ckpt[i], plain[i])) << "parameter " << i;
    if (input_grad) {
      EXPECT_TRUE(ember::equal(xc.grad(), plain_x));
    }
  }
}

TEST(Checkpoint, WithoutPreservedRngStateDropoutMasksDiffer) {
  manual_seed(3);
  nn::Sequential seq = deep_mlp(32, 2, 0.5);
  Tensor x = ember::randn({16, 32});
  manual_seed(5);
  seq->zero_grad();
  seq->forward(x).sum().backward();
  std::vector<Tensor> plain = grads_of(*seq);
  manual_seed(5);
  seq->zero_grad();
  utils::checkpoint_sequential(seq, 2, x, /*preserve_rng_state=*/false).sum().backward();
  std::vector<Tensor> ckpt = grads_of(*seq);
  EXPECT_FALSE(ember::equal(ckpt[0], plain[0]));  // the recomputation drew new masks
}

TEST(Checkpoint, FunctionGradientsToInputsParametersAndCapturedTensors) {
  manual_seed(2);
  nn::Linear lin(4, 4);
  Tensor a = ember::randn({4}).requires_grad_(true);
  Tensor scale = a * 2.0;  // has a history made before the checkpointed call
  Tensor x = ember::randn({3, 4}).requires_grad_(true);
  auto fn = [&](const Tensor& h, const Tensor& k) { return (lin(h) * scale).tanh() * k; };
  Tensor k = ember::randn({3, 4}).requires_grad_(true);

  Tensor y = fn(x, k);
  // retain_graph: `scale`'s node is shared by the three passes below.
  auto plain = autograd::grad({y.sum()}, {x, k, a, lin->weight, lin->bias}, {}, true);
  Tensor yc = utils::checkpoint(fn, x, k);
  EXPECT_TRUE(ember::equal(yc, y));
  EXPECT_EQ(yc.grad_fn()->name(), "CheckpointFunctionBackward");
  auto ckpt = autograd::grad({yc.sum()}, {x, k, a, lin->weight, lin->bias}, {}, true);
  for (size_t i = 0; i < plain.size(); ++i)
    EXPECT_TRUE(ember::allclose(ckpt[i], plain[i], 1e-6, 1e-7)) << "input " << i;
  EXPECT_FALSE(lin->weight.grad().defined());  // autograd::grad accumulated nothing

  // backward() accumulates into the parameters once (not twice through the recomputation).
  utils::checkpoint(fn, x, k).sum().backward();
  EXPECT_TRUE(ember::allclose(lin->weight.grad(), plain[3], 1e-6, 1e-7));
  EXPECT_TRUE(ember::allclose(a.grad(), plain[2], 1e-6, 1e-7));
}

TEST(Checkpoint, SeveralOutputsAndNoGradMode) {
  Tensor x = ember::randn({5}).requires_grad_(true);
  auto fn = [](const Tensor& h) { return std::vector<Tensor>{h.sin(), h.exp() * 2.0}; };
  std::vector<Tensor> outs = utils::checkpoint(fn, x);
  ASSERT_EQ(outs.size(), 2u);
  (outs[0] + outs[1]).sum().backward();
  EXPECT_TRUE(ember::allclose(x.grad(), x.detach().cos() + x.detach().exp() * 2.0, 1e-6, 1e-7));
  // Only the second output used: the first gets no gradient.
  Tensor g = autograd::grad({utils::checkpoint(fn, x)[1].sum()}, {x})[0];
  EXPECT_TRUE(ember::allclose(g, x.detach().exp() * 2.0, 1e-6, 1e-7));
  {
    NoGradGuard ng;
    Tensor y = utils::checkpoint([](const Tensor& h) { return h * 3.0; }, x);
    EXPECT_FALSE(y.requires_grad());
  }
}

TEST(Checkpoint, SavesActivationMemory) {
  // A deep MLP whose activations dwarf its weights: 16 layers of [2048, 128] activations (1 MiB
  // each, twice per layer: the Linear's input and the ReLU's output) against 64 KiB weights.
  manual_seed(4);
  nn::Sequential seq = deep_mlp(128, 16, 0.0);
  Tensor x = ember::randn({2048, 128});
  Allocator* cpu = get_allocator(kCPU);
  auto peak_of = [&](const std::function<Tensor()>& run) {
    seq->zero_grad(/*set_to_none=*/true);
    const size_t before = cpu->allocated_bytes();
    cpu->reset_peak_stats();
    run().pow(2).mean().backward();
    return cpu->peak_allocated_bytes() - before;
  };
  const size_t plain = peak_of([&] { return seq->forward(x); });
  const size_t ckpt = peak_of([&] { return utils::checkpoint_sequential(seq, 4, x); });
  ASSERT_GT(plain, 0u);
  // Plain keeps ~2 x 16 activations; checkpointed, the segment boundaries plus one segment's.
  EXPECT_LT(static_cast<double>(ckpt), 0.6 * static_cast<double>(plain))
      << "plain " << plain << " bytes, checkpointed " << ckpt;
  std::printf("[ checkpoint ] peak bytes above the weights: plain %zu, 4 segments %zu (%.2fx)\n",
              plain, ckpt, static_cast<double>(plain) / static_cast<double>(ckpt));
}

TEST(Checkpoint, Errors) {
  Tensor x = ember::randn({3}).requires_grad_(true);
  expect_error<ValueError>([&] { utils::checkpoint([](const Tensor& h) { return h; }, Tensor()); },
                           {"checkpoint", "undefined"});
  nn::Sequential seq = deep_mlp(3, 2, 0.0);
  expect_error<ValueError>([&] { utils::checkpoint_sequential(seq, 0, x); },
                           {"checkpoint_sequential", "segments"});
  // A second backward without retain_graph: the inputs were freed.
  Tensor y = utils::checkpoint([](const Tensor& h) { return h * h; }, x).sum();
  y.backward();
  expect_error<Error>([&] { y.backward(); }, {"second time"});
}

}  // namespace checkpoint_test
