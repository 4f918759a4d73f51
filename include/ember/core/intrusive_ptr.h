// Reference counting stored inside the object: one allocation per object and one atomic per copy.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace ember {

/// Base for intrusively counted objects. Starts at zero; intrusive_ptr owns from construction.
class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;
  virtual ~RefCounted() = default;
  uint32_t use_count() const { return refcount_.load(std::memory_order_relaxed); }

 private:
  template <class T>
  friend class intrusive_ptr;
  mutable std::atomic<uint32_t> refcount_{0};
};

template <class T>
class intrusive_ptr {
 public:
  intrusive_ptr() noexcept = default;
  intrusive_ptr(std::nullptr_t) noexcept {}
  /// Takes ownership of a freshly made object (or shares an already owned one).
  explicit intrusive_ptr(T* p) noexcept : p_(p) { retain(); }
  intrusive_ptr(const intrusive_ptr& o) noexcept : p_(o.p_) { retain(); }
  intrusive_ptr(intrusive_ptr&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  template <class U, class = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  intrusive_ptr(intrusive_ptr<U> o) noexcept : p_(o.release()) {}
  ~intrusive_ptr() { reset(); }
  intrusive_ptr& operator=(const intrusive_ptr& o) noexcept {
    intrusive_ptr(o).swap(*this);
    return *this;
  }
  intrusive_ptr& operator=(intrusive_ptr&& o) noexcept {
    intrusive_ptr(std::move(o)).swap(*this);
    return *this;
  }

  T* get() const noexcept { return p_; }
  T* operator->() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  void swap(intrusive_ptr& o) noexcept { std::swap(p_, o.p_); }
  void reset() noexcept {
    if (p_ && p_->refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete p_;
    p_ = nullptr;
  }
  uint32_t use_count() const noexcept { return p_ ? p_->use_count() : 0; }
  /// Gives up ownership without decrementing (for conversions).
  T* release() noexcept {
    T* p = p_;
    p_ = nullptr;
    return p;
  }
  static intrusive_ptr adopt(T* p) noexcept {
    intrusive_ptr r;
    r.p_ = p;
    return r;
  }
  bool operator==(const intrusive_ptr& o) const noexcept { return p_ == o.p_; }
  bool operator!=(const intrusive_ptr& o) const noexcept { return p_ != o.p_; }

 private:
  void retain() noexcept {
    if (p_) p_->refcount_.fetch_add(1, std::memory_order_relaxed);
  }
  T* p_ = nullptr;
};

template <class T, class... Args>
intrusive_ptr<T> make_intrusive(Args&&... args) {
  return intrusive_ptr<T>(new T(std::forward<Args>(args)...));
}

}  // namespace ember
