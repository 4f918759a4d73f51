// (batchnorm family: batch, instance and group normalisation, local response normalisation.) To be filled.
#pragma once

#include "ember/core/tensor.h"
