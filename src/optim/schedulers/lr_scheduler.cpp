#include "ember/optim/schedulers/lr_scheduler.h"

#include <cmath>
#include <mutex>
#include <unordered_map>

#include "ember/serialize/archive.h"
#include "src/core/check.h"
#include "src/optim/schedulers/scheduler_archive.h"

namespace ember::optim {

namespace {

// Python keeps each group's first learning rate in param_group['initial_lr'], so a second
// scheduler on the same optimizer (SequentialLR, ChainedScheduler) sees the lr from before the
// first one touched it. Ember's options have no such slot, so the record lives here, keyed by the
// optimizer and kept while any scheduler on it is alive (a live scheduler keeps its optimizer
// alive by contract, so a key never outlives its optimizer).
struct SchedInitialLrs {
  std::vector<double> lrs;
  int users = 0;
};
std::mutex& sched_registry_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::unordered_map<const Optimizer*, SchedInitialLrs>& sched_registry() {
  static std::unordered_map<const Optimizer*, SchedInitialLrs> table;
  return table;
}

std::vector<double> sched_current_lrs(const Optimizer& optimizer) {
  std::vector<double> lrs;
  lrs.reserve(optimizer.param_groups().size());
  for (const auto& group : optimizer.param_groups()) lrs.push_back(group.options().get_lr());
  return lrs;
}

// Python's group.setdefault('initial_lr', group['lr']) over every group.
std::vector<double> sched_acquire_initial_lrs(const Optimizer& optimizer) {
  std::vector<double> current = sched_current_lrs(optimizer);
  std::lock_guard<std::mutex> lock(sched_registry_mutex());
  SchedInitialLrs& entry = sched_registry()[&optimizer];
  ++entry.users;
  for (size_t i = entry.lrs.size(); i < current.size(); ++i) entry.lrs.push_back(current[i]);
  return std::vector<double>(entry.lrs.begin(), entry.lrs.begin() + current.size());
}

void sched_release_initial_lrs(const Optimizer& optimizer) {
  std::lock_guard<std::mutex> lock(sched_registry_mutex());
  auto it = sched_registry().find(&optimizer);
  if (it != sched_registry().end() && --it->second.users <= 0) sched_registry().erase(it);
}

}  // namespace

std::vector<double> PerGroup::expand(size_t n_groups, const char* scheduler,
                                     const char* name) const {
  if (!per_group_) return std::vector<double>(n_groups, values_.at(0));
  EMBER_CHECK_VALUE(values_.size() == n_groups,
                    "{}: expected {} values for {} (one per param group), got {}", scheduler,
                    n_groups, name, values_.size());
  return values_;
}

LRScheduler::LRScheduler(Optimizer& optimizer)
    : base_lrs_(sched_acquire_initial_lrs(optimizer)), optimizer_(optimizer) {}

LRScheduler::~LRScheduler() { sched_release_initial_lrs(optimizer_); }

void LRScheduler::step() {
  ++last_epoch_;
  std::vector<double> lrs = get_lrs();
  ++step_count_;
  set_optimizer_lrs(lrs);
}

void LRScheduler::step(double epoch) {
  EMBER_CHECK_VALUE(std::isfinite(epoch) && epoch == std::floor(epoch),
                    "LRScheduler::step: epoch must be a whole number, got {}. Hint: only "
                    "CosineAnnealingWarmRestarts takes fractional epochs",
                    epoch);
  last_epoch_ = static_cast<int64_t>(epoch);
  std::vector<double> lrs = closed_form_lrs();
  if (lrs.empty()) lrs = get_lrs();
  ++step_count_;
  set_optimizer_lrs(lrs);
}

std::vector<double> LRScheduler::get_current_lrs() const { return sched_current_lrs(optimizer_); }

void LRScheduler::initial_step() {
  step_count_ = 0;
  step();
}

void LRScheduler::set_optimizer_lrs(const std::vector<double>& learning_rates) {
  auto& groups = optimizer_.param_groups();
  EMBER_CHECK(learning_rates.size() == groups.size(),
              "LRScheduler: got {} learning rates for {} param groups", learning_rates.size(),
              groups.size());
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(learning_rates[i]);
  last_lr_ = learning_rates;
}

void LRScheduler::set_initial_lrs(const std::vector<double>& lrs) {
  std::lock_guard<std::mutex> lock(sched_registry_mutex());
  sched_registry()[&optimizer_].lrs = lrs;
  base_lrs_ = lrs;
}

void LRScheduler::save(serialize::OutputArchive& archive) const {
  archive.write("last_epoch", last_epoch_);
  archive.write("step_count", static_cast<int64_t>(step_count_));
  archive.write("base_lrs", base_lrs_);
  archive.write("last_lr", last_lr_);
}

void LRScheduler::load(serialize::InputArchive& archive) {
  const size_t n = optimizer_.param_groups().size();
  auto last_epoch = sched_read_int(archive, "last_epoch");
  auto step_count = sched_read_int(archive, "step_count");
  auto base_lrs = sched_read_doubles(archive, "base_lrs", n);
  auto last_lr = sched_read_doubles(archive, "last_lr", n);
  last_epoch_ = last_epoch;
  step_count_ = static_cast<unsigned>(step_count);
  base_lrs_ = base_lrs;
  set_optimizer_lrs(last_lr);
}

}  // namespace ember::optim
