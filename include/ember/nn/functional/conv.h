// (conv family: convolution and transposed convolution (forward, backward data, backward weights).) To be filled.
#pragma once

#include "ember/core/tensor.h"
