// Scheduler save/load: run N steps, save, load into a fresh scheduler over a fresh optimizer,
// continue: the learning rates (and cycled momenta) are those of an uninterrupted run.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/serialize/archive.h"
#include "tests/schedulers/sched_test_util.h"
#include "tests/support/expect_error.h"

using namespace ember;
using namespace ember::optim;

namespace {

using ember_test::expect_error;

// The schedulers of one run: children first, the one to step last.
struct SchedStateRun {
  std::vector<std::unique_ptr<LRScheduler>> owned;
  LRScheduler* add(std::unique_ptr<LRScheduler> s) {
    owned.push_back(std::move(s));
    return owned.back().get();
  }
  LRScheduler& top() { return *owned.back(); }
};
using SchedStateMaker = std::function<void(SchedStateRun&, Optimizer&)>;

struct SchedStateCase {
  std::string name;
  std::string optimizer;
  SchedStateMaker make;
};

std::vector<SchedStateCase> sched_state_cases() {
  using R = SchedStateRun;
  using O = Optimizer;
  return {
      {"StepLR", "sgd", [](R& r, O& o) { r.add(std::make_unique<StepLR>(o, 7, 0.5)); }},
      {"MultiStepLR", "sgd",
       [](R& r, O& o) {
         r.add(std::make_unique<MultiStepLR>(o, std::vector<int64_t>{5, 40}, 0.3));
       }},
      {"ExponentialLR", "sgd", [](R& r, O& o) { r.add(std::make_unique<ExponentialLR>(o, 0.97)); }},
      {"PolynomialLR", "sgd",
       [](R& r, O& o) { r.add(std::make_unique<PolynomialLR>(o, 60, 2.0)); }},
      {"ConstantLR", "sgd", [](R& r, O& o) { r.add(std::make_unique<ConstantLR>(o, 0.5, 45)); }},
      {"LinearLR", "sgd", [](R& r, O& o) { r.add(std::make_unique<LinearLR>(o, 0.1, 1.0, 50)); }},
      {"LambdaLR", "sgd",
       [](R& r, O& o) {
         r.add(std::make_unique<LambdaLR>(o, [](int64_t e) { return 1.0 / (1.0 + e); }));
       }},
      {"MultiplicativeLR", "sgd",
       [](R& r, O& o) {
         r.add(std::make_unique<MultiplicativeLR>(o, [](int64_t) { return 0.98; }));
       }},
      {"CosineAnnealingLR", "sgd",
       [](R& r, O& o) { r.add(std::make_unique<CosineAnnealingLR>(o, 23, 1e-3)); }},
      {"CosineAnnealingWarmRestarts", "sgd",
       [](R& r, O& o) { r.add(std::make_unique<CosineAnnealingWarmRestarts>(o, 3, 2, 1e-4)); }},
      {"CyclicLR", "sgd",
       [](R& r, O& o) {
         r.add(std::make_unique<CyclicLR>(o, 0.01, 0.1, 9, 4, CyclicLR::Mode::triangular2));
       }},
      {"OneCycleLR", "adam", [](R& r, O& o) { r.add(std::make_unique<OneCycleLR>(o, 0.4, 100)); }},
      {"SequentialLR", "sgd",
       [](R& r, O& o) {
         auto* a = r.add(std::make_unique<LinearLR>(o, 0.2, 1.0, 10));
         auto* b = r.add(std::make_unique<CosineAnnealingLR>(o, 30));
         r.add(std::make_unique<SequentialLR>(o, std::vector<LRScheduler*>{a, b},
                                              std::vector<int64_t>{30}));
       }},
      {"ChainedScheduler", "sgd",
       [](R& r, O& o) {
         auto* a = r.add(std::make_unique<ConstantLR>(o, 0.5, 35));
         auto* b = r.add(std::make_unique<ExponentialLR>(o, 0.97));
         r.add(std::make_unique<ChainedScheduler>(std::vector<LRScheduler*>{a, b}));
       }},
  };
}

// The lrs and momenta after each of `steps` steps.
std::vector<std::vector<double>> sched_state_steps(Optimizer& opt, LRScheduler& s, int steps) {
  std::vector<std::vector<double>> out;
  for (int k = 0; k < steps; ++k) {
    s.step();
    out.push_back(sched_test::group_lrs(opt));
    out.push_back(sched_test::group_momenta(opt));
  }
  return out;
}

serialize::InputArchive sched_state_reader(const serialize::OutputArchive& out) {
  return serialize::InputArchive(std::make_shared<serialize::ArchiveNode>(out.root()));
}

}  // namespace

TEST(SchedulerState, SaveLoadContinuesAsUninterrupted) {
  constexpr int kBefore = 37;  // inside warm-up, cycles and milestones of every case
  constexpr int kAfter = 50;
  for (const SchedStateCase& c : sched_state_cases()) {
    SCOPED_TRACE(c.name);
    const std::vector<double> lrs{0.1, 0.03};
    auto ref_opt = sched_test::make_optimizer(lrs, c.optimizer);
    SchedStateRun ref;
    c.make(ref, *ref_opt);
    sched_state_steps(*ref_opt, ref.top(), kBefore);
    const auto expected = sched_state_steps(*ref_opt, ref.top(), kAfter);
    ref.owned.clear();

    auto opt1 = sched_test::make_optimizer(lrs, c.optimizer);
    serialize::OutputArchive archive;
    {
      SchedStateRun first;
      c.make(first, *opt1);
      sched_state_steps(*opt1, first.top(), kBefore);
      first.top().save(archive);
    }
    auto opt2 = sched_test::make_optimizer(lrs, c.optimizer);
    SchedStateRun resumed;
    c.make(resumed, *opt2);
    auto reader = sched_state_reader(archive);
    resumed.top().load(reader);
    EXPECT_EQ(resumed.top().last_epoch(), kBefore);
    EXPECT_EQ(sched_test::group_lrs(*opt2), sched_test::group_lrs(*opt1));
    EXPECT_EQ(sched_state_steps(*opt2, resumed.top(), kAfter), expected);
  }
}

TEST(SchedulerState, WarmRestartsSavesItsCycle) {
  auto opt = sched_test::make_optimizer({0.1});
  CosineAnnealingWarmRestarts s(*opt, 2, 3);
  for (int k = 0; k < 9; ++k) s.step();  // cycles of 2, 6, 18: epoch 9 is 1 into the third
  EXPECT_EQ(s.T_i(), 18);
  EXPECT_EQ(s.T_cur(), 1);
  serialize::OutputArchive out;
  s.save(out);
  auto opt2 = sched_test::make_optimizer({0.1});
  CosineAnnealingWarmRestarts s2(*opt2, 2, 3);
  auto in = sched_state_reader(out);
  s2.load(in);
  EXPECT_EQ(s2.T_i(), 18);
  EXPECT_EQ(s2.T_cur(), 1);
}

TEST(SchedulerState, PlateauSavesCountersAndBest) {
  using P = ReduceLROnPlateauScheduler;
  const std::vector<double> metrics{1.0, 0.9, 0.95, 0.96, 0.97, 0.98, 0.99, 0.5, 0.6, 0.7,
                                    0.8, 0.9, 1.0,  1.1,  1.2,  1.3,  1.4,  1.5, 1.6, 1.7};
  auto run = [&](P& s, Optimizer& opt, size_t from, size_t to) {
    std::vector<double> lrs;
    for (size_t k = from; k < to; ++k) {
      s.step(metrics[k]);
      lrs.push_back(sched_test::group_lrs(opt)[0]);
    }
    return lrs;
  };
  auto ref_opt = sched_test::make_optimizer({0.1});
  P ref(*ref_opt, P::min, 0.5, 2, 1e-4, P::rel, 1);
  run(ref, *ref_opt, 0, 10);
  const auto expected = run(ref, *ref_opt, 10, metrics.size());

  auto opt1 = sched_test::make_optimizer({0.1});
  P first(*opt1, P::min, 0.5, 2, 1e-4, P::rel, 1);
  run(first, *opt1, 0, 10);
  serialize::OutputArchive out;
  first.save(out);
  auto opt2 = sched_test::make_optimizer({0.1});
  P resumed(*opt2, P::min, 0.5, 2, 1e-4, P::rel, 1);
  auto in = sched_state_reader(out);
  resumed.load(in);
  EXPECT_EQ(resumed.best(), first.best());
  EXPECT_EQ(resumed.num_bad_epochs(), first.num_bad_epochs());
  EXPECT_EQ(resumed.cooldown_counter(), first.cooldown_counter());
  EXPECT_EQ(resumed.last_epoch(), 10);
  EXPECT_EQ(run(resumed, *opt2, 10, metrics.size()), expected);
}

TEST(SchedulerState, LoadRejectsAnArchiveForOtherGroups) {
  auto opt1 = sched_test::make_optimizer({0.1, 0.2});
  StepLR s1(*opt1, 3);
  serialize::OutputArchive out;
  s1.save(out);
  auto opt2 = sched_test::make_optimizer({0.1});
  StepLR s2(*opt2, 3);
  auto in = sched_state_reader(out);
  expect_error([&] { s2.load(in); }, {"base_lrs", "2 values, expected 1"});
  serialize::OutputArchive empty;
  auto in_empty = sched_state_reader(empty);
  expect_error([&] { s2.load(in_empty); }, {"last_epoch"});
  EXPECT_EQ(s2.last_epoch(), 0);  // untouched
}
