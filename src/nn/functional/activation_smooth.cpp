// The smooth activations (gelu, silu, mish, sigmoid, tanh, softplus, logsigmoid, softsign,
// tanhshrink), the softmax family and glu. Most are one existing fused op; softplus and
// logsigmoid get one backward node each (see activation_common.h).
#include "ember/nn/functional/activation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/core/check.h"
#include "src/nn/functional/activation_common.h"
#include "src/ops/op_common.h"

namespace ember::nn::functional {

using detail::GradFrom;
using detail::unary_with_grad;

// Unqualified calls below would be ambiguous between these functions and ember's ops of the same
// name (found by argument-dependent lookup), hence the ember:: prefixes.

Tensor gelu(const Tensor& input, const GELUFuncOptions& options) {
  return ember::gelu(input, options.approximate());
}

Tensor silu(const Tensor& input, bool inplace) {
  return inplace ? ember::silu_(input) : ember::silu(input);
}

Tensor mish(const Tensor& input, bool inplace) {
  return inplace ? ember::mish_(input) : ember::mish(input);
}

Tensor sigmoid(const Tensor& input) { return ember::sigmoid(input); }

Tensor tanh(const Tensor& input) { return ember::tanh(input); }

Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options) {
  detail::check_floating(input, "softplus");
  const double beta = options.beta(), th = options.threshold();
  // PyTorch's formula: x where beta·x > threshold, else log1p(exp(beta·x)) / beta. exp may
  // overflow on the linear side; `where` discards those values.
  auto fwd = [=](const Tensor& in) {
    Tensor xf = detail::upcast(in);
    Tensor bx = beta == 1 ? xf : xf * beta;
    Tensor soft = bx.exp().log1p_();
    if (beta != 1) soft.div_(beta);
    return detail::downcast(where(bx > th, xf, soft), in.dtype());
  };
  // d/dx = sigmoid(beta·x) on the soft side, 1 on the linear side (beta·x == threshold is soft).
  auto bwd = [=](const Tensor& grad, const Tensor& in) {
    Tensor bx = beta == 1 ? in : in * beta;
    return where(bx > th, grad, grad * bx.sigmoid());
  };
  return unary_with_grad("softplus", "SoftplusBackward0", input, false, GradFrom::kInput, fwd, bwd);
}

Tensor logsigmoid(const Tensor& input) {
  detail::check_floating(input, "logsigmoid");
  // min(x, 0) - log1p(exp(-|x|)): exp never overflows, and nothing cancels for large |x|.
  auto fwd = [](const Tensor& in) {
    Tensor xf = detail::upcast(in);
    Tensor y = xf.clamp_max(0).sub_(xf.abs().neg_().exp_().log1p_());
    return detail::downcast(y, in.dtype());
  };
  // d/dx = sigmoid(-x): 1/2 at 0, which the composition above would not give (|x|' = 0 there).
  auto bwd = [](const Tensor& grad, const Tensor& in) { return grad * (-in).sigmoid(); };
  return unary_with_grad("logsigmoid", "LogSigmoidBackward0", input, false, GradFrom::kInput, fwd,
                         bwd);
}

Tensor softsign(const Tensor& input) {
  // PyTorch composes it the same way (so float16 rounds at the same steps).
  return input / (input.abs() + 1);
}

Tensor tanhshrink(const Tensor& input) { return input - ember::tanh(input); }

Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  return ember::softmax(input, options.dim(), options.dtype());
}

Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  return ember::log_softmax(input, options.dim(), options.dtype());
}

Tensor softmin(const Tensor& input, const SoftminFuncOptions& options) {
  EMBER_CHECK(input.defined(), "softmin: the input tensor is undefined");
  return ember::softmax(-input, options.dim(), options.dtype());
}

Tensor glu(const Tensor& input, const GLUFuncOptions& options) {
  detail::check_floating(input, "glu");
  EMBER_CHECK(input.dim() > 0,
              "glu: a 0-dim input cannot be halved, got input {} {}. Hint: glu needs a dim of "
              "even size",
              input.sizes(), input.dtype());
  const int64_t dim = wrap_dim(options.dim(), input.dim(), "glu");
  const int64_t n = input.size(dim);
  EMBER_CHECK(n % 2 == 0,
              "glu: the halved dim must have an even size: dim {} of input {} {} has size {}. "
              "Hint: pass GLUFuncOptions(dim) naming a dim of even size",
              options.dim(), input.sizes(), input.dtype(), n);
  // a·sigmoid(b) on two views; float16/bfloat16 compute in float32 and round once, as PyTorch.
  Tensor x = detail::upcast(input);
  Tensor a = x.narrow(dim, 0, n / 2), b = x.narrow(dim, n / 2, n / 2);
  return detail::downcast(a * b.sigmoid(), input.dtype());
}

}  // namespace ember::nn::functional
