// Schedulers built from other schedulers: Python's SequentialLR (one after another, switching at
// milestones) and ChainedScheduler (all at once, each multiplying in its step). The composite
// keeps references: the schedulers and their optimizer must outlive it.
//   LinearLR warmup(opt, 0.1, 1.0, 5);
//   ExponentialLR decay(opt, 0.9);
//   SequentialLR sched(opt, {&warmup, &decay}, {5});
#pragma once

#include <cstdint>
#include <vector>

#include "ember/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

/// Runs schedulers[0] until milestones[0], then schedulers[1] (restarted at its epoch 0), ...
class EMBER_API SequentialLR : public LRScheduler {
 public:
  /// Error unless every scheduler drives `optimizer` and there is one milestone fewer than
  /// schedulers. Resets the groups' lr to their initial values and replays schedulers[0]'s
  /// initial step, as Python.
  SequentialLR(Optimizer& optimizer, std::vector<LRScheduler*> schedulers,
               std::vector<int64_t> milestones);

  void step() override;
  /// Not supported (Python's SequentialLR has no step(epoch)): Error.
  void step(double epoch) override;

  /// Also saves/loads every child scheduler (under "schedulers/<i>").
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

 protected:
  std::vector<double> get_lrs() override;

 private:
  std::vector<LRScheduler*> schedulers_;
  std::vector<int64_t> milestones_;
};

/// Steps every scheduler in order on each step().
class EMBER_API ChainedScheduler : public LRScheduler {
 public:
  /// Error unless there is at least one scheduler and all drive the same optimizer.
  explicit ChainedScheduler(std::vector<LRScheduler*> schedulers);

  void step() override;
  /// Not supported (Python's ChainedScheduler has no step(epoch)): Error.
  void step(double epoch) override;

  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

 protected:
  std::vector<double> get_lrs() override;

 private:
  std::vector<LRScheduler*> schedulers_;
};

}  // namespace ember::optim
