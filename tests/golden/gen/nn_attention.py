"""nn_attention.golden: scaled_dot_product_attention with PyTorch 2.x's semantics.

The python3-torch of Debian 12 (1.13) has no public scaled_dot_product_attention, so the reference
is its definition written out in float64 torch ops (the formula of PyTorch 2.x's documentation,
with its math backend's rule since 2.5 that a row no key takes part in gives 0), evaluated by
torch's autograd for the gradients.

Record layout (tests/nn/functional_attention_golden_test.cpp reads it):

    case sdpa/<variant>_<dtype>
    iarg   is_causal enable_gqa has_mask has_scale
    sarg   scale (0.0 without has_scale)
    arg    q k v [mask] cotangent
    out    output, then the gradients of (output * cotangent).sum() for q, k, v

Shapes are chosen to reach every part of the fused CPU kernel: more than one query block (128 rows)
and key block (256 rows), rows and head dims past one vector register (16 floats) with a tail.
"""

import math

import torch

from .common import Family, Rng

DTYPES = [("float64", torch.float64), ("float32", torch.float32)]

# (variant, q shape, k heads (None: q's), S, Ev (None: E), mask shape or "bool:<shape>", causal,
#  scale)
CASES = [
    ("basic", [2, 3, 5, 4], None, 6, None, None, False, None),
    ("long_rows", [1, 1, 66, 4], None, 260, 3, None, False, None),
    ("wide_head", [1, 1, 5, 40], None, 37, 33, None, False, None),
    ("head_dim_1", [2, 1, 4, 1], None, 19, 1, None, False, None),
    ("causal_square", [1, 1, 67, 3], None, 67, None, None, True, None),
    ("causal_l_lt_s", [1, 1, 5, 3], None, 270, 2, None, True, None),
    ("causal_l_gt_s", [1, 1, 70, 3], None, 20, 2, None, True, None),
    ("bool_mask_2d", [2, 2, 7, 5], None, 33, None, "bool:7,33", False, None),
    ("bool_mask_4d", [2, 2, 6, 3], None, 9, None, "bool:2,1,6,9", False, None),
    ("float_mask", [1, 3, 8, 4], None, 21, 6, "3,8,21", False, None),
    ("float_mask_row_broadcast", [2, 1, 5, 4], None, 18, None, "2,1,1,18", False, None),
    ("fully_masked_row", [1, 2, 4, 3], None, 5, None, "bool:dead", False, None),
    ("scale", [1, 2, 5, 8], None, 7, None, None, False, 0.3),
    ("gqa", [2, 6, 5, 4], 2, 9, None, None, False, None),
    ("gqa_causal", [1, 2, 66, 2], 1, 70, 3, None, True, None),
    ("unbatched_3d", [3, 6, 5], None, 10, 4, None, False, None),
    ("rank5", [2, 1, 2, 4, 3], None, 5, None, None, False, None),
    ("two_query_blocks", [1, 1, 140, 2], None, 30, 2, None, False, None),
    ("causal_l_gt_s_key_blocks", [1, 1, 150, 2], None, 270, 1, None, True, None),
]


def reference(q, k, v, mask, causal, scale, repeat):
    """PyTorch 2.x's math backend, in the inputs' dtype."""
    if repeat > 1:
        k = k.repeat_interleave(repeat, dim=-3)
        v = v.repeat_interleave(repeat, dim=-3)
    s = (q @ k.transpose(-2, -1)) * scale
    L, S = s.shape[-2], s.shape[-1]
    if causal:
        s = s.masked_fill(~torch.ones(L, S, dtype=torch.bool).tril(), -math.inf)
    if mask is not None:
        s = s.masked_fill(~mask, -math.inf) if mask.dtype == torch.bool else s + mask
    dead = s.amax(-1, keepdim=True) == -math.inf
    w = torch.softmax(s.masked_fill(dead, 0.0), -1).masked_fill(dead, 0.0)
    return w @ v


def _case(fam, variant, dname, dtype, qshape, kheads, S, Ev, mask_spec, causal, scale):
    name = f"sdpa/{variant}_{dname}"
    rng = Rng(name)
    E, L = qshape[-1], qshape[-2]
    lead = qshape[:-2]
    klead = list(lead)
    if kheads is not None:
        klead[-1] = kheads
    q = rng.normal(qshape, torch.float64)
    k = rng.normal(klead + [S, E], torch.float64)
    v = rng.normal(klead + [S, Ev or E], torch.float64)
    mask = None
    if mask_spec == "bool:dead":
        mask = rng.bools([L, S], 0.7)
        mask[1, :] = False  # row 1 attends to nothing
        mask[:, 0] |= torch.arange(L) != 1
    elif mask_spec is not None and mask_spec.startswith("bool:"):
        mask = rng.bools([int(x) for x in mask_spec[5:].split(",")], 0.7)
        mask[..., 0] = True
    elif mask_spec is not None:
        mask = rng.normal([int(x) for x in mask_spec.split(",")], torch.float64)
    cot = rng.normal(lead + [L, Ev or E], torch.float64)
    repeat = qshape[-3] // kheads if kheads is not None else 1
    sc = scale if scale is not None else 1.0 / math.sqrt(E)
    # The reference runs in float64 from the stored (rounded) inputs.
    q, k, v, cot = (t.to(dtype) for t in (q, k, v, cot))
    if mask is not None and mask.dtype != torch.bool:
        mask = mask.to(dtype)
    leaves = [t.double().requires_grad_(True) for t in (q, k, v)]
    ref_mask = mask if mask is None or mask.dtype == torch.bool else mask.double()
    out = reference(*leaves, ref_mask, causal, sc, repeat)
    grads = torch.autograd.grad((out * cot.double()).sum(), leaves)
    res = [out.detach().to(dtype)] + [g.to(dtype) for g in grads]
    args = [q, k, v] + ([mask] if mask is not None else []) + [cot]
    call = (f"F.scaled_dot_product_attention(q{list(q.shape)}, k{list(k.shape)}, "
            f"v{list(v.shape)}, mask={None if mask is None else list(mask.shape)}"
            f"{' bool' if mask is not None and mask.dtype == torch.bool else ''}, "
            f"is_causal={causal}, scale={scale}, enable_gqa={repeat > 1})")
    fam.case(name, call, args, ref="res", env={"res": res},
             iargs=[int(causal), int(repeat > 1), int(mask is not None), int(scale is not None)],
             sargs=[float(scale or 0.0)])


def gen_nn_attention():
    fam = Family("nn_attention", ["scaled_dot_product_attention against PyTorch 2.x's math "
                                  "definition; layout in tests/golden/gen/nn_attention.py."])
    for variant, qshape, kheads, S, Ev, mask_spec, causal, scale in CASES:
        for dname, dtype in DTYPES:
            _case(fam, variant, dname, dtype, qshape, kheads, S, Ev, mask_spec, causal, scale)
    return fam
