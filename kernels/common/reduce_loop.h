// What a reduction kernel receives: raw pointers and strides over a coalesced iteration space split
// into kept (output) dims and reduced dims. Built by src/ops/reduction_common.cpp; read by the CPU
// loops (kernels/cpu/reduce_loops.h). A second family, DimLoop, serves the ops that work along one
// dim of a contiguous tensor (softmax, scans, sort, topk, median).
#pragma once

#include <cstdint>

#include "kernels/common/elementwise_loop.h"

namespace ember {

struct ReduceLoop {
  // Kept dims, innermost (smallest input stride) first. At least one dim (a size-1 dummy when the
  // output is a scalar).
  int out_ndim = 0;
  int64_t out_sizes[kMaxLoopDims] = {};
  int64_t out_in_strides[kMaxLoopDims] = {};  // input byte strides along the kept dims
  int64_t out_strides[kMaxLoopDims] = {};     // output strides in elements (both outputs)
  // Reduced dims, innermost first; at least one dim (size 1 when nothing is reduced).
  int red_ndim = 0;
  int64_t red_sizes[kMaxLoopDims] = {};
  int64_t red_strides[kMaxLoopDims] = {};  // input byte strides
  int64_t out_numel = 0;
  int64_t red_numel = 0;

  const char* in = nullptr;
  ScalarType in_dtype = ScalarType::Float;
  char* out[2] = {nullptr, nullptr};  // out[1]: indices (argmax) or mean (var_mean)
  ScalarType out_dtype[2] = {ScalarType::Float, ScalarType::Long};
  OpScalars scalars;  // norm: s[0] = p; var: s[0] = correction, s[1] = sqrt
};

/// A contiguous tensor seen as [outer, size, inner], worked on along the middle dim.
struct DimLoop {
  int64_t outer = 1;
  int64_t size = 1;  // length of the worked-on dim of the input
  int64_t inner = 1;
  const char* in = nullptr;
  // A second operand laid out as `in`, of in_dtype: the softmax backward rows read the output
  // from `in` and the incoming gradient from here.
  const char* in2 = nullptr;
  ScalarType in_dtype = ScalarType::Float;
  char* out[2] = {nullptr,
                  nullptr};  // values (out_dtype), then int64 indices where the op has them
  ScalarType out_dtype = ScalarType::Float;
  int64_t k = 0;            // topk: how many; the outputs are [outer, k, inner]
  bool descending = false;  // sort: descending; topk: largest
};

}  // namespace ember
