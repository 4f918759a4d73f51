// Moved to ember/data/datasets/mnist.h (LibTorch's path); kept so old includes build.
#pragma once

#include "ember/data/datasets/mnist.h"
