#include "ember/distributed/work.h"

namespace ember {
namespace distributed {

Work::~Work() = default;

bool Work::is_completed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_;
}

bool Work::is_success() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ && !error_;
}

bool Work::wait(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout == std::chrono::milliseconds::max()) {
    done_cv_.wait(lock, [&] { return completed_; });
  } else if (!done_cv_.wait_for(lock, timeout, [&] { return completed_; })) {
    return false;
  }
  if (error_) std::rethrow_exception(error_);
  return true;
}

std::exception_ptr Work::exception() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

std::vector<Tensor> Work::result() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return outputs_;
}

void Work::finish(std::vector<Tensor> outputs) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    outputs_ = std::move(outputs);
    completed_ = true;
  }
  done_cv_.notify_all();
}

void Work::finish_with_error(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    error_ = std::move(error);
    completed_ = true;
  }
  done_cv_.notify_all();
}

}  // namespace distributed
}  // namespace ember
