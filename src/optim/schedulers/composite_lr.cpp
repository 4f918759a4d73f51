#include "ember/optim/schedulers/composite_lr.h"

#include <algorithm>
#include <string>

#include "ember/serialize/archive.h"
#include "src/core/check.h"

namespace ember::optim {

namespace {
// The optimizer every scheduler drives; Error when the list is empty, holds null, or mixes
// optimizers.
Optimizer& composite_common_optimizer(const std::vector<LRScheduler*>& schedulers,
                                      const char* composite) {
  EMBER_CHECK_VALUE(!schedulers.empty(), "{}: expects at least one scheduler", composite);
  for (size_t i = 0; i < schedulers.size(); ++i) {
    EMBER_CHECK_VALUE(schedulers[i] != nullptr, "{}: scheduler {} is null", composite, i);
    EMBER_CHECK_VALUE(&schedulers[i]->optimizer() == &schedulers[0]->optimizer(),
                      "{}: expects all schedulers to belong to the same optimizer, but got "
                      "schedulers at index 0 and {} to be different",
                      composite, i);
  }
  return schedulers[0]->optimizer();
}

void composite_save_children(const std::vector<LRScheduler*>& schedulers,
                             serialize::OutputArchive& archive) {
  for (size_t i = 0; i < schedulers.size(); ++i) {
    serialize::OutputArchive child;
    schedulers[i]->save(child);
    archive.write("scheduler_" + std::to_string(i), child);
  }
}

void composite_load_children(const std::vector<LRScheduler*>& schedulers,
                             serialize::InputArchive& archive) {
  for (size_t i = 0; i < schedulers.size(); ++i) {
    serialize::InputArchive child;
    archive.read("scheduler_" + std::to_string(i), child);
    schedulers[i]->load(child);
  }
}
}  // namespace

SequentialLR::SequentialLR(Optimizer& optimizer, std::vector<LRScheduler*> schedulers,
                           std::vector<int64_t> milestones)
    : LRScheduler(optimizer),
      schedulers_(std::move(schedulers)),
      milestones_(std::move(milestones)) {
  EMBER_CHECK_VALUE(&composite_common_optimizer(schedulers_, "SequentialLR") == &optimizer,
                    "SequentialLR: expects all schedulers to belong to the same optimizer, but "
                    "got schedulers different than the optimizer passed in");
  EMBER_CHECK_VALUE(milestones_.size() + 1 == schedulers_.size(),
                    "SequentialLR: expects number of schedulers provided to be one more than the "
                    "number of milestone points, but got number of schedulers {} and the number "
                    "of milestones to be equal to {}",
                    schedulers_.size(), milestones_.size());
  EMBER_CHECK_VALUE(std::is_sorted(milestones_.begin(), milestones_.end()),
                    "SequentialLR: milestones must be increasing, got [{}]",
                    fmt::join(milestones_.begin(), milestones_.end(), ", "));
  // Python: back to the initial lr, rewind every child by the epoch its constructor took, and
  // replay the first child's initial step.
  auto& groups = optimizer.param_groups();
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(base_lrs_[i]);
  for (LRScheduler* s : schedulers_) s->last_epoch_ -= 1;
  schedulers_[0]->initial_step();
  last_epoch_ = 0;
  last_lr_ = schedulers_[0]->get_last_lr();
}

void SequentialLR::step() {
  ++last_epoch_;
  const size_t idx =
      std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin();
  LRScheduler* scheduler = schedulers_[idx];
  if (idx > 0 && milestones_[idx - 1] == last_epoch_) {
    scheduler->step(0.0);  // the next scheduler starts at its epoch 0
  } else {
    scheduler->step();
  }
  ++step_count_;
  last_lr_ = scheduler->get_last_lr();
}

void SequentialLR::step(double /*epoch*/) {
  EMBER_FAIL("SequentialLR::step: step(epoch) is not supported. Hint: call step()");
}

std::vector<double> SequentialLR::get_lrs() { return get_current_lrs(); }

void SequentialLR::save(serialize::OutputArchive& archive) const {
  LRScheduler::save(archive);
  composite_save_children(schedulers_, archive);
}

void SequentialLR::load(serialize::InputArchive& archive) {
  composite_load_children(schedulers_, archive);
  LRScheduler::load(archive);
}

ChainedScheduler::ChainedScheduler(std::vector<LRScheduler*> schedulers)
    : LRScheduler(composite_common_optimizer(schedulers, "ChainedScheduler")),
      schedulers_(std::move(schedulers)) {
  last_epoch_ = 0;
  last_lr_ = get_current_lrs();
}

void ChainedScheduler::step() {
  for (LRScheduler* s : schedulers_) s->step();
  ++last_epoch_;
  ++step_count_;
  last_lr_ = get_current_lrs();
}

void ChainedScheduler::step(double /*epoch*/) {
  EMBER_FAIL("ChainedScheduler::step: step(epoch) is not supported. Hint: call step()");
}

std::vector<double> ChainedScheduler::get_lrs() { return get_current_lrs(); }

void ChainedScheduler::save(serialize::OutputArchive& archive) const {
  LRScheduler::save(archive);
  composite_save_children(schedulers_, archive);
}

void ChainedScheduler::load(serialize::InputArchive& archive) {
  composite_load_children(schedulers_, archive);
  LRScheduler::load(archive);
}

}  // namespace ember::optim
