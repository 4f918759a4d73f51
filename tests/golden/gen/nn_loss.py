"""nn_loss.golden: the functional losses (torch.nn.functional.*_loss, cross_entropy, kl_div, ...).

Records are written by nn_common.grad_case (forward, and for float32/float64 the gradients w.r.t.
the args listed per op). Case names are <op>/<variant>_<reduction>_<dtype>. How a record maps
onto Ember's F::<op> (tests/nn/nn_ops_loss.cpp decodes it):
    q0                 the reduction: none / mean / sum (kl_div also batchmean)
    flag weight        an optional weight tensor follows the required args (then flag pos_weight:
                       pos_weight after it); without the flag the option is not given
    other flags        a bool option set to true: log_target, full, no_log_input (log_input
                       False), swap, zero_infinity; raw (ctc_loss: a0 is log_probs itself, not
                       logits passed through log_softmax(-1))
    sargs / iargs      the float / int options named in the call, in call order
cross_entropy with class-probability targets is filed as op `cross_entropy_probs` (the same
F.cross_entropy call), because its gradients are w.r.t. input and target, not input alone.
float16/bfloat16 cases are forward only; where torch 1.13's CPU lacks the kernel the reference
is computed in float32 and rounded (the record's comment says so). ctc_loss has no float16 or
bfloat16 cases: torch 1.13's CPU ctc_loss rejects them (as Ember does).
"""

import warnings

import torch

from .common import Family, Rng
from .nn_common import grad_case

F32, F64, F16, BF16 = torch.float32, torch.float64, torch.float16, torch.bfloat16
SHORT = {F32: "float32", F64: "float64", F16: "float16", BF16: "bfloat16"}
REDS = ("none", "mean", "sum")


def _cast(args, dt):
    return [a.to(dt) if a.is_floating_point() else a for a in args]


def sweep(fam, op, variant, call, make, grad_args=(0,), *, reds=REDS, dtypes=(F32, F64),
          low=("mean",), low_reds=None, sargs=(), iargs=(), flags=(), note=None,
          grad_dtypes=(F32, F64)):
    """One case per reduction x dtype. make(rng) gives the args (floats in float64, cast per
    dtype). Float32/float64 cases carry gradients w.r.t. grad_args; float16/bfloat16 ones (for the
    reductions in low_reds, default `low`) are forward only."""
    for red in reds:
        for dt in dtypes:
            name = f"{op}/{variant}_{red}_{SHORT[dt]}"
            args = _cast(make(Rng(name)), dt)
            ga = grad_args if dt in grad_dtypes else ()
            grad_case(fam, name, call, args, ga, sargs=sargs, iargs=iargs, strs=(red,),
                      flags=flags, note=note)
    for red in (low_reds if low_reds is not None else low):
        for dt in (F16, BF16):
            name = f"{op}/{variant}_{red}_{SHORT[dt]}"
            args = _cast(make(Rng(name)), dt)
            fam.case(name, call, args, sargs=sargs, iargs=iargs, strs=(red,), flags=flags,
                     note=note, optional=True)


def normal(r, *shape, scale=1.0):
    return r.normal(list(shape), F64) * scale


def pm1(r, *shape):
    """Targets in {-1, 1} as float64."""
    return torch.where(r.bools(list(shape)), 1.0, -1.0).to(F64)


def softmax(r, *shape, dim=-1):
    return torch.softmax(normal(r, *shape), dim=dim)


def gen_regression(fam):
    for op in ("l1_loss", "mse_loss"):
        call = f"F.{op}(a0, a1, reduction=q0)"
        sweep(fam, op, "basic", call, lambda r: [normal(r, 3, 4), normal(r, 3, 4)], (0, 1),
              low_reds=("mean", "none"))
        sweep(fam, op, "bcast", call, lambda r: [normal(r, 3, 4), normal(r, 4)], (0, 1),
              reds=("mean", "none"), dtypes=(F32,))
        r = Rng(f"{op}/transposed_none_float32")
        fam.case(f"{op}/transposed_none_float32", f"F.{op}(a0.mT, a1, reduction=q0)",
                 [normal(r, 4, 3).float(), normal(r, 3, 4).float()],
                 strs=("none",), flags=("transposed",))
        for red in REDS:
            fam.case(f"{op}/empty_{red}_float32", call, [torch.zeros(0, 4), torch.zeros(0, 4)],
                     strs=(red,))
    for op, opt, values in (("huber_loss", "delta", (1.0, 0.5, 2.0)),
                            ("smooth_l1_loss", "beta", (1.0, 0.5, 2.0, 0.0))):
        call = f"F.{op}(a0, a1, reduction=q0, {opt}=s0)"
        for v in values:
            tag = f"{opt}{str(v).replace('.', 'p')}"
            sweep(fam, op, tag, call, lambda r: [normal(r, 3, 5, scale=2), normal(r, 3, 5)],
                  (0, 1), sargs=(v,), reds=REDS if v == 1.0 else ("mean", "none"),
                  low=("mean",) if v == 1.0 else ())
        sweep(fam, op, "bcast", call, lambda r: [normal(r, 2, 3, 4), normal(r, 3, 1)], (0, 1),
              sargs=(1.0,), reds=("sum",), dtypes=(F32,), low=())

    # kl_div: input log-probabilities; target probabilities (or log-probabilities).
    kl = "F.kl_div(a0, a1, reduction=q0, log_target={})"
    sweep(fam, "kl_div", "probs", kl.format(False),
          lambda r: [torch.log_softmax(normal(r, 3, 4), -1), softmax(r, 3, 4)], (0, 1),
          reds=REDS + ("batchmean",), low_reds=("mean", "batchmean"))
    sweep(fam, "kl_div", "log_target", kl.format(True),
          lambda r: [torch.log_softmax(normal(r, 3, 4), -1),
                     torch.log_softmax(normal(r, 3, 4), -1)], (0, 1),
          reds=REDS + ("batchmean",), flags=("log_target",))
    sweep(fam, "kl_div", "zero_target", kl.format(False),
          lambda r: [torch.log_softmax(normal(r, 2, 4), -1),
                     torch.tensor([[0.0, 0.5, 0.5, 0.0], [1.0, 0.0, 0.0, 0.0]], dtype=F64)],
          (0, 1), reds=("sum", "none"), dtypes=(F32,), low=(), grad_dtypes=())
    sweep(fam, "kl_div", "scalar", kl.format(False),
          lambda r: [torch.tensor(-1.2, dtype=F64), torch.tensor(0.3, dtype=F64)], (0, 1),
          reds=("batchmean",), dtypes=(F64,), low=())

    # poisson_nll_loss: counts as targets; log_input=False takes a positive rate.
    pois = "F.poisson_nll_loss(a0, a1, log_input={}, full={}, eps=s0, reduction=q0)"
    counts = lambda r, *s: r.ints(list(s), 0, 6).to(F64)
    sweep(fam, "poisson_nll_loss", "log_input", pois.format(True, False),
          lambda r: [normal(r, 3, 4), counts(r, 3, 4)], (0, 1), sargs=(1e-8,),
          low_reds=("mean", "none"))
    sweep(fam, "poisson_nll_loss", "log_input_full", pois.format(True, True),
          lambda r: [normal(r, 3, 4), counts(r, 3, 4)], (0, 1), sargs=(1e-8,), flags=("full",),
          grad_dtypes=())
    sweep(fam, "poisson_nll_loss", "full_positive_target", pois.format(True, True),
          lambda r: [normal(r, 3, 4), r.uniform([3, 4], 0.2, 6, F64)], (0, 1), sargs=(1e-8,),
          reds=("sum",), flags=("full",), low=())
    sweep(fam, "poisson_nll_loss", "rate", pois.format(False, False),
          lambda r: [r.uniform([3, 4], 0.1, 3, F64), counts(r, 3, 4)], (0, 1), sargs=(1e-8,),
          flags=("no_log_input",))
    sweep(fam, "poisson_nll_loss", "rate_eps", pois.format(False, False),
          lambda r: [torch.cat([torch.zeros(1, 4, dtype=F64), r.uniform([2, 4], 0.1, 3, F64)]),
                     counts(r, 3, 4)], (0, 1), sargs=(0.5,), reds=("mean",),
          flags=("no_log_input",), low=())

    # gaussian_nll_loss: var of the input's shape, one per sample ([N, 1] or [N]), clamped.
    gauss = "F.gaussian_nll_loss(a0, a1, a2, full={}, eps=s0, reduction=q0)"
    var = lambda r, *s: r.uniform(list(s), 0.1, 2, F64)
    sweep(fam, "gaussian_nll_loss", "hetero", gauss.format(False),
          lambda r: [normal(r, 4, 3), normal(r, 4, 3), var(r, 4, 3)], (0, 1, 2), sargs=(1e-6,),
          low_reds=("mean", "none"))
    sweep(fam, "gaussian_nll_loss", "full", gauss.format(True),
          lambda r: [normal(r, 4, 3), normal(r, 4, 3), var(r, 4, 3)], (0, 1, 2), sargs=(1e-6,),
          reds=("mean",), flags=("full",), low=())
    sweep(fam, "gaussian_nll_loss", "var_n1", gauss.format(False),
          lambda r: [normal(r, 4, 3), normal(r, 4, 3), var(r, 4, 1)], (0, 1, 2), sargs=(1e-6,),
          reds=("mean", "none"), low=())
    sweep(fam, "gaussian_nll_loss", "var_n", gauss.format(False),
          lambda r: [normal(r, 4, 3), normal(r, 4, 3), var(r, 4)], (0, 1, 2), sargs=(1e-6,),
          reds=("sum", "none"), low=())
    sweep(fam, "gaussian_nll_loss", "var_clamped", gauss.format(False),
          lambda r: [normal(r, 2, 3), normal(r, 2, 3),
                     torch.tensor([[1e-4, 0.0, 0.5], [2.0, 0.01, 1e-3]], dtype=F64)], (0, 1, 2),
          sargs=(0.02,), reds=("none",), low=())
    sweep(fam, "gaussian_nll_loss", "target_bcast", gauss.format(False),
          lambda r: [normal(r, 4, 3), normal(r, 3), var(r, 4, 3)], (0, 1, 2), sargs=(1e-6,),
          reds=("mean",), dtypes=(F32,), low=())


def gen_classification(fam):
    # nll_loss on log-probabilities. i0 = ignore_index.
    nll = "F.nll_loss(a0, a1, weight={}, ignore_index=i0, reduction=q0)"
    logp = lambda r, *s: torch.log_softmax(normal(r, *s), 1 if len(s) > 1 else 0)
    w = lambda r, c: r.uniform([c], 0.2, 2, F64)

    def with_ignored(t, value, every=3):
        t = t.clone().reshape(-1)
        t[::every] = value
        return t

    nllw, nlln = nll.format("a2"), nll.format("None")
    sweep(fam, "nll_loss", "basic", nlln, lambda r: [logp(r, 4, 5), r.ints([4], 0, 4)],
          iargs=(-100,), low_reds=("mean", "none"))
    sweep(fam, "nll_loss", "weight", nllw,
          lambda r: [logp(r, 4, 5), r.ints([4], 0, 4), w(r, 5)], iargs=(-100,),
          flags=("weight",))
    sweep(fam, "nll_loss", "ignore", nllw,
          lambda r: [logp(r, 6, 5), with_ignored(r.ints([6], 0, 4), -100), w(r, 5)],
          iargs=(-100,), flags=("weight",))
    sweep(fam, "nll_loss", "ignore_class", nlln,
          lambda r: [logp(r, 6, 5), torch.tensor([2, 0, 2, 4, 1, 2])], iargs=(2,),
          reds=("mean", "none"))
    sweep(fam, "nll_loss", "kdim", nllw,
          lambda r: [logp(r, 2, 3, 4), with_ignored(r.ints([8], 0, 2), -100, 5).reshape(2, 4),
                     w(r, 3)], iargs=(-100,), flags=("weight",))
    sweep(fam, "nll_loss", "k2dim", nlln,
          lambda r: [logp(r, 2, 3, 2, 2), r.ints([2, 2, 2], 0, 2)], iargs=(-100,),
          reds=("mean", "none"))
    sweep(fam, "nll_loss", "unbatched", nllw,
          lambda r: [logp(r, 5), torch.tensor(3), w(r, 5)], iargs=(-100,), flags=("weight",),
          low=())
    name = "nll_loss/all_ignored_mean_float32"
    fam.case(name, nlln, [logp(Rng(name), 3, 4).float(), torch.full([3], -100)], iargs=(-100,),
             strs=("mean",))
    for red in REDS:
        fam.case(f"nll_loss/empty_{red}_float32", nlln,
                 [torch.zeros(0, 4), torch.zeros(0, dtype=torch.int64)], iargs=(-100,),
                 strs=(red,))

    # cross_entropy on logits: class indices (weight, ignore_index, label_smoothing, K-dim) and
    # class probabilities. s0 = label_smoothing.
    ce = "F.cross_entropy(a0, a1, weight={}, ignore_index=i0, reduction=q0, label_smoothing=s0)"
    cew, cen = ce.format("a2"), ce.format("None")
    logits = lambda r, *s: normal(r, *s, scale=2)
    sweep(fam, "cross_entropy", "basic", cen, lambda r: [logits(r, 4, 5), r.ints([4], 0, 4)],
          sargs=(0.0,), iargs=(-100,), low_reds=("mean", "none"))
    sweep(fam, "cross_entropy", "weight", cew,
          lambda r: [logits(r, 4, 5), r.ints([4], 0, 4), w(r, 5)], sargs=(0.0,), iargs=(-100,),
          flags=("weight",))
    sweep(fam, "cross_entropy", "ignore", cen,
          lambda r: [logits(r, 6, 5), with_ignored(r.ints([6], 0, 4), -100)], sargs=(0.0,),
          iargs=(-100,))
    sweep(fam, "cross_entropy", "ignore_class_weight", cew,
          lambda r: [logits(r, 6, 5), torch.tensor([1, 0, 1, 4, 3, 2]), w(r, 5)], sargs=(0.0,),
          iargs=(1,), reds=("mean", "none"), flags=("weight",))
    sweep(fam, "cross_entropy", "smooth", cen, lambda r: [logits(r, 4, 5), r.ints([4], 0, 4)],
          sargs=(0.1,), iargs=(-100,), low_reds=("mean",))
    sweep(fam, "cross_entropy", "smooth_weight_ignore", cew,
          lambda r: [logits(r, 6, 5), with_ignored(r.ints([6], 0, 4), -100), w(r, 5)],
          sargs=(0.25,), iargs=(-100,), flags=("weight",))
    sweep(fam, "cross_entropy", "smooth_ignore", cen,
          lambda r: [logits(r, 6, 5), with_ignored(r.ints([6], 0, 4), 3, 2)],
          sargs=(0.3,), iargs=(3,), reds=("mean", "none"))
    sweep(fam, "cross_entropy", "kdim", cew,
          lambda r: [logits(r, 2, 3, 4), with_ignored(r.ints([8], 0, 2), -100, 5).reshape(2, 4),
                     w(r, 3)], sargs=(0.0,), iargs=(-100,), flags=("weight",))
    sweep(fam, "cross_entropy", "k2dim_smooth", cen,
          lambda r: [logits(r, 2, 3, 2, 2), r.ints([2, 2, 2], 0, 2)], sargs=(0.2,),
          iargs=(-100,), reds=("mean", "none"))
    sweep(fam, "cross_entropy", "unbatched", cen, lambda r: [logits(r, 5), torch.tensor(2)],
          sargs=(0.0,), iargs=(-100,), reds=("mean", "none"), low=())
    sweep(fam, "cross_entropy_probs", "basic", cen, lambda r: [logits(r, 4, 5), softmax(r, 4, 5)],
          (0, 1), sargs=(0.0,), iargs=(-100,), low_reds=("mean", "none"))
    sweep(fam, "cross_entropy_probs", "weight_smooth", cew,
          lambda r: [logits(r, 4, 5), softmax(r, 4, 5), w(r, 5)], (0, 1), sargs=(0.15,),
          iargs=(-100,), flags=("weight",))
    sweep(fam, "cross_entropy_probs", "kdim", cen,
          lambda r: [logits(r, 2, 3, 4), softmax(r, 2, 3, 4, dim=1)], (0, 1), sargs=(0.0,),
          iargs=(-100,), reds=("mean", "none"))
    sweep(fam, "cross_entropy_probs", "unbatched", cew,
          lambda r: [logits(r, 5), softmax(r, 5), w(r, 5)], (0, 1), sargs=(0.0,),
          iargs=(-100,), reds=("mean", "none"), flags=("weight",), low=())
    name = "cross_entropy/all_ignored_mean_float32"
    fam.case(name, cen, [logits(Rng(name), 3, 4).float(), torch.full([3], -100)], sargs=(0.0,),
             iargs=(-100,), strs=("mean",))
    name = "cross_entropy/transposed_none_float32"
    fam.case(name, "F.cross_entropy(a0.mT, a1, weight=None, ignore_index=i0, reduction=q0, "
             "label_smoothing=s0)", [logits(Rng(name), 5, 4).float(), torch.tensor([0, 3, 1, 4])],
             sargs=(0.0,), iargs=(-100,), strs=("none",), flags=("transposed",))
    for red in REDS:
        fam.case(f"cross_entropy/empty_{red}_float32", cen,
                 [torch.zeros(0, 4), torch.zeros(0, dtype=torch.int64)], sargs=(0.0,),
                 iargs=(-100,), strs=(red,))

    # binary_cross_entropy on probabilities; weight broadcast to the target's shape.
    bce = "F.binary_cross_entropy(a0, a1, weight={}, reduction=q0)"
    probs = lambda r, *s: r.uniform(list(s), 0.05, 0.95, F64)
    sweep(fam, "binary_cross_entropy", "basic", bce.format("None"),
          lambda r: [probs(r, 3, 4), r.uniform([3, 4], 0, 1, F64)], (0, 1),
          low_reds=("mean", "none"))
    sweep(fam, "binary_cross_entropy", "weight", bce.format("a2"),
          lambda r: [probs(r, 3, 4), r.ints([3, 4], 0, 1).to(F64), r.uniform([4], 0.2, 2, F64)],
          (0, 1), flags=("weight",))
    sweep(fam, "binary_cross_entropy", "edges", bce.format("None"),
          lambda r: [torch.tensor([0.0, 1.0, 0.0, 1.0, 1e-30, 0.5], dtype=F64),
                     torch.tensor([0.0, 1.0, 1.0, 0.0, 0.3, 0.5], dtype=F64)], (0, 1),
          reds=("none",), dtypes=(F64,), low=())

    # binary_cross_entropy_with_logits; weight and pos_weight broadcast (pos_weight per class).
    bcel = "F.binary_cross_entropy_with_logits(a0, a1, weight={}, reduction=q0, pos_weight={})"
    sweep(fam, "binary_cross_entropy_with_logits", "basic", bcel.format("None", "None"),
          lambda r: [normal(r, 3, 4, scale=3), r.uniform([3, 4], 0, 1, F64)], (0, 1),
          low_reds=("mean", "none"))
    sweep(fam, "binary_cross_entropy_with_logits", "weight_pos_weight", bcel.format("a2", "a3"),
          lambda r: [normal(r, 3, 4, scale=3), r.uniform([3, 4], 0, 1, F64),
                     r.uniform([3, 1], 0.2, 2, F64), r.uniform([4], 0.5, 3, F64)], (0, 1),
          flags=("weight", "pos_weight"))
    sweep(fam, "binary_cross_entropy_with_logits", "pos_weight", bcel.format("None", "a2"),
          lambda r: [normal(r, 3, 4, scale=3), r.ints([3, 4], 0, 1).to(F64),
                     r.uniform([4], 0.5, 3, F64)], (0, 1), reds=("mean",),
          flags=("pos_weight",))
    sweep(fam, "binary_cross_entropy_with_logits", "large", bcel.format("None", "None"),
          lambda r: [torch.tensor([-200.0, -50.0, 0.0, 50.0, 200.0], dtype=F64),
                     torch.tensor([1.0, 0.0, 0.5, 1.0, 0.0], dtype=F64)], (0, 1),
          reds=("none",), low=())


def gen_margin(fam):
    sweep(fam, "soft_margin_loss", "basic", "F.soft_margin_loss(a0, a1, reduction=q0)",
          lambda r: [normal(r, 3, 4, scale=2), pm1(r, 3, 4)], low_reds=("mean", "none"))

    mlsm = "F.multilabel_soft_margin_loss(a0, a1, weight={}, reduction=q0)"
    sweep(fam, "multilabel_soft_margin_loss", "basic", mlsm.format("None"),
          lambda r: [normal(r, 3, 5, scale=2), r.ints([3, 5], 0, 1).to(F64)], (0, 1),
          low_reds=("mean", "none"))
    sweep(fam, "multilabel_soft_margin_loss", "weight", mlsm.format("a2"),
          lambda r: [normal(r, 3, 5, scale=2), r.uniform([3, 5], 0, 1, F64),
                     r.uniform([5], 0.2, 2, F64)], (0, 1), flags=("weight",))
    sweep(fam, "multilabel_soft_margin_loss", "unbatched", mlsm.format("None"),
          lambda r: [normal(r, 5), r.ints([5], 0, 1).to(F64)], (0, 1), reds=("mean", "none"),
          low=())

    mm = "F.multi_margin_loss(a0, a1, p=i0, margin=s0, weight={}, reduction=q0)"
    for p in (1, 2):
        for margin in (1.0, 0.5):
            tag = f"p{p}_margin{str(margin).replace('.', 'p')}"
            sweep(fam, "multi_margin_loss", tag, mm.format("None"),
                  lambda r: [normal(r, 4, 5), r.ints([4], 0, 4)], sargs=(margin,), iargs=(p,),
                  reds=REDS if margin == 1.0 else ("mean",), low=("mean",) if p == 1 else ())
        sweep(fam, "multi_margin_loss", f"p{p}_weight", mm.format("a2"),
              lambda r: [normal(r, 4, 5), r.ints([4], 0, 4), r.uniform([5], 0.2, 2, F64)],
              sargs=(1.0,), iargs=(p,), flags=("weight",), reds=("mean", "none"), low=())
    sweep(fam, "multi_margin_loss", "unbatched", mm.format("None"),
          lambda r: [normal(r, 5), torch.tensor(1)], sargs=(1.0,), iargs=(1,),
          reds=("mean", "none"), low=())

    sweep(fam, "multilabel_margin_loss", "basic", "F.multilabel_margin_loss(a0, a1, reduction=q0)",
          lambda r: [normal(r, 4, 5),
                     torch.tensor([[3, 0, -1, 1, 4], [0, 1, 2, 3, 4], [-1, 2, 2, 2, 2],
                                   [4, 4, -1, 0, 0]])], low_reds=("mean", "none"))
    sweep(fam, "multilabel_margin_loss", "unbatched",
          "F.multilabel_margin_loss(a0, a1, reduction=q0)",
          lambda r: [normal(r, 5), torch.tensor([2, 1, -1, 3, 0])], reds=("mean", "none"),
          low=())

    mr = "F.margin_ranking_loss(a0, a1, a2, margin=s0, reduction=q0)"
    for margin in (0.0, 0.5):
        sweep(fam, "margin_ranking_loss", f"margin{str(margin).replace('.', 'p')}", mr,
              lambda r: [normal(r, 6), normal(r, 6), pm1(r, 6)], (0, 1, 2), sargs=(margin,),
              reds=REDS if margin == 0.0 else ("mean",), low=("mean",) if margin == 0 else ())
    sweep(fam, "margin_ranking_loss", "bcast", mr,
          lambda r: [normal(r, 3, 4), normal(r, 1, 4), pm1(r, 3, 1)], (0, 1, 2), sargs=(0.2,),
          reds=("none",), dtypes=(F32,), low=())

    he = "F.hinge_embedding_loss(a0, a1, margin=s0, reduction=q0)"
    for margin in (1.0, 0.5):
        sweep(fam, "hinge_embedding_loss", f"margin{str(margin).replace('.', 'p')}", he,
              lambda r: [normal(r, 3, 4), pm1(r, 3, 4)], sargs=(margin,),
              reds=REDS if margin == 1.0 else ("mean",), low=("mean",) if margin == 1 else ())
    sweep(fam, "hinge_embedding_loss", "other_targets", he,
          lambda r: [normal(r, 5), torch.tensor([1.0, -1.0, 0.0, 2.0, -1.0], dtype=F64)],
          sargs=(1.0,), reds=("none",), dtypes=(F32,), low=())

    ce = "F.cosine_embedding_loss(a0, a1, a2, margin=s0, reduction=q0)"
    for margin in (0.0, 0.3):
        sweep(fam, "cosine_embedding_loss", f"margin{str(margin).replace('.', 'p')}", ce,
              lambda r: [normal(r, 4, 6), normal(r, 4, 6), pm1(r, 4)], (0, 1), sargs=(margin,),
              reds=REDS if margin == 0.0 else ("mean",), low=("mean",) if margin == 0 else ())
    sweep(fam, "cosine_embedding_loss", "unbatched", ce,
          lambda r: [normal(r, 6), normal(r, 6), torch.tensor(-1.0, dtype=F64)], (0, 1),
          sargs=(-0.5,), reds=("none",), low=())
    sweep(fam, "cosine_embedding_loss", "zero_vector", ce,
          lambda r: [torch.zeros(2, 3, dtype=F64), normal(r, 2, 3), torch.tensor([1.0, -1.0])],
          (), sargs=(0.0,), reds=("none",), dtypes=(F32,), low=())

    tm = "F.triplet_margin_loss(a0, a1, a2, margin=s0, p=s1, eps=s2, swap={}, reduction=q0)"
    trip = lambda r: [normal(r, 4, 6), normal(r, 4, 6), normal(r, 4, 6)]
    sweep(fam, "triplet_margin_loss", "p2", tm.format(False), trip, (0, 1, 2),
          sargs=(1.0, 2.0, 1e-6), low_reds=("mean", "none"))
    sweep(fam, "triplet_margin_loss", "p1_margin2", tm.format(False), trip, (0, 1, 2),
          sargs=(2.0, 1.0, 1e-6), reds=("mean", "none"), low=())
    sweep(fam, "triplet_margin_loss", "p3_eps", tm.format(False), trip, (0, 1, 2),
          sargs=(1.5, 3.0, 0.1), reds=("mean",), low=())
    sweep(fam, "triplet_margin_loss", "swap", tm.format(True), trip, (0, 1, 2),
          sargs=(3.0, 2.0, 1e-6), reds=("mean", "none"), flags=("swap",), low=())
    sweep(fam, "triplet_margin_loss", "unbatched", tm.format(False),
          lambda r: [normal(r, 6), normal(r, 6), normal(r, 6)], (0, 1, 2),
          sargs=(4.0, 2.0, 1e-6), reds=("none",), low=())

    twd = "F.triplet_margin_with_distance_loss(a0, a1, a2, margin=s0, swap={}, reduction=q0)"
    sweep(fam, "triplet_margin_with_distance_loss", "default", twd.format(False), trip,
          (0, 1, 2), sargs=(1.0,), low=("mean",))
    sweep(fam, "triplet_margin_with_distance_loss", "swap", twd.format(True), trip, (0, 1, 2),
          sargs=(3.0,), reds=("mean",), flags=("swap",), low=())


def gen_ctc(fam):
    # ctc_loss(log_softmax(a0), targets a1, input_lengths a2, target_lengths a3, blank=i0).
    # Gradients are w.r.t. the logits a0, so they are true gradients (PyTorch's own formula
    # assumes normalised log_probs); `raw` cases pass a0 as log_probs and keep PyTorch's formula.
    def call(zero_inf, raw=False):
        lp = "a0" if raw else "a0.log_softmax(-1)"
        return f"F.ctc_loss({lp}, a1, a2, a3, blank=i0, reduction=q0, zero_infinity={zero_inf})"

    T, N, C = 6, 3, 5
    lens = lambda *v: torch.tensor(v, dtype=torch.int64)
    padded = lambda r: [normal(r, T, N, C), torch.tensor([[1, 2, 2, 3], [4, 1, 0, 0],
                                                          [3, 3, 1, 2]]),
                        lens(6, 5, 6), lens(4, 2, 3)]
    sweep(fam, "ctc_loss", "padded", call(False), padded, (0,), iargs=(0,), low=())
    sweep(fam, "ctc_loss", "concat", call(False),
          lambda r: [normal(r, T, N, C), torch.tensor([1, 2, 2, 4, 1, 3, 3, 1]), lens(6, 4, 6),
                     lens(3, 2, 3)], (0,), iargs=(0,), low=())
    sweep(fam, "ctc_loss", "blank_last_int32", call(False),
          lambda r: [normal(r, T, N, C), torch.tensor([[0, 1, 1], [3, 2, 0], [2, 2, 2]],
                                                      dtype=torch.int32),
                     lens(6, 6, 6).int(), lens(3, 2, 1).int()], (0,), iargs=(4,),
          reds=("mean", "none"), low=())
    sweep(fam, "ctc_loss", "empty_target", call(False),
          lambda r: [normal(r, T, 2, C), torch.tensor([[1, 2], [0, 0]]), lens(6, 4),
                     lens(2, 0)], (0,), iargs=(0,), reds=("sum", "none"), low=())
    # [1, 1, 1] needs 5 frames (blanks between repeats); 4 frames cannot align: inf (nan grads)
    impossible = lambda r: [normal(r, T, 2, C), torch.tensor([[1, 1, 1], [2, 3, 0]]),
                            lens(4, 6), lens(3, 2)]
    sweep(fam, "ctc_loss", "impossible", call(False), impossible, (0,), iargs=(0,),
          reds=("none",), low=())
    sweep(fam, "ctc_loss", "zero_infinity", call(True), impossible, (0,), iargs=(0,),
          flags=("zero_infinity",), low=())
    sweep(fam, "ctc_loss", "unbatched", call(False),
          lambda r: [normal(r, T, C), torch.tensor([1, 3, 3]), torch.tensor(6), torch.tensor(3)],
          (0,), iargs=(0,), reds=("mean", "none"), low=())
    sweep(fam, "ctc_loss", "raw", call(False, raw=True),
          lambda r: [torch.log_softmax(normal(r, T, N, C), -1), torch.tensor([[1, 2, 2, 3],
                                                                            [4, 1, 0, 0],
                                                                            [3, 3, 1, 2]]),
                     lens(6, 5, 6), lens(4, 2, 3)], (0,), iargs=(0,), reds=("sum", "none"),
          flags=("raw",), low=())


def gen_nn_loss():
    fam = Family("nn_loss", ["Functional losses; layout and flags: tests/golden/gen/nn_loss.py."])
    # PyTorch warns on broadcast targets and kl_div's 'mean'; both are cases here on purpose.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        gen_regression(fam)
        gen_classification(fam)
        gen_margin(fam)
        gen_ctc(fam)
    return fam
