#include "src/ops/op_common.h"

#include <algorithm>
#include <cstring>

#include "ember/autograd/grad_mode.h"
#include "ember/core/warning.h"
#include "ember/ops/factory.h"
#include "kernels/common/unary_functors.h"
#include "src/core/checked_math.h"

namespace ember {

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t n = ndim == 0 ? 1 : ndim;  // a 0-dim tensor accepts dim 0 and -1, as PyTorch
  EMBER_CHECK_INDEX(dim >= -n && dim < n,
                    "{}: dimension out of range: expected to be in range of [{}, {}], but got {}",
                    op, -n, n - 1, dim);
  return dim < 0 ? dim + n : dim;
}

DimVector broadcast_shape(IntArrayRef a, IntArrayRef b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    EMBER_CHECK(da == db || da == 1 || db == 1,
                "{}: shapes cannot be broadcast: {} and {} differ in dim {} ({} vs {}). Hint: "
                "sizes must match or be 1, aligned from the last dim",
                op, a, b, i, da, db);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace {
int category(ScalarType t) { return t == kBool ? 0 : (is_integral(t, false) ? 1 : 2); }
// Keeps `higher` unless `lower` belongs to a higher category (PyTorch's combine_categories).
ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (higher == ScalarType::Undefined) return lower;
  if (lower == ScalarType::Undefined) return higher;
  if (is_floating_point(higher)) return higher;
  if (higher == kBool || category(lower) > category(higher)) return promote_types(higher, lower);
  return higher;
}
}  // namespace

ScalarType result_type_of(std::initializer_list<const Tensor*> tensors,
                          std::initializer_list<const Scalar*> scalars) {
  ScalarType dim_result = ScalarType::Undefined, zero_result = ScalarType::Undefined,
             wrapped_result = ScalarType::Undefined;
  for (const Tensor* t : tensors) {
    if (!t || !t->defined()) continue;
    ScalarType& r = t->dim() > 0 ? dim_result : zero_result;
    r = promote_types(r, t->dtype());
  }
  for (const Scalar* s : scalars) {
    if (!s) continue;
    ScalarType st = s->isFloatingPoint() ? get_default_dtype() : s->type();
    wrapped_result = promote_types(wrapped_result, st);
  }
  return combine_categories(dim_result, combine_categories(zero_result, wrapped_result));
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating_point(from) && is_integral(to, true)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

Tensor cast_to(const Tensor& self, ScalarType dtype) {
  return self.dtype() == dtype ? self : self.to(dtype);
}

Tensor scalar_to_tensor(const Scalar& s, ScalarType dtype, Device device) {
  return full({}, s, TensorOptions().dtype(dtype).device(device));
}

void check_defined(const Tensor& t, const char* op, const char* arg) {
  EMBER_CHECK(t.defined(), "{}: argument '{}' is an undefined tensor. Hint: initialise it first",
              op, arg);
}

void check_no_internal_overlap(const Tensor& t, const char* op) {
  for (int64_t d = 0; d < t.dim(); ++d) {
    EMBER_CHECK(t.stride(d) != 0 || t.size(d) <= 1,
                "{}: unsupported operation: more than one element of the written-to tensor "
                "refers to a single memory location (sizes {}, strides {}: dim {} has stride 0). "
                "Hint: clone() the tensor before writing to it",
                op, t.sizes(), t.strides(), d);
  }
}

void check_same_device(std::initializer_list<const Tensor*> tensors, const char* op) {
  const Tensor* first = nullptr;
  for (const Tensor* t : tensors) {
    if (!t->defined()) continue;
    if (!first) {
      first = t;
      continue;
    }
    EMBER_CHECK(t->device().type() == first->device().type(),
                "{}: expected all tensors to be on the same device, but found at least two "
                "devices, {} and {}. Hint: move them with .to(device)",
                op, first->device(), t->device());
  }
}

ScalarBuffer::ScalarBuffer(const Scalar& s, ScalarType dtype) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    static_assert(sizeof(T) <= sizeof(bytes));
    const T v =
        s.isFloatingPoint() ? kernels::CastTo<T>{}(s.toDouble()) : kernels::CastTo<T>{}(s.toLong());
    std::memcpy(bytes, &v, sizeof(T));
  });
}

ElementwiseLoop make_elementwise_loop(const Tensor& out,
                                      std::initializer_list<const Tensor*> inputs,
                                      const OpScalars& scalars, ScalarType compute_dtype,
                                      const void* scalar) {
  ElementwiseLoop L;
  L.noperands = 1 + static_cast<int>(inputs.size());
  L.numel = out.numel();
  L.dtype = compute_dtype;
  L.out_dtype = out.dtype();
  L.scalars = scalars;
  const int64_t nd = out.dim();
  EMBER_CHECK(nd <= kMaxLoopDims, "elementwise: at most {} dims are supported, got {}",
              kMaxLoopDims, nd);
  // Innermost first, byte strides, broadcast dims get stride 0.
  const Tensor* ops[kMaxOperands];
  ops[0] = &out;
  int k = 1;
  for (const Tensor* t : inputs) ops[k++] = t;
  int64_t sizes[kMaxLoopDims];
  int64_t strides[kMaxOperands][kMaxLoopDims];
  for (int64_t d = 0; d < nd; ++d) sizes[d] = out.sizes()[nd - 1 - d];
  for (int op = 0; op < L.noperands; ++op) {
    if (!ops[op]) {  // the wrapped scalar: every stride 0
      L.data[op] = static_cast<char*>(const_cast<void*>(scalar));
      for (int64_t d = 0; d < nd; ++d) strides[op][d] = 0;
      continue;
    }
    const Tensor& t = *ops[op];
    L.data[op] = static_cast<char*>(t.data_ptr());
    const int64_t td = t.dim(), item = t.element_size();
    for (int64_t d = 0; d < nd; ++d) {
      int64_t s = 0;
      if (d < td) {
        int64_t src = td - 1 - d;
        s = t.sizes()[src] == 1 ? 0 : t.strides()[src] * item;
      }
      strides[op][d] = s;
    }
  }
  // Drop size-1 dims and merge dims that are contiguous with their inner neighbour everywhere.
  int nout = 0;
  for (int64_t d = 0; d < nd; ++d) {
    if (sizes[d] == 1) continue;
    if (nout > 0) {
      bool merge = true;
      for (int op = 0; op < L.noperands; ++op)
        if (strides[op][d] != L.strides[op][nout - 1] * L.sizes[nout - 1]) merge = false;
      if (merge) {
        L.sizes[nout - 1] *= sizes[d];
        continue;
      }
    }
    L.sizes[nout] = sizes[d];
    for (int op = 0; op < L.noperands; ++op) L.strides[op][nout] = strides[op][d];
    ++nout;
  }
  L.ndim = nout;
  bool dense = nout <= 1;
  for (int op = 0; op < L.noperands && dense; ++op)
    if (nout == 1 && (!ops[op] || L.strides[op][0] != ops[op]->element_size())) dense = false;
  L.contiguous = dense;
  return L;
}

void run_elementwise(OpId op, const Tensor& out, std::initializer_list<const Tensor*> inputs,
                     ScalarType compute_dtype, const OpScalars& scalars, const void* scalar) {
  const auto k = get_kernel<kernel_kind::Elementwise>(op, out.device().type(), compute_dtype);
  if (out.numel() == 0) return;
  ElementwiseLoop L = make_elementwise_loop(out, inputs, scalars, compute_dtype, scalar);
  k(L);
}

void check_inference_write(const Tensor& t, const char* op) {
  if (InferenceMode::is_enabled()) return;
  throw Error(fmt::format(
      "{}: an in-place update to an inference tensor (shape {}, made under InferenceMode) outside "
      "InferenceMode is not allowed. Hint: update it inside an InferenceMode guard, or clone it "
      "to get a normal tensor",
      op, t.sizes()));
}

void resize_output(const Tensor& out, IntArrayRef sizes, const char* op) {
  check_defined(out, op, "out");
  if (out.sizes() == sizes) return;
  // LibTorch resizes any out, but warns when it held elements: PyTorch means to stop resizing
  // those, and a mismatched out is usually a bug the caller wants to hear about.
  if (out.numel() != 0)
    EMBER_WARN(op, ": an out tensor of shape ", out.sizes(), " with elements was resized to ",
               sizes,
               ". Resizing non-empty outputs is deprecated; pass an out of the result's shape, "
               "or empty it first with out.resize_({0})");
  set_shape_keeping_storage(out, sizes, op);
}

void set_shape_keeping_storage(const Tensor& t, IntArrayRef sizes, const char* op) {
  for (int64_t s : sizes)
    EMBER_CHECK_VALUE(s >= 0, "{}: sizes must be non-negative, got {}", op, sizes);
  const int64_t n = detail::checked_numel(sizes, op);
  const int64_t bytes = static_cast<int64_t>(
      detail::checked_nbytes(n, static_cast<int64_t>(t.element_size()), sizes, op));
  TensorImpl* impl = t.unsafeGetTensorImpl();
  const int64_t offset_bytes = impl->storage_offset() * static_cast<int64_t>(t.element_size());
  if (bytes <= static_cast<int64_t>(impl->storage()->nbytes()) - offset_bytes) {
    impl->set_geometry(sizes, contiguous_strides(sizes), impl->storage_offset());
    return;
  }
  auto storage = make_storage(static_cast<size_t>(bytes), t.device());
  impl->set_storage(std::move(storage), t.dtype(), sizes, contiguous_strides(sizes), 0);
}

const Tensor& assign_out(const Tensor& out, const Tensor& result, const char* op,
                         const char* name) {
  check_out_like(out, result, op, name);
  resize_output(out, result.sizes(), op);
  out.copy_(result);
  return out;
}

void check_out_like(const Tensor& out, const Tensor& result, const char* op, const char* name) {
  check_defined(out, op, name);
  EMBER_CHECK(out.device() == result.device(),
              "{}: expected {} to be on {}, the inputs' device, but got {}", op, name,
              result.device(), out.device());
  EMBER_CHECK_TYPE(can_cast(result.dtype(), out.dtype()),
                   "{}: result type {} can't be cast to the desired output type {}", op,
                   result.dtype(), out.dtype());
}

}  // namespace ember
