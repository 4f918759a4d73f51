"""nn_layer.golden: the layer functionals of torch.nn.functional (linear, bilinear, the dropout
family, embedding, embedding_bag, layer_norm, rms_norm, cosine_similarity, pairwise_distance).

Cases with `flag grads` carry PyTorch's gradients (layout: gen/nn_common.py). float32 and float64
cases have gradients; float16/bfloat16 cases are forward only. Optional tensors are always stored,
so an op's gradient args keep their positions; a flag says when one is not passed to the op (its
gradient is then zeros). Per op (tests/nn/nn_ops_layer.cpp decodes the same way):

  linear              a0 input, a1 weight, a2 bias; flag no_bias: F.linear(a0, a1)
  bilinear            a0 input1, a1 input2, a2 weight, a3 bias; flag no_bias
  dropout, dropout1d, dropout2d, dropout3d, alpha_dropout, feature_alpha_dropout
                      a0 input; sarg p, sarg training (bool). Only cases where the op is the
                      identity (p = 0 or training = false): random behaviour is tested in C++.
  embedding           a0 indices, a1 weight; flag padding: iarg padding_idx; flag max_norm: sargs
                      max_norm, norm_type; flag scale_grad_by_freq
  embedding_bag       a0 indices, a1 weight, a2 per_sample_weights (shape of a0), a3 offsets when
                      flag offsets; str mode (sum|mean|max); flag psw: per_sample_weights passed;
                      flags include_last_offset, scale_grad_by_freq, padding (iarg padding_idx),
                      max_norm (sargs max_norm, norm_type)
  layer_norm          a0 input, a1 weight, a2 bias; ilist normalized_shape; sarg eps; flags
                      no_weight, no_bias
  rms_norm            a0 input, a1 weight; ilist normalized_shape; sarg eps (absent: None); flag
                      no_weight. torch 1.13 has no rms_norm: the reference is the composite of
                      recent PyTorch written with plain ops (rms_norm_ref below).
  cosine_similarity   a0 x1, a1 x2; iarg dim; sarg eps
  pairwise_distance   a0 x1, a1 x2; sargs p, eps; flag keepdim

max_norm cases pass a clone of the weight to PyTorch, whose renormalisation writes into its
argument: the stored weight is the one before renormalisation.
"""

import math

import torch
import torch.nn.functional as F

from .common import Family, Rng
from .nn_common import grad_case

LOW = (torch.float16, torch.bfloat16)


def rms_norm_ref(x, normalized_shape, weight, eps):
    """torch.nn.functional.rms_norm of recent PyTorch (its composite path): statistics in float32
    (float64 for float64 input), eps defaulting to that dtype's machine epsilon, weight applied
    before rounding back to the input dtype."""
    dims = tuple(range(x.dim() - len(normalized_shape), x.dim()))
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xu = x.to(ct)
    e = torch.finfo(ct).eps if eps is None else eps
    y = xu * torch.rsqrt(xu.pow(2).mean(dims, keepdim=True) + e)
    if weight is not None:
        y = y * weight
    return y.to(x.dtype)


def bag_ref(idx, weight, offsets, mode, padding_idx):
    """embedding_bag (sum or mean, 1-D input) with scale_grad_by_freq, written with F.embedding:
    torch's CPU embedding_bag divides by the wrong index's count (pytorch/pytorch#190063), while
    F.embedding's scaling is right. Padding entries are masked out of the bags."""
    rows = F.embedding(idx, weight, padding_idx=padding_idx, scale_grad_by_freq=True)
    keep = torch.ones_like(idx, dtype=weight.dtype) if padding_idx is None else \
        (idx != padding_idx).to(weight.dtype)
    ends = offsets.tolist()[1:] + [idx.numel()]
    out = []
    for b, e in zip(offsets.tolist(), ends):
        total = (rows[b:e] * keep[b:e, None]).sum(0)
        out.append(total / max(keep[b:e].sum().item(), 1) if mode == "mean" else total)
    return torch.stack(out)


def _any(fam, name, call, args, grad_args, dtype, **kw):
    """grad_case for float32/float64, forward only (with the float32 fallback) for 16-bit."""
    if dtype in LOW:
        fam.case(name, call, list(args), **kw)
    else:
        grad_case(fam, name, call, args, grad_args, **kw)


def gen_linear(fam):
    def case(variant, xs, out, dtype=torch.float32, bias=True, transposed=False):
        name = f"linear/{variant}"
        r = Rng(name)
        in_f = xs[-1]
        x = r.uniform(list(reversed(xs)) if transposed else xs, -2, 2, dtype)
        w = r.uniform([out, in_f], -1, 1, dtype)
        b = r.uniform([out], -1, 1, dtype)
        a0 = "a0.mT" if transposed else "a0"
        call = f"F.linear({a0}, a1, a2)" if bias else f"F.linear({a0}, a1)"
        flags = (["no_bias"] if not bias else []) + (["transposed"] if transposed else [])
        if transposed or dtype in LOW:
            fam.case(name, call, [x, w, b], flags=flags)
        else:
            grad_case(fam, name, call, [x, w, b], (0, 1, 2), flags=flags)

    case("2d_float32", [4, 5], 3)
    case("2d_no_bias_float32", [4, 5], 3, bias=False)
    case("3d_float32", [2, 3, 5], 4)
    case("4d_no_bias_float32", [2, 2, 3, 4], 3, bias=False)
    case("1d_float32", [5], 3)
    case("zero_batch_float32", [0, 5], 3)
    case("2d_float64", [3, 4], 2, torch.float64)
    case("3d_float64", [2, 2, 4], 3, torch.float64)
    case("transposed_float32", [3, 4], 2, transposed=True)
    case("2d_float16", [4, 8], 3, torch.float16)
    case("3d_bfloat16", [2, 3, 8], 4, torch.bfloat16)


def gen_bilinear(fam):
    def case(variant, batch, in1, in2, out, dtype=torch.float32, bias=True):
        name = f"bilinear/{variant}"
        r = Rng(name)
        x1 = r.uniform(batch + [in1], -1, 1, dtype)
        x2 = r.uniform(batch + [in2], -1, 1, dtype)
        w = r.uniform([out, in1, in2], -1, 1, dtype)
        b = r.uniform([out], -1, 1, dtype)
        call = "F.bilinear(a0, a1, a2, a3)" if bias else "F.bilinear(a0, a1, a2)"
        flags = [] if bias else ["no_bias"]
        _any(fam, name, call, [x1, x2, w, b], (0, 1, 2, 3), dtype, flags=flags)

    case("2d_float32", [4], 3, 5, 2)
    case("2d_no_bias_float32", [3], 2, 4, 3, bias=False)
    case("3d_float32", [2, 3], 3, 2, 4)
    case("1d_float32", [], 3, 4, 2)
    case("2d_float64", [3], 2, 3, 2, torch.float64)
    case("2d_bfloat16", [4], 3, 5, 2, torch.bfloat16)


def gen_dropout(fam):
    ops = {"dropout": [3, 4], "dropout1d": [2, 3, 4], "dropout2d": [2, 3, 2, 2],
           "dropout3d": [2, 2, 2, 2, 2], "alpha_dropout": [3, 4],
           "feature_alpha_dropout": [2, 3, 4]}
    for op, shape in ops.items():
        for variant, p, training in (("p0_training", 0.0, True), ("eval", 0.5, False)):
            for dtype in (torch.float32, torch.float64, torch.bfloat16):
                name = f"{op}/{variant}_{str(dtype)[6:]}"
                x = Rng(name).uniform(shape, -3, 3, dtype)
                _any(fam, name, f"F.{op}(a0, s0, training=s1)", [x], (0,), dtype,
                     sargs=[p, training])


def gen_embedding(fam):
    def case(variant, idx, num, dim, dtype=torch.float32, padding=None, max_norm=None,
             norm_type=2.0, freq=False, wscale=1.0):
        name = f"embedding/{variant}"
        r = Rng(name)
        w = r.normal([num, dim], dtype) * wscale
        kw, flags, iargs, sargs = [], [], [], []
        if padding is not None:
            kw.append("padding_idx=i0")
            flags.append("padding")
            iargs.append(padding)
        if max_norm is not None:
            kw.append("max_norm=s0, norm_type=s1")
            flags.append("max_norm")
            sargs += [max_norm, norm_type]
        if freq:
            kw.append("scale_grad_by_freq=True")
            flags.append("scale_grad_by_freq")
        weight = "a1.clone()" if max_norm is not None else "a1"
        call = f"F.embedding(a0, {weight}{''.join(', ' + k for k in kw)})"
        _any(fam, name, call, [idx, w], (1,), dtype, flags=flags, iargs=iargs, sargs=sargs)

    r = Rng("embedding/indices")
    rep = torch.tensor([[1, 3, 3, 0], [5, 3, 1, 1]])  # repeated indices
    case("2d_float32", rep, 6, 3)
    case("1d_float64", torch.tensor([4, 0, 2, 2, 4]), 5, 4, torch.float64)
    case("3d_int32_float32", r.ints([2, 2, 3], 0, 6).to(torch.int32), 7, 2)
    case("padding_float32", rep, 6, 3, padding=3)
    case("padding_negative_float64", rep, 6, 3, torch.float64, padding=-1)
    case("scale_grad_by_freq_float32", rep, 6, 3, freq=True)
    case("padding_freq_float32", rep, 6, 3, padding=1, freq=True)
    case("max_norm_float32", rep, 6, 3, max_norm=1.0, wscale=2.0)
    case("max_norm_p1_float64", rep, 6, 3, torch.float64, max_norm=1.5, norm_type=1.0,
         wscale=2.0)
    case("empty_float32", torch.zeros([0, 3], dtype=torch.long), 4, 2)
    case("2d_float16", rep, 6, 3, torch.float16)
    case("2d_bfloat16", rep, 6, 3, torch.bfloat16)


def gen_embedding_bag(fam):
    def case(variant, idx, num, dim, mode, offsets=None, dtype=torch.float32, psw=False,
             last=False, padding=None, max_norm=None, norm_type=2.0, freq=False, wscale=1.0,
             grads=True):
        name = f"embedding_bag/{variant}"
        r = Rng(name)
        w = r.normal([num, dim], dtype) * wscale
        sw = r.uniform(list(idx.shape), -2, 2, dtype)
        args = [idx, w, sw]
        kw, flags, iargs, sargs = [f"mode=q0"], [], [], []
        if offsets is not None:
            args.append(offsets)
            flags.append("offsets")
            kw.insert(0, "offsets=a3")
        if psw:
            kw.append("per_sample_weights=a2")
            flags.append("psw")
        if last:
            kw.append("include_last_offset=True")
            flags.append("include_last_offset")
        if padding is not None:
            kw.append("padding_idx=i0")
            flags.append("padding")
            iargs.append(padding)
        if max_norm is not None:
            kw.append("max_norm=s0, norm_type=s1")
            flags.append("max_norm")
            sargs += [max_norm, norm_type]
        if freq:
            kw.append("scale_grad_by_freq=True")
            flags.append("scale_grad_by_freq")
        weight = "a1.clone()" if max_norm is not None else "a1"
        call = f"F.embedding_bag(a0, {weight}, {', '.join(kw)})"
        ref = None
        if freq:
            ref = f"bag_ref(a0, a1, a3, q0, {'i0' if padding is not None else 'None'})"
        _any(fam, name, call, args, (1, 2) if grads else (), dtype, flags=flags, iargs=iargs,
             sargs=sargs, strs=[mode], ref=ref, env={"bag_ref": bag_ref},
             note="reference: bag_ref (torch 1.13's CPU scale_grad_by_freq is wrong)" if freq
             else None)

    r = Rng("embedding_bag/indices")
    flat = torch.tensor([1, 2, 4, 5, 4, 3, 2, 0, 2])
    offs = torch.tensor([0, 3, 3, 5])  # bag 1 is empty
    two_d = torch.tensor([[1, 3, 3], [0, 5, 1], [2, 2, 2]])
    for mode in ("sum", "mean", "max"):
        case(f"2d_{mode}_float32", two_d, 6, 3, mode)
        case(f"offsets_{mode}_float32", flat, 6, 3, mode, offs)
        case(f"offsets_{mode}_float64", flat, 6, 2, mode, offs, torch.float64)
        case(f"padding_{mode}_float32", flat, 6, 3, mode, offs, padding=2)
        case(f"last_offset_{mode}_float32", flat, 6, 3, mode, torch.tensor([0, 2, 2, 9]),
             last=True)
        case(f"max_norm_{mode}_float32", flat, 6, 3, mode, offs, max_norm=1.2, wscale=2.0)
        case(f"offsets_{mode}_float16", flat, 6, 3, mode, offs, torch.float16)
    for mode in ("sum", "mean"):
        case(f"freq_{mode}_float32", flat, 6, 3, mode, offs, freq=True)
        case(f"padding_freq_{mode}_float64", flat, 6, 3, mode, offs, torch.float64, padding=4,
             freq=True)
    case("psw_offsets_float32", flat, 6, 3, "sum", offs, psw=True)
    case("psw_2d_float64", two_d, 6, 3, "sum", None, torch.float64, psw=True)
    case("psw_padding_float32", flat, 6, 3, "sum", offs, psw=True, padding=4)
    case("int32_sum_float32", r.ints([7], 0, 4).to(torch.int32), 5, 2, "sum",
         torch.tensor([0, 4], dtype=torch.int32))
    # Forward only: torch 1.13 leaves the gradient rows of indices after the last offset
    # uninitialised (they differ from run to run).
    case("2d_last_offset_sum_float32", two_d, 6, 3, "sum", last=True, grads=False)
    case("empty_input_mean_float32", torch.zeros([0], dtype=torch.long), 4, 3, "mean",
         torch.tensor([0, 0]))
    case("2d_float16", two_d, 6, 3, "mean", None, torch.float16)


def gen_layer_norm(fam):
    def case(variant, shape, k, dtype=torch.float32, eps=1e-5, weight=True, bias=True):
        name = f"layer_norm/{variant}"
        r = Rng(name)
        ns = shape[len(shape) - k:]
        x = r.uniform(shape, -3, 3, dtype)
        w = r.uniform(ns, 0.5, 1.5, dtype)
        b = r.uniform(ns, -1, 1, dtype)
        flags = (["no_weight"] if not weight else []) + (["no_bias"] if not bias else [])
        call = (f"F.layer_norm(a0, l0, {'a1' if weight else 'None'}, {'a2' if bias else 'None'}, "
                f"s0)")
        _any(fam, name, call, [x, w, b], (0, 1, 2), dtype, flags=flags, ilists=[ns],
             sargs=[eps])

    case("last_dim_float32", [3, 5], 1)
    case("two_dims_float32", [2, 3, 4], 2)
    case("no_affine_float32", [4, 6], 1, weight=False, bias=False)
    case("weight_only_float32", [2, 2, 5], 1, bias=False)
    case("bias_only_float64", [3, 4], 1, torch.float64, weight=False)
    case("eps_float64", [2, 3, 4], 2, torch.float64, eps=0.1)
    case("all_dims_float32", [3, 4], 2)
    case("zero_batch_float32", [0, 4], 1)
    case("last_dim_float16", [3, 8], 1, torch.float16)
    case("last_dim_bfloat16", [3, 8], 1, torch.bfloat16)


def gen_rms_norm(fam):
    def case(variant, shape, k, dtype=torch.float32, eps=None, weight=True, xscale=1.0):
        name = f"rms_norm/{variant}"
        r = Rng(name)
        ns = shape[len(shape) - k:]
        x = r.uniform(shape, -3, 3, dtype) * xscale
        w = r.uniform(ns, 0.5, 1.5, dtype)
        sargs = [] if eps is None else [eps]
        e = "None" if eps is None else "s0"
        wt = "a1" if weight else "None"
        call = f"F.rms_norm(a0, l0, {wt}, eps={e})"
        ref = f"rms_norm_ref(a0, l0, {wt}, {e})"
        _any(fam, name, call, [x, w], (0, 1), dtype, ilists=[ns], sargs=sargs,
             flags=[] if weight else ["no_weight"], env={"rms_norm_ref": rms_norm_ref},
             ref=ref)

    case("last_dim_float32", [3, 5], 1)
    case("two_dims_float32", [2, 3, 4], 2)
    case("eps_float32", [4, 6], 1, eps=1e-3)
    case("no_weight_float32", [2, 5], 1, weight=False)
    case("last_dim_float64", [3, 4], 1, torch.float64)
    case("eps_no_weight_float64", [2, 2, 3], 2, torch.float64, eps=0.5, weight=False)
    case("tiny_input_float32", [2, 3], 1, xscale=1e-4)  # the default eps matters here
    case("last_dim_float16", [3, 8], 1, torch.float16)
    case("last_dim_bfloat16", [3, 8], 1, torch.bfloat16)


def gen_cosine_similarity(fam):
    def case(variant, s1, s2, dim, dtype=torch.float32, eps=1e-8, scale2=1.0):
        name = f"cosine_similarity/{variant}"
        r = Rng(name)
        x1 = r.uniform(s1, -2, 2, dtype)
        x2 = r.uniform(s2, -2, 2, dtype) * scale2
        _any(fam, name, "F.cosine_similarity(a0, a1, i0, s0)", [x1, x2], (0, 1), dtype,
             iargs=[dim], sargs=[eps])

    case("dim1_float32", [3, 5], [3, 5], 1)
    case("dim0_float64", [4, 3], [4, 3], 0, torch.float64)
    case("negative_dim_float32", [2, 3, 4], [2, 3, 4], -1)
    case("broadcast_float32", [3, 1, 4], [2, 4], -1)
    case("broadcast_dim0_float64", [4, 1], [4, 3], 0, torch.float64)
    case("eps_clamps_float32", [3, 4], [3, 4], 1, eps=0.5, scale2=0.05)
    case("dim1_bfloat16", [3, 8], [3, 8], 1, torch.bfloat16)
    r = Rng("cosine_similarity/int_float32")
    fam.case("cosine_similarity/int_float32", "F.cosine_similarity(a0, a1, i0, s0)",
             [r.ints([3, 4], -3, 3), r.uniform([3, 4], -2, 2)], iargs=[1], sargs=[1e-8])


def gen_pairwise_distance(fam):
    def case(variant, s1, s2, p=2.0, eps=1e-6, keepdim=False, dtype=torch.float32):
        name = f"pairwise_distance/{variant}"
        r = Rng(name)
        x1 = r.uniform(s1, -2, 2, dtype)
        x2 = r.uniform(s2, -2, 2, dtype)
        call = f"F.pairwise_distance(a0, a1, s0, s1, {'True' if keepdim else 'False'})"
        _any(fam, name, call, [x1, x2], (0, 1), dtype, sargs=[p, eps],
             flags=["keepdim"] if keepdim else [])

    case("p2_float32", [4, 5], [4, 5])
    case("p1_float64", [3, 4], [3, 4], p=1.0, dtype=torch.float64)
    case("p3_keepdim_float32", [3, 4], [3, 4], p=3.0, keepdim=True)
    case("p_half_float64", [3, 4], [3, 4], p=0.5, dtype=torch.float64)
    case("p_inf_float32", [3, 4], [3, 4], p=math.inf)
    case("broadcast_float32", [2, 1, 4], [3, 4])
    case("one_d_float64", [5], [5], dtype=torch.float64)
    case("eps_float32", [3, 4], [3, 4], eps=0.1)
    case("p2_bfloat16", [4, 8], [4, 8], dtype=torch.bfloat16)


def gen_nn_layer():
    fam = Family("nn_layer", ["Layer functionals of torch.nn.functional; per-op layout in "
                              "tests/golden/gen/nn_layer.py."])
    gen_linear(fam)
    gen_bilinear(fam)
    gen_dropout(fam)
    gen_embedding(fam)
    gen_embedding_bag(fam)
    gen_layer_norm(fam)
    gen_rms_norm(fam)
    gen_cosine_similarity(fam)
    gen_pairwise_distance(fam)
    return fam
