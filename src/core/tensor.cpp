// Tensor's non-op members: geometry queries, options, typed-access checks.
#include "ember/core/tensor.h"

#include <sstream>

#include "src/core/check.h"

namespace ember {

namespace detail {
std::atomic<int> active_tensor_remaps{0};
namespace {
thread_local TensorRemapFn t_remap_fn = nullptr;
thread_local void* t_remap_context = nullptr;
}  // namespace

std::pair<TensorRemapFn, void*> set_thread_tensor_remap(TensorRemapFn fn, void* context) {
  std::pair<TensorRemapFn, void*> previous{t_remap_fn, t_remap_context};
  t_remap_fn = fn;
  t_remap_context = context;
  return previous;
}
}  // namespace detail

void Tensor::remap_copy() {
  if (!impl_ || !detail::t_remap_fn) return;
  if (TensorImpl* clone = detail::t_remap_fn(detail::t_remap_context, impl_.get()))
    impl_ = intrusive_ptr<TensorImpl>(clone);  // takes a new reference
}

namespace {
int64_t wrap(int64_t d, int64_t n, const char* what) {
  int64_t m = n == 0 ? 1 : n;
  EMBER_CHECK_INDEX(d >= -m && d < m,
                    "{}: dimension out of range: expected to be in range of [{}, {}], but got {}",
                    what, -m, m - 1, d);
  return d < 0 ? d + m : d;
}
}  // namespace

void Tensor::throw_undefined(const char* what) {
  EMBER_FAIL("{}: called on an undefined tensor. Hint: initialise it first", what);
}

int64_t Tensor::size(int64_t d) const {
  EMBER_CHECK(defined(), "size: called on an undefined tensor");
  EMBER_CHECK_INDEX(dim() > 0, "size: dimension specified as {} but tensor has no dimensions", d);
  return sizes()[wrap(d, dim(), "size")];
}

int64_t Tensor::stride(int64_t d) const {
  EMBER_CHECK(defined(), "stride: called on an undefined tensor");
  EMBER_CHECK_INDEX(dim() > 0, "stride: dimension specified as {} but tensor has no dimensions", d);
  return strides()[wrap(d, dim(), "stride")];
}

TensorOptions Tensor::options() const {
  return TensorOptions().dtype(dtype()).device(device()).requires_grad(false);
}

std::string Tensor::toString() const {
  if (!defined()) return "UndefinedType";
  std::string dev = is_cuda() ? "CUDA" : "CPU";
  return dev + type_name(dtype()) + "Type";
}

TensorImpl* Tensor::impl_checked() const {
  EMBER_CHECK(defined(), "tensor: the tensor is undefined");
  return impl_.get();
}

void Tensor::check_dtype_for_access(ScalarType requested, const char* what) const {
  EMBER_CHECK(defined(), "{}: called on an undefined tensor", what);
  EMBER_CHECK_TYPE(requested == dtype(),
                   "{}: expected scalar type {} but found {}. Hint: convert with .to({})", what,
                   requested, dtype(), requested);
}

void Tensor::check_accessor(ScalarType requested, size_t n) const {
  check_dtype_for_access(requested, "accessor");
  EMBER_CHECK(static_cast<int64_t>(n) == dim(),
              "accessor: TensorAccessor expected {} dims but tensor has {}", n, dim());
  EMBER_CHECK(is_cpu(), "accessor: only CPU tensors can be accessed element by element, got {}",
              device());
}

}  // namespace ember
