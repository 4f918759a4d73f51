// Tensor: a refcounted handle to a TensorImpl, with LibTorch's method API. Copying a Tensor shares
// the data; `clone()` copies it. Methods are thin: each forwards to the free function of the same
// name (declared in include/ember/ops/), which is where checks, dispatch and autograd happen.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/optional_array_ref.h"
#include "ember/core/scalar.h"
#include "ember/core/tensor_impl.h"
#include "ember/core/tensor_options.h"
#include "ember/ops/op_table.h"

namespace ember {

class Tensor;
class TensorIndex;
namespace autograd {
class Node;
}
using TensorList = ArrayRef<Tensor>;

/// Element access without bounds checks through sizes/strides, e.g. `auto a = t.accessor<float,
/// 2>(); a[i][j]`. The tensor must outlive the accessor.
template <class T, size_t N>
class TensorAccessor {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  TensorAccessor<T, N - 1> operator[](int64_t i) const {
    return TensorAccessor<T, N - 1>(data_ + strides_[0] * i, sizes_ + 1, strides_ + 1);
  }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};
template <class T>
class TensorAccessor<T, 1> {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  T& operator[](int64_t i) const { return data_[strides_[0] * i]; }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

namespace detail {
/// Number of deep copies (nn::Cloneable::clone) in progress on any thread. While one runs, a
/// Tensor copy made on its thread of a tensor being cloned becomes a copy of the clone, so the
/// Tensor members of a cloned module point into the clone. Zero otherwise: one relaxed load per
/// copy.
extern EMBER_API std::atomic<int> active_tensor_remaps;
/// The clone of `impl` on this thread's clone in progress, or null (see active_tensor_remaps).
using TensorRemapFn = TensorImpl* (*)(void* context, const TensorImpl* impl);
/// Installs (or, with nullptr, removes) this thread's remapping; returns the previous one.
EMBER_API std::pair<TensorRemapFn, void*> set_thread_tensor_remap(TensorRemapFn fn, void* context);
}  // namespace detail

class EMBER_API Tensor {
 public:
  Tensor() = default;
  explicit Tensor(intrusive_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  Tensor(const Tensor& other) : impl_(other.impl_) {
    if (EMBER_UNLIKELY(detail::active_tensor_remaps.load(std::memory_order_relaxed) != 0))
      remap_copy();
  }
  Tensor(Tensor&&) noexcept = default;
  // Assigning to a named tensor rebinds the handle; assigning to a temporary writes into the
  // elements it views, as in LibTorch: `x[0] = 1.5` fills, `x.select(0, 1) = y` copies y in.
  Tensor& operator=(const Tensor& other) & {
    impl_ = other.impl_;
    if (EMBER_UNLIKELY(detail::active_tensor_remaps.load(std::memory_order_relaxed) != 0))
      remap_copy();
    return *this;
  }
  Tensor& operator=(Tensor&&) & noexcept = default;
  Tensor& operator=(const Tensor& values) && {
    copy_(values);
    return *this;
  }
  Tensor& operator=(Tensor&& values) && {
    copy_(values);
    return *this;
  }
  Tensor& operator=(const Scalar& value) && {
    fill_(value);
    return *this;
  }

  // ---- Identity and geometry ----
  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const intrusive_ptr<TensorImpl>& impl() const { return impl_; }
  void reset() { impl_.reset(); }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  uint32_t use_count() const { return impl_.use_count(); }

  int64_t dim() const { return checked_impl("dim")->dim(); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return checked_impl("numel")->numel(); }
  IntArrayRef sizes() const { return checked_impl("sizes")->sizes(); }
  IntArrayRef strides() const { return checked_impl("strides")->strides(); }
  /// Size of dim `d`; negative d counts from the end. Throws IndexError when out of range.
  int64_t size(int64_t d) const;
  int64_t stride(int64_t d) const;
  int64_t storage_offset() const { return checked_impl("storage_offset")->storage_offset(); }
  /// ScalarType::Undefined for an undefined tensor, as LibTorch.
  ScalarType scalar_type() const { return impl_ ? impl_->dtype() : ScalarType::Undefined; }
  ScalarType dtype() const { return scalar_type(); }
  Device device() const { return checked_impl("device")->device(); }
  TensorOptions options() const;
  bool is_contiguous() const { return checked_impl("is_contiguous")->is_contiguous(); }
  /// Whether the strides are those of `memory_format`: Contiguous and Preserve as
  /// is_contiguous(); ChannelsLast (rank 4) / ChannelsLast3d (rank 5) in that stride order (size-1
  /// dims may have any stride); false for other ranks.
  bool is_contiguous(MemoryFormat memory_format) const;
  /// ChannelsLast(3d) for a tensor laid out that way and not also row-major, else Contiguous.
  MemoryFormat suggest_memory_format(bool channels_last_strides_exact_match = false) const;
  bool is_cuda() const { return device().is_cuda(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_floating_point() const { return ember::is_floating_point(dtype()); }
  int64_t element_size() const { return impl()->itemsize(); }
  int64_t itemsize() const { return impl()->itemsize(); }
  size_t nbytes() const { return static_cast<size_t>(numel() * itemsize()); }
  uint32_t _version() const { return impl()->version(); }
  /// Always kStrided: Ember has no sparse or MKL-DNN tensors (their factories refuse the layout).
  Layout layout() const { return kStrided; }
  bool is_sparse() const { return false; }
  bool is_mkldnn() const { return false; }
  /// Whether the buffer was allocated under InferenceMode (LibTorch's inference tensors; Ember
  /// does not restrict their later use as LibTorch does).
  bool is_inference() const { return impl()->storage()->is_inference(); }
  std::string toString() const;

  // ---- Data access ----
  void* data_ptr() const { return impl()->data(); }
  /// Typed pointer to element 0; throws TypeError when T is not the tensor's dtype.
  template <class T>
  T* data_ptr() const {
    check_dtype_for_access(scalar_type_of<std::remove_const_t<T>>(), "data_ptr");
    return static_cast<T*>(impl()->data());
  }
  template <class T>
  const T* const_data_ptr() const {
    return data_ptr<T>();
  }
  template <class T>
  T* mutable_data_ptr() const {
    return data_ptr<T>();
  }
  /// The single value of a one-element tensor (copied to the host if needed).
  Scalar item() const;
  template <class T>
  T item() const {
    return item().to<T>();
  }
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() const {
    check_accessor(scalar_type_of<std::remove_const_t<T>>(), N);
    return TensorAccessor<T, N>(static_cast<T*>(impl()->data()), sizes().data(), strides().data());
  }

  // ---- Conversion and copies ----
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device device, bool non_blocking = false, bool copy = false) const;
  /// `x.to(kCUDA)`: a DeviceType alone (without it the call would be ambiguous between the Device
  /// and TensorOptions overloads).
  Tensor to(DeviceType type, bool non_blocking = false, bool copy = false) const {
    return to(Device(type), non_blocking, copy);
  }
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(const TensorOptions& options, bool non_blocking = false, bool copy = false) const;
  Tensor to(const Tensor& other, bool non_blocking = false, bool copy = false) const;
  Tensor toType(ScalarType dtype) const { return to(dtype); }
  Tensor type_as(const Tensor& other) const { return to(other.dtype()); }
  Tensor cpu() const { return to(Device(kCPU)); }
  Tensor cuda() const { return to(Device(kCUDA, 0)); }
  Tensor contiguous() const;
  /// This tensor when is_contiguous(memory_format), else a copy laid out that way (differentiable).
  /// ChannelsLast needs rank 4, ChannelsLast3d rank 5; Preserve throws for a non-contiguous
  /// tensor, as LibTorch.
  Tensor contiguous(MemoryFormat memory_format) const;
  /// A row-major copy (LibTorch's clone() keeps a channels-last layout; Ember's does not).
  Tensor clone() const;
  /// A copy laid out as `memory_format`; Preserve and nullopt keep a channels-last layout and give
  /// a row-major copy of anything else.
  Tensor clone(std::optional<MemoryFormat> memory_format) const;
  /// Copies src into this tensor in place, broadcasting src and converting dtype and device.
  const Tensor& copy_(const Tensor& src, bool non_blocking = false) const;
  const Tensor& fill_(const Scalar& value) const;
  const Tensor& fill_(const Tensor& value) const;
  const Tensor& zero_() const;
  /// Gives this tensor `size` in place, keeping its storage when large enough (new elements are
  /// uninitialised), with row-major or channels-last strides. Refused when it requires grad.
  const Tensor& resize_(IntArrayRef size,
                        std::optional<MemoryFormat> memory_format = std::nullopt) const;

  // ---- Random fills (use the default generator unless one is given) ----
  const Tensor& uniform_(double from = 0, double to = 1) const;
  const Tensor& normal_(double mean = 0, double std = 1) const;
  const Tensor& bernoulli_(double p = 0.5) const;
  const Tensor& random_(int64_t from, int64_t to) const;

  // ---- Autograd (the engine lives in src/autograd) ----
  bool requires_grad() const { return impl()->requires_grad(); }
  const Tensor& requires_grad_(bool requires_grad = true) const;
  const Tensor& set_requires_grad(bool requires_grad) const {
    return requires_grad_(requires_grad);
  }
  /// The accumulated gradient (undefined until backward reaches this tensor).
  const Tensor& grad() const;
  /// The gradient slot itself, for optimizers that write it: `p.mutable_grad() = Tensor()`.
  Tensor& mutable_grad() const;
  /// The node that produced this tensor, or null for leaves.
  const std::shared_ptr<autograd::Node>& grad_fn() const;
  /// True for tensors created by the user (no grad_fn), whether or not they require grad.
  bool is_leaf() const;
  /// Which output of grad_fn() this tensor is.
  uint32_t output_nr() const;
  /// A tensor sharing this one's data, cut from the graph (never requires grad).
  Tensor detach() const;
  /// Cuts this tensor from the graph in place.
  const Tensor& detach_() const;
  /// Keeps grad() for a non-leaf tensor after backward.
  const Tensor& retain_grad() const;
  bool retains_grad() const;
  /// Backpropagates from this tensor. `gradient` defaults to 1 for one-element tensors;
  /// `retain_graph` defaults to `create_graph`; `inputs` limits accumulation to those tensors.
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false, TensorList inputs = {}) const;
  /// Registers a gradient hook: `Tensor(Tensor)` replaces the gradient, `void(Tensor)` observes it.
  /// Returns a handle for remove_hook.
  template <class F>
  unsigned register_hook(F&& hook) const {
    if constexpr (std::is_void_v<std::invoke_result_t<F, Tensor>>) {
      return register_grad_hook([h = std::forward<F>(hook)](const Tensor& g) {
        h(g);
        return Tensor();
      });
    } else {
      return register_grad_hook(std::forward<F>(hook));
    }
  }
  void remove_hook(unsigned handle) const;
  /// Runs after a leaf's .grad has been accumulated (Python's register_post_accumulate_grad_hook).
  unsigned register_post_accumulate_grad_hook(std::function<void(const Tensor&)> hook) const;
  /// For a view, the tensor whose memory it views; undefined otherwise.
  const Tensor& _base() const;
  bool is_view() const;
  /// The same data as a tensor without history (LibTorch's `t.data()`). Unlike LibTorch it shares
  /// the version counter, which lives in the storage.
  Tensor variable_data() const;
  Tensor data() const { return variable_data(); }

  // ---- Views and shape ----
  Tensor view(IntArrayRef size) const;
  Tensor view_as(const Tensor& other) const { return view(other.sizes()); }
  Tensor reshape(IntArrayRef shape) const;
  Tensor reshape_as(const Tensor& other) const { return reshape(other.sizes()); }
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  const Tensor& squeeze_() const;
  const Tensor& squeeze_(int64_t dim) const;
  const Tensor& unsqueeze_(int64_t dim) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  const Tensor& transpose_(int64_t dim0, int64_t dim1) const;
  Tensor swapaxes(int64_t dim0, int64_t dim1) const { return transpose(dim0, dim1); }
  Tensor t() const;
  const Tensor& t_() const;
  Tensor mT() const { return transpose(-2, -1); }
  Tensor expand(IntArrayRef size, bool implicit = false) const;
  Tensor expand_as(const Tensor& other) const { return expand(other.sizes()); }
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor as_strided(IntArrayRef size, IntArrayRef stride,
                    std::optional<int64_t> storage_offset = std::nullopt) const;
  /// A view of the same elements with the same sizes and strides (LibTorch's alias()).
  Tensor alias() const { return as_strided(sizes(), strides(), storage_offset()); }
  Tensor movedim(IntArrayRef source, IntArrayRef destination) const;
  Tensor movedim(int64_t source, int64_t destination) const;
  Tensor unfold(int64_t dimension, int64_t size, int64_t step) const;
  Tensor flip(IntArrayRef dims) const;
  Tensor roll(IntArrayRef shifts, IntArrayRef dims = {}) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;
  Tensor repeat(IntArrayRef repeats) const;
  Tensor tile(IntArrayRef dims) const;

  // ---- Indexing ----
  Tensor index(ArrayRef<TensorIndex> indices) const;
  Tensor index(std::initializer_list<TensorIndex> indices) const;
  const Tensor& index_put_(ArrayRef<TensorIndex> indices, const Tensor& value) const;
  const Tensor& index_put_(ArrayRef<TensorIndex> indices, const Scalar& value) const;
  const Tensor& index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value) const;
  const Tensor& index_put_(std::initializer_list<TensorIndex> indices, const Scalar& value) const;
  Tensor operator[](int64_t index) const { return select(0, index); }
  Tensor operator[](const Tensor& index) const;
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
  const Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src) const;
  const Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  const Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source,
                   const Scalar& alpha = 1) const;
  const Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                           const Scalar& alpha = 1) const;
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  const Tensor& masked_fill_(const Tensor& mask, const Scalar& value) const;
  const Tensor& masked_fill_(const Tensor& mask, const Tensor& value) const;
  Tensor masked_select(const Tensor& mask) const;
  Tensor nonzero() const;
  Tensor take(const Tensor& index) const;

  // ---- Elementwise: one method pair per row of op_table.h ----
#define EMBER_DECLARE_UNARY_METHOD(name, Name, policy) \
  Tensor name() const;                                 \
  const Tensor& name##_() const;
  EMBER_UNARY_OPS(EMBER_DECLARE_UNARY_METHOD)
#undef EMBER_DECLARE_UNARY_METHOD
#define EMBER_DECLARE_BINARY_METHOD(name, Name, policy) \
  Tensor name(const Tensor& other) const;               \
  Tensor name(const Scalar& other) const;               \
  const Tensor& name##_(const Tensor& other) const;     \
  const Tensor& name##_(const Scalar& other) const;
  EMBER_BINARY_OPS(EMBER_DECLARE_BINARY_METHOD)
#undef EMBER_DECLARE_BINARY_METHOD

  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor add(const Scalar& other, const Scalar& alpha = 1) const;
  const Tensor& add_(const Tensor& other, const Scalar& alpha = 1) const;
  const Tensor& add_(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor sub(const Scalar& other, const Scalar& alpha = 1) const;
  const Tensor& sub_(const Tensor& other, const Scalar& alpha = 1) const;
  const Tensor& sub_(const Scalar& other, const Scalar& alpha = 1) const;
  /// rounding_mode: none (true division), "trunc" or "floor".
  Tensor div(const Tensor& other,
             std::optional<std::string_view> rounding_mode = std::nullopt) const;
  Tensor div(const Scalar& other,
             std::optional<std::string_view> rounding_mode = std::nullopt) const;
  const Tensor& div_(const Tensor& other,
                     std::optional<std::string_view> rounding_mode = std::nullopt) const;
  const Tensor& div_(const Scalar& other,
                     std::optional<std::string_view> rounding_mode = std::nullopt) const;
  Tensor round(int64_t decimals = 0) const;
  const Tensor& round_(int64_t decimals = 0) const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor clamp(const std::optional<Tensor>& min, const std::optional<Tensor>& max = {}) const;
  const Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor clamp_min(const Scalar& min) const;
  Tensor clamp_max(const Scalar& max) const;
  const Tensor& clamp_min_(const Scalar& min) const;
  const Tensor& clamp_max_(const Scalar& max) const;
  Tensor clip(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const {
    return clamp(min, max);
  }
  /// approximate: "none" (erf form) or "tanh".
  Tensor gelu(std::string_view approximate = "none") const;
  Tensor logit(std::optional<double> eps = std::nullopt) const;
  Tensor nan_to_num(std::optional<double> nan = std::nullopt,
                    std::optional<double> posinf = std::nullopt,
                    std::optional<double> neginf = std::nullopt) const;
  Tensor lerp(const Tensor& end, const Scalar& weight) const;
  Tensor lerp(const Tensor& end, const Tensor& weight) const;
  /// self += weight·(end - self), in place (end and weight broadcast to self's shape).
  const Tensor& lerp_(const Tensor& end, const Scalar& weight) const;
  const Tensor& lerp_(const Tensor& end, const Tensor& weight) const;
  Tensor addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  Tensor addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  const Tensor& addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  const Tensor& addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  Tensor where(const Tensor& condition, const Tensor& other) const;
  bool equal(const Tensor& other) const;
  bool allclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8,
                bool equal_nan = false) const;

  // ---- Reductions ----
  Tensor sum(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor sum(IntArrayRef dim, bool keepdim = false,
             std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(IntArrayRef dim, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(int64_t dim, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor max() const;
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  Tensor max(const Tensor& other) const { return maximum(other); }
  Tensor min() const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor min(const Tensor& other) const { return minimum(other); }
  Tensor amax(IntArrayRef dim = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dim = {}, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  // As LibTorch's overloads (see var() in ops/reduction.h): `var(1)` reduces dim 1 (an int64_t
  // dim too, which LibTorch finds ambiguous).
  Tensor var(bool unbiased = true) const;
  Tensor var(OptionalIntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  Tensor var(OptionalIntArrayRef dim, std::optional<double> correction, bool keepdim = false) const;
  template <class I, class = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
  Tensor var(I dim) const {
    return var(OptionalIntArrayRef(static_cast<int64_t>(dim)));
  }
  Tensor std(bool unbiased = true) const;
  Tensor std(OptionalIntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  Tensor std(OptionalIntArrayRef dim, std::optional<double> correction, bool keepdim = false) const;
  template <class I, class = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
  Tensor std(I dim) const {
    return std(OptionalIntArrayRef(static_cast<int64_t>(dim)));
  }
  Tensor norm(const Scalar& p = 2) const;
  Tensor norm(const Scalar& p, IntArrayRef dim, bool keepdim = false) const;
  Tensor logsumexp(IntArrayRef dim, bool keepdim = false) const;
  Tensor softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor log_softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor cumsum(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor cumprod(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor all() const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor any() const;
  Tensor any(int64_t dim, bool keepdim = false) const;
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true,
                                  bool sorted = true) const;
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  Tensor median() const;
  std::tuple<Tensor, Tensor> median(int64_t dim, bool keepdim = false) const;

  // ---- Linear algebra ----
  Tensor mm(const Tensor& mat2) const;
  Tensor bmm(const Tensor& mat2) const;
  Tensor matmul(const Tensor& other) const;
  Tensor mv(const Tensor& vec) const;
  Tensor dot(const Tensor& other) const;
  Tensor outer(const Tensor& vec2) const;
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;
  Tensor baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                 const Scalar& alpha = 1) const;

  // ---- Operators ----
  Tensor operator-() const { return neg(); }
  Tensor operator~() const { return bitwise_not(); }
  const Tensor& operator+=(const Tensor& o) const { return add_(o); }
  const Tensor& operator+=(const Scalar& o) const { return add_(o); }
  const Tensor& operator-=(const Tensor& o) const { return sub_(o); }
  const Tensor& operator-=(const Scalar& o) const { return sub_(o); }
  const Tensor& operator*=(const Tensor& o) const { return mul_(o); }
  const Tensor& operator*=(const Scalar& o) const { return mul_(o); }
  const Tensor& operator/=(const Tensor& o) const { return div_(o); }
  const Tensor& operator/=(const Scalar& o) const { return div_(o); }

 private:
  /// The impl of a defined tensor; an Error naming `what` (the method) for an undefined one, where
  /// dereferencing would crash.
  TensorImpl* checked_impl(const char* what) const {
    if (EMBER_UNLIKELY(!impl_)) throw_undefined(what);
    return impl_.get();
  }
  [[noreturn]] static void throw_undefined(const char* what);

  unsigned register_grad_hook(std::function<Tensor(const Tensor&)> hook) const;
  TensorImpl* impl_checked() const;
  void check_dtype_for_access(ScalarType requested, const char* what) const;
  void check_accessor(ScalarType requested, size_t n) const;
  /// A copy made while a clone is in progress on this thread: take the clone's tensor instead.
  void remap_copy();
  intrusive_ptr<TensorImpl> impl_;
};

// ---- Binary operators: tensor-tensor, tensor-scalar and scalar-tensor ----
#define EMBER_DECLARE_OPERATOR(op, fn)                            \
  EMBER_API Tensor operator op(const Tensor& a, const Tensor& b); \
  EMBER_API Tensor operator op(const Tensor& a, const Scalar& b); \
  EMBER_API Tensor operator op(const Scalar& a, const Tensor& b);
EMBER_DECLARE_OPERATOR(+, add)
EMBER_DECLARE_OPERATOR(-, sub)
EMBER_DECLARE_OPERATOR(*, mul)
EMBER_DECLARE_OPERATOR(/, div)
EMBER_DECLARE_OPERATOR(%, remainder)
EMBER_DECLARE_OPERATOR(==, eq)
EMBER_DECLARE_OPERATOR(!=, ne)
EMBER_DECLARE_OPERATOR(<, lt)
EMBER_DECLARE_OPERATOR(<=, le)
EMBER_DECLARE_OPERATOR(>, gt)
EMBER_DECLARE_OPERATOR(>=, ge)
EMBER_DECLARE_OPERATOR(&, bitwise_and)
EMBER_DECLARE_OPERATOR(|, bitwise_or)
EMBER_DECLARE_OPERATOR(^, bitwise_xor)
#undef EMBER_DECLARE_OPERATOR

/// Prints in LibTorch's format: the values, then "[ CPUFloatType{2,3} ]".
EMBER_API std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace ember
