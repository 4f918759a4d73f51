// Cosine annealing (Loshchilov & Hutter, SGDR): Python's CosineAnnealingLR and
// CosineAnnealingWarmRestarts.
#pragma once

#include <cstdint>
#include <vector>

#include "ember/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

/// lr follows eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2, computed
/// recursively from the current lr as Python's step() does (so it composes with other
/// schedulers; past T_max it rises again, a cosine of period 2 * T_max).
class EMBER_API CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0.0);

 protected:
  std::vector<double> get_lrs() override;
  std::vector<double> closed_form_lrs() override;

 private:
  int64_t T_max_;
  double eta_min_;
};

/// SGDR: cosine annealing from base_lr to eta_min over T_i epochs, then a restart with
/// T_i *= T_mult (T_0 for the first cycle). step(epoch) accepts fractional epochs
/// (step(epoch + i / iters) inside an epoch), as Python.
class EMBER_API CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  /// Error unless T_0 >= 1 and T_mult >= 1.
  CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult = 1,
                              double eta_min = 0.0);

  void step() override;
  /// Jumps to `epoch` (>= 0, may be fractional).
  void step(double epoch) override;

  /// The length of the current cycle and the (possibly fractional) epochs since its restart.
  double T_i() const noexcept { return T_i_; }
  double T_cur() const noexcept { return T_cur_; }

  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

 protected:
  std::vector<double> get_lrs() override;

 private:
  void apply_lrs();

  int64_t T_0_;
  int64_t T_mult_;
  double eta_min_;
  double T_i_;
  double T_cur_;
};

}  // namespace ember::optim
