// Flattening parameters into one vector and back, as LibTorch's torch::nn::utils (Python's
// torch.nn.utils.parameters_to_vector / vector_to_parameters): for optimizers and analyses that
// see a model as one point in R^n.
//   ember::Tensor flat = ember::nn::utils::parameters_to_vector(model->parameters());
//   ember::nn::utils::vector_to_parameters(flat * 0.5, model->parameters());
#pragma once

#include <vector>

#include "ember/core/macros.h"
#include "ember/core/tensor.h"

namespace ember::nn::utils {

/// The parameters flattened and concatenated in order: a 1-D tensor of sum(numel) elements
/// (differentiable: it records autograd history). Error when the parameters live on different
/// devices, as Python's.
EMBER_API Tensor parameters_to_vector(const std::vector<Tensor>& parameters);

/// Copies consecutive slices of the 1-D `vec` into the parameters (each slice reshaped to its
/// parameter), without recording autograd history; the parameters keep their storage (Python
/// rebinds param.data instead, which aliases `vec`). Error when `vec` is not 1-D, when its
/// length differs from the parameters' total numel, or when the parameters live on different
/// devices; nothing is written then.
EMBER_API void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);

}  // namespace ember::nn::utils
