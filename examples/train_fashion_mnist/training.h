// The training run: data, model, optimizer, schedule, epochs, checkpoint and report.
#pragma once

#include "options.h"

namespace trainer {

/// Runs what `options` asks for; returns the process exit status. Throws on bad data or files.
int train(const Options& options);

}  // namespace trainer
