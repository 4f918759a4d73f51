"""nn_batchnorm.golden: batch, instance and group normalisation, local response normalisation,
F.normalize and CrossMapLRN2d.

Cases with `flag grads` carry PyTorch's gradients (layout: gen/nn_common.py); bfloat16 cases are
forward only. Optional tensors are always stored, so gradient args keep their positions; a flag
says when one is not passed (its gradient is then zeros). The calls pass clones of the running
statistics, so the stored ones are those before the call. Per op (tests/nn/nn_ops_batchnorm.cpp
decodes the same way):

  batch_norm          a0 input, a1 weight, a2 bias, a3 running_mean, a4 running_var; sargs
                      momentum, eps; flags training, no_weight, no_bias, no_running (running
                      statistics not passed: None)
  batch_norm_running  as batch_norm (always training, running statistics passed); the output is
                      torch.stack([running_mean, running_var]) after the call
  instance_norm       a0 input, a1 weight, a2 bias, a3 running_mean, a4 running_var; sargs
                      momentum, eps; flags use_input_stats, no_weight, no_bias, no_running
  instance_norm_running  as instance_norm (use_input_stats, running statistics passed); the
                      output is torch.stack([running_mean, running_var]) after the call
  group_norm          a0 input, a1 weight, a2 bias; iarg num_groups; sarg eps; flags no_weight,
                      no_bias
  local_response_norm a0 input; iarg size; sargs alpha, beta, k
  normalize           a0 input; sargs p, eps; iarg dim
  cross_map_lrn2d     a0 input; iarg size; sargs alpha, beta, k (an integer):
                      torch.nn.CrossMapLRN2d(size, alpha, beta, k)(a0). Forward only: PyTorch's
                      hand-written backward (from Lua Torch) fails torch.autograd.gradcheck of its
                      own forward, so its gradients are no reference; Ember differentiates its
                      forward exactly and the C++ gradcheck checks that. The forward keeps
                      LibTorch's window quirk: once c > (size - 1) / 2 + 1, channel 0 stays in the
                      window (an off-by-one of the Lua port); the wide cases cover it.
"""

import torch
import torch.nn.functional as F

from .common import Family, Rng
from .nn_common import grad_case

LOW = (torch.float16, torch.bfloat16)


def _any(fam, name, call, args, grad_args, dtype, **kw):
    """grad_case for float32/float64, forward only for 16-bit."""
    if dtype in LOW:
        fam.case(name, call, list(args), **kw)
    else:
        grad_case(fam, name, call, args, grad_args, **kw)


def _norm_args(r, shape, dtype, lo=-2.0, hi=4.0):
    c = shape[1]
    x = r.uniform(shape, lo, hi, dtype)
    w = r.uniform([c], 0.5, 1.5, dtype)
    b = r.uniform([c], -1, 1, dtype)
    rm = r.uniform([c], -1, 1, dtype)
    rv = r.uniform([c], 0.5, 2.0, dtype)
    return [x, w, b, rm, rv]


def _flags(weight, bias, running):
    return ((["no_weight"] if not weight else []) + (["no_bias"] if not bias else []) +
            (["no_running"] if not running else []))


def _opt(flag, expr):
    return expr if flag else "None"


def gen_batch_norm(fam):
    def case(variant, shape, training, dtype=torch.float32, weight=True, bias=True,
             running=True, momentum=0.1, eps=1e-5):
        name = f"batch_norm/{variant}"
        args = _norm_args(Rng(name), shape, dtype)
        call = (f"F.batch_norm(a0, {_opt(running, 'a3.clone()')}, {_opt(running, 'a4.clone()')}, "
                f"{_opt(weight, 'a1')}, {_opt(bias, 'a2')}, {training}, s0, s1)")
        flags = _flags(weight, bias, running) + (["training"] if training else [])
        _any(fam, name, call, args, (0, 1, 2), dtype, flags=flags, sargs=[momentum, eps])

    case("train_2d_float32", [3, 4, 3, 5], True)
    case("train_2d_float64", [3, 4, 3, 5], True, torch.float64)
    case("train_1d_nc", [6, 5], True)
    case("train_1d_ncl", [4, 3, 7], True, momentum=0.3)
    case("train_3d", [2, 3, 2, 3, 2], True)
    case("train_batch1", [1, 3, 4, 4], True)
    case("train_no_affine", [3, 4, 5], True, weight=False, bias=False)
    case("train_no_bias", [3, 4, 5], True, bias=False)
    case("train_no_running", [3, 4, 5], True, running=False)
    case("train_no_running_float64", [3, 4, 5], True, torch.float64, running=False)
    case("train_eps", [5, 2, 3], True, eps=1e-3)
    case("eval_2d_float32", [3, 4, 3, 5], False)
    case("eval_2d_float64", [3, 4, 3, 5], False, torch.float64)
    case("eval_no_affine", [2, 3, 4], False, weight=False, bias=False)
    case("eval_batch1", [1, 5], False)
    case("train_empty_batch", [0, 3, 4], True)
    case("eval_empty_batch", [0, 3, 4], False)
    case("train_2d_bfloat16", [3, 4, 3, 5], True, torch.bfloat16)
    case("eval_2d_bfloat16", [3, 4, 3, 5], False, torch.bfloat16)


def _running_ref(fn):
    return f"torch.stack(list({fn}))"


def gen_batch_norm_running(fam):
    def case(variant, shape, dtype=torch.float32, momentum=0.1, eps=1e-5):
        name = f"batch_norm_running/{variant}"
        args = _norm_args(Rng(name), shape, dtype)
        call = "F.batch_norm(a0, a3, a4, a1, a2, True, s0, s1)"
        ref = "bn_running(a0, a1, a2, a3, a4, s0, s1)"
        fam.case(name, call, args, ref=ref, sargs=[momentum, eps], flags=["training"],
                 env={"bn_running": bn_running})

    case("2d_float32", [3, 4, 3, 5])
    case("2d_float64", [3, 4, 3, 5], torch.float64)
    case("1d_nc_momentum", [6, 5], momentum=0.25)
    case("cumulative_third_batch", [4, 3, 2], momentum=1.0 / 3.0)
    case("3d", [2, 3, 2, 3, 2])


def bn_running(x, w, b, rm, rv, momentum, eps):
    rm, rv = rm.clone(), rv.clone()
    F.batch_norm(x, rm, rv, w, b, True, momentum, eps)
    return torch.stack([rm, rv])


def in_running(x, w, b, rm, rv, momentum, eps):
    rm, rv = rm.clone(), rv.clone()
    F.instance_norm(x, rm, rv, w, b, True, momentum, eps)
    return torch.stack([rm, rv])


def gen_instance_norm(fam):
    def case(variant, shape, use_input_stats, dtype=torch.float32, weight=True, bias=True,
             running=False, momentum=0.1, eps=1e-5):
        name = f"instance_norm/{variant}"
        args = _norm_args(Rng(name), shape, dtype)
        call = (f"F.instance_norm(a0, {_opt(running, 'a3.clone()')}, "
                f"{_opt(running, 'a4.clone()')}, {_opt(weight, 'a1')}, {_opt(bias, 'a2')}, "
                f"{use_input_stats}, s0, s1)")
        flags = _flags(weight, bias, running) + (["use_input_stats"] if use_input_stats else [])
        _any(fam, name, call, args, (0, 1, 2), dtype, flags=flags, sargs=[momentum, eps])

    case("1d_float32", [2, 3, 6], True)
    case("1d_float64", [2, 3, 6], True, torch.float64)
    case("2d_float32", [2, 3, 3, 4], True)
    case("2d_float64_running", [2, 3, 3, 4], True, torch.float64, running=True)
    case("3d", [2, 2, 2, 3, 2], True)
    case("no_affine", [3, 2, 5], True, weight=False, bias=False)
    case("batch1", [1, 4, 5], True)
    case("eval_running", [2, 3, 3, 4], False, running=True)
    case("eval_running_float64", [2, 3, 5], False, torch.float64, running=True)
    case("2d_bfloat16", [2, 3, 3, 4], True, torch.bfloat16)

    def running_case(variant, shape, dtype=torch.float32, momentum=0.1, eps=1e-5):
        name = f"instance_norm_running/{variant}"
        args = _norm_args(Rng(name), shape, dtype)
        fam.case(name, "F.instance_norm(a0, a3, a4, a1, a2, True, s0, s1)", args,
                 ref="in_running(a0, a1, a2, a3, a4, s0, s1)", sargs=[momentum, eps],
                 flags=["use_input_stats"], env={"in_running": in_running})

    running_case("2d_float32", [3, 2, 3, 4])
    running_case("1d_float64", [2, 3, 6], torch.float64, momentum=0.2)


def gen_group_norm(fam):
    def case(variant, shape, groups, dtype=torch.float32, weight=True, bias=True, eps=1e-5):
        name = f"group_norm/{variant}"
        args = _norm_args(Rng(name), shape, dtype)[:3]
        call = f"F.group_norm(a0, i0, {_opt(weight, 'a1')}, {_opt(bias, 'a2')}, s0)"
        _any(fam, name, call, args, (0, 1, 2), dtype, flags=_flags(weight, bias, True),
             iargs=[groups], sargs=[eps])

    case("1d_float32", [2, 6, 5], 3)
    case("1d_float64", [2, 6, 5], 3, torch.float64)
    case("2d_float32", [3, 4, 2, 3], 2)
    case("2d_float64", [3, 4, 2, 3], 2, torch.float64)
    case("3d", [2, 4, 2, 2, 3], 2)
    case("one_group", [2, 4, 3], 1)
    case("group_per_channel", [2, 4, 3], 4)
    case("no_spatial", [4, 6], 2)
    case("no_affine", [2, 6, 3], 3, weight=False, bias=False)
    case("batch1", [1, 6, 4], 2, eps=1e-3)
    case("empty_batch", [0, 4, 3], 2)
    case("2d_bfloat16", [3, 4, 2, 3], 2, torch.bfloat16)


def gen_local_response_norm(fam):
    def case(variant, shape, size, alpha=1e-4, beta=0.75, k=1.0, dtype=torch.float32):
        name = f"local_response_norm/{variant}"
        x = Rng(name).uniform(shape, -3, 3, dtype)
        _any(fam, name, "F.local_response_norm(a0, i0, s0, s1, s2)", [x], (0,), dtype,
             iargs=[size], sargs=[alpha, beta, k])

    case("3d_size3_float32", [2, 5, 4], 3, alpha=0.5)
    case("3d_size3_float64", [2, 5, 4], 3, alpha=0.5, dtype=torch.float64)
    case("4d_size2", [2, 6, 3, 3], 2, alpha=0.3, beta=0.5, k=2.0)
    case("4d_size4_float64", [1, 5, 2, 3], 4, alpha=1.0, beta=1.5, k=0.5, dtype=torch.float64)
    case("5d", [1, 4, 2, 2, 2], 3, alpha=0.2)
    case("size_over_channels", [2, 3, 4], 7, alpha=0.4)


def gen_normalize(fam):
    def case(variant, shape, p, dim, eps=1e-12, dtype=torch.float32, zero_row=False):
        name = f"normalize/{variant}"
        x = Rng(name).uniform(shape, -3, 3, dtype)
        if zero_row:
            x[0].zero_()
        _any(fam, name, "F.normalize(a0, s0, i0, s1)", [x], (0,), dtype, iargs=[dim],
             sargs=[p, eps])

    case("p2_dim1_float32", [3, 5], 2.0, 1)
    case("p2_dim1_float64", [3, 5], 2.0, 1, dtype=torch.float64)
    case("p1_dim0", [4, 3], 1.0, 0)
    case("p3_last_dim", [2, 3, 4], 3.0, -1, dtype=torch.float64)
    case("eps_clamps", [3, 4], 2.0, 1, eps=1e-2, zero_row=True)


def gen_cross_map_lrn2d(fam):
    def case(variant, shape, size, alpha=1e-4, beta=0.75, k=1, dtype=torch.float32):
        name = f"cross_map_lrn2d/{variant}"
        x = Rng(name).uniform(shape, -3, 3, dtype)
        fam.case(name, "torch.nn.CrossMapLRN2d(i0, s0, s1, s2)(a0)", [x], iargs=[size],
                 sargs=[alpha, beta, k])

    case("size5_float32", [2, 4, 3, 3], 5, alpha=0.5)
    case("size5_float64", [2, 4, 3, 3], 5, alpha=0.5, dtype=torch.float64)
    case("size3_wide", [1, 7, 2, 3], 3, alpha=0.7, beta=0.6, k=2)
    case("size2_wide_float64", [2, 6, 2, 2], 2, alpha=0.3, dtype=torch.float64)


def gen_nn_batchnorm():
    fam = Family("nn_batchnorm", [
        "batch, instance and group normalisation, local response normalisation, normalize, "
        "CrossMapLRN2d; per-op layout in tests/golden/gen/nn_batchnorm.py."])
    gen_batch_norm(fam)
    gen_batch_norm_running(fam)
    gen_instance_norm(fam)
    gen_group_norm(fam)
    gen_local_response_norm(fam)
    gen_normalize(fam)
    gen_cross_map_lrn2d(fam)
    return fam
