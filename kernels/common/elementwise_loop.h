// What an elementwise kernel receives: raw pointers and byte strides over a coalesced iteration
// space, with the output as operand 0. Built by src/ops/elementwise_iter.cpp; read by the CPU
// loops (kernels/cpu/loops.h) and the CUDA loops (kernels/cuda/loops.cuh).
#pragma once

#include <cstdint>

#include "ember/core/scalar_type.h"

namespace ember {

constexpr int kMaxLoopDims = 16;
constexpr int kMaxOperands = 4;

/// Op parameters that are not tensors (alpha, clamp bounds, eps, ...), in double.
struct OpScalars {
  double s[4] = {0, 0, 0, 0};
  int64_t i[2] = {0, 0};  // exact integer parameters (fill values beyond 2^53)
  bool is_integral = false;
};

struct ElementwiseLoop {
  int ndim = 0;       // dims after coalescing, innermost first
  int noperands = 0;  // output + inputs
  int64_t numel = 0;
  int64_t sizes[kMaxLoopDims] = {};
  int64_t strides[kMaxOperands][kMaxLoopDims] = {};  // in bytes
  char* data[kMaxOperands] = {};
  ScalarType dtype = ScalarType::Float;      // dtype of the inputs (the compute dtype)
  ScalarType out_dtype = ScalarType::Float;  // dtype of operand 0
  bool contiguous = false;                   // every operand dense with its element stride
  OpScalars scalars;
};

}  // namespace ember
