// <torch/nn.h> for LibTorch programs: all of Ember (see torch/torch.h).
#pragma once

#include <torch/torch.h>
