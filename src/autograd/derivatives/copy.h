// Autograd for copies and fills (src/ops/copy.cpp).
#pragma once

#include "src/autograd/record.h"

namespace ember::autograd::derivatives {

/// self.copy_(src): the old values of self get no gradient; src gets the incoming one.
void copy_(const Tensor& self, const Tensor& src, Edges edges);
void clone(const Tensor& result, const Tensor& self);
/// self.fill_(value) (value undefined for a Scalar fill).
void fill_(const Tensor& self, const Tensor& value, Edges edges);

}  // namespace ember::autograd::derivatives
