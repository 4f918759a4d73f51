"""reduction.golden: reductions, scans, sorting."""

import math

import torch

from .common import FLOATS, LOW, Family, Rng, dn

# reduction.golden
#   dims: ilist (absent: all dims / dim=None); a single dim (prod, max/min/argmax with dim,
#   softmax, cumsum, topk, sort, median, all/any): iarg; keepdim: flag keepdim; var/std: sarg 0 is
#   the correction (always given); norm: sarg 0 is p; topk: iarg k then iarg dim, flag
#   smallest; sort/argsort: iarg dim, flag descending. Tuple results are `out` values then indices.


def gen_reduction():
    fam = Family("reduction", ["Reductions, scans, sorting. Multi-output ops list values, then "
                               "indices."])
    F2 = (torch.float32, torch.float64)

    def x_for(name, shape, dt, lo=-3, hi=3):
        return Rng(name).uniform(shape, lo, hi, dt)

    # sum / mean
    for op in ("sum", "mean"):
        for dt in F2:
            name = f"{op}/all_{dn(dt)}"
            x = x_for(name, [2, 3, 4], dt)
            fam.case(name, f"torch.{op}(a0)", [x])
            fam.case(f"{op}/dim1_{dn(dt)}", f"torch.{op}(a0, dim=l0)", [x], ilists=[[1]])
            fam.case(f"{op}/dims02_keepdim_{dn(dt)}", f"torch.{op}(a0, dim=l0, keepdim=True)", [x],
                     ilists=[[0, 2]], flags=["keepdim"])
            fam.case(f"{op}/dimneg1_{dn(dt)}", f"torch.{op}(a0, dim=l0)", [x], ilists=[[-1]])
            fam.case(f"{op}/transposed_{dn(dt)}", f"torch.{op}(a0.mT, dim=l0)", [x], ilists=[[-1]],
                     flags=["transposed"])
        fam.case(f"{op}/empty_float32", f"torch.{op}(a0, dim=l0)", [torch.empty(0, 3)],
                 ilists=[[0]])
        fam.case(f"{op}/dim0_float32", f"torch.{op}(a0)", [torch.tensor(2.5)])
        for dt in LOW:
            name = f"{op}/{dn(dt)}"
            x = Rng(name).uniform([4, 16], 0, 3, dt)
            # Ember accumulates 16-bit floats in float32 and rounds once at the end.
            fam.case(name, f"torch.{op}(a0)", [x], ref=f"torch.{op}(a0.float()).to(a0.dtype)",
                     note="reference: float32 accumulation, rounded once")
            fam.case(f"{op}/dim1_{dn(dt)}", f"torch.{op}(a0, dim=l0)", [x], ilists=[[1]],
                     ref=f"torch.{op}(a0.float(), dim=l0).to(a0.dtype)",
                     note="reference: float32 accumulation, rounded once")
    for dt in (torch.int32, torch.int64, torch.uint8, torch.bool, torch.int8):
        name = f"sum/{dn(dt)}"
        rr = Rng(name)
        x = rr.bools([3, 5]) if dt == torch.bool else \
            rr.ints([3, 5], 0 if dt == torch.uint8 else -100, 100 if dt != torch.int8 else 100, dt)
        fam.case(name, "torch.sum(a0)", [x])
        fam.case(f"sum/dim0_keepdim_{dn(dt)}", "torch.sum(a0, dim=l0, keepdim=True)", [x],
                 ilists=[[0]], flags=["keepdim"])
    fam.case("sum/uint8_wide_result", "torch.sum(a0)", [torch.full([4, 4], 250, dtype=torch.uint8)])
    fam.case("mean/int64", "torch.mean(a0)", [torch.arange(6)], optional=True)

    # prod(a0) / prod(a0, dim=i0, keepdim)
    for dt in F2 + (torch.int32, torch.int64, torch.bool):
        name = f"prod/{dn(dt)}"
        rr = Rng(name)
        x = rr.uniform([2, 3, 4], 0.5, 1.5, dt) if dt.is_floating_point else \
            (rr.bools([2, 3, 4], 0.9) if dt == torch.bool else
             rr.nonzero_ints([2, 3, 4], -3, 3, dt))
        fam.case(name, "torch.prod(a0)", [x] if dt.is_floating_point or dt == torch.bool
                 else [x[:, :2, :2].contiguous()])
        fam.case(f"prod/dim1_{dn(dt)}", "torch.prod(a0, i0)", [x], iargs=[1])
        fam.case(f"prod/dim2_keepdim_{dn(dt)}", "torch.prod(a0, i0, keepdim=True)", [x], iargs=[2],
                 flags=["keepdim"])

    # max/min (full and with dim -> values, indices), amax/amin (dim lists)
    for op in ("max", "min"):
        for dt in F2 + (torch.int64,):
            name = f"{op}/{dn(dt)}"
            x = Rng(name).distinct([3, 4, 5], dt) if dt.is_floating_point else \
                Rng(name).perm(60).reshape(3, 4, 5) - 30
            fam.case(name, f"torch.{op}(a0)", [x])
            fam.case(f"{op}/dim1_{dn(dt)}", f"torch.{op}(a0, i0)", [x], iargs=[1])
            fam.case(f"{op}/dimneg1_keepdim_{dn(dt)}", f"torch.{op}(a0, i0, keepdim=True)", [x],
                     iargs=[-1], flags=["keepdim"])
        fam.case(f"{op}/nan_float32", f"torch.{op}(a0)", [torch.tensor([1.0, math.nan, 3.0, -1.0])])
        fam.case(f"{op}/nan_dim_float32", f"torch.{op}(a0, i0)",
                 [torch.tensor([[1.0, math.nan, 3.0], [2.0, -1.0, 0.0]])], iargs=[1])
        fam.case(f"{op}/ties_dim_int64", f"torch.{op}(a0, i0)",
                 [torch.tensor([[3, 1, 3, 1], [2, 2, 2, 2]])], iargs=[1],
                 note="ties: torch returns the first index on CPU")
        fam.case(f"{op}/bool", f"torch.{op}(a0)", [Rng(f"{op}/bool").bools([3, 4])], optional=True)
        fam.case(f"{op}/bfloat16", f"torch.{op}(a0)",
                 [Rng(f"{op}/bf16").distinct([3, 4], torch.bfloat16)])
        a = f"a{op}"
        for dt in F2 + (torch.int32,):
            name = f"{a}/{dn(dt)}"
            x = Rng(name).distinct([3, 4, 5], dt) if dt.is_floating_point else \
                (Rng(name).perm(60).reshape(3, 4, 5) - 30).to(dt)
            fam.case(name, f"torch.{a}(a0)", [x])
            fam.case(f"{a}/dims02_{dn(dt)}", f"torch.{a}(a0, dim=l0)", [x], ilists=[[0, 2]])
            fam.case(f"{a}/dim1_keepdim_{dn(dt)}", f"torch.{a}(a0, dim=l0, keepdim=True)", [x],
                     ilists=[[1]], flags=["keepdim"])
        fam.case(f"{a}/nan_float32", f"torch.{a}(a0, dim=l0)",
                 [torch.tensor([[1.0, math.nan, 3.0], [2.0, -1.0, 0.0]])], ilists=[[1]])
        fam.case(f"{a}/float16", f"torch.{a}(a0, dim=l0)",
                 [Rng(f"{a}/f16").distinct([3, 4], torch.float16)], ilists=[[0]])

    # argmax/argmin(a0, dim=i0, keepdim)
    for op in ("argmax", "argmin"):
        for dt in F2 + (torch.int64,):
            name = f"{op}/{dn(dt)}"
            x = Rng(name).distinct([3, 4, 5], dt) if dt.is_floating_point else \
                Rng(name).perm(60).reshape(3, 4, 5) - 30
            fam.case(name, f"torch.{op}(a0)", [x])
            fam.case(f"{op}/dim1_{dn(dt)}", f"torch.{op}(a0, dim=i0)", [x], iargs=[1])
            fam.case(f"{op}/dim2_keepdim_{dn(dt)}", f"torch.{op}(a0, dim=i0, keepdim=True)", [x],
                     iargs=[2], flags=["keepdim"])
        fam.case(f"{op}/nan_float32", f"torch.{op}(a0)", [torch.tensor([1.0, 5.0, math.nan, -1.0])])
        fam.case(f"{op}/ties_int64", f"torch.{op}(a0, dim=i0)",
                 [torch.tensor([[3, 1, 3, 1], [2, 2, 2, 2]])], iargs=[1])

    # var/std(a0, dim=l0 | None, correction=s0, keepdim)
    for op in ("var", "std"):
        for dt in F2:
            name = f"{op}/{dn(dt)}"
            x = x_for(name, [3, 4, 5], dt)
            for corr in (0, 1):
                fam.case(f"{op}/all_corr{corr}_{dn(dt)}",
                         f"torch.{op}(a0, dim=None, correction=s0)", [x], sargs=[corr])
                fam.case(f"{op}/dim1_corr{corr}_{dn(dt)}",
                         f"torch.{op}(a0, dim=l0, correction=s0)", [x], sargs=[corr],
                         ilists=[[1]])
                fam.case(f"{op}/dims02_keepdim_corr{corr}_{dn(dt)}",
                         f"torch.{op}(a0, dim=l0, correction=s0, keepdim=True)", [x], sargs=[corr],
                         ilists=[[0, 2]], flags=["keepdim"])
        fam.case(f"{op}/single_corr1_float32", f"torch.{op}(a0, dim=l0, correction=s0)",
                 [torch.tensor([[1.5], [2.0]])], sargs=[1], ilists=[[1]],
                 note="one element with correction 1: nan")
        fam.case(f"{op}/transposed_float32", f"torch.{op}(a0.mT, dim=l0, correction=s0)",
                 [x_for(f"{op}/tr", [4, 6], torch.float32)], sargs=[1], ilists=[[-1]],
                 flags=["transposed"])
        fam.case(f"{op}/bfloat16", f"torch.{op}(a0, dim=None, correction=s0)",
                 [x_for(f"{op}/bf16", [4, 6], torch.bfloat16)], sargs=[1])

    # norm(a0, p=s0) / norm(a0, p=s0, dim=l0, keepdim)
    for dt in F2:
        name = f"norm/{dn(dt)}"
        x = x_for(name, [3, 4, 5], dt)
        for p in (2, 1, 3.5, math.inf, -math.inf, 0):
            tag = {math.inf: "inf", -math.inf: "neginf"}.get(p, f"{p:g}")
            fam.case(f"norm/p{tag}_{dn(dt)}", "torch.norm(a0, p=s0)", [x], sargs=[p])
            fam.case(f"norm/p{tag}_dims12_{dn(dt)}", "torch.norm(a0, p=s0, dim=l0)", [x], sargs=[p],
                     ilists=[[1, 2]])
        fam.case(f"norm/p2_dim0_keepdim_{dn(dt)}", "torch.norm(a0, p=s0, dim=l0, keepdim=True)",
                 [x], sargs=[2], ilists=[[0]], flags=["keepdim"])
    fam.case("norm/float16", "torch.norm(a0, p=s0)", [x_for("norm/f16", [4, 6], torch.float16)],
             sargs=[2], ref="torch.norm(a0.float(), p=s0).to(a0.dtype)",
             note="reference: float32 accumulation, rounded once")

    # logsumexp(a0, dim=l0, keepdim)
    for dt in F2:
        name = f"logsumexp/{dn(dt)}"
        x = x_for(name, [3, 4, 5], dt, -5, 5)
        fam.case(f"logsumexp/dim1_{dn(dt)}", "torch.logsumexp(a0, dim=l0)", [x], ilists=[[1]])
        fam.case(f"logsumexp/dims02_keepdim_{dn(dt)}", "torch.logsumexp(a0, dim=l0, keepdim=True)",
                 [x], ilists=[[0, 2]], flags=["keepdim"])
        fam.case(f"logsumexp/large_{dn(dt)}", "torch.logsumexp(a0, dim=l0)",
                 [torch.tensor([[1000.0, 1000.5, 999.0], [-1000.0, -1e30, -999.0]], dtype=dt)],
                 ilists=[[1]])
    fam.case("logsumexp/inf_float32", "torch.logsumexp(a0, dim=l0)",
             [torch.tensor([[-math.inf, -math.inf], [math.inf, 1.0], [math.nan, 0.0]])],
             ilists=[[1]])

    # softmax/log_softmax(a0, dim=i0)
    for op in ("softmax", "log_softmax"):
        for dt in FLOATS:
            name = f"{op}/{dn(dt)}"
            x = x_for(name, [3, 4, 5], dt, -5, 5)
            fam.case(f"{op}/dimneg1_{dn(dt)}", f"torch.{op}(a0, dim=i0)", [x], iargs=[-1])
            if dt in F2:
                fam.case(f"{op}/dim1_{dn(dt)}", f"torch.{op}(a0, dim=i0)", [x], iargs=[1])
                fam.case(f"{op}/dim0_{dn(dt)}", f"torch.{op}(a0, dim=i0)", [x], iargs=[0])
        fam.case(f"{op}/large_float32", f"torch.{op}(a0, dim=i0)",
                 [torch.tensor([[1000.0, 1001.0, 999.0], [-1000.0, -1e30, -999.0]])], iargs=[1])
        fam.case(f"{op}/neginf_float32", f"torch.{op}(a0, dim=i0)",
                 [torch.tensor([[-math.inf, 0.0, 1.0], [-math.inf, -math.inf, 2.0]])], iargs=[1])
        fam.case(f"{op}/transposed_float32", f"torch.{op}(a0.mT, dim=i0)",
                 [x_for(f"{op}/tr", [4, 6], torch.float32)], iargs=[-1], flags=["transposed"])
        fam.case(f"{op}/empty_float32", f"torch.{op}(a0, dim=i0)", [torch.empty(0, 3)], iargs=[1])

    # _softmax_backward_data/_log_softmax_backward_data(grad=a0, output=a1, dim=i0, dtype):
    # the output is the forward op's on a random input; rows (dim -1, the fused CPU kernel, with
    # lengths past its 16-lane blocks) and other dims (the composition).
    for op, fwd in (("_softmax_backward_data", "softmax"),
                    ("_log_softmax_backward_data", "log_softmax")):
        for dt in FLOATS:
            for dim, shape in ((-1, [3, 37]), (-1, [2, 3, 16]), (1, [3, 4, 5]), (0, [4, 3])):
                name = f"{op}/dim{dim}_{len(shape)}d_{dn(dt)}".replace("-", "neg")
                rr = Rng(name)
                out = getattr(torch, fwd)(rr.uniform(shape, -4, 4, torch.float64), dim).to(dt)
                grad = rr.uniform(shape, -2, 2, dt)
                fam.case(name, f"torch.{op}(a0, a1, i0, a1.dtype)", [grad, out], iargs=[dim])
        fam.case(f"{op}/empty_float32", f"torch.{op}(a0, a1, i0, a1.dtype)",
                 [torch.empty(0, 3), torch.empty(0, 3)], iargs=[1])

    # cumsum/cumprod(a0, dim=i0)
    for op in ("cumsum", "cumprod"):
        for dt in FLOATS + (torch.int32, torch.int64, torch.bool, torch.uint8):
            name = f"{op}/{dn(dt)}"
            rr = Rng(name)
            if dt.is_floating_point:
                lo, hi = (0.5, 1.5) if op == "cumprod" else (-3, 3)
                x = rr.uniform([3, 5], lo, hi, dt)
            elif dt == torch.bool:
                x = rr.bools([3, 5], 0.7)
            else:
                x = rr.nonzero_ints([3, 5], -3 if dt != torch.uint8 else 1, 3, dt)
            fam.case(f"{op}/dim1_{dn(dt)}", f"torch.{op}(a0, dim=i0)", [x], iargs=[1])
            if dt in F2:
                fam.case(f"{op}/dim0_{dn(dt)}", f"torch.{op}(a0, dim=i0)", [x], iargs=[0])
        fam.case(f"{op}/transposed_float32", f"torch.{op}(a0.mT, dim=i0)",
                 [Rng(f"{op}/tr").uniform([4, 6], 0.5, 1.5)], iargs=[-1], flags=["transposed"])
        fam.case(f"{op}/dim0_tensor_float32", f"torch.{op}(a0, dim=i0)", [torch.tensor(1.5)],
                 iargs=[0])

    # all/any(a0) / (a0, dim=i0, keepdim)
    for op in ("all", "any"):
        for dt in (torch.bool, torch.float32, torch.int64, torch.uint8):
            rr = Rng(f"{op}/{dn(dt)}")
            p = 0.8 if op == "all" else 0.2
            mask = rr.bools([3, 4], p)
            mask[0] = op == "all"  # a row that is all true (all) / all false (any)
            x = mask.to(dt) if dt != torch.float32 else mask.float() * rr.uniform([3, 4], 0.5, 2)
            fam.case(f"{op}/{dn(dt)}", f"torch.{op}(a0)", [x])
            fam.case(f"{op}/dim1_{dn(dt)}", f"torch.{op}(a0, dim=i0)", [x], iargs=[1])
            fam.case(f"{op}/dim0_keepdim_{dn(dt)}", f"torch.{op}(a0, dim=i0, keepdim=True)", [x],
                     iargs=[0], flags=["keepdim"])
        fam.case(f"{op}/empty_bool", f"torch.{op}(a0)", [torch.empty(0, dtype=torch.bool)])
        fam.case(f"{op}/nan_float32", f"torch.{op}(a0)", [torch.tensor([math.nan, 1.0])])

    # topk(a0, k=i0, dim=i1, largest=not smallest, sorted=True)
    for dt in F2 + (torch.int64,):
        name = f"topk/{dn(dt)}"
        x = Rng(name).distinct([3, 6], dt) if dt.is_floating_point else \
            Rng(name).perm(18).reshape(3, 6)
        fam.case(f"topk/k2_{dn(dt)}", "torch.topk(a0, i0, dim=i1)", [x], iargs=[2, -1])
        fam.case(f"topk/k2_dim0_{dn(dt)}", "torch.topk(a0, i0, dim=i1)", [x], iargs=[2, 0])
        fam.case(f"topk/k3_smallest_{dn(dt)}", "torch.topk(a0, i0, dim=i1, largest=False)", [x],
                 iargs=[3, 1], flags=["smallest"])
    fam.case("topk/k0_float32", "torch.topk(a0, i0, dim=i1)", [Rng("topk/k0").distinct([3, 4])],
             iargs=[0, 1])
    fam.case("topk/nan_float32", "torch.topk(a0, i0, dim=i1)",
             [torch.tensor([1.0, math.nan, 3.0, -1.0, 2.0])], iargs=[2, 0],
             note="nan counts as largest")

    # sort/argsort(a0, dim=i0, descending)
    for op in ("sort", "argsort"):
        for dt in F2 + (torch.int64, torch.bfloat16):
            name = f"{op}/{dn(dt)}"
            x = Rng(name).distinct([3, 6], dt) if dt.is_floating_point else \
                Rng(name).perm(18).reshape(3, 6)
            fam.case(f"{op}/dimneg1_{dn(dt)}", f"torch.{op}(a0, dim=i0)", [x], iargs=[-1])
            fam.case(f"{op}/dim0_descending_{dn(dt)}", f"torch.{op}(a0, dim=i0, descending=True)",
                     [x], iargs=[0], flags=["descending"])
        fam.case(f"{op}/nan_float32", f"torch.{op}(a0, dim=i0)",
                 [torch.tensor([1.0, math.nan, -math.inf, 3.0, -0.5, math.inf])], iargs=[0],
                 note="nan sorts after inf")
        fam.case(f"{op}/transposed_float32", f"torch.{op}(a0.mT, dim=i0)",
                 [Rng(f"{op}/tr").distinct([6, 3])], iargs=[-1], flags=["transposed"])
    fam.case("sort/bool", "torch.sort(a0, dim=i0)", [torch.tensor([True, False, True, False])],
             iargs=[0], note="ties: values only are well defined; indices from torch (stable here)",
             ref="torch.sort(a0, dim=i0, stable=True)")

    # median(a0) / median(a0, dim=i0, keepdim): lower median for even counts
    for dt in F2 + (torch.int64,):
        name = f"median/{dn(dt)}"
        x = Rng(name).distinct([3, 6], dt) if dt.is_floating_point else \
            Rng(name).perm(18).reshape(3, 6) - 9
        fam.case(f"median/all_{dn(dt)}", "torch.median(a0)", [x])
        fam.case(f"median/odd_{dn(dt)}", "torch.median(a0)", [x[:, :5].contiguous()])
        fam.case(f"median/dim1_{dn(dt)}", "torch.median(a0, dim=i0)", [x], iargs=[1])
        fam.case(f"median/dim0_keepdim_{dn(dt)}", "torch.median(a0, dim=i0, keepdim=True)", [x],
                 iargs=[0], flags=["keepdim"])
    fam.case("median/nan_float32", "torch.median(a0, dim=i0)",
             [torch.tensor([[1.0, math.nan, 3.0], [2.0, -1.0, 0.0]])], iargs=[1],
             note="a row with nan gives nan and the index of a nan")
    return fam
