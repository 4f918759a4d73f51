// Lazy modules: LazyLinear, and the helpers the templated lazy convolutions and norms share.
#include "ember/nn/modules/lazy.h"

#include "ember/autograd/grad_mode.h"
#include "ember/core/generator.h"
#include "src/core/check.h"
#include "src/nn/utils/module_registry_access.h"

namespace ember::nn {

void detail::lazy_unregister(Module& module, const std::vector<std::string>& parameters,
                             const std::vector<std::string>& buffers) {
  for (const auto& name : parameters)
    if (ModuleRegistryAccess::parameters(module).contains(name))
      ModuleRegistryAccess::parameters(module).erase(name);
  for (const auto& name : buffers)
    if (ModuleRegistryAccess::buffers(module).contains(name))
      ModuleRegistryAccess::buffers(module).erase(name);
}

void detail::without_drawing(const std::function<void()>& create) {
  Generator& gen = default_generator();
  Tensor state;
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    state = gen.get_state();
  }
  create();
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(state);
}

int64_t detail::lazy_size_from(const StateDict& state_dict, const std::string& key, int64_t dim) {
  const Tensor* t = state_dict.find(key);
  if (t == nullptr || !t->defined() || t->dim() <= dim) return -1;
  return t->size(dim);
}

// Python's LazyLinear: Linear(0, 0, bias=False) until the first call, so construction draws no
// random numbers; the real out_features and bias are kept in the options.
LazyLinearImpl::LazyLinearImpl(int64_t out_features, bool bias)
    : LinearImpl(LinearOptions(0, 0).bias(false)) {
  EMBER_CHECK_VALUE(out_features >= 0, "LazyLinear: out_features must be >= 0, got {}",
                    out_features);
  options.out_features(out_features).bias(bias);
  // Nothing to optimise or save until the shapes are known (Python's UninitializedParameter).
  detail::lazy_unregister(*this, {"weight", "bias"}, {});
  weight = Tensor();
  this->bias = Tensor();
  register_load_state_dict_pre_hook([](Module& self, StateDict& sd, const std::string& prefix, bool,
                                       std::vector<std::string>&, std::vector<std::string>&,
                                       std::vector<std::string>&) {
    auto& me = static_cast<LazyLinearImpl&>(self);
    if (!me.uninitialized_) return;
    const int64_t in = detail::lazy_size_from(sd, prefix + "weight", 1);
    if (in >= 0) detail::without_drawing([&] { me.materialize(in); });
  });
}

void LazyLinearImpl::materialize(int64_t in_features) {
  autograd::NoGradGuard no_grad;
  detail::lazy_unregister(*this, {"weight", "bias"}, {});
  options.in_features(in_features);
  reset();
  uninitialized_ = false;
}

void LazyLinearImpl::initialize_parameters(const Tensor& input) {
  if (!uninitialized_) return;
  EMBER_CHECK_VALUE(input.defined() && input.dim() >= 1,
                    "LazyLinear: the first input must have at least 1 dim to infer in_features");
  materialize(input.size(-1));
}

Tensor LazyLinearImpl::forward(const Tensor& input) {
  initialize_parameters(input);
  return LinearImpl::forward(input);
}

}  // namespace ember::nn
