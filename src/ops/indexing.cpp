// Indexing: Tensor::index / index_put_ with LibTorch's TensorIndex lists, and the mask ops
// (masked_fill, masked_select, nonzero). The gather/scatter family (index_select, gather,
// scatter, scatter_add, index_add, take) is in indexing_scatter.cpp.
//
// Every gather-like op reduces to one shape: an output, the input restrided over the output's
// shape (stride 0 along the indexed dims) and an int64 index, also laid over the output's shape.
// The loop reads src[i] + index[i] * stride; scatters go the other way. Indices are bounds-checked
// before a kernel runs (a device index by its amin/amax), so the kernels are pure memory moves;
// the index tensor is read in place (no offsets array) unless several index tensors must be summed
// into one.
//
// Kernels come from the index_gather / index_put / masked_fill slots of the operands' device, so a
// CUDA tensor's data never leaves the GPU. Index tensors of Tensor::index / index_put_ may be on
// the host for a device tensor (as in LibTorch): only they are copied over. Bool masks used as
// indices, masked_select and nonzero go through the host: their output size is the mask's count,
// needed before anything is allocated; only the mask (or nonzero's input) is copied there.
//
// Autograd (src/autograd/derivatives/indexing.cpp): the basic indices of Tensor::index are views
// recorded by the view ops, and only the advanced gather records IndexBackward0; in-place ops
// (index_put_, masked_fill_, scatter_, index_add_) record with their edges taken before writing.
// The out-of-place scatter, scatter_add and index_add are clone + the in-place op.
#include <string>
#include <string_view>

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/shape.h"
#include "src/autograd/derivatives/indexing.h"
#include "src/ops/indexing_common.h"

namespace ember {

using namespace index_detail;
namespace dv = autograd::derivatives;

TensorIndex::TensorIndex(const char* s) : kind_(Kind::Ellipsis) {
  EMBER_CHECK(s != nullptr && std::string_view(s) == "...",
              "TensorIndex: expected \"...\" to represent an ellipsis, but got \"{}\". Hint: use "
              "ember::indexing::Ellipsis or \"...\"",
              s ? s : "(null)");
}

namespace {

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
  // Starting from self itself, so that under autograd each basic step records as a view op.
  BasicResult r{self, {}};
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

// An index tensor must be on src's device or on the host (moved over, as LibTorch does).
void check_index_device(const Tensor& src, const Tensor& index, const char* op) {
  EMBER_CHECK(index.is_cpu() || index.device().type() == src.device().type(),
              "{}: indices should be either on {} or on the same device as the indexed tensor "
              "({}), got an index on {}. Hint: move it with .to(self.device())",
              op, kHost, src.device(), index.device());
}

AdvancedIndex make_advanced(const Tensor& src, const std::vector<TensorEntry>& entries,
                            const char* op) {
  // Which dims the entries index (a mask covers mask.dim() dims), checking dtypes and mask shapes.
  // Masks come to the host: their true positions are counted there.
  std::vector<Tensor> tensors;
  std::vector<bool> indexed(src.dim(), false);
  for (const TensorEntry& e : entries) {
    check_index_device(src, e.index, op);
    Tensor t = e.index;
    if (is_mask(t)) {
      t = t.to(kHost);
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
    tensors.push_back(t);
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
    const Tensor& t = tensors[i];
    const int64_t p = pos[entries[i].dim];
    if (t.dtype() == kBool) {
      Tensor m = t.contiguous();
      const int64_t n = kernels::cpu_count_nonzero(m.data_ptr(), kBool, m.numel());
      Tensor off = empty({n + 1}, kLong);  // one spare entry for the branch-free loop
      kernels::cpu_mask_offsets(m.data_ptr<bool>(), m.sizes().data(), ai.src.strides().data() + p,
                                m.dim(), off.data_ptr<int64_t>());
      parts.push_back({off.narrow(0, 0, n).to(src.device()), 1, 0});
    } else {
      // Checked where it is (a host index for a device src costs no device round trip), then
      // moved to src's device.
      check_range(t, ai.src.size(p), true, entries[i].dim, op, ai.src);
      parts.push_back({t.to(src.device()), ai.src.stride(p), ai.src.size(p)});
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
  } else if (src.is_cpu()) {  // none (an accumulating put with basic indices only), or several
    ai.index = zeros(ai.index_shape, kLong);  // summed once, in one pass
    int64_t* acc = ai.index.data_ptr<int64_t>();
    for (const Part& part : parts) {
      Tensor v = part.index.expand(ai.index_shape).contiguous();
      const int64_t* p = v.data_ptr<int64_t>();
      for (int64_t i = 0; i < v.numel(); ++i)
        acc[i] += (p[i] < 0 ? p[i] + part.wrap : p[i]) * part.stride;
    }
    ai.params = index_params(1);
  } else {  // the same sum on the device, in tensor ops
    ai.index = zeros(ai.index_shape, TensorOptions().dtype(kLong).device(src.device()));
    for (const Part& part : parts) {
      const Tensor& v = part.index;
      Tensor wrapped = part.wrap == 0 ? v : where(lt(v, 0), add(v, part.wrap), v);
      ai.index.add_(mul(wrapped, part.stride));
    }
    ai.params = index_params(1);
  }
  for (int64_t d = 0; d < ai.first; ++d) ai.result_shape.push_back(ai.src.size(d));
  for (int64_t s : ai.index_shape) ai.result_shape.push_back(s);
  for (int64_t d = ai.first + ai.count; d < ai.src.dim(); ++d)
    ai.result_shape.push_back(ai.src.size(d));
  return ai;
}

Tensor advanced_gather(const Tensor& src, const std::vector<TensorEntry>& entries, const char* op) {
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
  // A 0-dim value on another device acts as a scalar (LibTorch's rule); other values must be on
  // dst's device, as the kernel reads them in place.
  EMBER_CHECK(value.dim() == 0 || value.device().type() == dst.device().type(),
              "{}: expected the value tensor on {}, the device of self, but got it on {}. Hint: "
              "move it with .to(self.device())",
              op, dst.device(), value.device());
  AdvancedIndex ai = make_advanced(dst, entries, op);
  Tensor values = prepare_values(value, dst, ai.result_shape, op);
  if (shares_storage(ai.index, dst)) ai.index = ai.index.clone();  // x[x] = v reads x first
  run_put(ai.src_over_result(), values, ai.index_over_result(), ai.params, accumulate);
  bump_version(dst);
}

// The tensor entries as an index list of the view they apply to: Slice() over the dims before
// each, so that view.index(list) repeats the advanced step (for its backward).
std::vector<TensorIndex> advanced_list(const std::vector<TensorEntry>& entries) {
  std::vector<TensorIndex> list;
  int64_t dim = 0;
  for (const TensorEntry& e : entries) {
    for (; dim < e.dim; ++dim) list.emplace_back(indexing::Slice());
    list.emplace_back(e.index);
    dim += is_mask(e.index) ? e.index.dim() : 1;
  }
  return list;
}

}  // namespace

Tensor index(const Tensor& self, ArrayRef<TensorIndex> indices) {
  check_defined(self, "index");
  // The basic indices make views, recorded by the view ops; only the advanced step records here.
  BasicResult r = apply_basic(self, indices, "index");
  if (r.tensors.empty()) return r.view.is_same(self) ? self.view(self.sizes()) : r.view;
  autograd::OpRecording rec(r.view);
  Tensor out = advanced_gather(r.view, r.tensors, "index");
  if (rec) dv::index(out, r.view, advanced_list(r.tensors));
  return out;
}

const Tensor& index_put_(const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& value,
                         bool accumulate) {
  const char* op = "index_put_";
  check_defined(self, op);
  check_defined(value, op, "value");
  autograd::InplaceRecording rec(op, self, value);
  autograd::Edges edges;
  if (rec) edges = autograd::edges_of(self, value);
  BasicResult r = apply_basic(self, indices, op);
  if (r.tensors.empty() && !accumulate) {
    r.view.copy_(prepare_values(value, self, r.view.sizes(), op));
  } else {
    advanced_put(r.view, r.tensors, value, accumulate, op);  // copy_ and the kernel path bump
  }
  if (rec) dv::index_put_(self, indices, value, accumulate, std::move(edges));
  return self;
}

// ---- masked_fill, masked_select, nonzero ----

namespace {
const Tensor& masked_fill_impl(const Tensor& self, const Tensor& mask, const Scalar& value,
                               const char* op) {
  check_defined(self, op);
  check_defined(mask, op, "mask");
  check_bool_mask(mask, op);
  check_same_device({&self, &mask}, op);
  EMBER_CHECK(broadcasts_to(mask.sizes(), self.sizes()),
              "{}: mask of shape {} cannot be broadcast to self of shape {}. Hint: in-place ops "
              "cannot grow their target; use masked_fill",
              op, mask.sizes(), self.sizes());
  const auto kernel = get_kernel<OpId::masked_fill>(self.device().type(), self.dtype());
  if (self.numel() == 0) return self;
  Tensor m = mask;
  if (shares_storage(m, self)) m = m.clone();
  m = m.expand(self.sizes());
  // The value in host memory (the kernel takes it by value), converted as fill_ converts it.
  Tensor v = scalar_to_tensor(value, self.dtype(), kHost);
  kernel(make_elementwise_loop(self, {&m}, {}, self.dtype()), v.data_ptr());
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

// `value_tensor`: the Tensor overload's value (undefined for a Scalar), for autograd.
Tensor masked_fill_out_of_place(const Tensor& self, const Tensor& mask, const Scalar& value,
                                const Tensor& value_tensor) {
  check_defined(self, "masked_fill");
  check_defined(mask, "masked_fill", "mask");
  check_bool_mask(mask, "masked_fill");
  check_same_device({&self, &mask}, "masked_fill");
  DimVector shape = broadcast_shape(self.sizes(), mask.sizes(), "masked_fill");
  autograd::OpRecording rec(self, value_tensor);
  Tensor out = self.expand(shape).clone();
  masked_fill_impl(out, mask, value, "masked_fill");
  if (rec) dv::masked_fill(out, self, mask, value_tensor);
  return out;
}

const Tensor& masked_fill_in_place(const Tensor& self, const Tensor& mask, const Scalar& value,
                                   const Tensor& value_tensor) {
  autograd::InplaceRecording rec("masked_fill_", self, value_tensor);
  autograd::Edges edges;
  if (rec)
    edges =
        value_tensor.defined() ? autograd::edges_of(self, value_tensor) : autograd::edges_of(self);
  masked_fill_impl(self, mask, value, "masked_fill_");
  if (rec) dv::masked_fill_(self, mask, value_tensor, std::move(edges));
  return self;
}
}  // namespace

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  return masked_fill_out_of_place(self, mask, value, Tensor());
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return masked_fill_out_of_place(self, mask, value_of(value, "masked_fill"), value);
}

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  const char* op = "masked_select";
  check_defined(self, op);
  check_defined(mask, op, "mask");
  check_bool_mask(mask, op);
  check_same_device({&self, &mask}, op);
  DimVector shape = broadcast_shape(self.sizes(), mask.sizes(), op);
  autograd::OpRecording rec(self);
  // Through a mask index: the mask's true positions are counted on the host (the output's size),
  // the gather runs on self's device.
  Tensor out = index(self.expand(shape), {mask.expand(shape)});
  if (rec) dv::masked_select(out, self, mask);
  return out;
}

Tensor nonzero(const Tensor& self) {
  check_defined(self, "nonzero");
  EMBER_CHECK(self.dim() <= kernels::kMaxNonzeroDims,
              "nonzero: is not supported for tensors with more than {} dimensions, got {}",
              kernels::kMaxNonzeroDims, self.dim());
  // The count sizes the output, so a device input is counted and scanned on the host.
  if (!self.is_cpu()) return nonzero(self.to(kHost)).to(self.device());
  Tensor c = self.contiguous();
  const int64_t count = kernels::cpu_count_nonzero(c.data_ptr(), c.dtype(), c.numel());
  Tensor out = empty({count + 1, self.dim()}, kLong);  // one spare row for the branch-free loop
  kernels::cpu_nonzero_coords(c.data_ptr(), c.dtype(), c.sizes().data(), c.dim(),
                              out.data_ptr<int64_t>());
  return out.narrow(0, 0, count);
}

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
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  return ember::masked_fill(*this, mask, value);
}
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  return ember::masked_fill(*this, mask, value);
}
const Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) const {
  return masked_fill_in_place(*this, mask, value, Tensor());
}
const Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) const {
  return masked_fill_in_place(*this, mask, value_of(value, "masked_fill_"), value);
}
Tensor Tensor::masked_select(const Tensor& mask) const { return ember::masked_select(*this, mask); }
Tensor Tensor::nonzero() const { return ember::nonzero(*this); }

}  // namespace ember
