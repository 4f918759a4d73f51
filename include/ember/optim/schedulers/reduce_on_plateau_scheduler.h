// LibTorch's torch::optim::ReduceLROnPlateauScheduler (Python's ReduceLROnPlateau): divides the
// learning rate by 1/factor when a metric has stopped improving for `patience` epochs. It is not
// an LRScheduler (its step takes the metric), as in LibTorch.
//   ReduceLROnPlateauScheduler sched(opt, ReduceLROnPlateauScheduler::min, 0.5, 3);
//   for (...) { train(opt); sched.step(validation_loss); }
// LibTorch declares factor, min_lr and the metric as float; Ember takes double so the numbers
// match Python's exactly (float arguments convert implicitly).
#pragma once

#include <vector>

#include "ember/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class EMBER_API ReduceLROnPlateauScheduler {
 public:
  /// min: a lower metric is better; max: a higher one.
  enum SchedulerMode { min, max };
  /// rel: better means beyond best * (1 -/+ threshold); abs: beyond best -/+ threshold.
  enum ThresholdMode { rel, abs };

  /// Error unless factor < 1. min_lr: one floor for all groups, one per group, or none (0).
  ReduceLROnPlateauScheduler(Optimizer& optimizer, SchedulerMode mode = min, double factor = 0.1,
                             int patience = 10, double threshold = 1e-4,
                             ThresholdMode threshold_mode = rel, int cooldown = 0,
                             const PerGroup& min_lr = std::vector<double>(), double eps = 1e-8,
                             bool verbose = false);
  virtual ~ReduceLROnPlateauScheduler() = default;

  /// Records one epoch's metric and reduces the lr when it has plateaued.
  void step(double metric);

  /// The lr of every group after the last step (their current lr before the first).
  const std::vector<double>& get_last_lr() const noexcept { return last_lr_; }
  /// The number of step() calls so far.
  int64_t last_epoch() const noexcept { return last_epoch_; }
  /// The best metric so far (+inf in min mode, -inf in max mode before the first step).
  double best() const noexcept { return best_; }
  /// The epochs since the metric last improved, not counting those in cooldown.
  int num_bad_epochs() const noexcept { return num_bad_epochs_; }
  /// The epochs of cooldown left after the last reduction.
  int cooldown_counter() const noexcept { return cooldown_counter_; }

  /// Writes/reads last_epoch, best, num_bad_epochs, cooldown_counter and the last lr (load
  /// also writes that lr into the optimizer).
  void save(serialize::OutputArchive& archive) const;
  void load(serialize::InputArchive& archive);

 private:
  void reset();
  void reduce_lr(int64_t epoch);
  bool in_cooldown() const { return cooldown_counter_ > 0; }
  bool is_better(double a) const;

  Optimizer& optimizer_;
  SchedulerMode mode_;
  double factor_;
  int patience_;
  double threshold_;
  ThresholdMode threshold_mode_;
  int cooldown_;
  int cooldown_counter_ = 0;
  std::vector<double> min_lrs_;
  double eps_;
  double best_ = 0;
  bool verbose_;
  int64_t last_epoch_ = 0;
  int num_bad_epochs_ = 0;
  std::vector<double> last_lr_;
};

}  // namespace ember::optim
