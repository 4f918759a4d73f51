// Small tensor helpers the engine and the backward formulas share.
#pragma once

#include "ember/core/tensor.h"

namespace ember::autograd {

/// Sums `g` down to `shape` (the reverse of broadcasting `shape` up to g's shape).
Tensor sum_to(const Tensor& g, IntArrayRef shape);
/// Whether `shape` broadcasts to `target`.
bool is_expandable_to(IntArrayRef shape, IntArrayRef target);

}  // namespace ember::autograd
