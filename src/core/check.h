// EMBER_CHECK and friends: throw a typed ember::Error with a fmt-formatted message.
// Private to the library so fmt stays out of the public headers.
#pragma once

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <string>

#include "ember/core/array_ref.h"
#include "ember/core/device.h"
#include "ember/core/error.h"
#include "ember/core/scalar.h"
#include "ember/core/scalar_type.h"
#include "ember/core/small_vector.h"
#include "ember/core/tensor_options.h"

// Messages name dtypes as PyTorch's users know them (float32, int64); operator<< prints LibTorch's
// C++ names (Float, Long).
template <>
struct fmt::formatter<ember::ScalarType> : fmt::formatter<const char*> {
  auto format(ember::ScalarType t, fmt::format_context& ctx) const {
    return fmt::formatter<const char*>::format(ember::to_string(t), ctx);
  }
};
template <>
struct fmt::formatter<ember::Device> : fmt::ostream_formatter {};
template <>
struct fmt::formatter<ember::DeviceType> : fmt::ostream_formatter {};
template <>
struct fmt::formatter<ember::Layout> : fmt::ostream_formatter {};
template <>
struct fmt::formatter<ember::IntArrayRef> : fmt::ostream_formatter {};
template <>
struct fmt::formatter<ember::Scalar> : fmt::ostream_formatter {};
template <size_t N>
struct fmt::formatter<ember::SmallVector<int64_t, N>> : fmt::formatter<std::string> {
  auto format(const ember::SmallVector<int64_t, N>& v, fmt::format_context& ctx) const {
    return fmt::format_to(ctx.out(), "[{}]", fmt::join(v.begin(), v.end(), ", "));
  }
};

namespace ember::detail {
template <class E>
[[noreturn]] void throw_error(std::string msg) {
  throw E(std::move(msg));
}
}  // namespace ember::detail

#define EMBER_CHECK_AS(kind, cond, ...)                                      \
  do {                                                                       \
    if (EMBER_UNLIKELY(!(cond)))                                             \
      ::ember::detail::throw_error<::ember::kind>(fmt::format(__VA_ARGS__)); \
  } while (0)

/// EMBER_CHECK(cond, "op: what is wrong: {}", value) throws ember::Error when cond is false.
#define EMBER_CHECK(cond, ...) EMBER_CHECK_AS(Error, cond, __VA_ARGS__)
#define EMBER_CHECK_INDEX(cond, ...) EMBER_CHECK_AS(IndexError, cond, __VA_ARGS__)
#define EMBER_CHECK_TYPE(cond, ...) EMBER_CHECK_AS(TypeError, cond, __VA_ARGS__)
#define EMBER_CHECK_VALUE(cond, ...) EMBER_CHECK_AS(ValueError, cond, __VA_ARGS__)
#define EMBER_FAIL(...) ::ember::detail::throw_error<::ember::Error>(fmt::format(__VA_ARGS__))
