// Gradient test entries of the reduction ops (see grad_op_info.h), in reduction.h order.
#include <algorithm>
#include <cmath>

#include "tests/autograd/grad_op_info.h"

using namespace ember;

namespace {
using Inputs = std::vector<Tensor>;
using Shape = std::vector<int64_t>;
const Shape k2d = {3, 4};
const Shape k3d = {2, 3, 4};

GradOpInfo unary(std::string name, Shape shape, std::function<Tensor(const Tensor&)> f) {
  GradOpInfo info;
  info.name = std::move(name);
  info.shapes = {std::move(shape)};
  info.fn = [f = std::move(f)](const Inputs& x) { return f(x[0]); };
  info.broadcast = false;
  return info;
}
// Modifiers: also run gradgradcheck; skip the zero-size variant (the op rejects an empty reduced
// dim); draw the input from `make`.
GradOpInfo gradgrad(GradOpInfo info) {
  info.gradgrad = true;
  return info;
}
GradOpInfo nonempty(GradOpInfo info) {
  info.zero_size = false;
  return info;
}
GradOpInfo with_input(GradOpInfo info,
                      std::function<Tensor(size_t, const std::vector<int64_t>&)> make) {
  info.make_input = std::move(make);
  return info;
}
int64_t numel_of(const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

Tensor random_signs(const Shape& shape) {
  Tensor sign = empty(shape, kDouble).uniform_(-1, 1).sign();
  return where(sign == 0, 1, sign);
}

// Values whose magnitudes are distinct, at least 1.5/n apart (far beyond gradcheck's step), and
// in [0.5, 2], with random signs and order: no ties (nor ties of |x|, for the inf-norm) for sort,
// topk, median and max to break differently under perturbation.
Tensor distinct(size_t, const Shape& shape) {
  const int64_t n = numel_of(shape);
  Tensor spaced = arange(n, TensorOptions().dtype(kDouble)) * (1.5 / std::max<int64_t>(n, 1)) + 0.5;
  Tensor order = empty({n}, kDouble).uniform_(0, 1).argsort();
  return spaced.index_select(0, order).reshape(shape) * random_signs(shape);
}

// Uniform in [-2, 2] with the elements at flat positions 0, 5 and 7 set to 0: slices with no
// zero, one zero and two zeros.
Tensor with_zeros(size_t, const Shape& shape) {
  Tensor t = empty(shape, kDouble).uniform_(-2, 2);
  if (t.numel() == 0) return t;
  Tensor flat = t.view({-1});
  for (int64_t i : {0, 5, 7})
    if (i < flat.numel()) flat[i].fill_(0);
  return t;
}
// |x| in [0.5, 2] with random signs: away from the kinks and poles of |x|^p, p < 2.
Tensor away_from_zero(size_t, const Shape& shape) {
  return empty(shape, kDouble).uniform_(0.5, 2) * random_signs(shape);
}
}  // namespace

void add_reduction_grad_ops(std::vector<GradOpInfo>& ops) {
  using T = const Tensor&;

  // sum / mean
  ops.push_back(gradgrad(unary("sum", k2d, [](T x) { return sum(x); })));
  ops.push_back(gradgrad(unary("sum", k2d, [](T x) { return x.sum({1}); })));
  ops.push_back(unary("sum", k3d, [](T x) { return x.sum({0, 2}, true); }));
  ops.push_back(unary("sum", k3d, [](T x) { return x.sum({-1}, false, kDouble); }));
  ops.push_back(gradgrad(unary("mean", k2d, [](T x) { return mean(x); })));
  ops.push_back(gradgrad(unary("mean", k2d, [](T x) { return x.mean({0}); })));
  ops.push_back(unary("mean", k3d, [](T x) { return x.mean({0, 2}, true); }));

  // prod: without zeros (the result / x path) and with zeros (exclusive products; with_zeros has
  // slices with one and with two zeros)
  ops.push_back(gradgrad(unary("prod", k2d, [](T x) { return prod(x); })));
  ops.push_back(gradgrad(unary("prod", k2d, [](T x) { return x.prod(1); })));
  ops.push_back(unary("prod", k3d, [](T x) { return x.prod(0, true); }));
  ops.push_back(
      gradgrad(with_input(unary("prod", k2d, [](T x) { return x.prod(1); }), with_zeros)));
  ops.push_back(with_input(unary("prod", k2d, [](T x) { return x.prod(0, true); }), with_zeros));
  ops.push_back(with_input(unary("prod", {2, 2}, [](T x) { return prod(x); }), with_zeros));
  ops.push_back(
      gradgrad(with_input(unary("prod", {2, 3}, [](T x) { return prod(x); }), with_zeros)));

  // amax / amin / max / min (distinct values: no ties; the ties are in reduction_grad_test.cpp)
  ops.push_back(
      gradgrad(with_input(unary("amax", k2d, [](T x) { return x.amax({1}); }), distinct)));
  ops.push_back(nonempty(with_input(unary("amax", k3d,
                                          [](T x) {
                                            return x.amax({0, 2}, true);
                                          }),
                                    distinct)));
  ops.push_back(nonempty(with_input(unary("amax", k2d, [](T x) { return amax(x); }), distinct)));
  ops.push_back(with_input(unary("amin", k2d, [](T x) { return x.amin({-1}); }), distinct));
  ops.push_back(with_input(unary("amin", k3d, [](T x) { return x.amin({1, 2}, true); }), distinct));
  ops.push_back(nonempty(with_input(unary("max", k2d, [](T x) { return max(x); }), distinct)));
  ops.push_back(
      with_input(unary("max", k2d, [](T x) { return std::get<0>(max(x, 1)); }), distinct));
  ops.push_back(nonempty(
      with_input(unary("max", k3d, [](T x) { return std::get<0>(max(x, 0, true)); }), distinct)));
  ops.push_back(nonempty(with_input(unary("min", k2d, [](T x) { return min(x); }), distinct)));
  ops.push_back(
      with_input(unary("min", k2d, [](T x) { return std::get<0>(min(x, -1, true)); }), distinct));
  ops.push_back(
      with_input(unary("min", k3d, [](T x) { return std::get<0>(min(x, 1)); }), distinct));

  // var / std and their *_mean forms, with the correction
  ops.push_back(gradgrad(unary("var", k2d, [](T x) { return var(x); })));
  ops.push_back(gradgrad(unary("var", k2d, [](T x) { return var(x, IntArrayRef{1}); })));
  ops.push_back(unary("var", k3d, [](T x) { return var(x, IntArrayRef{0, 2}, 0.0, true); }));
  ops.push_back(unary("var", k2d, [](T x) { return var(x, IntArrayRef{1}, 2.5); }));
  ops.push_back(gradgrad(unary("std", k2d, [](T x) { return ember::std(x); })));
  ops.push_back(unary("std", k2d, [](T x) { return ember::std(x, IntArrayRef{0}, 0.0, true); }));
  ops.push_back(unary("std", k3d, [](T x) { return ember::std(x, IntArrayRef{-1}, 2.0); }));
  // Both outputs, with different weights; each alone (the other's gradient is undefined).
  ops.push_back(unary("var_mean", k2d, [](T x) {
    auto [v, m] = var_mean(x, IntArrayRef{1});
    return v + m * 3;
  }));
  ops.push_back(unary("var_mean", k3d, [](T x) {
    return std::get<0>(var_mean(x, IntArrayRef{0, 2}, 0.0, true));
  }));
  ops.push_back(gradgrad(unary("var_mean", k2d, [](T x) { return std::get<1>(var_mean(x)); })));
  ops.push_back(unary("std_mean", k2d, [](T x) {
    auto [s, m] = std_mean(x, IntArrayRef{0}, 2.0);
    return s * 2 - m;
  }));
  ops.push_back(unary("std_mean", k3d,
                      [](T x) { return std::get<0>(std_mean(x, IntArrayRef{1}, 1.0, true)); }));
  ops.push_back(unary("std_mean", k2d, [](T x) { return std::get<1>(std_mean(x)); }));

  // norm: p = 2, 1, inf, -inf, 0, and the general p below 1, between 1 and 2, and above 2
  ops.push_back(gradgrad(unary("norm", k2d, [](T x) { return norm(x); })));
  ops.push_back(gradgrad(unary("norm", k3d, [](T x) { return norm(x, 2, {1, 2}, true); })));
  ops.push_back(
      with_input(unary("norm", k2d, [](T x) { return norm(x, 1, {1}); }), away_from_zero));
  ops.push_back(
      with_input(unary("norm", k2d, [](T x) { return norm(x, INFINITY, {1}); }), distinct));
  ops.push_back(with_input(unary("norm", k2d, [](T x) { return norm(x, -INFINITY); }), distinct));
  ops.push_back(unary("norm", k2d, [](T x) { return norm(x, 0, {0}); }));
  ops.push_back(
      with_input(unary("norm", k2d, [](T x) { return norm(x, 0.5, {1}); }), away_from_zero));
  ops.push_back(gradgrad(
      with_input(unary("norm", k2d, [](T x) { return norm(x, 1.5, {0}, true); }), away_from_zero)));
  ops.push_back(gradgrad(unary("norm", k3d, [](T x) { return norm(x, 3, {0, 1}); })));

  // logsumexp, softmax, log_softmax
  ops.push_back(gradgrad(unary("logsumexp", k2d, [](T x) { return x.logsumexp({1}); })));
  ops.push_back(gradgrad(unary("logsumexp", k3d, [](T x) { return x.logsumexp({0, 2}, true); })));
  ops.push_back(unary("logsumexp", k2d, [](T x) { return logsumexp(x, {}); }));
  ops.push_back(gradgrad(unary("softmax", k2d, [](T x) { return softmax(x, 1); })));
  ops.push_back(gradgrad(unary("softmax", k3d, [](T x) { return softmax(x, 0); })));
  ops.push_back(unary("softmax", {5}, [](T x) { return softmax(x, -1, kDouble); }));
  ops.push_back(gradgrad(unary("log_softmax", k2d, [](T x) { return log_softmax(x, 1); })));
  ops.push_back(gradgrad(unary("log_softmax", k3d, [](T x) { return log_softmax(x, -2); })));
  // The gradients themselves (ATen's _*_backward_data), differentiable in grad and output.
  ops.push_back(grad_op_entry("_softmax_backward_data", {{3, 4}, {3, 4}}, [](const auto& v) {
    return _softmax_backward_data(v[0], v[1], 1, kDouble);
  }));
  ops.push_back(grad_op_entry(
      "_log_softmax_backward_data", {{4, 3, 2}, {4, 3, 2}},
      [](const auto& v) { return _log_softmax_backward_data(v[0], v[1], 0, kDouble); }));

  // cumsum, cumprod (with_zeros along dim 1: slices with one and two zeros; along dim 0: at most
  // one zero a slice, where the second derivative is exact too)
  ops.push_back(gradgrad(unary("cumsum", k2d, [](T x) { return cumsum(x, 1); })));
  ops.push_back(unary("cumsum", k3d, [](T x) { return cumsum(x, 0); }));
  ops.push_back(unary("cumsum", k2d, [](T x) { return cumsum(x, -1, kDouble); }));
  ops.push_back(gradgrad(unary("cumprod", k2d, [](T x) { return cumprod(x, 1); })));
  ops.push_back(unary("cumprod", k3d, [](T x) { return cumprod(x, 0); }));
  ops.push_back(with_input(unary("cumprod", k2d, [](T x) { return cumprod(x, 1); }), with_zeros));
  ops.push_back(
      with_input(unary("cumprod", {2, 6}, [](T x) { return cumprod(x, 1); }), with_zeros));
  ops.push_back(
      gradgrad(with_input(unary("cumprod", k2d, [](T x) { return cumprod(x, 0); }), with_zeros)));

  // sort, topk (values), median
  ops.push_back(
      gradgrad(with_input(unary("sort", k2d, [](T x) { return std::get<0>(sort(x)); }), distinct)));
  ops.push_back(
      with_input(unary("sort", k3d, [](T x) { return std::get<0>(sort(x, 0, true)); }), distinct));
  ops.push_back(
      with_input(unary("topk", k2d, [](T x) { return std::get<0>(topk(x, 2)); }), distinct));
  ops.push_back(with_input(
      unary("topk", k3d, [](T x) { return std::get<0>(topk(x, 2, 1, false)); }), distinct));
  ops.push_back(
      with_input(unary("topk", k2d, [](T x) { return std::get<0>(topk(x, 4, -1)); }), distinct));
  ops.push_back(with_input(unary("median", k2d, [](T x) { return median(x); }), distinct));
  ops.push_back(
      with_input(unary("median", k2d, [](T x) { return std::get<0>(median(x, 1)); }), distinct));
  ops.push_back(nonempty(with_input(
      unary("median", k3d, [](T x) { return std::get<0>(median(x, 0, true)); }), distinct)));
}
