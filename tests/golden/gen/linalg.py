"""linalg.golden: matrix products and torch.linalg."""

import math

import torch

from .common import Family, Rng, dn

# linalg.golden
#   mm/bmm/matmul/dot/mv/outer(a0, a1); addmm/baddbmm(a0, a1, a2, beta=s0, alpha=s1) (no sargs:
#   defaults); einsum: str equation, args are the operands.
#   linalg.*: a0 = A (a1 = B for solve). Cases with flag reduced_outputs store invariants instead of
#   the raw outputs, which are unique only up to signs (qr_factors, svd_factors and eigh_factors store
#   them raw: Ember and torch call the same LAPACK drivers):
#     qr: out0 = Q @ R (== A), out1 = |R|        eigh: out0 = eigenvalues (ascending)
#     svd: out0 = S (descending)                 slogdet: out0 = sign, out1 = logabsdet
#   matrix_norm: str fro|nuc, or sarg ord; dims: ilist (absent: (-2, -1)). vector_norm: sarg ord,
#   ilist dims (absent: all). cholesky: flag upper.


def well_conditioned(r, shape, dt):
    n = shape[-1]
    return (r.normal(shape, torch.float64) + n * torch.eye(n, dtype=torch.float64)).to(dt)


def spd(r, shape, dt):
    m = r.normal(shape, torch.float64)
    n = shape[-1]
    return (m @ m.mT + n * torch.eye(n, dtype=torch.float64)).to(dt)


def gen_linalg():
    fam = Family("linalg", ["Matrix products and torch.linalg. The qr, eigh and svd cases store "
                            "invariants (Q@R and |R|, spectra); the *_factors cases store the "
                            "factors themselves (same LAPACK drivers on both sides)."])
    F2 = (torch.float32, torch.float64)
    for dt in F2:
        t = dn(dt)
        r = Rng(f"products_{t}")
        n = lambda *s: r.uniform(list(s), -2, 2, dt)
        fam.case(f"mm/{t}", "torch.mm(a0, a1)", [n(3, 4), n(4, 5)])
        fam.case(f"mm/transposed_{t}", "torch.mm(a0.mT, a1)", [n(4, 3), n(4, 5)],
                 flags=["transposed"])
        fam.case(f"mm/transposed_a1_{t}", "torch.mm(a0, a1.mT)", [n(3, 4), n(5, 4)],
                 flags=["transposed_a1"], note="here the transposed operand is a1")
        fam.case(f"mm/empty_k_{t}", "torch.mm(a0, a1)", [torch.empty(3, 0, dtype=dt),
                                                        torch.empty(0, 2, dtype=dt)])
        fam.case(f"mm/empty_m_{t}", "torch.mm(a0, a1)", [torch.empty(0, 3, dtype=dt), n(3, 2)])
        fam.case(f"bmm/{t}", "torch.bmm(a0, a1)", [n(2, 3, 4), n(2, 4, 5)])
        fam.case(f"bmm/transposed_{t}", "torch.bmm(a0.mT, a1)", [n(2, 4, 3), n(2, 4, 5)],
                 flags=["transposed"])
        fam.case(f"matmul/1d_1d_{t}", "torch.matmul(a0, a1)", [n(5), n(5)])
        fam.case(f"matmul/2d_1d_{t}", "torch.matmul(a0, a1)", [n(3, 5), n(5)])
        fam.case(f"matmul/1d_2d_{t}", "torch.matmul(a0, a1)", [n(3), n(3, 4)])
        fam.case(f"matmul/2d_2d_{t}", "torch.matmul(a0, a1)", [n(3, 4), n(4, 2)])
        fam.case(f"matmul/3d_2d_{t}", "torch.matmul(a0, a1)", [n(2, 3, 4), n(4, 2)])
        fam.case(f"matmul/1d_3d_{t}", "torch.matmul(a0, a1)", [n(3), n(2, 3, 4)])
        fam.case(f"matmul/3d_1d_{t}", "torch.matmul(a0, a1)", [n(2, 3, 4), n(4)])
        fam.case(f"matmul/broadcast_{t}", "torch.matmul(a0, a1)", [n(2, 1, 3, 4), n(3, 4, 2)])
        fam.case(f"matmul/2d_4d_{t}", "torch.matmul(a0, a1)", [n(3, 4), n(2, 1, 4, 2)])
        fam.case(f"addmm/{t}", "torch.addmm(a0, a1, a2)", [n(3, 5), n(3, 4), n(4, 5)])
        fam.case(f"addmm/beta_alpha_{t}", "torch.addmm(a0, a1, a2, beta=s0, alpha=s1)",
                 [n(3, 5), n(3, 4), n(4, 5)], sargs=[0.5, -1.5])
        fam.case(f"addmm/broadcast_bias_{t}", "torch.addmm(a0, a1, a2)", [n(5), n(3, 4), n(4, 5)])
        fam.case(f"addmm/beta0_nan_{t}", "torch.addmm(a0, a1, a2, beta=s0, alpha=s1)",
                 [torch.full([3, 5], math.nan, dtype=dt), n(3, 4), n(4, 5)], sargs=[0.0, 1.0],
                 note="beta=0 ignores self, even nan")
        fam.case(f"baddbmm/{t}", "torch.baddbmm(a0, a1, a2)", [n(2, 3, 5), n(2, 3, 4), n(2, 4, 5)])
        fam.case(f"baddbmm/beta_alpha_{t}", "torch.baddbmm(a0, a1, a2, beta=s0, alpha=s1)",
                 [n(3, 5), n(2, 3, 4), n(2, 4, 5)], sargs=[2.0, 0.5])
        fam.case(f"dot/{t}", "torch.dot(a0, a1)", [n(7), n(7)])
        fam.case(f"dot/empty_{t}", "torch.dot(a0, a1)", [n(0), n(0)])
        fam.case(f"mv/{t}", "torch.mv(a0, a1)", [n(3, 4), n(4)])
        fam.case(f"mv/transposed_{t}", "torch.mv(a0.mT, a1)", [n(4, 3), n(4)], flags=["transposed"])
        fam.case(f"outer/{t}", "torch.outer(a0, a1)", [n(3), n(4)])
        for eq, shapes in (("ij,jk->ik", [(3, 4), (4, 2)]),
                           ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
                           ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("ij->", [(3, 4)]),
                           ("ij->ji", [(3, 4)]), ("i,j->ij", [(3,), (4,)]), ("i,i->", [(5,), (5,)]),
                           ("...ij,...jk->...ik", [(2, 3, 4), (4, 2)]),
                           ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]), ("ijk->kj", [(2, 3, 4)]),
                           ("ij,ij->i", [(3, 4), (3, 4)])):
            tag = eq.replace("...", "E").replace(",", "_")
            tag = tag.replace("->", "_to_") + ("scalar" if eq.endswith("->") else "")
            fam.case(f"einsum/{tag}_{t}",
                     f"torch.einsum(q0, {', '.join(f'a{k}' for k in range(len(shapes)))})",
                     [n(*s) for s in shapes], strs=[eq])

    # torch.linalg
    for dt in F2:
        t = dn(dt)
        r = Rng(f"linalg_{t}")
        for shape, tag in (((4, 3), "tall"), ((3, 3), "square"), ((2, 4, 3), "batched")):
            A = r.uniform(list(shape), -2, 2, dt)
            fam.case(f"qr/{tag}_{t}", "Q, R = torch.linalg.qr(a0); (Q @ R, R.abs())", [A],
                     ref="(lambda QR: (QR[0] @ QR[1], QR[1].abs()))(torch.linalg.qr(a0))",
                     flags=["reduced_outputs"])
        fam.case(f"qr/wide_{t}", "Q, R = torch.linalg.qr(a0); (Q @ R, R.abs())",
                 [r.uniform([3, 4], -2, 2, dt)],
                 ref="(lambda QR: (QR[0] @ QR[1], QR[1].abs()))(torch.linalg.qr(a0))",
                 flags=["reduced_outputs"], note="wide A: R is 3x4 upper trapezoidal")
        fam.case(f"inv/{t}", "torch.linalg.inv(a0)", [well_conditioned(r, [4, 4], dt)])
        fam.case(f"inv/batched_{t}", "torch.linalg.inv(a0)", [well_conditioned(r, [2, 3, 3], dt)])
        fam.case(f"inv/transposed_{t}", "torch.linalg.inv(a0.mT)",
                 [well_conditioned(r, [3, 3], dt)],
                 flags=["transposed"])
        fam.case(f"solve/{t}", "torch.linalg.solve(a0, a1)",
                 [well_conditioned(r, [3, 3], dt), r.uniform([3, 2], -2, 2, dt)])
        fam.case(f"solve/vector_{t}", "torch.linalg.solve(a0, a1)",
                 [well_conditioned(r, [3, 3], dt), r.uniform([3], -2, 2, dt)])
        fam.case(f"solve/batched_broadcast_{t}", "torch.linalg.solve(a0, a1)",
                 [well_conditioned(r, [2, 3, 3], dt), r.uniform([3, 2], -2, 2, dt)])
        fam.case(f"cholesky/{t}", "torch.linalg.cholesky(a0)", [spd(r, [4, 4], dt)])
        fam.case(f"cholesky/upper_{t}", "torch.linalg.cholesky(a0, upper=True)",
                 [spd(r, [3, 3], dt)],
                 flags=["upper"])
        fam.case(f"cholesky/batched_{t}", "torch.linalg.cholesky(a0)", [spd(r, [2, 3, 3], dt)])
        fam.case(f"det/{t}", "torch.linalg.det(a0)", [r.uniform([4, 4], -2, 2, dt)])
        fam.case(f"det/batched_{t}", "torch.linalg.det(a0)", [r.uniform([3, 3, 3], -2, 2, dt)])
        fam.case(f"det/singular_{t}", "torch.linalg.det(a0)",
                 [torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=dt)])
        fam.case(f"det/1x1_{t}", "torch.linalg.det(a0)", [torch.tensor([[-3.5]], dtype=dt)])
        neg = well_conditioned(r, [3, 3], dt)
        neg[0], neg[1] = neg[1].clone(), neg[0].clone()  # a row swap makes the determinant negative
        fam.case(f"slogdet/{t}", "torch.linalg.slogdet(a0)", [well_conditioned(r, [3, 3], dt)])
        fam.case(f"slogdet/negative_{t}", "torch.linalg.slogdet(a0)", [neg])
        fam.case(f"slogdet/batched_{t}", "torch.linalg.slogdet(a0)",
                 [r.uniform([2, 3, 3], -2, 2, dt)])
        fam.case(f"slogdet/singular_{t}", "torch.linalg.slogdet(a0)",
                 [torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=dt)], note="sign 0, logabsdet -inf")
        A = r.uniform([3, 4], -2, 2, dt)
        for ordv in ("fro", "nuc"):
            fam.case(f"matrix_norm/{ordv}_{t}", "torch.linalg.matrix_norm(a0, ord=q0)", [A],
                     strs=[ordv])
        for ordv in (1, -1, 2, -2, math.inf, -math.inf):
            tag = {math.inf: "inf", -math.inf: "neginf"}.get(ordv, f"{ordv:g}")
            fam.case(f"matrix_norm/ord{tag}_{t}", "torch.linalg.matrix_norm(a0, ord=s0)", [A],
                     sargs=[float(ordv)])
        fam.case(f"matrix_norm/fro_batched_keepdim_{t}",
                 "torch.linalg.matrix_norm(a0, ord=q0, dim=l0, keepdim=True)",
                 [r.uniform([2, 3, 4], -2, 2, dt)], strs=["fro"], ilists=[[-2, -1]],
                 flags=["keepdim"])
        fam.case(f"matrix_norm/ord1_dims02_{t}", "torch.linalg.matrix_norm(a0, ord=s0, dim=l0)",
                 [r.uniform([3, 2, 4], -2, 2, dt)], sargs=[1.0], ilists=[[0, 2]])
        x = r.uniform([3, 4], -2, 2, dt)
        for ordv in (2, 1, math.inf, -math.inf, 0, 3.5, -1):
            tag = {math.inf: "inf", -math.inf: "neginf"}.get(ordv, f"{ordv:g}")
            fam.case(f"vector_norm/ord{tag}_{t}", "torch.linalg.vector_norm(a0, ord=s0)", [x],
                     sargs=[float(ordv)])
        fam.case(f"vector_norm/ord2_dim1_keepdim_{t}",
                 "torch.linalg.vector_norm(a0, ord=s0, dim=l0, keepdim=True)", [x], sargs=[2.0],
                 ilists=[[1]], flags=["keepdim"])
        fam.case(f"vector_norm/ord1_dims01_{t}", "torch.linalg.vector_norm(a0, ord=s0, dim=l0)",
                 [r.uniform([2, 3, 4], -2, 2, dt)], sargs=[1.0], ilists=[[0, 1]])
        fam.case(f"vector_norm/zeros_{t}", "torch.linalg.vector_norm(a0, ord=s0)",
                 [torch.zeros(3, dtype=dt)], sargs=[2.0])
        fam.case(f"matrix_exp/{t}", "torch.linalg.matrix_exp(a0)", [r.uniform([3, 3], -1, 1, dt)])
        fam.case(f"matrix_exp/large_norm_{t}", "torch.linalg.matrix_exp(a0)",
                 [r.uniform([4, 4], -3, 3, dt)])
        fam.case(f"matrix_exp/batched_{t}", "torch.linalg.matrix_exp(a0)",
                 [r.uniform([2, 3, 3], -1, 1, dt)])
        fam.case(f"matrix_exp/zeros_{t}", "torch.linalg.matrix_exp(a0)",
                 [torch.zeros(2, 2, dtype=dt)])
        S = spd(r, [4, 4], dt) - 4 * torch.eye(4, dtype=dt)  # symmetric, eigenvalues of both signs
        fam.case(f"eigh/{t}", "torch.linalg.eigh(a0).eigenvalues", [S], flags=["reduced_outputs"])
        junk = S.clone()
        junk.triu_(1).add_(7.0)
        junk = torch.tril(S) + torch.triu(junk, 1)
        fam.case(f"eigh/lower_only_{t}", "torch.linalg.eigh(a0).eigenvalues", [junk],
                 flags=["reduced_outputs"], note="the strict upper triangle is junk; eigh reads L")
        fam.case(f"eigh/batched_{t}", "torch.linalg.eigh(a0).eigenvalues", [spd(r, [2, 3, 3], dt)],
                 flags=["reduced_outputs"])
        fam.case(f"eigvalsh/{t}", "torch.linalg.eigvalsh(a0)", [S])
        for shape, tag in (((4, 3), "tall"), ((3, 5), "wide"), ((2, 3, 3), "batched")):
            A = r.uniform(list(shape), -2, 2, dt)
            fam.case(f"svd/{tag}_{t}", "torch.linalg.svd(a0, full_matrices=False).S", [A],
                     flags=["reduced_outputs"])
            fam.case(f"svdvals/{tag}_{t}", "torch.linalg.svdvals(a0)", [A])

    # The factors themselves. Ember and Debian's torch both call LAPACK (OpenBLAS's copy here) with
    # the same drivers, so Q/R, U/Vh and the eigenvectors agree down to their signs.
    for dt in F2:
        t = dn(dt)
        r = Rng(f"factors_{t}")
        for shape, tag in (((5, 3), "tall"), ((3, 5), "wide"), ((2, 4, 3), "batched")):
            A = r.uniform(list(shape), -2, 2, dt)
            for mode in ("reduced", "complete", "r"):
                fam.case(f"qr_factors/{tag}_{mode}_{t}", "torch.linalg.qr(a0, mode=q0)", [A],
                         strs=[mode])
        fam.case(f"qr_factors/no_columns_{t}", "torch.linalg.qr(a0, mode=q0)",
                 [torch.empty(3, 0, dtype=dt)], strs=["complete"], note="Q is the identity")
        for shape, tag in (((5, 3), "tall"), ((3, 5), "wide"), ((2, 4, 4), "batched")):
            A = r.uniform(list(shape), -2, 2, dt)
            fam.case(f"svd_factors/{tag}_{t}", "torch.linalg.svd(a0, full_matrices=False)", [A])
            fam.case(f"svd_factors/{tag}_full_{t}", "torch.linalg.svd(a0, full_matrices=True)",
                     [A], flags=["full"])
        for uplo in ("L", "U"):
            S = spd(r, [4, 4], dt) - 4 * torch.eye(4, dtype=dt)
            fam.case(f"eigh_factors/{uplo}_{t}", "torch.linalg.eigh(a0, UPLO=q0)", [S],
                     strs=[uplo])
        fam.case(f"eigh_factors/batched_{t}", "torch.linalg.eigh(a0, UPLO=q0)",
                 [spd(r, [2, 3, 3], dt)], strs=["L"])
        # cholesky reads one triangle: the lower one, or the upper one with upper=True.
        S = spd(r, [3, 3], dt)
        fam.case(f"cholesky/upper_junk_below_{t}", "torch.linalg.cholesky(a0, upper=True)",
                 [torch.triu(S) + torch.tril(torch.full_like(S, 50.0), -1)], flags=["upper"],
                 note="the strict lower triangle is junk; upper=True reads the upper one")
        fam.case(f"cholesky/lower_junk_above_{t}", "torch.linalg.cholesky(a0)",
                 [torch.tril(S) + torch.triu(torch.full_like(S, 50.0), 1)],
                 note="the strict upper triangle is junk")
        # One case per Padé degree (||A||_1 up to 0.015, 0.25, 0.95, 2.1, 5.4) and two that square.
        for norm in (0.01, 0.2, 0.9, 2.0, 5.0, 12.0, 60.0):
            A = r.uniform([4, 4], -1, 1, torch.float64)
            A = A * (norm / A.abs().sum(0).max())
            fam.case(f"matrix_exp/norm{norm:g}_{t}", "torch.linalg.matrix_exp(a0)",
                     [A.to(dt)], ref="torch.linalg.matrix_exp(a0.double()).to(a0.dtype)",
                     note=f"||A||_1 = {norm:g}; expected values computed in float64 and rounded "
                     "(torch's float32 squarings drift 2.5e-6 at norm 60; Ember computes in "
                     "float64)")
    # geqrf's compact factors (the same LAPACK routine on both sides, so the signs agree) and
    # householder_product, fed geqrf's factors (it then gives qr's Q) and arbitrary reflectors.
    for dt in F2:
        t = dn(dt)
        r = Rng(f"householder_{t}")
        for shape, tag in (((5, 3), "tall"), ((4, 4), "square"), ((3, 5), "wide"),
                           ((2, 4, 3), "batched")):
            A = r.uniform(list(shape), -2, 2, dt)
            fam.case(f"geqrf/{tag}_{t}", "torch.geqrf(a0)", [A])
        for shape, k, tag in (((5, 3), 3, "tall"), ((4, 4), 4, "square"), ((5, 3), 2, "fewer"),
                              ((2, 4, 3), 3, "batched")):
            A = r.uniform(list(shape), -1, 1, dt)
            tau = r.uniform(list(shape[:-2]) + [k], 0, 2, dt)
            fam.case(f"householder_product/{tag}_{t}", "torch.linalg.householder_product(a0, a1)",
                     [A, tau])
        A = r.uniform([5, 3], -2, 2, dt)
        fam.case(f"householder_product/of_geqrf_{t}",
                 "torch.linalg.householder_product(*torch.geqrf(a0))", [A],
                 note="equals torch.linalg.qr(a0).Q")
    return fam
