"""nn_pool.golden: pooling functionals of torch.nn.functional (max, average, adaptive, LP,
unpooling, fractional), 1-d to 3-d.

Cases with `flag grads` carry PyTorch's gradients (layout: gen/nn_common.py): float32 and float64
cases have gradients; bfloat16 cases are forward only. Max-pooling inputs have distinct values
(no ties), so the gradient is defined and a float64 gradcheck is meaningful. Per op
(tests/nn/nn_ops_pool.cpp decodes the same way):

  max_pool{1,2,3}d    a0 input; ilists kernel_size, stride, padding, dilation; flag ceil_mode
  max_pool{1,2,3}d_with_indices
                      the same layout; the output is the int64 indices (compared exactly)
  avg_pool{1,2,3}d    a0 input; ilists kernel_size, stride, padding; flags ceil_mode,
                      no_count_include_pad, divisor (iarg divisor_override)
  adaptive_avg_pool{1,2,3}d, adaptive_max_pool{1,2,3}d
                      a0 input; ilist output_size
  adaptive_max_pool{1,2,3}d_with_indices
                      the same; the output is the indices
  lp_pool{1,2,3}d     a0 input (positive); sarg norm_type; ilists kernel_size, stride; flag
                      ceil_mode. torch 1.13 has no lp_pool3d: its reference is PyTorch's own
                      composite written with avg_pool3d (lp_pool3d_ref).
  max_unpool{1,2,3}d  a0 input, a1 indices (from a max pooling of a random input); ilists
                      kernel_size, stride, padding, and output_size when flag output_size
  fractional_max_pool{2,3}d
                      a0 input, a1 _random_samples ([N, C, D], input dtype); ilist kernel_size;
                      ilist output_size, or flag ratio with sargs output_ratio
  fractional_max_pool{2,3}d_with_indices
                      the same; the output is the indices
Flags on any op: channels_last (C++ passes a0 laid out channels-last; values are the same).
"""

import torch
import torch.nn.functional as F

from .common import Family, Rng
from .nn_common import grad_case

LOW = (torch.float16, torch.bfloat16)


def lp_pool3d_ref(x, p, k, s, ceil_mode):
    """F.lp_pool3d of recent PyTorch: avg_pool3d of x^p, times the window volume, to the 1/p."""
    out = F.avg_pool3d(x.pow(p), k, s, 0, ceil_mode)
    kd, kh, kw = k
    return (torch.sign(out) * F.relu(torch.abs(out))).mul(kd * kh * kw).pow(1.0 / p)


def _case(fam, name, call, args, grad_args, dtype, **kw):
    if dtype in LOW:
        fam.case(name, call, list(args), **kw)
    else:
        grad_case(fam, name, call, args, grad_args, **kw)


def _tuple(v, nd):
    return list(v) if isinstance(v, (list, tuple)) else [v] * nd


def gen_max_pool(fam):
    def case(nd, variant, shape, k, s=None, p=0, d=1, ceil=False, dtype=torch.float32,
             cl=False):
        op = f"max_pool{nd}d"
        r = Rng(f"{op}/{variant}")
        x = r.distinct(shape, dtype)
        k, p, d = _tuple(k, nd), _tuple(p, nd), _tuple(d, nd)
        s = k if s is None else _tuple(s, nd)
        flags = (["ceil_mode"] if ceil else []) + (["channels_last"] if cl else [])
        call = f"F.{op}(a0, l0, l1, l2, l3, ceil_mode={ceil})"
        _case(fam, f"{op}/{variant}", call, [x], (0,), dtype, ilists=[k, s, p, d], flags=flags)
        fam.case(f"{op}_with_indices/{variant}",
                 f"F.{op}(a0, l0, l1, l2, l3, ceil_mode={ceil}, return_indices=True)[1]", [x],
                 ilists=[k, s, p, d], flags=flags)

    case(1, "basic_float32", [2, 3, 9], 3, 2)
    case(1, "pad_dilation_ceil_float32", [1, 2, 10], 3, 2, 1, 2, True)
    case(1, "unbatched_float64", [3, 7], 2, 1, 1, 1, False, torch.float64)
    case(2, "basic_float32", [2, 3, 7, 6], 2)
    case(2, "stride_pad_float32", [2, 2, 9, 8], 3, 2, 1)
    case(2, "dilation_float32", [1, 2, 11, 10], [3, 2], [2, 1], [1, 1], [2, 3])
    case(2, "ceil_mode_float32", [1, 3, 8, 7], 3, 2, 1, 1, True)
    case(2, "ceil_mode_dilation_float32", [2, 1, 9, 9], [2, 3], 2, [1, 0], 2, True)
    case(2, "batch1_rect_float64", [1, 2, 7, 9], [3, 2], [2, 3], [1, 1], 1, False, torch.float64)
    case(2, "ceil_float64", [2, 2, 6, 7], 2, 2, 0, 1, True, torch.float64)
    case(2, "empty_batch_float32", [0, 3, 6, 6], 2)
    case(2, "unbatched_float32", [3, 7, 5], 3, 2, 1)
    case(2, "channels_last_float32", [2, 5, 7, 6], 3, 2, 1, 1, False, cl=True)
    case(2, "bfloat16", [2, 3, 8, 8], 3, 2, 1, 1, False, torch.bfloat16)
    case(2, "channels_last_bfloat16", [2, 4, 6, 6], 2, 2, 0, 1, False, torch.bfloat16, cl=True)
    case(3, "basic_float32", [2, 2, 5, 6, 4], 2)
    case(3, "stride_pad_dilation_float32", [1, 2, 7, 7, 8], 3, [2, 1, 2], 1, [1, 2, 1])
    case(3, "ceil_float64", [1, 2, 6, 5, 7], 3, 2, 1, 1, True, torch.float64)
    case(3, "channels_last_float32", [2, 3, 4, 5, 6], 2, 1, 0, 1, False, cl=True)
    case(3, "unbatched_float32", [2, 5, 4, 6], 2, 2, 1)


def gen_avg_pool(fam):
    def case(nd, variant, shape, k, s=None, p=0, ceil=False, cip=True, div=None,
             dtype=torch.float32, cl=False):
        op = f"avg_pool{nd}d"
        r = Rng(f"{op}/{variant}")
        x = r.uniform(shape, -2, 2, dtype)
        k, p = _tuple(k, nd), _tuple(p, nd)
        s = k if s is None else _tuple(s, nd)
        flags = (["ceil_mode"] if ceil else []) + ([] if cip else ["no_count_include_pad"])
        flags += (["divisor"] if div is not None else []) + (["channels_last"] if cl else [])
        extra = f", divisor_override={div}" if div is not None else ""
        call = f"F.{op}(a0, l0, l1, l2, ceil_mode={ceil}, count_include_pad={cip}{extra})"
        _case(fam, f"{op}/{variant}", call, [x], (0,), dtype, ilists=[k, s, p],
              iargs=[div] if div is not None else [], flags=flags)

    case(1, "basic_float32", [2, 3, 9], 3, 2)
    case(1, "pad_no_count_ceil_float32", [1, 2, 10], 3, 2, 1, True, False)
    case(1, "unbatched_float64", [3, 8], 2, 1, 1, False, True, None, torch.float64)
    case(2, "basic_float32", [2, 3, 6, 7], 2)
    case(2, "pad_count_float32", [2, 2, 7, 7], 3, 2, 1)
    case(2, "pad_no_count_float32", [2, 2, 7, 7], 3, 2, 1, False, False)
    case(2, "ceil_pad_float32", [1, 2, 8, 7], 3, 2, 1, True)
    case(2, "ceil_pad_no_count_float32", [1, 2, 8, 7], 3, 2, 1, True, False)
    case(2, "divisor_float32", [2, 2, 6, 6], 3, 2, 1, False, True, 5)
    case(2, "rect_float64", [1, 3, 9, 6], [3, 2], [2, 1], [1, 0], False, True, None,
         torch.float64)
    case(2, "ceil_no_count_float64", [2, 1, 7, 8], 2, 2, 1, True, False, None, torch.float64)
    case(2, "empty_batch_float32", [0, 2, 5, 5], 2)
    case(2, "unbatched_float32", [3, 6, 5], 2, 1, 1)
    case(2, "channels_last_float32", [2, 5, 6, 7], 3, 2, 1, cl=True)
    case(2, "bfloat16", [2, 3, 8, 8], 3, 2, 1, False, True, None, torch.bfloat16)
    case(3, "basic_float32", [2, 2, 4, 6, 5], 2)
    case(3, "pad_ceil_no_count_float32", [1, 2, 5, 7, 6], 3, 2, 1, True, False)
    case(3, "divisor_float64", [1, 2, 5, 5, 6], 2, 1, 1, False, True, 3, torch.float64)
    case(3, "channels_last_float32", [2, 3, 4, 4, 5], 2, 2, 0, cl=True)


def gen_adaptive(fam):
    def case(kind, nd, variant, shape, out, dtype=torch.float32, cl=False):
        op = f"adaptive_{kind}_pool{nd}d"
        r = Rng(f"{op}/{variant}")
        x = r.distinct(shape, dtype) if kind == "max" else r.uniform(shape, -2, 2, dtype)
        flags = ["channels_last"] if cl else []
        _case(fam, f"{op}/{variant}", f"F.{op}(a0, l0)", [x], (0,), dtype, ilists=[out],
              flags=flags)
        if kind == "max":
            fam.case(f"{op}_with_indices/{variant}", f"F.{op}(a0, l0, return_indices=True)[1]",
                     [x], ilists=[out], flags=flags)

    for kind in ("avg", "max"):
        case(kind, 1, "shrink_float32", [2, 3, 10], [4])
        case(kind, 1, "grow_float64", [1, 2, 3], [5], torch.float64)
        case(kind, 2, "shrink_float32", [2, 3, 7, 9], [3, 4])
        case(kind, 2, "global_float32", [2, 4, 5, 6], [1, 1])
        case(kind, 2, "grow_float64", [1, 2, 3, 4], [5, 6], torch.float64)
        case(kind, 2, "unbatched_float32", [3, 8, 5], [3, 2])
        case(kind, 2, "empty_batch_float32", [0, 2, 6, 6], [3, 3])
        case(kind, 2, "channels_last_float32", [2, 5, 7, 6], [3, 4], cl=True)
        case(kind, 3, "shrink_float32", [1, 2, 5, 7, 6], [2, 3, 4])
        case(kind, 3, "mixed_float64", [2, 1, 3, 5, 4], [4, 2, 4], torch.float64)


def gen_lp_pool(fam):
    def case(nd, variant, shape, p, k, s=None, ceil=False, dtype=torch.float32):
        op = f"lp_pool{nd}d"
        r = Rng(f"{op}/{variant}")
        x = r.uniform(shape, 0.25, 2, dtype)
        k = _tuple(k, nd)
        s = k if s is None else _tuple(s, nd)
        flags = ["ceil_mode"] if ceil else []
        if nd == 3:
            call = "lp_pool3d_ref(a0, s0, l0, l1, " + str(ceil) + ")"
            env = {"lp_pool3d_ref": lp_pool3d_ref}
        elif nd == 1:
            # torch 1.13's lp_pool1d multiplies by kernel_size itself: it must be an int there.
            call = f"F.{op}(a0, s0, l0[0], l1[0], ceil_mode={ceil})"
            env = None
        else:
            call = f"F.{op}(a0, s0, l0, l1, ceil_mode={ceil})"
            env = None
        _case(fam, f"{op}/{variant}", call, [x], (0,), dtype, sargs=[float(p)], ilists=[k, s],
              flags=flags, env=env)

    case(1, "p2_float32", [2, 3, 9], 2, 3, 2)
    case(1, "p3_ceil_float64", [1, 2, 8], 3, 3, 2, True, torch.float64)
    case(2, "p2_float32", [2, 3, 7, 6], 2, 2)
    case(2, "p1_5_stride_float32", [1, 2, 8, 7], 1.5, [3, 2], [2, 1])
    case(2, "p3_ceil_float64", [2, 2, 7, 7], 3, 2, 2, True, torch.float64)
    case(3, "p2_float32", [1, 2, 4, 6, 5], 2, 2)
    case(3, "p3_float64", [1, 2, 5, 4, 6], 3, [2, 2, 3], [1, 2, 2], False, torch.float64)


def gen_max_unpool(fam):
    def case(nd, variant, shape, k, s=None, p=0, out=None, dtype=torch.float32):
        op = f"max_unpool{nd}d"
        r = Rng(f"{op}/{variant}")
        k, p = _tuple(k, nd), _tuple(p, nd)
        s = k if s is None else _tuple(s, nd)
        src = r.distinct(shape, dtype)
        pool = getattr(F, f"max_pool{nd}d")
        pooled, idx = pool(src, k, s, p, return_indices=True)
        vals = r.uniform(list(pooled.shape), -2, 2, dtype)
        ilists = [k, s, p] + ([out] if out is not None else [])
        tail = ", output_size=l3" if out is not None else ""
        call = f"F.{op}(a0, a1, l0, l1, l2{tail})"
        _case(fam, f"{op}/{variant}", call, [vals, idx], (0,), dtype, ilists=ilists,
              flags=["output_size"] if out is not None else [])

    case(1, "basic_float32", [2, 3, 8], 2)
    case(1, "stride_pad_float64", [1, 2, 9], 3, 2, 1, None, torch.float64)
    case(2, "basic_float32", [2, 3, 6, 8], 2)
    case(2, "output_size_float32", [1, 2, 7, 9], 2, 2, 0, [7, 9])
    case(2, "overlap_float64", [2, 2, 7, 6], 3, 2, 1, [7, 6], torch.float64)
    case(2, "unbatched_float32", [3, 6, 4], 2)
    case(2, "empty_batch_float32", [0, 2, 4, 4], 2)
    case(3, "basic_float32", [1, 2, 4, 6, 4], 2)
    case(3, "output_size_float64", [2, 1, 5, 5, 7], 2, 2, 0, [5, 5, 7], torch.float64)


def gen_fractional(fam):
    def case(nd, variant, shape, k, out=None, ratio=None, dtype=torch.float32):
        op = f"fractional_max_pool{nd}d"
        r = Rng(f"{op}/{variant}")
        x = r.distinct(shape, dtype)
        n = shape[0] if len(shape) == nd + 2 else 1
        c = shape[-nd - 1]
        u = r.uniform([n, c, nd], 0, 1, dtype)
        k = _tuple(k, nd)
        if out is not None:
            tail, ilists, sargs, flags = "output_size=l1", [k, _tuple(out, nd)], [], []
        else:
            tail, ilists, sargs, flags = "output_ratio=" + repr(tuple(ratio)), [k], ratio, ["ratio"]
        call = f"F.{op}(a0, l0, {tail}, _random_samples=a1)"
        _case(fam, f"{op}/{variant}", call, [x, u], (0,), dtype, ilists=ilists, sargs=sargs,
              flags=flags)
        fam.case(f"{op}_with_indices/{variant}",
                 f"F.{op}(a0, l0, {tail}, _random_samples=a1, return_indices=True)[1]", [x, u],
                 ilists=ilists, sargs=sargs, flags=flags)

    case(2, "output_size_float32", [2, 3, 9, 10], 2, [4, 5])
    case(2, "kernel3_float32", [1, 2, 11, 9], 3, [5, 4])
    case(2, "ratio_float64", [2, 2, 10, 8], 2, None, [0.5, 0.7], torch.float64)
    case(2, "unbatched_float32", [3, 8, 7], [2, 3], [4, 3])
    case(2, "output1_float32", [1, 2, 5, 5], 2, [1, 1])
    case(3, "output_size_float32", [1, 2, 7, 8, 6], 2, [3, 4, 3])
    case(3, "ratio_float64", [2, 1, 8, 6, 7], [2, 3, 2], None, [0.5, 0.5, 0.6], torch.float64)


def gen_nn_pool():
    fam = Family("nn_pool", ["pooling: max, average, adaptive, LP, unpooling, fractional; "
                             "per-op layout in tests/golden/gen/nn_pool.py."])
    gen_max_pool(fam)
    gen_avg_pool(fam)
    gen_adaptive(fam)
    gen_lp_pool(fam)
    gen_max_unpool(fam)
    gen_fractional(fam)
    return fam
