// The base of every epoch-driven learning-rate scheduler: LibTorch's torch::optim::LRScheduler,
// extended with what Python's torch.optim.lr_scheduler._LRScheduler has (get_last_lr, last_epoch,
// base_lrs, state save/load).
//
//   ember::optim::SGD opt(params, ember::optim::SGDOptions(0.1));
//   ember::optim::StepLR sched(opt, /*step_size=*/30, /*gamma=*/0.1);
//   for (int epoch = 0; epoch < 100; ++epoch) { train(opt); sched.step(); }
//
// The learning rate lives in each param group's options (group.options().get_lr()/set_lr()).
// Every scheduler Ember provides takes Python's "initial step" in its constructor (last_epoch
// goes from -1 to 0 and the group learning rates take their epoch-0 values), so step() number k
// produces Python's learning rate for epoch k. A user subclass written for LibTorch (it overrides
// get_lrs() and reads step_count_) keeps LibTorch's behaviour: nothing happens at construction.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "ember/core/macros.h"
#include "ember/optim/optimizer.h"

namespace ember::optim {

/// A hyper-parameter given once for all param groups or once per group (Python's float or list):
/// CyclicLR(opt, 0.01, 0.1) or CyclicLR(opt, {0.01, 0.02}, {0.1, 0.2}).
class EMBER_API PerGroup {
 public:
  /// One value for every group (implicit, as Python's float).
  PerGroup(double value) : values_{value} {}  // NOLINT
  /// One value per group, in group order.
  PerGroup(std::vector<double> values) : values_(std::move(values)), per_group_(true) {}  // NOLINT
  /// One value per group, from LibTorch's float vectors (ReduceLROnPlateauScheduler's min_lr).
  PerGroup(const std::vector<float>& values)  // NOLINT
      : values_(values.begin(), values.end()), per_group_(true) {}
  /// One value per group: {0.01, 0.02}.
  PerGroup(std::initializer_list<double> values) : values_(values), per_group_(true) {}
  /// True for an empty list (ReduceLROnPlateauScheduler reads it as "no floor").
  bool empty() const noexcept { return values_.empty(); }
  /// One value per group; Error naming `scheduler` and `name` when a list has the wrong length.
  std::vector<double> expand(size_t n_groups, const char* scheduler, const char* name) const;

 private:
  std::vector<double> values_;
  bool per_group_ = false;
};

/// The base of the epoch-driven schedulers: subclasses compute every group's lr in get_lrs().
class EMBER_API LRScheduler {
 public:
  /// Attaches to `optimizer`, which must outlive the scheduler. base_lrs() are the groups'
  /// "initial" learning rates: the current ones, unless another live scheduler on the same
  /// optimizer recorded them first (Python's param_group['initial_lr']).
  explicit LRScheduler(Optimizer& optimizer);
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;
  virtual ~LRScheduler();

  /// Advances one epoch and writes the new learning rates into the optimizer's param groups.
  virtual void step();
  /// Python's step(epoch): jumps to `epoch`, using the scheduler's closed form where it has one
  /// (StepLR, MultiStepLR, ExponentialLR, ConstantLR, LinearLR, PolynomialLR,
  /// CosineAnnealingLR) and its recursive form otherwise. `epoch` must be a whole number except
  /// for CosineAnnealingWarmRestarts, which accepts fractions.
  virtual void step(double epoch);

  /// The learning rate of every param group after the last step.
  const std::vector<double>& get_last_lr() const noexcept { return last_lr_; }
  /// The epoch of the last step: 0 right after construction (Python's last_epoch).
  int64_t last_epoch() const noexcept { return last_epoch_; }
  /// The initial learning rate of every param group.
  const std::vector<double>& base_lrs() const noexcept { return base_lrs_; }
  /// The number of steps taken, the constructor's initial step included.
  unsigned step_count() const noexcept { return step_count_; }
  /// The optimizer whose learning rates this scheduler sets.
  Optimizer& optimizer() noexcept { return optimizer_; }
  const Optimizer& optimizer() const noexcept { return optimizer_; }

  /// Writes last_epoch, the step count, base_lrs, the last learning rates and the scheduler's
  /// own counters into `archive`.
  virtual void save(serialize::OutputArchive& archive) const;
  /// Restores what save() wrote (into a scheduler of the same kind over an optimizer with the
  /// same number of groups) and writes the restored learning rates into the optimizer, so
  /// training continues as if uninterrupted. Error naming the key when the archive does not fit.
  virtual void load(serialize::InputArchive& archive);

 protected:
  /// The learning rate of every param group at epoch last_epoch() (already advanced): the
  /// recursive ("chainable") form, which may read the groups' current learning rates.
  virtual std::vector<double> get_lrs() = 0;
  /// The closed form at last_epoch(), used by step(epoch); empty when the scheduler has none.
  virtual std::vector<double> closed_form_lrs() { return {}; }
  /// The current learning rate of every param group.
  std::vector<double> get_current_lrs() const;
  /// Python's _initial_step: resets the step count and takes the first step. Called at the end
  /// of every concrete scheduler's constructor.
  void initial_step();
  /// Writes `learning_rates` (one per group) into the optimizer and records them as last lr.
  void set_optimizer_lrs(const std::vector<double>& learning_rates);
  /// Records `lrs` as the groups' initial learning rates for later schedulers (OneCycleLR).
  void set_initial_lrs(const std::vector<double>& lrs);

  /// LibTorch's counter: steps taken so far (read by LibTorch-style get_lrs overrides).
  unsigned step_count_ = 0;
  int64_t last_epoch_ = -1;
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;

 private:
  // The composites replay a child's initial step and rewind its epoch, as Python's do.
  friend class SequentialLR;
  friend class ChainedScheduler;

  Optimizer& optimizer_;
};

}  // namespace ember::optim
