// F::ctc_loss (src/nn/functional/loss_ctc.cpp) beyond the golden table: the loss against a brute
// force over every alignment, gradcheck of a larger ragged batch, the target layouts, the
// reductions, zero_infinity, threading, PyTorch's gradient convention and the error messages.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/functional/loss.h"
#include "tests/support/expect_error.h"

using namespace ember;
namespace F = ember::nn::functional;

namespace {

using ember_test::expect_error;

Tensor log_probs(IntArrayRef shape, uint64_t seed, ScalarType dtype = kDouble) {
  Generator gen(seed);
  return randn(shape, gen, kDouble).log_softmax(-1).to(dtype);
}

Tensor longs(std::vector<int64_t> v) { return tensor(TensorDataContainer(v), kLong); }

F::CTCLossFuncOptions none() { return F::CTCLossFuncOptions().reduction(kNone); }

// -log of the summed probability of every frame-level path of length `len` that collapses
// (merge repeats, drop blanks) to `target`: C^len paths.
double brute_force_nll(const Tensor& lp /* [T, C] */, int64_t len,
                       const std::vector<int64_t>& target, int64_t blank) {
  const int64_t C = lp.size(1);
  auto a = lp.accessor<double, 2>();
  double total = 0;
  std::vector<int64_t> path(len, 0);
  std::function<void(int64_t, double)> walk = [&](int64_t t, double logp) {
    if (t == len) {
      std::vector<int64_t> out;
      for (int64_t i = 0; i < len; ++i)
        if (path[i] != blank && (i == 0 || path[i] != path[i - 1])) out.push_back(path[i]);
      if (out == target) total += std::exp(logp);
      return;
    }
    for (int64_t c = 0; c < C; ++c) {
      path[t] = c;
      walk(t + 1, logp + a[t][c]);
    }
  };
  walk(0, 0.0);
  return -std::log(total);
}

TEST(CtcLoss, MatchesBruteForceOverAllAlignments) {
  const int64_t T = 5, C = 3;
  Tensor lp = log_probs({T, 4, C}, 11);
  std::vector<std::vector<int64_t>> targets = {{1, 2}, {1, 1}, {}, {2, 1, 2}};
  std::vector<int64_t> in_len = {5, 5, 3, 5};
  for (int64_t blank : {0, 1}) {
    // Relabel so that no target uses the blank: with blank 1, class 1 becomes 0.
    std::vector<std::vector<int64_t>> tg = targets;
    if (blank == 1)
      for (auto& s : tg)
        for (auto& c : s) c = c == 1 ? 0 : c;
    std::vector<int64_t> flat, lens;
    for (auto& s : tg) {
      flat.insert(flat.end(), s.begin(), s.end());
      lens.push_back(static_cast<int64_t>(s.size()));
    }
    Tensor got = F::ctc_loss(lp, longs(flat), longs(in_len), longs(lens), none().blank(blank));
    for (int64_t b = 0; b < 4; ++b) {
      double want = brute_force_nll(lp.select(1, b).contiguous(), in_len[b], tg[b], blank);
      EXPECT_NEAR(got.select(0, b).item<double>(), want, 1e-10) << "blank " << blank << " b " << b;
    }
  }
}

TEST(CtcLoss, GradcheckRaggedBatchThroughLogSoftmax) {
  Generator gen(12);
  Tensor logits = randn({9, 4, 6}, gen, kDouble).requires_grad_();
  Tensor targets = longs({1, 2, 2, 3, 5, 4, 1, 1, 2});  // lengths 4, 1, 0, 4
  Tensor il = longs({9, 7, 4, 9}), tl = longs({4, 1, 0, 4});
  for (bool zero_inf : {false, true}) {
    auto fn = [&](const autograd::variable_list& v) {
      return autograd::variable_list{
          F::ctc_loss(v[0].log_softmax(-1), targets, il, tl,
                      F::CTCLossFuncOptions().blank(3).reduction(kNone).zero_infinity(zero_inf))};
    };
    EXPECT_TRUE(autograd::gradcheck(fn, {logits}));
  }
}

TEST(CtcLoss, PaddedConcatenatedAndUnbatchedAgree) {
  Tensor lp = log_probs({6, 2, 5}, 13);
  Tensor padded = longs({1, 2, 3, 4, 4, 0}).view({2, 3});
  Tensor concat = longs({1, 2, 3, 4, 4});
  Tensor il = longs({6, 5}), tl = longs({3, 2});
  Tensor a = F::ctc_loss(lp, padded, il, tl, none());
  Tensor b = F::ctc_loss(lp, concat, il, tl, none());
  EXPECT_TRUE(allclose(a, b, 0, 0));
  Tensor u =
      F::ctc_loss(lp.select(1, 1), longs({4, 4}), full({}, 5, kLong), full({}, 2, kLong), none());
  EXPECT_EQ(u.dim(), 0);
  EXPECT_NEAR(u.item<double>(), a.select(0, 1).item<double>(), 1e-12);
  // int32 targets and lengths are accepted too.
  Tensor c = F::ctc_loss(lp, padded.to(kInt), il.to(kInt), tl.to(kInt), none());
  EXPECT_TRUE(allclose(a, c, 0, 0));
}

TEST(CtcLoss, NonContiguousLogProbs) {
  // A batch-first [N, T, C] tensor seen as [T, N, C] through a transpose.
  Tensor ntc = log_probs({2, 6, 5}, 20).requires_grad_();
  Tensor tg = longs({1, 2, 3, 3}).view({2, 2});
  Tensor il = longs({6, 4}), tl = longs({2, 2});
  Tensor a = F::ctc_loss(ntc.transpose(0, 1), tg, il, tl, none());
  Tensor tnc = ntc.detach().transpose(0, 1).contiguous().requires_grad_();
  Tensor b = F::ctc_loss(tnc, tg, il, tl, none());
  EXPECT_TRUE(equal(a, b));
  Tensor ga = autograd::grad({a.sum()}, {ntc})[0];
  Tensor gb = autograd::grad({b.sum()}, {tnc})[0];
  EXPECT_TRUE(equal(ga, gb.transpose(0, 1)));
}

TEST(CtcLoss, Reductions) {
  Tensor lp = log_probs({6, 3, 5}, 14);
  Tensor targets = longs({1, 2, 3, 4, 0, 0, 2, 2, 0}).view({3, 3});
  Tensor il = longs({6, 6, 5}), tl = longs({3, 0, 2});
  Tensor per = F::ctc_loss(lp, targets, il, tl, none());
  double sum = per.sum().item<double>();
  // kMean: each loss over its target length (at least 1), then the batch mean.
  double mean = (per.select(0, 0).item<double>() / 3 + per.select(0, 1).item<double>() / 1 +
                 per.select(0, 2).item<double>() / 2) /
                3;
  EXPECT_NEAR(
      F::ctc_loss(lp, targets, il, tl, F::CTCLossFuncOptions().reduction(kSum)).item<double>(), sum,
      1e-12);
  EXPECT_NEAR(F::ctc_loss(lp, targets, il, tl).item<double>(), mean, 1e-12);
}

TEST(CtcLoss, ZeroInfinityZeroesImpossibleAlignments) {
  // [1, 1] needs 3 frames (a blank between the repeats); 2 frames are impossible.
  Tensor lp = log_probs({4, 2, 3}, 15).requires_grad_();
  Tensor targets = longs({1, 1, 2, 0}).view({2, 2});
  Tensor il = longs({2, 4}), tl = longs({2, 1});
  Tensor inf_loss = F::ctc_loss(lp, targets, il, tl, none());
  EXPECT_TRUE(std::isinf(inf_loss.select(0, 0).item<double>()));
  Tensor loss = F::ctc_loss(lp, targets, il, tl, none().zero_infinity(true));
  EXPECT_EQ(loss.select(0, 0).item<double>(), 0.0);
  EXPECT_NEAR(loss.select(0, 1).item<double>(), inf_loss.select(0, 1).item<double>(), 1e-12);
  Tensor g = autograd::grad({loss.sum()}, {lp})[0];
  EXPECT_TRUE(equal(g.select(1, 0), zeros({4, 3}, kDouble)));
  EXPECT_TRUE(isfinite(g).all().item<bool>());
}

TEST(CtcLoss, RawGradientFollowsPyTorchConvention) {
  // grad = exp(lp) - posterior: each valid frame sums to 0 over the classes (both terms sum to
  // 1), and frames past the input length get 0.
  Tensor lp = log_probs({7, 2, 4}, 16).requires_grad_();
  Tensor loss = F::ctc_loss(lp, longs({1, 2, 3, 3}).view({2, 2}), longs({7, 5}), longs({2, 2}),
                            F::CTCLossFuncOptions().reduction(kSum));
  Tensor g = autograd::grad({loss}, {lp})[0];
  EXPECT_TRUE(allclose(g.sum({2}), zeros({7, 2}, kDouble), 0, 1e-12));
  EXPECT_TRUE(equal(g.narrow(0, 5, 2).select(1, 1), zeros({2, 4}, kDouble)));
  EXPECT_GT(g.abs().sum().item<double>(), 0.1);
}

TEST(CtcLoss, ThreadedBatchMatchesOneByOne) {
  const int64_t T = 60, N = 24, C = 8, S = 12;
  Tensor lp = log_probs({T, N, C}, 17, kFloat).requires_grad_();
  manual_seed(18);
  Tensor targets = randint(1, C, {N, S});
  Tensor il = randint(40, T + 1, {N}), tl = randint(0, S + 1, {N});
  int threads = get_num_threads();
  set_num_threads(2);
  Tensor batch = F::ctc_loss(lp, targets, il, tl, none());
  Tensor g = autograd::grad({batch.sum()}, {lp})[0];
  set_num_threads(threads);
  for (int64_t b = 0; b < N; ++b) {
    Tensor lpb = lp.detach().narrow(1, b, 1).requires_grad_();
    Tensor one =
        F::ctc_loss(lpb, targets.narrow(0, b, 1), il.narrow(0, b, 1), tl.narrow(0, b, 1), none());
    EXPECT_EQ(one.item<float>(), batch.select(0, b).item<float>()) << b;
    Tensor gb = autograd::grad({one.sum()}, {lpb})[0];
    EXPECT_TRUE(equal(gb, g.narrow(1, b, 1))) << b;
  }
}

TEST(CtcLoss, Errors) {
  Tensor lp = log_probs({5, 2, 4}, 19);
  Tensor tg = longs({1, 2, 3, 1}).view({2, 2});
  Tensor il = longs({5, 5}), tl = longs({2, 2});
  expect_error<TypeError>(
      [&] { F::ctc_loss(lp.to(kHalf), tg, il, tl); },
      {"ctc_loss: log_probs must be float32 or float64, got [5, 2, 4] float16"});
  expect_error<ValueError>([&] { F::ctc_loss(lp.unsqueeze(0), tg, il, tl); },
                           {"ctc_loss: log_probs must be [T, N, C] (or [T, C] for one sequence)"});
  expect_error<IndexError>([&] { F::ctc_loss(lp, tg, il, tl, F::CTCLossFuncOptions().blank(4)); },
                           {"ctc_loss: blank 4 is out of range for 4 classes"});
  expect_error<TypeError>([&] { F::ctc_loss(lp, tg.to(kFloat), il, tl); },
                          {"ctc_loss: targets must be integer class indices, got [2, 2] float32"});
  expect_error<ValueError>(
      [&] {
        F::ctc_loss(lp, tg, longs({5, 5, 5}), tl);
      },
      {"ctc_loss: input_lengths must hold one value per sequence (2), got [3]"});
  expect_error<TypeError>([&] { F::ctc_loss(lp, tg, il.to(kFloat), tl); },
                          {"ctc_loss: input_lengths must be an integer tensor"});
  expect_error<ValueError>(
      [&] {
        F::ctc_loss(lp, tg, longs({6, 5}), tl);
      },
      {"ctc_loss: input_lengths[0] is 6, must be in [0, 5]"});
  expect_error<ValueError>(
      [&] {
        F::ctc_loss(lp, tg, il, longs({2, 3}));
      },
      {"ctc_loss: target_lengths[1] is 3, but only 2 target values are there"});
  expect_error<ValueError>(
      [&] {
        F::ctc_loss(lp, longs({1, 2, 3}), il, longs({2, 2}));
      },
      {"ctc_loss: target_lengths[1] is 2, but only 1 target values"});
  expect_error<IndexError>(
      [&] {
        F::ctc_loss(lp, longs({1, 4, 3, 1}).view({2, 2}), il, tl);
      },
      {"ctc_loss: target class 4 (sequence 0, position 1) is out of range "
       "for 4 classes"});
  expect_error<ValueError>(
      [&] {
        F::ctc_loss(lp, longs({1, 2, 3}).view({3, 1}), il, tl);
      },
      {"ctc_loss: targets must be [N, S] padded ([2, S])"});
}

}  // namespace
