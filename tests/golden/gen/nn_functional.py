"""nn_functional.golden: the activations of torch.nn.functional (Ember's F::relu ... F::glu), read
by the nn op table (tests/nn/nn_ops_activation.cpp). Records with `flag grads` carry PyTorch's
gradients in the layout of gen/nn_common.py.

Per op (case names "<op>/<variant>"):
    float32            default options, random input, gradients (the table's float64 gradcheck
                       runs on this one, so it holds no kink point)
    kinks_float32      the exact points where the op's derivative jumps, with neighbours and
                       large values, gradients: PyTorch's conventions there (relu'(0) = 0, ...)
    <option>_float32   one non-default option set, gradients
    inplace_float32    inplace=True on a copy of a0 (F.op(a0.clone(), ..., inplace=True)),
                       gradients through the in-place path
    float64            random input with the kink points, gradients
    float16, bfloat16  forward only (torch 1.13 CPU lacks some Half kernels: then the reference is
                       float32 rounded, see common.py)
    transposed_float32 forward on a0.mT (flag transposed)
    empty_float32      a [0, 4] input
    specials_float32   forward on NaN, ±inf, -0 and tiny/huge values
    int64              ops that take integer inputs (relu, relu6, hardtanh, threshold keep int64;
                       sigmoid, tanh, softsign give float32)

How options are stored (the C++ runner decodes them; absent means the default):
    leaky_relu   sarg negative_slope                rrelu     sargs lower, upper (training=False)
    elu, celu    sarg alpha                         hardtanh  sargs min_val, max_val
    softplus     sargs beta, threshold              softshrink, hardshrink  sarg lambda
    threshold    sargs threshold, value (required)  gelu      str approximate
    softmax, log_softmax, softmin   iarg dim (required), str dtype
    glu          iarg dim                           prelu     args input, weight (both get grads)
    every op with an `inplace` parameter: flag inplace
"""

import math

import torch

from .common import Family, Rng
from .nn_common import grad_case

LOW = (torch.float16, torch.bfloat16)
DT = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
      torch.bfloat16: "bfloat16"}


def planted(r, kinks, dtype, n=24):
    """The kink points, each with neighbours at ±0.25, then random fill, as a [2, n/2] tensor."""
    vals = []
    for k in kinks:
        vals += [k, k - 0.25, k + 0.25]
    vals = vals[:n]
    rest = r.uniform([n - len(vals)], -4, 4, torch.float64).tolist()
    return torch.tensor(vals + rest, dtype=torch.float64).reshape(2, n // 2).to(dtype)


class Op:
    """One elementwise activation: `py` builds the call from the input text and the option text
    (e.g. py("a0", ", alpha=s0"))."""

    def __init__(self, name, py, kinks, *, variants=(), inplace=False, ints=False, domain=(-4, 4),
                 base_sargs=()):
        self.name, self.py, self.kinks = name, py, kinks
        self.variants = variants  # (tag, option text, sargs, strs, extra kinks)
        self.inplace, self.ints, self.domain = inplace, ints, domain
        self.base_sargs = base_sargs  # for ops without defaults (threshold)


def f(fn):
    return lambda x, o: f"F.{fn}({x}{o})"


def base_opts(op):
    return "".join(f", s{k}" for k in range(len(op.base_sargs)))


def gen_unary_op(fam, op):
    n = op.name
    r = Rng(n)
    sargs = op.base_sargs
    opts = base_opts(op)
    call = op.py("a0", opts)
    lo, hi = op.domain
    grad_case(fam, f"{n}/float32", call, [r.uniform([3, 5], lo, hi)], (0,), sargs=sargs)
    grad_case(fam, f"{n}/kinks_float32", call, [planted(r, op.kinks, torch.float32)], (0,),
              sargs=sargs)
    for tag, text, vs, strs, extra in op.variants:
        rv = Rng(f"{n}/{tag}")
        grad_case(fam, f"{n}/{tag}_float32", op.py("a0", text), [planted(rv, extra, torch.float32)],
                  (0,), sargs=vs, strs=strs)
    if op.inplace:
        grad_case(fam, f"{n}/inplace_float32", op.py("a0.clone()", opts + ", inplace=True"),
                  [planted(r, op.kinks, torch.float32)], (0,), sargs=sargs, flags=["inplace"])
    grad_case(fam, f"{n}/float64", call, [planted(r, op.kinks, torch.float64)], (0,), sargs=sargs)
    for dt in LOW:
        fam.case(f"{n}/{DT[dt]}", call, [planted(r, op.kinks, dt)], sargs=sargs)
    fam.case(f"{n}/transposed_float32", op.py("a0.mT", opts), [r.uniform([5, 3], lo, hi)],
             sargs=sargs, flags=["transposed"])
    grad_case(fam, f"{n}/empty_float32", call, [torch.zeros(0, 4)], (0,), sargs=sargs)
    specials = [math.nan, math.inf, -math.inf, -0.0, 1e-30, -1e-30, 1e30, -1e30]
    if n == "softshrink":
        # torch 1.13 maps NaN to 0 here; Ember propagates it, as PyTorch does since its fix of
        # pytorch/pytorch#138385 (2024).
        specials = specials[1:]
    fam.case(f"{n}/specials_float32", call, [torch.tensor(specials)], sargs=sargs)
    if op.ints:
        fam.case(f"{n}/int64", call, [r.ints([2, 6], -8, 8)], sargs=sargs)


OPS = [
    Op("relu", f("relu"), [0.0], inplace=True, ints=True),
    Op("relu6", f("relu6"), [0.0, 6.0], inplace=True, ints=True, domain=(-3, 9)),
    Op("leaky_relu", f("leaky_relu"), [0.0], inplace=True,
       variants=[("slope", ", s0", (0.2,), (), [0.0]),
                 ("negative_slope", ", s0", (-0.5,), (), [0.0]),
                 ("steep_slope", ", s0", (3.0,), (), [0.0])]),
    Op("rrelu", f("rrelu"), [0.0], inplace=True,
       variants=[("bounds", ", s0, s1, False", (0.05, 0.4), (), [0.0])]),
    Op("elu", f("elu"), [0.0, -30.0, 30.0], inplace=True,
       variants=[("alpha", ", s0", (0.5,), (), [0.0]),
                 ("negative_alpha", ", s0", (-1.5,), (), [0.0])]),
    Op("selu", f("selu"), [0.0, -30.0], inplace=True),
    Op("celu", f("celu"), [0.0, -30.0, 30.0], inplace=True,
       variants=[("alpha", ", s0", (2.0,), (), [0.0]),
                 ("negative_alpha", ", s0", (-0.7,), (), [0.0])]),
    Op("gelu", f("gelu"), [0.0, -10.0, 10.0],
       variants=[("tanh", ", approximate=q0", (), ("tanh",), [0.0, -10.0, 10.0])]),
    Op("silu", f("silu"), [0.0, -30.0, 30.0], inplace=True),
    Op("mish", f("mish"), [0.0, -30.0, 30.0], inplace=True),
    Op("sigmoid", lambda x, o: f"torch.sigmoid({x})", [0.0, -30.0, 30.0], ints=True),
    Op("tanh", lambda x, o: f"torch.tanh({x})", [0.0, -30.0, 30.0], ints=True),
    Op("hardtanh", f("hardtanh"), [-1.0, 1.0], inplace=True, ints=True,
       variants=[("bounds", ", s0, s1", (-2.0, 0.5), (), [-2.0, 0.5])]),
    Op("hardsigmoid", f("hardsigmoid"), [-3.0, 3.0, 0.0], inplace=True, domain=(-5, 5)),
    # hardswish'(3) is 1.5 in torch 1.13's scalar CPU and CUDA kernels but 1 in its vectorised CPU
    # path (so it depends on the element's position): no golden gradient at exactly 3.
    Op("hardswish", f("hardswish"), [-3.0, 0.0, 2.9, 3.1], inplace=True, domain=(-5, 5)),
    Op("softplus", f("softplus"), [20.0, 0.0, -30.0, 30.0], domain=(-6, 6),
       variants=[("beta_threshold", ", s0, s1", (2.0, 1.0), (), [0.5, 0.0, -30.0, 30.0]),
                 ("beta", ", beta=s0", (0.5,), (), [40.0, 0.0, -30.0, 50.0])]),
    Op("softshrink", f("softshrink"), [-0.5, 0.5, 0.0],
       variants=[("lambda", ", s0", (1.25,), (), [-1.25, 1.25, 0.0]),
                 ("zero_lambda", ", s0", (0.0,), (), [0.0])]),
    Op("hardshrink", f("hardshrink"), [-0.5, 0.5, 0.0],
       variants=[("lambda", ", s0", (1.25,), (), [-1.25, 1.25, 0.0])]),
    Op("tanhshrink", f("tanhshrink"), [0.0, -30.0, 30.0]),
    Op("threshold", f("threshold"), [0.5, 0.0], inplace=True, base_sargs=(0.5, -2.0),
       variants=[("negative", ", s0, s1", (-1.0, 3.0), (), [-1.0, 0.0])]),
    Op("logsigmoid", f("logsigmoid"), [0.0, -50.0, 50.0, -200.0], domain=(-8, 8)),
    Op("softsign", f("softsign"), [0.0, -30.0, 30.0], ints=True),
]


def gen_threshold_int(fam):
    # Integer thresholds: PyTorch converts threshold and value to the tensor's dtype.
    r = Rng("threshold/int64")
    fam.case("threshold/int64", "F.threshold(a0, s0, s1)", [r.ints([2, 6], -8, 8)], sargs=(1, 5))
    # -1.5 becomes -1 (truncated), so -1 itself is replaced.
    fam.case("threshold/int64_fractional", "F.threshold(a0, s0, s1)", [r.ints([2, 6], -3, 3)],
             sargs=(-1.5, 7.0))


def gen_prelu(fam):
    r = Rng("prelu")
    call = "F.prelu(a0, a1)"
    w1 = torch.tensor([0.25])
    grad_case(fam, "prelu/float32", call, [r.uniform([3, 5], -4, 4), w1], (0, 1))
    grad_case(fam, "prelu/kinks_float32", call, [planted(r, [0.0], torch.float32), w1], (0, 1))
    grad_case(fam, "prelu/channels_float32", call,
              [planted(r, [0.0], torch.float32).reshape(2, 3, 4), r.uniform([3], -1, 1)], (0, 1))
    grad_case(fam, "prelu/channels_2d_float32", call,
              [r.uniform([4, 3], -4, 4), r.uniform([3], -1, 1)], (0, 1))
    grad_case(fam, "prelu/scalar_weight_float32", call,
              [r.uniform([2, 3], -4, 4), torch.tensor(-0.5)], (0, 1))
    grad_case(fam, "prelu/vector_input_float32", call, [r.uniform([6], -4, 4), w1], (0, 1))
    grad_case(fam, "prelu/float64", call,
              [planted(r, [0.0], torch.float64).reshape(2, 3, 4),
               r.uniform([3], -1, 1, torch.float64)], (0, 1))
    for dt in LOW:
        fam.case(f"prelu/{DT[dt]}", call,
                 [planted(r, [0.0], dt).reshape(2, 3, 4), r.uniform([3], -1, 1, dt)])
    fam.case("prelu/transposed_float32", "F.prelu(a0.mT, a1)",
             [r.uniform([4, 3], -4, 4), r.uniform([4], -1, 1)], flags=["transposed"])
    grad_case(fam, "prelu/empty_float32", call, [torch.zeros(0, 3), r.uniform([3], -1, 1)],
              (0, 1))


def gen_softmax_family(fam):
    for op in ("softmax", "log_softmax", "softmin"):
        r = Rng(op)
        call = f"F.{op}(a0, i0)"
        grad_case(fam, f"{op}/float32", call, [r.normal([3, 5])], (0,), iargs=(1,))
        grad_case(fam, f"{op}/dim0_float32", call, [r.normal([3, 5])], (0,), iargs=(0,))
        grad_case(fam, f"{op}/dim1_3d_float32", call, [r.normal([2, 3, 4])], (0,), iargs=(1,))
        grad_case(fam, f"{op}/negative_dim_float32", call, [r.normal([2, 3, 4])], (0,),
                  iargs=(-1,))
        grad_case(fam, f"{op}/large_float32", call, [r.uniform([2, 6], -80, 80)], (0,),
                  iargs=(1,))
        grad_case(fam, f"{op}/dtype_float32", f"F.{op}(a0, i0, dtype=torch.float64)",
                  [r.normal([3, 4])], (0,), iargs=(1,), strs=("float64",))
        grad_case(fam, f"{op}/float64", call, [r.normal([3, 5], torch.float64)], (0,),
                  iargs=(1,))
        for dt in LOW:
            fam.case(f"{op}/{DT[dt]}", call, [r.normal([3, 5], dt)], iargs=(1,))
            fam.case(f"{op}/dtype_{DT[dt]}", f"F.{op}(a0, i0, dtype=torch.float32)",
                     [r.normal([3, 5], dt)], iargs=(1,), strs=("float32",))
        fam.case(f"{op}/transposed_float32", f"F.{op}(a0.mT, i0)", [r.normal([5, 3])],
                 iargs=(1,), flags=["transposed"])
        grad_case(fam, f"{op}/empty_float32", call, [torch.zeros(0, 4)], (0,), iargs=(1,))
        fam.case(f"{op}/int64_dtype", f"F.{op}(a0, i0, dtype=torch.float32)",
                 [r.ints([2, 5], -4, 4)], iargs=(1,), strs=("float32",))


def gen_glu(fam):
    r = Rng("glu")
    call = "F.glu(a0)"
    grad_case(fam, "glu/float32", call, [r.normal([3, 6])], (0,))
    grad_case(fam, "glu/dim0_float32", "F.glu(a0, i0)", [r.normal([4, 3])], (0,), iargs=(0,))
    grad_case(fam, "glu/dim1_3d_float32", "F.glu(a0, i0)", [r.normal([2, 4, 3])], (0,),
              iargs=(1,))
    grad_case(fam, "glu/large_float32", call, [r.uniform([2, 4], -40, 40)], (0,))
    grad_case(fam, "glu/float64", call, [r.normal([3, 6], torch.float64)], (0,))
    for dt in LOW:
        fam.case(f"glu/{DT[dt]}", call, [r.normal([3, 6], dt)])
    fam.case("glu/transposed_float32", "F.glu(a0.mT)", [r.normal([6, 3])], flags=["transposed"])
    grad_case(fam, "glu/empty_float32", call, [torch.zeros(0, 4)], (0,))


def gen_nn_functional():
    fam = Family("nn_functional", [
        "torch.nn.functional activations; the case layout and option encoding are described at",
        "the top of tests/golden/gen/nn_functional.py."])
    for op in OPS:
        gen_unary_op(fam, op)
    gen_threshold_int(fam)
    gen_prelu(fam)
    gen_softmax_family(fam)
    gen_glu(fam)
    return fam
