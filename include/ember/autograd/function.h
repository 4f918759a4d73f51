// Custom autograd functions, as in LibTorch:
//
//   struct MulAdd : ember::autograd::Function<MulAdd> {
//     static Tensor forward(AutogradContext* ctx, Tensor a, int64_t k, Tensor b) {
//       ctx->saved_data["k"] = k;
//       ctx->save_for_backward({a, b});
//       return a * k + a * b;
//     }
//     static variable_list backward(AutogradContext* ctx, variable_list grads) {
//       auto saved = ctx->get_saved_variables();
//       int64_t k = ctx->saved_data["k"].toInt();
//       return {grads[0] * (saved[1] + k), Tensor(), grads[0] * saved[0]};  // one per forward arg
//     }
//   };
//   Tensor y = MulAdd::apply(x, 3, z);
//
// forward runs with grad mode off; it returns a Tensor or a variable_list. As in LibTorch, the
// function's inputs are forward's tensor arguments: a Tensor is one input, a c10::optional<Tensor>
// holding a defined tensor is one, a TensorList (ArrayRef<Tensor>) is one per element; any other
// argument (int, double, bool, std::string, IntArrayRef, and std::vector<Tensor> too) is not an
// input, and gradients never flow into tensors inside it. backward returns one gradient per input
// position in that order, with an undefined Tensor() for each non-input argument.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/autograd/saved_variable.h"
#include "ember/core/ivalue.h"

namespace ember::autograd {

class EMBER_API AutogradContext {
 public:
  /// Values forward wants backward to see.
  std::unordered_map<std::string, IValue> saved_data;

  /// Saves tensors for backward (inputs or outputs of forward), version-checked on unpack.
  void save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }
  /// The tensors saved by save_for_backward; throws if one was modified in place since.
  variable_list get_saved_variables() const;
  /// Declares inputs that forward modified in place (they must be returned as outputs).
  void mark_dirty(const variable_list& inputs);
  /// Declares outputs that have no gradient (e.g. indices).
  void mark_non_differentiable(const variable_list& outputs);
  /// With false, backward receives undefined tensors for unused outputs instead of zeros.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  /// Whether the function's input `index` needs a gradient. As LibTorch's C++ API, `index` counts
  /// only the tensor inputs (see above): in forward(ctx, int64_t k, Tensor a, Tensor b), a is 0.
  bool needs_input_grad(size_t index) const;

  AutogradContext() = default;
  AutogradContext(const AutogradContext&) = delete;
  AutogradContext& operator=(const AutogradContext&) = delete;

 private:
  template <class T>
  friend class CppNode;
  template <class T>
  friend struct Function;
  friend struct FunctionImpl;

  variable_list to_save_;
  std::vector<SavedVariable> saved_;
  std::unordered_set<const TensorImpl*> dirty_, non_differentiable_;
  std::vector<bool> needs_input_grad_;
  bool materialize_grads_ = true;
  bool has_freed_ = false;
  Node* node_ = nullptr;
};

/// What the template parts hand to the library.
struct EMBER_API FunctionImpl {
  /// Sets up `node` for forward's tensor inputs; returns whether the call is recorded.
  static bool prepare(Node& node, AutogradContext& ctx, const variable_list& inputs);
  /// Attaches history to forward's outputs (in place) and saves ctx's tensors.
  static void wrap_outputs(const std::shared_ptr<Node>& node, AutogradContext& ctx,
                           const variable_list& inputs, variable_list& outputs, bool executable);
  /// Checks the user's backward result (one entry per argument position, `is_input` saying which
  /// are inputs) and moves the inputs' gradients into `out`.
  static void collect_grads(const std::string& name, const std::vector<bool>& is_input,
                            variable_list&& user_grads, variable_list& out);
  static variable_list materialize(const Node& node, const AutogradContext& ctx,
                                   ArrayRef<Tensor> grads);
  static void release(AutogradContext& ctx);
  static std::string demangle(const char* name);
};

/// The node of a custom function T.
template <class T>
class CppNode final : public Node {
 public:
  std::string name() const override { return FunctionImpl::demangle(typeid(T).name()); }
  void apply(ArrayRef<Tensor> grads, variable_list& out) override {
    variable_list user = T::backward(&ctx_, FunctionImpl::materialize(*this, ctx_, grads));
    FunctionImpl::collect_grads(name(), is_input_, std::move(user), out);
  }
  void release_variables() override { FunctionImpl::release(ctx_); }

  AutogradContext ctx_;
  std::vector<bool> is_input_;  // per backward result position: is it one of the inputs
};

namespace detail {
/// Adds forward argument `a` to the function's inputs, counted as LibTorch counts it.
template <class A>
void collect_input(const A& a, variable_list& inputs, std::vector<bool>& is_input) {
  using D = std::decay_t<A>;
  if constexpr (std::is_same_v<D, Tensor>) {
    inputs.push_back(a);
    is_input.push_back(true);
  } else if constexpr (std::is_same_v<D, std::optional<Tensor>>) {
    const bool engaged = a.has_value() && a->defined();
    if (engaged) inputs.push_back(*a);
    is_input.push_back(engaged);
  } else if constexpr (std::is_same_v<D, TensorList>) {
    for (const Tensor& t : a) {
      inputs.push_back(t);
      is_input.push_back(true);
    }
  } else {
    is_input.push_back(false);
  }
}
}  // namespace detail

template <class T>
struct Function {
  /// Runs T::forward(ctx, args...) and records T::backward as its gradient.
  template <class... Args>
  static auto apply(Args&&... args) {
    auto node = std::make_shared<CppNode<T>>();
    node->ctx_.node_ = node.get();
    variable_list inputs;
    inputs.reserve(sizeof...(Args));
    node->is_input_.reserve(sizeof...(Args));
    (detail::collect_input(args, inputs, node->is_input_), ...);
    const bool executable = FunctionImpl::prepare(*node, node->ctx_, inputs);
    using Out = decltype(T::forward(&node->ctx_, std::forward<Args>(args)...));
    static_assert(std::is_same_v<Out, Tensor> || std::is_same_v<Out, variable_list>,
                  "Function<T>::forward must return a Tensor or a variable_list");
    variable_list outputs;
    {
      AutoGradMode forward_mode(false);
      if constexpr (std::is_same_v<Out, Tensor>)
        outputs = {T::forward(&node->ctx_, std::forward<Args>(args)...)};
      else
        outputs = T::forward(&node->ctx_, std::forward<Args>(args)...);
    }
    FunctionImpl::wrap_outputs(node, node->ctx_, inputs, outputs, executable);
    if constexpr (std::is_same_v<Out, Tensor>)
      return outputs[0];
    else
      return outputs;
  }
};

}  // namespace ember::autograd
