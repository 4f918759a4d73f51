// Activation checkpointing.
//
// The first run records the function's graph as usual, and right away looks through it for what
// the graph shares with the rest of the world: the inputs (given as fresh leaves, so they are
// recognised), the leaves the function reads (its module's parameters) and the edges into nodes
// made before the call (tensors it captured that have a history). Then the graph, and with it
// every intermediate result it saved, is dropped: the outputs get one CheckpointNode instead,
// whose next edges are those shared ones. Its backward runs the function again (on the saved
// inputs, with the first run's random state) and asks the engine for the gradients arriving at
// exactly those edges, which it passes on. The peak memory of a checkpointed run is therefore
// one segment's intermediates at a time, forward and backward.
//
// (Python's non-reentrant checkpoint reaches the same result by packing saved tensors through
// hooks; Ember has no saved-tensor hooks, and this way needs none.)
#include "ember/utils/checkpoint.h"

#include <unordered_set>

#include "ember/autograd/grad_mode.h"
#include "ember/core/generator.h"
#include "ember/nn/modules/container/any.h"
#include "src/autograd/accumulate_grad.h"
#include "src/autograd/autograd_meta.h"
#include "src/autograd/engine_state.h"
#include "src/core/check.h"

namespace ember::utils {
namespace {

using autograd::Edge;
using autograd::Node;

// A node made only to read the thread's next sequence number: every node recorded after it
// (by the function) has a larger one.
class MarkerNode final : public Node {
 public:
  std::string name() const override { return "CheckpointMarker"; }
  void apply(ArrayRef<Tensor>, autograd::variable_list&) override {}
};

// Python's fork_rng for a scope: the default generator runs from `state` (when defined), and
// gets its own state back at the end.
class ForkedRng {
 public:
  explicit ForkedRng(const Tensor& state) {
    if (!state.defined()) return;
    std::lock_guard<std::mutex> lock(default_generator().mutex());
    saved_ = default_generator().get_state();
    default_generator().set_state(state);
  }
  ~ForkedRng() {
    if (!saved_.defined()) return;
    std::lock_guard<std::mutex> lock(default_generator().mutex());
    default_generator().set_state(saved_);
  }
  ForkedRng(const ForkedRng&) = delete;
  ForkedRng& operator=(const ForkedRng&) = delete;

 private:
  Tensor saved_;
};

class CheckpointNode final : public Node {
 public:
  std::string name() const override { return "CheckpointFunctionBackward"; }

  void apply(ArrayRef<Tensor> grads, autograd::variable_list& out) override {
    EMBER_CHECK(fn_ != nullptr,
                "checkpoint: backward through a checkpointed call a second time; its inputs were "
                "freed after the first (pass retain_graph=true to the first backward)");
    // Recompute, with the first run's random state; the global state moves on as if this did
    // not draw (Python's fork_rng), also when the function throws.
    std::vector<Tensor> inputs = fresh_leaves(inputs_);
    std::vector<Tensor> outputs;
    {
      ForkedRng fork(rng_state_);
      autograd::AutoGradMode enable(true);
      outputs = fn_(inputs);
    }
    EMBER_CHECK(outputs.size() == num_inputs(),
                "checkpoint: the recomputation returned {} tensors, the first run {}",
                outputs.size(), num_inputs());

    // The roots: the recomputed outputs that carry a gradient and received one.
    std::vector<Tensor> roots, root_grads;
    for (size_t i = 0; i < outputs.size(); ++i)
      if (grads[i].defined() && outputs[i].requires_grad()) {
        roots.push_back(outputs[i]);
        root_grads.push_back(grads[i]);
      }
    if (roots.empty()) return;
    // The same shared edges as the first run's, now in the recomputed graph: the new input
    // leaves' edges first, then the parameters' and the captured tensors' (unchanged).
    std::vector<Edge> targets(num_outputs());
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].requires_grad()) targets[i] = autograd::gradient_edge(inputs[i]);
    for (size_t i = inputs.size(); i < targets.size(); ++i) targets[i] = next_edge(i);
    autograd::variable_list got =
        autograd::grad_at_edges(roots, root_grads, targets, autograd::GradMode::is_enabled());
    for (size_t i = 0; i < out.size(); ++i)
      if (should_compute_output(i)) out[i] = std::move(got[i]);
  }

  void release_variables() override {
    fn_ = nullptr;
    inputs_.clear();
  }

  static std::vector<Tensor> fresh_leaves(const std::vector<Tensor>& xs) {
    std::vector<Tensor> leaves;
    leaves.reserve(xs.size());
    for (const Tensor& x : xs) {
      Tensor leaf = x.detach();
      if (x.requires_grad()) leaf.requires_grad_(true);
      leaves.push_back(leaf);
    }
    return leaves;
  }

  detail::CheckpointFn fn_;
  std::vector<Tensor> inputs_;  // the first run's inputs (with their requires_grad)
  Tensor rng_state_;            // undefined without preserve_rng_state
};

struct EdgeKey {
  const Node* node;
  uint32_t nr;
  bool operator==(const EdgeKey& o) const { return node == o.node && nr == o.nr; }
};
struct EdgeKeyHash {
  size_t operator()(const EdgeKey& k) const { return std::hash<const void*>()(k.node) * 31 + k.nr; }
};

// The edges of the recorded graph below `outputs` that leave it: into the AccumulateGrad of a
// leaf, or into a node made before `marker`. Input leaves (in `input_impls`) map to their index.
struct SharedEdges {
  std::vector<int64_t> input_used;  // per input: whether the graph reaches it
  std::vector<Tensor> leaves;       // other leaves reached (parameters)
  std::vector<Edge> captured;       // edges into older nodes (captured tensors with history)
};

SharedEdges find_shared_edges(const std::vector<Tensor>& outputs,
                              const std::vector<Tensor>& input_leaves, uint64_t marker) {
  SharedEdges shared;
  shared.input_used.assign(input_leaves.size(), 0);
  std::unordered_set<const Node*> visited;
  std::unordered_set<const TensorImpl*> leaf_seen;
  std::unordered_set<EdgeKey, EdgeKeyHash> captured_seen;
  std::vector<Edge> stack;
  for (const Tensor& out : outputs)
    if (out.defined() && out.requires_grad()) stack.push_back(autograd::gradient_edge(out));
  while (!stack.empty()) {
    Edge e = std::move(stack.back());
    stack.pop_back();
    if (!e.is_valid()) continue;
    if (auto* acc = dynamic_cast<autograd::AccumulateGrad*>(e.function.get())) {
      const Tensor& leaf = acc->variable();
      bool is_input = false;
      for (size_t i = 0; i < input_leaves.size(); ++i)
        if (input_leaves[i].unsafeGetTensorImpl() == leaf.unsafeGetTensorImpl()) {
          shared.input_used[i] = 1;
          is_input = true;
        }
      if (!is_input && leaf_seen.insert(leaf.unsafeGetTensorImpl()).second)
        shared.leaves.push_back(leaf);
      continue;
    }
    if (e.function->sequence_nr() < marker) {
      if (captured_seen.insert({e.function.get(), e.input_nr}).second) shared.captured.push_back(e);
      continue;
    }
    if (!visited.insert(e.function.get()).second) continue;
    for (const Edge& next : e.function->next_edges()) stack.push_back(next);
  }
  return shared;
}

}  // namespace

std::vector<Tensor> detail::checkpoint(CheckpointFn fn, const std::vector<Tensor>& inputs,
                                       bool preserve_rng_state) {
  for (size_t i = 0; i < inputs.size(); ++i)
    EMBER_CHECK_VALUE(inputs[i].defined(), "checkpoint: input {} is an undefined tensor", i);
  // Without grad mode nothing is recorded, so there is nothing to drop or recompute.
  if (!autograd::GradMode::is_enabled()) return fn(inputs);

  Tensor rng_state;
  if (preserve_rng_state) {
    std::lock_guard<std::mutex> lock(default_generator().mutex());
    rng_state = default_generator().get_state();
  }
  std::vector<Tensor> leaves = CheckpointNode::fresh_leaves(inputs);
  const uint64_t marker = MarkerNode().sequence_nr();
  std::vector<Tensor> recorded = fn(leaves);
  SharedEdges shared = find_shared_edges(recorded, leaves, marker);

  // The outputs' values without the recorded graph (dropping it frees the intermediates).
  std::vector<Tensor> outputs;
  outputs.reserve(recorded.size());
  bool any_grad = false;
  for (const Tensor& r : recorded) {
    EMBER_CHECK_VALUE(r.defined(), "checkpoint: the function returned an undefined tensor");
    any_grad = any_grad || r.requires_grad();
    outputs.push_back(r.detach());
  }
  recorded.clear();
  if (!any_grad) return outputs;

  auto node = std::make_shared<CheckpointNode>();
  for (size_t i = 0; i < inputs.size(); ++i)
    node->add_next_edge(shared.input_used[i] && inputs[i].requires_grad()
                            ? autograd::gradient_edge(inputs[i])
                            : Edge());
  for (const Tensor& leaf : shared.leaves) node->add_next_edge(autograd::gradient_edge(leaf));
  for (const Edge& e : shared.captured) node->add_next_edge(e);
  node->fn_ = std::move(fn);
  node->inputs_ = inputs;
  node->rng_state_ = rng_state;
  for (uint32_t i = 0; i < outputs.size(); ++i) {
    node->add_input_metadata(outputs[i]);
    if (outputs[i].is_floating_point()) autograd::set_history(outputs[i], node, i);
  }
  return outputs;
}

Tensor checkpoint_sequential(nn::Sequential& sequential, int64_t segments, const Tensor& input,
                             bool preserve_rng_state) {
  const auto n = static_cast<int64_t>(sequential->size());
  EMBER_CHECK_VALUE(segments >= 1, "checkpoint_sequential: segments must be at least 1, got {}",
                    segments);
  // Python's split: segments of n / segments modules; the last one takes the rest and runs plain.
  const int64_t segment_size = n / segments;
  auto run = [&sequential](int64_t begin, int64_t end) {
    return [&sequential, begin, end](const Tensor& x) {
      Tensor h = x;
      for (int64_t i = begin; i <= end; ++i)
        h = (sequential->begin() + i)->forward_ivalues({IValue(h)}).toTensor();
      return h;
    };
  };
  Tensor h = input;
  int64_t end = -1;
  for (int64_t start = 0; start < segment_size * (segments - 1); start += segment_size) {
    end = start + segment_size - 1;
    h = checkpoint(run(start, end), h, preserve_rng_state);
  }
  return run(end + 1, n - 1)(h);
}

}  // namespace ember::utils
