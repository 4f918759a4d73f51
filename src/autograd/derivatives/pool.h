// Autograd for the pool family's primitives (src/ops/nn_pool_core.cpp): each backward is another
// primitive of the family, so create_graph gives higher derivatives.
#pragma once

#include "src/autograd/record.h"
#include "src/ops/nn_pool_core.h"

namespace ember::autograd::derivatives {

/// Max pooling of any kind (windowed, adaptive, fractional): d/dx = pool_scatter(grad, indices).
void max_pool(const char* node, const Tensor& result, const Tensor& indices, const Tensor& self);
/// The 2x2 max pool that keeps window offsets: d/dx = max_pool_2x2_backward(grad, offsets).
void max_pool_2x2(const char* node, const Tensor& result, const Tensor& offsets,
                  const Tensor& self);
/// max_pool_2x2_backward, linear in grad: d/dgrad = gg at each window's offset.
void max_pool_2x2_backward(const Tensor& result, const Tensor& grad, const Tensor& offsets);
/// Average pooling: d/dx = avg_pool_backward(grad).
void avg_pool(const char* node, const Tensor& result, const Tensor& self, const pool::PoolSpec& s);
/// avg_pool_backward, linear in grad: d/dgrad = avg_pool(gg).
void avg_pool_backward(const Tensor& result, const Tensor& grad, const pool::PoolSpec& s);
/// pool_scatter: d/dsrc = pool_gather(gg, indices).
void pool_scatter(const char* node, const Tensor& result, const Tensor& src, const Tensor& indices);
/// pool_gather: d/dlarge = pool_scatter(gg, indices) summing repeats.
void pool_gather(const Tensor& result, const Tensor& large, const Tensor& indices);

}  // namespace ember::autograd::derivatives
