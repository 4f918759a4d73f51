// The autograd graph: a Node is the backward of one recorded op. It receives the gradients of the
// op's outputs ("inputs" of the node) and produces the gradients of the op's inputs, which flow
// along its next edges to the nodes that produced those inputs (or to AccumulateGrad for leaves).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/core/inline_vector.h"
#include "ember/core/tensor.h"

namespace ember::autograd {

class Node;
/// LibTorch's names for tensors in autograd code: a Variable is a Tensor.
using Variable = Tensor;
using variable_list = std::vector<Tensor>;
using tensor_list = std::vector<Tensor>;

/// Where a gradient goes: input `input_nr` of `function`. An invalid edge means "not needed".
struct Edge {
  Edge() = default;
  Edge(std::shared_ptr<Node> fn, uint32_t nr) : function(std::move(fn)), input_nr(nr) {}
  bool is_valid() const { return function != nullptr; }
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
};
using edge_list = std::vector<Edge>;

/// Shape, dtype and device of one forward output, so the engine can check (and sum-reduce or cast)
/// the gradient that arrives for it.
struct InputMetadata {
  InputMetadata() = default;
  explicit InputMetadata(const Tensor& t)
      : shape(t.sizes()), dtype(t.dtype()), device(t.device()) {}
  DimVector shape;
  ScalarType dtype = ScalarType::Float;
  Device device = Device(kCPU);
};

/// Rewrites the gradient of one forward output before the node runs (a tensor hook).
using GradHook = std::function<Tensor(const Tensor&)>;
/// Python's Node.register_prehook: sees the incoming gradients, may return replacements.
using NodePreHook = std::function<std::optional<variable_list>(const variable_list& grad_outputs)>;
/// Python's Node.register_hook: sees the produced and incoming gradients, may replace the produced.
using NodePostHook = std::function<std::optional<variable_list>(const variable_list& grad_inputs,
                                                                const variable_list& grad_outputs)>;

class EMBER_API Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  /// The LibTorch-style name, e.g. "MulBackward0".
  virtual std::string name() const = 0;

  /// Number of gradients received (the forward op's outputs).
  uint32_t num_inputs() const { return static_cast<uint32_t>(input_metadata_.size()); }
  /// Number of gradients produced (the forward op's inputs).
  uint32_t num_outputs() const { return static_cast<uint32_t>(next_edges_.size()); }
  const Edge& next_edge(size_t i) const { return next_edges_[i]; }
  const InlineVector<Edge, 2>& next_edges() const { return next_edges_; }
  const InputMetadata& input_metadata(size_t i) const { return input_metadata_[i]; }
  /// Whether gradient i of the forward inputs is wanted by anyone.
  bool should_compute_output(size_t i) const { return next_edges_[i].is_valid(); }
  /// Creation order on this thread; the engine runs later nodes first.
  uint64_t sequence_nr() const { return sequence_nr_; }

  /// Runs the node on the gradients of its forward outputs (hooks not included).
  variable_list operator()(variable_list&& grads);

  /// Drops saved tensors once backward no longer needs them (no retain_graph).
  virtual void release_variables() {}

  // ---- Hooks (Python's Node.register_prehook / register_hook) ----
  size_t register_prehook(NodePreHook hook);
  size_t register_hook(NodePostHook hook);
  /// Removes a hook by the id register_* returned; false when there is none.
  bool remove_hook(size_t id);

  // ---- Construction (used by the recording code and custom functions) ----
  void add_next_edge(Edge e) { next_edges_.push_back(std::move(e)); }
  void set_next_edges(size_t n) { next_edges_.resize(n); }
  void set_next_edge(size_t i, Edge e) { next_edges_[i] = std::move(e); }
  uint32_t add_input_metadata(const Tensor& t);

  /// Computes the gradients for the next edges. `grads` has num_inputs() entries (undefined
  /// where nothing flowed); `out` arrives sized num_outputs(), all undefined.
  virtual void apply(ArrayRef<Tensor> grads, variable_list& out) = 0;

  struct Hooks;  // defined by the library (src/autograd/node_internal.h)

 private:
  friend struct NodeAccess;

  uint64_t sequence_nr_;
  InlineVector<Edge, 2> next_edges_;
  InlineVector<InputMetadata, 1> input_metadata_;
  std::unique_ptr<Hooks> hooks_;  // null unless hooks were registered: plain nodes pay a pointer

  // Engine bookkeeping for the backward pass that is running (no per-node maps).
  InlineVector<Tensor, 1> input_buffer_;
  uint64_t task_id_ = 0;
  uint32_t dependencies_ = 0;
  bool needed_ = false;
};

}  // namespace ember::autograd
