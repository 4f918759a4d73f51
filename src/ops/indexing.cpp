// Indexing: Tensor::index / index_put_ with LibTorch's TensorIndex lists, and the gather/scatter
// family (index_select, gather, scatter, scatter_add, index_add, masked_fill, masked_select,
// nonzero, take).
//
// Every gather-like op reduces to one shape: an output, the input restrided over the output's
// shape (stride 0 along the indexed dims) and an int64 index, also laid over the output's shape.
// The loop reads src[i] + index[i] * stride; scatters go the other way. Indices are bounds-checked
// on the host before a kernel runs, so the kernels are pure memory moves; the index tensor is read
// in place (no offsets array) unless several index tensors must be summed into one.
//
// The kernels are CPU loops; tensors on other devices take one round trip through host memory
// until device kernels exist.
#include <string>
#include <string_view>

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/shape.h"
#include "kernels/cpu/index_kernels.h"
#include "src/ops/op_common.h"

namespace ember {

TensorIndex::TensorIndex(const char* s) : kind_(Kind::Ellipsis) {
  EMBER_CHECK(s != nullptr && std::string_view(s) == "...",
              "TensorIndex: expected \"...\" to represent an ellipsis, but got \"{}\". Hint: use "
              "ember::indexing::Ellipsis or \"...\"",
              s ? s : "(null)");
}

namespace {

const Device kHost(kCPU);

Tensor restrided(const Tensor& self, IntArrayRef sizes, IntArrayRef strides) {
  TensorImpl* impl = self.unsafeGetTensorImpl();
  return Tensor(make_intrusive<TensorImpl>(impl->storage(), impl->dtype(), sizes, strides,
                                           impl->storage_offset()));
}
Tensor alias(const Tensor& self) { return restrided(self, self.sizes(), self.strides()); }
// 0-dim tensors index like 1-element 1-D ones (PyTorch's ensure_nonempty_dim); a view, so writes
// reach self.
Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? t.unsqueeze(0) : t; }
bool shares_storage(const Tensor& a, const Tensor& b) {
  return a.unsafeGetTensorImpl()->storage() == b.unsafeGetTensorImpl()->storage();
}

// Whether `from` expands to `to` without growing `to`.
bool broadcasts_to(IntArrayRef from, IntArrayRef to) {
  if (from.size() > to.size()) return false;
  for (size_t i = 0; i < from.size(); ++i) {
    const int64_t have = from[from.size() - 1 - i], want = to[to.size() - 1 - i];
    if (have != want && have != 1) return false;
  }
  return true;
}

void check_index_dtype(const Tensor& index, const char* op) {
  EMBER_CHECK_TYPE(index.dtype() == kLong,
                   "{}: expected an int64 index tensor, got {}. Hint: convert it with "
                   ".to(ember::kLong)",
                   op, index.dtype());
}
void check_bool_mask(const Tensor& mask, const char* op) {
  EMBER_CHECK_TYPE(mask.dtype() == kBool,
                   "{}: expected a bool mask, got {}. Hint: build it with a comparison (x > 0) "
                   "or .to(ember::kBool)",
                   op, mask.dtype());
}

// Checks every index value against [-size, size) (wrap) or [0, size), naming the first offender.
void check_range(const Tensor& index, int64_t size, bool wrap, int64_t dim, const char* op) {
  if (index.numel() == 0) return;
  Tensor c = index.contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  int64_t lo = 0, hi = 0;
  kernels::cpu_min_max(p, c.numel(), &lo, &hi);
  const int64_t min_ok = wrap ? -size : 0;
  if (lo >= min_ok && hi < size) return;
  for (int64_t i = 0; i < c.numel(); ++i)
    EMBER_CHECK_INDEX(p[i] >= min_ok && p[i] < size,
                      "{}: index {} is out of bounds for dimension {} with size {}", op, p[i], dim,
                      size);
}

// `strides` with dim d set to 0.
DimVector without_dim(IntArrayRef strides, int64_t d) {
  DimVector s(strides);
  s[d] = 0;
  return s;
}
// Strides that lay a 1-D index with stride `stride` along dim d of an ndim-dim iteration space.
DimVector along_dim(int64_t ndim, int64_t d, int64_t stride) {
  DimVector s(ndim, 0);
  s[d] = stride;
  return s;
}

// Kernel parameters: element offset = (v < 0 ? v + wrap : v) * stride.
OpScalars index_params(int64_t stride, int64_t wrap = 0) {
  OpScalars s;
  s.i[0] = stride;
  s.i[1] = wrap;
  return s;
}

void run_gather(const Tensor& out, const Tensor& src, const Tensor& index, const OpScalars& p) {
  if (out.numel() == 0) return;
  kernels::cpu_index_gather(make_elementwise_loop(out, {&src, &index}, p, out.dtype()));
}
void run_put(const Tensor& dst, const Tensor& values, const Tensor& index, const OpScalars& p,
             bool accumulate) {
  if (dst.numel() == 0) return;
  kernels::cpu_index_put(make_elementwise_loop(dst, {&values, &index}, p, dst.dtype()), accumulate);
}

// ---- Tensor::index and index_put_ ----

// An advanced index found by the basic pass: the dim of the sliced tensor where it starts and
// the tensor (an int64 index acts on one dim, a bool mask on mask.dim() dims).
struct TensorEntry {
  int64_t dim;
  Tensor index;
};
struct BasicResult {
  Tensor view;  // self after integers, slices, None and Ellipsis: a view
  std::vector<TensorEntry> tensors;
};

Tensor bool_as_index(bool b) { return b ? zeros({1}, kLong) : empty({0}, kLong); }
bool is_mask(const Tensor& t) { return t.dtype() == kBool || t.dtype() == kByte; }

// Applies integers, slices, None and Ellipsis as views, left to right, and collects the tensor
// indices. Bool masks consume mask.dim() dims (numpy's rule; PyTorch 1.13 advances one dim per
// mask, which misplaces a following index, pytorch/pytorch#71673).
BasicResult apply_basic(const Tensor& self, ArrayRef<TensorIndex> indices, const char* op) {
  int64_t specified = 0;
  bool ellipsis = false;
  for (const TensorIndex& ix : indices) {
    if (ix.is_integer() || ix.is_slice()) {
      ++specified;
    } else if (ix.is_tensor()) {
      const Tensor& t = ix.tensor();
      EMBER_CHECK(t.defined(), "{}: an index tensor is undefined", op);
      specified += is_mask(t) ? t.dim() : 1;
    } else if (ix.is_ellipsis()) {
      EMBER_CHECK_INDEX(!ellipsis, "{}: an index can only have a single ellipsis ('...')", op);
      ellipsis = true;
    }
  }
  EMBER_CHECK_INDEX(specified <= self.dim(),
                    "{}: too many indices for tensor of dimension {}: the index list uses {} "
                    "dims",
                    op, self.dim(), specified);
  BasicResult r{alias(self), {}};
  int64_t dim = 0, real_dim = 0;  // next dim of r.view, and the matching dim of self
  auto select = [&](int64_t i) {
    const int64_t n = r.view.size(dim);
    EMBER_CHECK_INDEX(i >= -n && i < n,
                      "{}: index {} is out of bounds for dimension {} with size {}", op, i,
                      real_dim, n);
    r.view = r.view.select(dim, i);
    ++real_dim;
  };
  auto bool_index = [&](bool b) {
    r.view = r.view.unsqueeze(dim);
    r.tensors.push_back({dim++, bool_as_index(b)});
  };
  for (const TensorIndex& ix : indices) {
    switch (ix.kind()) {
      case TensorIndex::Kind::Integer:
        select(ix.integer());
        break;
      case TensorIndex::Kind::Slice: {
        const indexing::Slice& s = ix.slice();
        EMBER_CHECK_VALUE(s.step() > 0, "{}: slice step must be greater than zero, got {}", op,
                          s.step());
        r.view = r.view.slice(dim++, s.start(), s.stop(), s.step());
        ++real_dim;
        break;
      }
      case TensorIndex::Kind::None:
        r.view = r.view.unsqueeze(dim++);
        break;
      case TensorIndex::Kind::Ellipsis:
        dim += self.dim() - specified;
        real_dim += self.dim() - specified;
        break;
      case TensorIndex::Kind::Boolean:
        bool_index(ix.boolean());
        break;
      case TensorIndex::Kind::Tensor: {
        const Tensor& t = ix.tensor();
        if (t.dim() == 0 && is_integral(t.dtype(), true)) {  // a 0-dim integer acts as a number
          if (is_mask(t))
            bool_index(t.item<bool>());
          else
            select(t.item<int64_t>());
        } else {
          r.tensors.push_back({dim, t});
          const int64_t used = is_mask(t) ? t.dim() : 1;
          dim += used;
          real_dim += used;
        }
        break;
      }
    }
  }
  return r;
}

// The advanced part of an index on a host tensor, numpy's rules: the index tensors (masks as
// their nonzero positions) broadcast together to index_shape; if the indexed dims are adjacent
// the result keeps them in place, else they go first.
struct AdvancedIndex {
  Tensor src;             // the indexed tensor, permuted so that the indexed dims are adjacent
  int64_t first = 0;      // first indexed dim of src
  int64_t count = 0;      // number of indexed dims
  DimVector index_shape;  // broadcast shape of the index tensors
  Tensor index;           // int64 [index_shape]; element offset = index_params applied to it
  OpScalars params;
  DimVector result_shape;  // src.sizes()[:first] + index_shape + src.sizes()[first + count:]

  // src over the result's shape, stride 0 along the index dims.
  Tensor src_over_result() const {
    DimVector strides;
    for (int64_t d = 0; d < first; ++d) strides.push_back(src.stride(d));
    for (size_t k = 0; k < index_shape.size(); ++k) strides.push_back(0);
    for (int64_t d = first + count; d < src.dim(); ++d) strides.push_back(src.stride(d));
    return restrided(src, result_shape, strides);
  }
  // index over the result's shape, stride 0 outside the index dims.
  Tensor index_over_result() const {
    DimVector strides(first, 0);
    for (int64_t s : index.strides()) strides.push_back(s);
    for (int64_t d = first + count; d < src.dim(); ++d) strides.push_back(0);
    return restrided(index, result_shape, strides);
  }
};

AdvancedIndex make_advanced(const Tensor& src, const std::vector<TensorEntry>& entries,
                            const char* op) {
  // Which dims the entries index (a mask covers mask.dim() dims), checking dtypes and mask shapes.
  std::vector<Tensor> host;
  std::vector<bool> indexed(src.dim(), false);
  for (const TensorEntry& e : entries) {
    Tensor t = e.index.to(kHost);
    if (is_mask(t)) {
      for (int64_t j = 0; j < t.dim(); ++j) {
        EMBER_CHECK_INDEX(t.size(j) == src.size(e.dim + j),
                          "{}: the shape of the mask {} at index {} does not match the shape of "
                          "the indexed tensor {} at index {}",
                          op, t.sizes(), j, src.sizes(), e.dim + j);
        indexed[e.dim + j] = true;
      }
      if (t.dtype() == kByte) t = t.to(kBool);
    } else {
      EMBER_CHECK_TYPE(t.dtype() == kLong,
                       "{}: tensors used as indices must be int64 or bool tensors, got {}. Hint: "
                       "convert with .to(ember::kLong)",
                       op, t.dtype());
      indexed[e.dim] = true;
    }
    host.push_back(t);
  }
  AdvancedIndex ai;
  std::vector<int64_t> dims, order;  // the indexed dims; src's dims in the result's order
  for (int64_t d = 0; d < src.dim(); ++d)
    if (indexed[d]) dims.push_back(d);
  ai.count = static_cast<int64_t>(dims.size());
  if (dims.empty() || dims.back() - dims.front() + 1 == ai.count) {
    ai.first = dims.empty() ? 0 : dims.front();
    for (int64_t d = 0; d < src.dim(); ++d) order.push_back(d);
    ai.src = src;
  } else {
    order = dims;
    for (int64_t d = 0; d < src.dim(); ++d)
      if (!indexed[d]) order.push_back(d);
    ai.src = src.permute(order);
  }
  std::vector<int64_t> pos(src.dim());  // where each dim of src went
  for (size_t i = 0; i < order.size(); ++i) pos[order[i]] = static_cast<int64_t>(i);

  // Each entry as (index, stride, wrap) in the permuted geometry; a mask becomes the offsets of
  // its true elements (order keeps a mask's dims adjacent).
  struct Part {
    Tensor index;
    int64_t stride, wrap;
  };
  std::vector<Part> parts;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Tensor& t = host[i];
    const int64_t p = pos[entries[i].dim];
    if (t.dtype() == kBool) {
      Tensor m = t.contiguous();
      const int64_t n = kernels::cpu_count_nonzero(m.data_ptr(), kBool, m.numel());
      Tensor off = empty({n + 1}, kLong);  // one spare entry for the branch-free loop
      kernels::cpu_mask_offsets(m.data_ptr<bool>(), m.sizes().data(), ai.src.strides().data() + p,
                                m.dim(), off.data_ptr<int64_t>());
      parts.push_back({off.narrow(0, 0, n), 1, 0});
    } else {
      check_range(t, ai.src.size(p), true, entries[i].dim, op);
      parts.push_back({t, ai.src.stride(p), ai.src.size(p)});
    }
  }
  std::string shapes;
  bool broadcastable = true;
  for (const Part& part : parts) {
    IntArrayRef s = part.index.sizes();
    shapes += (shapes.empty() ? "" : ", ") + fmt::format("{}", s);
    const size_t n = std::max(ai.index_shape.size(), s.size());
    const size_t pa = n - ai.index_shape.size(), pb = n - s.size();
    DimVector b(n);
    for (size_t i = 0; i < n; ++i) {
      const int64_t x = i < pa ? 1 : ai.index_shape[i - pa], y = i < pb ? 1 : s[i - pb];
      if (x != y && x != 1 && y != 1) broadcastable = false;
      b[i] = x == 1 ? y : x;
    }
    ai.index_shape = b;
  }
  EMBER_CHECK_INDEX(broadcastable,
                    "{}: shape mismatch: indexing tensors could not be broadcast together with "
                    "shapes {}",
                    op, shapes);
  if (parts.size() == 1) {  // the common case: the kernel reads the index tensor in place
    ai.index = parts[0].index;
    ai.params = index_params(parts[0].stride, parts[0].wrap);
  } else {  // none (an accumulating put with basic indices only), or several summed once
    ai.index = zeros(ai.index_shape, kLong);
    int64_t* acc = ai.index.data_ptr<int64_t>();
    for (const Part& part : parts) {
      Tensor v = part.index.expand(ai.index_shape).contiguous();
      const int64_t* p = v.data_ptr<int64_t>();
      for (int64_t i = 0; i < v.numel(); ++i)
        acc[i] += (p[i] < 0 ? p[i] + part.wrap : p[i]) * part.stride;
    }
    ai.params = index_params(1);
  }
  for (int64_t d = 0; d < ai.first; ++d) ai.result_shape.push_back(ai.src.size(d));
  for (int64_t s : ai.index_shape) ai.result_shape.push_back(s);
  for (int64_t d = ai.first + ai.count; d < ai.src.dim(); ++d)
    ai.result_shape.push_back(ai.src.size(d));
  return ai;
}

std::vector<TensorEntry> to_host(const std::vector<TensorEntry>& entries) {
  std::vector<TensorEntry> out;
  for (const TensorEntry& e : entries) out.push_back({e.dim, e.index.to(kHost)});
  return out;
}

Tensor advanced_gather(const Tensor& src, const std::vector<TensorEntry>& entries, const char* op) {
  if (!src.is_cpu()) return advanced_gather(src.to(kHost), to_host(entries), op).to(src.device());
  AdvancedIndex ai = make_advanced(src, entries, op);
  Tensor out = empty(ai.result_shape, src.options());
  run_gather(out, ai.src_over_result(), ai.index_over_result(), ai.params);
  return out;
}

// value as the written values of an indexing result of `shape`: leading 1s beyond the result's
// rank dropped (as PyTorch's copy_to), broadcast, cast to `dtype`, and detached from `dst`'s
// memory so that x[i] = x[j] reads the old values.
Tensor prepare_values(const Tensor& value, const Tensor& dst, IntArrayRef shape, const char* op) {
  Tensor v = value;
  while (v.dim() > static_cast<int64_t>(shape.size()) && v.size(0) == 1) v = v.squeeze(0);
  EMBER_CHECK(broadcasts_to(v.sizes(), shape),
              "{}: shape mismatch: value tensor of shape {} cannot be broadcast to indexing "
              "result of shape {}",
              op, value.sizes(), shape);
  v = v.to(dst.device(), dst.dtype());
  if (shares_storage(v, dst)) v = v.clone();
  return v.expand(shape);
}

void advanced_put(const Tensor& dst, const std::vector<TensorEntry>& entries, const Tensor& value,
                  bool accumulate, const char* op) {
  if (!dst.is_cpu()) {
    Tensor host = dst.to(kHost);
    advanced_put(host, to_host(entries), value.to(kHost), accumulate, op);
    dst.copy_(host);
    return;
  }
  AdvancedIndex ai = make_advanced(dst, entries, op);
  Tensor values = prepare_values(value, dst, ai.result_shape, op);
  if (shares_storage(ai.index, dst)) ai.index = ai.index.clone();  // x[x] = v reads x first
  run_put(ai.src_over_result(), values, ai.index_over_result(), ai.params, accumulate);
  bump_version(dst);
}

}  // namespace

Tensor index(const Tensor& self, ArrayRef<TensorIndex> indices) {
  check_defined(self, "index");
  BasicResult r = apply_basic(self, indices, "index");
  if (r.tensors.empty()) return r.view;
  return advanced_gather(r.view, r.tensors, "index");
}

const Tensor& index_put_(const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& value,
                         bool accumulate) {
  const char* op = "index_put_";
  check_defined(self, op);
  check_defined(value, op, "value");
  BasicResult r = apply_basic(self, indices, op);
  if (r.tensors.empty() && !accumulate) {
    r.view.copy_(prepare_values(value, self, r.view.sizes(), op));
  } else {
    advanced_put(r.view, r.tensors, value, accumulate, op);  // copy_ and the kernel path bump
  }
  return self;
}

// ---- index_select, gather, scatter, index_add, take ----

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  const char* op = "index_select";
  check_defined(self, op);
  check_defined(index, op, "index");
  check_index_dtype(index, op);
  check_same_device({&self, &index}, op);
  EMBER_CHECK_INDEX(index.dim() <= 1, "{}: index is supposed to be a vector, got shape {}", op,
                    index.sizes());
  const int64_t d = wrap_dim(dim, self.dim(), op);
  EMBER_CHECK_INDEX(self.dim() > 0 || index.numel() == 1,
                    "{}: index to a 0-dim tensor can have only 1 value, got {}", op, index.numel());
  if (!self.is_cpu()) return index_select(self.to(kHost), dim, index.to(kHost)).to(self.device());
  Tensor s = at_least_1d(self);
  DimVector shape(s.sizes());
  shape[d] = index.numel();
  Tensor i = index.reshape({-1});
  check_range(i, s.size(d), false, d, op);
  Tensor out = empty(shape, self.options());
  run_gather(out, restrided(s, shape, without_dim(s.strides(), d)),
             restrided(i, shape, along_dim(s.dim(), d, i.stride(0))), index_params(s.stride(d)));
  return self.dim() == 0 ? out.view({}) : out;
}

namespace {
// PyTorch's scatter/gather shape rules: equal ranks (0-dim counting as 1-D), index no larger than
// self apart from `dim`, and no larger than src anywhere.
void check_scatter_gather(const Tensor& self, const Tensor& index, const Tensor* src, int64_t dim,
                          const char* op) {
  Tensor s = at_least_1d(self), i = at_least_1d(index);
  EMBER_CHECK(s.dim() == i.dim(),
              "{}: index tensor must have the same number of dimensions as self tensor: index {} "
              "and self {}",
              op, index.sizes(), self.sizes());
  if (src)
    EMBER_CHECK(at_least_1d(*src).dim() == i.dim(),
                "{}: index tensor must have the same number of dimensions as src tensor: index {} "
                "and src {}",
                op, index.sizes(), src->sizes());
  for (int64_t k = 0; k < i.dim(); ++k) {
    EMBER_CHECK(k == dim || i.size(k) <= s.size(k),
                "{}: size does not match at dimension {}: expected index {} to be smaller than "
                "self {} apart from dimension {}",
                op, k, index.sizes(), self.sizes(), dim);
    if (src)
      EMBER_CHECK(i.size(k) <= at_least_1d(*src).size(k),
                  "{}: size does not match at dimension {}: expected index {} to be smaller than "
                  "src {}",
                  op, k, index.sizes(), src->sizes());
  }
}

// self[..., index[i], ...] = (or +=) values[i] along dim; values are already over index's shape.
const Tensor& scatter_impl(const Tensor& self, int64_t dim, const Tensor& index,
                           const Tensor& values, bool accumulate, const char* op) {
  if (index.numel() == 0) return self;
  if (!self.is_cpu()) {
    Tensor host = self.to(kHost);
    scatter_impl(host, dim, index.to(kHost), values.to(kHost), accumulate, op);
    self.copy_(host);
    return self;
  }
  Tensor s = at_least_1d(self), i = at_least_1d(index).to(kHost);
  Tensor v = values.to(kHost);
  if (shares_storage(v, self)) v = v.clone();
  if (shares_storage(i, self)) i = i.clone();
  check_range(i, s.size(dim), false, dim, op);
  run_put(restrided(s, i.sizes(), without_dim(s.strides(), dim)), v, i, index_params(s.stride(dim)),
          accumulate);
  bump_version(self);
  return self;
}

const Tensor& scatter_src(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                          bool accumulate, const char* op) {
  check_defined(self, op);
  check_defined(index, op, "index");
  check_defined(src, op, "src");
  check_index_dtype(index, op);
  check_same_device({&self, &index, &src}, op);
  EMBER_CHECK_TYPE(src.dtype() == self.dtype(),
                   "{}: expected self.dtype to be equal to src.dtype, got {} and {}", op,
                   self.dtype(), src.dtype());
  const int64_t d = wrap_dim(dim, self.dim(), op);
  check_scatter_gather(self, index, &src, d, op);
  // src is read over index's shape with its own strides.
  Tensor s1 = at_least_1d(src);
  return scatter_impl(self, d, index, restrided(s1, at_least_1d(index).sizes(), s1.strides()),
                      accumulate, op);
}
}  // namespace

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) {
  const char* op = "gather";
  check_defined(self, op);
  check_defined(index, op, "index");
  check_index_dtype(index, op);
  check_same_device({&self, &index}, op);
  const int64_t d = wrap_dim(dim, self.dim(), op);
  check_scatter_gather(self, index, nullptr, d, op);
  if (!self.is_cpu()) return gather(self.to(kHost), dim, index.to(kHost)).to(self.device());
  Tensor s = at_least_1d(self), i = at_least_1d(index);
  Tensor out = empty(index.sizes(), self.options());
  check_range(i, s.size(d), false, d, op);
  run_gather(out.view(i.sizes()), restrided(s, i.sizes(), without_dim(s.strides(), d)), i,
             index_params(s.stride(d)));
  return out;
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_defined(self, "scatter");
  return self.clone().scatter_(dim, index, src);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  check_defined(self, "scatter");
  return self.clone().scatter_(dim, index, value);
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_defined(self, "scatter_add");
  return self.clone().scatter_add_(dim, index, src);
}

const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) const {
  return scatter_src(*this, dim, index, src, false, "scatter_");
}
const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) const {
  const char* op = "scatter_";
  check_defined(*this, op);
  check_defined(index, op, "index");
  check_index_dtype(index, op);
  check_same_device({this, &index}, op);
  const int64_t d = wrap_dim(dim, this->dim(), op);
  check_scatter_gather(*this, index, nullptr, d, op);
  Tensor v = scalar_to_tensor(value, dtype(), kHost);
  return scatter_impl(*this, d, index, v.expand(at_least_1d(index).sizes()), false, op);
}
const Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const {
  return scatter_src(*this, dim, index, src, true, "scatter_add_");
}

const Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                                 const Scalar& alpha) const {
  const char* op = "index_add_";
  check_defined(*this, op);
  check_defined(index, op, "index");
  check_defined(source, op, "source");
  check_index_dtype(index, op);
  check_same_device({this, &index, &source}, op);
  EMBER_CHECK_INDEX(index.dim() <= 1, "{}: index is supposed to be a vector, got shape {}", op,
                    index.sizes());
  EMBER_CHECK_TYPE(source.dtype() == dtype(),
                   "{}: self ({}) and source ({}) must have the same scalar type", op, dtype(),
                   source.dtype());
  EMBER_CHECK_TYPE(!(is_integral(dtype(), true) && alpha.isFloatingPoint()),
                   "{}: for integral input tensors, argument alpha must not be a floating point "
                   "number, got {}",
                   op, alpha);
  const int64_t d = wrap_dim(dim, this->dim(), op);
  Tensor s = at_least_1d(*this), src = at_least_1d(source);
  EMBER_CHECK(src.dim() == s.dim(),
              "{}: source {} and self {} must have the same number of dimensions", op,
              source.sizes(), sizes());
  EMBER_CHECK(index.numel() == src.size(d),
              "{}: number of indices ({}) should be equal to source.size(dim) ({})", op,
              index.numel(), src.size(d));
  for (int64_t k = 0; k < s.dim(); ++k)
    EMBER_CHECK(k == d || src.size(k) == s.size(k),
                "{}: source {} and self {} must match in every dimension but dim {}", op,
                source.sizes(), sizes(), d);
  if (index.numel() == 0) return *this;
  if (!is_cpu()) {
    Tensor host = to(kHost);
    host.index_add_(dim, index.to(kHost), source.to(kHost), alpha);
    copy_(host);
    return *this;
  }
  Tensor values = alpha.toDouble() == 1.0 ? src : src.mul(alpha).to(dtype());
  if (shares_storage(values, *this)) values = values.clone();
  Tensor i = index.reshape({-1});
  if (shares_storage(i, *this)) i = i.clone();
  check_range(i, s.size(d), false, d, op);
  run_put(restrided(s, src.sizes(), without_dim(s.strides(), d)), values,
          restrided(i, src.sizes(), along_dim(s.dim(), d, i.stride(0))), index_params(s.stride(d)),
          true);
  bump_version(*this);
  return *this;
}

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha) {
  check_defined(self, "index_add");
  return self.clone().index_add_(dim, index, source, alpha);
}

Tensor take(const Tensor& self, const Tensor& index) {
  const char* op = "take";
  check_defined(self, op);
  check_defined(index, op, "index");
  check_index_dtype(index, op);
  check_same_device({&self, &index}, op);
  if (!self.is_cpu()) return take(self.to(kHost), index.to(kHost)).to(self.device());
  Tensor out = empty(index.sizes(), self.options());
  if (out.numel() == 0) return out;
  EMBER_CHECK_INDEX(self.numel() > 0, "{}: tried to take from an empty tensor of shape {}", op,
                    self.sizes());
  // Flat positions index the logical (row-major) order, which is memory order once contiguous.
  check_range(index, self.numel(), true, 0, op);
  Tensor c = self.contiguous();
  run_gather(out, restrided(c, index.sizes(), DimVector(index.dim(), 0)), index,
             index_params(1, c.numel()));
  return out;
}

// ---- masked_fill, masked_select, nonzero ----

namespace {
const Tensor& masked_fill_impl(const Tensor& self, const Tensor& mask, const Scalar& value,
                               const char* op) {
  check_defined(self, op);
  check_defined(mask, op, "mask");
  check_bool_mask(mask, op);
  EMBER_CHECK(broadcasts_to(mask.sizes(), self.sizes()),
              "{}: mask of shape {} cannot be broadcast to self of shape {}. Hint: in-place ops "
              "cannot grow their target; use masked_fill",
              op, mask.sizes(), self.sizes());
  if (self.numel() == 0) return self;
  if (!self.is_cpu()) {
    Tensor host = self.to(kHost);
    masked_fill_impl(host, mask.to(kHost), value, op);
    self.copy_(host);
    return self;
  }
  Tensor m = mask.to(kHost);
  if (shares_storage(m, self)) m = m.clone();
  m = m.expand(self.sizes());
  Tensor v = scalar_to_tensor(value, self.dtype(), kHost);
  kernels::cpu_masked_fill(make_elementwise_loop(self, {&m}, {}, self.dtype()), v.data_ptr());
  bump_version(self);
  return self;
}

Scalar value_of(const Tensor& value, const char* op) {
  check_defined(value, op, "value");
  EMBER_CHECK(value.dim() == 0,
              "{}: only supports a 0-dimensional value tensor, but got tensor with {} "
              "dimension(s)",
              op, value.dim());
  return value.item();
}

Tensor masked_fill_out_of_place(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_defined(self, "masked_fill");
  check_defined(mask, "masked_fill", "mask");
  check_bool_mask(mask, "masked_fill");
  DimVector shape = broadcast_shape(self.sizes(), mask.sizes(), "masked_fill");
  Tensor out = self.expand(shape).clone();
  return masked_fill_impl(out, mask, value, "masked_fill");
}
}  // namespace

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  return masked_fill_out_of_place(self, mask, value);
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return masked_fill_out_of_place(self, mask, value_of(value, "masked_fill"));
}

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  const char* op = "masked_select";
  check_defined(self, op);
  check_defined(mask, op, "mask");
  check_bool_mask(mask, op);
  DimVector shape = broadcast_shape(self.sizes(), mask.sizes(), op);
  return index(self.expand(shape), {mask.expand(shape)});
}

Tensor nonzero(const Tensor& self) {
  check_defined(self, "nonzero");
  EMBER_CHECK(self.dim() <= kernels::kMaxNonzeroDims,
              "nonzero: is not supported for tensors with more than {} dimensions, got {}",
              kernels::kMaxNonzeroDims, self.dim());
  if (!self.is_cpu()) return nonzero(self.to(kHost)).to(self.device());
  Tensor c = self.contiguous();
  const int64_t count = kernels::cpu_count_nonzero(c.data_ptr(), c.dtype(), c.numel());
  Tensor out = empty({count + 1, self.dim()}, kLong);  // one spare row for the branch-free loop
  kernels::cpu_nonzero_coords(c.data_ptr(), c.dtype(), c.sizes().data(), c.dim(),
                              out.data_ptr<int64_t>());
  return out.narrow(0, 0, count);
}

// ---- Tensor methods ----
Tensor Tensor::index(ArrayRef<TensorIndex> indices) const { return ember::index(*this, indices); }
Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return ember::index(*this, ArrayRef<TensorIndex>(indices));
}
const Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Tensor& value) const {
  return ember::index_put_(*this, indices, value);
}
const Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Scalar& value) const {
  check_defined(*this, "index_put_");
  return ember::index_put_(*this, indices, scalar_to_tensor(value, dtype(), device()));
}
const Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices,
                                 const Tensor& value) const {
  return index_put_(ArrayRef<TensorIndex>(indices), value);
}
const Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices,
                                 const Scalar& value) const {
  return index_put_(ArrayRef<TensorIndex>(indices), value);
}
Tensor Tensor::operator[](const Tensor& index) const { return ember::index(*this, {index}); }
Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return ember::index_select(*this, dim, index);
}
Tensor Tensor::gather(int64_t dim, const Tensor& index) const {
  return ember::gather(*this, dim, index);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter(*this, dim, index, src);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::scatter(*this, dim, index, value);
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter_add(*this, dim, index, src);
}
Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source,
                         const Scalar& alpha) const {
  return ember::index_add(*this, dim, index, source, alpha);
}
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  return ember::masked_fill(*this, mask, value);
}
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  return ember::masked_fill(*this, mask, value);
}
const Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) const {
  return masked_fill_impl(*this, mask, value, "masked_fill_");
}
const Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) const {
  return masked_fill_impl(*this, mask, value_of(value, "masked_fill_"), "masked_fill_");
}
Tensor Tensor::masked_select(const Tensor& mask) const { return ember::masked_select(*this, mask); }
Tensor Tensor::nonzero() const { return ember::nonzero(*this); }
Tensor Tensor::take(const Tensor& index) const { return ember::take(*this, index); }

}  // namespace ember
