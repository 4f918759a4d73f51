#include "ember/autograd/saved_variable.h"

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "src/autograd/autograd_meta.h"
#include "src/autograd/engine_state.h"
#include "src/autograd/grad_mode_state.h"
#include "src/core/check.h"

namespace ember::autograd {

namespace {
EMBER_FAST_TLS SavedVariable::Collector* tls_collector = nullptr;
}  // namespace

void SavedVariable::set_collector(Collector* c) { tls_collector = c; }

SavedVariable::SavedVariable(const SavedVariable& o)
    : data_(o.data_),
      weak_grad_fn_(o.weak_grad_fn_),
      saved_version_(o.saved_version_),
      output_nr_(o.output_nr_),
      is_output_(o.is_output_),
      was_defined_(o.was_defined_),
      requires_grad_(o.requires_grad_) {
  if (was_defined_ && tls_collector) tls_collector->add(this);  // undefined: nothing to free
}

SavedVariable::SavedVariable(SavedVariable&& o) noexcept
    : data_(std::move(o.data_)),
      weak_grad_fn_(std::move(o.weak_grad_fn_)),
      saved_version_(o.saved_version_),
      output_nr_(o.output_nr_),
      is_output_(o.is_output_),
      was_defined_(o.was_defined_),
      requires_grad_(o.requires_grad_) {
  if (was_defined_ && tls_collector) tls_collector->add(this);  // undefined: nothing to free
}

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  was_defined_ = t.defined();
  if (!was_defined_) return;
  // Inference tensors keep no trustworthy version counter (LibTorch refuses them the same way).
  EMBER_CHECK(!t.unsafeGetTensorImpl()->storage()->is_inference(),
              "autograd: an inference tensor (shape {}, made under InferenceMode) cannot be saved "
              "for backward. Hint: clone it outside InferenceMode to get a normal tensor",
              t.sizes());
  saved_version_ = t._version();
  is_output_ = is_output;
  // An output is saved before its node is attached, but it will have one.
  requires_grad_ = is_output || t.requires_grad();
  if (is_output) {
    // Holding the output itself would hold its grad_fn, which holds this: a cycle. Keep the data
    // only, and reattach the node (the one unpacking it) when a differentiable copy is needed.
    output_nr_ = t.output_nr();
    if (const auto& fn = grad_fn_of(t)) weak_grad_fn_ = fn;
    data_ = t.detach();
  } else if (const AutogradMeta* m = get_autograd_meta(t); m && m->bound_to_.defined()) {
    data_ = m->bound_to_;  // a rebound slot: keep what it stands for now
  } else {
    data_ = t;
  }
}

void SavedVariable::reset() { data_.reset(); }

void SavedVariable::bind_output(const Tensor& out, const std::shared_ptr<Node>& fn,
                                uint32_t output_nr) {
  if (!is_output_ || !data_.defined() || !out.defined()) return;
  TensorImpl* a = data_.unsafeGetTensorImpl();
  TensorImpl* b = out.unsafeGetTensorImpl();
  if (a->storage() != b->storage() || a->storage_offset() != b->storage_offset() ||
      a->sizes() != b->sizes() || a->strides() != b->strides())
    return;
  weak_grad_fn_ = fn;
  output_nr_ = output_nr;
}

Tensor SavedVariable::unpack() const {
  if (!was_defined_) return Tensor();
  EMBER_CHECK(data_.defined(),
              "Trying to backward through the graph a second time (or directly access saved "
              "tensors after they have already been freed). Saved intermediate values of the "
              "graph are freed when you call backward() or autograd::grad(). Hint: pass "
              "retain_graph=true if you need to backward through the graph a second time");
  if (EMBER_UNLIKELY(data_._version() != saved_version_)) {
    std::string producer;
    if (is_output_) {
      auto fn = weak_grad_fn_.lock();
      if (!fn) fn = current_node_shared();
      if (fn) producer = fmt::format(", which is output {} of {},", output_nr_, fn->name());
    } else if (const auto& fn = grad_fn_of(data_)) {
      producer = fmt::format(", which is output {} of {},", data_.output_nr(), fn->name());
    }
    EMBER_CHECK(false,
                "one of the variables needed for gradient computation has been modified by an "
                "inplace operation: [{} {}]{} is at version {}; expected version {} instead. Hint: "
                "enable anomaly detection with ember::autograd::DetectAnomalyGuard to find the "
                "operation that failed to compute its gradient",
                data_.dtype(), data_.sizes(), producer, data_._version(), saved_version_);
  }
  if (!is_output_ || !requires_grad_ || !GradMode::is_enabled()) return data_;
  // create_graph: the formula's result must be differentiable through this output too.
  std::shared_ptr<Node> fn = weak_grad_fn_.lock();
  if (!fn) fn = current_node_shared();
  Tensor t = data_.detach();
  if (fn) set_history(t, fn, output_nr_);
  return t;
}

}  // namespace ember::autograd
