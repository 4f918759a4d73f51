// ember::nn::utils: gradient clipping and parameter <-> vector conversion.
#pragma once

#include "ember/nn/utils/clip_grad.h"
#include "ember/nn/utils/convert_parameters.h"
#include "ember/nn/utils/rnn.h"
