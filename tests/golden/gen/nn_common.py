"""Writing nn cases (nn_functional.golden, nn_loss.golden): forward output and, for float inputs,
PyTorch's gradients, in the layout tests/nn/nn_op_info.h reads.

A record written by grad_case():
    flag grads          present when gradients follow
    arg a0 .. a(n-1)    the op's inputs, in call order
    arg cot             (with grads) the cotangent: same shape and dtype as the output
    out y               the forward output
    out d(a_k) ...      (with grads) d(sum(y * cot)) / d(a_k) for each k in grad_args, in that order
An arg in grad_args whose gradient PyTorch leaves undefined gets zeros (the C++ side treats an
undefined gradient as zeros too).
"""

import torch

from .common import Rng


def grad_case(fam, name, call, args, grad_args=(), *, sargs=(), iargs=(), ilists=(), strs=(),
              flags=(), note=None, env=None, ref=None):
    """One case: forward of `call` (or `ref`) on args and, when grad_args is non-empty, the
    gradient of sum(out * cot) w.r.t. args[k] for k in grad_args, with a seeded random cot."""
    expr = ref or call
    if not grad_args:
        fam.case(name, call, list(args), sargs=sargs, iargs=iargs, ilists=ilists, strs=strs,
                 flags=flags, note=note, env=env, ref=ref)
        return
    leaves = [a.detach().clone().requires_grad_(k in grad_args) for k, a in enumerate(args)]
    ev = {f"a{k}": v for k, v in enumerate(leaves)}
    ev.update({f"s{k}": v for k, v in enumerate(sargs)})
    ev.update({f"i{k}": v for k, v in enumerate(iargs)})
    ev.update({f"l{k}": list(v) for k, v in enumerate(ilists)})
    ev.update({f"q{k}": v for k, v in enumerate(strs)})
    import math
    import torch.nn.functional as F
    ev.update({"torch": torch, "F": F, "math": math})
    ev.update(env or {})
    out = eval(expr, ev)
    cot = Rng(name + "/cot").normal(list(out.shape), out.dtype)
    grads = torch.autograd.grad((out * cot).sum(), [leaves[k] for k in grad_args],
                                allow_unused=True)
    grads = [torch.zeros_like(leaves[k]) if g is None else g for k, g in zip(grad_args, grads)]
    ref_expr = "(" + expr + ",) + tuple(grads)"
    env2 = dict(env or {})
    env2["grads"] = [g.detach() for g in grads]
    # The record's forward output is recomputed by Family.case from the stored args (identical);
    # the gradients ride along as extra outs.
    fam.case(name, call, list(args) + [cot], ref=ref_expr, sargs=sargs, iargs=iargs,
             ilists=ilists, strs=strs, flags=tuple(flags) + ("grads",), note=note, env=env2)
