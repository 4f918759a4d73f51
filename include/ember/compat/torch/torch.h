// <torch/torch.h> for programs written against LibTorch's C++ frontend: with
// `-I<prefix>/include/ember/compat` and linked to Ember (CMake: Ember::ember) they build against
// Ember unchanged.
// torch::, at:: and c10:: name Ember's namespace, and LibTorch's macros map onto Ember's.
// Every other public LibTorch header path (tests/compat/libtorch_headers.txt) is a generated header
// in this folder that includes this one.
//
// What is not there yet fails to compile with the missing name (e.g. JIT):
// docs/compat.md lists the differences.
#pragma once

#include <string>
#include <vector>

#include "c10/util/Logging.h"  // LOG, CHECK, ..., which LibTorch's torch/torch.h also brings
#include "ember/core/flat_hash_map.h"
#include "ember/core/optional.h"
#include "ember/core/string_view.h"
#include "ember/ember.h"
#include "torch/version.h"  // TORCH_VERSION_*, likewise

namespace torch = ::ember;
namespace at = ::ember;
namespace c10 = ::ember;

namespace ember {
/// torch::Dtype, LibTorch's name for a ScalarType in the frontend (torch/types.h).
using Dtype = ScalarType;
}  // namespace ember

namespace ember::compat_detail {
template <class ErrorType, class... Args>
[[noreturn]] void torch_check_failed(const char* condition, const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    throw ErrorType(::ember::str("Expected ", condition, " to be true, but got false."));
  } else {
    throw ErrorType(::ember::str(args...));
  }
}

template <class... Args>
[[noreturn]] void internal_assert_failed(const char* condition, const char* file, int line,
                                         const Args&... args) {
  throw ::ember::Error(::ember::str(condition, " INTERNAL ASSERT FAILED at \"", file, "\":", line,
                                    ", please report a bug to Ember. ", args...));
}
}  // namespace ember::compat_detail

/// TORCH_CHECK_WITH(ErrorType, cond, parts...): throws ember::ErrorType (c10::IndexError, ...) with
/// the parts streamed into the message when cond is false.
#define TORCH_CHECK_WITH(error_t, cond, ...)                                              \
  do {                                                                                    \
    if (EMBER_UNLIKELY(!(cond)))                                                          \
      ::ember::compat_detail::torch_check_failed<::ember::error_t>(#cond, ##__VA_ARGS__); \
  } while (false)
/// LibTorch's TORCH_CHECK(cond, message parts...): throws ember::Error (c10::Error) when false.
#define TORCH_CHECK(cond, ...) TORCH_CHECK_WITH(Error, cond, ##__VA_ARGS__)
#define TORCH_CHECK_INDEX(cond, ...) TORCH_CHECK_WITH(IndexError, cond, ##__VA_ARGS__)
#define TORCH_CHECK_VALUE(cond, ...) TORCH_CHECK_WITH(ValueError, cond, ##__VA_ARGS__)
#define TORCH_CHECK_TYPE(cond, ...) TORCH_CHECK_WITH(TypeError, cond, ##__VA_ARGS__)
#define TORCH_CHECK_NOT_IMPLEMENTED(cond, ...) \
  TORCH_CHECK_WITH(NotImplementedError, cond, ##__VA_ARGS__)
#define TORCH_CHECK_ARG(cond, argN, ...) \
  TORCH_CHECK(cond, "invalid argument ", argN, ": ", ##__VA_ARGS__)

/// TORCH_INTERNAL_ASSERT(cond, parts...): a bug in the program, not in its input; throws
/// ember::Error naming the condition, file and line. _DEBUG_ONLY: checked only without NDEBUG.
#define TORCH_INTERNAL_ASSERT(cond, ...)                                                        \
  do {                                                                                          \
    if (EMBER_UNLIKELY(!(cond)))                                                                \
      ::ember::compat_detail::internal_assert_failed(#cond, __FILE__, __LINE__, ##__VA_ARGS__); \
  } while (false)
#ifdef NDEBUG
// Still compiled (so its names stay checked), never run.
#define TORCH_INTERNAL_ASSERT_DEBUG_ONLY(...) \
  while (false) TORCH_INTERNAL_ASSERT(__VA_ARGS__)
#else
#define TORCH_INTERNAL_ASSERT_DEBUG_ONLY(...) TORCH_INTERNAL_ASSERT(__VA_ARGS__)
#endif
#define AT_ASSERT(...) TORCH_INTERNAL_ASSERT(__VA_ARGS__)
/// AT_ERROR(parts...): throws ember::Error with the parts streamed into the message.
#define AT_ERROR(...)                                \
  do {                                               \
    throw ::ember::Error(::ember::str(__VA_ARGS__)); \
  } while (false)

/// TORCH_WARN(parts...) and TORCH_WARN_ONCE(parts...): Ember's warning channel (core/warning.h).
#define TORCH_WARN(...) EMBER_WARN(__VA_ARGS__)
#define TORCH_WARN_ONCE(...) EMBER_WARN_ONCE(__VA_ARGS__)

#define C10_LIKELY(x) EMBER_LIKELY(x)
#define C10_UNLIKELY(x) EMBER_UNLIKELY(x)
#if defined(__GNUC__)
#define C10_UNUSED __attribute__((__unused__))
#else
#define C10_UNUSED
#endif

#define TORCH_MODULE(Name) EMBER_MODULE(Name)
#define TORCH_MODULE_IMPL(Name, Impl) EMBER_MODULE_IMPL(Name, Impl)
#define TORCH_ARG(T, name) EMBER_ARG(T, name)
/// FORWARD_HAS_DEFAULT_ARGS({1, torch::nn::AnyValue(2)}, ...): forward's defaults for calls through
/// nn::AnyModule and nn::Sequential (ember/nn/forward_defaults.h).
#define FORWARD_HAS_DEFAULT_ARGS(...) EMBER_FORWARD_HAS_DEFAULT_ARGS(__VA_ARGS__)
