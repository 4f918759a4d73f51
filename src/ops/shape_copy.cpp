// Shape ops that cannot be views and so copy: cat, stack, repeat, tile, flip, roll, tril, triu,
// constant_pad_nd, plus broadcast_tensors/broadcast_shapes. Each one allocates its output and
// fills it through copy_ into views of it (or of a restrided input), so the cast kernel does the
// strided work for every dtype and device and no kernel of its own is needed. Under autograd each
// op records one node (src/autograd/derivatives/shape.cpp) and runs its body with recording off,
// so those internal copies leave no trace; tile and broadcast_tensors record as repeat and expand.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ember/ops/factory.h"
#include "ember/ops/shape.h"
#include "src/autograd/derivatives/shape.h"
#include "src/core/checked_math.h"
#include "src/core/parallel.h"
#include "src/ops/op_common.h"

namespace ember {

namespace {
// A view of self's storage with the given geometry. Internal only: flip uses it with negative
// strides, which the public as_strided does not allow.
Tensor restrided(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  TensorImpl* impl = self.unsafeGetTensorImpl();
  return Tensor(make_intrusive<TensorImpl>(impl->storage(), impl->dtype(), sizes, strides, offset));
}

// PyTorch keeps cat accepting 1-D empty tensors of any other shape (the old way to start a list).
bool cat_skips(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

void check_list_devices(TensorList tensors, const char* op) {
  for (size_t i = 1; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].device().type() == tensors[0].device().type(),
                "{}: expected all tensors to be on the same device, but tensor 0 is on {} and "
                "tensor {} on {}. Hint: move them with .to(device)",
                op, tensors[0].device(), i, tensors[i].device());
}
}  // namespace

Tensor cat(TensorList tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "cat: expected a non-empty list of Tensors");
  ScalarType dtype = ScalarType::Undefined;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.defined(), "cat: tensor {} in the list is undefined", i);
    EMBER_CHECK(t.dim() > 0,
                "cat: zero-dimensional tensor (at position {}) cannot be concatenated. Hint: "
                "unsqueeze it to 1-D first, or use stack",
                i);
    // Every input takes part in promotion, skipped empties included (PyTorch 1.13).
    dtype = promote_types(dtype, t.dtype());
  }
  check_list_devices(tensors, "cat");
  autograd::OpRecording rec(tensors);
  TensorOptions options = TensorOptions().dtype(dtype).device(tensors[0].device());
  size_t ref = 0;
  while (ref < tensors.size() && cat_skips(tensors[ref])) ++ref;
  if (ref == tensors.size()) {
    Tensor out = empty({0}, options);
    if (rec) autograd::derivatives::cat(out, tensors, 0);
    return out;
  }

  const Tensor& first = tensors[ref];
  const int64_t d = wrap_dim(dim, first.dim(), "cat");
  DimVector shape(first.sizes());
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (cat_skips(t)) continue;
    EMBER_CHECK(t.dim() == first.dim(),
                "cat: tensors must have the same number of dimensions: got {} and {} for tensor "
                "number {} in the list (shapes {} and {})",
                first.dim(), t.dim(), i, first.sizes(), t.sizes());
    for (int64_t k = 0; k < first.dim(); ++k)
      EMBER_CHECK(k == d || t.size(k) == first.size(k),
                  "cat: sizes of tensors must match except in dimension {}: expected size {} but "
                  "got size {} in dimension {} for tensor number {} in the list (shapes {} and {})",
                  d, first.size(k), t.size(k), k, i, first.sizes(), t.sizes());
    total += t.size(d);
  }
  shape[d] = total;
  Tensor out = empty(shape, options);
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (out.numel() == 0 || cat_skips(t) || t.size(d) == 0) continue;
    out.narrow(d, offset, t.size(d)).copy_(t);
    offset += t.size(d);
  }
  if (rec) autograd::derivatives::cat(out, tensors, d);
  return out;
}

Tensor concat(TensorList tensors, int64_t dim) { return cat(tensors, dim); }

Tensor stack(TensorList tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "stack: expected a non-empty list of Tensors");
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].defined(), "stack: tensor {} in the list is undefined", i);
    EMBER_CHECK(tensors[i].sizes() == tensors[0].sizes(),
                "stack: expects each tensor to be equal size, but got {} at entry 0 and {} at "
                "entry {}",
                tensors[0].sizes(), tensors[i].sizes(), i);
  }
  const int64_t d = wrap_dim(dim, tensors[0].dim() + 1, "stack");
  autograd::OpRecording rec(tensors);
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(t.unsqueeze(d));
  Tensor out = cat(parts, d);
  if (rec) autograd::derivatives::stack(out, tensors, d);
  return out;
}

namespace {
// repeat, and tile through it: `op` names the one the user called in errors.
Tensor repeat_as(const Tensor& self, IntArrayRef repeats, const char* op) {
  check_defined(self, op);
  const int64_t nr = static_cast<int64_t>(repeats.size());
  EMBER_CHECK(nr >= self.dim(),
              "{}: number of dimensions of repeat dims ({}) can not be smaller than number of "
              "dimensions of tensor ({}). Hint: use tile, which pads the repeats with 1s",
              op, nr, self.dim());
  for (int64_t r : repeats)
    EMBER_CHECK(r >= 0, "{}: repeats must be non-negative, got {}", op, repeats);
  autograd::OpRecording rec(self);
  // Output dim i, seen as (repeat r_i, size s_i), reads input dim i with stride 0 over r_i: one
  // copy of a stride-0 view. Size-1 pairs are dropped so the loop stays within its dim limit.
  const int64_t pad = nr - self.dim();
  DimVector out_shape, pair_sizes, src_strides;
  for (int64_t i = 0; i < nr; ++i) {
    const int64_t s = i < pad ? 1 : self.size(i - pad);
    const int64_t st = i < pad ? 0 : self.stride(i - pad);
    out_shape.push_back(detail::checked_mul(repeats[i], s, op, "an output size"));
    if (repeats[i] != 1) {
      pair_sizes.push_back(repeats[i]);
      src_strides.push_back(0);
    }
    if (s != 1) {
      pair_sizes.push_back(s);
      src_strides.push_back(st);
    }
  }
  detail::checked_nbytes(detail::checked_numel(out_shape, op), self.element_size(), out_shape, op);
  Tensor out = empty(out_shape, self.options());
  if (out.numel() > 0)
    out.view(pair_sizes).copy_(restrided(self, pair_sizes, src_strides, self.storage_offset()));
  if (rec) autograd::derivatives::repeat(out, self, repeats);
  return out;
}
}  // namespace

Tensor repeat(const Tensor& self, IntArrayRef repeats) {
  return repeat_as(self, repeats, "repeat");
}

Tensor tile(const Tensor& self, IntArrayRef dims) {
  check_defined(self, "tile");
  DimVector reps;
  for (int64_t i = static_cast<int64_t>(dims.size()); i < self.dim(); ++i) reps.push_back(1);
  for (int64_t r : dims) reps.push_back(r);
  return repeat_as(self, reps, "tile");
}

Tensor flip(const Tensor& self, IntArrayRef dims) {
  check_defined(self, "flip");
  std::vector<bool> flipped(std::max<int64_t>(self.dim(), 1), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, self.dim(), "flip");
    EMBER_CHECK(!flipped[w], "flip: dim {} appears multiple times in the list of dims {}", w, dims);
    flipped[w] = true;
  }
  autograd::OpRecording rec(self);
  Tensor out = empty(self.sizes(), self.options());
  if (out.numel() > 0) {
    // Read the input backwards: negative strides from the last element of each flipped dim.
    DimVector strides(self.strides());
    int64_t offset = self.storage_offset();
    for (int64_t d = 0; d < self.dim(); ++d) {
      if (!flipped[d]) continue;
      offset += (self.size(d) - 1) * self.stride(d);
      strides[d] = -self.stride(d);
    }
    out.copy_(restrided(self, self.sizes(), strides, offset));
  }
  if (rec) autograd::derivatives::flip(out, self, dims);
  return out;
}

namespace {
Tensor roll_impl(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  EMBER_CHECK(!shifts.empty(), "roll: `shifts` required");
  if (dims.empty()) {
    EMBER_CHECK(shifts.size() == 1,
                "roll: shifts and dimensions must align: without dims, shifts must have one "
                "element (the tensor is rolled flattened), got {}",
                shifts);
    // The flat result re-shaped without becoming a view (its base would be untracked).
    return restrided(roll_impl(self.flatten(), shifts, {0}), self.sizes(),
                     contiguous_strides(self.sizes()), 0);
  }
  EMBER_CHECK(shifts.size() == dims.size(),
              "roll: shifts and dimensions must align. shifts: {}, dims: {}", shifts.size(),
              dims.size());
  // Net shift per dim (a dim may be listed twice), in [0, size).
  std::vector<int64_t> net(std::max<int64_t>(self.dim(), 1), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], self.dim(), "roll");
    net[d] += shifts[i];
  }
  Tensor out = empty(self.sizes(), self.options());
  if (out.numel() == 0) return out;
  if (self.dim() == 0) {
    out.copy_(self);
    return out;
  }
  std::vector<int64_t> rolled;
  for (int64_t d = 0; d < self.dim(); ++d) {
    const int64_t n = self.size(d);
    net[d] = ((net[d] % n) + n) % n;
    if (net[d] != 0) rolled.push_back(d);
  }
  // Each rolled dim splits into two blocks; copy every combination of blocks once.
  const size_t k = rolled.size();
  for (uint64_t mask = 0; mask < (uint64_t(1) << k); ++mask) {
    Tensor src = self, dst = out;
    for (size_t j = 0; j < k; ++j) {
      const int64_t d = rolled[j], n = self.size(d), s = net[d];
      if (mask >> j & 1) {  // the tail [n - s, n) wraps to the front [0, s)
        src = src.narrow(d, n - s, s);
        dst = dst.narrow(d, 0, s);
      } else {  // the head [0, n - s) moves to [s, n)
        src = src.narrow(d, 0, n - s);
        dst = dst.narrow(d, s, n - s);
      }
    }
    dst.copy_(src);
  }
  return out;
}
}  // namespace

Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  check_defined(self, "roll");
  autograd::OpRecording rec(self);
  Tensor out = roll_impl(self, shifts, dims);
  if (rec) autograd::derivatives::roll(out, self, shifts, dims);
  return out;
}

namespace {
// Zeroes the part of each matrix outside the kept triangle: columns j with j - i > k (tril) or
// j - i < k (triu).
Tensor triangle(const Tensor& self, int64_t k, bool lower, const char* op) {
  check_defined(self, op);
  EMBER_CHECK(self.dim() >= 2, "{}: input tensor must have at least 2 dimensions, got shape {}", op,
              self.sizes());
  Tensor out = self.clone();
  if (out.numel() == 0) return out;
  const int64_t rows = self.size(-2), cols = self.size(-1);
  // Diagonals beyond the matrix keep or zero everything: clamped, i + k + 1 cannot wrap.
  k = std::clamp<int64_t>(k, -rows - 1, cols + 1);
  auto zero_range = [&](int64_t i) -> std::pair<int64_t, int64_t> {  // [begin, end) to zero
    if (lower) return {std::clamp<int64_t>(i + k + 1, 0, cols), cols};
    return {0, std::clamp<int64_t>(i + k, 0, cols)};
  };
  if (out.is_cpu()) {
    // clone() is contiguous and zero is all-zero bytes in every dtype: memset each row's range.
    char* base = static_cast<char*>(out.data_ptr());
    const int64_t item = out.element_size(), total_rows = out.numel() / cols;
    parallel_for(0, total_rows, std::max<int64_t>(kElementwiseGrain / cols, 1),
                 [&](int64_t b, int64_t e) {
                   for (int64_t r = b; r < e; ++r) {
                     auto [z0, z1] = zero_range(r % rows);
                     if (z1 > z0) std::memset(base + (r * cols + z0) * item, 0, (z1 - z0) * item);
                   }
                 });
  } else {
    for (int64_t i = 0; i < rows; ++i) {
      auto [z0, z1] = zero_range(i);
      if (z1 > z0) out.select(-2, i).narrow(-1, z0, z1 - z0).zero_();
    }
  }
  return out;
}
}  // namespace

Tensor tril(const Tensor& self, int64_t diagonal) {
  autograd::OpRecording rec(self);
  Tensor out = triangle(self, diagonal, true, "tril");
  if (rec) autograd::derivatives::tril(out, self, diagonal);
  return out;
}
Tensor triu(const Tensor& self, int64_t diagonal) {
  autograd::OpRecording rec(self);
  Tensor out = triangle(self, diagonal, false, "triu");
  if (rec) autograd::derivatives::triu(out, self, diagonal);
  return out;
}

namespace {
Tensor constant_pad_nd_impl(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  EMBER_CHECK(pad.size() % 2 == 0,
              "constant_pad_nd: length of pad must be even but instead it equals {}", pad.size());
  const int64_t npairs = static_cast<int64_t>(pad.size()) / 2;
  EMBER_CHECK(npairs <= self.dim(),
              "constant_pad_nd: length of pad should be no more than twice the number of "
              "dimensions of the input. Pad length is {} while the input has {} dimensions",
              pad.size(), self.dim());
  DimVector out_shape(self.sizes());
  Tensor src = self;
  bool has_data = self.numel() > 0;
  for (int64_t i = 0; i < npairs; ++i) {
    const int64_t d = self.dim() - 1 - i, n = self.size(d);
    const int64_t left = pad[2 * i], right = pad[2 * i + 1];
    out_shape[d] =
        detail::checked_add(detail::checked_add(n, left, "constant_pad_nd", "a padded size"), right,
                            "constant_pad_nd", "a padded size");
    EMBER_CHECK(out_shape[d] >= 0,
                "constant_pad_nd: the input size {}, plus negative padding {} and {} resulted in "
                "a negative output size, which is invalid. Check dimension {} of your input",
                n, left, right, d);
    // Negative pads crop the input; what is left lands after the positive pad.
    const int64_t crop_l = left < 0 ? detail::checked_mul(left, -1, "constant_pad_nd", "a pad") : 0;
    const int64_t crop_r =
        right < 0 ? detail::checked_mul(right, -1, "constant_pad_nd", "a pad") : 0;
    const int64_t keep = n - crop_l - crop_r;
    if (keep <= 0)
      has_data = false;
    else if (has_data)
      src = src.narrow(d, crop_l, keep);
  }
  Tensor out = full(out_shape, value, self.options());
  if (!has_data || out.numel() == 0) return out;
  Tensor dst = out;
  for (int64_t i = 0; i < npairs; ++i) {
    const int64_t d = self.dim() - 1 - i;
    dst = dst.narrow(d, std::max<int64_t>(pad[2 * i], 0), src.size(d));
  }
  dst.copy_(src);
  return out;
}
}  // namespace

Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  check_defined(self, "constant_pad_nd");
  autograd::OpRecording rec(self);
  Tensor out = constant_pad_nd_impl(self, pad, value);
  if (rec) autograd::derivatives::constant_pad_nd(out, self, pad);
  return out;
}

std::vector<Tensor> broadcast_tensors(TensorList tensors) {
  DimVector shape;
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].defined(), "broadcast_tensors: tensor {} in the list is undefined", i);
    shape = broadcast_shape(shape, tensors[i].sizes(), "broadcast_tensors");
  }
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(t.expand(shape));
  return out;
}

std::vector<int64_t> broadcast_shapes(IntArrayRef a, IntArrayRef b) {
  return broadcast_shape(a, b, "broadcast_shapes").vec();
}

// ---- Tensor methods ----
Tensor Tensor::repeat(IntArrayRef repeats) const { return ember::repeat(*this, repeats); }
Tensor Tensor::tile(IntArrayRef dims) const { return ember::tile(*this, dims); }
Tensor Tensor::flip(IntArrayRef dims) const { return ember::flip(*this, dims); }
Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const {
  return ember::roll(*this, shifts, dims);
}
Tensor Tensor::tril(int64_t diagonal) const { return ember::tril(*this, diagonal); }
Tensor Tensor::triu(int64_t diagonal) const { return ember::triu(*this, diagonal); }

}  // namespace ember
