// Helpers the indexing ops share (src/ops/indexing.cpp, src/ops/indexing_scatter.cpp): operand
// restriding, argument checks and the calls into the index_gather / index_put kernel slots of the
// operands' device. Private to the library.
#pragma once

#include "ember/core/tensor.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "kernels/cpu/index_kernels.h"
#include "src/ops/op_common.h"

namespace ember::index_detail {
inline const Device kHost(kCPU);

inline Tensor restrided(const Tensor& self, IntArrayRef sizes, IntArrayRef strides) {
  TensorImpl* impl = self.unsafeGetTensorImpl();
  return Tensor(make_intrusive<TensorImpl>(impl->storage(), impl->dtype(), sizes, strides,
                                           impl->storage_offset()));
}
// 0-dim tensors index like 1-element 1-D ones (PyTorch's ensure_nonempty_dim); a view, so writes
// reach self.
inline Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? t.unsqueeze(0) : t; }
inline bool shares_storage(const Tensor& a, const Tensor& b) {
  return a.unsafeGetTensorImpl()->storage() == b.unsafeGetTensorImpl()->storage();
}

// Whether `from` expands to `to` without growing `to`.
inline bool broadcasts_to(IntArrayRef from, IntArrayRef to) {
  if (from.size() > to.size()) return false;
  for (size_t i = 0; i < from.size(); ++i) {
    const int64_t have = from[from.size() - 1 - i], want = to[to.size() - 1 - i];
    if (have != want && have != 1) return false;
  }
  return true;
}

inline void check_index_dtype(const Tensor& index, const char* op) {
  EMBER_CHECK_TYPE(index.dtype() == kLong,
                   "{}: expected an int64 index tensor, got {}. Hint: convert it with "
                   ".to(ember::kLong)",
                   op, index.dtype());
}
inline void check_bool_mask(const Tensor& mask, const char* op) {
  EMBER_CHECK_TYPE(mask.dtype() == kBool,
                   "{}: expected a bool mask, got {}. Hint: build it with a comparison (x > 0) "
                   "or .to(ember::kBool)",
                   op, mask.dtype());
}

// Checks every index value against [-size, size) (wrap) or [0, size), naming the first offender
// and the operands (`self`, the indexed tensor, and the index as given). A device index is
// checked by its amin/amax on the device (two values cross to the host); only when one is out of
// range does the index itself come over, to name the first offender.
inline void check_range(const Tensor& index, int64_t size, bool wrap, int64_t dim, const char* op,
                        const Tensor& self) {
  if (index.numel() == 0) return;
  int64_t lo = 0, hi = 0;
  Tensor c;
  if (index.is_cpu()) {
    c = index.contiguous();
    kernels::cpu_min_max(c.data_ptr<int64_t>(), c.numel(), &lo, &hi);
  } else {
    Tensor bounds = stack({amin(index), amax(index)}).to(kHost);
    lo = bounds.data_ptr<int64_t>()[0];
    hi = bounds.data_ptr<int64_t>()[1];
  }
  const int64_t min_ok = wrap ? -size : 0;
  if (lo >= min_ok && hi < size) return;
  if (!c.defined()) c = index.to(kHost).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  for (int64_t i = 0; i < c.numel(); ++i)
    EMBER_CHECK_INDEX(p[i] >= min_ok && p[i] < size,
                      "{}: index {} is out of bounds for dimension {} with size {} (self: {} of "
                      "sizes {}; index: {} of sizes {})",
                      op, p[i], dim, size, self.dtype(), self.sizes(), index.dtype(),
                      index.sizes());
}

// `strides` with dim d set to 0.
inline DimVector without_dim(IntArrayRef strides, int64_t d) {
  DimVector s(strides);
  s[d] = 0;
  return s;
}
// Strides that lay a 1-D index with stride `stride` along dim d of an ndim-dim iteration space.
inline DimVector along_dim(int64_t ndim, int64_t d, int64_t stride) {
  DimVector s(ndim, 0);
  s[d] = stride;
  return s;
}

// Kernel parameters: element offset = (v < 0 ? v + wrap : v) * stride.
inline OpScalars index_params(int64_t stride, int64_t wrap = 0) {
  OpScalars s;
  s.i[0] = stride;
  s.i[1] = wrap;
  return s;
}

// out[i] = src[i][offset(index[i])] on the operands' device. The ops check devices first, naming
// the user's operands; the check here is the backstop before pointers of two devices meet.
inline void run_gather(const Tensor& out, const Tensor& src, const Tensor& index,
                       const OpScalars& p) {
  check_same_device({&out, &src, &index}, "index_gather");
  const auto kernel = get_kernel<OpId::index_gather>(out.device().type(), out.dtype());
  if (out.numel() == 0) return;
  kernel(make_elementwise_loop(out, {&src, &index}, p, out.dtype()));
}
// dst[i][offset(index[i])] = (or +=) values[i] on the operands' device.
inline void run_put(const Tensor& dst, const Tensor& values, const Tensor& index,
                    const OpScalars& p, bool accumulate) {
  check_same_device({&dst, &values, &index}, "index_put");
  const auto kernel = get_kernel<OpId::index_put>(dst.device().type(), dst.dtype());
  if (dst.numel() == 0) return;
  kernel(make_elementwise_loop(dst, {&values, &index}, p, dst.dtype()), accumulate);
}
}  // namespace ember::index_detail
