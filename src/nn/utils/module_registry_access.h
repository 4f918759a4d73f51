// Direct edits of a module's parameter and buffer registries, for the nn::utils functions that
// Python writes as `del module._parameters[name]` (parametrizations, pruning). Module keeps its
// registries protected for subclasses; this adapter, a subclass that is never instantiated,
// reaches them through pointers to its inherited members, so that only these utilities get the
// access and Module's public interface stays LibTorch's.
#pragma once

#include <string>

#include "ember/nn/module.h"

namespace ember::nn::detail {

struct ModuleRegistryAccess : Module {
  static OrderedDict<std::string, Tensor>& parameters(Module& m) {
    return (m.*&ModuleRegistryAccess::mutable_parameters_registry)();
  }
  static OrderedDict<std::string, Tensor>& buffers(Module& m) {
    return const_cast<OrderedDict<std::string, Tensor>&>(
        (m.*&ModuleRegistryAccess::buffers_registry)());
  }
};

}  // namespace ember::nn::detail
