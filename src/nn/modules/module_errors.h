// Errors of the layer modules: a module's checks and the errors of the functional form it calls
// name the module ("LayerNorm: ..."), so a failure inside a deep model says which layer failed.
// Private to the library.
#pragma once

#include <string>
#include <utility>

#include "ember/core/error.h"
#include "ember/core/tensor.h"
#include "src/core/check.h"

namespace ember::nn::detail {

/// "[2, 5] float32": a tensor's shape and dtype, for messages.
inline std::string describe(const Tensor& t) {
  return t.defined() ? fmt::format("{} {}", t.sizes(), t.dtype()) : std::string("(undefined)");
}

/// Re-throws `error` with `module` in front of its message, keeping its type (IndexError stays an
/// IndexError). A message that already starts with the module's name is re-thrown unchanged.
[[noreturn]] void rethrow_named(const char* module, const Error& error);

/// Runs `fn` (the functional call of a module's forward); its Errors name `module`. The happy path
/// costs nothing: try blocks are free until something throws.
template <typename Fn>
decltype(auto) named_call(const char* module, Fn&& fn) {
  try {
    return std::forward<Fn>(fn)();
  } catch (const Error& error) {
    rethrow_named(module, error);
  }
}

}  // namespace ember::nn::detail
