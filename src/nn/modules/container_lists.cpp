// ModuleList, ModuleDict, ParameterList, ParameterDict.
#include "ember/nn/modules/container/module_list.h"
#include "ember/nn/modules/container/parameter_list.h"
#include "src/core/check.h"

namespace ember::nn {
namespace {
// Inside clone(), the copy's entries must be the submodules' clones (the registry has them).
std::shared_ptr<Module> cloned_or_same(const std::shared_ptr<Module>& m) {
  std::shared_ptr<Module> copy = detail::clone_of(m.get());
  return copy ? copy : m;
}
}  // namespace

// ---- ModuleList ----
ModuleListImpl::ModuleListImpl(const ModuleListImpl& other) : Cloneable<ModuleListImpl>(other) {
  for (const auto& m : other.modules_) modules_.push_back(cloned_or_same(m));
}

void ModuleListImpl::push_back(std::shared_ptr<Module> module) {
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

void ModuleListImpl::insert(size_t index, std::shared_ptr<Module> module) {
  EMBER_CHECK_INDEX(index <= modules_.size(),
                    "ModuleList::insert: index {} is out of range for a list of {} modules", index,
                    modules_.size());
  if (index == modules_.size()) return push_back(std::move(module));
  modules_.insert(modules_.begin() + static_cast<std::ptrdiff_t>(index), std::move(module));
  for (size_t i = index; i + 1 < modules_.size(); ++i)
    replace_module(std::to_string(i), modules_[i]);
  register_module(std::to_string(modules_.size() - 1), modules_.back());
}

void ModuleListImpl::extend(const ModuleListImpl& other) {
  for (const auto& m : other.modules_) push_back(m);
}

const std::shared_ptr<Module>& ModuleListImpl::ptr(size_t index) const {
  EMBER_CHECK_INDEX(index < modules_.size(),
                    "ModuleList: index {} is out of range for a list of {} modules", index,
                    modules_.size());
  return modules_[index];
}

void ModuleListImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::ModuleList"; }

// ---- ModuleDict ----
ModuleDictImpl::ModuleDictImpl(
    const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& items) {
  update(items);
}

ModuleDictImpl::ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& items) {
  for (const auto& item : items) insert(item.key(), item.value());
}

ModuleDictImpl::ModuleDictImpl(const ModuleDictImpl& other) : Cloneable<ModuleDictImpl>(other) {
  for (const auto& item : other.modules_) modules_.insert(item.key(), cloned_or_same(item.value()));
}

void ModuleDictImpl::insert(const std::string& key, std::shared_ptr<Module> module) {
  if (modules_.contains(key)) {
    replace_module(key, module);
    modules_[key] = std::move(module);
  } else {
    register_module(key, module);
    modules_.insert(key, std::move(module));
  }
}

void ModuleDictImpl::update(
    const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& items) {
  for (const auto& item : items) insert(item.first, item.second);
}

std::shared_ptr<Module> ModuleDictImpl::pop(const std::string& key) {
  std::shared_ptr<Module> m = (*this)[key];
  modules_.erase(key);
  unregister_module(key);
  return m;
}

void ModuleDictImpl::clear() {
  for (const std::string& key : modules_.keys()) unregister_module(key);
  modules_.clear();
}

std::shared_ptr<Module> ModuleDictImpl::operator[](const std::string& key) const {
  const std::shared_ptr<Module>* m = modules_.find(key);
  EMBER_CHECK_VALUE(m != nullptr, "ModuleDict: no module under key '{}'", key);
  return *m;
}

void ModuleDictImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::ModuleDict"; }

// ---- ParameterList ----
void ParameterListImpl::append(const Tensor& param) {
  register_parameter(std::to_string(count_), param, param.requires_grad());
  ++count_;
}

void ParameterListImpl::extend(const std::vector<Tensor>& params) {
  for (const Tensor& p : params) append(p);
}

Tensor& ParameterListImpl::operator[](size_t index) {
  EMBER_CHECK_INDEX(index < count_, "ParameterList: index {} is out of range for a list of {}",
                    index, count_);
  return mutable_parameters_registry()[index].value();
}

const Tensor& ParameterListImpl::operator[](size_t index) const {
  EMBER_CHECK_INDEX(index < count_, "ParameterList: index {} is out of range for a list of {}",
                    index, count_);
  return parameters_registry()[index].value();
}

void ParameterListImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::ParameterList(";
  for (size_t i = 0; i < count_; ++i) {
    const Tensor& p = (*this)[i];
    stream << (i ? ", " : "") << "[" << to_string(p.scalar_type()) << " of size [";
    for (int64_t d = 0; d < p.dim(); ++d) stream << (d ? ", " : "") << p.size(d);
    stream << "]]";
  }
  stream << ")";
}

// ---- ParameterDict ----
ParameterDictImpl::ParameterDictImpl(const OrderedDict<std::string, Tensor>& params) {
  for (const auto& item : params) insert(item.key(), item.value());
}

ParameterDictImpl::ParameterDictImpl(std::initializer_list<std::pair<std::string, Tensor>> params) {
  for (const auto& item : params) insert(item.first, item.second);
}

Tensor& ParameterDictImpl::insert(const std::string& key, const Tensor& param) {
  if (Tensor* existing = mutable_parameters_registry().find(key)) return *existing = param;
  return register_parameter(key, param, param.requires_grad());
}

Tensor ParameterDictImpl::pop(const std::string& key) { return unregister_parameter(key); }

void ParameterDictImpl::clear() {
  for (const std::string& key : keys()) unregister_parameter(key);
}

Tensor& ParameterDictImpl::operator[](const std::string& key) {
  Tensor* p = mutable_parameters_registry().find(key);
  EMBER_CHECK_VALUE(p != nullptr, "ParameterDict: no parameter under key '{}'", key);
  return *p;
}

const Tensor& ParameterDictImpl::operator[](const std::string& key) const {
  const Tensor* p = parameters_registry().find(key);
  EMBER_CHECK_VALUE(p != nullptr, "ParameterDict: no parameter under key '{}'", key);
  return *p;
}

void ParameterDictImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::ParameterDict(";
  bool first = true;
  for (const auto& item : *this) {
    stream << (first ? "" : ", ") << "(" << item.key()
           << "): " << to_string(item.value().scalar_type());
    first = false;
  }
  stream << ")";
}

}  // namespace ember::nn
