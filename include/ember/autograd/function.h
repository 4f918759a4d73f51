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
// forward runs with grad mode off; it returns a Tensor or a variable_list.
#pragma once

#include <memory>
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
  /// Whether forward input `index` (counting every argument) needs a gradient.
  bool needs_input_grad(size_t index) const;

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
  /// Sets up `node` for `inputs` (one entry per forward argument; undefined for non-tensors).
  static bool prepare(Node& node, AutogradContext& ctx, const variable_list& inputs,
                      const std::vector<bool>& is_tensor_arg);
  /// Attaches history to forward's outputs (in place) and saves ctx's tensors.
  static void wrap_outputs(const std::shared_ptr<Node>& node, AutogradContext& ctx,
                           const variable_list& inputs, variable_list& outputs, bool executable);
  /// Runs the user's backward result through the checks and maps it onto the node's edges.
  static void collect_grads(const std::string& name, const std::vector<bool>& is_tensor_arg,
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
    FunctionImpl::collect_grads(name(), is_tensor_arg_, std::move(user), out);
  }
  void release_variables() override { FunctionImpl::release(ctx_); }

  AutogradContext ctx_;
  std::vector<bool> is_tensor_arg_;
};

namespace detail {
template <class A>
Tensor as_tensor_arg(const A& a) {
  if constexpr (std::is_same_v<std::decay_t<A>, Tensor>)
    return a;
  else
    return Tensor();
}
}  // namespace detail

template <class T>
struct Function {
  template <class... Args>
  static auto apply(Args&&... args) {
    auto node = std::make_shared<CppNode<T>>();
    node->ctx_.node_ = node.get();
    variable_list inputs{detail::as_tensor_arg(args)...};
    node->is_tensor_arg_ = {std::is_same_v<std::decay_t<Args>, Tensor>...};
    const bool executable = FunctionImpl::prepare(*node, node->ctx_, inputs, node->is_tensor_arg_);
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
