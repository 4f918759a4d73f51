// Node internals shared by the engine, the tensor hook API and the recording code.
#pragma once

#include <atomic>
#include <tuple>
#include <vector>

#include "ember/autograd/node.h"

namespace ember::autograd {

/// A node's hooks; allocated on the first registration.
struct Node::Hooks {
  struct TensorHook {
    size_t id;
    uint32_t output_nr;
    GradHook fn;
  };
  std::vector<TensorHook> tensor_pre_hooks;  // hooks of non-leaf tensors this node produced
  std::vector<std::pair<size_t, NodePreHook>> pre_hooks;
  std::vector<std::pair<size_t, NodePostHook>> post_hooks;
  /// retain_grad() of output `output_nr`: where its gradient is stored.
  std::vector<std::pair<uint32_t, std::shared_ptr<Tensor>>> retained;
};

/// Unique ids for every hook handle, so a handle never removes someone else's hook.
size_t next_hook_id();

/// The engine's and hook API's way into a node's private state.
struct NodeAccess {
  static Node::Hooks& hooks(Node& n);
  static Node::Hooks* hooks_if_any(Node& n) { return n.hooks_.get(); }
  static InlineVector<Tensor, 1>& input_buffer(Node& n) { return n.input_buffer_; }
  static uint64_t& task_id(Node& n) { return n.task_id_; }
  static uint32_t& dependencies(Node& n) { return n.dependencies_; }
  static bool& needed(Node& n) { return n.needed_; }
  static InlineVector<Edge, 2>& next_edges(Node& n) { return n.next_edges_; }
  static void set_sequence_nr(Node& n, uint64_t nr) { n.sequence_nr_ = nr; }
};

}  // namespace ember::autograd
