// Binary losses: binary_cross_entropy (probabilities) and binary_cross_entropy_with_logits.
#include "ember/autograd/function.h"
#include "ember/nn/functional/loss.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"
#include "ember/ops/shape.h"
#include "src/nn/functional/loss_common.h"

namespace ember::nn::functional {

using detail::describe;

namespace {

// The per-element BCE with its own backward. Composing it from clamped logs would be wrong at
// the ends: at x = 0 or 1 the clamp passes a zero gradient into log's 1/x = inf, giving nan,
// where PyTorch's formula (x - t) / max(x (1 - x), 1e-12) stays finite. Written as PyTorch's,
// so gradients match at every input; backward is built from ops, so it is differentiable too.
struct BinaryCrossEntropyFn : autograd::Function<BinaryCrossEntropyFn> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor input, Tensor target,
                        Tensor weight) {
    ctx->save_for_backward({input, target, weight});
    // log is clamped to >= -100 so that x = 0 or 1 gives a finite loss.
    Tensor loss =
        -(target * log(input).clamp_min(-100) + (1 - target) * log1p(-input).clamp_min(-100));
    return weight.defined() ? loss * weight : loss;
  }

  static autograd::variable_list backward(autograd::AutogradContext* ctx,
                                          autograd::variable_list grads) {
    autograd::variable_list saved = ctx->get_saved_variables();
    const Tensor &x = saved[0], &t = saved[1], &w = saved[2];
    Tensor g = w.defined() ? grads[0] * w : grads[0];
    Tensor gx, gt;
    if (ctx->needs_input_grad(0)) gx = g * (x - t) / ((1 - x) * x).clamp_min(1e-12);
    if (ctx->needs_input_grad(1)) gt = g * (log1p(-x) - log(x));
    return {gx, gt, Tensor()};
  }
};

}  // namespace

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& options) {
  const char* op = "binary_cross_entropy";
  detail::check_floating(op, "input", input);
  detail::check_floating(op, "target", target);
  detail::check_same_shape(op, input, target);
  Tensor x = detail::widen(input), t = detail::widen(target).to(x.scalar_type());
  if (x.numel() > 0) {
    EMBER_CHECK_VALUE(((x >= 0).logical_and(x <= 1)).all().item<bool>(),
                      "{}: input values must be probabilities in [0, 1], got values outside "
                      "(input {}). Hint: apply sigmoid first, or use "
                      "binary_cross_entropy_with_logits on the logits",
                      op, describe(input));
  }
  Tensor w = options.weight();
  if (w.defined()) {
    detail::check_floating(op, "weight", w);
    try {
      w = detail::widen(w).to(x.scalar_type()).expand(t.sizes());
    } catch (const Error&) {
      EMBER_CHECK_VALUE(false,
                        "{}: weight must broadcast to the target's shape: weight {}, target {}. "
                        "Hint: give weight a shape that expands to {}",
                        op, describe(options.weight()), describe(target), target.sizes());
    }
  }
  Tensor loss = BinaryCrossEntropyFn::apply(x, t, w);
  return detail::narrow_to(detail::reduce(loss, detail::reduction_of(options.reduction())),
                           input.scalar_type());
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options) {
  const char* op = "binary_cross_entropy_with_logits";
  detail::check_floating(op, "input", input);
  detail::check_floating(op, "target", target);
  detail::check_same_shape(op, input, target);
  Tensor x = detail::widen(input), t = detail::widen(target);
  // (1 - t) x + (1 + (pw - 1) t) log(1 + exp(-x)): the softplus in its overflow-free form.
  Tensor sp = detail::softplus(-x);
  Tensor loss;
  if (options.pos_weight().defined()) {
    Tensor pw = options.pos_weight();
    detail::check_floating(op, "pos_weight", pw);
    detail::check_broadcast(op, input, pw);
    loss = (1 - t) * x + (1 + (detail::widen(pw) - 1) * t) * sp;
  } else {
    loss = (1 - t) * x + sp;
  }
  if (options.weight().defined()) {
    detail::check_floating(op, "weight", options.weight());
    detail::check_broadcast(op, input, options.weight());
    loss = loss * detail::widen(options.weight());
  }
  ScalarType out = promote_types(input.scalar_type(), target.scalar_type());
  return detail::narrow_to(detail::reduce(loss, detail::reduction_of(options.reduction())), out);
}

}  // namespace ember::nn::functional
