#include "ember/optim/schedulers/cosine_lr.h"

#include <cmath>

#include "ember/serialize/archive.h"
#include "src/core/check.h"
#include "src/optim/schedulers/scheduler_archive.h"

namespace ember::optim {

namespace {
constexpr double kCosinePi = 3.141592653589793;  // Python's math.pi
}  // namespace

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min) {
  EMBER_CHECK_VALUE(T_max >= 1, "CosineAnnealingLR: T_max must be >= 1, got {}", T_max);
  initial_step();
}

// Python's recursive form, branch for branch: its rounding is what Python's step() produces,
// which drifts (slightly) from the closed form over many steps.
std::vector<double> CosineAnnealingLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  const double t = static_cast<double>(last_epoch_);
  const double T = static_cast<double>(T_max_);
  if (last_epoch_ == 0) return lrs;
  if (step_count_ == 0 && last_epoch_ > 0) {  // Python's _step_count == 1
    for (size_t i = 0; i < lrs.size(); ++i) {
      lrs[i] = eta_min_ + (base_lrs_[i] - eta_min_) * (1 + std::cos(t * kCosinePi / T)) / 2;
    }
    return lrs;
  }
  // Python's modulo is non-negative for a positive divisor.
  const int64_t period = 2 * T_max_;
  const int64_t phase = ((last_epoch_ - 1 - T_max_) % period + period) % period;
  if (phase == 0) {
    for (size_t i = 0; i < lrs.size(); ++i) {
      lrs[i] = lrs[i] + (base_lrs_[i] - eta_min_) * (1 - std::cos(kCosinePi / T)) / 2;
    }
    return lrs;
  }
  for (double& lr : lrs) {
    lr = (1 + std::cos(kCosinePi * t / T)) / (1 + std::cos(kCosinePi * (t - 1) / T)) *
             (lr - eta_min_) +
         eta_min_;
  }
  return lrs;
}

std::vector<double> CosineAnnealingLR::closed_form_lrs() {
  std::vector<double> lrs(base_lrs_.size());
  const double t = static_cast<double>(last_epoch_);
  for (size_t i = 0; i < lrs.size(); ++i) {
    lrs[i] = eta_min_ + (base_lrs_[i] - eta_min_) *
                            (1 + std::cos(kCosinePi * t / static_cast<double>(T_max_))) / 2;
  }
  return lrs;
}

CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0,
                                                         int64_t T_mult, double eta_min)
    : LRScheduler(optimizer),
      T_0_(T_0),
      T_mult_(T_mult),
      eta_min_(eta_min),
      T_i_(static_cast<double>(T_0)),
      T_cur_(-1) {
  EMBER_CHECK_VALUE(T_0 >= 1,
                    "CosineAnnealingWarmRestarts: Expected positive integer T_0, but "
                    "got {}",
                    T_0);
  EMBER_CHECK_VALUE(
      T_mult >= 1, "CosineAnnealingWarmRestarts: Expected integer T_mult >= 1, but got {}", T_mult);
  initial_step();
}

std::vector<double> CosineAnnealingWarmRestarts::get_lrs() {
  std::vector<double> lrs(base_lrs_.size());
  for (size_t i = 0; i < lrs.size(); ++i) {
    lrs[i] = eta_min_ + (base_lrs_[i] - eta_min_) * (1 + std::cos(kCosinePi * T_cur_ / T_i_)) / 2;
  }
  return lrs;
}

void CosineAnnealingWarmRestarts::step() {
  if (last_epoch_ < 0) {  // the initial step: epoch 0
    step(0.0);
    return;
  }
  T_cur_ = T_cur_ + 1;
  if (T_cur_ >= T_i_) {
    T_cur_ = T_cur_ - T_i_;
    T_i_ = T_i_ * static_cast<double>(T_mult_);
  }
  last_epoch_ = last_epoch_ + 1;
  apply_lrs();
}

void CosineAnnealingWarmRestarts::step(double epoch) {
  EMBER_CHECK_VALUE(epoch >= 0 && std::isfinite(epoch),
                    "CosineAnnealingWarmRestarts::step: Expected non-negative epoch, but got {}",
                    epoch);
  const double T0 = static_cast<double>(T_0_);
  if (epoch >= T0) {
    if (T_mult_ == 1) {
      T_cur_ = std::fmod(epoch, T0);
    } else {
      // Which cycle `epoch` falls in: cycles have lengths T0, T0*m, T0*m^2, ...
      const double m = static_cast<double>(T_mult_);
      const double n = std::floor(std::log(epoch / T0 * (m - 1) + 1) / std::log(m));
      T_cur_ = epoch - T0 * (std::pow(m, n) - 1) / (m - 1);
      T_i_ = T0 * std::pow(m, n);
    }
  } else {
    T_i_ = T0;
    T_cur_ = epoch;
  }
  last_epoch_ = static_cast<int64_t>(std::floor(epoch));
  apply_lrs();
}

void CosineAnnealingWarmRestarts::apply_lrs() {
  std::vector<double> lrs = get_lrs();
  ++step_count_;
  set_optimizer_lrs(lrs);
}

void CosineAnnealingWarmRestarts::save(serialize::OutputArchive& archive) const {
  LRScheduler::save(archive);
  archive.write("T_i", T_i_);
  archive.write("T_cur", T_cur_);
}

void CosineAnnealingWarmRestarts::load(serialize::InputArchive& archive) {
  const double T_i = sched_read_double(archive, "T_i");
  const double T_cur = sched_read_double(archive, "T_cur");
  LRScheduler::load(archive);
  T_i_ = T_i;
  T_cur_ = T_cur;
}

}  // namespace ember::optim
