#include "ember/optim/schedulers/reduce_on_plateau_scheduler.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "ember/serialize/archive.h"
#include "src/core/check.h"
#include "src/optim/schedulers/scheduler_archive.h"

namespace ember::optim {

ReduceLROnPlateauScheduler::ReduceLROnPlateauScheduler(
    Optimizer& optimizer, SchedulerMode mode, double factor, int patience, double threshold,
    ThresholdMode threshold_mode, int cooldown, const PerGroup& min_lr, double eps, bool verbose)
    : optimizer_(optimizer),
      mode_(mode),
      factor_(factor),
      patience_(patience),
      threshold_(threshold),
      threshold_mode_(threshold_mode),
      cooldown_(cooldown),
      eps_(eps),
      verbose_(verbose) {
  EMBER_CHECK_VALUE(factor < 1.0, "ReduceLROnPlateauScheduler: Factor should be < 1.0, got {}",
                    factor);
  EMBER_CHECK_VALUE(mode == min || mode == max, "ReduceLROnPlateauScheduler: mode {} is unknown",
                    static_cast<int>(mode));
  EMBER_CHECK_VALUE(threshold_mode == rel || threshold_mode == abs,
                    "ReduceLROnPlateauScheduler: threshold mode {} is unknown",
                    static_cast<int>(threshold_mode));
  const size_t n = optimizer.param_groups().size();
  min_lrs_ = min_lr.empty() ? std::vector<double>(n, 0.0)
                            : min_lr.expand(n, "ReduceLROnPlateauScheduler", "min_lr");
  reset();
  for (const auto& group : optimizer.param_groups()) last_lr_.push_back(group.options().get_lr());
}

void ReduceLROnPlateauScheduler::reset() {
  // Python's mode_worse: the worst value for the mode, so the first metric always improves.
  best_ = mode_ == min ? std::numeric_limits<double>::infinity()
                       : -std::numeric_limits<double>::infinity();
  cooldown_counter_ = 0;
  num_bad_epochs_ = 0;
}

bool ReduceLROnPlateauScheduler::is_better(double a) const {
  if (mode_ == min && threshold_mode_ == rel) return a < best_ * (1.0 - threshold_);
  if (mode_ == min && threshold_mode_ == abs) return a < best_ - threshold_;
  if (mode_ == max && threshold_mode_ == rel) return a > best_ * (threshold_ + 1.0);
  return a > best_ + threshold_;
}

void ReduceLROnPlateauScheduler::step(double metric) {
  const int64_t epoch = last_epoch_ + 1;
  last_epoch_ = epoch;
  if (is_better(metric)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    num_bad_epochs_ += 1;
  }
  if (in_cooldown()) {
    cooldown_counter_ -= 1;
    num_bad_epochs_ = 0;  // no epoch counts as bad while cooling down
  }
  if (num_bad_epochs_ > patience_) {
    reduce_lr(epoch);
    cooldown_counter_ = cooldown_;
    num_bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (const auto& group : optimizer_.param_groups()) last_lr_.push_back(group.options().get_lr());
}

void ReduceLROnPlateauScheduler::reduce_lr(int64_t epoch) {
  auto& groups = optimizer_.param_groups();
  for (size_t i = 0; i < groups.size(); ++i) {
    const double old_lr = groups[i].options().get_lr();
    const double new_lr = std::max(old_lr * factor_, i < min_lrs_.size() ? min_lrs_[i] : 0.0);
    // Changes smaller than eps are ignored, as Python's.
    if (old_lr - new_lr > eps_) {
      groups[i].options().set_lr(new_lr);
      if (verbose_) {
        std::printf("Epoch %05lld: reducing learning rate of group %zu to %.4e.\n",
                    static_cast<long long>(epoch), i, new_lr);
      }
    }
  }
}

void ReduceLROnPlateauScheduler::save(serialize::OutputArchive& archive) const {
  archive.write("last_epoch", last_epoch_);
  archive.write("best", best_);
  archive.write("num_bad_epochs", static_cast<int64_t>(num_bad_epochs_));
  archive.write("cooldown_counter", static_cast<int64_t>(cooldown_counter_));
  archive.write("last_lr", last_lr_);
}

void ReduceLROnPlateauScheduler::load(serialize::InputArchive& archive) {
  auto& groups = optimizer_.param_groups();
  const int64_t last_epoch = sched_read_int(archive, "last_epoch");
  const double best = sched_read_double(archive, "best");
  const int64_t num_bad = sched_read_int(archive, "num_bad_epochs");
  const int64_t cooldown_counter = sched_read_int(archive, "cooldown_counter");
  const std::vector<double> last_lr = sched_read_doubles(archive, "last_lr", groups.size());
  last_epoch_ = last_epoch;
  best_ = best;
  num_bad_epochs_ = static_cast<int>(num_bad);
  cooldown_counter_ = static_cast<int>(cooldown_counter);
  last_lr_ = last_lr;
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(last_lr_[i]);
}

}  // namespace ember::optim
