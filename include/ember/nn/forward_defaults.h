// EMBER_FORWARD_HAS_DEFAULT_ARGS: the default arguments of a module's forward, so that a call
// through AnyModule or Sequential (which only see forward's parameter list) may leave them out,
// as LibTorch's FORWARD_HAS_DEFAULT_ARGS. Each entry is {0-based position, default value}:
//
//   struct ShiftImpl : ember::nn::Module {
//     Tensor forward(Tensor x, int64_t k = 1, double s = 2.0) { return x * s + k; }
//    protected:
//     EMBER_FORWARD_HAS_DEFAULT_ARGS({1, ember::nn::AnyValue(1)}, {2, ember::nn::AnyValue(2.0)})
//   };
//   ember::nn::Sequential seq(Shift{});
//   seq->forward(x);        // forward(x, 1, 2.0)
//   seq->forward(x, 5);     // forward(x, 5, 2.0)
//
// The defaults must cover every position from the first one listed to the last parameter. A
// direct call (`shift(x)`) uses C++'s own default arguments and never reads these.
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/ivalue.h"

namespace ember::nn {

/// LibTorch's name for a boxed forward argument or result: Ember boxes them as IValues.
using AnyValue = IValue;

namespace detail {

using ForwardDefaultArgs = std::vector<std::pair<unsigned, IValue>>;

/// Reads a module's EMBER_FORWARD_HAS_DEFAULT_ARGS (the macro makes this a friend, so the
/// declaration may sit in a protected or private section).
struct ForwardDefaults {
  template <typename M>
  static constexpr bool present() {
    return probe<M>(0);
  }
  template <typename M>
  static ForwardDefaultArgs values() {
    return M::ember_forward_default_args_();
  }

 private:
  template <typename M>
  static constexpr auto probe(int) -> decltype(M::ember_forward_default_args_(), bool()) {
    return true;
  }
  template <typename M>
  static constexpr bool probe(...) {
    return false;
  }
};

/// Appends the defaults for positions args.size() .. arity-1 of `module`'s forward; throws an
/// Error naming the module when too few or too many arguments were given.
EMBER_API void fill_forward_defaults(const std::string& module, std::vector<IValue>& args,
                                     size_t arity, ForwardDefaultArgs defaults);

}  // namespace detail
}  // namespace ember::nn

/// Declares forward's default arguments as {position, value} pairs (see the top of this file).
#define EMBER_FORWARD_HAS_DEFAULT_ARGS(...)                                      \
  friend struct ::ember::nn::detail::ForwardDefaults;                            \
  static ::ember::nn::detail::ForwardDefaultArgs ember_forward_default_args_() { \
    return {__VA_ARGS__};                                                        \
  }
