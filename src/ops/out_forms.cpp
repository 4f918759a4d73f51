// LibTorch's out= forms of the reductions and products (sum_out, max_out, matmul_out, ...), and
// Tensor::lerp_. Each out= form runs the plain op and copies its result into `out`: one extra
// pass over the result, and no second code path per op to keep in step with the first.
//
// The shape rule is LibTorch's (assign_out, src/ops/op_common.h): an out of another shape is
// resized, with a deprecation warning through the warning channel when it held elements.
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduction.h"
#include "src/autograd/record.h"
#include "src/ops/elementwise_impl.h"
#include "src/ops/op_common.h"

namespace ember {
namespace {

void check_out_dtype(const char* op, const Tensor& out, ScalarType expected,
                     const char* name = "out") {
  check_defined(out, op, name);
  EMBER_CHECK_TYPE(out.dtype() == expected, "{}: expected {} to have dtype {}, but got {}", op,
                   name, expected, out.dtype());
}

// sum/prod/cumsum/cumprod accumulate in `dtype` when given (out must have it) and in out's dtype
// otherwise, as LibTorch does (so sum_out into an int64 out truncates float inputs first).
ScalarType accumulate_dtype(const char* op, const Tensor& out, std::optional<ScalarType> dtype) {
  check_defined(out, op, "out");
  if (dtype) check_out_dtype(op, out, *dtype);
  return out.dtype();
}

IntArrayRef all_or(OptionalIntArrayRef dim) { return dim ? *dim : IntArrayRef(); }
}  // namespace

const Tensor& sum_out(const Tensor& out, const Tensor& self, OptionalIntArrayRef dim, bool keepdim,
                      std::optional<ScalarType> dtype) {
  autograd::check_out_not_differentiable("sum_out", self);
  const ScalarType acc = accumulate_dtype("sum_out", out, dtype);
  return assign_out(out, sum(self, all_or(dim), keepdim, acc), "sum_out");
}
const Tensor& sum_out(const Tensor& out, const Tensor& self, std::optional<ScalarType> dtype) {
  autograd::check_out_not_differentiable("sum_out", self);
  const ScalarType acc = accumulate_dtype("sum_out", out, dtype);
  return assign_out(out, sum(self, acc), "sum_out");
}

const Tensor& mean_out(const Tensor& out, const Tensor& self, OptionalIntArrayRef dim, bool keepdim,
                       std::optional<ScalarType> dtype) {
  autograd::check_out_not_differentiable("mean_out", self);
  check_defined(out, "mean_out", "out");
  if (dtype) check_out_dtype("mean_out", out, *dtype);
  // A floating out sets the compute dtype; another one gets mean's own result, if it casts.
  std::optional<ScalarType> compute = dtype;
  if (!compute && is_floating_point(out.dtype()) && self.defined() && self.is_floating_point())
    compute = out.dtype();
  return assign_out(out, mean(self, all_or(dim), keepdim, compute), "mean_out");
}

const Tensor& prod_out(const Tensor& out, const Tensor& self, int64_t dim, bool keepdim,
                       std::optional<ScalarType> dtype) {
  autograd::check_out_not_differentiable("prod_out", self);
  const ScalarType acc = accumulate_dtype("prod_out", out, dtype);
  return assign_out(out, prod(self, dim, keepdim, acc), "prod_out");
}
const Tensor& prod_out(const Tensor& out, const Tensor& self, std::optional<ScalarType> dtype) {
  autograd::check_out_not_differentiable("prod_out", self);
  const ScalarType acc = accumulate_dtype("prod_out", out, dtype);
  return assign_out(out, prod(self, acc), "prod_out");
}

const Tensor& amax_out(const Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim) {
  autograd::check_out_not_differentiable("amax_out", self);
  check_defined(self, "amax_out");
  check_out_dtype("amax_out", out, self.dtype());
  return assign_out(out, amax(self, dim, keepdim), "amax_out");
}
const Tensor& amin_out(const Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim) {
  autograd::check_out_not_differentiable("amin_out", self);
  check_defined(self, "amin_out");
  check_out_dtype("amin_out", out, self.dtype());
  return assign_out(out, amin(self, dim, keepdim), "amin_out");
}

namespace {
// Both outputs are checked before either is written, so a bad second output leaves the first
// untouched.
std::tuple<const Tensor&, const Tensor&> write_values_indices(
    const char* op, const Tensor& values_out, const Tensor& indices_out, const Tensor& self,
    const std::tuple<Tensor, Tensor>& result) {
  check_out_dtype(op, values_out, self.dtype(), "values");
  check_out_dtype(op, indices_out, kLong, "indices");
  check_out_like(values_out, std::get<0>(result), op, "values");
  check_out_like(indices_out, std::get<1>(result), op, "indices");
  assign_out(values_out, std::get<0>(result), op, "values");
  assign_out(indices_out, std::get<1>(result), op, "indices");
  return {values_out, indices_out};
}
}  // namespace

std::tuple<const Tensor&, const Tensor&> max_out(const Tensor& max_values_out,
                                                 const Tensor& indices_out, const Tensor& self,
                                                 int64_t dim, bool keepdim) {
  autograd::check_out_not_differentiable("max_out", self);
  check_defined(self, "max_out");
  return write_values_indices("max_out", max_values_out, indices_out, self,
                              max(self, dim, keepdim));
}
std::tuple<const Tensor&, const Tensor&> min_out(const Tensor& min_values_out,
                                                 const Tensor& indices_out, const Tensor& self,
                                                 int64_t dim, bool keepdim) {
  autograd::check_out_not_differentiable("min_out", self);
  check_defined(self, "min_out");
  return write_values_indices("min_out", min_values_out, indices_out, self,
                              min(self, dim, keepdim));
}

const Tensor& cumsum_out(const Tensor& out, const Tensor& self, int64_t dim,
                         std::optional<ScalarType> dtype) {
  autograd::check_out_not_differentiable("cumsum_out", self);
  const ScalarType acc = accumulate_dtype("cumsum_out", out, dtype);
  return assign_out(out, cumsum(self, dim, acc), "cumsum_out");
}
const Tensor& cumprod_out(const Tensor& out, const Tensor& self, int64_t dim,
                          std::optional<ScalarType> dtype) {
  autograd::check_out_not_differentiable("cumprod_out", self);
  const ScalarType acc = accumulate_dtype("cumprod_out", out, dtype);
  return assign_out(out, cumprod(self, dim, acc), "cumprod_out");
}

// ---- Products: out must have the inputs' dtype (LibTorch: "Expected out tensor to have dtype") --

const Tensor& matmul_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  autograd::check_out_not_differentiable("matmul_out", self, other);
  check_defined(self, "matmul_out");
  check_out_dtype("matmul_out", out, self.dtype());
  return assign_out(out, matmul(self, other), "matmul_out");
}
const Tensor& bmm_out(const Tensor& out, const Tensor& self, const Tensor& mat2) {
  autograd::check_out_not_differentiable("bmm_out", self, mat2);
  check_defined(self, "bmm_out");
  check_out_dtype("bmm_out", out, self.dtype());
  return assign_out(out, bmm(self, mat2), "bmm_out");
}
const Tensor& addmm_out(const Tensor& out, const Tensor& self, const Tensor& mat1,
                        const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  autograd::check_out_not_differentiable("addmm_out", self, mat1, mat2);
  check_defined(mat1, "addmm_out", "mat1");
  check_out_dtype("addmm_out", out, mat1.dtype());
  return assign_out(out, addmm(self, mat1, mat2, beta, alpha), "addmm_out");
}

const Tensor& logsumexp_out(const Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim) {
  autograd::check_out_not_differentiable("logsumexp_out", self);
  check_defined(self, "logsumexp_out");
  return assign_out(out, logsumexp(self, dim, keepdim), "logsumexp_out");
}

// softmax_out/log_softmax_out: out's dtype must be the result's (`dtype` when given), as
// LibTorch's kernels write straight into out.
const Tensor& softmax_out(const Tensor& out, const Tensor& self, int64_t dim,
                          std::optional<ScalarType> dtype) {
  autograd::check_out_not_differentiable("softmax_out", self);
  check_defined(self, "softmax_out");
  Tensor result = softmax(self, dim, dtype);
  check_out_dtype("softmax_out", out, result.dtype());
  return assign_out(out, result, "softmax_out");
}
const Tensor& log_softmax_out(const Tensor& out, const Tensor& self, int64_t dim,
                              std::optional<ScalarType> dtype) {
  autograd::check_out_not_differentiable("log_softmax_out", self);
  check_defined(self, "log_softmax_out");
  Tensor result = log_softmax(self, dim, dtype);
  check_out_dtype("log_softmax_out", out, result.dtype());
  return assign_out(out, result, "log_softmax_out");
}

// ---- lerp_out, lerp_ ----

const Tensor& lerp_out(const Tensor& out, const Tensor& self, const Tensor& end,
                       const Scalar& weight) {
  check_defined(self, "lerp_out");
  return lerp_out(out, self, end, scalar_to_tensor(weight, self.dtype(), self.device()));
}
const Tensor& lerp_out(const Tensor& out, const Tensor& self, const Tensor& end,
                       const Tensor& weight) {
  autograd::check_out_not_differentiable("lerp_out", self, end, weight);
  check_defined(out, "lerp_out", "out");
  check_defined(self, "lerp_out");
  check_defined(end, "lerp_out", "end");
  check_defined(weight, "lerp_out", "weight");
  EMBER_CHECK_TYPE(
      out.dtype() == self.dtype() && end.dtype() == self.dtype() && weight.dtype() == self.dtype(),
      "lerp_out: expected out, self, end and weight to have the same dtype, but got "
      "{}, {}, {} and {}",
      out.dtype(), self.dtype(), end.dtype(), weight.dtype());
  ternary_op(OpId::lerp, self, end, weight, {}, &out, self.dtype(), /*float_only=*/true);
  return out;
}

const Tensor& Tensor::lerp_(const Tensor& end, const Scalar& weight) const {
  check_defined(*this, "lerp_");
  return lerp_(end, scalar_to_tensor(weight, dtype(), device()));
}
const Tensor& Tensor::lerp_(const Tensor& end, const Tensor& weight) const {
  check_defined(*this, "lerp_");
  check_defined(end, "lerp_", "end");
  check_defined(weight, "lerp_", "weight");
  EMBER_CHECK_TYPE(dtype() == end.dtype() && dtype() == weight.dtype(),
                   "lerp_: expected self, end and weight to have the same dtype, but got {}, {} "
                   "and {}",
                   dtype(), end.dtype(), weight.dtype());
  // The shared elementwise body writes in place when out is self, and refuses to grow self.
  ternary_op(OpId::lerp, *this, end, weight, {}, this, dtype(), /*float_only=*/true);
  return *this;
}

}  // namespace ember
