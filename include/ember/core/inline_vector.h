// A short list of non-trivial values (tensors, edges) whose first N live inline, so the autograd
// nodes of the usual one- or two-input op cost no allocation beyond the node itself.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace ember {

template <class T, size_t N>
class InlineVector {
 public:
  InlineVector() = default;
  explicit InlineVector(size_t n) { resize(n); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return spilled() ? heap_.data() : inline_.data(); }
  const T* data() const { return spilled() ? heap_.data() : inline_.data(); }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }

  /// Grows or shrinks to n values; new values are default-constructed.
  void resize(size_t n) {
    if (n > N && !spilled()) {
      heap_.resize(n);
      for (size_t i = 0; i < size_; ++i) heap_[i] = std::move(inline_[i]);
      for (auto& v : inline_) v = T();
    } else if (spilled()) {
      heap_.resize(n);
    } else {
      for (size_t i = n; i < size_; ++i) inline_[i] = T();
    }
    size_ = n;
  }
  void push_back(T v) {
    if (!spilled() && size_ < N) {
      inline_[size_++] = std::move(v);
      return;
    }
    if (!spilled()) {
      heap_.reserve(N * 2);
      for (size_t i = 0; i < size_; ++i) heap_.push_back(std::move(inline_[i]));
      for (auto& e : inline_) e = T();
    }
    heap_.push_back(std::move(v));
    ++size_;
  }
  /// Resets every value to T() but keeps the size.
  void reset_values() {
    for (auto& v : *this) v = T();
  }

 private:
  bool spilled() const { return !heap_.empty(); }
  std::array<T, N> inline_{};
  std::vector<T> heap_;
  size_t size_ = 0;
};

}  // namespace ember
