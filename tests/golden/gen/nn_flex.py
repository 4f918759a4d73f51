"""nn_flex.golden: flex_attention (torch.nn.attention.flex_attention) with PyTorch 2.x's semantics.

The python3-torch of Debian 12 (1.13) has no flex_attention, so the reference is its definition
written out in float64 torch ops and differentiated by torch's autograd, as nn_attention.py does
for scaled_dot_product_attention:

    scores = (q @ k^T) * scale                          scale: 1/sqrt(E) unless given
    scores = score_mod(scores, b, h, q_idx, kv_idx)
    scores[mask_mod(b, h, q_idx, kv_idx) is false] = -inf
    out    = softmax(scores, keys) @ v                  a row with no key kept gives 0 (and 0 grad)

Query head h reads key/value head h // (Hq / Hkv) (enable_gqa). The gradients are those of
(out * cotangent).sum() with respect to q, k, v and the learned table the score_mod reads, if any.

Record layout (tests/nn/flex_attention_golden_test.cpp reads it):

    case flex/<variant>_<dtype>
    iarg   kind param block_q block_kv enable_gqa has_scale has_table
    sarg   scale (0.0 without has_scale) cap (0.0 unless kind is softcap)
    arg    q [B, Hq, L, E], k [B, Hkv, S, E], v [B, Hkv, S, Ev], [table], cotangent [B, Hq, L, Ev]
    out    out, dq, dk, dv, [dtable]

kind (mask_mod / score_mod; `param` is the integer the mod needs):
    0 causal          mask q >= kv
    1 sliding window  mask q >= kv and q - kv <= param
    2 prefix-LM       mask kv < param or q >= kv
    3 document        mask q // param == kv // param
    4 ALiBi           score + table[h] * (kv - q), table [Hq]; mask q >= kv
    5 relative bias   score + table[h, q - kv + S - 1], table [Hq, L + S - 1]; no mask
    6 soft-capping    cap * tanh(score / cap); mask q >= kv
    7 late rows       mask q >= param and kv <= q (rows q < param keep no key)

block_q/block_kv are the BlockMask block sizes the C++ test uses; the results do not depend on
them. They are small so that a mask has skipped, partial and full blocks.
"""

import math

import torch

from .common import Family, Rng

DTYPES = [("float64", torch.float64), ("float32", torch.float32)]

CAUSAL, WINDOW, PREFIX, DOCUMENT, ALIBI, RELATIVE, SOFTCAP, LATE = range(8)
KIND_NAMES = ["causal", "sliding_window", "prefix_lm", "document", "alibi", "relative_bias",
              "softcap", "late_rows"]

# (variant, kind, param, [B, Hq, L, E], Hkv (None: Hq), S, Ev (None: E), (block_q, block_kv),
#  scale (None: default), cap)
CASES = [
    ("causal", CAUSAL, 0, [1, 1, 37, 4], None, 37, 3, (16, 16), None, 0.0),
    ("causal_l_lt_s", CAUSAL, 0, [2, 1, 21, 5], None, 45, 3, (16, 16), None, 0.0),
    ("causal_long", CAUSAL, 0, [1, 1, 150, 4], None, 141, 2, (32, 16), None, 0.0),
    ("sliding_window", WINDOW, 5, [1, 1, 40, 4], None, 40, None, (16, 16), None, 0.0),
    ("sliding_window_l_gt_s", WINDOW, 7, [1, 1, 50, 4], None, 35, 5, (16, 16), None, 0.0),
    ("prefix_lm", PREFIX, 9, [2, 1, 33, 3], None, 33, None, (16, 16), None, 0.0),
    ("prefix_lm_l_lt_s", PREFIX, 20, [1, 1, 18, 4], None, 47, 2, (16, 16), None, 0.0),
    ("document", DOCUMENT, 7, [1, 1, 45, 4], None, 52, 3, (32, 16), None, 0.0),
    ("alibi", ALIBI, 0, [1, 3, 29, 3], None, 29, None, (16, 16), None, 0.0),
    ("alibi_gqa", ALIBI, 0, [1, 4, 35, 3], 2, 37, 2, (16, 16), None, 0.0),
    ("relative_bias", RELATIVE, 0, [1, 2, 19, 4], None, 26, None, (16, 16), None, 0.0),
    ("relative_bias_l_gt_s", RELATIVE, 0, [1, 2, 34, 3], None, 17, 3, (16, 16), None, 0.0),
    ("softcap", SOFTCAP, 0, [1, 1, 34, 6], None, 34, 4, (16, 16), None, 2.0),
    ("softcap_scale", SOFTCAP, 0, [1, 1, 23, 6], None, 30, 4, (16, 16), 0.9, 1.5),
    ("causal_scale", CAUSAL, 0, [1, 2, 20, 5], None, 20, None, (16, 16), 0.3, 0.0),
    ("late_rows", LATE, 10, [1, 1, 20, 4], None, 20, None, (16, 16), None, 0.0),
    ("late_rows_gqa", LATE, 13, [1, 2, 30, 3], 1, 26, 2, (16, 16), None, 0.0),
]


def keep_mask(kind, param, L, S):
    """[L, S] bool: the positions mask_mod keeps (None: every position)."""
    q = torch.arange(L).view(L, 1)
    kv = torch.arange(S).view(1, S)
    if kind in (CAUSAL, ALIBI, SOFTCAP):
        return (q >= kv).expand(L, S)
    if kind == WINDOW:
        return (q >= kv) & (q - kv <= param)
    if kind == PREFIX:
        return (kv < param) | (q >= kv)
    if kind == DOCUMENT:
        return torch.div(q, param, rounding_mode="floor") == torch.div(kv, param,
                                                                       rounding_mode="floor")
    if kind == LATE:
        return (q >= param) & (kv <= q)
    return None


def score_mod(kind, s, table, cap):
    """The score_mod on scores [B, Hq, L, S]."""
    L, S = s.shape[-2], s.shape[-1]
    q = torch.arange(L).view(L, 1)
    kv = torch.arange(S).view(1, S)
    if kind == ALIBI:
        return s + table.view(1, -1, 1, 1) * (kv - q).to(s.dtype)
    if kind == RELATIVE:
        idx = (q - kv + S - 1).reshape(-1)
        return s + table.index_select(1, idx).view(1, -1, L, S)
    if kind == SOFTCAP:
        return cap * torch.tanh(s / cap)
    return s


def reference(q, k, v, table, kind, param, scale, cap, repeat):
    """flex_attention's definition, in the inputs' dtype."""
    if repeat > 1:
        k = k.repeat_interleave(repeat, dim=-3)
        v = v.repeat_interleave(repeat, dim=-3)
    s = (q @ k.transpose(-2, -1)) * scale
    L, S = s.shape[-2], s.shape[-1]
    s = score_mod(kind, s, table, cap)
    keep = keep_mask(kind, param, L, S)
    if keep is not None:
        s = s.masked_fill(~keep, -math.inf)
    dead = s.amax(-1, keepdim=True) == -math.inf
    w = torch.softmax(s.masked_fill(dead, 0.0), -1).masked_fill(dead, 0.0)
    return w @ v


def _case(fam, variant, kind, param, qshape, hkv, S, Ev, block, scale, cap, dname, dtype):
    name = f"flex/{variant}_{dname}"
    rng = Rng(name)
    B, Hq, L, E = qshape
    Hk = hkv if hkv is not None else Hq
    Ev = Ev or E
    q = rng.normal(qshape, torch.float64)
    k = rng.normal([B, Hk, S, E], torch.float64)
    v = rng.normal([B, Hk, S, Ev], torch.float64)
    table = None
    if kind == ALIBI:
        table = rng.uniform([Hq], 0.05, 0.5, torch.float64)
    elif kind == RELATIVE:
        table = rng.normal([Hq, L + S - 1], torch.float64)
    cot = rng.normal([B, Hq, L, Ev], torch.float64)
    repeat = Hq // Hk
    sc = scale if scale is not None else 1.0 / math.sqrt(E)
    # The reference runs in float64 from the stored (rounded) inputs.
    q, k, v, cot = (t.to(dtype) for t in (q, k, v, cot))
    if table is not None:
        table = table.to(dtype)
    ins = [q, k, v] + ([table] if table is not None else [])
    leaves = [t.double().requires_grad_(True) for t in ins]
    out = reference(leaves[0], leaves[1], leaves[2], leaves[3] if table is not None else None,
                    kind, param, sc, cap, repeat)
    grads = torch.autograd.grad((out * cot.double()).sum(), leaves)
    res = [out.detach().to(dtype)] + [g.to(dtype) for g in grads]
    args = ins + [cot]
    mods = {CAUSAL: "q >= kv", WINDOW: f"window({param})", PREFIX: f"prefix_lm({param})",
            DOCUMENT: f"document({param})", ALIBI: "alibi(a3) + causal",
            RELATIVE: "relative_bias(a3)", SOFTCAP: f"softcap({cap}) + causal",
            LATE: f"q >= {param} and kv <= q"}[kind]
    call = (f"flex_attention(q{list(q.shape)}, k{list(k.shape)}, v{list(v.shape)}, "
            f"{KIND_NAMES[kind]}={mods}, scale={scale}, enable_gqa={repeat > 1})")
    fam.case(name, call, args, ref="res", env={"res": res},
             iargs=[kind, param, block[0], block[1], int(repeat > 1), int(scale is not None),
                    int(table is not None)],
             sargs=[float(scale or 0.0), float(cap)])


def gen_nn_flex():
    fam = Family("nn_flex", ["flex_attention against PyTorch 2.x's definition; layout in "
                             "tests/golden/gen/nn_flex.py."])
    for variant, kind, param, qshape, hkv, S, Ev, block, scale, cap in CASES:
        for dname, dtype in DTYPES:
            _case(fam, variant, kind, param, qshape, hkv, S, Ev, block, scale, cap, dname, dtype)
    return fam
