// Every scheduler against torch.optim.lr_scheduler (tests/golden/lr_scheduler.golden, written by
// tests/golden/gen/lr_scheduler.py, whose docstring gives each record's layout): the lr of every
// param group after construction and after each of 110 steps, and the momentum where it cycles.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "tests/schedulers/sched_test_util.h"
#include "tests/support/golden.h"

using namespace ember;
using namespace ember::optim;

namespace {

// What one case runs: the schedulers it built (children first) and how to step it.
struct SchedGoldenDriver {
  std::vector<std::unique_ptr<LRScheduler>> owned;
  std::unique_ptr<ReduceLROnPlateauScheduler> plateau;
  LRScheduler* main = nullptr;
  LRScheduler* adopt(std::unique_ptr<LRScheduler> s) {
    owned.push_back(std::move(s));
    return main = owned.back().get();
  }
};
using SchedGoldenBuilder = std::function<void(SchedGoldenDriver&, Optimizer&, const GoldenCase&)>;

// The generator's named functions (gen/lr_scheduler.py: LAMBDAS, MULTIPLIERS).
LRLambda sched_golden_lambda(const std::string& name) {
  if (name == "pow") return [](int64_t e) { return std::pow(0.95, static_cast<double>(e)); };
  if (name == "inv") return [](int64_t e) { return 1.0 / static_cast<double>(e + 1); };
  if (name == "const") return [](int64_t) { return 0.97; };
  if (name == "alt") return [](int64_t e) { return e % 2 == 0 ? 0.9 : 1.05; };
  throw std::runtime_error("unknown lambda " + name);
}

std::vector<LRLambda> sched_golden_lambdas(const GoldenCase& c) {
  std::vector<LRLambda> fns;
  for (size_t i = 1; i < c.strs.size(); ++i) fns.push_back(sched_golden_lambda(c.strs[i]));
  return fns;
}

const std::map<std::string, SchedGoldenBuilder>& sched_golden_builders() {
  using D = SchedGoldenDriver;
  using C = const GoldenCase&;
  static const std::map<std::string, SchedGoldenBuilder> builders = {
      {"step",
       [](D& d, Optimizer& o, C c) {
         d.adopt(std::make_unique<StepLR>(o, static_cast<unsigned>(c.ints[1]), c.scalars[0]));
       }},
      {"multistep",
       [](D& d, Optimizer& o, C c) {
         d.adopt(std::make_unique<MultiStepLR>(o, c.int_lists[0], c.scalars[0]));
       }},
      {"exponential",
       [](D& d, Optimizer& o, C c) { d.adopt(std::make_unique<ExponentialLR>(o, c.scalars[0])); }},
      {"polynomial",
       [](D& d, Optimizer& o, C c) {
         d.adopt(std::make_unique<PolynomialLR>(o, c.ints[1], c.scalars[0]));
       }},
      {"constant", [](D& d, Optimizer& o,
                      C c) { d.adopt(std::make_unique<ConstantLR>(o, c.scalars[0], c.ints[1])); }},
      {"linear",
       [](D& d, Optimizer& o, C c) {
         d.adopt(std::make_unique<LinearLR>(o, c.scalars[0], c.scalars[1], c.ints[1]));
       }},
      {"lambda",
       [](D& d, Optimizer& o, C c) {
         auto fns = sched_golden_lambdas(c);
         if (fns.size() == 1) {
           d.adopt(std::make_unique<LambdaLR>(o, fns[0]));
         } else {
           d.adopt(std::make_unique<LambdaLR>(o, fns));
         }
       }},
      {"multiplicative",
       [](D& d, Optimizer& o, C c) {
         d.adopt(std::make_unique<MultiplicativeLR>(o, sched_golden_lambdas(c).at(0)));
       }},
      {"cosine",
       [](D& d, Optimizer& o, C c) {
         d.adopt(std::make_unique<CosineAnnealingLR>(o, c.ints[1], c.scalars[0]));
       }},
      {"warm_restarts",
       [](D& d, Optimizer& o, C c) {
         d.adopt(
             std::make_unique<CosineAnnealingWarmRestarts>(o, c.ints[1], c.ints[2], c.scalars[0]));
       }},
      {"cyclic",
       [](D& d, Optimizer& o, C c) {
         const std::string& m = c.strs[1];
         const auto mode = m == "triangular"    ? CyclicLR::Mode::triangular
                           : m == "triangular2" ? CyclicLR::Mode::triangular2
                                                : CyclicLR::Mode::exp_range;
         std::optional<int64_t> down;
         if (c.ints[2] >= 0) down = c.ints[2];
         d.adopt(std::make_unique<CyclicLR>(o, c.scalars[0], c.scalars[1], c.ints[1], down, mode,
                                            c.scalars[2], nullptr, CyclicLR::ScaleMode::cycle,
                                            c.ints[3] != 0, c.scalars[3], c.scalars[4]));
       }},
      {"onecycle",
       [](D& d, Optimizer& o, C c) {
         const auto anneal = c.strs[1] == "cos" ? OneCycleLR::AnnealStrategy::cos
                                                : OneCycleLR::AnnealStrategy::linear;
         d.adopt(std::make_unique<OneCycleLR>(o, c.scalars[0], c.ints[1], std::nullopt,
                                              std::nullopt, c.scalars[1], anneal, c.ints[3] != 0,
                                              c.scalars[4], c.scalars[5], c.scalars[2],
                                              c.scalars[3], c.ints[2] != 0));
       }},
      {"plateau",
       [](D& d, Optimizer& o, C c) {
         using P = ReduceLROnPlateauScheduler;
         d.plateau = std::make_unique<P>(o, c.strs[1] == "min" ? P::min : P::max, c.scalars[0],
                                         static_cast<int>(c.ints[1]), c.scalars[1],
                                         c.strs[2] == "rel" ? P::rel : P::abs,
                                         static_cast<int>(c.ints[2]), c.scalars[2], c.scalars[3]);
       }},
      {"sequential",
       [](D& d, Optimizer& o, C c) {
         LRScheduler* first;
         LRScheduler* second;
         if (c.strs[1] == "linear_exponential") {
           first = d.adopt(std::make_unique<LinearLR>(o, 0.1, 1.0, 4));
           second = d.adopt(std::make_unique<ExponentialLR>(o, 0.9));
         } else {
           first = d.adopt(std::make_unique<ConstantLR>(o, 0.5, 3));
           second = d.adopt(std::make_unique<CosineAnnealingLR>(o, 20, 1e-4));
         }
         d.adopt(std::make_unique<SequentialLR>(o, std::vector<LRScheduler*>{first, second},
                                                c.int_lists[0]));
       }},
      {"chained",
       [](D& d, Optimizer& o, C c) {
         LRScheduler* first;
         LRScheduler* second;
         if (c.strs[1] == "constant_exponential") {
           first = d.adopt(std::make_unique<ConstantLR>(o, 0.5, 7));
           second = d.adopt(std::make_unique<ExponentialLR>(o, 0.95));
         } else {
           first = d.adopt(std::make_unique<LinearLR>(o, 0.2, 1.0, 10));
           second = d.adopt(std::make_unique<CosineAnnealingLR>(o, 15));
         }
         d.adopt(std::make_unique<ChainedScheduler>(std::vector<LRScheduler*>{first, second}));
       }},
  };
  return builders;
}

std::vector<double> sched_golden_doubles(const Tensor& t) {
  Tensor c = t.to(kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

Tensor sched_golden_table(const std::vector<std::vector<double>>& rows) {
  std::vector<double> flat;
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  const int64_t n = static_cast<int64_t>(rows.size());
  return from_blob(flat.data(), {n, static_cast<int64_t>(flat.size()) / n},
                   TensorOptions().dtype(kFloat64))
      .clone();
}

void sched_golden_run(const GoldenCase& c) {
  SCOPED_TRACE(c.location + " " + c.name + ": " + c.call);
  const auto it = sched_golden_builders().find(c.op());
  ASSERT_NE(it, sched_golden_builders().end()) << "no builder for " << c.op();
  auto opt = sched_test::make_optimizer(sched_golden_doubles(c.args[0]), c.strs[0]);
  SchedGoldenDriver d;
  it->second(d, *opt, c);
  const std::vector<double> per_step =
      c.args.size() > 1 ? sched_golden_doubles(c.args[1]) : std::vector<double>();
  std::vector<std::vector<double>> lrs{sched_test::group_lrs(*opt)};
  std::vector<std::vector<double>> moms{sched_test::group_momenta(*opt)};
  for (int64_t k = 0; k < c.ints[0]; ++k) {
    if (d.plateau) {
      d.plateau->step(per_step[k]);
    } else if (!per_step.empty()) {
      d.main->step(per_step[k]);
    } else {
      d.main->step();
    }
    lrs.push_back(sched_test::group_lrs(*opt));
    moms.push_back(sched_test::group_momenta(*opt));
    if (d.main) {
      EXPECT_EQ(d.main->get_last_lr(), lrs.back()) << "get_last_lr after step " << k + 1;
    }
  }
  // The same float64 operations in the same order as Python's recursive forms: measured
  // bit-identical; 1e-12 leaves room for a libm cos/pow that rounds differently. A schedule
  // off by one epoch or a wrong branch misses by far more.
  expect_close(sched_golden_table(lrs), c.outs[0], 1e-12, 1e-15, c.name + " lr");
  if (c.outs.size() > 1) {
    expect_close(sched_golden_table(moms), c.outs[1], 1e-12, 1e-15, c.name + " momentum");
  }
}

}  // namespace

TEST(SchedulerGolden, EveryCaseMatchesPyTorch) {
  const auto cases = load_golden("lr_scheduler");
  ASSERT_GE(cases.size(), 40u);
  for (const GoldenCase& c : cases) sched_golden_run(c);
}

TEST(SchedulerGolden, EverySchedulerHasCases) {
  const auto cases = load_golden("lr_scheduler");
  for (const auto& [op, builder] : sched_golden_builders()) {
    EXPECT_GE(golden_cases_for(cases, op).size(), 2u) << op;
  }
  for (const GoldenCase& c : cases) EXPECT_TRUE(sched_golden_builders().count(c.op())) << c.name;
}
