// The warning channel (include/ember/core/warning.h): a handler per thread, the stderr default.
#include "ember/core/warning.h"

#include <cstring>
#include <iostream>

namespace ember {
namespace {

WarningHandler& default_handler() {
  static WarningHandler handler;
  return handler;
}

// Per thread, as LibTorch's: a test capturing warnings on its thread does not see (or swallow)
// another thread's. nullptr means the default.
thread_local WarningHandler* thread_handler = nullptr;

std::atomic<bool> warn_always{false};

const char* basename_of(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash != nullptr ? slash + 1 : path;
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const SourceLocation& location) {
  return os << location.function << " at " << location.file << ":" << location.line;
}

void WarningHandler::process(const SourceLocation& source_location, const std::string& msg,
                             bool /*verbatim*/) {
  // One write per warning, so that lines from several threads do not interleave mid-line.
  std::cerr << str("[W ", basename_of(source_location.file), ":", source_location.line,
                   "] Warning: ", msg, " (function ", source_location.function, ")\n")
            << std::flush;
}

namespace WarningUtils {

void set_warning_handler(WarningHandler* handler) noexcept { thread_handler = handler; }

WarningHandler* get_warning_handler() noexcept {
  return thread_handler != nullptr ? thread_handler : &default_handler();
}

void set_warnAlways(bool setting) noexcept { warn_always.store(setting); }

bool get_warnAlways() noexcept { return warn_always.load(); }

}  // namespace WarningUtils

namespace Warning {

void warn(const SourceLocation& source_location, const std::string& msg, bool verbatim) {
  get_warning_handler()->process(source_location, msg, verbatim);
}

}  // namespace Warning

}  // namespace ember
