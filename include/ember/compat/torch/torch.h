// <torch/torch.h> for programs written against LibTorch's C++ frontend: with
// `-I<prefix>/include/ember/compat` (CMake: link Ember::compat) they build against Ember unchanged.
// torch::, at:: and c10:: name Ember's namespace, and LibTorch's macros map onto Ember's.
//
// What is not there yet fails to compile with the missing name (e.g. torch::data's loaders, JIT):
// docs/compat.md lists the differences.
#pragma once

#include <sstream>
#include <string>

#include "ember/ember.h"

namespace torch = ::ember;
namespace at = ::ember;
namespace c10 = ::ember;

namespace ember::compat_detail {
template <typename... Args>
[[noreturn]] void torch_check_failed(const char* condition, const Args&... args) {
  std::ostringstream message;
  if constexpr (sizeof...(Args) == 0) {
    message << "Expected " << condition << " to be true, but got false.";
  } else {
    (message << ... << args);
  }
  throw ::ember::Error(message.str());
}
}  // namespace ember::compat_detail

/// LibTorch's TORCH_CHECK(cond, message parts...): throws ember::Error (c10::Error) when false.
#define TORCH_CHECK(cond, ...)                                                     \
  do {                                                                             \
    if (!(cond)) ::ember::compat_detail::torch_check_failed(#cond, ##__VA_ARGS__); \
  } while (false)
#define TORCH_MODULE(Name) EMBER_MODULE(Name)
#define TORCH_MODULE_IMPL(Name, Impl) EMBER_MODULE_IMPL(Name, Impl)
#define TORCH_ARG(T, name) EMBER_ARG(T, name)
