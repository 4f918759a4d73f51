// The hooks of one module (or the process-wide ones): ordered lists keyed by a process-unique id,
// so a RemovableHandle can find and drop its entry.
#pragma once

#include <atomic>
#include <cstddef>
#include <utility>
#include <vector>

#include "ember/nn/hooks.h"
#include "ember/nn/module.h"

namespace ember::nn::detail {

template <typename Fn>
struct HookList {
  std::vector<std::pair<size_t, Fn>> entries;
  bool empty() const { return entries.empty(); }
  bool remove(size_t id) {
    for (auto it = entries.begin(); it != entries.end(); ++it)
      if (it->first == id) {
        entries.erase(it);
        return true;
      }
    return false;
  }
  /// Appends (or with prepend, puts first) and returns the new id.
  size_t add(Fn fn, bool prepend);
};

size_t next_hook_id();

template <typename Fn>
size_t HookList<Fn>::add(Fn fn, bool prepend) {
  size_t id = next_hook_id();
  if (prepend)
    entries.insert(entries.begin(), {id, std::move(fn)});
  else
    entries.emplace_back(id, std::move(fn));
  return id;
}

struct HookLists {
  HookList<ForwardPreHook> forward_pre;
  HookList<ForwardHook> forward;
  HookList<BackwardPreHook> backward_pre;
  HookList<BackwardHook> backward;
  HookList<StateDictPreHook> state_dict_pre;
  HookList<StateDictPostHook> state_dict_post;
  HookList<LoadStateDictPreHook> load_state_dict_pre;
  HookList<LoadStateDictPostHook> load_state_dict_post;
  /// The module whose hooks these are (null once it is destroyed, and for the global lists).
  Module* owner = nullptr;

  size_t call_hook_count() const {
    return forward_pre.entries.size() + forward.entries.size() + backward_pre.entries.size() +
           backward.entries.size();
  }
  bool has_backward_hooks() const { return !backward_pre.empty() || !backward.empty(); }
  void remove(size_t id);
};

/// The process-wide module hooks (register_module_forward_hook and friends).
HookLists& global_hooks();

}  // namespace ember::nn::detail
