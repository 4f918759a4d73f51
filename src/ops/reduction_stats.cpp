// Statistics over dims: var, std, var_mean, std_mean, norm, logsumexp, and their Tensor methods.
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/autograd/derivatives/reduction.h"
#include "src/ops/reduction_common.h"

namespace ember {

namespace {
// One kernel for all four: moments accumulated in float64 (two passes per block), written as the
// input dtype; the mean as a second output for *_mean.
std::tuple<Tensor, Tensor> moments(const char* name, const Tensor& self, OptionalIntArrayRef dim,
                                   std::optional<double> correction, bool keepdim, bool take_sqrt,
                                   bool with_mean) {
  check_defined(self, name);
  EMBER_CHECK_TYPE(is_floating_point(self.dtype()),
                   "{}: only floating point dtypes are supported, got {}. Hint: convert with "
                   ".to(ember::kFloat)",
                   name, self.dtype());
  const DimMask mask = dim ? make_dim_mask(*dim, self.dim(), name) : all_dims_mask(self.dim());
  autograd::OpRecording rec(self);
  OpScalars s;
  s.s[0] = correction.value_or(1.0);
  s.s[1] = take_sqrt ? 1.0 : 0.0;
  DimVector shape = reduced_shape(self.sizes(), mask, keepdim);
  Tensor out = empty(shape, self.options());
  Tensor mean = with_mean ? empty(shape, self.options()) : Tensor();
  run_reduction(OpId::var, self, mask, keepdim, out, &mean, s);
  if (rec) {
    namespace dv = autograd::derivatives;
    if (with_mean && take_sqrt)
      dv::std_mean(out, mean, self, mask, s.s[0], keepdim);
    else if (with_mean)
      dv::var_mean(out, mean, self, mask, s.s[0], keepdim);
    else if (take_sqrt)
      dv::std(out, self, mask, s.s[0], keepdim);
    else
      dv::var(out, self, mask, s.s[0], keepdim);
  }
  return {out, mean};
}

Tensor norm_over(const char* node_name, const Tensor& self, const Scalar& p, DimMask mask,
                 bool keepdim) {
  check_defined(self, "norm");
  EMBER_CHECK_TYPE(is_floating_point(self.dtype()),
                   "norm: input dtype should be floating point, got {}. Hint: convert with "
                   ".to(ember::kFloat)",
                   self.dtype());
  autograd::OpRecording rec(self);
  Tensor r;
  // PyTorch gives 0 for an empty reduction whatever p is (even -inf, whose identity is +inf).
  if (reduced_numel(self.sizes(), mask) == 0) {
    r = zeros(reduced_shape(self.sizes(), mask, keepdim), self.options());
  } else {
    OpScalars s;
    s.s[0] = p.toDouble();
    r = reduce_into_new(OpId::norm, self, mask, keepdim, self.dtype(), s);
  }
  if (rec) autograd::derivatives::norm(node_name, r, self, p.toDouble(), mask, keepdim);
  return r;
}
}  // namespace

// Each of var/std/var_mean/std_mean in LibTorch's four spellings (see ops/reduction.h).
#define EMBER_DEFINE_MOMENT(Ret, name, take, take_sqrt, with_mean)                        \
  Ret name(const Tensor& self, OptionalIntArrayRef dim, std::optional<double> correction, \
           bool keepdim) {                                                                \
    return take(moments(#name, self, dim, correction, keepdim, take_sqrt, with_mean));    \
  }                                                                                       \
  Ret name(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {    \
    return name(self, dim, std::optional<double>(unbiased ? 1.0 : 0.0), keepdim);         \
  }                                                                                       \
  Ret name(const Tensor& self, bool unbiased) { return name(self, std::nullopt, unbiased); }

namespace {
Tensor first(std::tuple<Tensor, Tensor> both) { return std::get<0>(std::move(both)); }
std::tuple<Tensor, Tensor> both(std::tuple<Tensor, Tensor> both) { return both; }
}  // namespace
using MomentPair = std::tuple<Tensor, Tensor>;
EMBER_DEFINE_MOMENT(Tensor, var, first, false, false)
EMBER_DEFINE_MOMENT(Tensor, std, first, true, false)
EMBER_DEFINE_MOMENT(MomentPair, var_mean, both, false, true)
EMBER_DEFINE_MOMENT(MomentPair, std_mean, both, true, true)
#undef EMBER_DEFINE_MOMENT

Tensor norm(const Tensor& self, const Scalar& p) {
  check_defined(self, "norm");
  return norm_over("NormBackward0", self, p, all_dims_mask(self.dim()), false);
}
Tensor norm(const Tensor& self, const Scalar& p, IntArrayRef dim, bool keepdim) {
  check_defined(self, "norm");
  return norm_over("NormBackward1", self, p, make_dim_mask(dim, self.dim(), "norm"), keepdim);
}

// log(sum(exp(x))) = m + log(sum(exp(x - m))) with m the max, replaced by 0 where it is ±inf so
// that all -inf rows give -inf (not nan) and +inf rows give +inf. NaN propagates through m.
Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) {
  check_defined(self, "logsumexp");
  const DimMask mask = make_dim_mask(dim, self.dim(), "logsumexp");
  autograd::OpRecording rec(self);
  Tensor x = is_floating_point(self.dtype()) ? self : self.to(get_default_dtype());
  Tensor s;
  if (x.numel() == 0) {
    s = reduce_into_new(OpId::sum, exp(x), mask, keepdim, x.dtype());
    s.log_();
  } else {
    Tensor m = reduce_into_new(OpId::amax, x, mask, true, x.dtype());
    m = where(isinf(m), 0, m);
    s = reduce_into_new(OpId::sum, exp(x - m), mask, keepdim, x.dtype());
    s.log_();
    s.add_(keepdim ? m : m.view(reduced_shape(x.sizes(), mask, false)));
  }
  if (rec) autograd::derivatives::logsumexp(s, self, mask, keepdim);
  return s;
}

// ---- Tensor methods ----
Tensor Tensor::var(bool unbiased) const { return ember::var(*this, unbiased); }
Tensor Tensor::var(OptionalIntArrayRef dim, bool unbiased, bool keepdim) const {
  return ember::var(*this, dim, unbiased, keepdim);
}
Tensor Tensor::var(OptionalIntArrayRef dim, std::optional<double> correction, bool keepdim) const {
  return ember::var(*this, dim, correction, keepdim);
}
Tensor Tensor::std(bool unbiased) const { return ember::std(*this, unbiased); }
Tensor Tensor::std(OptionalIntArrayRef dim, bool unbiased, bool keepdim) const {
  return ember::std(*this, dim, unbiased, keepdim);
}
Tensor Tensor::std(OptionalIntArrayRef dim, std::optional<double> correction, bool keepdim) const {
  return ember::std(*this, dim, correction, keepdim);
}
Tensor Tensor::norm(const Scalar& p) const { return ember::norm(*this, p); }
Tensor Tensor::norm(const Scalar& p, IntArrayRef dim, bool keepdim) const {
  return ember::norm(*this, p, dim, keepdim);
}
Tensor Tensor::logsumexp(IntArrayRef dim, bool keepdim) const {
  return ember::logsumexp(*this, dim, keepdim);
}

}  // namespace ember
