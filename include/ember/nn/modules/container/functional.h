// Functional: a function as a module, so plain functions fit into a Sequential, as LibTorch's
// torch::nn::Functional.
//
//   nn::Sequential seq(nn::Linear(3, 4), nn::Functional(ember::relu));
//   nn::Functional scale([](Tensor x) { return x * 2; });
#pragma once

#include <functional>
#include <utility>

#include "ember/nn/cloneable.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API FunctionalImpl : public Cloneable<FunctionalImpl> {
 public:
  using Function = std::function<Tensor(Tensor)>;
  explicit FunctionalImpl(Function function) : function_(std::move(function)) {}
  /// A function with its trailing arguments bound: Functional(ember::leaky_relu, 0.2).
  template <typename F, typename Head, typename... Tail>
  explicit FunctionalImpl(F original, Head&& head, Tail&&... tail)
      : function_([f = std::move(original),
                   bound = std::make_tuple(std::forward<Head>(head), std::forward<Tail>(tail)...)](
                      Tensor x) {
          return std::apply([&](const auto&... args) { return f(x, args...); }, bound);
        }) {}
  Tensor forward(Tensor input) { return function_(std::move(input)); }
  void pretty_print(std::ostream& stream) const override { stream << "ember::nn::Functional()"; }

 private:
  Function function_;
};
EMBER_MODULE(Functional);

}  // namespace ember::nn
