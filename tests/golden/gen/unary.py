"""unary.golden: every EMBER_UNARY_OPS row and the unary ops with extra arguments."""

import torch

from .common import FLOATS, SPECIALS, Family, Rng, dn, float_input, int_input, op_table_rows

# unary.golden
#   <op>/<dtype>            torch.<op>(a0)
#   <op>/transposed_float32 torch.<op>(a0.mT)               flag transposed
#   <op>/empty_float32      a [0, 3] input
#   <op>/dim0_float64       a 0-dim input
#   <op>/special_<dtype>    nan, +-inf, +-0 and friends
#   gelu: str none|tanh. round: iarg decimals (absent: round(a0)). clamp/clamp_min/clamp_max: sargs
#   min, max (flag no_min / no_max drops one). logit: sarg eps (absent: None). nan_to_num: no sarg,
#   or sargs nan, posinf, neginf.

UNARY_CALL = {"silu": "F.silu", "mish": "F.mish"}
# float input domain: (lo, hi) uniform, "nonzero" (|x| in [0.2, 5]), "quarters" (multiples of 0.25
# in [-5, 5], so ties, integers and zeros occur), "predicate" (uniform with nan/inf/0 planted)
UNARY_FLOAT_DOMAIN = {
    "exp": (-5, 5), "exp2": (-5, 5), "expm1": (-3, 3), "log": (0.1, 10), "log1p": (-0.9, 5),
    "log2": (0.1, 10), "log10": (0.1, 10), "sqrt": (0, 10), "rsqrt": (0.1, 10), "sin": (-6, 6),
    "cos": (-6, 6), "tan": (-1.4, 1.4), "asin": (-0.99, 0.99), "acos": (-0.99, 0.99),
    "atan": (-5, 5), "sinh": (-4, 4), "cosh": (-4, 4), "tanh": (-4, 4), "sigmoid": (-8, 8),
    "erf": (-3, 3), "erfc": (-3, 3), "reciprocal": "nonzero", "neg": (-5, 5), "abs": (-5, 5),
    "sign": "quarters", "square": (-5, 5), "relu": (-5, 5), "floor": "quarters",
    "ceil": "quarters", "trunc": "quarters", "frac": "quarters", "silu": (-6, 6), "mish": (-6, 6),
    "bitwise_not": None, "logical_not": "predicate", "isnan": "predicate", "isinf": "predicate",
    "isfinite": "predicate",
}
# integer input domain (inclusive); default (-5, 5)
UNARY_INT_DOMAIN = {
    "log": (1, 10), "log2": (1, 10), "log10": (1, 10), "rsqrt": (1, 10), "sqrt": (0, 10),
    "log1p": (0, 10), "asin": (-1, 1), "acos": (-1, 1), "reciprocal": "nonzero",
    "bitwise_not": (-100, 100),
}


def gen_unary():
    fam = Family("unary", ["Every row of EMBER_UNARY_OPS, then gelu, round, clamp, clamp_min, "
                           "clamp_max, logit, nan_to_num."])
    for op, policy in op_table_rows("EMBER_UNARY_OPS"):
        if op not in UNARY_FLOAT_DOMAIN:
            raise RuntimeError(f"unary op {op} has no input domain in gen/unary.py")
        fn = UNARY_CALL.get(op, f"torch.{op}")
        fdom = UNARY_FLOAT_DOMAIN[op]
        idom = UNARY_INT_DOMAIN.get(op, (-5, 5))
        call = f"{fn}(a0)"
        if fdom is not None:
            for dt in FLOATS:
                name = f"{op}/{dn(dt)}"
                fam.case(name, call, [float_input(Rng(name), fdom, [4, 6], dt)])
            for dt in (torch.float32, torch.float64):
                fam.case(f"{op}/special_{dn(dt)}", call, [torch.tensor(SPECIALS, dtype=dt)])
            name = f"{op}/transposed_float32"
            fam.case(name, f"{fn}(a0.mT)", [float_input(Rng(name), fdom, [3, 5], torch.float32)],
                     flags=["transposed"])
            fam.case(f"{op}/empty_float32", call, [torch.empty(0, 3)])
            name = f"{op}/dim0_float64"
            fam.case(name, call, [float_input(Rng(name), fdom, [], torch.float64)])
        int_dtypes = [torch.int64]
        if op == "bitwise_not":
            int_dtypes = [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8]
        if policy in ("ToFloat", "Same", "Predicate"):
            for dt in int_dtypes:
                name = f"{op}/{dn(dt)}"
                dom = (0, 255) if dt == torch.uint8 else idom
                fam.case(name, call, [int_input(Rng(name), dom, [4, 6], dt)], optional=True)
            name = f"{op}/bool"
            fam.case(name, call, [Rng(name).bools([4, 6])], optional=True)
        if op == "bitwise_not":
            name = f"{op}/transposed_int64"
            fam.case(name, f"{fn}(a0.mT)", [int_input(Rng(name), idom, [3, 5], torch.int64)],
                     flags=["transposed"])
            fam.case(f"{op}/empty_int64", call, [torch.empty(0, 3, dtype=torch.int64)])

    # gelu(a0, approximate=q0)
    for approx in ("none", "tanh"):
        for dt in FLOATS:
            name = f"gelu/{approx}_{dn(dt)}"
            fam.case(name, "F.gelu(a0, approximate=q0)", [Rng(name).uniform([4, 6], -5, 5, dt)],
                     strs=[approx])
        fam.case(f"gelu/{approx}_special_float32", "F.gelu(a0, approximate=q0)",
                 [torch.tensor(SPECIALS)], strs=[approx])
        name = f"gelu/{approx}_transposed_float32"
        fam.case(name, "F.gelu(a0.mT, approximate=q0)", [Rng(name).uniform([3, 5], -5, 5)],
                 strs=[approx], flags=["transposed"])

    # round(a0) / round(a0, decimals=i0); half-way cases round to even
    ties = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, -0.0, 1e20, -7.49]
    for dt in FLOATS:
        name = f"round/{dn(dt)}"
        x = torch.cat([torch.tensor(ties, dtype=torch.float64),
                       Rng(name).uniform([14], -20, 20, torch.float64)]).reshape(4, 6).to(dt)
        fam.case(name, "torch.round(a0)", [x])
    fam.case("round/special_float32", "torch.round(a0)", [torch.tensor(SPECIALS)])
    fam.case("round/int64", "torch.round(a0)", [Rng("round/int64").ints([4, 6], -50, 50)])
    for dt in (torch.float32, torch.float64):
        name = f"round/decimals2_{dn(dt)}"
        x = torch.cat([torch.tensor([0.125, 0.375, -0.125, 1.005, 2.675]),
                       Rng(name).uniform([19], -10, 10, torch.float64)]).to(dt).reshape(4, 6)
        fam.case(name, "torch.round(a0, decimals=i0)", [x], iargs=[2])
        name = f"round/decimals_neg1_{dn(dt)}"
        x = torch.cat([torch.tensor([15.0, 25.0, -35.0, 45.0, 5.0]),
                       Rng(name).uniform([19], -100, 100, torch.float64)]).to(dt).reshape(4, 6)
        fam.case(name, "torch.round(a0, decimals=i0)", [x], iargs=[-1])
    fam.case("round/decimals2_bfloat16", "torch.round(a0, decimals=i0)",
             [Rng("round/decimals2_bfloat16").uniform([4, 6], -10, 10, torch.bfloat16)], iargs=[2],
             optional=True)

    # clamp(a0, min=s0, max=s1); flag no_min / no_max
    def clamp_case(name, x, lo, hi, flags=()):
        sargs = [v for v in (lo, hi) if v is not None]
        fl = list(flags) + (["no_min"] if lo is None else []) + (["no_max"] if hi is None else [])
        kw = (["min=s0"] if lo is not None else []) + \
            ([f"max=s{len(sargs) - 1}"] if hi is not None else [])
        x_expr = "a0.mT" if "transposed" in flags else "a0"
        fam.case(name, f"torch.clamp({x_expr}, {', '.join(kw)})", [x], sargs=sargs, flags=fl)

    for dt in FLOATS:
        name = f"clamp/{dn(dt)}"
        clamp_case(name, Rng(name).uniform([4, 6], -4, 4, dt), -1.5, 2.0)
    clamp_case("clamp/min_only_float32", Rng("clamp/min_only_float32").uniform([4, 6], -4, 4),
               -1.5, None)
    clamp_case("clamp/max_only_float64",
               Rng("clamp/max_only_float64").uniform([4, 6], -4, 4, torch.float64), None, 2.0)
    clamp_case("clamp/min_gt_max_float32", Rng("clamp/min_gt_max").uniform([4, 6], -4, 4),
               2.0, -1.0)
    clamp_case("clamp/special_float32", torch.tensor(SPECIALS), -1.0, 1.0)
    clamp_case("clamp/int64", Rng("clamp/int64").ints([4, 6], -6, 6), -2, 3)
    clamp_case("clamp/int64_float_bounds", Rng("clamp/int64_fb").ints([4, 6], -6, 6), -2.5, 3.5)
    clamp_case("clamp/transposed_float32", Rng("clamp/transposed").uniform([3, 5], -4, 4),
               -1.0, 1.0, flags=["transposed"])
    for fn, bound in (("clamp_min", -0.5), ("clamp_max", 0.5)):
        for dt in (torch.float32, torch.int64):
            name = f"{fn}/{dn(dt)}"
            x = Rng(name).uniform([4, 6], -3, 3, dt) if dt.is_floating_point else \
                Rng(name).ints([4, 6], -3, 3)
            b = bound if dt.is_floating_point else int(bound * 2)
            fam.case(name, f"torch.{fn}(a0, s0)", [x], sargs=[b])

    # logit(a0, eps=s0)
    base = [0.0, 1.0, -0.25, 1.25, 1e-7, 1 - 1e-7, 0.5]
    for dt in FLOATS:
        name = f"logit/{dn(dt)}"
        x = torch.cat([torch.tensor(base, dtype=torch.float64),
                       Rng(name).uniform([17], 0.01, 0.99, torch.float64)]).reshape(4, 6).to(dt)
        fam.case(name, "torch.logit(a0)", [x])
        for eps in (1e-6, 0.25):
            fam.case(f"logit/eps{eps:g}_{dn(dt)}", "torch.logit(a0, eps=s0)", [x], sargs=[eps])

    # nan_to_num(a0) / nan_to_num(a0, nan=s0, posinf=s1, neginf=s2)
    for dt in FLOATS:
        name = f"nan_to_num/{dn(dt)}"
        x = float_input(Rng(name), "predicate", [4, 6], dt)
        fam.case(name, "torch.nan_to_num(a0)", [x])
        fam.case(f"nan_to_num/values_{dn(dt)}",
                 "torch.nan_to_num(a0, nan=s0, posinf=s1, neginf=s2)", [x],
                 sargs=[0.5, 1000.0, -1000.0])
    fam.case("nan_to_num/int64", "torch.nan_to_num(a0)",
             [Rng("nan_to_num/int64").ints([4, 6], -9, 9)])
    return fam
