// What the engine exposes to the rest of the autograd code about the backward pass in progress.
#pragma once

#include <memory>
#include <vector>

#include "ember/autograd/node.h"

namespace ember::autograd {

/// The node whose apply() is running on this thread, or null (used to reattach saved outputs).
std::shared_ptr<Node> current_node_shared();

/// autograd::grad with the targets given as edges (a node input each) instead of tensors: the
/// gradient arriving at each valid edge, undefined where none does (activation checkpointing asks
/// for the edges its recomputed graph shares with the rest of the graph).
variable_list grad_at_edges(const variable_list& outputs, const variable_list& grad_outputs,
                            const std::vector<Edge>& edges, bool create_graph);

/// Marks `node` as the one running on this thread for a scope.
class CurrentNodeGuard {
 public:
  explicit CurrentNodeGuard(Node* node);
  ~CurrentNodeGuard();
  CurrentNodeGuard(const CurrentNodeGuard&) = delete;
  CurrentNodeGuard& operator=(const CurrentNodeGuard&) = delete;

 private:
  Node* prev_;
};

}  // namespace ember::autograd
