// Multiplicative decays. get_lrs() is Python's recursive get_lr (it multiplies the groups'
// current lr), closed_form_lrs() Python's _get_closed_form_lr (used by step(epoch)).
#include "ember/optim/schedulers/step_lr.h"

#include <algorithm>
#include <cmath>

#include "src/core/check.h"

namespace ember::optim {

namespace {
std::vector<double> step_lr_scaled(std::vector<double> lrs, double factor) {
  for (double& lr : lrs) lr *= factor;
  return lrs;
}
}  // namespace

StepLR::StepLR(Optimizer& optimizer, const unsigned step_size, const double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK_VALUE(step_size >= 1, "StepLR: step_size must be >= 1, got {}", step_size);
  initial_step();
}

std::vector<double> StepLR::get_lrs() {
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return get_current_lrs();
  return step_lr_scaled(get_current_lrs(), gamma_);
}

std::vector<double> StepLR::closed_form_lrs() {
  // Python's floor division: last_epoch // step_size rounds toward -inf.
  const double k = std::floor(static_cast<double>(last_epoch_) / step_size_);
  return step_lr_scaled(base_lrs_, std::pow(gamma_, k));
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
  std::sort(milestones_.begin(), milestones_.end());
  initial_step();
}

std::vector<double> MultiStepLR::get_lrs() {
  const auto hits = std::count(milestones_.begin(), milestones_.end(), last_epoch_);
  if (hits == 0) return get_current_lrs();
  return step_lr_scaled(get_current_lrs(), std::pow(gamma_, static_cast<double>(hits)));
}

std::vector<double> MultiStepLR::closed_form_lrs() {
  const auto passed =
      std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin();
  return step_lr_scaled(base_lrs_, std::pow(gamma_, static_cast<double>(passed)));
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma)
    : LRScheduler(optimizer), gamma_(gamma) {
  initial_step();
}

std::vector<double> ExponentialLR::get_lrs() {
  if (last_epoch_ == 0) return get_current_lrs();
  return step_lr_scaled(get_current_lrs(), gamma_);
}

std::vector<double> ExponentialLR::closed_form_lrs() {
  return step_lr_scaled(base_lrs_, std::pow(gamma_, static_cast<double>(last_epoch_)));
}

PolynomialLR::PolynomialLR(Optimizer& optimizer, int64_t total_iters, double power)
    : LRScheduler(optimizer), total_iters_(total_iters), power_(power) {
  EMBER_CHECK_VALUE(total_iters >= 1, "PolynomialLR: total_iters must be >= 1, got {}",
                    total_iters);
  initial_step();
}

std::vector<double> PolynomialLR::get_lrs() {
  if (last_epoch_ == 0 || last_epoch_ > total_iters_) return get_current_lrs();
  const double t = static_cast<double>(last_epoch_);
  const double n = static_cast<double>(total_iters_);
  const double factor = std::pow((1.0 - t / n) / (1.0 - (t - 1) / n), power_);
  return step_lr_scaled(get_current_lrs(), factor);
}

std::vector<double> PolynomialLR::closed_form_lrs() {
  const double t = static_cast<double>(std::min(total_iters_, last_epoch_));
  return step_lr_scaled(base_lrs_, std::pow(1.0 - t / total_iters_, power_));
}

}  // namespace ember::optim
