// Sequential: modules called one after another, as LibTorch's torch::nn::Sequential, plus what
// LibTorch's cannot do: a Sequential inside a Sequential, and modules with several inputs (the
// first module takes all of forward's arguments; a module returning std::vector<Tensor> feeds a
// next module that takes that many tensors). Every module runs with its hooks.
//
//   nn::Sequential seq(nn::Linear(784, 64), nn::ReLU(), nn::Linear(64, 10));
//   nn::Sequential named({{"fc", nn::Linear(3, 4)}, {"act", nn::ReLU()}});
//   Tensor y = seq->forward(x);   // or seq(x)
#pragma once

#include <string>
#include <vector>

#include "ember/nn/cloneable.h"
#include "ember/nn/modules/container/any.h"

namespace ember::nn {

class EMBER_API SequentialImpl : public Cloneable<SequentialImpl> {
 public:
  using Iterator = std::vector<AnyModule>::iterator;
  using ConstIterator = std::vector<AnyModule>::const_iterator;

  SequentialImpl() = default;
  /// Modules named "0", "1", ... in order.
  template <typename... Modules>
  explicit SequentialImpl(Modules&&... modules) {
    modules_.reserve(sizeof...(Modules));
    (push_back(std::forward<Modules>(modules)), ...);
  }
  /// Modules under the given names.
  SequentialImpl(std::initializer_list<NamedAnyModule> named_modules);
  explicit SequentialImpl(OrderedDict<std::string, AnyModule>&& ordered_dict);

  /// Runs the modules in order; the result as `ReturnType` (Tensor by default).
  template <typename ReturnType = Tensor, typename... InputTypes>
  ReturnType forward(InputTypes&&... inputs) {
    return detail::Codec<ReturnType>::from(
        forward_ivalues({detail::Codec<InputTypes>::to(inputs)...}));
  }
  /// The same on boxed inputs (what a Sequential nested in another one is called with).
  IValue forward_ivalues(std::vector<IValue> inputs);

  /// Appends a module (a holder, a shared_ptr, a module value or an AnyModule), named by its
  /// position unless a name is given.
  template <typename M>
  void push_back(M&& module) {
    push_back(std::to_string(modules_.size()), std::forward<M>(module));
  }
  template <typename M>
  void push_back(std::string name, M&& module) {
    if constexpr (std::is_same_v<std::decay_t<M>, AnyModule>) {
      append(std::move(name), module);
    } else {
      append(std::move(name), AnyModule(std::forward<M>(module)));
    }
  }
  /// Appends every module of another Sequential (sharing them).
  void extend(const SequentialImpl& other);

  /// The i-th module.
  const std::shared_ptr<Module>& ptr(size_t index) const;
  template <typename T>
  std::shared_ptr<T> ptr(size_t index) const {
    return std::dynamic_pointer_cast<T>(ptr(index));
  }
  template <typename T>
  T& at(size_t index) const {
    return modules_.at(check_index(index)).get<T>();
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  Iterator begin() { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator begin() const { return modules_.begin(); }
  ConstIterator end() const { return modules_.end(); }

  void pretty_print(std::ostream& stream) const override;

 private:
  void append(std::string name, AnyModule module);
  size_t check_index(size_t index) const;
  std::vector<AnyModule> modules_;
};

/// The holder of SequentialImpl (EMBER_MODULE plus the named-modules constructor).
class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  using Impl = SequentialImpl;
  Sequential() : ModuleHolder<SequentialImpl>() {}
  Sequential(std::initializer_list<NamedAnyModule> named_modules)
      : ModuleHolder<SequentialImpl>(std::make_shared<SequentialImpl>(named_modules)) {}
};

}  // namespace ember::nn
