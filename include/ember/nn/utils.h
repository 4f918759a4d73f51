// ember::nn::utils: gradient clipping, parameter <-> vector conversion, packed sequences,
// parametrizations, pruning, functional_call and conv/linear + batch norm fusion.
#pragma once

#include "ember/nn/utils/clip_grad.h"
#include "ember/nn/utils/convert_parameters.h"
#include "ember/nn/utils/fusion.h"
#include "ember/nn/utils/parametrizations.h"
#include "ember/nn/utils/parametrize.h"
#include "ember/nn/utils/prune.h"
#include "ember/nn/utils/rnn.h"
#include "ember/nn/utils/stateless.h"
