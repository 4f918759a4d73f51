// Warm-up schedules: Python's ConstantLR and LinearLR scale the learning rate by a factor for the
// first total_iters epochs (constant, or moving linearly from start_factor to end_factor). Their
// constructors already apply the epoch-0 factor, as Python's.
#pragma once

#include <cstdint>
#include <vector>

#include "ember/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

/// lr = base_lr * factor until epoch total_iters, then base_lr. factor in [0, 1].
class EMBER_API ConstantLR : public LRScheduler {
 public:
  ConstantLR(Optimizer& optimizer, double factor = 1.0 / 3, int64_t total_iters = 5);

 protected:
  std::vector<double> get_lrs() override;
  std::vector<double> closed_form_lrs() override;

 private:
  double factor_;
  int64_t total_iters_;
};

/// lr = base_lr * (start + (end - start) * min(epoch, total_iters) / total_iters); both factors
/// in [0, 1].
class EMBER_API LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
           int64_t total_iters = 5);

 protected:
  std::vector<double> get_lrs() override;
  std::vector<double> closed_form_lrs() override;

 private:
  double start_factor_;
  double end_factor_;
  int64_t total_iters_;
};

}  // namespace ember::optim
