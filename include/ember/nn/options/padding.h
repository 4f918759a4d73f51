// (pad family: padding in every mode, pixel (un)shuffle, fold/unfold, channel shuffle.) To be filled.
#pragma once

#include "ember/core/tensor.h"
