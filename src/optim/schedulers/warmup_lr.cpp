#include "ember/optim/schedulers/warmup_lr.h"

#include <algorithm>

#include "src/core/check.h"

namespace ember::optim {

namespace {
std::vector<double> warmup_scaled(std::vector<double> lrs, double factor) {
  for (double& lr : lrs) lr *= factor;
  return lrs;
}
}  // namespace

ConstantLR::ConstantLR(Optimizer& optimizer, double factor, int64_t total_iters)
    : LRScheduler(optimizer), factor_(factor), total_iters_(total_iters) {
  EMBER_CHECK_VALUE(factor >= 0 && factor <= 1,
                    "ConstantLR: Constant multiplicative factor expected to be between 0 and 1, "
                    "got {}",
                    factor);
  initial_step();
}

std::vector<double> ConstantLR::get_lrs() {
  if (last_epoch_ == 0) return warmup_scaled(get_current_lrs(), factor_);
  if (last_epoch_ != total_iters_) return get_current_lrs();
  return warmup_scaled(get_current_lrs(), 1.0 / factor_);
}

std::vector<double> ConstantLR::closed_form_lrs() {
  const double on = last_epoch_ >= total_iters_ ? 1.0 : 0.0;
  return warmup_scaled(base_lrs_, factor_ + on * (1 - factor_));
}

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor,
                   int64_t total_iters)
    : LRScheduler(optimizer),
      start_factor_(start_factor),
      end_factor_(end_factor),
      total_iters_(total_iters) {
  EMBER_CHECK_VALUE(start_factor >= 0 && start_factor <= 1,
                    "LinearLR: Starting multiplicative factor expected to be between 0 and 1, "
                    "got {}",
                    start_factor);
  EMBER_CHECK_VALUE(end_factor >= 0 && end_factor <= 1,
                    "LinearLR: Ending multiplicative factor expected to be between 0 and 1, got {}",
                    end_factor);
  initial_step();
}

std::vector<double> LinearLR::get_lrs() {
  if (last_epoch_ == 0) return warmup_scaled(get_current_lrs(), start_factor_);
  if (last_epoch_ > total_iters_) return get_current_lrs();
  // The ratio of consecutive closed-form factors, as Python's recursive form.
  const double delta = end_factor_ - start_factor_;
  const double factor = 1.0 + delta / (static_cast<double>(total_iters_) * start_factor_ +
                                       static_cast<double>(last_epoch_ - 1) * delta);
  return warmup_scaled(get_current_lrs(), factor);
}

std::vector<double> LinearLR::closed_form_lrs() {
  const double t = static_cast<double>(std::min(total_iters_, last_epoch_));
  return warmup_scaled(base_lrs_, start_factor_ + (end_factor_ - start_factor_) * t /
                                                      static_cast<double>(total_iters_));
}

}  // namespace ember::optim
