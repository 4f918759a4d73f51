// (pool family: pooling: max, average, adaptive, LP, unpooling, fractional.) To be filled.
#pragma once

#include "ember/core/tensor.h"
