// torch::data::Iterator: the input iterator of a DataLoader epoch. A valid iterator fetches its
// first batch lazily; it equals end() once the loader has no more batches.
#pragma once

#include <cstddef>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>

#include "ember/core/error.h"

namespace ember::data {

/// One pass over a DataLoader: `for (auto& batch : *loader)`.
template <typename Batch>
class Iterator {
 public:
  using difference_type = std::ptrdiff_t;
  using value_type = Batch;
  using pointer = Batch*;
  using reference = Batch&;
  using iterator_category = std::input_iterator_tag;
  using BatchProducer = std::function<std::optional<Batch>()>;

  /// The past-the-end sentinel.
  Iterator() = default;
  /// An iterator that takes its batches from `next_batch` (nullopt: the end).
  explicit Iterator(BatchProducer next_batch)
      : state_(std::make_shared<State>(std::move(next_batch))) {}

  /// Fetches the next batch.
  Iterator& operator++() {
    if (!state_) throw Error("Incrementing the DataLoader's past-the-end iterator is not allowed");
    state_->initialize();
    if (!state_->batch) throw Error("Attempted to increment iterator past the end");
    state_->batch = state_->next_batch();
    return *this;
  }
  /// The current batch.
  Batch& operator*() { return current(); }
  /// Member access on the current batch.
  Batch* operator->() { return &current(); }

  /// Two valid iterators are equal when they are the same iterator (copies share state); a valid
  /// one equals the sentinel when it has no batch left.
  bool operator==(const Iterator& other) const {
    if (!state_ || !other.state_) {
      const State* valid = state_ ? state_.get() : other.state_.get();
      if (!valid) return true;
      valid->initialize();
      return !valid->batch;
    }
    return state_ == other.state_;
  }
  /// !(*this == other).
  bool operator!=(const Iterator& other) const { return !(*this == other); }

 private:
  struct State {
    explicit State(BatchProducer producer) : next_batch(std::move(producer)) {}
    void initialize() const {
      if (!initialized) {
        batch = next_batch();
        initialized = true;
      }
    }
    BatchProducer next_batch;
    mutable std::optional<Batch> batch;
    mutable bool initialized = false;
  };

  Batch& current() {
    if (!state_) throw Error("Dereferencing the DataLoader's past-the-end iterator is not allowed");
    state_->initialize();
    if (!state_->batch) throw Error("Attempted to dereference iterator that was past the end");
    return *state_->batch;
  }

  std::shared_ptr<State> state_;
};

}  // namespace ember::data
