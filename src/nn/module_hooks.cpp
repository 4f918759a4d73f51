// Module hooks: registration, removal, and the hooked call path (forward pre-hooks, forward
// hooks, and full backward hooks through identity autograd nodes, as Python's BackwardHook).
#include <atomic>
#include <memory>
#include <typeinfo>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/module_call.h"
#include "ember/nn/pimpl.h"
#include "src/autograd/record.h"
#include "src/core/check.h"
#include "src/nn/hook_lists.h"

namespace ember::nn {
namespace detail {
namespace {

std::atomic<size_t> g_next_hook_id{1};
// Number of process-wide forward/backward hooks: the one test every module call makes.
std::atomic<int> g_global_call_hooks{0};

std::shared_ptr<HookLists>& global_lists() {
  static std::shared_ptr<HookLists> lists = std::make_shared<HookLists>();
  return lists;
}

}  // namespace

size_t next_hook_id() { return g_next_hook_id.fetch_add(1, std::memory_order_relaxed); }

HookLists& global_hooks() { return *global_lists(); }

bool global_module_hooks_present() noexcept {
  return g_global_call_hooks.load(std::memory_order_relaxed) != 0;
}

void HookLists::remove(size_t id) {
  size_t before = call_hook_count();
  forward_pre.remove(id) || forward.remove(id) || backward_pre.remove(id) || backward.remove(id) ||
      state_dict_pre.remove(id) || state_dict_post.remove(id) || load_state_dict_pre.remove(id) ||
      load_state_dict_post.remove(id);
  if (call_hook_count() == before) return;
  if (this == global_lists().get())
    g_global_call_hooks.store(static_cast<int>(call_hook_count()), std::memory_order_relaxed);
  else if (owner)
    owner->refresh_call_hooks();
}

void throw_hooks_unsupported(const std::string& module_name) {
  EMBER_CHECK(false,
              "{}: hooks are registered, but its forward takes or returns a type that hooks "
              "cannot carry (they see Tensor, std::optional<Tensor>, numbers, bool, std::string, "
              "and std::vector (not std::vector<bool>), std::tuple, std::pair and string- or "
              "integer-keyed std::map / std::unordered_map (default comparator, hash and "
              "allocator) of those). Hint: remove the hooks or call ->forward() directly",
              module_name);
  __builtin_unreachable();
}

void throw_tuple_size(size_t got, size_t expected) {
  EMBER_CHECK(false,
              "Module call: a tuple argument or result arrived with {} elements where the "
              "forward's std::tuple has {} (a hook or a Sequential stage changed its length)",
              got, expected);
  __builtin_unreachable();
}

void throw_empty_holder(const std::string& type) {
  EMBER_CHECK(false,
              "ModuleHolder: accessing an empty holder of {}. Hint: assign a module to it "
              "(it was created with nullptr)",
              type);
  __builtin_unreachable();
}

}  // namespace detail

void RemovableHandle::remove() {
  if (auto lists = lists_.lock()) lists->remove(id_);
}

namespace {

template <typename Fn>
RemovableHandle add_global(detail::HookList<Fn> detail::HookLists::*list, Fn hook) {
  auto& lists = detail::global_lists();
  size_t id = ((*lists).*list).add(std::move(hook), false);
  detail::g_global_call_hooks.store(static_cast<int>(lists->call_hook_count()),
                                    std::memory_order_relaxed);
  return RemovableHandle(lists, id);
}

}  // namespace

RemovableHandle register_module_forward_pre_hook(ForwardPreHook hook) {
  return add_global(&detail::HookLists::forward_pre, std::move(hook));
}
RemovableHandle register_module_forward_hook(ForwardHook hook) {
  return add_global(&detail::HookLists::forward, std::move(hook));
}
RemovableHandle register_module_full_backward_pre_hook(BackwardPreHook hook) {
  return add_global(&detail::HookLists::backward_pre, std::move(hook));
}
RemovableHandle register_module_full_backward_hook(BackwardHook hook) {
  return add_global(&detail::HookLists::backward, std::move(hook));
}

detail::HookLists& Module::hooks() {
  if (!hooks_) {
    hooks_ = std::make_shared<detail::HookLists>();
    hooks_->owner = this;
  }
  return *hooks_;
}

void Module::refresh_call_hooks() noexcept {
  call_hooks_ = hooks_ ? static_cast<int>(hooks_->call_hook_count()) : 0;
}

// Every register_*_hook: append to one list, recount the call hooks, hand out the handle.
template <typename Fn>
RemovableHandle Module::add_hook(detail::HookList<Fn> detail::HookLists::*list, Fn hook,
                                 bool prepend) {
  size_t id = (hooks().*list).add(std::move(hook), prepend);
  refresh_call_hooks();
  return RemovableHandle(hooks_, id);
}

RemovableHandle Module::register_forward_pre_hook(ForwardPreHook hook, bool prepend) {
  return add_hook(&detail::HookLists::forward_pre, std::move(hook), prepend);
}
RemovableHandle Module::register_forward_hook(ForwardHook hook, bool prepend) {
  return add_hook(&detail::HookLists::forward, std::move(hook), prepend);
}
RemovableHandle Module::register_full_backward_pre_hook(BackwardPreHook hook, bool prepend) {
  return add_hook(&detail::HookLists::backward_pre, std::move(hook), prepend);
}
RemovableHandle Module::register_full_backward_hook(BackwardHook hook, bool prepend) {
  return add_hook(&detail::HookLists::backward, std::move(hook), prepend);
}
RemovableHandle Module::register_state_dict_pre_hook(StateDictPreHook hook) {
  return add_hook(&detail::HookLists::state_dict_pre, std::move(hook), false);
}
RemovableHandle Module::register_state_dict_post_hook(StateDictPostHook hook) {
  return add_hook(&detail::HookLists::state_dict_post, std::move(hook), false);
}
RemovableHandle Module::register_load_state_dict_pre_hook(LoadStateDictPreHook hook) {
  return add_hook(&detail::HookLists::load_state_dict_pre, std::move(hook), false);
}
RemovableHandle Module::register_load_state_dict_post_hook(LoadStateDictPostHook hook) {
  return add_hook(&detail::HookLists::load_state_dict_post, std::move(hook), false);
}

// ---- The hooked call ----
namespace detail {
namespace {

// What the two identity nodes of one call share: the hooks fixed at call time (as Python
// collects them in forward), the module, and grad_output once the output node has run.
struct BackwardHookState {
  std::shared_ptr<Module> keep_alive;  // the module, when shared-owned
  Module* module = nullptr;
  std::vector<BackwardPreHook> pre_hooks;
  std::vector<BackwardHook> hooks;
  size_t n_tensor_inputs = 0;
  bool has_input_node = false;
  variable_list grad_outputs;
};

void check_count(const char* what, const std::string& module, size_t got, size_t want) {
  EMBER_CHECK(got == want, "{}: a backward hook of {} returned {} gradients, but expected {}", what,
              module, got, want);
}

// Applies an identity node over `tensors` (those requiring grad) whose backward runs `formula`.
template <typename Formula>
variable_list identity_node(const char* name, const variable_list& tensors, Formula formula) {
  variable_list outs;
  outs.reserve(tensors.size());
  for (const Tensor& t : tensors) outs.push_back(t.detach());
  autograd::record_outputs(name, outs, autograd::edges_of(tensors), std::move(formula));
  return outs;
}

}  // namespace

struct HookedCall::State {
  std::shared_ptr<BackwardHookState> backward;
  std::vector<size_t> input_positions;  // inputs[i] that are tensors, in order
};

HookedCall::HookedCall(Module& module) : module_(module) {}
HookedCall::~HookedCall() { delete state_; }

void HookedCall::before(std::vector<IValue>& inputs) {
  HookLists& global = global_hooks();
  HookLists* own = module_.hook_lists();
  auto run_pre = [&](HookLists& lists) {
    for (auto& entry : std::vector(lists.forward_pre.entries))
      if (auto replaced = entry.second(module_, inputs)) inputs = std::move(*replaced);
  };
  run_pre(global);
  if (own) run_pre(*own);

  const bool want_backward = autograd::GradMode::is_enabled() &&
                             (global.has_backward_hooks() || (own && own->has_backward_hooks()));
  if (!want_backward) return;
  state_ = new State;
  auto bw = std::make_shared<BackwardHookState>();
  bw->keep_alive = module_.weak_from_this().lock();
  bw->module = &module_;
  for (HookLists* lists : {&global, own}) {
    if (!lists) continue;
    for (auto& e : lists->backward_pre.entries) bw->pre_hooks.push_back(e.second);
    for (auto& e : lists->backward.entries) bw->hooks.push_back(e.second);
  }
  variable_list needing;
  std::vector<size_t> needing_slot;  // index among tensor inputs
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].isTensor()) continue;
    const Tensor& t = inputs[i].toTensor();
    state_->input_positions.push_back(i);
    if (t.defined() && t.requires_grad()) {
      needing.push_back(t);
      needing_slot.push_back(bw->n_tensor_inputs);
    }
    ++bw->n_tensor_inputs;
  }
  state_->backward = bw;
  if (needing.empty() || bw->hooks.empty()) return;
  bw->has_input_node = true;
  variable_list wrapped = identity_node(
      "BackwardHookFunctionBackward", needing,
      [bw, needing_slot](ArrayRef<Tensor> grads, autograd::NeedsGrad) -> autograd::Grads {
        variable_list grad_input(bw->n_tensor_inputs);
        for (size_t k = 0; k < needing_slot.size(); ++k) grad_input[needing_slot[k]] = grads[k];
        for (auto& hook : bw->hooks) {
          if (auto replaced = hook(*bw->module, grad_input, bw->grad_outputs)) {
            check_count("full backward hook", bw->module->name(), replaced->size(),
                        grad_input.size());
            grad_input = std::move(*replaced);
          }
        }
        bw->grad_outputs.clear();
        variable_list out;
        for (size_t slot : needing_slot) out.push_back(grad_input[slot]);
        return autograd::Grads(std::move(out));
      });
  for (size_t k = 0, w = 0; k < state_->input_positions.size(); ++k) {
    IValue& v = inputs[state_->input_positions[k]];
    if (v.toTensor().defined() && v.toTensor().requires_grad()) v = wrapped[w++];
  }
}

bool HookedCall::after(const std::vector<IValue>& inputs, IValue& output) {
  bool changed = false;
  HookLists* own = module_.hook_lists();
  auto run_post = [&](HookLists& lists) {
    for (auto& entry : std::vector(lists.forward.entries)) {
      if (auto replaced = entry.second(module_, inputs, output)) {
        output = std::move(*replaced);
        changed = true;
      }
    }
  };
  run_post(global_hooks());
  if (own) run_post(*own);
  if (!state_ || !state_->backward) return changed;

  // The output side: collect the output tensors that carry gradients.
  variable_list outs;
  if (output.isTensor())
    outs.push_back(output.toTensor());
  else if (output.isTensorList())
    outs = output.toTensorList();
  variable_list needing;
  std::vector<size_t> where;
  for (size_t i = 0; i < outs.size(); ++i) {
    if (outs[i].defined() && outs[i].requires_grad()) {
      needing.push_back(outs[i]);
      where.push_back(i);
    }
  }
  if (needing.empty()) return changed;
  std::shared_ptr<BackwardHookState> bw = state_->backward;
  variable_list wrapped = identity_node(
      "BackwardHookFunctionBackward", needing,
      [bw](ArrayRef<Tensor> grads, autograd::NeedsGrad) -> autograd::Grads {
        variable_list grad_output(grads.begin(), grads.end());
        for (auto& hook : bw->pre_hooks) {
          if (auto replaced = hook(*bw->module, grad_output)) {
            check_count("full backward pre-hook", bw->module->name(), replaced->size(),
                        grad_output.size());
            grad_output = std::move(*replaced);
          }
        }
        bw->grad_outputs = grad_output;
        if (!bw->has_input_node) {
          // No input needs a gradient: the hooks run now, with undefined grad_input (Python).
          variable_list none(bw->n_tensor_inputs);
          for (auto& hook : bw->hooks) {
            auto replaced = hook(*bw->module, none, grad_output);
            bool all_undefined = true;
            if (replaced)
              for (const Tensor& g : *replaced) all_undefined = all_undefined && !g.defined();
            EMBER_CHECK(all_undefined,
                        "full backward hook of {}: no input of the call requires grad, so the "
                        "hook must return nullopt or undefined gradients",
                        bw->module->name());
          }
          bw->grad_outputs.clear();
        }
        return autograd::Grads(std::move(grad_output));
      });
  for (size_t k = 0; k < where.size(); ++k) outs[where[k]] = wrapped[k];
  if (output.isTensor())
    output = outs[0];
  else
    output = IValue(std::move(outs));
  return true;
}

}  // namespace detail
}  // namespace ember::nn
