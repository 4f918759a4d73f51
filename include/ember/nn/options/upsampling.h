// (resample family: interpolation (upsampling), grid_sample, affine_grid.) To be filled.
#pragma once

#include "ember/core/tensor.h"
