// Autograd for reductions (src/ops/reduction*.cpp). `mask` has bit d set for each reduced dim.
#pragma once

#include <cstdint>

#include "src/autograd/record.h"

namespace ember::autograd::derivatives {

/// The gradient of a reduction over `mask` broadcast back to the input's `sizes`.
Tensor expand_reduced(const Tensor& grad, IntArrayRef sizes, uint64_t mask, bool keepdim);

void sum(const Tensor& result, const Tensor& self, uint64_t mask, bool keepdim);
void mean(const Tensor& result, const Tensor& self, uint64_t mask, bool keepdim);

}  // namespace ember::autograd::derivatives
