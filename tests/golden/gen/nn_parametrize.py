"""nn_parametrize.golden: the built-in parametrizations of torch.nn.utils.parametrizations run by
PyTorch, so Ember's give the same numbers, buffers and state_dict (a parametrized model saved by
Python loads into Ember).

Record layout (tests/nn/nn_utils_parametrizations_golden_test.cpp reads it). Everything is float64.

    case spectral_norm/<module>   module: linear (Linear(5, 4)), conv2d (Conv2d(2, 3, 3)),
                                  conv_transpose2d (ConvTranspose2d(2, 3, 3): dim defaults to 1)
    iarg n_power_iterations, steps, dim (-100: not given, the default)
    arg  weight, bias, u0, v0, x
         The module gets weight and bias, then spectral_norm(module, "weight", n_power_iterations,
         dim=dim); its buffers _u and _v are then overwritten with u0 and v0 (Ember's and
         PyTorch's random starts differ), and it is called `steps` times on x in training mode.
    out  y_train (the last training call), y_eval (a call in eval mode after them), the gradient of
         sum(y_eval ** 2) with respect to parametrizations.weight.original, then the state_dict
         values in the order of the str lines
    str  the state_dict keys, in Python's order

    case weight_norm/<module>     module: linear (Linear(5, 4)), conv2d (Conv2d(2, 3, 3))
    iarg dim (-100: None, one norm over the whole tensor)
    arg  weight, bias, x, g_scale
    out  y (after original0 *= g_scale), the gradients of sum(y ** 2) with respect to original0
         and original1, then the state_dict values in the order of the str lines
    str  the state_dict keys

    case orthogonal/<variant>     Linear(in, out) in float64
    iarg in_features, out_features, map (0 matrix_exp, 1 cayley, 2 householder), use_trivialization
    arg  weight, bias, x, delta
         The module gets weight and bias, then orthogonal(module, "weight", map,
         use_trivialization=...); then original += delta and one call on x.
    out  state_dict values right after registration (in the order of the str lines; base depends
         on torch.randn for a non-square weight, so Ember checks it only for square ones), then
         after the update: y, the parametrized weight, the gradient of sum(y ** 2) with respect to
         parametrizations.weight.original, then the state_dict values
    str  the state_dict keys

torch 1.13 has no parametrizations.weight_norm (it came in 2.1). Its records come from _WeightNorm
below, written from recent PyTorch's documented definition (forward = torch._weight_norm(v, g, dim),
right_inverse = (torch.norm_except_dim(w, 2, dim), w), registered with unsafe=True); where torch
has the real one, the generator checks that both give the same numbers.
"""

import torch
import torch.nn as nn
from torch.nn.utils import parametrize
from torch.nn.utils import parametrizations as P

from .common import Family, Rng, fmt_tensor

NOT_GIVEN = -100


class _WeightNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return torch._weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return torch.norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, dim):
    if hasattr(P, "weight_norm"):
        return P.weight_norm(module, "weight", dim)
    parametrize.register_parametrization(module, "weight", _WeightNorm(dim), unsafe=True)
    return module


def build(kind):
    if kind == "linear":
        return nn.Linear(5, 4).double(), (2, 5)
    if kind == "conv2d":
        return nn.Conv2d(2, 3, 3).double(), (1, 2, 5, 5)
    if kind == "conv_transpose2d":
        return nn.ConvTranspose2d(2, 3, 3).double(), (1, 2, 4, 4)
    raise ValueError(kind)


def record(fam, name, call, iargs, args, outs, keys):
    assert name not in fam.names, name
    fam.names.add(name)
    fam.count += 1
    fam.lines += [f"case {name}", f"call {call}"]
    fam.lines += [f"str {k}" for k in keys]
    fam.lines += [f"iarg {int(i)}" for i in iargs]
    fam.lines += [f"arg {fmt_tensor(a)}" for a in args]
    fam.lines += [f"out {fmt_tensor(o)}" for o in outs]
    fam.lines.append("end")


def gen_spectral(fam, kind, n_iter, steps, dim):
    rng = Rng(f"spectral_norm/{kind}/{n_iter}/{steps}/{dim}")
    m, xshape = build(kind)
    weight = rng.normal(tuple(m.weight.shape), torch.float64)
    bias = rng.normal(tuple(m.bias.shape), torch.float64)
    x = rng.normal(xshape, torch.float64)
    with torch.no_grad():
        m.weight.copy_(weight)
        m.bias.copy_(bias)
    kwargs = {} if dim == NOT_GIVEN else {"dim": dim}
    P.spectral_norm(m, "weight", n_iter, **kwargs)
    sn = m.parametrizations.weight[0]
    u0 = rng.normal(tuple(sn._u.shape), torch.float64)
    v0 = rng.normal(tuple(sn._v.shape), torch.float64)
    with torch.no_grad():
        sn._u.copy_(u0)
        sn._v.copy_(v0)
    m.train()
    for _ in range(steps):
        y_train = m(x)
    m.eval()
    y_eval = m(x)
    original = m.parametrizations.weight.original
    (grad,) = torch.autograd.grad((y_eval ** 2).sum(), [original])
    sd = m.state_dict()
    call = (f"{kind}: spectral_norm(m, 'weight', {n_iter}"
            + ("" if dim == NOT_GIVEN else f", dim={dim}") + f"); {steps} training calls, then eval")
    record(fam, f"spectral_norm/{kind}_{n_iter}_{steps}" + ("" if dim == NOT_GIVEN else f"_d{dim}"),
           call, [n_iter, steps, dim], [weight, bias, u0, v0, x],
           [y_train.detach(), y_eval.detach(), grad] + [v.detach() for v in sd.values()],
           list(sd.keys()))


def gen_weight_norm(fam, kind, dim):
    rng = Rng(f"weight_norm/{kind}/{dim}")
    m, xshape = build(kind)
    weight = rng.normal(tuple(m.weight.shape), torch.float64)
    bias = rng.normal(tuple(m.bias.shape), torch.float64)
    x = rng.normal(xshape, torch.float64)
    g_scale = rng.uniform((), 0.5, 2.0, torch.float64)
    with torch.no_grad():
        m.weight.copy_(weight)
        m.bias.copy_(bias)
    weight_norm(m, None if dim == NOT_GIVEN else dim)
    plist = m.parametrizations.weight
    with torch.no_grad():
        plist.original0.mul_(g_scale)
    y = m(x)
    grads = torch.autograd.grad((y ** 2).sum(), [plist.original0, plist.original1])
    sd = m.state_dict()
    call = f"{kind}: weight_norm(m, 'weight', {None if dim == NOT_GIVEN else dim}); original0 *= g"
    record(fam, f"weight_norm/{kind}_" + ("none" if dim == NOT_GIVEN else f"d{dim}"), call, [dim],
           [weight, bias, x, g_scale], [y.detach(), *grads] + [v.detach() for v in sd.values()],
           list(sd.keys()))


MAPS = ["matrix_exp", "cayley", "householder"]


def gen_orthogonal(fam, in_f, out_f, map_code, triv):
    name = f"orthogonal/{MAPS[map_code]}_{out_f}x{in_f}" + ("" if triv else "_no_triv")
    rng = Rng(name)
    m = nn.Linear(in_f, out_f).double()
    weight = rng.normal((out_f, in_f), torch.float64)
    bias = rng.normal((out_f,), torch.float64)
    x = rng.normal((3, in_f), torch.float64)
    delta = rng.uniform((out_f, in_f), -0.3, 0.3, torch.float64)
    with torch.no_grad():
        m.weight.copy_(weight)
        m.bias.copy_(bias)
    torch.manual_seed(len(fam.names))  # base of a non-square weight takes torch.randn columns
    P.orthogonal(m, "weight", MAPS[map_code], use_trivialization=bool(triv))
    sd0 = [v.detach().clone() for v in m.state_dict().values()]
    original = m.parametrizations.weight.original
    with torch.no_grad():
        original.add_(delta)
    y = m(x)
    w = m.weight
    (grad,) = torch.autograd.grad((y ** 2).sum(), [original])
    sd = m.state_dict()
    call = (f"orthogonal(nn.Linear({in_f}, {out_f}), 'weight', '{MAPS[map_code]}', "
            f"use_trivialization={bool(triv)}); original += delta")
    record(fam, name, call, [in_f, out_f, map_code, triv], [weight, bias, x, delta],
           sd0 + [y.detach(), w.detach(), grad] + [v.detach() for v in sd.values()],
           list(sd.keys()))


def gen_nn_parametrize():
    fam = Family("nn_parametrize", [
        "torch.nn.utils.parametrizations (spectral_norm, weight_norm, orthogonal) run by PyTorch in float64;",
        "layout: tests/golden/gen/nn_parametrize.py"])
    for kind, n_iter, steps, dim in [("linear", 1, 3, NOT_GIVEN), ("linear", 2, 1, NOT_GIVEN),
                                     ("linear", 1, 2, 1), ("conv2d", 1, 2, NOT_GIVEN),
                                     ("conv2d", 3, 2, 2), ("conv_transpose2d", 1, 2, NOT_GIVEN)]:
        gen_spectral(fam, kind, n_iter, steps, dim)
    for kind, dim in [("linear", 0), ("linear", 1), ("linear", NOT_GIVEN), ("conv2d", 0),
                      ("conv2d", -1)]:
        gen_weight_norm(fam, kind, dim)
    for map_code in range(3):
        for in_f, out_f in [(4, 4), (3, 5), (5, 3)]:
            for triv in (1, 0):
                gen_orthogonal(fam, in_f, out_f, map_code, triv)
    return fam
