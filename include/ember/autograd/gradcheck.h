// Finite-difference checks of backward formulas, as public utilities (LibTorch has none):
//
//   auto f = [](const variable_list& x) { return variable_list{(x[0] * x[1]).sin()}; };
//   ember::autograd::gradcheck(f, {a, b});   // a, b: float64 tensors with requires_grad
#pragma once

#include <functional>

#include "ember/autograd/node.h"

namespace ember::autograd {

struct GradcheckOptions {
  double eps = 1e-6;   // finite-difference step
  double atol = 1e-5;  // |analytical - numerical| <= atol + rtol * |numerical|
  double rtol = 1e-3;
  /// Throw an Error naming the output, the input and the worst element on failure; else return
  /// false.
  bool raise_exception = true;
};

using GradcheckFn = std::function<variable_list(const variable_list&)>;

/// Compares the Jacobian backward computes for every (output, input) pair against central
/// differences. Inputs that require grad must be float64.
EMBER_API bool gradcheck(const GradcheckFn& fn, const variable_list& inputs,
                         const GradcheckOptions& options = {});

/// gradcheck of the gradient itself: checks that backward with create_graph is differentiable
/// (second derivatives), with random (or the given) gradients of the outputs.
EMBER_API bool gradgradcheck(const GradcheckFn& fn, const variable_list& inputs,
                             const variable_list& grad_outputs = {},
                             const GradcheckOptions& options = {});

}  // namespace ember::autograd
