// Tensor factories (LibTorch names and defaults). Options default to float32 on the CPU.
#pragma once

#include <functional>
#include <initializer_list>
#include <vector>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember {

/// An uninitialised tensor, laid out as options' memory_format (row-major unless it says
/// ChannelsLast, for rank 4, or ChannelsLast3d, for rank 5).
EMBER_API Tensor empty(IntArrayRef size, const TensorOptions& options = {});
/// The same with the memory format as an argument (LibTorch's third parameter of empty); setting
/// it in `options` too is an error.
EMBER_API Tensor empty(IntArrayRef size, const TensorOptions& options,
                       std::optional<MemoryFormat> memory_format);
EMBER_API Tensor empty_strided(IntArrayRef size, IntArrayRef stride,
                               const TensorOptions& options = {});
EMBER_API Tensor zeros(IntArrayRef size, const TensorOptions& options = {});
EMBER_API Tensor ones(IntArrayRef size, const TensorOptions& options = {});
EMBER_API Tensor full(IntArrayRef size, const Scalar& fill_value,
                      const TensorOptions& options = {});
/// [0, end) with step 1; integer arguments give int64, floating ones the default dtype.
EMBER_API Tensor arange(const Scalar& end, const TensorOptions& options = {});
EMBER_API Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options = {});
EMBER_API Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
                        const TensorOptions& options = {});
EMBER_API Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps,
                          const TensorOptions& options = {});
EMBER_API Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base = 10,
                          const TensorOptions& options = {});
EMBER_API Tensor eye(int64_t n, const TensorOptions& options = {});
EMBER_API Tensor eye(int64_t n, int64_t m, const TensorOptions& options = {});
/// Uniform on [0, 1).
EMBER_API Tensor rand(IntArrayRef size, const TensorOptions& options = {});
EMBER_API Tensor rand(IntArrayRef size, Generator& gen, const TensorOptions& options = {});
/// Standard normal.
EMBER_API Tensor randn(IntArrayRef size, const TensorOptions& options = {});
EMBER_API Tensor randn(IntArrayRef size, Generator& gen, const TensorOptions& options = {});
/// Uniform integers in [low, high); dtype int64 unless given.
EMBER_API Tensor randint(int64_t high, IntArrayRef size, const TensorOptions& options = {});
EMBER_API Tensor randint(int64_t low, int64_t high, IntArrayRef size,
                         const TensorOptions& options = {});
/// A random permutation of 0..n-1 (int64).
EMBER_API Tensor randperm(int64_t n, const TensorOptions& options = {});
EMBER_API Tensor randperm(int64_t n, Generator& gen, const TensorOptions& options = {});

// *_like: the same size, and the dtype/device of `self` unless options say otherwise.
EMBER_API Tensor empty_like(const Tensor& self, const TensorOptions& options = {});
EMBER_API Tensor zeros_like(const Tensor& self, const TensorOptions& options = {});
EMBER_API Tensor ones_like(const Tensor& self, const TensorOptions& options = {});
EMBER_API Tensor full_like(const Tensor& self, const Scalar& fill_value,
                           const TensorOptions& options = {});
EMBER_API Tensor rand_like(const Tensor& self, const TensorOptions& options = {});
EMBER_API Tensor randn_like(const Tensor& self, const TensorOptions& options = {});
EMBER_API Tensor randint_like(const Tensor& self, int64_t low, int64_t high,
                              const TensorOptions& options = {});

/// Wraps memory the caller owns; it must outlive the tensor. With a deleter, the tensor owns it and
/// calls deleter(data) when the last view goes.
EMBER_API Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {});
EMBER_API Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                           const TensorOptions& options = {});
EMBER_API Tensor from_blob(void* data, IntArrayRef sizes, std::function<void(void*)> deleter,
                           const TensorOptions& options = {});

/// Nested initializer lists, as LibTorch's torch::tensor: tensor({{1, 2}, {3, 4}}).
/// Integers give int64, floating values give the default dtype, bools give bool.
class EMBER_API TensorDataContainer {
 public:
  TensorDataContainer(bool v);
  TensorDataContainer(int v);
  TensorDataContainer(int64_t v);
  TensorDataContainer(long long v);
  TensorDataContainer(float v);
  TensorDataContainer(double v);
  TensorDataContainer(std::initializer_list<TensorDataContainer> list);
  template <class T>
  TensorDataContainer(const std::vector<T>& v) {
    sizes_ = {static_cast<int64_t>(v.size())};
    scalar_type_ = v.empty() ? get_default_dtype() : TensorDataContainer(v[0]).scalar_type_;
    for (const auto& x : v) values_.push_back(static_cast<double>(x));
  }
  Tensor to_tensor(const TensorOptions& options) const;

 private:
  std::vector<int64_t> sizes_;
  std::vector<double> values_;  // int64 values up to 2^53 are exact; larger ones via ints_
  std::vector<int64_t> ints_;
  ScalarType scalar_type_ = kFloat;
  bool is_scalar_ = false;
};
EMBER_API Tensor tensor(const TensorDataContainer& data, const TensorOptions& options = {});

/// Random fills with an explicit generator.
EMBER_API const Tensor& uniform_(const Tensor& self, double from, double to, Generator& gen);
EMBER_API const Tensor& normal_(const Tensor& self, double mean, double std, Generator& gen);
EMBER_API const Tensor& bernoulli_(const Tensor& self, double p, Generator& gen);
/// Returns a tensor of 0/1 drawn with probabilities `self` (same dtype).
EMBER_API Tensor bernoulli(const Tensor& self);

}  // namespace ember
