// Cyclical schedules: Python's CyclicLR (Smith, "Cyclical Learning Rates") and OneCycleLR
// (Smith & Topin, "Super-Convergence"). Both step once per batch, and with cycle_momentum they
// move the momentum inversely to the learning rate: SGDOptions/RMSpropOptions::momentum, or
// beta1 of AdamOptions/AdamWOptions::betas (OneCycleLR only, as Python).
//   ember::optim::OneCycleLR sched(opt, /*max_lr=*/0.1, /*total_steps=*/1000);
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "ember/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

/// The lr cycles between base_lr and max_lr: up for step_size_up steps, down for step_size_down
/// (default: step_size_up), the amplitude scaled by the mode's (or scale_fn's) factor.
class EMBER_API CyclicLR : public LRScheduler {
 public:
  /// triangular: constant amplitude; triangular2: halved every cycle; exp_range: gamma^step.
  enum class Mode { triangular, triangular2, exp_range };
  /// Whether scale_fn gets the cycle number (from 1) or the step count.
  enum class ScaleMode { cycle, iterations };
  using ScaleFn = std::function<double(double)>;

  /// Sets every group's lr to base_lr (and momentum to base_momentum with cycle_momentum, which
  /// needs an optimizer with momentum: SGD or RMSprop). A scale_fn overrides `mode`, using
  /// `scale_mode`.
  CyclicLR(Optimizer& optimizer, PerGroup base_lr, PerGroup max_lr, int64_t step_size_up = 2000,
           std::optional<int64_t> step_size_down = std::nullopt, Mode mode = Mode::triangular,
           double gamma = 1.0, ScaleFn scale_fn = nullptr, ScaleMode scale_mode = ScaleMode::cycle,
           bool cycle_momentum = true, PerGroup base_momentum = 0.8, PerGroup max_momentum = 0.9);

 protected:
  std::vector<double> get_lrs() override;

 private:
  double scale(double x) const;

  std::vector<double> max_lrs_;
  double total_size_;
  double step_ratio_;
  Mode mode_;
  double gamma_;
  ScaleFn scale_fn_;
  ScaleMode scale_mode_;
  bool cycle_momentum_;
  std::vector<double> base_momentums_;
  std::vector<double> max_momentums_;
};

/// The 1cycle policy: the lr anneals from max_lr / div_factor up to max_lr over pct_start of
/// total_steps, then down to max_lr / div_factor / final_div_factor (three_phase: back to the
/// initial lr first, then down). Give total_steps, or epochs and steps_per_epoch. Stepping past
/// total_steps is an Error, as Python.
class EMBER_API OneCycleLR : public LRScheduler {
 public:
  enum class AnnealStrategy { cos, linear };

  OneCycleLR(Optimizer& optimizer, PerGroup max_lr,
             std::optional<int64_t> total_steps = std::nullopt,
             std::optional<int64_t> epochs = std::nullopt,
             std::optional<int64_t> steps_per_epoch = std::nullopt, double pct_start = 0.3,
             AnnealStrategy anneal_strategy = AnnealStrategy::cos, bool cycle_momentum = true,
             PerGroup base_momentum = 0.85, PerGroup max_momentum = 0.95, double div_factor = 25.0,
             double final_div_factor = 1e4, bool three_phase = false);

  /// The length of the cycle in steps (given, or epochs * steps_per_epoch).
  int64_t total_steps() const noexcept { return total_steps_; }

 protected:
  std::vector<double> get_lrs() override;

 private:
  // One phase of the cycle: it ends at end_step and anneals between the named per-group values.
  enum class Anchor { initial, max, min, base_momentum, max_momentum };
  struct Phase {
    double end_step;
    Anchor start_lr, end_lr, start_momentum, end_momentum;
  };
  double anchor_value(Anchor anchor, size_t group) const;
  double anneal(double start, double end, double pct) const;

  int64_t total_steps_;
  std::vector<Phase> phases_;
  AnnealStrategy anneal_strategy_;
  bool cycle_momentum_;
  bool use_beta1_ = false;
  std::vector<double> max_lrs_;
  std::vector<double> min_lrs_;
  std::vector<double> base_momentums_;
  std::vector<double> max_momentums_;
};

}  // namespace ember::optim
