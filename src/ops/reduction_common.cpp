#include "src/ops/reduction_common.h"

#include "ember/ops/factory.h"

namespace ember {

DimMask all_dims_mask(int64_t ndim) { return ndim >= 64 ? ~DimMask(0) : (DimMask(1) << ndim) - 1; }

DimMask make_dim_mask(IntArrayRef dims, int64_t ndim, const char* op) {
  EMBER_CHECK(ndim <= kMaxLoopDims,
              "{}: at most {} dims are supported, got a tensor with {}. Hint: reshape it first", op,
              kMaxLoopDims, ndim);
  if (dims.empty()) return all_dims_mask(ndim);
  DimMask mask = 0;
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, ndim, op);
    EMBER_CHECK(!(mask >> w & 1),
                "{}: dim {} appears multiple times in the list of dims: {}. Hint: list each dim "
                "once",
                op, w, dims);
    mask |= DimMask(1) << w;
  }
  // A 0-dim tensor accepts dim 0/-1 but has no dim to reduce.
  return ndim == 0 ? 0 : mask;
}

DimVector reduced_shape(IntArrayRef sizes, DimMask mask, bool keepdim) {
  DimVector out;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!(mask >> d & 1))
      out.push_back(sizes[d]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

int64_t reduced_numel(IntArrayRef sizes, DimMask mask) {
  int64_t n = 1;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (mask >> d & 1) n *= sizes[d];
  return n;
}

void check_nonempty_reduction(const Tensor& self, DimMask mask, bool all_dims, const char* op) {
  if (self.numel() != 0) return;
  EMBER_CHECK(!all_dims,
              "{}: expected reduction dim to be specified for input.numel() == 0 (input shape {}). "
              "Hint: specify the reduction dim with the 'dim' argument",
              op, self.sizes());
  for (int64_t d = 0; d < self.dim(); ++d)
    EMBER_CHECK_INDEX(!(mask >> d & 1) || self.sizes()[d] != 0,
                      "{}: expected reduction dim {} to have non-zero size (input shape {}). Hint: "
                      "this reduction has no identity, so it cannot reduce an empty dim",
                      op, d, self.sizes());
}

namespace {
struct LoopDim {
  int64_t size, in_stride, out_stride;
};

// Orders dims innermost-first by input stride (insertion sort: at most 16 dims), then merges a
// dim into its inner neighbour when the pair walks memory as one dim.
int coalesce(LoopDim* dims, int n, bool with_out) {
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && dims[j].in_stride < dims[j - 1].in_stride; --j)
      std::swap(dims[j], dims[j - 1]);
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (m > 0) {
      LoopDim& prev = dims[m - 1];
      if (dims[i].in_stride == prev.in_stride * prev.size &&
          (!with_out || dims[i].out_stride == prev.out_stride * prev.size)) {
        prev.size *= dims[i].size;
        continue;
      }
    }
    dims[m++] = dims[i];
  }
  return m;
}
}  // namespace

void run_reduction(OpId op, const Tensor& self, DimMask mask, bool keepdim, const Tensor& out0,
                   const Tensor* out1, const OpScalars& scalars) {
  using Kernel = void (*)(const ReduceLoop&);
  Kernel kernel = get_kernel<Kernel>(op, self.device().type(), self.dtype());
  const int64_t nd = self.dim();
  EMBER_CHECK(nd <= kMaxLoopDims, "{}: at most {} dims are supported, got {}", op_name(op),
              kMaxLoopDims, nd);
  const int64_t item = self.element_size();
  // out0 may be undefined (argmax writes indices only); the outputs share one shape.
  const Tensor& shape_ref = out0.defined() ? out0 : *out1;
  LoopDim kept[kMaxLoopDims], red[kMaxLoopDims];
  int nk = 0, nr = 0;
  int64_t od = 0, red_numel = 1;
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t size = self.sizes()[d], stride = self.strides()[d] * item;
    if (mask >> d & 1) {
      red_numel *= size;
      if (size != 1) red[nr++] = {size, stride, 0};
      if (keepdim) ++od;
    } else {
      if (size != 1) kept[nk++] = {size, stride, shape_ref.strides()[od]};
      ++od;
    }
  }
  nk = coalesce(kept, nk, true);
  nr = coalesce(red, nr, false);
  if (nk == 0) kept[nk++] = {1, 0, 0};
  if (nr == 0) red[nr++] = {1, item, 0};

  ReduceLoop L;
  L.out_ndim = nk;
  for (int i = 0; i < nk; ++i) {
    L.out_sizes[i] = kept[i].size;
    L.out_in_strides[i] = kept[i].in_stride;
    L.out_strides[i] = kept[i].out_stride;
  }
  L.red_ndim = nr;
  for (int i = 0; i < nr; ++i) {
    L.red_sizes[i] = red[i].size;
    L.red_strides[i] = red[i].in_stride;
  }
  L.out_numel = shape_ref.numel();
  L.red_numel = red_numel;
  L.in = static_cast<const char*>(self.data_ptr());
  L.in_dtype = self.dtype();
  if (out0.defined()) {
    L.out[0] = static_cast<char*>(out0.data_ptr());
    L.out_dtype[0] = out0.dtype();
  }
  if (out1 && out1->defined()) {
    L.out[1] = static_cast<char*>(out1->data_ptr());
    L.out_dtype[1] = out1->dtype();
  }
  L.scalars = scalars;
  if (L.out_numel == 0) return;
  kernel(L);
}

Tensor reduce_into_new(OpId op, const Tensor& self, DimMask mask, bool keepdim,
                       ScalarType out_dtype, const OpScalars& scalars) {
  Tensor out = empty(reduced_shape(self.sizes(), mask, keepdim),
                     TensorOptions().dtype(out_dtype).device(self.device()));
  run_reduction(op, self, mask, keepdim, out, nullptr, scalars);
  return out;
}

DimLoop make_dim_loop(const Tensor& c, int64_t dim) {
  DimLoop L;
  for (int64_t d = 0; d < c.dim(); ++d) {
    if (d < dim)
      L.outer *= c.sizes()[d];
    else if (d == dim)
      L.size = c.sizes()[d];
    else
      L.inner *= c.sizes()[d];
  }
  L.in = static_cast<const char*>(c.data_ptr());
  L.in_dtype = c.dtype();
  return L;
}

void run_dim_kernel(OpId op, Device device, const DimLoop& loop) {
  using Kernel = void (*)(const DimLoop&);
  get_kernel<Kernel>(op, device.type(), loop.in_dtype)(loop);
}

}  // namespace ember
