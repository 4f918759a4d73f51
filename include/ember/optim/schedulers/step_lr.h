// Step-wise and smooth multiplicative decays: LibTorch's StepLR and Python's MultiStepLR,
// ExponentialLR and PolynomialLR. Each step() multiplies the current learning rates (Python's
// recursive form), so they chain with other schedulers on the same optimizer.
#pragma once

#include <cstdint>
#include <vector>

#include "ember/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

/// lr = base_lr * gamma^(epoch / step_size): decays by gamma every step_size epochs.
class EMBER_API StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, const unsigned step_size, const double gamma = 0.1);

 protected:
  std::vector<double> get_lrs() override;
  std::vector<double> closed_form_lrs() override;

 private:
  const unsigned step_size_;
  const double gamma_;
};

/// Decays by gamma at each milestone epoch (a milestone listed twice decays by gamma^2).
class EMBER_API MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);

 protected:
  std::vector<double> get_lrs() override;
  std::vector<double> closed_form_lrs() override;

 private:
  std::vector<int64_t> milestones_;  // sorted, repeats kept
  double gamma_;
};

/// lr = base_lr * gamma^epoch.
class EMBER_API ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 protected:
  std::vector<double> get_lrs() override;
  std::vector<double> closed_form_lrs() override;

 private:
  double gamma_;
};

/// lr = base_lr * (1 - min(epoch, total_iters) / total_iters)^power.
class EMBER_API PolynomialLR : public LRScheduler {
 public:
  PolynomialLR(Optimizer& optimizer, int64_t total_iters = 5, double power = 1.0);

 protected:
  std::vector<double> get_lrs() override;
  std::vector<double> closed_form_lrs() override;

 private:
  int64_t total_iters_;
  double power_;
};

}  // namespace ember::optim
