// The warning channel: what a user should hear about but that is not an error (a deprecated
// argument, a slow path taken) goes to the current thread's WarningHandler, which by default prints
// it to stderr. Ember's code warns with
//   ember::warn("...");                              // the caller's function, file and line
//   EMBER_WARN("reduction over ", n, " elements");   // parts streamed into one message
//   EMBER_WARN_ONCE("...");                          // the first time this line runs only
// LibTorch's API drives the same channel: c10::Warning::warn, set_warning_handler,
// WarningHandlerGuard, set_warnAlways (1.13), the c10::WarningUtils spellings (2.x), TORCH_WARN.
//
// Tests capture warnings by installing a handler for a scope:
//   struct Capture : ember::WarningHandler {
//     std::vector<std::string> messages;
//     void process(const ember::SourceLocation&, const std::string& msg, bool) override {
//       messages.push_back(msg);
//     }
//   } capture;
//   ember::WarningHandlerGuard guard(&capture);
#pragma once

#include <atomic>
#include <cstdint>
#include <ostream>
#include <string>

#include "ember/core/macros.h"
#include "ember/core/string_util.h"

namespace ember {

/// Where a warning comes from (LibTorch's c10::SourceLocation).
struct SourceLocation {
  const char* function;
  const char* file;
  uint32_t line;

  /// The location of the call this is a default argument of (GCC and Clang builtins).
  static constexpr SourceLocation current(const char* function = __builtin_FUNCTION(),
                                          const char* file = __builtin_FILE(),
                                          uint32_t line = __builtin_LINE()) {
    return SourceLocation{function, file, line};
  }
};

/// Prints "<function> at <file>:<line>".
EMBER_API std::ostream& operator<<(std::ostream& os, const SourceLocation& location);

/// Receives the warnings of the threads it is installed on (LibTorch's c10::WarningHandler).
class EMBER_API WarningHandler {
 public:
  virtual ~WarningHandler() = default;
  /// The default prints "[W <file>:<line>] Warning: <msg> (function <function>)" to stderr.
  /// `verbatim`: the message already says where it comes from, so a handler that adds context
  /// (as Python bindings do) should leave it as it is.
  virtual void process(const SourceLocation& source_location, const std::string& msg,
                       bool verbatim);
};

/// The handler and warn-always settings (the names LibTorch 2.x uses; 1.13's are in Warning).
namespace WarningUtils {

/// Installs `handler` for the calling thread; nullptr restores the default. The caller keeps it
/// alive while installed.
EMBER_API void set_warning_handler(WarningHandler* handler) noexcept;
/// The calling thread's handler (the default one when none is installed).
EMBER_API WarningHandler* get_warning_handler() noexcept;

/// Installs a handler for a scope and puts the previous one back at its end.
class WarningHandlerGuard {
 public:
  explicit WarningHandlerGuard(WarningHandler* handler) : previous_(get_warning_handler()) {
    set_warning_handler(handler);
  }
  ~WarningHandlerGuard() { set_warning_handler(previous_); }
  WarningHandlerGuard(const WarningHandlerGuard&) = delete;
  WarningHandlerGuard& operator=(const WarningHandlerGuard&) = delete;

 private:
  WarningHandler* previous_;
};

/// When on, EMBER_WARN_ONCE / TORCH_WARN_ONCE warn every time (for tests). Process-wide, as
/// LibTorch's (torch.set_warn_always); off by default.
EMBER_API void set_warnAlways(bool setting) noexcept;
EMBER_API bool get_warnAlways() noexcept;

/// Sets warnAlways for a scope and restores the previous setting at its end.
class WarnAlways {
 public:
  explicit WarnAlways(bool setting = true) : previous_(get_warnAlways()) {
    set_warnAlways(setting);
  }
  ~WarnAlways() { set_warnAlways(previous_); }
  WarnAlways(const WarnAlways&) = delete;
  WarnAlways& operator=(const WarnAlways&) = delete;

 private:
  bool previous_;
};

}  // namespace WarningUtils

/// LibTorch 1.13's spelling: c10::Warning::warn, c10::Warning::set_warning_handler, ...
namespace Warning {

/// Sends a warning to the calling thread's handler.
EMBER_API void warn(const SourceLocation& source_location, const std::string& msg, bool verbatim);
using WarningUtils::get_warnAlways;
using WarningUtils::get_warning_handler;
using WarningUtils::set_warnAlways;
using WarningUtils::set_warning_handler;
using WarningUtils::WarnAlways;
using WarningUtils::WarningHandlerGuard;

}  // namespace Warning

using WarningUtils::WarningHandlerGuard;

/// Sends `msg` to the calling thread's handler, from the caller's location.
inline void warn(const std::string& msg, const SourceLocation& where = SourceLocation::current()) {
  Warning::warn(where, msg, /*verbatim=*/false);
}

}  // namespace ember

/// EMBER_WARN(parts...): the parts streamed into one message (as ember::str), sent to the handler.
#define EMBER_WARN(...)                                                                    \
  ::ember::Warning::warn(                                                                  \
      ::ember::SourceLocation{__func__, __FILE__, static_cast<::std::uint32_t>(__LINE__)}, \
      ::ember::str(__VA_ARGS__), /*verbatim=*/false)

/// EMBER_WARN_ONCE(parts...): EMBER_WARN the first time this line runs in the process; every
/// time while WarningUtils::get_warnAlways(). The parts are not evaluated when it stays silent.
#define EMBER_WARN_ONCE(...)                                                 \
  do {                                                                       \
    static ::std::atomic<bool> ember_warned_once_{false};                    \
    if (::ember::WarningUtils::get_warnAlways() ||                           \
        (!ember_warned_once_.load(::std::memory_order_relaxed) &&            \
         !ember_warned_once_.exchange(true, ::std::memory_order_relaxed))) { \
      EMBER_WARN(__VA_ARGS__);                                               \
    }                                                                        \
  } while (false)
