// The gather/scatter family: index_select, gather, scatter, scatter_add, index_add, take, each
// one call of the gather or put kernel of the operands' device over restrided operands (see
// indexing.cpp). All operands share one device; indices are range-checked where they are.
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/shape.h"
#include "src/autograd/derivatives/indexing.h"
#include "src/ops/indexing_common.h"

namespace ember {

using namespace index_detail;
namespace dv = autograd::derivatives;

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
  autograd::OpRecording rec(self);
  Tensor s = at_least_1d(self);
  DimVector shape(s.sizes());
  shape[d] = index.numel();
  Tensor i = index.reshape({-1});
  check_range(i, s.size(d), false, d, op, self);
  Tensor out = empty(shape, self.options());
  run_gather(out, restrided(s, shape, without_dim(s.strides(), d)),
             restrided(i, shape, along_dim(s.dim(), d, i.stride(0))), index_params(s.stride(d)));
  if (self.dim() == 0) out = restrided(out, {}, {});  // not a view: autograd records it alone
  if (rec) dv::index_select(out, self, d, index);
  return out;
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
  Tensor s = at_least_1d(self), i = at_least_1d(index);
  Tensor v = values;
  if (shares_storage(v, self)) v = v.clone();
  if (shares_storage(i, self)) i = i.clone();
  check_range(i, s.size(dim), false, dim, op, self);
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
  autograd::InplaceRecording rec(op, self, src);
  autograd::Edges edges;
  if (rec) edges = autograd::edges_of(self, src);
  // src is read over index's shape with its own strides.
  Tensor s1 = at_least_1d(src);
  scatter_impl(self, d, index, restrided(s1, at_least_1d(index).sizes(), s1.strides()), accumulate,
               op);
  if (rec && accumulate) dv::scatter_add_(self, d, index, src, std::move(edges));
  if (rec && !accumulate) dv::scatter_(self, d, index, src, std::move(edges));
  return self;
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
  autograd::OpRecording rec(self);
  Tensor s = at_least_1d(self), i = at_least_1d(index);
  Tensor out = empty(index.sizes(), self.options());
  check_range(i, s.size(d), false, d, op, self);
  run_gather(out.view(i.sizes()), restrided(s, i.sizes(), without_dim(s.strides(), d)), i,
             index_params(s.stride(d)));
  if (rec) dv::gather(out, self, d, index);
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
  autograd::InplaceRecording rec(op, *this);
  autograd::Edges edges;
  if (rec) edges = autograd::edges_of(*this);
  Tensor v = scalar_to_tensor(value, dtype(), device());
  scatter_impl(*this, d, index, v.expand(at_least_1d(index).sizes()), false, op);
  if (rec) dv::scatter_(*this, d, index, Tensor(), std::move(edges));
  return *this;
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
  autograd::InplaceRecording rec(op, *this, source);
  autograd::Edges edges;
  if (rec) edges = autograd::edges_of(*this, source);
  if (index.numel() == 0) {
    // Nothing is written; no version bump either.
  } else {
    Tensor values = alpha.toDouble() == 1.0 ? src : src.mul(alpha).to(dtype());
    if (shares_storage(values, *this)) values = values.clone();
    Tensor i = index.reshape({-1});
    if (shares_storage(i, *this)) i = i.clone();
    check_range(i, s.size(d), false, d, op, *this);
    run_put(restrided(s, src.sizes(), without_dim(s.strides(), d)), values,
            restrided(i, src.sizes(), along_dim(s.dim(), d, i.stride(0))),
            index_params(s.stride(d)), true);
    bump_version(*this);
  }
  if (rec) dv::index_add_(*this, d, index, source, alpha, std::move(edges));
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
  autograd::OpRecording rec(self);
  Tensor out = empty(index.sizes(), self.options());
  if (out.numel() > 0) {
    EMBER_CHECK_INDEX(self.numel() > 0, "{}: tried to take from an empty tensor of shape {}", op,
                      self.sizes());
    // Flat positions index the logical (row-major) order, memory order once contiguous.
    check_range(index, self.numel(), true, 0, op, self);
    Tensor c = self.contiguous();
    run_gather(out, restrided(c, index.sizes(), DimVector(index.dim(), 0)), index,
               index_params(1, c.numel()));
  }
  if (rec) dv::take(out, self, index);
  return out;
}

// ---- Tensor methods ----
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
Tensor Tensor::take(const Tensor& index) const { return ember::take(*this, index); }

}  // namespace ember
