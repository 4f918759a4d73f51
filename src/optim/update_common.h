// What the optimizers' step() loops share (src/optim/*.cpp). Private to the library.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/core/macros.h"
#include "ember/optim/optimizer.h"
#include "kernels/common/optim_params.h"
#include "src/core/check.h"
#include "src/dispatch/dispatch.h"

namespace ember::optim::detail {

/// Runs the closure (if any) with grad mode on, as step(closure) must, and returns its loss.
inline Tensor run_closure(const Optimizer::LossClosure& closure) {
  if (!closure) return Tensor();
  AutoGradMode enable_grad(true);  // the closure runs forward and backward
  return closure();
}

/// State tensors compare equal when both are undefined, or both defined with equal values.
inline bool same_tensor_state(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined()) return a.defined() == b.defined();
  return a.sizes() == b.sizes() && a.equal(b);
}

/// The group's options as Options, or an Error naming the optimizer and the group.
template <class Options>
const Options& group_options(const OptimizerParamGroup& group, size_t index, const char* name,
                             const char* options_name) {
  const auto* options = dynamic_cast<const Options*>(&group.options());
  EMBER_CHECK(options != nullptr,
              "{}::step: param group {} does not hold {}. Hint: give {}'s param groups {} (or "
              "none, to use the defaults)",
              name, index, options_name, name, options_name);
  return *options;
}

/// The checks Python's Adam family (Adamax, NAdam, RAdam) makes, in its order and with its
/// messages; `name` is the optimizer, `where` says which options ("defaults", "param group 1").
inline void check_adam_family_options(const char* name, double lr, double eps,
                                      const std::tuple<double, double>& betas, double weight_decay,
                                      const std::string& where) {
  const auto [beta1, beta2] = betas;
  EMBER_CHECK_VALUE(lr >= 0, "{}: Invalid learning rate: {} ({}). Hint: lr must be >= 0", name, lr,
                    where);
  EMBER_CHECK_VALUE(eps >= 0, "{}: Invalid epsilon value: {} ({}). Hint: eps must be >= 0", name,
                    eps, where);
  EMBER_CHECK_VALUE(beta1 >= 0 && beta1 < 1,
                    "{}: Invalid beta parameter at index 0: {} ({}). Hint: betas must be in [0, 1)",
                    name, beta1, where);
  EMBER_CHECK_VALUE(beta2 >= 0 && beta2 < 1,
                    "{}: Invalid beta parameter at index 1: {} ({}). Hint: betas must be in [0, 1)",
                    name, beta2, where);
  EMBER_CHECK_VALUE(weight_decay >= 0,
                    "{}: Invalid weight_decay value: {} ({}). Hint: weight_decay must be >= 0",
                    name, weight_decay, where);
}

/// The state of `p` as State, made by `init` (State&) when p has none yet.
template <class State, class Init>
State& state_or_init(Optimizer::StateMap& states, const Tensor& p, Init&& init) {
  auto it = states.find(p.unsafeGetTensorImpl());
  if (it == states.end()) {
    auto fresh = std::make_unique<State>();
    init(*fresh);
    it = states.emplace(p.unsafeGetTensorImpl(), std::move(fresh)).first;
  }
  return static_cast<State&>(*it->second);
}

/// Test switch: whether step() may use the fused update kernels (on by default). Off, every
/// parameter takes the op chain, the reference the fused kernels match bit for bit
/// (tests/optim/fused_update_test.cpp). Not thread-safe against a running step().
EMBER_API void set_fused_updates_enabled(bool enabled);
/// See set_fused_updates_enabled.
EMBER_API bool fused_updates_enabled();
/// How many parameter updates the fused kernels have made in this process (tests check with it
/// that the fused path ran).
EMBER_API int64_t fused_update_count();

/// The parameters of one group that one fused kernel call updates (kernel row `op`, one of the
/// `*_update` rows of op_table_optim.h). A parameter qualifies when it is dense and contiguous,
/// of a floating dtype the device's kernel takes, with a contiguous gradient and contiguous state
/// tensors of its dtype, shape and device, and when it has the device and dtype of the first one
/// taken. The others stay with the op chain: the caller updates them itself.
class FusedBatch {
 public:
  explicit FusedBatch(OpId op) : op_(op) {}

  /// Takes p, returning its entry (for the caller's per-tensor scalars; valid until the next
  /// add), or null when p does not qualify. `state`: the tensors the kernel updates, in the
  /// family's order (kernels/common/optim_params.h); null is a slot the options leave unused,
  /// an undefined tensor (a state the options need but p lacks) disqualifies p.
  OptimTensor* try_add(const Tensor& p, const Tensor& grad,
                       std::initializer_list<const Tensor*> state);

  /// Runs the kernel over every parameter taken (nothing when none was), with the family's
  /// options in `params` (its list is filled here), then bumps the version of every tensor the
  /// kernel wrote, as the op chain's in-place ops would.
  template <OpId id, class Params>
  void run(Params& params) {
    if (entries_.empty()) return;
    params.list.tensors = entries_.data();
    params.list.count = static_cast<int64_t>(entries_.size());
    get_kernel<id>(device_.type(), dtype_)(dtype_, params);
    bump_written();
  }

 private:
  void bump_written();

  OpId op_;
  Device device_ = Device(kCPU);
  ScalarType dtype_ = kFloat;
  std::vector<OptimTensor> entries_;
  std::vector<Tensor> written_;
  // Storages the batch writes (params, states) and reads (grads): a parameter whose memory
  // overlaps another entry's (views of one flat buffer, a grad aliasing another param) is left
  // to the op chain, since the kernel updates all entries at once, split over threads.
  std::unordered_set<const void*> written_storages_, read_storages_;
};

}  // namespace ember::optim::detail
