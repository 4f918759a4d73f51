// Ops along one dim: softmax, log_softmax, cumsum, cumprod, sort, argsort, topk, median, and
// their Tensor methods. Each makes its input contiguous and runs a DimLoop kernel
// (kernels/cpu/reduce_dim_kernels.cpp) over the [outer, size, inner] view.
#include <cmath>
#include <limits>

#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"
#include "src/autograd/derivatives/reduction.h"
#include "src/ops/reduction_common.h"

namespace ember {

namespace {
DimVector sizes_with(IntArrayRef sizes, int64_t dim, int64_t value) {
  DimVector out(sizes);
  if (!out.empty()) out[dim] = value;
  return out;
}

Tensor softmax_impl(OpId op, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  const char* name = op_name(op);
  check_defined(self, name);
  const int64_t d = wrap_dim(dim, self.dim(), name);
  autograd::OpRecording rec(self);
  Tensor in = dtype ? cast_to(self, *dtype) : self;
  EMBER_CHECK_TYPE(is_floating_point(in.dtype()),
                   "{}: not implemented for dtype {}: expected a floating point tensor. Hint: pass "
                   "dtype=ember::kFloat",
                   name, in.dtype());
  Tensor c = in.contiguous();
  Tensor out = empty(c.sizes(), c.options());
  DimLoop L = make_dim_loop(c, d);
  L.out[0] = static_cast<char*>(out.data_ptr());
  L.out_dtype = out.dtype();
  run_dim_kernel(op, c.device(), L);
  if (rec) {
    if (op == OpId::softmax)
      autograd::derivatives::softmax(out, self, d);
    else
      autograd::derivatives::log_softmax(out, self, d);
  }
  return out;
}

// grad_input of softmax (log_softmax) from its output y and the gradient g: y·(g - Σ g·y)
// (g - exp(y)·Σ g) along d. Rows (d the last dim of the contiguous output) run one fused kernel
// where the device has it; otherwise, or when autograd must record (double backward), the
// composition.
Tensor softmax_backward_impl(OpId op, const Tensor& grad, const Tensor& output, int64_t dim,
                             ScalarType input_dtype) {
  const char* name = op_name(op);
  check_defined(grad, name);
  check_defined(output, name);
  EMBER_CHECK_VALUE(grad.sizes() == output.sizes(),
                    "{}: grad_output and output must have the same size, got {} and {}", name,
                    grad.sizes(), output.sizes());
  EMBER_CHECK_TYPE(grad.dtype() == output.dtype() && is_floating_point(output.dtype()) &&
                       is_floating_point(input_dtype),
                   "{}: expected floating grad_output and output of one dtype and a floating "
                   "input_dtype, got {}, {} and {}",
                   name, grad.dtype(), output.dtype(), input_dtype);
  EMBER_CHECK(grad.device() == output.device(),
              "{}: grad_output and output must be on one device, got {} and {}", name,
              grad.device(), output.device());
  const int64_t d = wrap_dim(dim, output.dim(), name);
  const bool is_log = op == OpId::log_softmax_backward;
  auto composed = [&] {
    // 16-bit operands compute in float, as the kernel (and PyTorch) do: rounding every
    // intermediate to 16 bits would drift from both.
    const bool widen = is_reduced_float(output.scalar_type());
    const Tensor g = widen ? cast_to(grad, kFloat) : grad;
    const Tensor y = widen ? cast_to(output, kFloat) : output;
    Tensor r = is_log ? g - y.exp() * g.sum({d}, /*keepdim=*/true)
                      : y * (g - (g * y).sum({d}, /*keepdim=*/true));
    return cast_to(r, input_dtype);
  };
  if (autograd::needs_grad(grad, output) || output.dim() == 0 || d != output.dim() - 1 ||
      !supports(op, output.device().type(), output.scalar_type()))
    return composed();
  Tensor y = output.contiguous(), g = grad.contiguous();
  Tensor out = empty(y.sizes(), y.options());
  DimLoop L = make_dim_loop(y, d);
  L.in2 = static_cast<const char*>(g.data_ptr());
  L.out[0] = static_cast<char*>(out.data_ptr());
  L.out_dtype = out.dtype();
  run_dim_kernel(op, y.device(), L);
  return cast_to(out, input_dtype);
}

// Integers and bool scan into int64 unless a dtype is given; a dtype converts the input first.
Tensor scan_impl(OpId op, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  const char* name = op_name(op);
  check_defined(self, name);
  const int64_t d = wrap_dim(dim, self.dim(), name);
  autograd::OpRecording rec(self);
  const ScalarType out_dtype =
      dtype ? *dtype : (is_integral(self.dtype(), true) ? kLong : self.dtype());
  Tensor c = (dtype ? cast_to(self, *dtype) : self).contiguous();
  Tensor out =
      empty(c.sizes(), c.options().dtype(is_integral(c.dtype(), true) ? kLong : c.dtype()));
  DimLoop L = make_dim_loop(c, d);
  L.out[0] = static_cast<char*>(out.data_ptr());
  L.out_dtype = out.dtype();
  run_dim_kernel(op, c.device(), L);
  Tensor r = cast_to(out, out_dtype);
  if (rec) {
    if (op == OpId::cumsum)
      autograd::derivatives::cumsum(r, self, d);
    else
      autograd::derivatives::cumprod(r, self, d);
  }
  return r;
}
}  // namespace

Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl(OpId::softmax, self, dim, dtype);
}
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl(OpId::log_softmax, self, dim, dtype);
}
Tensor _softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                              ScalarType input_dtype) {
  return softmax_backward_impl(OpId::softmax_backward, grad_output, output, dim, input_dtype);
}
Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  ScalarType input_dtype) {
  return softmax_backward_impl(OpId::log_softmax_backward, grad_output, output, dim, input_dtype);
}
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return scan_impl(OpId::cumsum, self, dim, dtype);
}
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return scan_impl(OpId::cumprod, self, dim, dtype);
}

namespace {
// Stable: equal values keep their order; NaN sorts above +inf.
std::tuple<Tensor, Tensor> sort_impl(const Tensor& self, int64_t d, bool descending) {
  Tensor c = self.contiguous();
  Tensor values = empty(c.sizes(), c.options());
  Tensor indices = empty(c.sizes(), c.options().dtype(kLong));
  DimLoop L = make_dim_loop(c, d);
  L.out[0] = static_cast<char*>(values.data_ptr());
  L.out[1] = static_cast<char*>(indices.data_ptr());
  L.out_dtype = values.dtype();
  L.descending = descending;
  run_dim_kernel(OpId::sort, c.device(), L);
  return {values, indices};
}
}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  check_defined(self, "sort");
  const int64_t d = wrap_dim(dim, self.dim(), "sort");
  autograd::OpRecording rec(self);
  auto [values, indices] = sort_impl(self, d, descending);
  if (rec) autograd::derivatives::sort("SortBackward0", values, indices, self, d);
  return {values, indices};
}
Tensor argsort(const Tensor& self, int64_t dim, bool descending) {
  check_defined(self, "argsort");
  return std::get<1>(sort_impl(self, wrap_dim(dim, self.dim(), "argsort"), descending));
}

// The k largest (or smallest) along dim, always in sorted order (which `sorted = false` allows);
// ties go to the lower index, NaN counts as the largest value.
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest,
                                bool /*sorted*/) {
  check_defined(self, "topk");
  const int64_t d = wrap_dim(dim, self.dim(), "topk");
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
  EMBER_CHECK(k >= 0 && k <= size,
              "topk: selected index k out of range: k = {}, but dim {} has size {}. Hint: k must "
              "be in [0, {}]",
              k, d, size, size);
  if (self.dim() == 0)  // PyTorch returns the element itself for k = 0 or 1 (clone records)
    return {self.clone(), zeros({}, self.options().dtype(kLong))};
  autograd::OpRecording rec(self);
  Tensor c = self.contiguous();
  DimVector shape = sizes_with(c.sizes(), d, k);
  Tensor values = empty(shape, c.options());
  Tensor indices = empty(shape, c.options().dtype(kLong));
  DimLoop L = make_dim_loop(c, d);
  L.k = k;
  L.descending = largest;
  L.out[0] = static_cast<char*>(values.data_ptr());
  L.out[1] = static_cast<char*>(indices.data_ptr());
  L.out_dtype = values.dtype();
  run_dim_kernel(OpId::topk, c.device(), L);
  if (rec) autograd::derivatives::sort("TopkBackward0", values, indices, self, d);
  return {values, indices};
}

// The lower median: of an even count, the smaller of the two middle values.
Tensor median(const Tensor& self) {
  check_defined(self, "median");
  autograd::OpRecording rec(self);
  Tensor value;
  if (self.numel() == 0) {
    // PyTorch returns nan (converted to the dtype) for an empty input.
    value = full({}, std::numeric_limits<double>::quiet_NaN(), self.options().dtype(kDouble))
                .to(self.dtype());
  } else {
    Tensor c = self.contiguous();
    value = empty({}, c.options());
    DimLoop L;
    L.size = c.numel();
    L.in = static_cast<const char*>(c.data_ptr());
    L.in_dtype = c.dtype();
    L.out[0] = static_cast<char*>(value.data_ptr());
    L.out_dtype = value.dtype();
    run_dim_kernel(OpId::median, c.device(), L);
  }
  // Without a dim, PyTorch splits the gradient among the elements equal to the median.
  if (rec)
    autograd::derivatives::evenly_distribute("MedianBackward0", value, self,
                                             all_dims_mask(self.dim()), false);
  return value;
}

std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim) {
  check_defined(self, "median");
  const int64_t d = wrap_dim(dim, self.dim(), "median");
  const DimMask mask = self.dim() == 0 ? 0 : DimMask(1) << d;
  check_nonempty_reduction(self, mask, false, "median");
  autograd::OpRecording rec(self);
  Tensor c = self.contiguous();
  DimVector shape = reduced_shape(c.sizes(), mask, keepdim);
  Tensor values = empty(shape, c.options());
  Tensor indices = empty(shape, c.options().dtype(kLong));
  DimLoop L = make_dim_loop(c, d);
  L.out[0] = static_cast<char*>(values.data_ptr());
  L.out[1] = static_cast<char*>(indices.data_ptr());
  L.out_dtype = values.dtype();
  run_dim_kernel(OpId::median, c.device(), L);
  if (rec)
    autograd::derivatives::value_selecting("MedianBackward1", values, indices, self, d, keepdim);
  return {values, indices};
}

// ---- Tensor methods ----
Tensor Tensor::softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::softmax(*this, dim, dtype);
}
Tensor Tensor::log_softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::log_softmax(*this, dim, dtype);
}
Tensor Tensor::cumsum(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::cumsum(*this, dim, dtype);
}
Tensor Tensor::cumprod(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::cumprod(*this, dim, dtype);
}
std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  return ember::topk(*this, k, dim, largest, sorted);
}
std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const {
  return ember::sort(*this, dim, descending);
}
Tensor Tensor::argsort(int64_t dim, bool descending) const {
  return ember::argsort(*this, dim, descending);
}
Tensor Tensor::median() const { return ember::median(*this); }
std::tuple<Tensor, Tensor> Tensor::median(int64_t dim, bool keepdim) const {
  return ember::median(*this, dim, keepdim);
}

}  // namespace ember
