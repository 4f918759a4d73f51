// Autograd for the elementwise ops: every differentiable row of op_table.h has one line in
// elementwise.cpp (its gradient per input; rows without one give results that do not require
// grad), and the shared bodies in
// src/ops/elementwise_impl.cpp call elementwise_with_grad when an input requires grad.
#pragma once

#include "ember/autograd/grad_mode.h"
#include "src/autograd/record.h"
#include "src/ops/elementwise_impl.h"

namespace ember::autograd {

/// What must be done around the op's body (computed before it runs, since an in-place op
/// overwrites what its formula may need).
struct ElementwiseFormula;
struct PendingElementwise {
  const ElementwiseFormula* f = nullptr;
  Edges edges;
  SavedVariable saved[3];
  Scalar scalars[3];
  bool is_scalar[3] = {false, false, false};
  size_t n = 0;
  OpScalars s;
  bool in_place = false;
};
/// Fills `p` for an op over `inputs`; false when the op has no gradient (its result then simply
/// does not require grad).
bool prepare_elementwise(PendingElementwise& p, OpId op, std::initializer_list<Operand> inputs,
                         const OpScalars& s, const Tensor* out);
void finish_elementwise(PendingElementwise& p, const Tensor& result);

/// Runs the elementwise op `body` with recording off and records its backward.
template <class Body>
Tensor elementwise_with_grad(OpId op, std::initializer_list<Operand> inputs, const OpScalars& s,
                             const Tensor* out, Body&& body) {
  PendingElementwise pending;  // on the stack: recording one op allocates only its node
  const bool differentiable = prepare_elementwise(pending, op, inputs, s, out);
  Tensor result;
  {
    AutoGradMode off(false);
    result = body();
  }
  if (differentiable) finish_elementwise(pending, result);
  return result;
}

}  // namespace ember::autograd
