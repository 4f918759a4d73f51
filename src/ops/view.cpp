// Ops that return views: new sizes/strides/offset over the same storage, no data copied.
#include <algorithm>
#include <numeric>

#include "ember/ops/factory.h"
#include "ember/ops/shape.h"
#include "src/autograd/derivatives/view.h"
#include "src/core/checked_math.h"
#include "src/ops/op_common.h"

namespace ember {

Tensor make_view(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  TensorImpl* impl = self.unsafeGetTensorImpl();
  auto view = make_intrusive<TensorImpl>(impl->storage(), impl->dtype(), sizes, strides, offset);
  // Autograd needs the base of every view, so an in-place op on the view can rewrite the base's
  // history; a view of a view shares the first one's base.
  view->set_view_base(intrusive_ptr<TensorImpl>(impl->is_view() ? impl->view_base() : impl));
  return Tensor(std::move(view));
}

namespace {
// Records `r` (a view of self) with `derive` when self requires grad.
template <class Derive>
Tensor recorded(Tensor r, const Tensor& self, Derive derive) {
  if (EMBER_UNLIKELY(autograd::needs_grad(self))) derive(r);
  return r;
}
namespace dv = autograd::derivatives;

// Resolves one -1 in `shape` against numel; Error naming the op when impossible.
DimVector infer_size(IntArrayRef shape, int64_t numel, const char* op) {
  DimVector out(shape);
  // With a 0 among the sizes the product is 0, however large the others.
  const bool has_zero = std::find(shape.begin(), shape.end(), 0) != shape.end();
  int64_t known = has_zero ? 0 : 1;
  int infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      EMBER_CHECK(infer < 0, "{}: only one dimension can be inferred, got shape {}", op, shape);
      infer = static_cast<int>(i);
    } else {
      EMBER_CHECK(shape[i] >= 0, "{}: invalid shape dimension {} in {}", op, shape[i], shape);
      // A product past int64 cannot match the input's numel: the same error as a mismatch.
      EMBER_CHECK(has_zero || !__builtin_mul_overflow(known, shape[i], &known),
                  "{}: shape '{}' is invalid for input of size {}", op, shape, numel);
    }
  }
  if (infer >= 0) {
    EMBER_CHECK(known != 0 && numel % known == 0, "{}: shape '{}' is invalid for input of size {}",
                op, shape, numel);
    out[infer] = numel / known;
  } else {
    EMBER_CHECK(known == numel, "{}: shape '{}' is invalid for input of size {}", op, shape, numel);
  }
  return out;
}

// Strides for viewing (sizes, strides) as `shape` without a copy, if possible (PyTorch's
// computeStride): each run of old dims that is contiguous in memory can be re-split freely.
std::optional<DimVector> view_strides(IntArrayRef old_sizes, IntArrayRef old_strides,
                                      IntArrayRef shape) {
  if (old_sizes.empty()) return contiguous_strides(shape);  // a 0-dim input: all target dims are 1
  DimVector new_strides(shape.size());
  int64_t numel = 1;
  for (int64_t s : old_sizes) numel *= s;
  if (numel == 0) {
    if (old_sizes == shape) return DimVector(old_strides);
    return contiguous_strides(shape);
  }
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = old_strides.empty() ? 1 : old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[d];
    if (d == 0 ||
        (old_sizes[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        new_strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return new_strides;
}
}  // namespace

Tensor view(const Tensor& self, IntArrayRef size) {
  check_defined(self, "view");
  DimVector shape = infer_size(size, self.numel(), "view");
  auto strides = view_strides(self.sizes(), self.strides(), shape);
  EMBER_CHECK(strides.has_value(),
              "view: view size is not compatible with input tensor's size and stride (at least "
              "one dimension spans across two contiguous subspaces): sizes {} strides {} to {}. "
              "Hint: use .reshape(...) instead",
              self.sizes(), self.strides(), shape);
  return recorded(make_view(self, shape, *strides, self.storage_offset()), self,
                  [&](const Tensor& r) { dv::reshape_alias("ViewBackward0", r, self); });
}

Tensor reshape(const Tensor& self, IntArrayRef shape) {
  check_defined(self, "reshape");
  DimVector s = infer_size(shape, self.numel(), "reshape");
  auto strides = view_strides(self.sizes(), self.strides(), s);
  if (strides)
    return recorded(make_view(self, s, *strides, self.storage_offset()), self,
                    [&](const Tensor& r) { dv::reshape_alias("ViewBackward0", r, self); });
  return self.clone().view(s);
}

Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  check_defined(self, "flatten");
  if (self.dim() == 0) return self.reshape({1});
  int64_t s = wrap_dim(start_dim, self.dim(), "flatten");
  int64_t e = wrap_dim(end_dim, self.dim(), "flatten");
  EMBER_CHECK(s <= e, "flatten: start_dim ({}) cannot come after end_dim ({})", start_dim, end_dim);
  DimVector shape;
  for (int64_t d = 0; d < s; ++d) shape.push_back(self.size(d));
  int64_t n = 1;
  for (int64_t d = s; d <= e; ++d) n *= self.size(d);
  shape.push_back(n);
  for (int64_t d = e + 1; d < self.dim(); ++d) shape.push_back(self.size(d));
  return self.reshape(shape);
}

Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  check_defined(self, "unflatten");
  int64_t d = wrap_dim(dim, self.dim(), "unflatten");
  EMBER_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  DimVector inner = infer_size(sizes, self.size(d), "unflatten");
  DimVector shape;
  for (int64_t i = 0; i < d; ++i) shape.push_back(self.size(i));
  for (int64_t s : inner) shape.push_back(s);
  for (int64_t i = d + 1; i < self.dim(); ++i) shape.push_back(self.size(i));
  return self.view(shape);
}

Tensor squeeze(const Tensor& self) {
  check_defined(self, "squeeze");
  DimVector sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (self.size(d) != 1) {
      sizes.push_back(self.size(d));
      strides.push_back(self.stride(d));
    }
  return recorded(make_view(self, sizes, strides, self.storage_offset()), self,
                  [&](const Tensor& r) { dv::reshape_alias("SqueezeBackward0", r, self); });
}

Tensor squeeze(const Tensor& self, int64_t dim) {
  check_defined(self, "squeeze");
  int64_t d = wrap_dim(dim, self.dim(), "squeeze");
  DimVector sizes(self.sizes()), strides(self.strides());
  if (self.dim() != 0 && self.size(d) == 1) {
    sizes.erase(sizes.begin() + d);
    strides.erase(strides.begin() + d);
  }
  return recorded(make_view(self, sizes, strides, self.storage_offset()), self,
                  [&](const Tensor& r) { dv::reshape_alias("SqueezeBackward1", r, self); });
}

Tensor unsqueeze(const Tensor& self, int64_t dim) {
  check_defined(self, "unsqueeze");
  int64_t d = wrap_dim(dim, self.dim() + 1, "unsqueeze");
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t new_stride = d < self.dim() ? self.size(d) * self.stride(d) : 1;
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, new_stride);
  return recorded(make_view(self, sizes, strides, self.storage_offset()), self,
                  [&](const Tensor& r) { dv::reshape_alias("UnsqueezeBackward0", r, self); });
}

Tensor permute(const Tensor& self, IntArrayRef dims) {
  check_defined(self, "permute");
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == self.dim(),
              "permute: number of dims don't match in permute: input has {} dims but {} were "
              "given ({})",
              self.dim(), dims.size(), dims);
  DimVector sizes(dims.size()), strides(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], self.dim(), "permute");
    EMBER_CHECK(!seen[d], "permute: repeated dim {} in {}", d, dims);
    seen[d] = true;
    sizes[i] = self.size(d);
    strides[i] = self.stride(d);
  }
  return recorded(make_view(self, sizes, strides, self.storage_offset()), self,
                  [&](const Tensor& r) { dv::permute(r, self, dims); });
}

Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  check_defined(self, "transpose");
  if (self.dim() == 0)
    return recorded(make_view(self, {}, {}, self.storage_offset()), self,
                    [&](const Tensor& r) { dv::reshape_alias("TransposeBackward0", r, self); });
  int64_t a = wrap_dim(dim0, self.dim(), "transpose");
  int64_t b = wrap_dim(dim1, self.dim(), "transpose");
  DimVector sizes(self.sizes()), strides(self.strides());
  std::swap(sizes[a], sizes[b]);
  std::swap(strides[a], strides[b]);
  return recorded(make_view(self, sizes, strides, self.storage_offset()), self,
                  [&](const Tensor& r) { dv::transpose(r, self, a, b); });
}

Tensor t(const Tensor& self) {
  check_defined(self, "t");
  EMBER_CHECK(self.dim() <= 2, "t: expects a tensor with <= 2 dimensions, but self is {}D",
              self.dim());
  if (self.dim() == 2) return transpose(self, 0, 1);
  return recorded(make_view(self, self.sizes(), self.strides(), self.storage_offset()), self,
                  [&](const Tensor& r) { dv::reshape_alias("TBackward0", r, self); });
}

Tensor expand(const Tensor& self, IntArrayRef size, bool /*implicit*/) {
  check_defined(self, "expand");
  EMBER_CHECK(static_cast<int64_t>(size.size()) >= self.dim(),
              "expand: the number of sizes provided ({}) must be greater or equal to the number "
              "of dimensions in the tensor ({})",
              size.size(), self.dim());
  const int64_t nd = static_cast<int64_t>(size.size());
  DimVector sizes(nd), strides(nd);
  for (int64_t i = nd - 1; i >= 0; --i) {
    int64_t off = nd - 1 - i;
    int64_t src = self.dim() - 1 - off;
    int64_t want = size[i];
    if (src >= 0) {
      int64_t have = self.size(src);
      if (want == -1) want = have;
      EMBER_CHECK(want >= 0,
                  "expand: invalid size {} for dimension {}: sizes must be >= 0 or -1. Target "
                  "sizes: {}",
                  want, i, size);
      EMBER_CHECK(have == want || have == 1,
                  "expand: the expanded size of the tensor ({}) must match the existing size ({}) "
                  "at non-singleton dimension {}. Target sizes: {}. Tensor sizes: {}",
                  want, have, i, size, self.sizes());
      sizes[i] = want;
      strides[i] = have == want ? self.stride(src) : 0;
    } else {
      EMBER_CHECK(want >= 0,
                  "expand: the expanded size {} is not allowed in a leading, non-existing "
                  "dimension {}",
                  want, i);
      sizes[i] = want;
      strides[i] = 0;
    }
  }
  detail::checked_numel(sizes, "expand");
  return recorded(make_view(self, sizes, strides, self.storage_offset()), self,
                  [&](const Tensor& r) { dv::expand(r, self); });
}

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  check_defined(self, "narrow");
  EMBER_CHECK(self.dim() > 0, "narrow: cannot be applied to a 0-dim tensor");
  int64_t d = wrap_dim(dim, self.dim(), "narrow");
  int64_t n = self.size(d);
  EMBER_CHECK_INDEX(start >= -n && start <= n,
                    "narrow: start ({}) out of range for dimension {} of size {}", start, d, n);
  if (start < 0) start += n;
  EMBER_CHECK_INDEX(length >= 0 && length <= n - start,
                    "narrow: start ({}) + length ({}) exceeds dimension size ({})", start, length,
                    n);
  return slice(self, d, start, start + length, 1);
}

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  check_defined(self, "select");
  EMBER_CHECK_INDEX(self.dim() > 0, "select: cannot be applied to a 0-dim tensor");
  int64_t d = wrap_dim(dim, self.dim(), "select");
  int64_t n = self.size(d);
  EMBER_CHECK_INDEX(index >= -n && index < n,
                    "select: index {} out of range for tensor of size {} at dimension {}", index,
                    self.sizes(), d);
  if (index < 0) index += n;
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t offset = self.storage_offset() + index * self.stride(d);
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return recorded(make_view(self, sizes, strides, offset), self,
                  [&](const Tensor& r) { dv::select(r, self, d, index); });
}

Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start_opt,
             std::optional<int64_t> end_opt, int64_t step) {
  check_defined(self, "slice");
  EMBER_CHECK(self.dim() > 0, "slice: cannot be applied to a 0-dim tensor");
  EMBER_CHECK_VALUE(step > 0, "slice: step must be positive, got {}", step);
  int64_t d = wrap_dim(dim, self.dim(), "slice");
  int64_t n = self.size(d);
  int64_t start = start_opt.value_or(0), end = end_opt.value_or(n);
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = std::clamp<int64_t>(start, 0, n);
  end = std::clamp<int64_t>(end, start, n);
  DimVector sizes(self.sizes()), strides(self.strides());
  sizes[d] = end == start ? 0 : (end - start - 1) / step + 1;  // no end - start + step: it wraps
  // A step past the end leaves at most one element, whose stride is never used.
  strides[d] = sizes[d] <= 1 ? self.stride(d)
                             : detail::checked_mul(self.stride(d), step, "slice", "the stride");
  return recorded(make_view(self, sizes, strides, self.storage_offset() + start * self.stride(d)),
                  self, [&](const Tensor& r) { dv::slice(r, self, d, start, end, step); });
}

std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  check_defined(self, "split");
  EMBER_CHECK(self.dim() > 0, "split: expects at least a 1-dimensional tensor");
  EMBER_CHECK_VALUE(split_size >= 0, "split: split_size must be non-negative, got {}", split_size);
  int64_t d = wrap_dim(dim, self.dim(), "split");
  int64_t n = self.size(d);
  EMBER_CHECK_VALUE(split_size > 0 || n == 0,
                    "split: split_size can only be 0 if dimension size is 0, but got dimension "
                    "size of {}",
                    n);
  std::vector<Tensor> out;
  if (n == 0) return {narrow(self, d, 0, 0)};
  for (int64_t s = 0; s < n; s += split_size)
    out.push_back(narrow(self, d, s, std::min(split_size, n - s)));
  return out;
}

std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  check_defined(self, "split_with_sizes");
  EMBER_CHECK(self.dim() > 0, "split_with_sizes: expects at least a 1-dimensional tensor");
  int64_t d = wrap_dim(dim, self.dim(), "split_with_sizes");
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    EMBER_CHECK_VALUE(s >= 0, "split_with_sizes: split sizes must be non-negative, got {}",
                      split_sizes);
    total += s;
  }
  EMBER_CHECK_VALUE(total == self.size(d),
                    "split_with_sizes: expects split_sizes to sum exactly to {} (input tensor's "
                    "size at dimension {}), but got split_sizes={}",
                    self.size(d), d, split_sizes);
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(narrow(self, d, start, s));
    start += s;
  }
  return out;
}
std::vector<Tensor> split(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  return split_with_sizes(self, split_sizes, dim);
}

std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  check_defined(self, "chunk");
  EMBER_CHECK(self.dim() > 0, "chunk: expects at least a 1-dimensional tensor");
  EMBER_CHECK_VALUE(chunks > 0, "chunk: number of chunks must be greater than 0, got {}", chunks);
  int64_t d = wrap_dim(dim, self.dim(), "chunk");
  int64_t n = self.size(d);
  const int64_t size = n / chunks + (n % chunks != 0);  // ceil(n / chunks) without n + chunks - 1
  if (size == 0 && n == 0) {
    // As PyTorch, `chunks` empty tensors; beyond a bound that no real use reaches, an Error
    // rather than a list that cannot be allocated (or takes hours to build).
    constexpr int64_t kMaxEmptyChunks = int64_t{1} << 24;
    EMBER_CHECK_VALUE(chunks <= kMaxEmptyChunks,
                      "chunk: splitting the empty dimension {} of a tensor of sizes {} into {} "
                      "chunks would make that many empty tensors; at most {} are allowed",
                      d, self.sizes(), chunks, kMaxEmptyChunks);
    std::vector<Tensor> out;
    out.reserve(static_cast<size_t>(chunks));
    for (int64_t i = 0; i < chunks; ++i) out.push_back(narrow(self, d, 0, 0));
    return out;
  }
  return split(self, size, d);
}

std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  check_defined(self, "unbind");
  EMBER_CHECK(self.dim() > 0, "unbind: expects at least a 1-dimensional tensor");
  int64_t d = wrap_dim(dim, self.dim(), "unbind");
  std::vector<Tensor> out;
  for (int64_t i = 0; i < self.size(d); ++i) out.push_back(select(self, d, i));
  return out;
}

Tensor diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  check_defined(self, "diagonal");
  EMBER_CHECK(self.dim() >= 2, "diagonal: expects a tensor with at least 2 dims, got {}",
              self.dim());
  int64_t a = wrap_dim(dim1, self.dim(), "diagonal");
  int64_t b = wrap_dim(dim2, self.dim(), "diagonal");
  EMBER_CHECK(a != b, "diagonal: dimensions cannot be identical {}, {}", dim1, dim2);
  int64_t storage_offset = self.storage_offset();
  int64_t len;
  if (offset >= 0) {
    len = std::max<int64_t>(std::min(self.size(a), self.size(b) - offset), 0);
    if (len > 0) storage_offset += offset * self.stride(b);
  } else {
    len = std::max<int64_t>(std::min(self.size(a) + offset, self.size(b)), 0);
    if (len > 0) storage_offset -= offset * self.stride(a);
  }
  DimVector sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (d != a && d != b) {
      sizes.push_back(self.size(d));
      strides.push_back(self.stride(d));
    }
  sizes.push_back(len);
  strides.push_back(self.stride(a) + self.stride(b));
  return recorded(make_view(self, sizes, strides, storage_offset), self,
                  [&](const Tensor& r) { dv::diagonal(r, self, offset, a, b); });
}

Tensor as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                  std::optional<int64_t> storage_offset) {
  check_defined(self, "as_strided");
  EMBER_CHECK(size.size() == stride.size(),
              "as_strided: mismatch in length of strides and shape ({} vs {})", size.size(),
              stride.size());
  int64_t offset = storage_offset.value_or(self.storage_offset());
  EMBER_CHECK(offset >= 0, "as_strided: invalid storage offset {}: it must be non-negative",
              offset);
  for (size_t i = 0; i < size.size(); ++i) {
    EMBER_CHECK(size[i] >= 0 && stride[i] >= 0,
                "as_strided: negative sizes or strides are not supported: size {} stride {}", size,
                stride);
  }
  detail::checked_numel(size, "as_strided");
  const int64_t extent = detail::checked_extent(size, stride, "as_strided");
  const int64_t max_index =
      extent == 0 ? -1 : detail::checked_add(offset, extent - 1, "as_strided", "the last offset");
  int64_t capacity =
      static_cast<int64_t>(self.unsafeGetTensorImpl()->storage()->nbytes()) / self.element_size();
  EMBER_CHECK(max_index < capacity,
              "as_strided: setStorage: sizes {}, strides {}, storage offset {} require {} "
              "elements but the storage holds only {}",
              size, stride, offset, static_cast<uint64_t>(max_index) + 1, capacity);
  return recorded(make_view(self, size, stride, offset), self,
                  [&](const Tensor& r) { dv::strided_view("AsStridedBackward0", r, self); });
}

Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  check_defined(self, "movedim");
  EMBER_CHECK(source.size() == destination.size(),
              "movedim: invalid source or destination dims: source ({} dims) should contain the "
              "same number of dims as destination ({} dims)",
              source.size(), destination.size());
  const int64_t nd = self.dim();
  if (nd == 0) {
    // A 0-dim tensor takes dims 0 and -1 (as wrap_dim allows) and stays as it is.
    for (size_t i = 0; i < source.size(); ++i) {
      wrap_dim(source[i], nd, "movedim");
      wrap_dim(destination[i], nd, "movedim");
    }
    EMBER_CHECK(source.size() <= 1, "movedim: repeated dim in source {} or destination {}", source,
                destination);
    return self.alias();
  }
  std::vector<int64_t> order(nd, -1);
  std::vector<bool> used_src(nd, false);
  for (size_t i = 0; i < source.size(); ++i) {
    int64_t s = wrap_dim(source[i], nd, "movedim");
    int64_t d = wrap_dim(destination[i], nd, "movedim");
    EMBER_CHECK(!used_src[s] && order[d] == -1,
                "movedim: repeated dim in source {} or destination {}", source, destination);
    order[d] = s;
    used_src[s] = true;
  }
  int64_t next = 0;
  for (int64_t d = 0; d < nd; ++d) {
    if (order[d] != -1) continue;
    while (used_src[next]) ++next;
    order[d] = next++;
  }
  return permute(self, order);
}
Tensor movedim(const Tensor& self, int64_t source, int64_t destination) {
  return movedim(self, IntArrayRef(source), IntArrayRef(destination));
}

Tensor unfold(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  check_defined(self, "unfold");
  int64_t d = wrap_dim(dimension, self.dim(), "unfold");  // a 0-dim tensor takes 0 or -1
  int64_t n = self.dim() == 0 ? 1 : self.size(d);
  EMBER_CHECK(size <= n, "unfold: maximum size for tensor at dimension {} is {} but size is {}", d,
              n, size);
  EMBER_CHECK(step > 0, "unfold: step is {} but must be > 0", step);
  EMBER_CHECK(size >= 0, "unfold: size is {} but must be >= 0", size);
  DimVector sizes(self.sizes()), strides(self.strides());
  if (self.dim() == 0) {
    sizes = {size};
    strides = {1};
    return recorded(make_view(self, sizes, strides, self.storage_offset()), self,
                    [&](const Tensor& r) { dv::strided_view("UnfoldBackward0", r, self); });
  }
  int64_t st = self.stride(d);
  sizes[d] = (n - size) / step + 1;
  // One window leaves the stride unused (as slice): a huge step must not overflow it.
  strides[d] = sizes[d] <= 1 ? st : detail::checked_mul(st, step, "unfold", "the stride");
  sizes.push_back(size);
  strides.push_back(st);
  return recorded(make_view(self, sizes, strides, self.storage_offset()), self,
                  [&](const Tensor& r) { dv::strided_view("UnfoldBackward0", r, self); });
}

// ---- Tensor methods ----
Tensor Tensor::view(IntArrayRef size) const { return ember::view(*this, size); }
Tensor Tensor::reshape(IntArrayRef shape) const { return ember::reshape(*this, shape); }
Tensor Tensor::flatten(int64_t s, int64_t e) const { return ember::flatten(*this, s, e); }
Tensor Tensor::unflatten(int64_t d, IntArrayRef sizes) const {
  return ember::unflatten(*this, d, sizes);
}
Tensor Tensor::squeeze() const { return ember::squeeze(*this); }
Tensor Tensor::squeeze(int64_t d) const { return ember::squeeze(*this, d); }
Tensor Tensor::unsqueeze(int64_t d) const { return ember::unsqueeze(*this, d); }
namespace {
// In-place view ops (t_, squeeze_, ...): `view` was made from self (and recorded) already.
const Tensor& restride_in_place(const Tensor& self, const Tensor& view, const char* op) {
  const bool grad = autograd::needs_grad(self);
  if (grad) autograd::InplaceRecording::check_inplace(op, self);
  self.unsafeGetTensorImpl()->set_geometry(view.sizes(), view.strides(), view.storage_offset());
  if (grad) dv::restride_(self, view);
  return self;
}
}  // namespace
const Tensor& Tensor::squeeze_() const { return restride_in_place(*this, squeeze(), "squeeze_"); }
const Tensor& Tensor::squeeze_(int64_t d) const {
  return restride_in_place(*this, squeeze(d), "squeeze_");
}
const Tensor& Tensor::unsqueeze_(int64_t d) const {
  return restride_in_place(*this, unsqueeze(d), "unsqueeze_");
}
Tensor Tensor::permute(IntArrayRef dims) const { return ember::permute(*this, dims); }
Tensor Tensor::transpose(int64_t a, int64_t b) const { return ember::transpose(*this, a, b); }
const Tensor& Tensor::transpose_(int64_t a, int64_t b) const {
  return restride_in_place(*this, transpose(a, b), "transpose_");
}
Tensor Tensor::t() const { return ember::t(*this); }
const Tensor& Tensor::t_() const { return restride_in_place(*this, t(), "t_"); }
Tensor Tensor::expand(IntArrayRef size, bool implicit) const {
  return ember::expand(*this, size, implicit);
}
Tensor Tensor::narrow(int64_t d, int64_t s, int64_t l) const {
  return ember::narrow(*this, d, s, l);
}
Tensor Tensor::select(int64_t d, int64_t i) const { return ember::select(*this, d, i); }
Tensor Tensor::slice(int64_t d, std::optional<int64_t> s, std::optional<int64_t> e,
                     int64_t step) const {
  return ember::slice(*this, d, s, e, step);
}
std::vector<Tensor> Tensor::chunk(int64_t c, int64_t d) const { return ember::chunk(*this, c, d); }
std::vector<Tensor> Tensor::split(int64_t s, int64_t d) const { return ember::split(*this, s, d); }
std::vector<Tensor> Tensor::split(IntArrayRef s, int64_t d) const {
  return ember::split_with_sizes(*this, s, d);
}
std::vector<Tensor> Tensor::split_with_sizes(IntArrayRef s, int64_t d) const {
  return ember::split_with_sizes(*this, s, d);
}
std::vector<Tensor> Tensor::unbind(int64_t d) const { return ember::unbind(*this, d); }
Tensor Tensor::diagonal(int64_t o, int64_t a, int64_t b) const {
  return ember::diagonal(*this, o, a, b);
}
Tensor Tensor::as_strided(IntArrayRef size, IntArrayRef stride,
                          std::optional<int64_t> offset) const {
  return ember::as_strided(*this, size, stride, offset);
}
Tensor Tensor::movedim(IntArrayRef s, IntArrayRef d) const { return ember::movedim(*this, s, d); }
Tensor Tensor::movedim(int64_t s, int64_t d) const { return ember::movedim(*this, s, d); }
Tensor Tensor::unfold(int64_t d, int64_t size, int64_t step) const {
  return ember::unfold(*this, d, size, step);
}

}  // namespace ember
