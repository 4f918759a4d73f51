#include "src/optim/schedulers/momentum_access.h"

#include <tuple>

#include "ember/optim/adam.h"
#include "ember/optim/adamw.h"
#include "ember/optim/rmsprop.h"
#include "ember/optim/sgd.h"
#include "src/core/check.h"

namespace ember::optim {

SchedMomentumKind sched_momentum_kind(const OptimizerOptions& options) {
  if (dynamic_cast<const SGDOptions*>(&options) || dynamic_cast<const RMSpropOptions*>(&options)) {
    return SchedMomentumKind::momentum;
  }
  if (dynamic_cast<const AdamOptions*>(&options) || dynamic_cast<const AdamWOptions*>(&options)) {
    return SchedMomentumKind::beta1;
  }
  return SchedMomentumKind::none;
}

double sched_get_momentum(const OptimizerOptions& options, SchedMomentumKind kind) {
  if (kind == SchedMomentumKind::momentum) {
    if (auto* o = dynamic_cast<const SGDOptions*>(&options)) return o->momentum();
    if (auto* o = dynamic_cast<const RMSpropOptions*>(&options)) return o->momentum();
  } else if (kind == SchedMomentumKind::beta1) {
    if (auto* o = dynamic_cast<const AdamOptions*>(&options)) return std::get<0>(o->betas());
    if (auto* o = dynamic_cast<const AdamWOptions*>(&options)) return std::get<0>(o->betas());
  }
  EMBER_FAIL("LRScheduler: a param group's options have no momentum to cycle");
}

void sched_set_momentum(OptimizerOptions& options, SchedMomentumKind kind, double value) {
  if (kind == SchedMomentumKind::momentum) {
    if (auto* o = dynamic_cast<SGDOptions*>(&options)) return void(o->momentum(value));
    if (auto* o = dynamic_cast<RMSpropOptions*>(&options)) return void(o->momentum(value));
  } else if (kind == SchedMomentumKind::beta1) {
    if (auto* o = dynamic_cast<AdamOptions*>(&options)) {
      return void(o->betas(std::make_tuple(value, std::get<1>(o->betas()))));
    }
    if (auto* o = dynamic_cast<AdamWOptions*>(&options)) {
      return void(o->betas(std::make_tuple(value, std::get<1>(o->betas()))));
    }
  }
  EMBER_FAIL("LRScheduler: a param group's options have no momentum to cycle");
}

}  // namespace ember::optim
