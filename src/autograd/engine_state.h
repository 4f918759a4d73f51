// What the engine exposes to the rest of the autograd code about the backward pass in progress.
#pragma once

#include <memory>

#include "ember/autograd/node.h"

namespace ember::autograd {

/// The node whose apply() is running on this thread, or null (used to reattach saved outputs).
std::shared_ptr<Node> current_node_shared();

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
