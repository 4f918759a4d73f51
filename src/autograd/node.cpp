#include "ember/autograd/node.h"

#include "src/autograd/grad_mode_state.h"
#include "src/autograd/node_internal.h"
#include "src/core/check.h"

namespace ember::autograd {

namespace {
// Per thread, like LibTorch: creation order decides execution order among ready nodes.
EMBER_FAST_TLS uint64_t tls_sequence_nr = 0;
std::atomic<size_t> g_hook_id{1};
}  // namespace

size_t next_hook_id() { return g_hook_id.fetch_add(1, std::memory_order_relaxed); }

Node::Node() : sequence_nr_(tls_sequence_nr++) {}
Node::~Node() = default;

uint32_t Node::add_input_metadata(const Tensor& t) {
  input_metadata_.push_back(InputMetadata(t));
  input_buffer_.resize(input_metadata_.size());
  return num_inputs() - 1;
}

variable_list Node::operator()(variable_list&& grads) {
  EMBER_CHECK(grads.size() == num_inputs(), "{}: expected {} gradients, got {}", name(),
              num_inputs(), grads.size());
  variable_list out(num_outputs());
  apply(ArrayRef<Tensor>(grads.data(), grads.size()), out);
  return out;
}

Node::Hooks& NodeAccess::hooks(Node& n) {
  if (!n.hooks_) n.hooks_ = std::make_unique<Node::Hooks>();
  return *n.hooks_;
}

size_t Node::register_prehook(NodePreHook hook) {
  size_t id = next_hook_id();
  NodeAccess::hooks(*this).pre_hooks.emplace_back(id, std::move(hook));
  return id;
}

size_t Node::register_hook(NodePostHook hook) {
  size_t id = next_hook_id();
  NodeAccess::hooks(*this).post_hooks.emplace_back(id, std::move(hook));
  return id;
}

bool Node::remove_hook(size_t id) {
  if (!hooks_) return false;
  auto erase = [id](auto& list, auto key) {
    for (auto it = list.begin(); it != list.end(); ++it)
      if (key(*it) == id) {
        list.erase(it);
        return true;
      }
    return false;
  };
  auto first = [](const auto& p) { return p.first; };
  return erase(hooks_->pre_hooks, first) || erase(hooks_->post_hooks, first) ||
         erase(hooks_->tensor_pre_hooks, [](const Hooks::TensorHook& h) { return h.id; });
}

}  // namespace ember::autograd
