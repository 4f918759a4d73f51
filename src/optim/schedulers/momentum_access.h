// How CyclicLR and OneCycleLR reach an optimizer's momentum: Python looks for 'momentum' or
// 'betas' in the optimizer's defaults; Ember asks the options' concrete type.
#pragma once

#include "ember/optim/optimizer.h"

namespace ember::optim {

/// Which knob a cycling scheduler moves: none, `momentum` (SGD, RMSprop) or betas' first value
/// (Adam, AdamW).
enum class SchedMomentumKind { none, momentum, beta1 };

/// The knob `options` has (its dynamic type decides).
SchedMomentumKind sched_momentum_kind(const OptimizerOptions& options);
/// Reads / writes that knob; Error when the options lack it.
double sched_get_momentum(const OptimizerOptions& options, SchedMomentumKind kind);
void sched_set_momentum(OptimizerOptions& options, SchedMomentumKind kind, double value);

}  // namespace ember::optim
