// Per-tensor autograd state. For now it records requires_grad and the accumulated gradient; the
// engine (grad_fn, hooks, version checks) grows here with the autograd issue.
#pragma once

#include "ember/core/tensor.h"

namespace ember::autograd {

struct AutogradMeta final : AutogradMetaInterface {
  bool requires_grad_ = false;
  Tensor grad_;
  bool requires_grad() const override { return requires_grad_; }
};

/// The meta of `t`, created on first use.
AutogradMeta& materialize_autograd_meta(const Tensor& t);

}  // namespace ember::autograd
