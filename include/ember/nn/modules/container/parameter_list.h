// ParameterList and ParameterDict: parameters held by position or key, as LibTorch's
// torch::nn::ParameterList / ParameterDict (keys "0", "1", ... for the list, as Python). As in
// LibTorch, a tensor keeps its requires_grad flag (Python's nn.Parameter would set it):
//
//   nn::ParameterList ws(ember::randn({3}, ember::requires_grad()), ember::randn({4}));
//   nn::ParameterDict pd({{"scale", ember::ones({1}, ember::requires_grad())}});
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ember/nn/cloneable.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API ParameterListImpl : public Cloneable<ParameterListImpl> {
 public:
  ParameterListImpl() = default;
  template <typename... Tensors>
  explicit ParameterListImpl(Tensors&&... params) {
    (append(Tensor(std::forward<Tensors>(params))), ...);
  }
  /// Adds a parameter under "<index>", keeping its requires_grad flag (as LibTorch).
  void append(const Tensor& param);
  void extend(const std::vector<Tensor>& params);
  /// The i-th parameter.
  Tensor& operator[](size_t index);
  const Tensor& operator[](size_t index) const;
  Tensor& at(size_t index) { return (*this)[index]; }
  size_t size() const noexcept { return count_; }
  bool is_empty() const noexcept { return count_ == 0; }
  /// Iterates the (name, tensor) items.
  auto begin() const { return parameters_registry().begin(); }
  auto end() const { return parameters_registry().end(); }
  void pretty_print(std::ostream& stream) const override;

 private:
  size_t count_ = 0;
};
EMBER_MODULE(ParameterList);

class EMBER_API ParameterDictImpl : public Cloneable<ParameterDictImpl> {
 public:
  ParameterDictImpl() = default;
  explicit ParameterDictImpl(const OrderedDict<std::string, Tensor>& params);
  ParameterDictImpl(std::initializer_list<std::pair<std::string, Tensor>> params);
  /// Adds a parameter under `key`, or replaces the tensor of an existing key; the tensor keeps its
  /// requires_grad flag (as LibTorch).
  Tensor& insert(const std::string& key, const Tensor& param);
  /// Removes and returns the parameter under `key`.
  Tensor pop(const std::string& key);
  void clear();
  bool contains(const std::string& key) const { return parameters_registry().contains(key); }
  Tensor& operator[](const std::string& key);
  const Tensor& operator[](const std::string& key) const;
  Tensor get(const std::string& key) const { return (*this)[key]; }
  std::vector<std::string> keys() const { return parameters_registry().keys(); }
  std::vector<Tensor> values() const { return parameters_registry().values(); }
  size_t size() const noexcept { return parameters_registry().size(); }
  bool empty() const noexcept { return parameters_registry().is_empty(); }
  auto begin() const { return parameters_registry().begin(); }
  auto end() const { return parameters_registry().end(); }
  void pretty_print(std::ostream& stream) const override;
};
/// The holder of ParameterDictImpl, also constructible from a braced list of (key, tensor) pairs.
class ParameterDict : public ModuleHolder<ParameterDictImpl> {
 public:
  using ModuleHolder<ParameterDictImpl>::ModuleHolder;
  using Impl = ParameterDictImpl;
  ParameterDict() : ModuleHolder<ParameterDictImpl>() {}
  ParameterDict(std::initializer_list<std::pair<std::string, Tensor>> items)
      : ModuleHolder<ParameterDictImpl>(std::make_shared<ParameterDictImpl>(items)) {}
};

}  // namespace ember::nn
