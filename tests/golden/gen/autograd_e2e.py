"""autograd_e2e.golden: small networks built from primitive ops, with the loss, the forward
activations and every gradient that backward gives (tests/e2e/autograd_e2e_test.cpp)."""

import math

import torch
import torch.nn.functional as F

from .common import Family, Rng

# autograd_e2e.golden
#   One record per network. The args are the input, the parameters and (MLP) the targets; the outs
#   are the loss (0-dim), the forward activations, then d(loss)/d(arg) for every float arg, in arg
#   order. Every tensor is float32 except the int64 class indices. The `call` line names a function
#   of this file; what it computes, in Ember terms:
#
#   mlp(x, w1, b1, w2, b2, target, act, loss)          x [8, 12], w1 [16, 12], b1 [16], w2 [5, 16],
#                                                      b2 [5]; Linear 12->16, act, Linear 16->5
#     hidden = act(x.matmul(w1.t()) + b1)              act: tanh, or gelu (approximate="none")
#     logits = hidden.matmul(w2.t()) + b2
#     logp   = logits.log_softmax(1)
#     loss "gather": target int64 [8] class indices
#       loss = -logp.gather(1, target.unsqueeze(1)).mean()
#     loss "onehot": target float32 [8, 5] one-hot rows
#       loss = -(logp * target).sum(1).mean()
#     outs: loss, hidden, logits, dx, dw1, db1, dw2, db2
#
#   attention(x, wq, bq, wk, bk, wv, bv, wo, bo)       x [2, 6, 8], every w [8, 8], every b [8]
#     q = x.matmul(wq.t()) + bq    (k, v alike)        single head, d = 8
#     attn = (q.matmul(k.transpose(-2, -1)) / sqrt(8)).softmax(-1)      [2, 6, 6]
#     out  = attn.matmul(v).matmul(wo.t()) + bo                         [2, 6, 8]
#     loss "mean_square": (out * out).mean();  loss "sum": out.sum()
#     outs: loss, attn, out, dx, dwq, dbq, dwk, dbk, dwv, dbv, dwo, dbo
#
#   attention: d(loss)/d(bk) is zero in exact arithmetic (q_i . bk is the same for every key j,
#   and softmax ignores a per-row shift), so its stored values are float32 rounding noise.
#
# The references are PyTorch's float32 results. The generator also runs each network in float64 and
# fails unless every float32 output is within CONDITIONING * max|output| of it (normwise; measured:
# at most 2.6e-7), or, for an output that is zero in float64 (dbk), within 1e-7 of the case's
# largest gradient element. A golden value that another float32 summation order could move by
# anything near the test's 1e-5 would make that test flaky rather than strict.

CONDITIONING = 2e-6


def _linear(x, w, b):
    return x.matmul(w.t()) + b


def mlp(x, w1, b1, w2, b2, target, act, loss):
    leaves = [t.detach().clone().requires_grad_() for t in (x, w1, b1, w2, b2)]
    x, w1, b1, w2, b2 = leaves
    pre = _linear(x, w1, b1)
    hidden = torch.tanh(pre) if act == "tanh" else F.gelu(pre, approximate="none")
    logits = _linear(hidden, w2, b2)
    logp = logits.log_softmax(1)
    if loss == "gather":
        value = -logp.gather(1, target.unsqueeze(1)).mean()
    elif loss == "onehot":
        value = -(logp * target.to(logp.dtype)).sum(1).mean()
    else:
        raise ValueError(loss)
    grads = torch.autograd.grad(value, leaves)
    return (value, hidden, logits) + tuple(grads)


def attention(x, wq, bq, wk, bk, wv, bv, wo, bo, loss):
    leaves = [t.detach().clone().requires_grad_() for t in (x, wq, bq, wk, bk, wv, bv, wo, bo)]
    x, wq, bq, wk, bk, wv, bv, wo, bo = leaves
    q, k, v = _linear(x, wq, bq), _linear(x, wk, bk), _linear(x, wv, bv)
    d = q.shape[-1]
    attn = (q.matmul(k.transpose(-2, -1)) / math.sqrt(d)).softmax(-1)
    out = _linear(attn.matmul(v), wo, bo)
    if loss == "mean_square":
        value = (out * out).mean()
    elif loss == "sum":
        value = out.sum()
    else:
        raise ValueError(loss)
    grads = torch.autograd.grad(value, leaves)
    return (value, attn, out) + tuple(grads)


def _linear_params(r, fan_out, fan_in):
    """nn.Linear's default init: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias."""
    bound = 1 / math.sqrt(fan_in)
    return r.uniform([fan_out, fan_in], -bound, bound), r.uniform([fan_out], -bound, bound)


def _check_conditioning(name, fn, args, kwargs, n_act):
    """n_act: how many outs precede the gradients (the loss and the activations)."""
    ref32 = fn(*args, **kwargs)
    ref64 = fn(*[a.double() if a.is_floating_point() else a for a in args], **kwargs)
    grad_scale = max(g.abs().max().item() for g in ref64[n_act:])
    for k, (a, e) in enumerate(zip(ref32, ref64)):
        err = (a.double() - e).abs().max().item()
        scale = e.abs().max().item()
        if scale <= 1e-12 * grad_scale:  # zero in exact arithmetic: a32 is rounding noise
            bound = 1e-7 * grad_scale
        else:
            bound = CONDITIONING * scale
        if err > bound:
            raise SystemExit(f"autograd_e2e: {name}: output {k} is {err:.3g} from float64, over "
                             f"{bound:.3g}; the network is too ill-conditioned for the test")


def gen_autograd_e2e():
    fam = Family("autograd_e2e", [
        "Small networks from primitive ops: the loss, the forward activations and every "
        "gradient, from torch.autograd.grad in float32. Args: input, parameters, targets; outs: "
        "loss, activations, then one gradient per float arg (tests/golden/gen/autograd_e2e.py)."])
    env = {"mlp": mlp, "attention": attention}

    for act, loss in (("tanh", "gather"), ("gelu", "onehot")):
        name = f"mlp/{act}_{loss}"
        r = Rng(name)
        x = r.normal([8, 12])
        w1, b1 = _linear_params(r, 16, 12)
        w2, b2 = _linear_params(r, 5, 16)
        target = r.ints([8], 0, 4)
        if loss == "onehot":
            target = F.one_hot(target, 5).to(torch.float32)
        args = [x, w1, b1, w2, b2, target]
        _check_conditioning(name, mlp, args, {"act": act, "loss": loss}, 3)
        fam.case(name, f"mlp(a0, a1, a2, a3, a4, a5, act='{act}', loss='{loss}')", args, env=env,
                 note="outs: loss, hidden, logits, dx, dw1, db1, dw2, db2")

    for loss in ("mean_square", "sum"):
        name = f"attention/{loss}"
        r = Rng(name)
        x = r.normal([2, 6, 8])
        params = []
        for _ in range(4):  # q, k, v, o
            params += _linear_params(r, 8, 8)
        args = [x] + params
        _check_conditioning(name, attention, args, {"loss": loss}, 3)
        fam.case(name, f"attention(a0, a1, a2, a3, a4, a5, a6, a7, a8, loss='{loss}')", args,
                 env=env, note="outs: loss, attn, out, dx, dwq, dbq, dwk, dbk, dwv, dbv, dwo, dbo; "
                 "dbk is zero in exact arithmetic, its values are float32 rounding noise")
    return fam
