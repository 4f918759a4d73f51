// EMBER_ARG: the one macro behind every Options builder (LibTorch's TORCH_ARG), so options read
//   nn::Conv2dOptions(1, 10, 5).stride(2).bias(false)
// Each use declares a private member `name_` (with its default after the macro) and three public
// accessors: a chaining setter `name(value)` and const/non-const getters `name()`.
//
//   struct LinearOptions {
//     LinearOptions(int64_t in, int64_t out) : in_features_(in), out_features_(out) {}
//     EMBER_ARG(int64_t, in_features);
//     EMBER_ARG(int64_t, out_features);
//     EMBER_ARG(bool, bias) = true;
//   };
#pragma once

#include <utility>

#define EMBER_ARG(T, name)                                        \
 public:                                                          \
  inline auto name(const T& new_##name)->decltype(*this) {        \
    this->name##_ = new_##name;                                   \
    return *this;                                                 \
  }                                                               \
  inline auto name(T&& new_##name)->decltype(*this) {             \
    this->name##_ = std::move(new_##name);                        \
    return *this;                                                 \
  }                                                               \
  inline const T& name() const noexcept { return this->name##_; } \
  inline T& name() noexcept { return this->name##_; }             \
                                                                  \
 private:                                                         \
  T name##_
