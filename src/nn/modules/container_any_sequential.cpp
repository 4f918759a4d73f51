// AnyModule and Sequential: the non-template parts.
#include "ember/nn/modules/container/any.h"

#include <algorithm>

#include "ember/nn/modules/container/sequential.h"
#include "src/core/check.h"

namespace ember::nn {
namespace detail {
void throw_arity(const std::string& module, size_t want, size_t got) {
  const char* hint = got < want ? ". Hint: if forward has default arguments, declare them with "
                                  "EMBER_FORWARD_HAS_DEFAULT_ARGS (FORWARD_HAS_DEFAULT_ARGS in "
                                  "LibTorch programs)"
                                : "";
  EMBER_CHECK(false, "{}: forward takes {} argument(s), but {} were given{}", module, want, got,
              hint);
  __builtin_unreachable();
}

void fill_forward_defaults(const std::string& module, std::vector<IValue>& args, size_t arity,
                           ForwardDefaultArgs defaults) {
  size_t required = arity;
  for (const auto& d : defaults) required = std::min<size_t>(required, d.first);
  EMBER_CHECK(args.size() >= required && args.size() <= arity,
              "{}: forward takes {} to {} argument(s), but {} were given", module, required, arity,
              args.size());
  for (size_t i = args.size(); i < arity; ++i) {
    auto it =
        std::find_if(defaults.begin(), defaults.end(), [&](const auto& d) { return d.first == i; });
    EMBER_CHECK(it != defaults.end(),
                "{}: forward was called without argument {} (0-based), which has no default. "
                "Hint: list every default argument in EMBER_FORWARD_HAS_DEFAULT_ARGS",
                module, i);
    args.push_back(std::move(it->second));
  }
}
}  // namespace detail

AnyModule::AnyModule(const AnyModule& other)
    : module_(other.module_), call_(other.call_), arity_(other.arity_) {
  if (module_)
    if (std::shared_ptr<Module> copy = detail::clone_of(module_.get())) module_ = std::move(copy);
}

const std::shared_ptr<Module>& AnyModule::ptr() const {
  EMBER_CHECK(module_ != nullptr, "AnyModule: the AnyModule is empty");
  return module_;
}

IValue AnyModule::forward_ivalues(std::vector<IValue> inputs) {
  return call_(*ptr(), std::move(inputs));
}

SequentialImpl::SequentialImpl(std::initializer_list<NamedAnyModule> named_modules) {
  modules_.reserve(named_modules.size());
  for (const NamedAnyModule& m : named_modules) append(m.name(), m.module());
}

SequentialImpl::SequentialImpl(OrderedDict<std::string, AnyModule>&& ordered_dict) {
  modules_.reserve(ordered_dict.size());
  for (auto& item : ordered_dict) append(item.key(), item.value());
}

void SequentialImpl::append(std::string name, AnyModule module) {
  register_module(std::move(name), module.ptr());
  modules_.push_back(std::move(module));
}

void SequentialImpl::extend(const SequentialImpl& other) {
  for (const AnyModule& m : other.modules_) push_back(m);
}

size_t SequentialImpl::check_index(size_t index) const {
  EMBER_CHECK_INDEX(index < modules_.size(),
                    "Sequential: index {} is out of range for a Sequential of {} modules", index,
                    modules_.size());
  return index;
}

const std::shared_ptr<Module>& SequentialImpl::ptr(size_t index) const {
  return modules_[check_index(index)].ptr();
}

IValue SequentialImpl::forward_ivalues(std::vector<IValue> inputs) {
  EMBER_CHECK(!modules_.empty(), "Sequential: forward on an empty Sequential");
  IValue out = modules_[0].forward_ivalues(std::move(inputs));
  for (size_t i = 1; i < modules_.size(); ++i) {
    AnyModule& next = modules_[i];
    if (out.isTensorList() && next.arity() > 1) {
      const std::vector<Tensor>& parts = out.toTensorList();
      EMBER_CHECK(parts.size() == next.arity(),
                  "Sequential: module {} ({}) takes {} inputs, but module {} returned {} tensors",
                  i, next.ptr()->name(), next.arity(), i - 1, parts.size());
      out = next.forward_ivalues(std::vector<IValue>(parts.begin(), parts.end()));
    } else {
      out = next.forward_ivalues({std::move(out)});
    }
  }
  return out;
}

void SequentialImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::Sequential"; }

}  // namespace ember::nn
