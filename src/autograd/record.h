// How ops record themselves: the internal API every differentiable op uses.
//
//   Tensor mul(const Tensor& a, const Tensor& b) {
//     autograd::OpRecording rec(a, b);       // on when grad mode is on and a or b requires grad;
//     Tensor r = ...compute...;              // the body then runs with recording off
//     if (rec) derivatives::mul(r, a, b);    // src/autograd/derivatives/*.cpp
//     return r;
//   }
//
// and a derivative is one short function that saves what its formula needs and records it:
//
//   record("MulBackward0", result, edges_of(self, other),
//          [a = save(self), b = save(other)](const Tensor& grad, NeedsGrad needs) -> Grads {
//            return {needs[0] ? grad * b.unpack() : Tensor(), needs[1] ? grad * a.unpack() :
//            Tensor()};
//          });
#pragma once

#include <optional>
#include <type_traits>
#include <utility>

#include "ember/autograd/node.h"
#include "ember/autograd/saved_variable.h"
#include "src/autograd/autograd_meta.h"
#include "src/autograd/grad_mode_state.h"

namespace ember::autograd {

// ---- Does this op need recording? ----
inline bool requires_grad_arg(const Tensor& t) { return t.defined() && t.requires_grad(); }
inline bool requires_grad_arg(TensorList ts) {
  for (const Tensor& t : ts)
    if (requires_grad_arg(t)) return true;
  return false;
}
inline bool requires_grad_arg(const std::vector<Tensor>& ts) {
  return requires_grad_arg(TensorList(ts));
}
inline bool requires_grad_arg(const std::optional<Tensor>& t) { return t && requires_grad_arg(*t); }

/// True when grad mode is on and any tensor argument requires grad.
template <class... Ts>
inline bool needs_grad(const Ts&... ts) {
  return tls_grad_enabled && (requires_grad_arg(ts) || ...);
}

/// Scope of an op body: decides whether the op records, and if so runs the body with grad mode
/// off, so that ops used inside it do not record themselves.
class OpRecording {
 public:
  template <class... Ts>
  explicit OpRecording(const Ts&... inputs) : active_(needs_grad(inputs...)) {
    if (active_) tls_grad_enabled = false;
  }
  ~OpRecording() {
    if (active_) tls_grad_enabled = true;
  }
  OpRecording(const OpRecording&) = delete;
  OpRecording& operator=(const OpRecording&) = delete;
  explicit operator bool() const { return active_; }

 protected:
  bool active_;
};

/// As OpRecording, for an op that writes `self` in place: checks, before anything is written,
/// that autograd allows it (not a leaf that requires grad, nor a view of one).
class InplaceRecording : public OpRecording {
 public:
  template <class... Ts>
  explicit InplaceRecording(const char* op, const Tensor& self, const Ts&... inputs)
      : OpRecording(self, inputs...) {
    if (active_) check_inplace(op, self);
  }
  static void check_inplace(const char* op, const Tensor& self);
};

[[noreturn]] void throw_out_differentiable(const char* op);
/// Throws when `out=` is used while grad mode is on and an input requires grad (as LibTorch).
template <class... Ts>
inline void check_out_not_differentiable(const char* op, const Ts&... inputs) {
  if (EMBER_UNLIKELY(needs_grad(inputs...))) throw_out_differentiable(op);
}

// ---- Building a node ----
using Edges = InlineVector<Edge, 2>;
inline void append_edges(Edges& e, const Tensor& t) { e.push_back(gradient_edge(t)); }
inline void append_edges(Edges& e, TensorList ts) {
  for (const Tensor& t : ts) e.push_back(gradient_edge(t));
}
inline void append_edges(Edges& e, const std::vector<Tensor>& ts) {
  append_edges(e, TensorList(ts));
}
/// The gradient edges of the op's tensor inputs, in order (lists flattened).
template <class... Ts>
Edges edges_of(const Ts&... inputs) {
  Edges e;
  (append_edges(e, inputs), ...);
  return e;
}

/// Saves a tensor input of the op for its formula.
inline SavedVariable save(const Tensor& t) { return SavedVariable(t, false); }
/// Saves a tensor the op produced (without creating a reference cycle).
inline SavedVariable save_output(const Tensor& t) { return SavedVariable(t, true); }

/// Which gradients the formula must produce (the others may be left undefined).
struct NeedsGrad {
  const Node* node;
  bool operator[](size_t i) const { return node->should_compute_output(i); }
};

/// What a formula returns: one gradient per op input, in edges_of order.
class Grads {
 public:
  Grads(Tensor g) { v_.push_back(std::move(g)); }  // NOLINT: a lone gradient converts
  /// n undefined gradients, to be filled in (no allocation up to 3).
  explicit Grads(size_t n) { v_.resize(n); }
  Grads(std::initializer_list<Tensor> gs) {
    for (const Tensor& g : gs) v_.push_back(g);
  }
  Grads(variable_list gs) {  // NOLINT: list inputs (cat, stack) return a vector
    for (Tensor& g : gs) v_.push_back(std::move(g));
  }
  size_t size() const { return v_.size(); }
  Tensor& operator[](size_t i) { return v_[i]; }

 private:
  InlineVector<Tensor, 3> v_;
};

void check_grad_count(const char* node_name, size_t got, size_t expected);

/// Collects the addresses of the SavedVariables a formula captured, as they move into its node.
class SavedList final : public SavedVariable::Collector {
 public:
  void add(SavedVariable* v) override { saved_.push_back(v); }
  /// After backward without retain_graph: frees the saved tensors (the formula's other captures,
  /// like sizes, stay, so a node that saved no tensor can run again, as in LibTorch).
  void release() {
    for (SavedVariable* v : saved_) v->reset();
  }
  /// Tells saved outputs which output of `fn` they are (they were saved before it existed).
  template <class Outputs>
  void bind_outputs(const Outputs& outputs, const std::shared_ptr<Node>& fn) {
    for (SavedVariable* v : saved_) {
      uint32_t nr = 0;
      for (const Tensor& out : outputs) v->bind_output(out, fn, nr++);
    }
  }

 private:
  InlineVector<SavedVariable*, 4> saved_;
};

/// A node whose backward is the formula `F` (a lambda holding what it saved). One allocation.
template <class F>
class FnNode final : public Node {
 public:
  FnNode(const char* name, F fn) : name_(name) {
    SavedVariable::set_collector(&saved_);
    fn_.emplace(std::move(fn));
    SavedVariable::set_collector(nullptr);
  }
  std::string name() const override { return name_; }
  void release_variables() override { saved_.release(); }
  SavedList& saved() { return saved_; }
  void apply(ArrayRef<Tensor> grads, variable_list& out) override {
    Grads g = call(grads);
    check_grad_count(name_, g.size(), out.size());
    for (size_t i = 0; i < g.size(); ++i) out[i] = std::move(g[i]);
  }

 private:
  Grads call(ArrayRef<Tensor> grads) {
    NeedsGrad needs{this};
    // The list form first: ArrayRef<Tensor> converts from one Tensor, not the other way round.
    if constexpr (std::is_invocable_v<F&, ArrayRef<Tensor>, NeedsGrad>)
      return (*fn_)(grads, needs);
    else if constexpr (std::is_invocable_v<F&, const Tensor&, NeedsGrad>)
      return (*fn_)(grads[0], needs);
    else
      return (*fn_)(grads[0]);
  }
  const char* name_;
  SavedList saved_;
  std::optional<F> fn_;
};

template <class F>
std::shared_ptr<FnNode<std::decay_t<F>>> make_node(const char* name, Edges&& edges, F&& formula) {
  auto node = std::make_shared<FnNode<std::decay_t<F>>>(name, std::forward<F>(formula));
  node->set_next_edges(edges.size());
  for (size_t i = 0; i < edges.size(); ++i) node->set_next_edge(i, std::move(edges[i]));
  return node;
}

/// Only floating outputs carry gradients (an int64 sum of a float tensor does not).
template <class Outputs>
bool any_differentiable(const Outputs& outputs) {
  for (const Tensor& t : outputs)
    if (t.defined() && t.is_floating_point()) return true;
  return false;
}

/// Records `formula` as the backward of an op with `outputs` (a list or vector of tensors) and
/// input edges `edges`.
template <class Outputs, class F>
void record_outputs(const char* name, const Outputs& outputs, Edges edges, F&& formula) {
  if (EMBER_UNLIKELY(!any_differentiable(outputs))) return;
  auto node = make_node(name, std::move(edges), std::forward<F>(formula));
  uint32_t nr = 0;
  for (const Tensor& out : outputs) {
    node->add_input_metadata(out);
    set_history(out, node, nr++);
  }
  if (outputs.size() > 1) node->saved().bind_outputs(outputs, node);
}
template <class F>
void record(const char* name, std::initializer_list<Tensor> outputs, Edges edges, F&& formula) {
  record_outputs(name, outputs, std::move(edges), std::forward<F>(formula));
}
template <class F>
void record(const char* name, const Tensor& output, Edges edges, F&& formula) {
  record_outputs(name, std::initializer_list<Tensor>{output}, std::move(edges),
                 std::forward<F>(formula));
}
/// As record, for ops returning a vector of outputs.
template <class F>
void record_list(const char* name, const std::vector<Tensor>& outputs, Edges edges, F&& formula) {
  record_outputs(name, outputs, std::move(edges), std::forward<F>(formula));
}

void rebase_history(const Tensor& self, std::shared_ptr<Node> node);
/// Records an op that wrote `self` in place; the edges were taken before self's history changed.
/// When self is a view, its base's history is rewritten (CopySlices), as in LibTorch.
template <class F>
void record_inplace(const char* name, const Tensor& self, Edges edges, F&& formula) {
  auto node = make_node(name, std::move(edges), std::forward<F>(formula));
  // A result saved by the formula was saved while `self` still had its old history: it is this
  // node's output, so create_graph must differentiate it through this node.
  node->saved().bind_outputs(std::initializer_list<Tensor>{self}, node);
  rebase_history(self, std::move(node));
}

}  // namespace ember::autograd
