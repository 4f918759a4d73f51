// functional_call's swap: each given tensor's module slot is rebound to it for the call and put
// back afterwards (tensor_binding.h).
#include "ember/nn/utils/stateless.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "src/autograd/tensor_binding.h"
#include "src/core/check.h"
#include "src/nn/utils/module_registry_access.h"

namespace ember::nn::utils::detail {
namespace {

using nn::detail::ModuleRegistryAccess;

std::string quoted(const std::vector<std::string>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) out += (i ? ", '" : "'") + keys[i] + "'";
  return out;
}

// Every parameter and buffer name of the tree (tied tensors under each of their names) with the
// registry entry it names.
std::vector<std::pair<std::string, Tensor>> all_named_tensors(Module& root) {
  std::vector<std::pair<std::string, Tensor>> out;
  auto visit = [&](auto& self, Module& m, const std::string& prefix) -> void {
    for (const auto& p : ModuleRegistryAccess::parameters(m))
      if (p.value().defined()) out.emplace_back(prefix + p.key(), p.value());
    for (const auto& b : ModuleRegistryAccess::buffers(m))
      if (b.value().defined()) out.emplace_back(prefix + b.key(), b.value());
    for (const auto& child : m.named_children())
      self(self, *child.value(), prefix + child.key() + ".");
  };
  visit(visit, root, "");
  return out;
}

}  // namespace

struct ReparametrizeGuard::State {
  std::vector<autograd::SlotSnapshot> snapshots;
};

ReparametrizeGuard::ReparametrizeGuard(Module& module, const NamedTensors& tensors,
                                       const FunctionalCallOptions& options)
    : state_(std::make_unique<State>()) {
  const auto names = all_named_tensors(module);
  std::unordered_map<std::string, Tensor> slot_of(names.begin(), names.end());
  std::unordered_map<const TensorImpl*, std::vector<std::string>> names_of;
  for (const auto& [name, t] : names) names_of[t.unsafeGetTensorImpl()].push_back(name);

  std::vector<std::string> unexpected;
  // slot impl -> (the slot, the replacement, the key that gave it)
  std::unordered_map<const TensorImpl*, std::pair<Tensor, std::pair<Tensor, std::string>>> plan;
  std::vector<const TensorImpl*> order;
  std::unordered_set<std::string> given;
  for (const auto& [key, value] : tensors.items()) {
    given.insert(key);
    auto it = slot_of.find(key);
    if (it == slot_of.end()) {
      unexpected.push_back(key);
      continue;
    }
    EMBER_CHECK_VALUE(value.defined(), "functional_call: the tensor given for '{}' is undefined",
                      key);
    const TensorImpl* impl = it->second.unsafeGetTensorImpl();
    if (impl == value.unsafeGetTensorImpl()) continue;  // the module's own tensor: nothing to swap
    auto found = plan.find(impl);
    if (found != plan.end()) {
      const Tensor& other = found->second.second.first;
      EMBER_CHECK_VALUE(other.unsafeGetTensorImpl() == value.unsafeGetTensorImpl(),
                        "functional_call: got multiple values for keys ['{}', '{}'], which are "
                        "tied; they share one tensor in this module, so give one value",
                        found->second.second.second, key);
      continue;
    }
    plan.emplace(impl, std::make_pair(it->second, std::make_pair(value, key)));
    order.push_back(impl);
  }
  if (!options.tie_weights()) {
    for (const TensorImpl* impl : order) {
      for (const std::string& name : names_of[impl]) {
        EMBER_CHECK_VALUE(given.count(name),
                          "functional_call: '{}' is tied to '{}' (one tensor in C++), so "
                          "tie_weights = false cannot replace one without the other; give both "
                          "the same value or use tie_weights = true",
                          plan[impl].second.second, name);
      }
    }
  }
  if (options.strict()) {
    std::vector<std::string> missing;
    for (const auto& [name, t] : names)
      if (!given.count(name) && !(options.tie_weights() && plan.count(t.unsafeGetTensorImpl())))
        missing.push_back(name);
    EMBER_CHECK_VALUE(
        missing.empty() && unexpected.empty(),
        "functional_call: Error(s) in reparametrizing for {}:{}{}", module.name(),
        missing.empty() ? "" : "\n\tMissing key(s): " + quoted(missing) + ".",
        unexpected.empty() ? "" : "\n\tUnexpected key(s): " + quoted(unexpected) + ".");
  }
  state_->snapshots.reserve(order.size());
  try {
    for (const TensorImpl* impl : order) {
      const auto& [slot, replacement] = plan[impl];
      state_->snapshots.emplace_back(slot);
      autograd::bind_slot(slot, replacement.first);
    }
  } catch (...) {
    for (auto it = state_->snapshots.rbegin(); it != state_->snapshots.rend(); ++it) it->restore();
    throw;
  }
}

ReparametrizeGuard::~ReparametrizeGuard() {
  for (auto it = state_->snapshots.rbegin(); it != state_->snapshots.rend(); ++it) it->restore();
}

}  // namespace ember::nn::utils::detail
