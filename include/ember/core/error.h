// Typed errors. Every check in Ember throws one of these; nothing aborts.
// Messages read "<op>: <what is wrong>: <values>. Hint: <action>".
#pragma once

#include <stdexcept>
#include <string>

#include "ember/core/macros.h"

namespace ember {

/// Base of all Ember errors (LibTorch's c10::Error).
class EMBER_API Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
  /// The message (LibTorch's c10::Error::msg()): the same text as what(), which carries no
  /// backtrace in Ember. By value: std::runtime_error keeps the text, not a std::string.
  std::string msg() const { return what(); }
  /// The message without source location, as LibTorch's what_without_backtrace().
  const char* what_without_backtrace() const noexcept { return what(); }
};
/// An index or dim out of range.
class EMBER_API IndexError : public Error {
 public:
  using Error::Error;
};
/// A dtype that an op does not accept.
class EMBER_API TypeError : public Error {
 public:
  using Error::Error;
};
/// An argument value that is not allowed.
class EMBER_API ValueError : public Error {
 public:
  using Error::Error;
};
/// An allocation that failed (LibTorch's c10::OutOfMemoryError).
class EMBER_API OutOfMemoryError : public Error {
 public:
  using Error::Error;
};
/// An op or dtype/device combination that is not implemented.
class EMBER_API NotImplementedError : public Error {
 public:
  using Error::Error;
};

}  // namespace ember
