// <c10/util/Logging.h>: the glog-style macros LibTorch's headers bring when it is built without
// glog (LOG(INFO) << ..., CHECK(cond) << ..., CHECK_EQ, DCHECK, VLOG, LOG_IF, ...). Messages go
// to stderr as "[I file:line] message"; LOG(FATAL) and a failed CHECK print and then abort, as
// c10's do. Each macro is defined only when it is not already (a program that also uses glog
// keeps glog's). <torch/torch.h> includes this header, as LibTorch's does.
#pragma once

#include <cstdlib>
#include <iostream>
#include <sstream>

namespace ember::compat_detail {

enum LogSeverity { kLogINFO = 0, kLogWARNING = 1, kLogERROR = 2, kLogFATAL = 3 };

/// One log line: collects the streamed parts and writes them when destroyed.
class LogMessage {
 public:
  LogMessage(const char* file, int line, int severity) : severity_(severity) {
    stream_ << "["
            << "IWEF"[severity < 0 || severity > 3 ? 0 : severity] << " " << file << ":" << line
            << "] ";
  }
  LogMessage(const LogMessage&) = delete;
  LogMessage& operator=(const LogMessage&) = delete;
  [[gnu::noinline]] ~LogMessage() {
    stream_ << "\n";
    std::cerr << stream_.str() << std::flush;
    if (severity_ >= kLogFATAL) std::abort();
  }
  std::ostream& stream() { return stream_; }

 private:
  int severity_;
  std::ostringstream stream_;
};

/// Swallows a stream expression: `cond ? (void)0 : Voidify() & LOG(...)` keeps LOG_IF and CHECK
/// usable as one statement with `<<` after them.
struct LogVoidify {
  void operator&(std::ostream&) {}
};

}  // namespace ember::compat_detail

#ifndef LOG
#define LOG(severity)                                                                            \
  ::ember::compat_detail::LogMessage(__FILE__, __LINE__, ::ember::compat_detail::kLog##severity) \
      .stream()
#endif
#ifndef LOG_IF
#define LOG_IF(severity, condition) \
  !(condition) ? (void)0 : ::ember::compat_detail::LogVoidify() & LOG(severity)
#endif
#ifndef VLOG
// Verbose logging is off (LibTorch's FLAGS_v defaults to 0): the stream is never evaluated.
#define VLOG(level) LOG_IF(INFO, false)
#endif
#ifndef CHECK
#define CHECK(condition) LOG_IF(FATAL, !(condition)) << "Check failed: " #condition " "
#endif
#ifndef CHECK_EQ
#define EMBER_COMPAT_CHECK_OP(a, op, b) CHECK((a)op(b)) << "(" << (a) << " vs. " << (b) << ") "
#define CHECK_EQ(a, b) EMBER_COMPAT_CHECK_OP(a, ==, b)
#define CHECK_NE(a, b) EMBER_COMPAT_CHECK_OP(a, !=, b)
#define CHECK_LE(a, b) EMBER_COMPAT_CHECK_OP(a, <=, b)
#define CHECK_LT(a, b) EMBER_COMPAT_CHECK_OP(a, <, b)
#define CHECK_GE(a, b) EMBER_COMPAT_CHECK_OP(a, >=, b)
#define CHECK_GT(a, b) EMBER_COMPAT_CHECK_OP(a, >, b)
#endif
#ifndef CHECK_NOTNULL
#define CHECK_NOTNULL(ptr) (CHECK((ptr) != nullptr) << "'" #ptr "' must be non NULL", (ptr))
#endif
#ifndef DCHECK
#ifdef NDEBUG
// Release builds: the condition is compiled (so it stays valid code) but never evaluated.
#define DCHECK(condition) \
  while (false) CHECK(condition)
#define DCHECK_EQ(a, b) \
  while (false) CHECK_EQ(a, b)
#define DCHECK_NE(a, b) \
  while (false) CHECK_NE(a, b)
#define DCHECK_LE(a, b) \
  while (false) CHECK_LE(a, b)
#define DCHECK_LT(a, b) \
  while (false) CHECK_LT(a, b)
#define DCHECK_GE(a, b) \
  while (false) CHECK_GE(a, b)
#define DCHECK_GT(a, b) \
  while (false) CHECK_GT(a, b)
#else
#define DCHECK(condition) CHECK(condition)
#define DCHECK_EQ(a, b) CHECK_EQ(a, b)
#define DCHECK_NE(a, b) CHECK_NE(a, b)
#define DCHECK_LE(a, b) CHECK_LE(a, b)
#define DCHECK_LT(a, b) CHECK_LT(a, b)
#define DCHECK_GE(a, b) CHECK_GE(a, b)
#define DCHECK_GT(a, b) CHECK_GT(a, b)
#endif
#endif
