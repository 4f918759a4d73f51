// Functional linear layers (LibTorch's torch/nn/functional/linear.h):
//   namespace F = ember::nn::functional;
//   Tensor y = F::linear(x, w, b);            // x [*, in], w [out, in], b [out] -> [*, out]
//   Tensor z = F::bilinear(x1, x2, A, b);     // x1 [*, in1], x2 [*, in2], A [out, in1, in2]
#pragma once

#include "ember/core/tensor.h"
#include "ember/nn/options/linear.h"

namespace ember::nn::functional {

/// y = input·weightᵀ + bias. input [*, in_features], weight [out_features, in_features],
/// bias [out_features] or undefined. A 2-D input is one fused GEMM (addmm).
EMBER_API Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});

/// y[..., o] = Σᵢⱼ input1[..., i]·weight[o, i, j]·input2[..., j] + bias[o]. input1 [*, in1] and
/// input2 [*, in2] share their leading dims; weight [out, in1, in2]; bias [out] or undefined.
EMBER_API Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                          const Tensor& bias = {});

}  // namespace ember::nn::functional
