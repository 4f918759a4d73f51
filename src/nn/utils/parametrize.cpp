// Parametrizations: ParametrizationList, registration and removal (Python's
// torch.nn.utils.parametrize), on the slot binding of tensor_binding.h.
#include "ember/nn/utils/parametrize.h"

#include <sstream>
#include <unordered_set>

#include "ember/autograd/grad_mode.h"
#include "src/autograd/tensor_binding.h"
#include "src/core/check.h"
#include "src/nn/utils/module_registry_access.h"

namespace ember::nn::utils::parametrize {
namespace {

using nn::detail::ModuleRegistryAccess;

// cached(): the lists refreshed since the outermost guard on this thread began.
thread_local int cache_depth = 0;
thread_local std::unordered_set<const ParametrizationListImpl*>* cache_fresh = nullptr;

std::string shape_str(IntArrayRef sizes) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < sizes.size(); ++i) s << (i ? ", " : "") << sizes[i];
  s << "]";
  return s.str();
}

std::shared_ptr<ModuleDictImpl> parametrizations_dict(const Module& module) {
  for (const auto& child : module.named_children())
    if (child.key() == "parametrizations")
      return std::dynamic_pointer_cast<ModuleDictImpl>(child.value());
  return nullptr;
}

// Whether the registry entry `name` of `module` is a parameter (true) or buffer (false); throws
// when it is neither.
Tensor* find_slot(Module& module, const std::string& name, bool& is_parameter) {
  if (Tensor* p = ModuleRegistryAccess::parameters(module).find(name); p && p->defined()) {
    is_parameter = true;
    return p;
  }
  if (Tensor* b = ModuleRegistryAccess::buffers(module).find(name); b && b->defined()) {
    is_parameter = false;
    return b;
  }
  return nullptr;
}

}  // namespace

// ---- ParametrizationList ----

ParametrizationListImpl::ParametrizationListImpl(std::shared_ptr<Module> parametrization,
                                                 ParametrizationFunctions functions,
                                                 const Tensor& slot, bool slot_is_parameter,
                                                 bool unsafe)
    : Module("ParametrizationList"), slot_(slot), unsafe_(unsafe) {
  const std::vector<int64_t> slot_shape = slot.sizes().vec();
  const ScalarType slot_dtype = slot.scalar_type();
  const bool requires_grad = slot.requires_grad();
  std::vector<Tensor> news;
  {
    autograd::NoGradGuard no_grad;
    Tensor plain = slot.detach();
    news = {plain};
    // A right_inverse that is not implemented (orthogonal's matrix_exp without trivialization)
    // leaves the original as it is, as Python's ParametrizationList does.
    if (functions.right_inverse) {
      try {
        news = functions.right_inverse(plain);
      } catch (const NotImplementedError&) {
      }
    }
  }
  is_tensor_ = functions.right_inverse_returns_tensor;
  if (is_tensor_) {
    EMBER_CHECK_VALUE(news.size() == 1 && news[0].defined(),
                      "register_parametrization: 'right_inverse' must return a Tensor");
    EMBER_CHECK_VALUE(
        news[0].scalar_type() == slot_dtype,
        "register_parametrization: when `right_inverse` outputs one tensor, it may "
        "not change the dtype.\noriginal.dtype: {}\nright_inverse(original).dtype: {}",
        to_string(slot_dtype), to_string(news[0].scalar_type()));
    // The original keeps the slot's memory when right_inverse is the identity (Python's set_).
    Tensor original = slot.detach();
    autograd::make_slot_leaf(original, news[0].detach(), requires_grad && slot_is_parameter);
    if (slot.grad().defined()) original.mutable_grad() = slot.grad();
    originals_.push_back(original);
    if (slot_is_parameter)
      register_parameter("original", original, requires_grad);
    else
      register_buffer("original", original);
  } else {
    for (size_t i = 0; i < news.size(); ++i) {
      EMBER_CHECK_VALUE(news[i].defined(),
                        "register_parametrization: 'right_inverse' returned an undefined tensor "
                        "as element {}",
                        i);
      Tensor original = news[i].detach();
      originals_.push_back(original);
      const std::string name = "original" + std::to_string(i);
      if (slot_is_parameter)
        register_parameter(name, original, requires_grad);
      else
        register_buffer(name, original);
    }
  }
  EMBER_CHECK_VALUE(functions.arity == originals_.size(),
                    "register_parametrization: {}.forward takes {} tensor(s) but right_inverse "
                    "returned {}",
                    parametrization->name(), functions.arity, originals_.size());
  register_module("0", parametrization);
  functions_.push_back(std::move(functions));
  if (!unsafe_) {
    autograd::NoGradGuard no_grad;
    Tensor z = forward();
    EMBER_CHECK_VALUE(z.scalar_type() == slot_dtype,
                      "register_parametrization: registering a parametrization may not change the "
                      "dtype of the tensor, unless `unsafe` flag is enabled.\nunparametrized "
                      "dtype: {}\nparametrized dtype: {}",
                      to_string(slot_dtype), to_string(z.scalar_type()));
    EMBER_CHECK_VALUE(z.sizes().equals(slot_shape),
                      "register_parametrization: registering a parametrization may not change the "
                      "shape of the tensor, unless `unsafe` flag is enabled.\nunparametrized "
                      "shape: {}\nparametrized shape: {}",
                      shape_str(slot_shape), shape_str(z.sizes()));
  }
}

ParametrizationListImpl::~ParametrizationListImpl() { hook_.remove(); }

Tensor ParametrizationListImpl::forward() const {
  Tensor x = functions_[0].forward(originals_);
  for (size_t i = 1; i < functions_.size(); ++i) x = functions_[i].forward({x});
  return x;
}

void ParametrizationListImpl::right_inverse(const Tensor& value) {
  autograd::NoGradGuard no_grad;
  std::vector<Tensor> v{value};
  for (size_t i = functions_.size(); i-- > 0;) {
    const std::string who = (*this)[i]->name();
    EMBER_CHECK_VALUE(static_cast<bool>(functions_[i].right_inverse),
                      "parametrize: parametrization {} does not implement right_inverse", who);
    EMBER_CHECK_VALUE(v.size() == 1,
                      "parametrize: {}.right_inverse receives one tensor, but the parametrization "
                      "after it returned {}",
                      who, v.size());
    v = functions_[i].right_inverse(v[0]);
  }
  EMBER_CHECK_VALUE(v.size() == originals_.size(),
                    "parametrize: 'right_inverse' must return {} tensor(s), got {}",
                    originals_.size(), v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    EMBER_CHECK_VALUE(v[i].scalar_type() == originals_[i].scalar_type(),
                      "parametrize: the tensor {} returned by `right_inverse` has dtype {} while "
                      "`original{}` has dtype {}",
                      i, to_string(v[i].scalar_type()), is_tensor_ ? "" : std::to_string(i),
                      to_string(originals_[i].scalar_type()));
    // Python's set_: the original takes the new value's memory and shape, keeping its identity.
    const bool rg = originals_[i].requires_grad();
    Tensor grad = originals_[i].grad();
    autograd::make_slot_leaf(originals_[i], v[i].detach(), rg);
    if (grad.defined()) originals_[i].mutable_grad() = grad;
  }
}

void ParametrizationListImpl::append(std::shared_ptr<Module> parametrization,
                                     ParametrizationFunctions functions) {
  EMBER_CHECK_VALUE(functions.arity == 1,
                    "register_parametrization: {} is not the first parametrization of the tensor, "
                    "so its forward must take one tensor",
                    parametrization->name());
  register_module(std::to_string(functions_.size()), std::move(parametrization));
  functions_.push_back(std::move(functions));
}

std::shared_ptr<Module> ParametrizationListImpl::operator[](size_t i) const {
  EMBER_CHECK_INDEX(i < functions_.size(), "ParametrizationList: index {} out of range for {}", i,
                    functions_.size());
  return named_children()[std::to_string(i)];
}

const Tensor& ParametrizationListImpl::original(size_t i) const {
  EMBER_CHECK_INDEX(i < originals_.size(), "ParametrizationList: original {} out of range ({})", i,
                    originals_.size());
  return originals_[i];
}

void ParametrizationListImpl::refresh() {
  if (cache_depth > 0 && !cache_fresh->insert(this).second) return;
  autograd::bind_slot(slot_, forward());
}

void ParametrizationListImpl::refresh_keeping_state() {
  std::vector<Tensor> buffers = this->buffers();
  std::vector<Tensor> saved;
  saved.reserve(buffers.size());
  for (const Tensor& b : buffers) saved.push_back(b.detach().clone());
  autograd::bind_slot(slot_, forward());
  autograd::NoGradGuard no_grad;
  for (size_t i = 0; i < buffers.size(); ++i) buffers[i].copy_(saved[i]);
}

void ParametrizationListImpl::attach(Module& owner) {
  std::weak_ptr<Module> self = weak_from_this();
  hook_ = owner.register_forward_pre_hook(
      [self](Module&, const std::vector<IValue>&) -> std::optional<std::vector<IValue>> {
        if (auto list = self.lock()) static_cast<ParametrizationListImpl&>(*list).refresh();
        return std::nullopt;
      },
      /*prepend=*/true);
  refresh_keeping_state();
}

void ParametrizationListImpl::detach_from_owner() { hook_.remove(); }

void ParametrizationListImpl::pretty_print(std::ostream& stream) const {
  stream << "ParametrizationList";
  if (unsafe_) stream << "(unsafe=True)";
}

// ---- registration ----

namespace detail {

void register_parametrization(Module& module, const std::string& tensor_name,
                              std::shared_ptr<Module> parametrization,
                              ParametrizationFunctions functions, bool unsafe) {
  EMBER_CHECK_VALUE(parametrization != nullptr,
                    "register_parametrization: the parametrization of '{}' is empty", tensor_name);
  parametrization->train(module.is_training());
  if (is_parametrized(module, tensor_name)) {
    auto list = parametrization_list(module, tensor_name);
    if (!unsafe) {
      autograd::NoGradGuard no_grad;
      Tensor y = list->forward();
      EMBER_CHECK_VALUE(functions.arity == 1,
                        "register_parametrization: {}.forward must take one tensor",
                        parametrization->name());
      Tensor x = functions.forward({y});
      EMBER_CHECK_VALUE(x.scalar_type() == y.scalar_type(),
                        "register_parametrization: registering a parametrization may not change "
                        "the dtype of the tensor, unless the `unsafe` flag is enabled.\nmodule.{}."
                        "dtype: {}\nparametrization(module.{}).dtype: {}",
                        tensor_name, to_string(y.scalar_type()), tensor_name,
                        to_string(x.scalar_type()));
      EMBER_CHECK_VALUE(x.sizes().equals(y.sizes()),
                        "register_parametrization: registering a parametrization may not change "
                        "the shape of the tensor, unless the `unsafe` flag is enabled.\nmodule.{}."
                        "shape: {}\nparametrization(module.{}).shape: {}",
                        tensor_name, shape_str(y.sizes()), tensor_name, shape_str(x.sizes()));
      if (functions.right_inverse) {
        std::vector<Tensor> z = functions.right_inverse(x);
        EMBER_CHECK_VALUE(functions.right_inverse_returns_tensor && z.size() == 1,
                          "register_parametrization: parametrization.right_inverse must return a "
                          "tensor, got {} tensors",
                          z.size());
        EMBER_CHECK_VALUE(z[0].scalar_type() == y.scalar_type() && z[0].sizes().equals(y.sizes()),
                          "register_parametrization: the tensor returned by "
                          "parametrization.right_inverse must have the same dtype and shape as "
                          "module.{}, unless the `unsafe` flag is enabled.\nmodule.{}: {} {}\n"
                          "returned: {} {}",
                          tensor_name, tensor_name, to_string(y.scalar_type()),
                          shape_str(y.sizes()), to_string(z[0].scalar_type()),
                          shape_str(z[0].sizes()));
      }
    }
    list->append(std::move(parametrization), std::move(functions));
    if (unsafe) list->set_unsafe(true);
    list->refresh_keeping_state();
    return;
  }

  bool is_parameter = false;
  Tensor* entry = find_slot(module, tensor_name, is_parameter);
  EMBER_CHECK_VALUE(entry != nullptr,
                    "register_parametrization: module '{}' does not have a parameter, a buffer, "
                    "or a parametrized element with name '{}'",
                    module.name(), tensor_name);
  auto dict = parametrizations_dict(module);
  if (!dict) {
    for (const auto& child : module.named_children())
      EMBER_CHECK_VALUE(child.key() != "parametrizations",
                        "register_parametrization: module '{}' already has a submodule named "
                        "'parametrizations' that is not a ModuleDict",
                        module.name());
  }
  const Tensor slot = *entry;
  // Built first: its checks throw with the module unchanged.
  auto list = std::make_shared<ParametrizationListImpl>(
      std::move(parametrization), std::move(functions), slot, is_parameter, unsafe);
  if (is_parameter)
    ModuleRegistryAccess::parameters(module).erase(tensor_name);
  else
    ModuleRegistryAccess::buffers(module).erase(tensor_name);
  if (!dict) dict = module.register_module("parametrizations", std::make_shared<ModuleDictImpl>());
  dict->insert(tensor_name, list);
  list->attach(module);
}

}  // namespace detail

bool is_parametrized(const Module& module, const std::string& tensor_name) {
  auto dict = parametrizations_dict(module);
  if (!dict) return false;
  return tensor_name.empty() ? !dict->empty() : dict->contains(tensor_name);
}

std::type_index type_before_parametrizations(const Module& module) { return typeid(module); }

std::shared_ptr<ParametrizationListImpl> parametrization_list(const Module& module,
                                                              const std::string& tensor_name) {
  auto dict = parametrizations_dict(module);
  EMBER_CHECK_VALUE(dict && dict->contains(tensor_name),
                    "parametrize: module '{}' does not have a parametrization on '{}'",
                    module.name(), tensor_name);
  auto list = std::dynamic_pointer_cast<ParametrizationListImpl>((*dict)[tensor_name]);
  EMBER_CHECK_VALUE(list != nullptr,
                    "parametrize: parametrizations.{} of '{}' is not a "
                    "ParametrizationList",
                    tensor_name, module.name());
  return list;
}

void remove_parametrizations(Module& module, const std::string& tensor_name,
                             bool leave_parametrized) {
  EMBER_CHECK_VALUE(is_parametrized(module, tensor_name),
                    "remove_parametrizations: module '{}' does not have a parametrization on '{}'",
                    module.name(), tensor_name);
  auto list = parametrization_list(module, tensor_name);
  const Tensor& slot = list->slot();
  const bool is_parameter = ModuleRegistryAccess::parameters(*list).contains(
      list->is_tensor() ? "original" : "original0");
  Tensor value;
  bool requires_grad = false;
  if (list->is_tensor()) {
    const Tensor& original = list->original();
    requires_grad = original.requires_grad();
    if (leave_parametrized) {
      autograd::NoGradGuard no_grad;
      value = list->forward().detach();
    } else {
      value = original.detach();
    }
  } else {
    EMBER_CHECK_VALUE(leave_parametrized,
                      "remove_parametrizations: cannot leave unparametrized "
                      "(`leave_parametrized=false`) a tensor that is parametrized in terms of a "
                      "sequence of tensors ('{}' of '{}')",
                      tensor_name, module.name());
    Tensor t = list->forward();
    requires_grad = t.requires_grad();
    value = t.detach();
  }
  Tensor grad = list->is_tensor() ? list->original().grad() : Tensor();
  list->detach_from_owner();
  auto dict = parametrizations_dict(module);
  dict->pop(tensor_name);
  autograd::make_slot_leaf(slot, value, false);
  if (grad.defined() && grad.sizes().equals(value.sizes())) slot.mutable_grad() = grad;
  if (is_parameter || requires_grad)
    module.register_parameter(tensor_name, slot, requires_grad);
  else
    module.register_buffer(tensor_name, slot);
  if (dict->empty()) module.unregister_module("parametrizations");
}

void assign(Module& module, const std::string& tensor_name, const Tensor& value) {
  auto list = parametrization_list(module, tensor_name);
  list->right_inverse(value);
  list->refresh_keeping_state();
}

void refresh(Module& module) {
  module.apply([](Module& m) {
    if (auto dict = parametrizations_dict(m))
      for (const auto& item : dict->items())
        if (auto list = std::dynamic_pointer_cast<ParametrizationListImpl>(item.value()))
          autograd::bind_slot(list->slot(), list->forward());
  });
}

CachedGuard::CachedGuard() {
  if (cache_depth++ == 0) cache_fresh = new std::unordered_set<const ParametrizationListImpl*>();
}

CachedGuard::~CachedGuard() {
  if (--cache_depth == 0) {
    delete cache_fresh;
    cache_fresh = nullptr;
  }
}

}  // namespace ember::nn::utils::parametrize
