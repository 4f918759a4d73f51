// Reductions with PyTorch's dtype rules: sum, mean, prod, max/min, amax/amin, argmax/argmin,
// all/any, count_nonzero, and their Tensor methods. The statistics (var, std, norm, logsumexp)
// are in reduction_stats.cpp; softmax, scans, sort, topk and median in reduction_dim.cpp.
#include "ember/ops/reduction.h"

#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/shape.h"
#include "src/autograd/derivatives/reduction.h"
#include "src/ops/reduction_common.h"

namespace ember {

namespace {
// sum/prod: integers and bool accumulate in int64 and give int64 unless a dtype is asked for;
// a dtype converts the input first (as PyTorch), except 16-bit floats into float32, which the
// kernel accumulates in float32 anyway and writes directly.
Tensor sum_or_prod(OpId op, const Tensor& self, DimMask mask, bool keepdim,
                   std::optional<ScalarType> dtype) {
  const char* name = op_name(op);
  check_defined(self, name);
  const ScalarType out_dtype =
      dtype ? *dtype : (is_integral(self.dtype(), true) ? kLong : self.dtype());
  Tensor in = self;
  if (dtype && *dtype != self.dtype() && !(is_reduced_float(self.dtype()) && *dtype == kFloat))
    in = self.to(*dtype);
  const ScalarType kernel_out = is_integral(in.dtype(), true) ? kLong : out_dtype;
  Tensor out = reduce_into_new(op, in, mask, keepdim, kernel_out);
  return cast_to(out, out_dtype);
}

// amax/amin and the full max()/min(): no identity, so empty reductions are errors.
// The gradient is split evenly among the elements equal to the result (PyTorch's amax rule).
Tensor min_max(OpId op, const char* name, const char* node_name, const Tensor& self,
               IntArrayRef dims, bool keepdim) {
  check_defined(self, name);
  const DimMask mask = make_dim_mask(dims, self.dim(), name);
  check_nonempty_reduction(self, mask, dims.empty(), name);
  autograd::OpRecording rec(self);
  Tensor r = reduce_into_new(op, self, mask, keepdim, self.dtype());
  if (rec) autograd::derivatives::evenly_distribute(node_name, r, self, mask, keepdim);
  return r;
}

// max/min with a dim: (values, indices) through the argmax/argmin kernel. The values' gradient
// goes to the element at the index.
std::tuple<Tensor, Tensor> min_max_dim(OpId op, const char* name, const char* node_name,
                                       const Tensor& self, int64_t dim, bool keepdim) {
  check_defined(self, name);
  const int64_t d = wrap_dim(dim, self.dim(), name);
  const DimMask mask = self.dim() == 0 ? 0 : DimMask(1) << d;
  check_nonempty_reduction(self, mask, false, name);
  autograd::OpRecording rec(self);
  DimVector shape = reduced_shape(self.sizes(), mask, keepdim);
  Tensor values = empty(shape, self.options());
  Tensor indices = empty(shape, self.options().dtype(kLong));
  run_reduction(op, self, mask, keepdim, values, &indices);
  if (rec) autograd::derivatives::value_selecting(node_name, values, indices, self, d, keepdim);
  return {values, indices};
}

Tensor arg_min_max(OpId op, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  const char* name = op_name(op);
  check_defined(self, name);
  EMBER_CHECK_TYPE(self.dtype() != kBool,
                   "{}: not implemented for dtype bool. Hint: convert with .to(ember::kInt)", name);
  if (dim) {
    const int64_t d = wrap_dim(*dim, self.dim(), name);
    const DimMask mask = self.dim() == 0 ? 0 : DimMask(1) << d;
    check_nonempty_reduction(self, mask, false, name);
    Tensor indices = empty(reduced_shape(self.sizes(), mask, keepdim), self.options().dtype(kLong));
    run_reduction(op, self, mask, keepdim, Tensor(), &indices);
    return indices;
  }
  // No dim: the index into the flattened (row-major) tensor.
  EMBER_CHECK_INDEX(self.numel() != 0,
                    "{}: expected reduction dim to be specified for input.numel() == 0 (input "
                    "shape {}). Hint: pass a dim",
                    name, self.sizes());
  Tensor flat = self.contiguous().view({self.numel()});
  DimVector shape = keepdim ? DimVector(static_cast<size_t>(self.dim()), 1) : DimVector();
  Tensor indices = empty(shape, self.options().dtype(kLong));
  // The kernel writes the single result at offset 0 whatever the (all-ones) output shape.
  run_reduction(op, flat, all_dims_mask(1), false, Tensor(), &indices);
  return indices;
}

Tensor all_any(OpId op, const Tensor& self, DimMask mask, bool keepdim) {
  check_defined(self, op_name(op));
  // PyTorch keeps uint8 for uint8 input (a legacy of masks); everything else gives bool.
  return reduce_into_new(op, self, mask, keepdim, self.dtype() == kByte ? kByte : kBool);
}

DimMask single_dim_mask(const Tensor& self, int64_t dim, const char* name) {
  const int64_t d = wrap_dim(dim, self.dim(), name);
  return self.dim() == 0 ? 0 : DimMask(1) << d;
}
}  // namespace

Tensor sum(const Tensor& self, std::optional<ScalarType> dtype) {
  check_defined(self, "sum");
  autograd::OpRecording rec(self);
  const DimMask mask = all_dims_mask(self.dim());
  Tensor r = sum_or_prod(OpId::sum, self, mask, false, dtype);
  if (rec) autograd::derivatives::sum(r, self, mask, false);
  return r;
}
Tensor sum(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  check_defined(self, "sum");
  autograd::OpRecording rec(self);
  const DimMask mask = make_dim_mask(dim, self.dim(), "sum");
  Tensor r = sum_or_prod(OpId::sum, self, mask, keepdim, dtype);
  if (rec) autograd::derivatives::sum(r, self, mask, keepdim);
  return r;
}

Tensor mean(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  check_defined(self, "mean");
  EMBER_CHECK_TYPE(!dtype || is_floating_point(*dtype),
                   "mean: could not infer output dtype: the dtype argument must be a floating "
                   "point dtype, got {}. Hint: pass dtype=ember::kFloat",
                   *dtype);
  EMBER_CHECK_TYPE(dtype || is_floating_point(self.dtype()),
                   "mean: could not infer output dtype: input dtype must be a floating point "
                   "dtype, got {}. Hint: pass dtype=ember::kFloat or convert with "
                   ".to(ember::kFloat)",
                   self.dtype());
  autograd::OpRecording rec(self);
  const DimMask mask = make_dim_mask(dim, self.dim(), "mean");
  const ScalarType out_dtype = dtype ? *dtype : self.dtype();
  // 16-bit floats: sum into float32, divide, round once (as PyTorch's float accumulation).
  const ScalarType compute = is_reduced_float(out_dtype) ? kFloat : out_dtype;
  Tensor s = sum_or_prod(OpId::sum, self, mask, keepdim, compute);
  s.div_(static_cast<double>(reduced_numel(self.sizes(), mask)));  // 0 elements: 0/0 = nan
  Tensor r = cast_to(s, out_dtype);
  if (rec) autograd::derivatives::mean(r, self, mask, keepdim);
  return r;
}
Tensor mean(const Tensor& self, std::optional<ScalarType> dtype) {
  check_defined(self, "mean");
  return mean(self, IntArrayRef{}, false, dtype);
}

Tensor prod(const Tensor& self, std::optional<ScalarType> dtype) {
  check_defined(self, "prod");
  autograd::OpRecording rec(self);
  Tensor r = sum_or_prod(OpId::prod, self, all_dims_mask(self.dim()), false, dtype);
  if (rec) autograd::derivatives::prod(r, self, std::nullopt, false);
  return r;
}
Tensor prod(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  check_defined(self, "prod");
  const int64_t d = wrap_dim(dim, self.dim(), "prod");
  autograd::OpRecording rec(self);
  Tensor r = sum_or_prod(OpId::prod, self, self.dim() == 0 ? 0 : DimMask(1) << d, keepdim, dtype);
  if (rec) autograd::derivatives::prod(r, self, d, keepdim);
  return r;
}

Tensor max(const Tensor& self) {
  return min_max(OpId::amax, "max", "MaxBackward1", self, {}, false);
}
Tensor min(const Tensor& self) {
  return min_max(OpId::amin, "min", "MinBackward1", self, {}, false);
}
Tensor amax(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return min_max(OpId::amax, "amax", "AmaxBackward0", self, dim, keepdim);
}
Tensor amin(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return min_max(OpId::amin, "amin", "AminBackward0", self, dim, keepdim);
}
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim) {
  return min_max_dim(OpId::argmax, "max", "MaxBackward0", self, dim, keepdim);
}
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim) {
  return min_max_dim(OpId::argmin, "min", "MinBackward0", self, dim, keepdim);
}

Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_min_max(OpId::argmax, self, dim, keepdim);
}
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_min_max(OpId::argmin, self, dim, keepdim);
}

Tensor all(const Tensor& self) {
  check_defined(self, "all");
  return all_any(OpId::all, self, all_dims_mask(self.dim()), false);
}
Tensor all(const Tensor& self, int64_t dim, bool keepdim) {
  check_defined(self, "all");
  return all_any(OpId::all, self, single_dim_mask(self, dim, "all"), keepdim);
}
Tensor any(const Tensor& self) {
  check_defined(self, "any");
  return all_any(OpId::any, self, all_dims_mask(self.dim()), false);
}
Tensor any(const Tensor& self, int64_t dim, bool keepdim) {
  check_defined(self, "any");
  return all_any(OpId::any, self, single_dim_mask(self, dim, "any"), keepdim);
}

Tensor count_nonzero(const Tensor& self, IntArrayRef dim) {
  check_defined(self, "count_nonzero");
  const DimMask mask = make_dim_mask(dim, self.dim(), "count_nonzero");
  return reduce_into_new(OpId::sum, ne(self, 0), mask, false, kLong);
}

// ---- Tensor methods ----
Tensor Tensor::sum(std::optional<ScalarType> dtype) const { return ember::sum(*this, dtype); }
Tensor Tensor::sum(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::sum(*this, dim, keepdim, dtype);
}
Tensor Tensor::mean(std::optional<ScalarType> dtype) const { return ember::mean(*this, dtype); }
Tensor Tensor::mean(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::mean(*this, dim, keepdim, dtype);
}
Tensor Tensor::prod(std::optional<ScalarType> dtype) const { return ember::prod(*this, dtype); }
Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::prod(*this, dim, keepdim, dtype);
}
Tensor Tensor::max() const { return ember::max(*this); }
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return ember::max(*this, dim, keepdim);
}
Tensor Tensor::min() const { return ember::min(*this); }
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  return ember::min(*this, dim, keepdim);
}
Tensor Tensor::amax(IntArrayRef dim, bool keepdim) const {
  return ember::amax(*this, dim, keepdim);
}
Tensor Tensor::amin(IntArrayRef dim, bool keepdim) const {
  return ember::amin(*this, dim, keepdim);
}
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  return ember::argmax(*this, dim, keepdim);
}
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  return ember::argmin(*this, dim, keepdim);
}
Tensor Tensor::all() const { return ember::all(*this); }
Tensor Tensor::all(int64_t dim, bool keepdim) const { return ember::all(*this, dim, keepdim); }
Tensor Tensor::any() const { return ember::any(*this); }
Tensor Tensor::any(int64_t dim, bool keepdim) const { return ember::any(*this, dim, keepdim); }

}  // namespace ember
