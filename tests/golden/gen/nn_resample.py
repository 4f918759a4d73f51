"""nn_resample.golden: F.interpolate (every mode), F.grid_sample and F.affine_grid.

Cases with `flag grads` carry PyTorch's gradients (layout: gen/nn_common.py); bfloat16 cases are
forward only. Per op (tests/nn/nn_ops_resample.cpp decodes the same way):

  interpolate, interpolate_<mode>
                a0 input; str mode (nearest | nearest-exact | linear | bilinear | bicubic |
                trilinear | area); flag size: ilist size, else the sargs are scale_factor (one per
                spatial dim); flags align (align_corners=True), noalign (False), neither: None;
                flag recompute (recompute_scale_factor=True); flag antialias; flag channels_last
                (a0 is passed as a channels-last copy). The op name only groups the cases by mode
                (`interpolate` holds the nearest ones, `interpolate_antialias` the antialiased).
  grid_sample, grid_sample_nearest, grid_sample_bicubic, grid_sample_3d
                a0 input, a1 grid; strs mode, padding_mode; flags align / noalign as above; flag
                channels_last as above.
  affine_grid   a0 theta; ilist size; flags align / noalign.
"""

import torch

from .common import Family, Rng
from .nn_common import grad_case

LOW = (torch.float16, torch.bfloat16)


def _align_kw(align):
    if align is None:
        return "", []
    return f", align_corners={align}", ["align" if align else "noalign"]


def _any(fam, name, call, args, grad_args, dtype, **kw):
    if dtype in LOW:
        fam.case(name, call, list(args), **kw)
    else:
        grad_case(fam, name, call, args, grad_args, **kw)


def gen_interpolate(fam):
    def case(op, variant, shape, mode, size=None, scale=None, align=None, recompute=False,
             antialias=False, channels_last=False, dtype=torch.float32):
        name = f"{op}/{variant}"
        x = Rng(name).uniform(shape, -2, 2, dtype)
        kw, flags = _align_kw(align)
        sargs, ilists = [], []
        if size is not None:
            kw = f", size=l0" + kw
            flags.append("size")
            ilists.append(size)
        else:
            kw = ", scale_factor=[" + ", ".join(f"s{k}" for k in range(len(scale))) + "]" + kw
            sargs = list(scale)
        if recompute:
            kw += ", recompute_scale_factor=True"
            flags.append("recompute")
        if antialias:
            kw += ", antialias=True"
            flags.append("antialias")
        a0 = "a0"
        if channels_last:
            fmt = "torch.channels_last" if len(shape) == 4 else "torch.channels_last_3d"
            a0 = f"a0.contiguous(memory_format={fmt})"
            flags.append("channels_last")
        call = f"F.interpolate({a0}, mode=q0{kw})"
        _any(fam, name, call, [x], (0,), dtype, strs=[mode], sargs=sargs, ilists=ilists,
             flags=flags)

    op = "interpolate"  # nearest
    case(op, "1d_size_up", [2, 3, 5], "nearest", size=[8])
    case(op, "2d_scale2", [1, 2, 4, 5], "nearest", scale=[2.0, 2.0])
    case(op, "2d_scale_fractional", [2, 2, 5, 4], "nearest", scale=[1.7, 2.3])
    case(op, "2d_size_down", [2, 3, 7, 9], "nearest", size=[3, 4])
    case(op, "3d_size", [1, 2, 3, 4, 5], "nearest", size=[5, 3, 7])
    case(op, "2d_recompute", [1, 2, 5, 3], "nearest", scale=[1.5, 2.5], recompute=True)
    case(op, "2d_channels_last", [2, 4, 5, 3], "nearest", size=[7, 8], channels_last=True)
    case(op, "2d_float64", [2, 2, 3, 4], "nearest", scale=[1.5, 0.75], dtype=torch.float64)
    case(op, "2d_empty_batch", [0, 2, 3, 3], "nearest", size=[5, 5])
    case(op, "2d_bfloat16", [1, 2, 4, 5], "nearest", size=[6, 9], dtype=torch.bfloat16)

    op = "interpolate_nearest_exact"
    case(op, "1d_size", [2, 3, 5], "nearest-exact", size=[7])
    case(op, "2d_scale_fractional", [2, 2, 5, 4], "nearest-exact", scale=[1.7, 0.6])
    case(op, "3d_down", [1, 2, 5, 6, 7], "nearest-exact", size=[3, 4, 2])
    case(op, "2d_float64", [1, 3, 4, 4], "nearest-exact", size=[7, 3], dtype=torch.float64)

    op = "interpolate_linear"
    case(op, "up_noalign", [2, 3, 5], "linear", size=[9], align=False)
    case(op, "up_align", [2, 3, 5], "linear", size=[9], align=True)
    case(op, "down_align", [1, 2, 9], "linear", size=[4], align=True)
    case(op, "scale_fractional", [2, 2, 6], "linear", scale=[1.3], align=False)
    case(op, "default_align", [1, 2, 4], "linear", size=[6])
    case(op, "out1_align", [1, 2, 4], "linear", size=[1], align=True)
    case(op, "float64", [2, 2, 5], "linear", size=[3], align=False, dtype=torch.float64)

    op = "interpolate_bilinear"
    case(op, "up_noalign", [2, 3, 4, 5], "bilinear", size=[7, 9], align=False)
    case(op, "up_align", [2, 3, 4, 5], "bilinear", size=[7, 9], align=True)
    case(op, "down_noalign", [1, 2, 9, 8], "bilinear", size=[4, 3], align=False)
    case(op, "down_align", [1, 2, 9, 8], "bilinear", size=[4, 3], align=True)
    case(op, "scale_down_fractional", [2, 2, 7, 9], "bilinear", scale=[0.6, 0.45], align=False)
    case(op, "scale_up_fractional", [1, 2, 3, 4], "bilinear", scale=[1.7, 2.5], align=False)
    case(op, "recompute", [1, 2, 3, 4], "bilinear", scale=[1.7, 2.5], align=False,
         recompute=True)
    case(op, "channels_last", [2, 5, 4, 3], "bilinear", size=[6, 5], align=False,
         channels_last=True)
    case(op, "channels_last_down", [1, 3, 8, 7], "bilinear", size=[3, 5], align=True,
         channels_last=True)
    case(op, "float64", [2, 2, 3, 4], "bilinear", size=[5, 7], align=False, dtype=torch.float64)
    case(op, "float64_align", [1, 2, 5, 4], "bilinear", size=[3, 7], align=True,
         dtype=torch.float64)
    case(op, "bfloat16", [1, 2, 4, 5], "bilinear", size=[7, 3], align=False,
         dtype=torch.bfloat16)

    op = "interpolate_bicubic"
    case(op, "up_noalign", [2, 2, 4, 5], "bicubic", size=[7, 9], align=False)
    case(op, "up_align", [2, 2, 4, 5], "bicubic", size=[7, 9], align=True)
    case(op, "down_noalign", [1, 2, 9, 8], "bicubic", size=[4, 3], align=False)
    case(op, "scale_fractional", [1, 2, 5, 4], "bicubic", scale=[1.5, 0.7], align=False)
    case(op, "channels_last", [1, 4, 5, 4], "bicubic", size=[8, 3], align=True,
         channels_last=True)
    case(op, "float64", [2, 1, 4, 4], "bicubic", size=[6, 5], align=False, dtype=torch.float64)

    op = "interpolate_trilinear"
    case(op, "up_noalign", [1, 2, 3, 4, 3], "trilinear", size=[5, 6, 4], align=False)
    case(op, "up_align", [1, 2, 3, 4, 3], "trilinear", size=[5, 6, 4], align=True)
    case(op, "down_noalign", [2, 1, 6, 5, 7], "trilinear", size=[3, 2, 4], align=False)
    case(op, "scale_fractional", [1, 2, 3, 3, 4], "trilinear", scale=[1.5, 2.0, 0.6],
         align=False)
    case(op, "channels_last", [1, 3, 3, 4, 2], "trilinear", size=[4, 5, 3], align=True,
         channels_last=True)
    case(op, "float64", [1, 2, 2, 3, 4], "trilinear", size=[4, 4, 3], align=False,
         dtype=torch.float64)

    op = "interpolate_area"
    case(op, "1d_down", [2, 3, 7], "area", size=[3])
    case(op, "2d_down", [2, 3, 7, 9], "area", size=[3, 4])
    case(op, "2d_up", [1, 2, 3, 4], "area", size=[5, 6])
    case(op, "3d", [1, 2, 5, 4, 6], "area", size=[2, 3, 4])
    case(op, "2d_scale", [1, 2, 7, 6], "area", scale=[0.5, 0.7])
    case(op, "2d_channels_last", [2, 4, 6, 5], "area", size=[4, 2], channels_last=True)
    case(op, "2d_float64", [1, 2, 6, 7], "area", size=[4, 3], dtype=torch.float64)

    op = "interpolate_antialias"
    case(op, "bilinear_down", [1, 2, 9, 11], "bilinear", size=[4, 5], align=False, antialias=True)
    case(op, "bilinear_up", [1, 2, 3, 4], "bilinear", size=[5, 7], align=False, antialias=True)
    case(op, "bilinear_scale", [2, 2, 10, 8], "bilinear", scale=[0.4, 0.6], align=False,
         antialias=True)
    case(op, "bicubic_down", [1, 2, 9, 11], "bicubic", size=[4, 5], align=False, antialias=True)
    case(op, "bicubic_mixed", [1, 2, 5, 12], "bicubic", size=[8, 5], align=False, antialias=True)
    case(op, "bilinear_float64", [1, 2, 8, 9], "bilinear", size=[3, 4], align=False,
         antialias=True, dtype=torch.float64)
    case(op, "bicubic_float64", [1, 1, 8, 9], "bicubic", size=[3, 5], align=False,
         antialias=True, dtype=torch.float64)


def gen_grid_sample(fam):
    def case(op, variant, shape, gshape, mode, padding, align, channels_last=False,
             dtype=torch.float32, lim=1.25):
        name = f"{op}/{variant}"
        r = Rng(name)
        x = r.uniform(shape, -2, 2, dtype)
        g = r.uniform(gshape, -lim, lim, dtype)
        kw, flags = _align_kw(align)
        a0 = "a0"
        if channels_last:
            fmt = "torch.channels_last" if len(shape) == 4 else "torch.channels_last_3d"
            a0 = f"a0.contiguous(memory_format={fmt})"
            flags.append("channels_last")
        call = f"F.grid_sample({a0}, a1, mode=q0, padding_mode=q1{kw})"
        _any(fam, name, call, [x, g], (0, 1), dtype, strs=[mode, padding], flags=flags)

    ops2 = {"bilinear": "grid_sample", "nearest": "grid_sample_nearest",
            "bicubic": "grid_sample_bicubic"}
    for mode, op in ops2.items():
        for padding in ("zeros", "border", "reflection"):
            for align in (False, True):
                case(op, f"{padding}_{'align' if align else 'noalign'}", [2, 3, 4, 5],
                     [2, 3, 4, 2], mode, padding, align)
        case(op, "float64", [1, 2, 5, 4], [1, 4, 3, 2], mode, "reflection", False,
             dtype=torch.float64)
        case(op, "channels_last", [2, 4, 3, 5], [2, 2, 3, 2], mode, "border", True,
             channels_last=True)
        case(op, "default_align", [1, 2, 3, 4], [1, 2, 2, 2], mode, "zeros", None)
    case("grid_sample", "empty_batch", [0, 2, 3, 4], [0, 2, 2, 2], "bilinear", "zeros", False)
    case("grid_sample", "far_outside", [1, 2, 3, 4], [1, 3, 3, 2], "bilinear", "reflection",
         False, lim=4.0)
    case("grid_sample", "bfloat16", [1, 2, 4, 5], [1, 3, 2, 2], "bilinear", "zeros", False,
         dtype=torch.bfloat16)
    for mode in ("bilinear", "nearest"):
        for padding in ("zeros", "border", "reflection"):
            for align in (False, True):
                case("grid_sample_3d", f"{mode}_{padding}_{'align' if align else 'noalign'}",
                     [1, 2, 3, 4, 3], [1, 2, 3, 2, 3], mode, padding, align)
    case("grid_sample_3d", "float64", [2, 1, 3, 3, 4], [2, 2, 2, 3, 3], "bilinear", "border",
         False, dtype=torch.float64)
    case("grid_sample_3d", "channels_last", [1, 3, 3, 2, 4], [1, 2, 2, 2, 3], "bilinear",
         "zeros", True, channels_last=True)


def gen_affine_grid(fam):
    def case(variant, size, align, dtype=torch.float32):
        name = f"affine_grid/{variant}"
        rows = len(size) - 2
        theta = Rng(name).uniform([size[0], rows, rows + 1], -1.5, 1.5, dtype)
        kw, flags = _align_kw(align)
        grad_case(fam, name, f"F.affine_grid(a0, l0{kw})", [theta], (0,), ilists=[size],
                  flags=flags)

    case("2d_noalign", [2, 3, 4, 5], False)
    case("2d_align", [2, 3, 4, 5], True)
    case("2d_single_row", [1, 1, 1, 4], False)
    case("3d_noalign", [2, 1, 3, 4, 2], False)
    case("3d_align", [1, 2, 2, 3, 4], True)
    case("2d_float64", [2, 1, 3, 3], False, torch.float64)
    case("3d_float64", [1, 1, 2, 2, 3], True, torch.float64)


def gen_nn_resample():
    fam = Family("nn_resample", ["F.interpolate, F.grid_sample, F.affine_grid; per-op layout in "
                                 "tests/golden/gen/nn_resample.py."])
    gen_interpolate(fam)
    gen_grid_sample(fam)
    gen_affine_grid(fam)
    return fam
