// torch::data::WorkerException: what the caller of a DataLoader gets when a worker thread's
// get_batch threw; what() carries the original message, original_exception the original error.
#pragma once

#include <exception>
#include <string>
#include <utility>

#include "ember/core/error.h"

namespace ember::data {

/// An exception thrown in a DataLoader worker, rethrown on the caller's thread.
struct WorkerException : public Error {
  explicit WorkerException(std::exception_ptr original)
      : Error(describe(original)), original_exception(std::move(original)), message(what()) {}

  /// The exception the worker threw (std::rethrow_exception(original_exception) to get it).
  std::exception_ptr original_exception;
  /// "Caught exception in DataLoader worker thread. Original message: ...".
  std::string message;

 private:
  static std::string describe(const std::exception_ptr& original) {
    std::string text = "Caught exception in DataLoader worker thread.";
    try {
      std::rethrow_exception(original);
    } catch (const std::exception& e) {
      text += " Original message: ";
      text += e.what();
    } catch (...) {
      text += " (It was not a std::exception.)";
    }
    return text;
  }
};

}  // namespace ember::data
