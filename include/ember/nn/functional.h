// ember::nn::functional (alias it as `namespace F = ember::nn::functional;`): the stateless form
// of every layer, activation and loss.
#pragma once

#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/attention.h"
#include "ember/nn/functional/batchnorm.h"
#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/distance.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/embedding.h"
#include "ember/nn/functional/fold.h"
#include "ember/nn/functional/instancenorm.h"
#include "ember/nn/functional/linear.h"
#include "ember/nn/functional/loss.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/functional/padding.h"
#include "ember/nn/functional/pixelshuffle.h"
#include "ember/nn/functional/pooling.h"
#include "ember/nn/functional/upsampling.h"
#include "ember/nn/functional/vision.h"
