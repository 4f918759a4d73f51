// The scheduler API around the numbers (which scheduler_golden_test.cpp checks): LibTorch-style
// subclasses, epoch numbering, step(epoch), initial learning rates shared between schedulers,
// per-group arguments, momentum cycling, and the errors for bad arguments.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "ember/ember.h"
#include "tests/schedulers/sched_test_util.h"
#include "tests/support/expect_error.h"

using namespace ember;
using namespace ember::optim;

namespace {

using ember_test::expect_error;

// A scheduler written for LibTorch: it reads step_count_ and the current lrs.
class SchedApiHalveEveryOther : public LRScheduler {
 public:
  explicit SchedApiHalveEveryOther(Optimizer& opt) : LRScheduler(opt) {}
  std::vector<unsigned> seen;

 protected:
  std::vector<double> get_lrs() override {
    seen.push_back(step_count_);
    auto lrs = get_current_lrs();
    if (step_count_ % 2 == 1) {
      for (double& lr : lrs) lr /= 2;
    }
    return lrs;
  }
};

}  // namespace

TEST(SchedulerApi, LibTorchStyleSubclassStepsAsInLibTorch) {
  auto opt = sched_test::make_optimizer({0.8});
  SchedApiHalveEveryOther s(*opt);
  EXPECT_EQ(sched_test::group_lrs(*opt)[0], 0.8);  // no step at construction
  s.step();
  s.step();
  s.step();
  EXPECT_EQ(s.seen, (std::vector<unsigned>{0, 1, 2}));
  EXPECT_EQ(sched_test::group_lrs(*opt)[0], 0.4);
  EXPECT_EQ(s.get_last_lr(), std::vector<double>{0.4});
}

TEST(SchedulerApi, StepNumberKGivesPythonsEpochK) {
  auto opt = sched_test::make_optimizer({1.0, 0.5});
  StepLR s(*opt, 3, 0.1);
  EXPECT_EQ(s.last_epoch(), 0);
  EXPECT_EQ(s.step_count(), 1u);
  EXPECT_EQ(s.base_lrs(), (std::vector<double>{1.0, 0.5}));
  s.step();
  s.step();
  EXPECT_EQ(sched_test::group_lrs(*opt), (std::vector<double>{1.0, 0.5}));
  s.step();  // epoch 3: the first decay
  EXPECT_EQ(s.last_epoch(), 3);
  EXPECT_DOUBLE_EQ(sched_test::group_lrs(*opt)[0], 0.1);
  EXPECT_DOUBLE_EQ(sched_test::group_lrs(*opt)[1], 0.05);
}

TEST(SchedulerApi, StepWithEpochUsesTheClosedForm) {
  auto opt = sched_test::make_optimizer({1.0});
  StepLR s(*opt, 3, 0.5);
  s.step(10.0);
  EXPECT_EQ(s.last_epoch(), 10);
  EXPECT_EQ(sched_test::group_lrs(*opt)[0], 0.125);  // 0.5^(10 // 3)
  expect_error<ValueError>([&] { s.step(2.5); }, {"whole number", "2.5"});

  auto opt2 = sched_test::make_optimizer({0.3});
  LambdaLR lambda(*opt2, [](int64_t e) { return 1.0 / (e + 1); });
  lambda.step(4.0);  // no closed form: the recursive form at epoch 4
  EXPECT_DOUBLE_EQ(sched_test::group_lrs(*opt2)[0], 0.3 / 5);
}

TEST(SchedulerApi, WarmRestartsTakesFractionalEpochs) {
  auto opt = sched_test::make_optimizer({1.0});
  CosineAnnealingWarmRestarts s(*opt, 4);
  s.step(6.0);  // 2 into the second cycle of 4: the cosine's midpoint
  EXPECT_NEAR(sched_test::group_lrs(*opt)[0], 0.5, 1e-15);
  s.step(1.0);
  s.step(5.5);
  EXPECT_EQ(s.last_epoch(), 5);
  EXPECT_EQ(s.T_cur(), 1.5);
  expect_error<ValueError>([&] { s.step(-1.0); }, {"non-negative epoch", "-1"});
}

TEST(SchedulerApi, LaterSchedulersSeeTheInitialLr) {
  auto opt = sched_test::make_optimizer({0.2});
  ConstantLR warm(*opt, 0.5, 4);
  EXPECT_EQ(sched_test::group_lrs(*opt)[0], 0.1);
  ExponentialLR decay(*opt, 0.9);
  EXPECT_EQ(decay.base_lrs(), std::vector<double>{0.2});  // Python's initial_lr, not 0.1
}

TEST(SchedulerApi, PerGroupArguments) {
  auto opt = sched_test::make_optimizer({0.1, 0.2});
  CyclicLR s(*opt, {0.01, 0.02}, {0.1, 0.3}, 5);
  EXPECT_EQ(sched_test::group_lrs(*opt), (std::vector<double>{0.01, 0.02}));
  EXPECT_EQ(sched_test::group_momenta(*opt), (std::vector<double>{0.9, 0.9}));
  for (int k = 0; k < 5; ++k) s.step();  // the top of the cycle
  EXPECT_NEAR(sched_test::group_lrs(*opt)[0], 0.1, 1e-15);
  EXPECT_NEAR(sched_test::group_lrs(*opt)[1], 0.3, 1e-15);
  EXPECT_NEAR(sched_test::group_momenta(*opt)[0], 0.8, 1e-15);

  auto opt2 = sched_test::make_optimizer({0.1, 0.2});
  expect_error<ValueError>(
      [&] {
        CyclicLR(*opt2, {0.01, 0.02, 0.03}, 0.1);
      },
      {"CyclicLR", "expected 2 values for base_lr", "got 3"});
  expect_error<ValueError>(
      [&] { LambdaLR(*opt2, std::vector<LRLambda>{[](int64_t) { return 1.0; }}); },
      {"LambdaLR", "Expected 2 lr_lambdas, but got 1"});
}

TEST(SchedulerApi, CustomScaleFnReplacesTheMode) {
  auto opt1 = sched_test::make_optimizer({0.1});
  auto opt2 = sched_test::make_optimizer({0.1});
  CyclicLR triangular2(*opt1, 0.01, 0.1, 4, std::nullopt, CyclicLR::Mode::triangular2);
  CyclicLR custom(*opt2, 0.01, 0.1, 4, std::nullopt, CyclicLR::Mode::triangular, 1.0,
                  [](double cycle) { return 1 / std::pow(2.0, cycle - 1); });
  for (int k = 0; k < 30; ++k) {
    triangular2.step();
    custom.step();
    EXPECT_EQ(sched_test::group_lrs(*opt1), sched_test::group_lrs(*opt2)) << k;
  }
}

TEST(SchedulerApi, OneCycleCyclesAdamsBeta1AndStopsAtTotalSteps) {
  auto opt = sched_test::make_optimizer({0.1}, "adam");
  OneCycleLR s(*opt, 1.0, std::nullopt, /*epochs=*/2, /*steps_per_epoch=*/5);
  EXPECT_EQ(s.total_steps(), 10);
  // Epoch 0 is the cosine's start, max_lr / div_factor and max_momentum, reached through
  // end + (start - end) / 2 * 2 as Python's: a few ulp off.
  EXPECT_NEAR(sched_test::group_lrs(*opt)[0], 1.0 / 25, 1e-15);
  EXPECT_NEAR(sched_test::group_momenta(*opt)[0], 0.95, 1e-15);
  for (int k = 0; k < 10; ++k) s.step();  // Python allows total_steps steps after the first
  expect_error<ValueError>([&] { s.step(); },
                           {"OneCycleLR", "Tried to step 12 times", "total steps is 10"});
  auto opt2 = sched_test::make_optimizer({0.1});
  expect_error<ValueError>([&] { OneCycleLR(*opt2, 1.0); },
                           {"total_steps OR (epochs AND steps_per_epoch)"});
  expect_error<ValueError>([&] { OneCycleLR(*opt2, 1.0, 10, std::nullopt, std::nullopt, 1.5); },
                           {"pct_start", "1.5"});
}

TEST(SchedulerApi, CyclicMomentumNeedsAMomentumOptimizer) {
  auto opt = sched_test::make_optimizer({0.1}, "adam");
  expect_error<ValueError>([&] { CyclicLR(*opt, 0.01, 0.1); },
                           {"CyclicLR", "must support momentum", "cycle_momentum"});
  CyclicLR without(*opt, 0.01, 0.1, 2000, std::nullopt, CyclicLR::Mode::triangular, 1.0, nullptr,
                   CyclicLR::ScaleMode::cycle, /*cycle_momentum=*/false);
  EXPECT_EQ(sched_test::group_momenta(*opt)[0], 0.9);  // Adam's beta1 untouched
}

TEST(SchedulerApi, BadArgumentsAreErrors) {
  auto opt = sched_test::make_optimizer({0.1});
  expect_error<ValueError>([&] { StepLR(*opt, 0); }, {"StepLR", "step_size", "0"});
  expect_error<ValueError>([&] { ConstantLR(*opt, 1.5); },
                           {"ConstantLR", "between 0 and 1", "1.5"});
  expect_error<ValueError>([&] { LinearLR(*opt, 0.5, -0.1); },
                           {"LinearLR", "Ending multiplicative factor", "-0.1"});
  expect_error<ValueError>([&] { CosineAnnealingWarmRestarts(*opt, 0); },
                           {"Expected positive integer T_0", "0"});
  expect_error<ValueError>([&] { CosineAnnealingWarmRestarts(*opt, 2, 0); }, {"T_mult >= 1", "0"});
  expect_error<ValueError>([&] { PolynomialLR(*opt, 0); }, {"PolynomialLR", "total_iters"});
  using P = ReduceLROnPlateauScheduler;
  expect_error<ValueError>([&] { P(*opt, P::min, 1.0); }, {"Factor should be < 1.0", "1"});
  expect_error<ValueError>(
      [&] {
        P(*opt, P::min, 0.1, 10, 1e-4, P::rel, 0, {0.1, 0.2});
      },
      {"expected 1 values for min_lr", "got 2"});
}

TEST(SchedulerApi, CompositesCheckTheirSchedulers) {
  auto opt = sched_test::make_optimizer({0.1});
  auto other = sched_test::make_optimizer({0.1});
  ExponentialLR a(*opt, 0.9);
  ExponentialLR b(*other, 0.9);
  expect_error<ValueError>(
      [&] {
        ChainedScheduler({&a, &b});
      },
      {"ChainedScheduler", "same optimizer", "index 0 and 1"});
  expect_error<ValueError>([&] { ChainedScheduler({}); }, {"at least one scheduler"});
  ExponentialLR c(*opt, 0.8);
  expect_error<ValueError>(
      [&] {
        SequentialLR(*opt, {&a, &c}, {});
      },
      {"one more than the number of milestone", "2", "0"});
  expect_error<ValueError>([&] { SequentialLR(*opt, {&a, &b}, {3}); }, {"same optimizer"});
  SequentialLR seq(*opt, {&a, &c}, {3});
  expect_error([&] { seq.step(2.0); }, {"SequentialLR", "not supported"});
}

TEST(SchedulerApi, PlateauTakesLibTorchsArguments) {
  using P = ReduceLROnPlateauScheduler;
  auto opt = sched_test::make_optimizer({0.1, 0.01});
  // LibTorch's argument types: float factor and a float min_lr vector.
  P s(*opt, P::max, 0.5f, 0, 1e-4, P::abs, 0, std::vector<float>{0.06f, 0.001f});
  s.step(1.0);
  s.step(1.0);  // not better by more than 1e-4: one bad epoch > patience 0
  EXPECT_EQ(sched_test::group_lrs(*opt)[0], 0.06f);  // floored at min_lr
  EXPECT_EQ(sched_test::group_lrs(*opt)[1], 0.005);
  EXPECT_EQ(s.get_last_lr(), sched_test::group_lrs(*opt));
  s.step(1.0);  // 0.06 -> max(0.03, 0.06): no change for group 0
  EXPECT_EQ(sched_test::group_lrs(*opt)[0], 0.06f);
  EXPECT_EQ(sched_test::group_lrs(*opt)[1], 0.0025);
}
