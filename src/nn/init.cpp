#include "ember/nn/init.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/factory.h"
#include "ember/ops/linalg.h"
#include "src/core/check.h"
#include "src/core/parallel.h"
#include "src/ops/op_common.h"

namespace ember::nn::init {

namespace {

// Random fills make no sense for integer or bool tensors (PyTorch has no such kernels either).
void check_floating(const Tensor& t, const char* op) {
  check_defined(t, op, "tensor");
  EMBER_CHECK_TYPE(t.is_floating_point(),
                   "{}: expected a floating point tensor, got {} {}. Hint: initialise a float32 "
                   "or float64 tensor and convert it with .to()",
                   op, t.dtype(), t.sizes());
}

std::tuple<int64_t, int64_t> fans(const Tensor& t, const char* op) {
  check_defined(t, op, "tensor");
  EMBER_CHECK_VALUE(t.dim() >= 2,
                    "{}: Fan in and fan out can not be computed for tensor with fewer than 2 "
                    "dimensions: got {}-D {}. Hint: pass a weight of shape [out, in, ...]",
                    op, t.dim(), t.sizes());
  int64_t receptive = 1;
  for (int64_t d = 2; d < t.dim(); ++d) receptive *= t.size(d);
  return {t.size(1) * receptive, t.size(0) * receptive};
}

// erfinv on [-1, 1] to float64 precision (Ember has no erfinv kernel; this is the only user).
// A first guess from Giles' single-precision approximation ("Approximating the erfinv function",
// GPU Computing Gems, 2011; relative error ~1e-7), then Newton steps until the last one was below
// 1e-8 relative, after which the quadratic convergence leaves ~1e-16: on erf(y) = |x| near the
// centre, and in the tails on log(erfc(y)) = log(1 - |x|), where erfc keeps full relative
// precision and the log makes the function nearly linear, so the steps converge even for
// 1 - |x| ~ 1e-16. Measured against bisection: relative error <= 5e-16 over (-1, 1); |x| = 1
// gives the value at the largest double below 1 (5.86), not infinity.
// A scalar loop rather than composed tensor ops: each element needs only its own branch and 2-3
// steps, ~100 ns, where the composed form evaluated every branch and step (~13x slower).
double erfinv(double x) {
  const double z = std::min(std::fabs(x), std::nextafter(1.0, 0.0));
  const double one_minus_z = 1.0 - z;  // exact for z >= 0.5, where the tail steps use it
  const double w = -std::log((1.0 + z) * one_minus_z);
  double p;
  if (w < 5.0) {
    const double v = w - 2.5;
    p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                     -0.00417768164, 0.246640727, 1.50140941})
      p = p * v + c;
  } else {
    const double v = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                     0.00943887047, 1.00167406, 2.83297682})
      p = p * v + c;
  }
  double y = p * z;
  const bool centre = z < 0.5;
  const double log_target = centre ? 0.0 : std::log(one_minus_z);
  constexpr double kTwoOverSqrtPi = 1.1283791670955126;
  for (int step = 0; step < 6; ++step) {
    const double slope = kTwoOverSqrtPi * std::exp(-y * y);  // d erf(y) / dy
    double dy;
    if (centre) {
      dy = (z - std::erf(y)) / slope;
    } else {
      const double ec = std::erfc(y);
      dy = (std::log(ec) - log_target) * ec / slope;
    }
    y += dy;
    if (std::fabs(dy) <= 1e-8 * y) break;
  }
  return std::copysign(y, x);
}

double normal_cdf(double x) { return 0.5 * (1.0 + std::erf(x / std::sqrt(2.0))); }

}  // namespace

double calculate_gain(NonlinearityType nonlinearity, double param) {
  if (std::holds_alternative<enumtype::kTanh>(nonlinearity)) return 5.0 / 3.0;
  if (std::holds_alternative<enumtype::kReLU>(nonlinearity)) return std::sqrt(2.0);
  if (std::holds_alternative<enumtype::kLeakyReLU>(nonlinearity))
    return std::sqrt(2.0 / (1.0 + param * param));
  // Found empirically for SELU (PyTorch PR 50664); self-normalising nets should use kLinear.
  if (std::holds_alternative<enumtype::kSELU>(nonlinearity)) return 3.0 / 4.0;
  return 1.0;  // linear, conv*, conv_transpose*, sigmoid
}

Tensor constant_(Tensor tensor, Scalar value) {
  check_defined(tensor, "nn::init::constant_", "tensor");
  NoGradGuard no_grad;
  tensor.fill_(value);
  return tensor;
}

Tensor ones_(Tensor tensor) {
  check_defined(tensor, "nn::init::ones_", "tensor");
  NoGradGuard no_grad;
  tensor.fill_(1);
  return tensor;
}

Tensor zeros_(Tensor tensor) {
  check_defined(tensor, "nn::init::zeros_", "tensor");
  NoGradGuard no_grad;
  tensor.zero_();
  return tensor;
}

Tensor eye_(Tensor matrix) {
  check_defined(matrix, "nn::init::eye_", "matrix");
  EMBER_CHECK_VALUE(matrix.dim() == 2,
                    "nn::init::eye_: Only tensors with 2 dimensions are supported: got {}-D {}. "
                    "Hint: pass a matrix [rows, cols]",
                    matrix.dim(), matrix.sizes());
  NoGradGuard no_grad;
  matrix.copy_(eye(matrix.size(0), matrix.size(1), TensorOptions().dtype(matrix.dtype())));
  return matrix;
}

Tensor dirac_(Tensor tensor, int64_t groups) {
  const char* op = "nn::init::dirac_";
  check_defined(tensor, op, "tensor");
  const int64_t dims = tensor.dim();
  EMBER_CHECK_VALUE(dims >= 3 && dims <= 5,
                    "{}: Only tensors with 3, 4, or 5 dimensions are supported: got {}-D {}. "
                    "Hint: pass a conv weight [out, in / groups, k...]",
                    op, dims, tensor.sizes());
  EMBER_CHECK_VALUE(groups > 0, "{}: groups must be positive, got {}", op, groups);
  EMBER_CHECK_VALUE(tensor.size(0) % groups == 0,
                    "{}: dim 0 must be divisible by groups: size(0) = {}, groups = {}. Hint: "
                    "the weight of a grouped conv has out_channels divisible by groups",
                    op, tensor.size(0), groups);
  NoGradGuard no_grad;
  tensor.zero_();
  const int64_t out_per_group = tensor.size(0) / groups;
  const int64_t n = std::min(out_per_group, tensor.size(1));
  // One element per preserved channel: a few hundred fills at most, each a one-element view.
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t d = 0; d < n; ++d) {
      Tensor at = tensor.select(0, g * out_per_group + d).select(0, d);
      for (int64_t k = 2; k < dims; ++k) at = at.select(0, tensor.size(k) / 2);
      at.fill_(1);
    }
  }
  return tensor;
}

Tensor uniform_(Tensor tensor, double low, double high) {
  check_floating(tensor, "nn::init::uniform_");
  NoGradGuard no_grad;
  tensor.uniform_(low, high);
  return tensor;
}

Tensor normal_(Tensor tensor, double mean, double std) {
  check_floating(tensor, "nn::init::normal_");
  NoGradGuard no_grad;
  tensor.normal_(mean, std);
  return tensor;
}

Tensor trunc_normal_(Tensor tensor, double mean, double std, double a, double b) {
  const char* op = "nn::init::trunc_normal_";
  check_floating(tensor, op);
  EMBER_CHECK_VALUE(std > 0, "{}: std must be positive, got {}", op, std);
  EMBER_CHECK_VALUE(a <= b, "{}: the bounds must satisfy a <= b, got a = {}, b = {}", op, a, b);
  NoGradGuard no_grad;
  if (tensor.numel() == 0) return tensor;
  // Inverse-CDF sampling, as Python's: u uniform on [2 cdf(a) - 1, 2 cdf(b) - 1), mapped through
  // the normal quantile mean + std * sqrt(2) * erfinv(u). The uniform draws are the ones PyTorch
  // makes for the tensor's dtype (so a seed gives its numbers), but u and the quantile are worked
  // in float64 on the host: Python rounds u to float32 first, which sends a far tail such as
  // [6, 7] to erfinv(1) = inf, every value clamped to b.
  const double lo = 2 * normal_cdf((a - mean) / std) - 1;
  const double hi = 2 * normal_cdf((b - mean) / std) - 1;
  Tensor u =
      empty(tensor.sizes(), TensorOptions().dtype(tensor.dtype())).uniform_(0, 1).to(kDouble);
  double* data = u.data_ptr<double>();
  const double scale = std::sqrt(2.0) * std;
  parallel_for(0, u.numel(), 4096, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      data[i] = std::clamp(mean + scale * erfinv(lo + (hi - lo) * data[i]), a, b);
  });
  tensor.copy_(u);
  return tensor;
}

Tensor xavier_uniform_(Tensor tensor, double gain) {
  const char* op = "nn::init::xavier_uniform_";
  auto [fan_in, fan_out] = fans(tensor, op);
  check_floating(tensor, op);
  if (tensor.numel() == 0) return tensor;
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  const double bound = std::sqrt(3.0) * std;  // U(-b, b) has std b / sqrt(3)
  NoGradGuard no_grad;
  tensor.uniform_(-bound, bound);
  return tensor;
}

Tensor xavier_normal_(Tensor tensor, double gain) {
  const char* op = "nn::init::xavier_normal_";
  auto [fan_in, fan_out] = fans(tensor, op);
  check_floating(tensor, op);
  if (tensor.numel() == 0) return tensor;
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  NoGradGuard no_grad;
  tensor.normal_(0, std);
  return tensor;
}

namespace {
// std of He init; zero-size tensors are left alone before the fans are asked for, as PyTorch.
double kaiming_std(const Tensor& tensor, double a, const FanModeType& mode,
                   const NonlinearityType& nonlinearity, const char* op) {
  auto [fan_in, fan_out] = fans(tensor, op);
  const int64_t fan = std::holds_alternative<enumtype::kFanIn>(mode) ? fan_in : fan_out;
  return calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan));
}
}  // namespace

Tensor kaiming_uniform_(Tensor tensor, double a, FanModeType mode, NonlinearityType nonlinearity) {
  const char* op = "nn::init::kaiming_uniform_";
  check_floating(tensor, op);
  if (tensor.numel() == 0) return tensor;
  const double bound = std::sqrt(3.0) * kaiming_std(tensor, a, mode, nonlinearity, op);
  NoGradGuard no_grad;
  tensor.uniform_(-bound, bound);
  return tensor;
}

Tensor kaiming_normal_(Tensor tensor, double a, FanModeType mode, NonlinearityType nonlinearity) {
  const char* op = "nn::init::kaiming_normal_";
  check_floating(tensor, op);
  if (tensor.numel() == 0) return tensor;
  const double std = kaiming_std(tensor, a, mode, nonlinearity, op);
  NoGradGuard no_grad;
  tensor.normal_(0, std);
  return tensor;
}

Tensor orthogonal_(Tensor tensor, double gain) {
  const char* op = "nn::init::orthogonal_";
  check_defined(tensor, op, "tensor");
  EMBER_CHECK_VALUE(tensor.dim() >= 2,
                    "{}: Only tensors with 2 or more dimensions are supported: got {}-D {}. Hint: "
                    "pass a weight [out, in, ...]; dims after the first are flattened",
                    op, tensor.dim(), tensor.sizes());
  check_floating(tensor, op);
  if (tensor.numel() == 0) return tensor;
  NoGradGuard no_grad;
  const int64_t rows = tensor.size(0);
  const int64_t cols = tensor.numel() / rows;
  // QR runs on the CPU in float32/float64; 16-bit tensors get a float32 matrix, then rounded.
  const ScalarType work = tensor.dtype() == kDouble ? kDouble : kFloat;
  Tensor flat = empty({rows, cols}, TensorOptions().dtype(work)).normal_(0, 1);
  if (rows < cols) flat = flat.t();  // QR of the tall orientation gives orthonormal columns
  auto [q, r] = linalg::qr(flat);
  // Multiplying each column by the sign of R's diagonal makes Q Haar-distributed (Mezzadri 2007);
  // plain QR output is biased by the factorisation's sign convention.
  q = q * r.diagonal().sign();
  if (rows < cols) q = q.t();
  tensor.copy_(q.mul_(gain).reshape(tensor.sizes()));
  return tensor;
}

Tensor sparse_(Tensor tensor, double sparsity, double std) {
  const char* op = "nn::init::sparse_";
  check_defined(tensor, op, "tensor");
  EMBER_CHECK_VALUE(tensor.dim() == 2,
                    "{}: Only tensors with 2 dimensions are supported: got {}-D {}. Hint: pass a "
                    "matrix [rows, cols]",
                    op, tensor.dim(), tensor.sizes());
  check_floating(tensor, op);
  EMBER_CHECK_VALUE(sparsity >= 0 && sparsity <= 1,
                    "{}: sparsity is the fraction of zeros per column and must be in [0, 1], "
                    "got {}",
                    op, sparsity);
  NoGradGuard no_grad;
  const int64_t rows = tensor.size(0);
  const int64_t cols = tensor.size(1);
  const auto num_zeros = static_cast<int64_t>(std::ceil(sparsity * static_cast<double>(rows)));
  Tensor host = empty({rows, cols}, TensorOptions().dtype(tensor.dtype())).normal_(0, std);
  if (num_zeros > 0 && cols > 0) {
    // A random permutation per column: sort independent uniform keys down each column (float64
    // keys, so ties have probability ~rows^2 / 2^53) and zero the rows that land first.
    Tensor order = rand({rows, cols}, TensorOptions().dtype(kDouble)).argsort(0);
    host.scatter_(0, order.narrow(0, 0, num_zeros), 0);
  }
  tensor.copy_(host);
  return tensor;
}

std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor) {
  return fans(tensor, "nn::init::_calculate_fan_in_and_fan_out");
}

}  // namespace ember::nn::init
