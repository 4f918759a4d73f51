"""binary.golden: every EMBER_BINARY_OPS row, type promotion, add/sub/div and the ternary ops."""

import math

import torch

from .common import FLOATS, SPECIALS, Family, Rng, dn, float_input, int_input, op_table_rows

# binary.golden
#   <op>/<dtype>             torch.<op>(a0, a1), same shapes
#   <op>/broadcast_float32   [3,1,4] op [2,4]
#   <op>/transposed_float32  torch.<op>(a0.mT, a1)         flag transposed
#   <op>/tensor_scalar_*     torch.<op>(a0, s0)             flag tensor_scalar
#   <op>/scalar_tensor_*     <op>(s0, a0)                   flag scalar_tensor
#   <op>/<dtypeA>_<dtypeB>   type promotion; `py` in a name means a Python number (a wrapped
#                            Scalar), `dim0` a 0-dim tensor
#   add/sub: flag alpha => last sarg is alpha. div: str trunc|floor gives rounding_mode (absent:
#   None).
#   lerp(a0, a1, s0 | a2); addcmul/addcdiv(a0, a1, a2, value=s0); where(a0 cond, a1, a2) with
#   tensor_scalar/scalar_tensor replacing a2/a1 by s0; clamp_tensor: clamp(a0, min=a1, max=a2)
#   (flag no_min => a1 is max; flag no_max => there is no a2).

BIN_FLOAT_DOMAIN = {  # (self, other) for float inputs
    "mul": ((-3, 3), (-3, 3)), "maximum": ((-5, 5), (-5, 5)), "minimum": ((-5, 5), (-5, 5)),
    "fmod": ((-10, 10), "nonzero"), "remainder": ((-10, 10), "nonzero"),
    "pow": ((0.1, 4), (-2, 3)), "atan2": ((-5, 5), (-5, 5)),
}
BIN_INT_DOMAIN = {
    "mul": ((-10, 10), (-10, 10)), "maximum": ((-10, 10), (-10, 10)),
    "minimum": ((-10, 10), (-10, 10)), "fmod": ((-20, 20), "nonzero"),
    "remainder": ((-20, 20), "nonzero"), "pow": ((-4, 4), (0, 4)), "atan2": ((-5, 5), (-5, 5)),
}
COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")


def bin_inputs(r, op, policy, shapes, dtype):
    """(a, b) of the given shapes/dtype in op's domain."""
    a_shape, b_shape = shapes
    if dtype == torch.bool:
        return r.bools(a_shape), r.bools(b_shape)
    if policy == "Bitwise":
        lo, hi = (0, 255) if dtype == torch.uint8 else (-100, 100)
        return r.ints(a_shape, lo, hi, dtype), r.ints(b_shape, lo, hi, dtype)
    if policy in ("Compare", "Logical"):
        # small integers (as floats too) so that equal and zero elements occur
        lo, hi = (-3, 3) if policy == "Compare" else (-2, 2)
        a, b = r.ints(a_shape, lo, hi), r.ints(b_shape, lo, hi)
        if dtype.is_floating_point:
            a = a.double() + torch.where(r.bools(a_shape, 0.3), 0.5, 0.0)
            b = b.double()
        return a.to(dtype), b.to(dtype)
    if dtype.is_floating_point:
        da, db = BIN_FLOAT_DOMAIN[op]
        return float_input(r, da, a_shape, dtype), float_input(r, db, b_shape, dtype)
    da, db = BIN_INT_DOMAIN[op]
    return int_input(r, da, a_shape, dtype), int_input(r, db, b_shape, dtype)


def scalar_for(op, policy, integral):
    if policy == "Bitwise":
        return 6
    if policy in ("Compare", "Logical"):
        return 1 if integral else 0.5
    return {"pow": 2 if integral else 1.5, "fmod": 3 if integral else 1.5,
            "remainder": 3 if integral else 1.5}.get(op, 3 if integral else -1.5)


def gen_binary():
    fam = Family("binary", ["Every row of EMBER_BINARY_OPS, then add, sub, div, lerp, addcmul, "
                            "addcdiv, threshold_backward, where, clamp_tensor."])
    for op, policy in op_table_rows("EMBER_BINARY_OPS"):
        if policy not in ("Bitwise", "Compare", "Logical") and op not in BIN_FLOAT_DOMAIN:
            raise RuntimeError(f"binary op {op} has no input domain in gen/binary.py")
        call = f"torch.{op}(a0, a1)"
        float_ok = policy != "Bitwise"
        dtypes = list(FLOATS) + [torch.int64, torch.bool] if float_ok else \
            [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool]
        for dt in dtypes:
            name = f"{op}/{dn(dt)}"
            fam.case(name, call, list(bin_inputs(Rng(name), op, policy, ([3, 4], [3, 4]), dt)),
                     optional=dt == torch.bool)
        main = torch.float32 if float_ok else torch.int64
        name = f"{op}/broadcast_{dn(main)}"
        fam.case(name, call, list(bin_inputs(Rng(name), op, policy, ([3, 1, 4], [2, 4]), main)))
        name = f"{op}/transposed_{dn(main)}"
        a, b = bin_inputs(Rng(name), op, policy, ([4, 3], [3, 4]), main)
        fam.case(name, f"torch.{op}(a0.mT, a1)", [a, b], flags=["transposed"])
        fam.case(f"{op}/empty_{dn(main)}", call, [torch.empty(0, 4, dtype=main),
                                                  torch.ones(1, 4, dtype=main)])
        name = f"{op}/dim0_{dn(main)}"
        fam.case(name, call, list(bin_inputs(Rng(name), op, policy, ([], []), main)))
        if float_ok:
            sp = torch.tensor(SPECIALS)
            other = torch.tensor([1.0, math.nan, math.inf, -math.inf, 0.0, 2.0, -0.0, 0.0, -2.0,
                                  math.inf, 0.5, -math.inf])
            for dt in (torch.float32, torch.float64):
                fam.case(f"{op}/special_{dn(dt)}", call, [sp.to(dt), other.to(dt)])
        # tensor-scalar, scalar-tensor
        for dt in ([torch.float32, torch.int64] if float_ok else [torch.int64, torch.uint8]):
            integral = not dt.is_floating_point
            s = scalar_for(op, policy, integral)
            name = f"{op}/tensor_scalar_{dn(dt)}"
            a, _ = bin_inputs(Rng(name), op, policy, ([3, 4], [1]), dt)
            fam.case(name, f"torch.{op}(a0, s0)", [a], sargs=[s], flags=["tensor_scalar"],
                     alt_ref=f"torch.{op}(a0, wrap(a0, s0))")
            name = f"{op}/scalar_tensor_{dn(dt)}"
            _, b = bin_inputs(Rng(name), op, policy, ([1], [3, 4]), dt)
            if op == "pow" and integral:
                b = b.abs()
            fam.case(name, f"torch.{op}(s0, a0)", [b], sargs=[s], flags=["scalar_tensor"],
                     alt_ref=f"torch.{op}(wrap(a0, s0), a0)")
        if float_ok:
            name = f"{op}/int64_pyfloat"
            a, _ = bin_inputs(Rng(name), op, policy, ([3, 4], [1]), torch.int64)
            if op == "pow":
                a = a.abs()
            fam.case(name, f"torch.{op}(a0, s0)", [a], sargs=[scalar_for(op, policy, False)],
                     flags=["tensor_scalar"], alt_ref=f"torch.{op}(a0, wrap(a0, s0))")
            name = f"{op}/int32_float32"
            a, b = bin_inputs(Rng(name), op, policy, ([3, 4], [3, 4]), torch.float32)
            a = a.to(torch.int32) if op != "pow" else a.abs().round().to(torch.int32)
            fam.case(name, call, [a, b])

    # ---- Type promotion (the mixed cases not covered above) ----
    r = Rng("promotion")
    f32 = lambda s=(3, 4): r.uniform(list(s), -3, 3)
    promo = [
        ("add/uint8_int8", "torch.add(a0, a1)",
         [r.ints([3, 4], 0, 255, torch.uint8), r.ints([3, 4], -128, 127, torch.int8)], []),
        ("add/bool_bool", "torch.add(a0, a1)", [r.bools([3, 4]), r.bools([3, 4])], []),
        ("add/float16_pyfloat", "torch.add(a0, s0)", [f32().half()], [0.1]),
        ("add/int32_pyint", "torch.add(a0, s0)", [r.ints([3, 4], -9, 9, torch.int32)], [3]),
        ("add/int64_pyfloat", "torch.add(a0, s0)", [r.ints([3, 4], -9, 9)], [2.5]),
        ("add/uint8_pybool", "torch.add(a0, s0)", [r.ints([3, 4], 0, 200, torch.uint8)], [True]),
        ("add/bool_pyint", "torch.add(a0, s0)", [r.bools([3, 4])], [3]),
        ("add/float32_float64dim0", "torch.add(a0, a1)",
         [f32(), torch.tensor(0.1, dtype=torch.float64)], []),
        ("add/int32_float64dim0", "torch.add(a0, a1)",
         [r.ints([3, 4], -9, 9, torch.int32), torch.tensor(1.5, dtype=torch.float64)], []),
        ("add/int32_int64dim0", "torch.add(a0, a1)",
         [r.ints([3, 4], -9, 9, torch.int32), torch.tensor(7)], []),
        ("add/float16dim0_float32dim0", "torch.add(a0, a1)",
         [torch.tensor(0.1, dtype=torch.float16), torch.tensor(0.2)], []),
        ("add/float16_float32", "torch.add(a0, a1)", [f32().half(), f32()], []),
        ("add/bfloat16_float16", "torch.add(a0, a1)", [f32().bfloat16(), f32().half()], []),
        ("add/uint8_bool", "torch.add(a0, a1)",
         [r.ints([3, 4], 0, 200, torch.uint8), r.bools([3, 4])], []),
        ("add/int8_int16", "torch.add(a0, a1)",
         [r.ints([3, 4], -100, 100, torch.int8), r.ints([3, 4], -999, 999, torch.int16)], []),
        ("mul/bool_pyint", "torch.mul(a0, s0)", [r.bools([3, 4])], [3]),
        ("mul/bool_pyfloat", "torch.mul(a0, s0)", [r.bools([3, 4])], [2.5]),
        ("mul/float16_float32", "torch.mul(a0, a1)", [f32().half(), f32()], []),
        ("mul/bfloat16_float16", "torch.mul(a0, a1)", [f32().bfloat16(), f32().half()], []),
        ("mul/uint8_bool", "torch.mul(a0, a1)",
         [r.ints([3, 4], 0, 255, torch.uint8), r.bools([3, 4])], []),
        ("mul/int64_float64", "torch.mul(a0, a1)",
         [r.ints([3, 4], -9, 9), r.uniform([3, 4], -2, 2, torch.float64)], []),
        ("eq/int64_float32", "torch.eq(a0, a1)",
         [r.ints([3, 4], -2, 2), torch.round(f32()) + torch.where(r.bools([3, 4]), 0.5, 0.0)], []),
        ("lt/uint8_int8", "torch.lt(a0, a1)",
         [r.ints([3, 4], 0, 255, torch.uint8), r.ints([3, 4], -128, 127, torch.int8)], []),
        ("maximum/int64_float64", "torch.maximum(a0, a1)",
         [r.ints([3, 4], -3, 3), r.uniform([3, 4], -3, 3, torch.float64)], []),
        ("pow/float32_pyint", "torch.pow(a0, s0)", [f32()], [2]),
        ("pow/int64_pyint", "torch.pow(a0, s0)", [r.ints([3, 4], -5, 5)], [3]),
        ("pow/int64_pyfloat_half", "torch.pow(a0, s0)", [r.ints([3, 4], 0, 9)], [0.5]),
        ("pow/float16_pyfloat", "torch.pow(a0, s0)", [r.uniform([3, 4], 0.1, 3).half()], [2.5]),
        ("atan2/int32_int64", "torch.atan2(a0, a1)",
         [r.ints([3, 4], -5, 5, torch.int32), r.ints([3, 4], -5, 5)], []),
        ("remainder/int64_pyfloat_neg", "torch.remainder(a0, s0)", [r.ints([3, 4], -9, 9)], [-2.5]),
        ("bitwise_and/uint8_int64", "torch.bitwise_and(a0, a1)",
         [r.ints([3, 4], 0, 255, torch.uint8), r.ints([3, 4], -300, 300)], []),
        ("bitwise_xor/bool_pybool", "torch.bitwise_xor(a0, s0)", [r.bools([3, 4])], [True]),
        ("logical_and/float32_int64", "torch.logical_and(a0, a1)",
         [torch.round(f32()), r.ints([3, 4], -1, 1)], []),
        ("logical_or/uint8_bool", "torch.logical_or(a0, a1)",
         [r.ints([3, 4], 0, 2, torch.uint8), r.bools([3, 4])], []),
    ]
    for name, call, args, sargs in promo:
        fam.case(name, call, args, sargs=sargs, flags=["tensor_scalar"] if sargs else [],
                 alt_ref=call.replace("s0)", "wrap(a0, s0))") if sargs else None)

    # ---- add / sub (alpha) ----
    for op in ("add", "sub"):
        for dt in FLOATS + (torch.int64, torch.int32):
            name = f"{op}/{dn(dt)}"
            rr = Rng(name)
            if dt.is_floating_point:
                a, b = rr.uniform([3, 4], -5, 5, dt), rr.uniform([3, 4], -5, 5, dt)
            else:
                a, b = rr.ints([3, 4], -50, 50, dt), rr.ints([3, 4], -50, 50, dt)
            fam.case(name, f"torch.{op}(a0, a1)", [a, b])
            alpha = 2.5 if dt.is_floating_point else 3
            fam.case(f"{op}/alpha_{dn(dt)}", f"torch.{op}(a0, a1, alpha=s0)", [a, b], sargs=[alpha],
                     flags=["alpha"])
        rr = Rng(f"{op}/broadcast")
        fam.case(f"{op}/broadcast_float32", f"torch.{op}(a0, a1)",
                 [rr.uniform([3, 1, 4], -5, 5), rr.uniform([2, 4], -5, 5)])
        fam.case(f"{op}/broadcast_alpha_float64", f"torch.{op}(a0, a1, alpha=s0)",
                 [rr.uniform([2, 4], -5, 5, torch.float64),
                  rr.uniform([3, 1, 4], -5, 5, torch.float64)],
                 sargs=[-0.5], flags=["alpha"])
        rr = Rng(f"{op}/transposed")
        fam.case(f"{op}/transposed_float32", f"torch.{op}(a0.mT, a1)",
                 [rr.uniform([4, 3], -5, 5), rr.uniform([3, 4], -5, 5)], flags=["transposed"])
        fam.case(f"{op}/tensor_scalar_float32", f"torch.{op}(a0, s0)",
                 [rr.uniform([3, 4], -5, 5)], sargs=[1.5], flags=["tensor_scalar"])
        fam.case(f"{op}/tensor_scalar_alpha_float32", f"torch.{op}(a0, s0, alpha=s1)",
                 [rr.uniform([3, 4], -5, 5)], sargs=[1.5, -2.0], flags=["tensor_scalar", "alpha"])
        fam.case(f"{op}/tensor_scalar_int64", f"torch.{op}(a0, s0)", [rr.ints([3, 4], -9, 9)],
                 sargs=[4], flags=["tensor_scalar"])
        fam.case(f"{op}/special_float32", f"torch.{op}(a0, a1)",
                 [torch.tensor(SPECIALS), torch.tensor(SPECIALS).flip(0)])
        fam.case(f"{op}/bool", f"torch.{op}(a0, a1, alpha=s0)",
                 [rr.bools([3, 4]), rr.bools([3, 4])],
                 sargs=[True], flags=["alpha"], optional=True)
        fam.case(f"{op}/empty_float32", f"torch.{op}(a0, a1)", [torch.empty(0, 4), torch.ones(4)])

    # ---- div (rounding_mode) ----
    for mode in (None, "trunc", "floor"):
        strs = [mode] if mode else []
        tag = f"{mode}_" if mode else ""
        call = "torch.div(a0, a1, rounding_mode=q0)" if mode else "torch.div(a0, a1)"
        scall = "torch.div(a0, s0, rounding_mode=q0)" if mode else "torch.div(a0, s0)"
        for dt in FLOATS:
            name = f"div/{tag}{dn(dt)}"
            rr = Rng(name)
            fam.case(name, call, [rr.uniform([3, 4], -10, 10, dt),
                                  float_input(rr, "nonzero", [3, 4], dt)], strs=strs)
        for dt in (torch.int64, torch.int32):
            name = f"div/{tag}{dn(dt)}"
            rr = Rng(name)
            fam.case(name, call, [rr.ints([3, 4], -20, 20, dt), rr.nonzero_ints([3, 4], -6, 6, dt)],
                     strs=strs)
        rr = Rng(f"div/{tag}more")
        fam.case(f"div/{tag}broadcast_float32", call,
                 [rr.uniform([3, 1, 4], -10, 10),
                  float_input(rr, "nonzero", [2, 4], torch.float32)],
                 strs=strs)
        fam.case(f"div/{tag}transposed_float32", call.replace("(a0,", "(a0.mT,"),
                 [rr.uniform([4, 3], -10, 10), float_input(rr, "nonzero", [3, 4], torch.float32)],
                 strs=strs, flags=["transposed"])
        fam.case(f"div/{tag}tensor_scalar_float32", scall, [rr.uniform([3, 4], -10, 10)],
                 sargs=[-2.5], strs=strs, flags=["tensor_scalar"])
        fam.case(f"div/{tag}tensor_scalar_int64", scall, [rr.ints([3, 4], -20, 20)],
                 sargs=[3], strs=strs, flags=["tensor_scalar"])
        fam.case(f"div/{tag}int64_pyfloat", scall, [rr.ints([3, 4], -20, 20)],
                 sargs=[2.5], strs=strs, flags=["tensor_scalar"])
        fam.case(f"div/{tag}int32_float32", call,
                 [rr.ints([3, 4], -20, 20, torch.int32),
                  float_input(rr, "nonzero", [3, 4], torch.float32)],
                 strs=strs)
        sp = torch.tensor(SPECIALS)
        den = torch.tensor([0.0, 0.0, 0.0, 0.0, -0.0, 0.0, -0.0, math.inf, -math.inf, 2.0, 2.0,
                            3.0])
        for dt in (torch.float32, torch.float64):
            fam.case(f"div/{tag}special_{dn(dt)}", call, [sp.to(dt), den.to(dt)], strs=strs)
        fam.case(f"div/{tag}bool", call, [rr.bools([3, 4]), torch.ones(3, 4, dtype=torch.bool)],
                 strs=strs, optional=True)

    # ---- lerp(a0, a1, s0 | a2) ----
    for dt in FLOATS:
        name = f"lerp/scalar_weight_{dn(dt)}"
        rr = Rng(name)
        a, b = rr.uniform([3, 4], -5, 5, dt), rr.uniform([3, 4], -5, 5, dt)
        for w in (0.3, 0.75):
            fam.case(f"lerp/scalar_weight{w:g}_{dn(dt)}", "torch.lerp(a0, a1, s0)", [a, b],
                     sargs=[w])
        name = f"lerp/tensor_weight_{dn(dt)}"
        rr = Rng(name)
        fam.case(name, "torch.lerp(a0, a1, a2)",
                 [rr.uniform([3, 4], -5, 5, dt), rr.uniform([3, 4], -5, 5, dt),
                  rr.uniform([3, 4], -0.5, 1.5, dt)])
    rr = Rng("lerp/broadcast")
    fam.case("lerp/broadcast_float32", "torch.lerp(a0, a1, a2)",
             [rr.uniform([3, 1], -5, 5), rr.uniform([4], -5, 5), rr.uniform([2, 1, 1], 0, 1)])
    fam.case("lerp/transposed_float32", "torch.lerp(a0.mT, a1, s0)",
             [rr.uniform([4, 3], -5, 5), rr.uniform([3, 4], -5, 5)], sargs=[0.6],
             flags=["transposed"])

    # ---- addcmul / addcdiv: a0 + s0 * a1 (*|/) a2 ----
    for op in ("addcmul", "addcdiv"):
        for dt in FLOATS:
            name = f"{op}/{dn(dt)}"
            rr = Rng(name)
            args = [rr.uniform([3, 4], -3, 3, dt), rr.uniform([3, 4], -3, 3, dt),
                    float_input(rr, "nonzero", [3, 4], dt)]
            fam.case(name, f"torch.{op}(a0, a1, a2)", args)
            fam.case(f"{op}/value_{dn(dt)}", f"torch.{op}(a0, a1, a2, value=s0)", args,
                     sargs=[-0.5])
        rr = Rng(f"{op}/more")
        fam.case(f"{op}/broadcast_float32", f"torch.{op}(a0, a1, a2, value=s0)",
                 [rr.uniform([4], -3, 3), rr.uniform([3, 1], -3, 3),
                  float_input(rr, "nonzero", [2, 1, 4], torch.float32)], sargs=[2.0])
        fam.case(f"{op}/int64", f"torch.{op}(a0, a1, a2, value=s0)",
                 [rr.ints([3, 4], -9, 9), rr.ints([3, 4], -9, 9), rr.nonzero_ints([3, 4], -5, 5)],
                 sargs=[2], optional=True)

    # ---- threshold_backward(a0 grad, a1 self, s0): a0 where a1 > s0, else 0 ----
    call = "torch.ops.aten.threshold_backward(a0, a1, s0)"
    for dt in FLOATS + (torch.int64, torch.int32):
        name = f"threshold_backward/{dn(dt)}"
        rr = Rng(name)
        if dt.is_floating_point:
            args = [rr.uniform([3, 4], -3, 3, dt), rr.uniform([3, 4], -2, 2, dt)]
            args[1][0, :2] = 0.0  # exactly at the threshold: the gradient is 0
        else:
            args = [rr.nonzero_ints([3, 4], -9, 9, dt), rr.ints([3, 4], -2, 2, dt)]
        fam.case(name, call, args, sargs=[0.0])
    rr = Rng("threshold_backward/more")
    fam.case("threshold_backward/threshold_float64", call,
             [rr.uniform([3, 4], -3, 3, torch.float64), rr.uniform([3, 4], -2, 2, torch.float64)],
             sargs=[0.75])
    fam.case("threshold_backward/broadcast_float32", call,
             [rr.uniform([3, 1, 4], -3, 3), rr.uniform([2, 4], -2, 2)], sargs=[0.0])
    fam.case("threshold_backward/transposed_float32", "torch.ops.aten.threshold_backward("
             "a0.mT, a1, s0)", [rr.uniform([4, 3], -3, 3), rr.uniform([3, 4], -2, 2)],
             sargs=[0.0], flags=["transposed"])
    fam.case("threshold_backward/special_float32", call,
             [torch.arange(1.0, 13.0), torch.tensor(SPECIALS)], sargs=[0.0])
    fam.case("threshold_backward/int64_fractional_threshold", call,
             [rr.nonzero_ints([3, 4], -9, 9), rr.ints([3, 4], -2, 2)], sargs=[0.5])
    fam.case("threshold_backward/float32_int64", call,
             [rr.uniform([3, 4], -3, 3), rr.ints([3, 4], -2, 2)], sargs=[0.5])
    fam.case("threshold_backward/empty_float32", call, [torch.empty(0, 4), torch.ones(4)],
             sargs=[0.0])

    # ---- where(a0, a1, a2) ----
    rr = Rng("where")
    cond = rr.bools([3, 4])
    for dt in FLOATS + (torch.int64, torch.bool):
        x = rr.uniform([3, 4], -5, 5, dt) if dt.is_floating_point else \
            (rr.bools([3, 4]) if dt == torch.bool else rr.ints([3, 4], -9, 9, dt))
        y = rr.uniform([3, 4], -5, 5, dt) if dt.is_floating_point else \
            (rr.bools([3, 4]) if dt == torch.bool else rr.ints([3, 4], -9, 9, dt))
        fam.case(f"where/{dn(dt)}", "torch.where(a0, a1, a2)", [cond, x, y])
    fam.case("where/broadcast_float32", "torch.where(a0, a1, a2)",
             [rr.bools([3, 1]), rr.uniform([1, 4], -5, 5), rr.uniform([2, 1, 1], -5, 5)])
    fam.case("where/int64_float32", "torch.where(a0, a1, a2)",
             [cond, rr.ints([3, 4], -9, 9), rr.uniform([3, 4], -5, 5)])
    fam.case("where/float16_float64", "torch.where(a0, a1, a2)",
             [cond, rr.uniform([3, 4], -5, 5, torch.float16),
              rr.uniform([3, 4], -5, 5, torch.float64)])
    fam.case("where/tensor_scalar_float32", "torch.where(a0, a1, s0)",
             [cond, rr.uniform([3, 4], -5, 5)], sargs=[0.0], flags=["tensor_scalar"])
    fam.case("where/tensor_scalar_int64_pyfloat", "torch.where(a0, a1, s0)",
             [cond, rr.ints([3, 4], -9, 9)], sargs=[2.5], flags=["tensor_scalar"])
    fam.case("where/scalar_tensor_float64", "torch.where(a0, s0, a1)",
             [cond, rr.uniform([3, 4], -5, 5, torch.float64)], sargs=[-1.0],
             flags=["scalar_tensor"])
    fam.case("where/scalar_tensor_int32_pyint", "torch.where(a0, s0, a1)",
             [cond, rr.ints([3, 4], -9, 9, torch.int32)], sargs=[7], flags=["scalar_tensor"])
    fam.case("where/transposed_float32", "torch.where(a0, a1.mT, a2)",
             [cond, rr.uniform([4, 3], -5, 5), rr.uniform([3, 4], -5, 5)],
             note="here the transposed operand is a1", flags=["transposed_a1"])

    # ---- clamp_tensor: clamp(a0, min=a1, max=a2) ----
    for dt in (torch.float32, torch.float64, torch.int64, torch.float16, torch.bfloat16):
        name = f"clamp_tensor/{dn(dt)}"
        rr = Rng(name)
        if dt.is_floating_point:
            args = [rr.uniform([3, 4], -4, 4, dt), rr.uniform([3, 4], -3, 0, dt),
                    rr.uniform([3, 4], 0, 3, dt)]
        else:
            args = [rr.ints([3, 4], -6, 6, dt), rr.ints([3, 4], -4, 0, dt),
                    rr.ints([3, 4], 0, 4, dt)]
        fam.case(name, "torch.clamp(a0, min=a1, max=a2)", args)
    rr = Rng("clamp_tensor/more")
    fam.case("clamp_tensor/broadcast_float32", "torch.clamp(a0, min=a1, max=a2)",
             [rr.uniform([3, 4], -4, 4), rr.uniform([4], -3, 0), rr.uniform([3, 1], 0, 3)])
    fam.case("clamp_tensor/min_only_float32", "torch.clamp(a0, min=a1)",
             [rr.uniform([3, 4], -4, 4), rr.uniform([3, 4], -3, 0)], flags=["no_max"])
    fam.case("clamp_tensor/max_only_float32", "torch.clamp(a0, max=a1)",
             [rr.uniform([3, 4], -4, 4), rr.uniform([4], 0, 3)], flags=["no_min"])
    fam.case("clamp_tensor/min_gt_max_float32", "torch.clamp(a0, min=a1, max=a2)",
             [rr.uniform([3, 4], -4, 4), rr.uniform([3, 4], 0, 3), rr.uniform([3, 4], -3, 0)])
    fam.case("clamp_tensor/special_float32", "torch.clamp(a0, min=a1, max=a2)",
             [torch.tensor(SPECIALS), torch.full([12], -1.0),
              torch.tensor([1.0] * 6 + [math.nan] + [1.0] * 5)])
    fam.case("clamp_tensor/int64_float32", "torch.clamp(a0, min=a1, max=a2)",
             [rr.ints([3, 4], -6, 6), rr.uniform([3, 4], -3, 0), rr.uniform([3, 4], 0, 3)],
             optional=True)
    return fam
