// The thread-safe FIFO between a DataLoader and its workers (jobs one way, results the other).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

#include "ember/core/error.h"
#include "ember/core/string_util.h"

namespace ember::data::detail {

/// A mutex-guarded queue whose pop() waits (up to a timeout) for a value.
template <typename T>
class Queue {
 public:
  /// Appends `value` and wakes one waiting pop().
  void push(T value) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(value));
    }
    cv_.notify_one();
  }

  /// Takes the front value, waiting for one; Error after `timeout` without one.
  T pop(std::optional<std::chrono::milliseconds> timeout = std::nullopt) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto ready = [this] { return !queue_.empty(); };
    if (timeout) {
      if (!cv_.wait_for(lock, *timeout, ready))
        throw Error(str("DataLoader: timed out after ", timeout->count(),
                        " ms waiting for the next batch from the workers. Hint: raise "
                        "DataLoaderOptions::timeout or look for a worker that hangs"));
    } else {
      cv_.wait(lock, ready);
    }
    T value = std::move(queue_.front());
    queue_.pop_front();
    return value;
  }

  /// Drops every queued value; returns how many there were.
  size_t clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t n = queue_.size();
    queue_.clear();
    return n;
  }

 private:
  std::deque<T> queue_;
  std::mutex mutex_;
  std::condition_variable cv_;
};

}  // namespace ember::data::detail
