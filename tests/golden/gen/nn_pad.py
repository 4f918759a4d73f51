"""nn_pad.golden: padding in every mode, pixel (un)shuffle, channel shuffle, fold/unfold.

Cases with `flag grads` carry PyTorch's gradients (layout: gen/nn_common.py): float32 and float64
cases have them; float16/bfloat16 and integer cases are forward only. Flag channels_last: the op
sees a0.contiguous(memory_format=channels_last) (same values, other strides). Per op
(tests/nn/nn_ops_pad.cpp decodes the same way):

  pad              a0 input; str mode (constant|reflect|replicate|circular); ilist pad; sarg
                   value (constant mode only; absent: 0). Unbatched circular cases: torch 1.13
                   pads only batched inputs circularly, so the reference pads a0[None] (newer
                   PyTorch's behaviour).
  pixel_shuffle    a0 input; iarg upscale_factor
  pixel_unshuffle  a0 input; iarg downscale_factor
  channel_shuffle  a0 input; iarg groups. torch 1.13's channel_shuffle has no autograd formula,
                   so the reference is its view/transpose composite (same values, exact).
  unfold           a0 input; ilists kernel_size, dilation, padding, stride
  fold             a0 input; ilists output_size, kernel_size, dilation, padding, stride
"""

import torch

from .common import Family, Rng
from .nn_common import grad_case

LOW = (torch.float16, torch.bfloat16)
CL = {4: "torch.channels_last", 5: "torch.channels_last_3d"}


def _dname(dtype):
    return str(dtype)[6:]


def _any(fam, name, call, args, dtype, **kw):
    if dtype in LOW or not dtype.is_floating_point:
        fam.case(name, call, list(args), **kw)
    else:
        grad_case(fam, name, call, args, (0,), **kw)


def _a0(shape, channels_last):
    return f"a0.contiguous(memory_format={CL[len(shape)]})" if channels_last else "a0"


def gen_pad(fam):
    def case(variant, shape, pad, mode, dtype=torch.float32, value=None, channels_last=False):
        name = f"pad/{mode}_{variant}_{_dname(dtype)}"
        r = Rng(name)
        if dtype.is_floating_point:
            x = r.uniform(shape, -2, 2, dtype)
        else:
            x = r.ints(shape, -9, 9, dtype)
        a0 = _a0(shape, channels_last)
        sargs = [value] if value is not None else []
        val = ", value=s0" if value is not None else ""
        call = f"F.pad({a0}, l0, mode=q0{val})"
        flags = ["channels_last"] if channels_last else []
        kw = {}
        if mode == "circular" and len(shape) == len(pad) // 2 + 1:
            # torch 1.13 pads only batched inputs circularly; newer PyTorch pads an unbatched
            # input as a batch of one, which is the reference here.
            kw["ref"] = f"F.pad({a0}[None], l0, mode=q0{val})[0]"
        _any(fam, name, call, [x], dtype, strs=[mode], ilists=[pad], sargs=sargs, flags=flags,
             **kw)

    for dtype in (torch.float32, torch.float64):
        for mode in ("reflect", "replicate", "circular"):
            case("1d_batched", [2, 3, 5], [2, 1], mode, dtype)
            case("1d_unbatched", [3, 4], [1, 3], mode, dtype)
            case("2d_batched", [2, 2, 4, 5], [1, 2, 3, 0], mode, dtype)
            case("2d_unbatched", [2, 3, 5], [2, 2, 1, 1], mode, dtype)
            case("3d_batched", [1, 2, 3, 4, 3], [1, 2, 0, 1, 2, 1], mode, dtype)
            case("3d_unbatched", [2, 3, 3, 4], [2, 1, 1, 2, 1, 0], mode, dtype)
            case("1d_negative", [2, 2, 7], [-2, 1], mode, dtype)
            case("2d_negative", [1, 2, 5, 6], [1, -2, -1, 2], mode, dtype)
            case("2d_empty_batch", [0, 2, 3, 4], [1, 1, 2, 1], mode, dtype)
            case("3d_batch1", [1, 1, 3, 3, 4], [1, 1, 1, 1, 1, 1], mode, dtype)
        case("1d_whole_edge", [2, 3, 4], [3, 3], "reflect", dtype)
        case("1d_wrap_full", [2, 3, 4], [4, 4], "circular", dtype)
        case("2d_channels_last", [2, 3, 4, 5], [1, 2, 2, 1], "reflect", dtype, channels_last=True)
        case("3d_channels_last", [1, 3, 2, 3, 4], [1, 0, 1, 1, 0, 2], "replicate", dtype,
             channels_last=True)
        case("1d", [2, 3, 5], [2, 1], "constant", dtype)
        case("2d_value", [2, 2, 3, 4], [1, 2, 0, 3], "constant", dtype, value=1.5)
        case("3d_negative", [2, 2, 3, 4, 5], [-1, 2, 1, -2, 0, 1], "constant", dtype, value=-0.5)
        case("4_dims", [2, 3, 2, 3], [1, 0, 1, 1, 0, 1, 1, 1], "constant", dtype)
        case("crop_to_empty", [2, 3, 4], [-2, -2], "constant", dtype)
        case("empty_batch", [0, 3, 4], [1, 2], "constant", dtype)
        case("channels_last", [2, 3, 4, 5], [1, 1, 2, 0], "constant", dtype, value=2.0,
             channels_last=True)
    for dtype in LOW:
        case("2d", [2, 2, 3, 4], [1, 2, 2, 1], "reflect", dtype)
        case("2d", [2, 2, 3, 4], [1, 2, 2, 1], "replicate", dtype)
        case("3d", [1, 2, 2, 3, 3], [1, 1, 1, 1, 1, 1], "circular", dtype)
        case("2d", [2, 2, 3, 4], [1, 2, 2, 1], "constant", dtype, value=0.25)
    case("2d", [2, 3, 4], [1, 2, 2, 1], "constant", torch.int64, value=3)
    case("1d", [2, 3, 4], [1, 2], "constant", torch.int32)


def gen_shuffles(fam):
    def case(op, variant, shape, factor, dtype=torch.float32, channels_last=False, ref=None):
        name = f"{op}/{variant}_{_dname(dtype)}"
        x = Rng(name).uniform(shape, -2, 2, dtype)
        call = f"F.{op}({_a0(shape, channels_last)}, i0)"
        flags = ["channels_last"] if channels_last else []
        kw = {"ref": ref} if ref else {}
        _any(fam, name, call, [x], dtype, iargs=[factor], flags=flags, **kw)

    for dtype in (torch.float32, torch.float64):
        case("pixel_shuffle", "4d", [2, 8, 3, 2], 2, dtype)
        case("pixel_shuffle", "3d", [9, 2, 3], 3, dtype)
        case("pixel_shuffle", "5d", [2, 1, 4, 2, 3], 2, dtype)
        # torch 1.13's PixelShuffleBackward0 fails on an empty batch: the reference is the
        # reshape/permute composite (the same values).
        case("pixel_shuffle", "empty_batch", [0, 4, 2, 2], 2, dtype,
             ref="a0.reshape(0, 1, 2, 2, 2, 2).permute(0, 1, 4, 2, 5, 3).reshape(0, 1, 4, 4)")
        case("pixel_shuffle", "channels_last", [2, 8, 3, 2], 2, dtype, channels_last=True)
        case("pixel_unshuffle", "4d", [2, 2, 6, 4], 2, dtype)
        case("pixel_unshuffle", "3d", [1, 6, 3], 3, dtype)
        case("pixel_unshuffle", "5d", [2, 1, 2, 4, 2], 2, dtype)
        case("pixel_unshuffle", "channels_last", [2, 3, 4, 6], 2, dtype, channels_last=True)
        comp = ("a0.reshape(a0.shape[0], i0, a0.shape[1] // i0, *a0.shape[2:])"
                ".transpose(1, 2).reshape(a0.shape)")
        case("channel_shuffle", "3d", [2, 6, 3], 2, dtype, ref=comp)
        case("channel_shuffle", "4d", [2, 6, 2, 3], 3, dtype, ref=comp)
        case("channel_shuffle", "5d", [1, 4, 2, 2, 3], 4, dtype, ref=comp)
        case("channel_shuffle", "groups1", [2, 3, 4], 1, dtype, ref=comp)
    case("pixel_shuffle", "4d", [1, 4, 2, 3], 2, torch.bfloat16)
    case("pixel_unshuffle", "4d", [1, 1, 4, 2], 2, torch.float16)


def gen_fold(fam):
    def unfold(variant, shape, k, d=(1, 1), p=(0, 0), s=(1, 1), dtype=torch.float32):
        name = f"unfold/{variant}_{_dname(dtype)}"
        x = Rng(name).uniform(shape, -2, 2, dtype)
        _any(fam, name, "F.unfold(a0, l0, dilation=l1, padding=l2, stride=l3)", [x], dtype,
             ilists=[k, d, p, s])

    def fold(variant, out, c, k, d=(1, 1), p=(0, 0), s=(1, 1), batch=(2,), dtype=torch.float32):
        name = f"fold/{variant}_{_dname(dtype)}"
        bh = (out[0] + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
        bw = (out[1] + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
        x = Rng(name).uniform(list(batch) + [c * k[0] * k[1], bh * bw], -2, 2, dtype)
        _any(fam, name, "F.fold(a0, l0, l1, dilation=l2, padding=l3, stride=l4)", [x], dtype,
             ilists=[out, k, d, p, s])

    for dtype in (torch.float32, torch.float64):
        unfold("3x3", [2, 3, 5, 6], [3, 3], dtype=dtype)
        unfold("strided_padded", [1, 2, 7, 5], [2, 3], p=[1, 2], s=[2, 1], dtype=dtype)
        unfold("dilated", [2, 1, 7, 8], [2, 2], d=[2, 3], p=[1, 0], s=[1, 2], dtype=dtype)
        unfold("empty_batch", [0, 2, 4, 4], [2, 2], dtype=dtype)
        fold("3x3", [4, 5], 2, [3, 3], dtype=dtype)
        fold("strided_padded", [5, 6], 3, [2, 3], p=[1, 1], s=[2, 2], dtype=dtype)
        fold("dilated_overlap", [6, 5], 1, [3, 2], d=[2, 1], p=[1, 0], s=[1, 1], dtype=dtype)
        fold("unbatched", [4, 4], 2, [2, 2], s=[2, 2], batch=(), dtype=dtype)
        fold("empty_batch", [3, 3], 2, [2, 2], batch=(0,), dtype=dtype)
    unfold("3x3", [1, 2, 4, 4], [3, 3], p=[1, 1], dtype=torch.bfloat16)


def gen_nn_pad():
    fam = Family("nn_pad", __doc__.strip().splitlines())
    gen_pad(fam)
    gen_shuffles(fam)
    gen_fold(fam)
    return fam
