// One training run of the character model: the loop, the per-epoch validation (bits per
// character, next-character accuracy), checkpoints, and the sample printed at the end.
#pragma once

#include "options.h"

namespace char_lm {

/// Runs `o`; returns the process exit code. Throws ember::Error on bad data or a bad --resume.
int train(const Options& o);

}  // namespace char_lm
