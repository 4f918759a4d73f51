// Autograd for reductions (src/ops/reduction*.cpp), following PyTorch's derivatives.yaml.
// `mask` has bit d set for each reduced dim; `dim` is already wrapped. Formulas live in
// reduction.cpp (sum, mean, prod, max/min family), reduction_stats.cpp (var, std, norm,
// logsumexp) and reduction_dim.cpp (softmax, scans, sort, topk, median).
#pragma once

#include <cstdint>
#include <optional>

#include "src/autograd/record.h"

namespace ember::autograd::derivatives {

/// The gradient of a reduction over `mask` broadcast back to the input's `sizes`.
Tensor expand_reduced(const Tensor& grad, IntArrayRef sizes, uint64_t mask, bool keepdim);
/// As expand_reduced, but only restores the reduced dims as size 1 (for broadcasting).
Tensor unsqueeze_reduced(const Tensor& t, int64_t ndim, uint64_t mask, bool keepdim);
/// The dims of `mask` as a list (empty when mask is 0).
DimVector dims_of(uint64_t mask, int64_t ndim);
/// The gradient of a values-and-indices reduction along `dim` (max/min/median with a dim, sort,
/// topk): `grad` scattered into zeros of `sizes` at `indices`.
Tensor value_selecting_backward(const Tensor& grad, int64_t dim, const Tensor& indices,
                                IntArrayRef sizes, bool keepdim);

// reduction.cpp
void sum(const Tensor& result, const Tensor& self, uint64_t mask, bool keepdim);
void mean(const Tensor& result, const Tensor& self, uint64_t mask, bool keepdim);
/// prod over all dims (dim = nullopt, keepdim false) or over one dim.
void prod(const Tensor& result, const Tensor& self, std::optional<int64_t> dim, bool keepdim);
/// amax/amin, and max()/min()/median() without a dim: the gradient is split evenly among the
/// elements equal to the result (NaN counts as equal to a NaN result).
void evenly_distribute(const char* node_name, const Tensor& result, const Tensor& self,
                       uint64_t mask, bool keepdim);
/// max/min/median with a dim: the gradient goes to the element at `indices`.
void value_selecting(const char* node_name, const Tensor& values, const Tensor& indices,
                     const Tensor& self, int64_t dim, bool keepdim);

// reduction_stats.cpp
void var(const Tensor& result, const Tensor& self, uint64_t mask, double correction, bool keepdim);
void std(const Tensor& result, const Tensor& self, uint64_t mask, double correction, bool keepdim);
void var_mean(const Tensor& var, const Tensor& mean, const Tensor& self, uint64_t mask,
              double correction, bool keepdim);
void std_mean(const Tensor& std, const Tensor& mean, const Tensor& self, uint64_t mask,
              double correction, bool keepdim);
void norm(const char* node_name, const Tensor& result, const Tensor& self, double p, uint64_t mask,
          bool keepdim);
void logsumexp(const Tensor& result, const Tensor& self, uint64_t mask, bool keepdim);

// reduction_dim.cpp
void softmax(const Tensor& result, const Tensor& self, int64_t dim);
void log_softmax(const Tensor& result, const Tensor& self, int64_t dim);
void cumsum(const Tensor& result, const Tensor& self, int64_t dim);
void cumprod(const Tensor& result, const Tensor& self, int64_t dim);
/// sort and topk: the values' gradient is scattered back through the indices.
void sort(const char* node_name, const Tensor& values, const Tensor& indices, const Tensor& self,
          int64_t dim);

}  // namespace ember::autograd::derivatives
