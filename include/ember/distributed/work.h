// The handle of a collective that runs in the background (c10d::Work, Python's Work object):
// wait() blocks until it finishes and rethrows its error; is_completed() asks without blocking.
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {
namespace distributed {

class EMBER_API Work {
 public:
  Work() = default;
  virtual ~Work();
  Work(const Work&) = delete;
  Work& operator=(const Work&) = delete;

  /// Whether the operation has finished, successfully or not. Virtual: an NCCL Work asks its
  /// stream; a Gloo send/recv knows only once wait() has seen the transfer through.
  virtual bool is_completed() const;
  /// Whether it finished without an error (false while it runs).
  bool is_success() const;
  /// Blocks until it finishes; rethrows the operation's error (a DistBackendError, or the
  /// argument error the backend found). With a timeout: false when it has not finished by then.
  /// Virtual: a point-to-point Work completes its transfer in wait().
  virtual bool wait(std::chrono::milliseconds timeout = std::chrono::milliseconds::max());
  /// The error it failed with (null while running or on success).
  std::exception_ptr exception() const;
  /// The output tensors of the operation (its in-place inputs, or the outputs it filled).
  std::vector<Tensor> result() const;

  // For backends: mark the operation done.
  void finish(std::vector<Tensor> outputs = {});
  void finish_with_error(std::exception_ptr error);

 private:
  mutable std::mutex mutex_;
  std::condition_variable done_cv_;
  bool completed_ = false;
  std::exception_ptr error_;
  std::vector<Tensor> outputs_;
};

using WorkPtr = std::shared_ptr<Work>;

}  // namespace distributed
}  // namespace ember
