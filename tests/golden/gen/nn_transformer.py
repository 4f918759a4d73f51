"""nn_transformer.golden: torch.nn's MultiheadAttention, TransformerEncoderLayer,
TransformerDecoderLayer, TransformerEncoder, TransformerDecoder and Transformer (outputs and the
gradients of every input and parameter), and Transformer.generate_square_subsequent_mask.

Record layout (the C++ test builds the same module, copies the `arg` parameters into it by name
and reads this):

    case <Module>/<variant>_<dtype>   Module: MultiheadAttention TransformerEncoderLayer
                                      TransformerDecoderLayer TransformerEncoder
                                      TransformerDecoder Transformer
    call <text>               the Python that built and ran it, for messages
    str <name>                one per parameter, named_parameters() order (MultiheadAttention
                              with kdim or vdim != embed_dim: q_proj_weight k_proj_weight
                              v_proj_weight in place of in_proj_weight; bias_k bias_v come
                              before out_proj.weight out_proj.bias)

  MultiheadAttention (forward(query, key, value, key_padding_mask, need_weights, attn_mask,
  average_attn_weights)):
    iarg    embed_dim num_heads bias add_bias_kv add_zero_attn kdim vdim batch_first need_weights
            average_attn_weights has_key_padding_mask has_attn_mask is_causal
            (kdim, vdim: the values passed to the constructor, 0 when not given; is_causal 1: the
            attn_mask given is the causal bool mask triu(ones(L, L), 1), and Ember should also
            pass is_causal=true; torch 1.13 has no is_causal, it ran with the mask alone)
    arg     query key value [key_padding_mask] [attn_mask] cotangent(attn_output)
            [cotangent(attn_weights), with need_weights] then the parameters in `str` order
    out     attn_output [attn_weights, with need_weights], then the gradients of
            loss = (attn_output * cot).sum() [+ (attn_weights * cot_w).sum()] with respect to
            query, key, value (three distinct leaves even where their values are equal) and each
            parameter in `str` order

  TransformerEncoderLayer (forward(src, src_mask, src_key_padding_mask)):
    iarg    d_model nhead dim_feedforward activation_gelu batch_first norm_first has_src_mask
            has_src_key_padding_mask
    sarg    layer_norm_eps
    arg     src [src_mask] [src_key_padding_mask] cotangent, then the parameters
    out     output, then the gradients of (output * cotangent).sum() for src and each parameter

  TransformerDecoderLayer (forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
  memory_key_padding_mask)):
    iarg    d_model nhead dim_feedforward activation_gelu batch_first norm_first has_tgt_mask
            has_memory_mask has_tgt_key_padding_mask has_memory_key_padding_mask
    sarg    layer_norm_eps
    arg     tgt memory [tgt_mask] [memory_mask] [tgt_key_padding_mask]
            [memory_key_padding_mask] cotangent, then the parameters
    out     output, then the gradients for tgt, memory and each parameter

  TransformerEncoder (TransformerEncoder(TransformerEncoderLayer(d_model, nhead,
  dim_feedforward, dropout=0, activation, layer_norm_eps, batch_first, norm_first), num_layers,
  norm=LayerNorm(d_model, eps=layer_norm_eps) if has_norm else None,
  enable_nested_tensor=False); forward(src, mask, src_key_padding_mask)):
    iarg    d_model nhead dim_feedforward activation_gelu batch_first norm_first num_layers
            has_norm has_mask has_src_key_padding_mask
    sarg    layer_norm_eps (of every LayerNorm, the final norm's included)
    arg     src [mask] [src_key_padding_mask] cotangent, then the parameters
    out     output, then the gradients for src and each parameter

  TransformerDecoder (the same construction with TransformerDecoderLayer; forward(tgt, memory,
  tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask)):
    iarg    d_model nhead dim_feedforward activation_gelu batch_first norm_first num_layers
            has_norm has_tgt_mask has_memory_mask has_tgt_key_padding_mask
            has_memory_key_padding_mask
    sarg    layer_norm_eps
    arg     tgt memory [tgt_mask] [memory_mask] [tgt_key_padding_mask]
            [memory_key_padding_mask] cotangent, then the parameters
    out     output, then the gradients for tgt, memory and each parameter

  Transformer (nn.Transformer(d_model, nhead, num_encoder_layers, num_decoder_layers,
  dim_feedforward, dropout=0, activation, layer_norm_eps=..., batch_first, norm_first); its
  encoder and decoder always end in a LayerNorm; forward(src, tgt, src_mask, tgt_mask,
  memory_mask, src_key_padding_mask, tgt_key_padding_mask, memory_key_padding_mask)):
    iarg    d_model nhead num_encoder_layers num_decoder_layers dim_feedforward activation_gelu
            batch_first norm_first has_src_mask has_tgt_mask has_memory_mask
            has_src_key_padding_mask has_tgt_key_padding_mask has_memory_key_padding_mask
    sarg    layer_norm_eps
    arg     src tgt [src_mask] [tgt_mask] [memory_mask] [src_key_padding_mask]
            [tgt_key_padding_mask] [memory_key_padding_mask] cotangent, then the parameters
    out     output, then the gradients for src, tgt and each parameter

  generate_square_subsequent_mask/<n>:
    iarg    n
    out     the float32 [n, n] mask: 0 on and below the diagonal, -inf above

Masks: a bool mask's True means "not allowed" (attn_mask) or "ignore this key"
(key_padding_mask); a floating mask has the case's dtype and is added to the attention scores
(it holds some -inf). Every query row keeps at least key 0, so no row is fully masked (torch 1.13
would give NaN). A floating key_padding_mask is only ever given without an attn_mask: torch 1.13
merges a float key_padding_mask with a bool attn_mask by logical_or (nonzero = masked) and
rejects it with a float attn_mask, where PyTorch 2.x adds both.

Parameters are set from the case's Rng: uniform(-0.5, 0.5), LayerNorm weights uniform(0.5, 1.5).
Every case exists in float64 and float32. Modules run in eval mode with dropout 0; the inputs
require grad, which keeps torch 1.13 off its fused inference fast paths.
"""

import torch
import torch.nn as nn

from .common import Family, Rng

DTYPES = [("float64", torch.float64), ("float32", torch.float32)]

# ---------------------------------------------------------------------------------------------
# MultiheadAttention

# (variant, constructor kwargs, call options). Call options: L, S, N (None: unbatched),
# need_weights, average_attn_weights, kpm ("bool"/"float"/None), mask ("bool2d", "float2d",
# "bool3d", "causal" or None), same (q, k and v hold the same values).
MHA = [
    ("basic", dict(embed_dim=8, num_heads=2), dict(L=3, S=3)),
    ("one_head", dict(embed_dim=4, num_heads=1), dict(L=2, S=3)),
    ("no_weights", dict(embed_dim=4, num_heads=2), dict(L=2, S=3, need_weights=False)),
    ("per_head_weights", dict(embed_dim=4, num_heads=2), dict(L=2, S=3, average=False)),
    ("batch_first", dict(embed_dim=4, num_heads=2, batch_first=True), dict(L=2, S=3)),
    ("no_bias", dict(embed_dim=4, num_heads=2, bias=False), dict(L=2, S=3)),
    ("add_bias_kv", dict(embed_dim=4, num_heads=2, add_bias_kv=True), dict(L=2, S=3)),
    ("add_zero_attn", dict(embed_dim=4, num_heads=2, add_zero_attn=True), dict(L=2, S=3)),
    ("kdim_vdim", dict(embed_dim=4, num_heads=2, kdim=3, vdim=5), dict(L=3, S=4)),
    ("kdim_vdim_bias_kv_zero_attn", dict(embed_dim=4, num_heads=2, kdim=3, vdim=5,
                                         add_bias_kv=True, add_zero_attn=True),
     dict(L=3, S=4, kpm="bool", mask="bool2d")),
    ("key_padding_mask_bool", dict(embed_dim=4, num_heads=2), dict(L=3, S=5, kpm="bool")),
    ("key_padding_mask_float", dict(embed_dim=4, num_heads=2), dict(L=3, S=5, kpm="float")),
    ("attn_mask_bool_2d", dict(embed_dim=4, num_heads=2), dict(L=3, S=4, mask="bool2d")),
    ("attn_mask_float_2d", dict(embed_dim=4, num_heads=2), dict(L=3, S=4, mask="float2d")),
    ("attn_mask_bool_3d", dict(embed_dim=4, num_heads=2), dict(L=3, S=4, mask="bool3d")),
    ("attn_mask_float_3d", dict(embed_dim=4, num_heads=2), dict(L=3, S=4, mask="float3d")),
    ("causal", dict(embed_dim=4, num_heads=2), dict(L=4, S=4, mask="causal")),
    ("causal_batch_first_self", dict(embed_dim=4, num_heads=2, batch_first=True),
     dict(L=4, S=4, mask="causal", same=True)),
    ("bias_kv_masks", dict(embed_dim=4, num_heads=2, add_bias_kv=True),
     dict(L=3, S=4, kpm="bool", mask="bool2d")),
    ("zero_attn_masks", dict(embed_dim=4, num_heads=2, add_zero_attn=True),
     dict(L=3, S=4, kpm="bool", mask="float2d")),
    ("weights_masks", dict(embed_dim=4, num_heads=2),
     dict(L=3, S=4, kpm="bool", mask="float2d", average=False)),
    ("unbatched", dict(embed_dim=4, num_heads=2), dict(L=3, S=4, N=None)),
    ("unbatched_masks", dict(embed_dim=4, num_heads=2),
     dict(L=3, S=5, N=None, kpm="bool", mask="bool3d", average=False)),
    ("unbatched_batch_first", dict(embed_dim=4, num_heads=2, batch_first=True),
     dict(L=3, S=4, N=None, mask="float2d")),
]


def _kwargs_text(kw):
    return ", ".join(f"{k}={v!r}" for k, v in kw.items())


def _bool_mask(rng, shape, p=0.4):
    """True = masked; the last dim's index 0 (key 0) is always allowed."""
    m = rng.bools(shape, p)
    m[..., 0] = False
    return m


def _float_mask(rng, shape, dtype):
    """Additive: uniform(-1, 1) with some -inf; key 0 always finite."""
    m = rng.uniform(shape, -1, 1, torch.float64)
    m = m.masked_fill(_bool_mask(rng, shape, 0.3), float("-inf"))
    return m.to(dtype)


def _mask(rng, kind, shape, dtype):
    return _bool_mask(rng, shape) if kind == "bool" else _float_mask(rng, shape, dtype)


def _causal_float(n, dtype):
    return nn.Transformer.generate_square_subsequent_mask(n).to(dtype)


def _set_params(module, rng, dtype):
    """Fills every parameter from rng (LayerNorm weights near 1); returns names and copies."""
    norm_weights = {id(m.weight) for m in module.modules() if isinstance(m, nn.LayerNorm)}
    names, params = [], []
    with torch.no_grad():
        for n, p in module.named_parameters():
            lo, hi = (0.5, 1.5) if id(p) in norm_weights else (-0.5, 0.5)
            p.copy_(rng.uniform(p.shape, lo, hi, dtype))
            names.append(n)
            params.append(p.detach().clone())
    return names, params


def _record(fam, name, call, module, leaves, extra_args, outs, rng, dtype, names, params,
            iargs, sargs=()):
    """Draws one cotangent per output, differentiates and writes the record."""
    outs = [o for o in outs if o is not None]
    cots = [rng.normal(o.shape, dtype) for o in outs]
    loss = sum((o * c).sum() for o, c in zip(outs, cots))
    grads = torch.autograd.grad(loss, leaves + list(module.parameters()))
    ev = {"res": [o.detach() for o in outs] + [g.detach() for g in grads]}
    args = [x.detach() for x in leaves] + extra_args + cots + params
    fam.case(name, call, args, ref="res", env=ev, iargs=iargs, sargs=sargs, strs=names)


def _mha_case(fam, name, kw, opt, dtype):
    rng = Rng(name)
    E, H = kw["embed_dim"], kw["num_heads"]
    L, S, N = opt["L"], opt["S"], opt.get("N", 2)
    need_weights = opt.get("need_weights", True)
    average = opt.get("average", True)
    batch_first = kw.get("batch_first", False)
    kdim, vdim = kw.get("kdim", E), kw.get("vdim", E)
    module = nn.MultiheadAttention(dropout=0.0, **kw).to(dtype).eval()
    names, params = _set_params(module, rng, dtype)

    def shape(seq, feat):
        if N is None:
            return [seq, feat]
        return [N, seq, feat] if batch_first else [seq, N, feat]

    q = rng.normal(shape(L, E), dtype)
    if opt.get("same"):
        k, v = q.clone(), q.clone()
    else:
        k = rng.normal(shape(S, kdim), dtype)
        v = rng.normal(shape(S, vdim), dtype)
    batch = [] if N is None else [N]
    kpm = None if opt.get("kpm") is None else _mask(rng, opt["kpm"], batch + [S], dtype)
    mask_kind = opt.get("mask")
    heads = [H] if N is None else [N * H]
    if mask_kind is None:
        mask = None
    elif mask_kind == "causal":
        assert L == S
        mask = torch.triu(torch.ones(L, L, dtype=torch.bool), 1)
    elif mask_kind.endswith("2d"):
        mask = _mask(rng, mask_kind[:-2], [L, S], dtype)
    else:
        mask = _mask(rng, mask_kind[:-2], heads + [L, S], dtype)
    leaves = [t.clone().requires_grad_(True) for t in (q, k, v)]
    out, w = module(*leaves, key_padding_mask=kpm, need_weights=need_weights, attn_mask=mask,
                    average_attn_weights=average)
    assert not out.isnan().any(), name
    iargs = [E, H, int(kw.get("bias", True)), int(kw.get("add_bias_kv", False)),
             int(kw.get("add_zero_attn", False)), kw.get("kdim", 0), kw.get("vdim", 0),
             int(batch_first), int(need_weights), int(average), int(kpm is not None),
             int(mask is not None), int(mask_kind == "causal")]
    extra = [m for m in (kpm, mask) if m is not None]
    mask_text = {None: "", "causal": ", attn_mask=triu(ones(L, L, bool), 1) (is_causal)"}.get(
        mask_kind, f", attn_mask={mask_kind}")
    call = (f"nn.MultiheadAttention({_kwargs_text(kw)}, dropout=0.0)(q{list(q.shape)}, "
            f"k{list(k.shape)}, v{list(v.shape)}"
            + (f", key_padding_mask={opt['kpm']}" if kpm is not None else "") + mask_text
            + f", need_weights={need_weights}, average_attn_weights={average})")
    _record(fam, name, call, module, leaves, extra, [out, w if need_weights else None], rng,
            dtype, names, params, iargs)


def _mha_cases(fam):
    for variant, kw, opt in MHA:
        for dname, dtype in DTYPES:
            _mha_case(fam, f"MultiheadAttention/{variant}_{dname}", kw, opt, dtype)


# ---------------------------------------------------------------------------------------------
# Transformer layers and stacks

# Layer config: d_model nhead dim_feedforward activation batch_first norm_first layer_norm_eps
BASE = dict(d_model=8, nhead=2, dim_feedforward=16, activation="relu", batch_first=False,
            norm_first=False, layer_norm_eps=1e-5)
SMALL = dict(BASE, d_model=4, dim_feedforward=8)


def _cfg(base, **kw):
    return dict(base, **kw)


def _layer_iargs(cfg):
    return [cfg["d_model"], cfg["nhead"], cfg["dim_feedforward"],
            int(cfg["activation"] == "gelu"), int(cfg["batch_first"]), int(cfg["norm_first"])]


def _layer_kwargs(cfg):
    return dict(d_model=cfg["d_model"], nhead=cfg["nhead"],
                dim_feedforward=cfg["dim_feedforward"], dropout=0.0,
                activation=cfg["activation"], layer_norm_eps=cfg["layer_norm_eps"],
                batch_first=cfg["batch_first"], norm_first=cfg["norm_first"])


def _seq(rng, cfg, seq, batch, dtype):
    if batch is None:
        return rng.normal([seq, cfg["d_model"]], dtype)
    return rng.normal([batch, seq, cfg["d_model"]] if cfg["batch_first"]
                      else [seq, batch, cfg["d_model"]], dtype)


def _masks(rng, specs, dtype):
    """specs: (label, kind, shape) with kind "causal" (float, square), "float" or "bool", or None
    for an absent mask. Returns the masks (None where absent) and the text for `call`."""
    masks, text = [], []
    for label, kind, shape in specs:
        if kind is None:
            masks.append(None)
            continue
        if kind == "causal":
            masks.append(_causal_float(shape[0], dtype))
        else:
            masks.append(_mask(rng, kind, shape, dtype))
        text.append(f"{label}={kind}{list(shape)}")
    return masks, "".join(", " + t for t in text)


# (variant, config, (S, N) with N None for unbatched, src_mask kind, src_key_padding_mask kind)
ENC_LAYERS = [
    ("post_norm_relu", BASE, (5, 2), None, None),
    ("norm_first_gelu", _cfg(BASE, norm_first=True, activation="gelu"), (5, 2), None, None),
    ("masks", BASE, (5, 2), "float", "bool"),
    ("batch_first", _cfg(SMALL, batch_first=True), (4, 2), None, None),
    ("layer_norm_eps", _cfg(SMALL, layer_norm_eps=1e-3), (4, 2), None, None),
    ("batch_first_norm_first_masks", _cfg(SMALL, norm_first=True, batch_first=True), (4, 2),
     "float", "bool"),
    ("unbatched", SMALL, (4, None), None, None),
]

# (variant, config, (T, S, N), tgt_mask, memory_mask, tgt_kpm, memory_kpm kinds)
DEC_LAYERS = [
    ("post_norm_relu_causal", SMALL, (4, 5, 2), "causal", None, None, None),
    ("norm_first_gelu_memory_kpm", _cfg(SMALL, norm_first=True, activation="gelu"),
     (4, 5, 2), None, None, None, "bool"),
    ("all_masks_batch_first", _cfg(SMALL, batch_first=True), (4, 5, 2), "causal", "float",
     "bool", "bool"),
]

# (variant, config, num_layers, has_norm, (S, N), mask, src_key_padding_mask kinds)
ENCODERS = [
    ("2layer_no_norm", SMALL, 2, False, (4, 2), None, None),
    ("2layer_norm_masks_norm_first_gelu", _cfg(SMALL, norm_first=True, activation="gelu"), 2,
     True, (5, 2), "float", "bool"),
]

# (variant, config, num_layers, has_norm, (T, S, N), tgt_mask, memory_mask, tgt_kpm, memory_kpm)
DECODERS = [
    ("2layer_norm_causal", SMALL, 2, True, (4, 5, 2), "causal", None, None, "bool"),
]

# (variant, config, num_encoder_layers, num_decoder_layers, (S, T, N), src_mask, tgt_mask,
#  memory_mask, src_kpm, tgt_kpm, memory_kpm)
TRANSFORMERS = [
    ("causal", BASE, 1, 1, (5, 4, 2), None, "causal", None, None, None, None),
    ("all_masks_batch_first_norm_first", _cfg(SMALL, batch_first=True, norm_first=True), 1, 1,
     (5, 4, 2), "float", "causal", "float", "bool", "bool", "bool"),
]


def _enc_case(fam, name, cfg, num_layers, has_norm, shape, mask_kind, kpm_kind, dtype):
    """num_layers None: a TransformerEncoderLayer record; else a TransformerEncoder one."""
    rng = Rng(name)
    S, N = shape
    layer = nn.TransformerEncoderLayer(**_layer_kwargs(cfg))
    if num_layers is None:
        module, what = layer, "nn.TransformerEncoderLayer"
    else:
        norm = nn.LayerNorm(cfg["d_model"], eps=cfg["layer_norm_eps"]) if has_norm else None
        module = nn.TransformerEncoder(layer, num_layers, norm=norm, enable_nested_tensor=False)
        what = (f"nn.TransformerEncoder(nn.TransformerEncoderLayer(...), {num_layers}, norm="
                f"{'LayerNorm' if has_norm else None}, enable_nested_tensor=False) with layer")
    module = module.to(dtype).eval()
    names, params = _set_params(module, rng, dtype)
    src = _seq(rng, cfg, S, N, dtype)
    (mask, kpm), mtext = _masks(rng, [("src_mask", mask_kind, [S, S]),
                                      ("src_key_padding_mask", kpm_kind,
                                       [S] if N is None else [N, S])], dtype)
    leaves = [src.clone().requires_grad_(True)]
    if num_layers is None:
        out = module(leaves[0], src_mask=mask, src_key_padding_mask=kpm)
    else:
        out = module(leaves[0], mask=mask, src_key_padding_mask=kpm)
    assert not out.isnan().any(), name
    iargs = _layer_iargs(cfg)
    if num_layers is not None:
        iargs += [num_layers, int(has_norm)]
    iargs += [int(mask is not None), int(kpm is not None)]
    call = f"{what}({_kwargs_text(_layer_kwargs(cfg))})(src{list(src.shape)}{mtext})"
    _record(fam, name, call, module, leaves, [m for m in (mask, kpm) if m is not None], [out],
            rng, dtype, names, params, iargs, [cfg["layer_norm_eps"]])


def _dec_case(fam, name, cfg, num_layers, has_norm, shape, kinds, dtype):
    """num_layers None: a TransformerDecoderLayer record; else a TransformerDecoder one."""
    rng = Rng(name)
    T, S, N = shape
    layer = nn.TransformerDecoderLayer(**_layer_kwargs(cfg))
    if num_layers is None:
        module, what = layer, "nn.TransformerDecoderLayer"
    else:
        norm = nn.LayerNorm(cfg["d_model"], eps=cfg["layer_norm_eps"]) if has_norm else None
        module = nn.TransformerDecoder(layer, num_layers, norm=norm)
        what = (f"nn.TransformerDecoder(nn.TransformerDecoderLayer(...), {num_layers}, norm="
                f"{'LayerNorm' if has_norm else None}) with layer")
    module = module.to(dtype).eval()
    names, params = _set_params(module, rng, dtype)
    tgt = _seq(rng, cfg, T, N, dtype)
    memory = _seq(rng, cfg, S, N, dtype)
    batch = [] if N is None else [N]
    masks, mtext = _masks(rng, [("tgt_mask", kinds[0], [T, T]),
                                ("memory_mask", kinds[1], [T, S]),
                                ("tgt_key_padding_mask", kinds[2], batch + [T]),
                                ("memory_key_padding_mask", kinds[3], batch + [S])], dtype)
    leaves = [tgt.clone().requires_grad_(True), memory.clone().requires_grad_(True)]
    out = module(*leaves, tgt_mask=masks[0], memory_mask=masks[1],
                 tgt_key_padding_mask=masks[2], memory_key_padding_mask=masks[3])
    assert not out.isnan().any(), name
    iargs = _layer_iargs(cfg)
    if num_layers is not None:
        iargs += [num_layers, int(has_norm)]
    iargs += [int(m is not None) for m in masks]
    call = (f"{what}({_kwargs_text(_layer_kwargs(cfg))})(tgt{list(tgt.shape)}, "
            f"memory{list(memory.shape)}{mtext})")
    _record(fam, name, call, module, leaves, [m for m in masks if m is not None], [out], rng,
            dtype, names, params, iargs, [cfg["layer_norm_eps"]])


def _transformer_case(fam, name, cfg, n_enc, n_dec, shape, kinds, dtype):
    rng = Rng(name)
    S, T, N = shape
    kw = dict(d_model=cfg["d_model"], nhead=cfg["nhead"], num_encoder_layers=n_enc,
              num_decoder_layers=n_dec, dim_feedforward=cfg["dim_feedforward"], dropout=0.0,
              activation=cfg["activation"], layer_norm_eps=cfg["layer_norm_eps"],
              batch_first=cfg["batch_first"], norm_first=cfg["norm_first"])
    module = nn.Transformer(**kw).to(dtype).eval()
    names, params = _set_params(module, rng, dtype)
    src = _seq(rng, cfg, S, N, dtype)
    tgt = _seq(rng, cfg, T, N, dtype)
    batch = [] if N is None else [N]
    masks, mtext = _masks(rng, [("src_mask", kinds[0], [S, S]),
                                ("tgt_mask", kinds[1], [T, T]),
                                ("memory_mask", kinds[2], [T, S]),
                                ("src_key_padding_mask", kinds[3], batch + [S]),
                                ("tgt_key_padding_mask", kinds[4], batch + [T]),
                                ("memory_key_padding_mask", kinds[5], batch + [S])], dtype)
    leaves = [src.clone().requires_grad_(True), tgt.clone().requires_grad_(True)]
    out = module(*leaves, src_mask=masks[0], tgt_mask=masks[1], memory_mask=masks[2],
                 src_key_padding_mask=masks[3], tgt_key_padding_mask=masks[4],
                 memory_key_padding_mask=masks[5])
    assert not out.isnan().any(), name
    iargs = [cfg["d_model"], cfg["nhead"], n_enc, n_dec, cfg["dim_feedforward"],
             int(cfg["activation"] == "gelu"), int(cfg["batch_first"]), int(cfg["norm_first"])]
    iargs += [int(m is not None) for m in masks]
    call = (f"nn.Transformer({_kwargs_text(kw)})(src{list(src.shape)}, "
            f"tgt{list(tgt.shape)}{mtext})")
    _record(fam, name, call, module, leaves, [m for m in masks if m is not None], [out], rng,
            dtype, names, params, iargs, [cfg["layer_norm_eps"]])


def _transformer_cases(fam):
    for variant, cfg, shape, mask, kpm in ENC_LAYERS:
        for dname, dtype in DTYPES:
            _enc_case(fam, f"TransformerEncoderLayer/{variant}_{dname}", cfg, None, False, shape,
                      mask, kpm, dtype)
    for variant, cfg, shape, *kinds in DEC_LAYERS:
        for dname, dtype in DTYPES:
            _dec_case(fam, f"TransformerDecoderLayer/{variant}_{dname}", cfg, None, False, shape,
                      kinds, dtype)
    for variant, cfg, layers, has_norm, shape, mask, kpm in ENCODERS:
        for dname, dtype in DTYPES:
            _enc_case(fam, f"TransformerEncoder/{variant}_{dname}", cfg, layers, has_norm, shape,
                      mask, kpm, dtype)
    for variant, cfg, layers, has_norm, shape, *kinds in DECODERS:
        for dname, dtype in DTYPES:
            _dec_case(fam, f"TransformerDecoder/{variant}_{dname}", cfg, layers, has_norm, shape,
                      kinds, dtype)
    for variant, cfg, n_enc, n_dec, shape, *kinds in TRANSFORMERS:
        for dname, dtype in DTYPES:
            _transformer_case(fam, f"Transformer/{variant}_{dname}", cfg, n_enc, n_dec, shape,
                              kinds, dtype)


def _mask_cases(fam):
    for n in (1, 4, 7):
        fam.case(f"generate_square_subsequent_mask/{n}",
                 "nn.Transformer.generate_square_subsequent_mask(i0)",
                 ref="torch.nn.Transformer.generate_square_subsequent_mask(i0)", iargs=[n])


def gen_nn_transformer():
    fam = Family("nn_transformer", ["MultiheadAttention and the Transformer modules of torch.nn; "
                                    "layout in tests/golden/gen/nn_transformer.py."])
    _mha_cases(fam)
    _transformer_cases(fam)
    _mask_cases(fam)
    return fam
