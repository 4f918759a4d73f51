// Backpropagation entry points (LibTorch's torch::autograd::backward and grad).
#pragma once

#include <optional>

#include "ember/autograd/node.h"

namespace ember::autograd {

/// Accumulates d(tensors)/d(leaf) into every leaf's .grad(), weighted by `grad_tensors` (which
/// default to ones for one-element tensors). `inputs`, when given, limits accumulation to them.
/// The graph is freed afterwards unless `retain_graph` (default: `create_graph`).
EMBER_API void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
                        std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                        const variable_list& inputs = {});

/// Returns d(outputs)/d(inputs) weighted by `grad_outputs`, without touching any .grad().
/// With `allow_unused`, inputs the outputs do not depend on get undefined gradients; otherwise
/// that is an error. `create_graph` makes the result differentiable (higher derivatives).
EMBER_API variable_list grad(const variable_list& outputs, const variable_list& inputs,
                             const variable_list& grad_outputs = {},
                             std::optional<bool> retain_graph = std::nullopt,
                             bool create_graph = false, bool allow_unused = false);

}  // namespace ember::autograd
