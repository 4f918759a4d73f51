// Indexing with LibTorch's syntax: t.index({Slice(1, None, 2), Ellipsis, None, 0, mask, idx}).
#pragma once

#include <optional>

#include "ember/core/tensor.h"

namespace ember {
namespace indexing {

struct NoneIndexType {};
struct EllipsisIndexType {};
constexpr NoneIndexType None{};
constexpr EllipsisIndexType Ellipsis{};

/// A Python-style slice start:stop:step; missing ends default to the whole dim.
class Slice {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : start_(start), stop_(stop), step_(step.value_or(1)) {}
  Slice(std::optional<int64_t> start, std::optional<int64_t> stop, NoneIndexType)
      : Slice(start, stop) {}
  Slice(NoneIndexType, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : Slice(std::nullopt, stop, step) {}
  Slice(std::optional<int64_t> start, NoneIndexType, std::optional<int64_t> step = std::nullopt)
      : Slice(start, std::nullopt, step) {}
  Slice(NoneIndexType, NoneIndexType, std::optional<int64_t> step = std::nullopt)
      : Slice(std::nullopt, std::nullopt, step) {}
  std::optional<int64_t> start() const { return start_; }
  std::optional<int64_t> stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  std::optional<int64_t> start_, stop_;
  int64_t step_;
};

}  // namespace indexing

/// One entry of an index list: None, Ellipsis, an integer, a bool, a Slice or a Tensor
/// (integer tensors gather, bool tensors mask).
class EMBER_API TensorIndex {
 public:
  enum class Kind { None, Ellipsis, Integer, Boolean, Slice, Tensor };
  TensorIndex(indexing::NoneIndexType) : kind_(Kind::None) {}
  TensorIndex(indexing::EllipsisIndexType) : kind_(Kind::Ellipsis) {}
  TensorIndex(const char* s);  // "..." only, as LibTorch allows
  TensorIndex(int64_t i) : kind_(Kind::Integer), integer_(i) {}
  TensorIndex(int i) : TensorIndex(int64_t(i)) {}
  TensorIndex(bool b) : kind_(Kind::Boolean), boolean_(b) {}
  TensorIndex(indexing::Slice s) : kind_(Kind::Slice), slice_(s) {}
  TensorIndex(Tensor t) : kind_(Kind::Tensor), tensor_(std::move(t)) {}

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_ellipsis() const { return kind_ == Kind::Ellipsis; }
  bool is_integer() const { return kind_ == Kind::Integer; }
  bool is_boolean() const { return kind_ == Kind::Boolean; }
  bool is_slice() const { return kind_ == Kind::Slice; }
  bool is_tensor() const { return kind_ == Kind::Tensor; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const indexing::Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  Kind kind_;
  int64_t integer_ = 0;
  bool boolean_ = false;
  indexing::Slice slice_;
  Tensor tensor_;
};

}  // namespace ember
