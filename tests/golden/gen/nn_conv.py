"""nn_conv.golden: convolution and transposed convolution (F.conv1d/2d/3d,
F.conv_transpose1d/2d/3d) over strides, paddings (amounts, "same", "valid"), dilations, groups
(depthwise too), odd sizes, batch 1, unbatched inputs, empty batches, with and without bias.

Every case is float32 or float64 and carries PyTorch's gradients for input, weight and bias
(`flag grads`, layout in gen/nn_common.py). The bias is always stored so gradient positions stay
fixed; `flag no_bias` says it is not passed (its gradient is then zeros). Per op
(tests/nn/nn_ops_conv.cpp decodes the same way):

  conv1d, conv2d, conv3d
      a0 input, a1 weight, a2 bias; ilists l0 stride, l1 padding, l2 dilation; iarg i0 groups;
      flag str_padding: str q0 ("same" or "valid") is the padding and l1 is unused
  conv_transpose1d, conv_transpose2d, conv_transpose3d
      a0 input, a1 weight, a2 bias; ilists l0 stride, l1 padding, l2 dilation, l3 output_padding;
      iarg i0 groups
  conv_padding_mode
      not an op of the table: nn::Conv{D}d with a padding_mode (tests/nn/conv_modules_test.cpp),
      computed as PyTorch's module does, F.pad then an unpadded convolution. a0 input, a1
      weight, a2 bias; ilists l0 stride, l1 the module's padding (all dims), l2 dilation, l3
      F.pad's amounts; iarg i0 groups; str q0 mode (reflect|replicate|circular), str q1 the
      module's padding when it is "same"
"""

import torch

from .common import Family, Rng
from .nn_common import grad_case


def _conv_case(fam, op, variant, x_shape, w_shape, *, stride=1, padding=0, dilation=1, groups=1,
               bias=True, dtype=torch.float32, output_padding=None):
    name = f"{op}/{variant}"
    r = Rng(name)
    spatial = len(w_shape) - 2
    x = r.uniform(x_shape, -1, 1, dtype)
    w = r.uniform(w_shape, -0.5, 0.5, dtype)
    out_c = w_shape[1] * groups if op.startswith("conv_transpose") else w_shape[0]
    b = r.uniform([out_c], -0.5, 0.5, dtype)

    def rep(v):
        return list(v) if isinstance(v, (list, tuple)) else [v] * spatial

    b_expr = "a2" if bias else "None"
    flags = [] if bias else ["no_bias"]
    strs = []
    if op.startswith("conv_transpose"):
        call = f"F.{op}(a0, a1, {b_expr}, l0, l1, l3, i0, l2)"
        ilists = [rep(stride), rep(padding), rep(dilation), rep(output_padding or 0)]
    elif isinstance(padding, str):
        call = f"F.{op}(a0, a1, {b_expr}, l0, q0, l2, i0)"
        ilists = [rep(stride), [0] * spatial, rep(dilation)]
        strs = [padding]
        flags.append("str_padding")
    else:
        call = f"F.{op}(a0, a1, {b_expr}, l0, l1, l2, i0)"
        ilists = [rep(stride), rep(padding), rep(dilation)]
    grad_case(fam, name, call, [x, w, b], (0, 1, 2), iargs=[groups], ilists=ilists, strs=strs,
              flags=flags)


def gen_conv(fam):
    f64 = torch.float64
    c = _conv_case
    # conv1d
    c(fam, "conv1d", "basic_float32", [2, 3, 9], [4, 3, 3])
    c(fam, "conv1d", "stride2_pad1_float32", [2, 3, 10], [5, 3, 4], stride=2, padding=1)
    c(fam, "conv1d", "dilation2_no_bias_float32", [1, 2, 11], [3, 2, 3], dilation=2, bias=False)
    c(fam, "conv1d", "groups_float32", [2, 4, 7], [6, 2, 3], groups=2, padding=2)
    c(fam, "conv1d", "same_even_kernel_float32", [2, 3, 8], [2, 3, 4], padding="same")
    c(fam, "conv1d", "same_dilated_float32", [1, 2, 9], [3, 2, 3], padding="same", dilation=3)
    c(fam, "conv1d", "valid_float32", [2, 3, 6], [2, 3, 3], padding="valid")
    c(fam, "conv1d", "unbatched_float32", [3, 8], [2, 3, 3], padding=1)
    c(fam, "conv1d", "empty_batch_float32", [0, 3, 8], [2, 3, 3])
    c(fam, "conv1d", "stride_drops_tail_float64", [2, 2, 10], [3, 2, 3], stride=4, dtype=f64)
    c(fam, "conv1d", "stride_drops_tail_float32", [2, 2, 10], [3, 2, 3], stride=4)
    # conv2d
    c(fam, "conv2d", "basic_float32", [2, 3, 7, 6], [4, 3, 3, 3])
    c(fam, "conv2d", "stride_pad_float32", [2, 3, 9, 8], [5, 3, 3, 3], stride=2, padding=1)
    c(fam, "conv2d", "asym_all_float32", [1, 2, 11, 9], [3, 2, 3, 2], stride=[2, 1],
      padding=[1, 0], dilation=[1, 2])
    c(fam, "conv2d", "dilation2_float32", [2, 2, 9, 9], [3, 2, 3, 3], dilation=2, padding=2)
    c(fam, "conv2d", "groups_float32", [2, 6, 5, 5], [4, 3, 3, 3], groups=2, padding=1)
    c(fam, "conv2d", "depthwise_float32", [2, 4, 6, 7], [8, 1, 3, 3], groups=4, padding=1)
    c(fam, "conv2d", "pointwise_no_bias_float32", [3, 5, 4, 4], [2, 5, 1, 1], bias=False)
    c(fam, "conv2d", "same_even_kernel_float32", [2, 3, 6, 7], [2, 3, 4, 2], padding="same")
    c(fam, "conv2d", "valid_float32", [1, 3, 6, 6], [2, 3, 3, 3], padding="valid")
    c(fam, "conv2d", "unbatched_float32", [3, 6, 5], [2, 3, 3, 3], padding=1)
    c(fam, "conv2d", "batch1_odd_float32", [1, 3, 13, 11], [5, 3, 5, 3], stride=3, padding=2)
    c(fam, "conv2d", "empty_batch_float32", [0, 3, 6, 6], [2, 3, 3, 3], padding=1)
    c(fam, "conv2d", "kernel_equals_input_float32", [2, 2, 3, 3], [3, 2, 3, 3])
    c(fam, "conv2d", "stride_drops_tail_float32", [2, 3, 9, 10], [4, 3, 3, 3], stride=4)
    c(fam, "conv2d", "basic_float64", [2, 3, 6, 5], [4, 3, 3, 3], padding=1, dtype=f64)
    c(fam, "conv2d", "groups_stride_float64", [2, 4, 7, 7], [6, 2, 3, 3], groups=2, stride=2,
      padding=1, dilation=[1, 2], dtype=f64)
    c(fam, "conv2d", "same_float64", [1, 2, 5, 6], [3, 2, 3, 4], padding="same", dtype=f64)
    # conv3d
    c(fam, "conv3d", "basic_float32", [2, 2, 5, 4, 6], [3, 2, 3, 2, 3])
    c(fam, "conv3d", "stride_pad_groups_float32", [1, 4, 6, 5, 5], [4, 2, 3, 3, 3], stride=2,
      padding=1, groups=2)
    c(fam, "conv3d", "dilation_no_bias_float32", [1, 2, 7, 6, 6], [2, 2, 2, 3, 2],
      dilation=[2, 1, 2], bias=False)
    c(fam, "conv3d", "same_float32", [1, 2, 4, 5, 4], [2, 2, 3, 2, 3], padding="same")
    c(fam, "conv3d", "unbatched_float32", [2, 4, 4, 4], [3, 2, 2, 2, 2])
    c(fam, "conv3d", "empty_batch_float32", [0, 2, 4, 4, 4], [3, 2, 2, 2, 2])
    c(fam, "conv3d", "basic_float64", [1, 2, 4, 5, 4], [3, 2, 2, 3, 2], padding=1, dtype=f64)
    # conv_transpose1d
    t = "conv_transpose1d"
    c(fam, t, "basic_float32", [2, 3, 6], [3, 4, 3])
    c(fam, t, "stride2_outpad_float32", [2, 3, 5], [3, 2, 4], stride=2, padding=1,
      output_padding=1)
    c(fam, t, "groups_dilation_float32", [1, 4, 6], [4, 3, 3], groups=2, dilation=2, padding=2)
    c(fam, t, "unbatched_no_bias_float32", [3, 5], [3, 2, 3], bias=False, stride=3)
    c(fam, t, "empty_batch_float32", [0, 3, 5], [3, 2, 3])
    c(fam, t, "stride_outpad_float64", [2, 2, 4], [2, 3, 3], stride=3, output_padding=2,
      dtype=f64)
    # conv_transpose2d
    t = "conv_transpose2d"
    c(fam, t, "basic_float32", [2, 3, 4, 5], [3, 2, 3, 3])
    c(fam, t, "stride2_pad1_outpad1_float32", [2, 4, 5, 4], [4, 3, 3, 3], stride=2, padding=1,
      output_padding=1)
    c(fam, t, "asym_float32", [1, 2, 5, 6], [2, 3, 2, 3], stride=[2, 3], padding=[0, 1],
      output_padding=[1, 2], dilation=[1, 2])
    c(fam, t, "depthwise_float32", [2, 4, 5, 5], [4, 1, 3, 3], groups=4, stride=2, padding=1)
    c(fam, t, "groups_no_bias_float32", [1, 6, 4, 4], [6, 2, 2, 2], groups=3, bias=False,
      stride=2)
    c(fam, t, "unbatched_float32", [2, 4, 3], [2, 3, 3, 2], stride=2)
    c(fam, t, "empty_batch_float32", [0, 3, 4, 4], [3, 2, 3, 3], stride=2)
    c(fam, t, "basic_float64", [2, 3, 4, 4], [3, 2, 3, 3], stride=2, padding=1, output_padding=1,
      dtype=f64)
    # conv_transpose3d
    t = "conv_transpose3d"
    c(fam, t, "basic_float32", [1, 2, 3, 4, 3], [2, 3, 2, 3, 2])
    c(fam, t, "stride_outpad_groups_float32", [2, 4, 3, 3, 3], [4, 1, 3, 3, 3], stride=2,
      padding=1, output_padding=1, groups=2)
    c(fam, t, "unbatched_no_bias_float32", [2, 3, 3, 3], [2, 2, 2, 2, 2], bias=False)
    c(fam, t, "basic_float64", [1, 2, 3, 3, 2], [2, 2, 2, 2, 3], stride=[1, 2, 2], padding=1,
      dtype=f64)


def gen_padding_mode(fam):
    def case(variant, x_shape, w_shape, mode, padding, *, stride=1, dilation=1, groups=1):
        name = f"conv_padding_mode/{variant}"
        r = Rng(name)
        spatial = len(w_shape) - 2
        x = r.uniform(x_shape, -1, 1)
        w = r.uniform(w_shape, -0.5, 0.5)
        b = r.uniform([w_shape[0]], -0.5, 0.5)
        strs = [mode]
        if padding == "same":
            pads = []
            for k in reversed(w_shape[2:]):
                total = dilation * (k - 1)
                pads += [total // 2, total - total // 2]
            padding_list = [0] * spatial
            strs.append("same")
        else:
            pads = []
            for p in reversed([padding] * spatial):
                pads += [p, p]
            padding_list = [padding] * spatial
        op = f"conv{spatial}d"
        call = f"F.{op}(F.pad(a0, l3, mode=q0), a1, a2, l0, 0, l2, i0)"
        grad_case(fam, name, call, [x, w, b], (0, 1, 2), iargs=[groups],
                  ilists=[[stride] * spatial, padding_list, [dilation] * spatial, pads],
                  strs=strs)

    case("conv1d_reflect", [2, 3, 9], [4, 3, 3], "reflect", 2)
    case("conv2d_replicate_stride2", [2, 2, 7, 6], [3, 2, 3, 3], "replicate", 1, stride=2)
    case("conv2d_circular_groups", [1, 4, 5, 5], [4, 2, 3, 3], "circular", 2, groups=2)
    case("conv2d_reflect_same_even", [1, 2, 6, 7], [3, 2, 4, 4], "reflect", "same")
    case("conv3d_circular", [1, 2, 4, 4, 3], [2, 2, 3, 3, 3], "circular", 1)


def gen_nn_conv():
    fam = Family("nn_conv", ["convolution and transposed convolution, forward and gradients; "
                             "per-op layout in tests/golden/gen/nn_conv.py."])
    gen_conv(fam)
    gen_padding_mode(fam)
    return fam
