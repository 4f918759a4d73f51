#include "ember/optim/schedulers/cyclic_lr.h"

#include <cmath>

#include "src/core/check.h"
#include "src/optim/schedulers/momentum_access.h"

namespace ember::optim {

namespace {
constexpr double kCyclicPi = 3.141592653589793;  // Python's math.pi
}  // namespace

CyclicLR::CyclicLR(Optimizer& optimizer, PerGroup base_lr, PerGroup max_lr, int64_t step_size_up,
                   std::optional<int64_t> step_size_down, Mode mode, double gamma, ScaleFn scale_fn,
                   ScaleMode scale_mode, bool cycle_momentum, PerGroup base_momentum,
                   PerGroup max_momentum)
    : LRScheduler(optimizer),
      mode_(mode),
      gamma_(gamma),
      scale_fn_(std::move(scale_fn)),
      cycle_momentum_(cycle_momentum) {
  auto& groups = optimizer.param_groups();
  const size_t n = groups.size();
  const std::vector<double> base_lrs = base_lr.expand(n, "CyclicLR", "base_lr");
  max_lrs_ = max_lr.expand(n, "CyclicLR", "max_lr");
  EMBER_CHECK_VALUE(step_size_up >= 1, "CyclicLR: step_size_up must be >= 1, got {}", step_size_up);
  EMBER_CHECK_VALUE(!step_size_down || *step_size_down >= 0,
                    "CyclicLR: step_size_down must be >= 0, got {}", step_size_down.value_or(0));
  const double up = static_cast<double>(step_size_up);
  const double down = step_size_down ? static_cast<double>(*step_size_down) : up;
  total_size_ = up + down;
  step_ratio_ = up / total_size_;
  // Python fixes the scale mode by `mode` unless a custom scale_fn is given.
  if (scale_fn_) {
    scale_mode_ = scale_mode;
  } else {
    scale_mode_ = mode == Mode::exp_range ? ScaleMode::iterations : ScaleMode::cycle;
  }
  SchedMomentumKind kind = SchedMomentumKind::none;
  if (cycle_momentum_) {
    kind = sched_momentum_kind(optimizer.defaults());
    EMBER_CHECK_VALUE(kind == SchedMomentumKind::momentum,
                      "CyclicLR: optimizer must support momentum with `cycle_momentum` option "
                      "enabled. Hint: use SGD or RMSprop, or pass cycle_momentum = false");
    base_momentums_ = base_momentum.expand(n, "CyclicLR", "base_momentum");
    max_momentums_ = max_momentum.expand(n, "CyclicLR", "max_momentum");
    for (size_t i = 0; i < n; ++i) {
      sched_set_momentum(groups[i].options(), kind, base_momentums_[i]);
    }
  }
  // Python sets the groups' lr to base_lr before its base class records initial_lr; here the
  // base class ran first, so record them now (a fresh optimizer ends the same way).
  for (size_t i = 0; i < n; ++i) groups[i].options().set_lr(base_lrs[i]);
  set_initial_lrs(base_lrs);
  initial_step();
}

double CyclicLR::scale(double x) const {
  if (scale_fn_) return scale_fn_(x);
  switch (mode_) {
    case Mode::triangular:
      return 1.0;
    case Mode::triangular2:
      return 1 / std::pow(2.0, x - 1);
    case Mode::exp_range:
      return std::pow(gamma_, x);
  }
  return 1.0;
}

std::vector<double> CyclicLR::get_lrs() {
  const double epoch = static_cast<double>(last_epoch_);
  const double cycle = std::floor(1 + epoch / total_size_);
  const double x = 1. + epoch / total_size_ - cycle;
  const double scale_factor = x <= step_ratio_ ? x / step_ratio_ : (x - 1) / (step_ratio_ - 1);
  const double factor = scale(scale_mode_ == ScaleMode::cycle ? cycle : epoch);
  std::vector<double> lrs(base_lrs_.size());
  for (size_t i = 0; i < lrs.size(); ++i) {
    const double base_height = (max_lrs_[i] - base_lrs_[i]) * scale_factor;
    lrs[i] = base_lrs_[i] + base_height * factor;
  }
  if (cycle_momentum_) {
    auto& groups = optimizer().param_groups();
    for (size_t i = 0; i < groups.size(); ++i) {
      const double base_height = (max_momentums_[i] - base_momentums_[i]) * scale_factor;
      sched_set_momentum(groups[i].options(), SchedMomentumKind::momentum,
                         max_momentums_[i] - base_height * factor);
    }
  }
  return lrs;
}

OneCycleLR::OneCycleLR(Optimizer& optimizer, PerGroup max_lr, std::optional<int64_t> total_steps,
                       std::optional<int64_t> epochs, std::optional<int64_t> steps_per_epoch,
                       double pct_start, AnnealStrategy anneal_strategy, bool cycle_momentum,
                       PerGroup base_momentum, PerGroup max_momentum, double div_factor,
                       double final_div_factor, bool three_phase)
    : LRScheduler(optimizer), anneal_strategy_(anneal_strategy), cycle_momentum_(cycle_momentum) {
  if (total_steps) {
    EMBER_CHECK_VALUE(*total_steps > 0,
                      "OneCycleLR: Expected positive integer total_steps, but got {}",
                      *total_steps);
    total_steps_ = *total_steps;
  } else {
    EMBER_CHECK_VALUE(epochs && steps_per_epoch,
                      "OneCycleLR: You must define either total_steps OR (epochs AND "
                      "steps_per_epoch)");
    EMBER_CHECK_VALUE(*epochs > 0, "OneCycleLR: Expected positive integer epochs, but got {}",
                      *epochs);
    EMBER_CHECK_VALUE(*steps_per_epoch > 0,
                      "OneCycleLR: Expected positive integer steps_per_epoch, but got {}",
                      *steps_per_epoch);
    total_steps_ = *epochs * *steps_per_epoch;
  }
  EMBER_CHECK_VALUE(pct_start >= 0 && pct_start <= 1,
                    "OneCycleLR: Expected float between 0 and 1 pct_start, but got {}", pct_start);
  const double total = static_cast<double>(total_steps_);
  const double last = total - 1;
  if (three_phase) {
    phases_ = {{pct_start * total - 1, Anchor::initial, Anchor::max, Anchor::max_momentum,
                Anchor::base_momentum},
               {2 * pct_start * total - 2, Anchor::max, Anchor::initial, Anchor::base_momentum,
                Anchor::max_momentum},
               {last, Anchor::initial, Anchor::min, Anchor::max_momentum, Anchor::max_momentum}};
  } else {
    phases_ = {{pct_start * total - 1, Anchor::initial, Anchor::max, Anchor::max_momentum,
                Anchor::base_momentum},
               {last, Anchor::max, Anchor::min, Anchor::base_momentum, Anchor::max_momentum}};
  }
  auto& groups = optimizer.param_groups();
  const size_t n = groups.size();
  max_lrs_ = max_lr.expand(n, "OneCycleLR", "max_lr");
  std::vector<double> initial_lrs(n);
  min_lrs_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    initial_lrs[i] = max_lrs_[i] / div_factor;
    min_lrs_[i] = initial_lrs[i] / final_div_factor;
  }
  set_initial_lrs(initial_lrs);  // Python overwrites group['initial_lr']
  if (cycle_momentum_) {
    const SchedMomentumKind kind = sched_momentum_kind(optimizer.defaults());
    EMBER_CHECK_VALUE(kind != SchedMomentumKind::none,
                      "OneCycleLR: optimizer must support momentum with `cycle_momentum` option "
                      "enabled. Hint: use SGD, RMSprop, Adam or AdamW, or pass cycle_momentum = "
                      "false");
    use_beta1_ = kind == SchedMomentumKind::beta1;
    max_momentums_ = max_momentum.expand(n, "OneCycleLR", "max_momentum");
    base_momentums_ = base_momentum.expand(n, "OneCycleLR", "base_momentum");
    for (size_t i = 0; i < n; ++i) sched_set_momentum(groups[i].options(), kind, max_momentums_[i]);
  }
  initial_step();
}

double OneCycleLR::anchor_value(Anchor anchor, size_t group) const {
  switch (anchor) {
    case Anchor::initial:
      return base_lrs_[group];
    case Anchor::max:
      return max_lrs_[group];
    case Anchor::min:
      return min_lrs_[group];
    case Anchor::base_momentum:
      return base_momentums_[group];
    case Anchor::max_momentum:
      return max_momentums_[group];
  }
  return 0;
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (anneal_strategy_ == AnnealStrategy::linear) return (end - start) * pct + start;
  const double cos_out = std::cos(kCyclicPi * pct) + 1;
  return end + (start - end) / 2.0 * cos_out;
}

std::vector<double> OneCycleLR::get_lrs() {
  const int64_t step_num = last_epoch_;
  EMBER_CHECK_VALUE(step_num <= total_steps_,
                    "OneCycleLR: Tried to step {} times. The specified number of total steps is {}",
                    step_num + 1, total_steps_);
  auto& groups = optimizer().param_groups();
  std::vector<double> lrs(groups.size());
  const SchedMomentumKind kind =
      use_beta1_ ? SchedMomentumKind::beta1 : SchedMomentumKind::momentum;
  for (size_t g = 0; g < groups.size(); ++g) {
    double start_step = 0;
    for (size_t i = 0; i < phases_.size(); ++i) {
      const Phase& phase = phases_[i];
      if (static_cast<double>(step_num) <= phase.end_step || i + 1 == phases_.size()) {
        const double pct =
            (static_cast<double>(step_num) - start_step) / (phase.end_step - start_step);
        lrs[g] = anneal(anchor_value(phase.start_lr, g), anchor_value(phase.end_lr, g), pct);
        if (cycle_momentum_) {
          sched_set_momentum(groups[g].options(), kind,
                             anneal(anchor_value(phase.start_momentum, g),
                                    anchor_value(phase.end_momentum, g), pct));
        }
        break;
      }
      start_step = phase.end_step;
    }
  }
  return lrs;
}

}  // namespace ember::optim
