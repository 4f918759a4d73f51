"""nn_prune.golden: torch.nn.utils.prune run by PyTorch on small models, so Ember's masks (ties
included), pruned outputs, gradients and state_dicts can be checked to equal Python's. Only the
deterministic methods are here (the random ones draw from torch's generator); Ember's tests check
their counts.

Record layout (tests/nn/nn_utils_prune_golden_test.cpp reads it). Everything is float32.

    case prune/<variant>
    str  <model>          mlp: Sequential(Linear(6, 5), ReLU(), Linear(5, 4)), input [3, 6]
                          conv: Sequential(Conv2d(3, 4, 3), ReLU(), Flatten(), Linear(16, 3)),
                          input [2, 3, 4, 4]
    str  <step> ...       the pruning calls, in order, one per line, words joined by commas
                          (tensor = "<module>.<name>"):
                            l1 <tensor> <amount> [@k]        l1_unstructured (@k: importance
                                                             scores = arg k)
                            ln <tensor> <amount> <n> <dim>   ln_structured
                            identity <tensor>
                            custom <tensor> @k               custom_from_mask(mask = arg k)
                            global <amount> <tensor> ...     global_unstructured, L1Unstructured
                            remove <tensor>
                          an amount with a '.' is a fraction, else a count
    str  --
    str  <key> ...        the state_dict keys after the steps, in Python's order
    arg  the model's parameters before pruning (named_parameters order), then x, then the
         tensors the steps name by @k (k counts from the first arg)
    out  y = model(x) after the steps, the gradients of sum(y ** 2) with respect to the model's
         named_parameters() after the steps (in that order), then the state_dict values
"""

import math

import torch
import torch.nn as nn
from torch.nn.utils import prune

from .common import Family, Rng, fmt_tensor


def build(model):
    if model == "mlp":
        return nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 4)), (3, 6)
    return nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(16, 3)), (2, 3, 4, 4)


def amount(text):
    return float(text) if "." in text else int(text)


def norm(text):
    return {"inf": math.inf, "-inf": -math.inf}.get(text) or float(text)


def run_steps(m, steps, args):
    def target(path):
        mod, name = path.rsplit(".", 1)
        return m.get_submodule(mod), name

    for step in steps:
        w = step.split()
        if w[0] == "l1":
            scores = args[int(w[3][1:])] if len(w) > 3 else None
            prune.l1_unstructured(*target(w[1]), amount(w[2]), importance_scores=scores)
        elif w[0] == "ln":
            prune.ln_structured(*target(w[1]), amount(w[2]), norm(w[3]), int(w[4]))
        elif w[0] == "identity":
            prune.identity(*target(w[1]))
        elif w[0] == "custom":
            prune.custom_from_mask(*target(w[1]), args[int(w[2][1:])])
        elif w[0] == "global":
            prune.global_unstructured([target(p) for p in w[2:]], prune.L1Unstructured,
                                      amount=amount(w[1]))
        elif w[0] == "remove":
            prune.remove(*target(w[1]))
        else:
            raise ValueError(step)


def gen_case(fam, variant, model, steps, extra=lambda rng, params: [], tie_weights=False):
    name = f"prune/{variant}"
    rng = Rng(name)
    m, xshape = build(model)
    params = []
    with torch.no_grad():
        for p in m.parameters():
            if tie_weights:  # small integers: many equal magnitudes, so ties decide the mask
                v = rng.ints(tuple(p.shape), -3, 3).float()
            else:
                v = rng.normal(tuple(p.shape))
            p.copy_(v)
            params.append(v)
    x = rng.normal(xshape)
    args = params + [x] + extra(rng, params)
    run_steps(m, steps, args)
    y = m(x)
    grads = torch.autograd.grad((y ** 2).sum(), list(m.parameters()))
    sd = m.state_dict()
    assert name not in fam.names, name
    fam.names.add(name)
    fam.count += 1
    fam.lines += [f"case {name}", f"call {model}: " + "; ".join(steps)]
    fam.lines += [f"str {model}"] + [f"str {s.replace(' ', ',')}" for s in steps] + ["str --"]
    fam.lines += [f"str {k}" for k in sd.keys()]
    fam.lines += [f"arg {fmt_tensor(a)}" for a in args]
    fam.lines += [f"out {fmt_tensor(o)}" for o in [y.detach(), *grads, *sd.values()]]
    fam.lines.append("end")


def gen_nn_prune():
    fam = Family("nn_prune", ["torch.nn.utils.prune on small models; layout: "
                              "tests/golden/gen/nn_prune.py"])
    gen_case(fam, "l1_fraction", "mlp", ["l1 0.weight 0.3"])
    gen_case(fam, "l1_count", "mlp", ["l1 0.weight 7", "l1 2.bias 2"])
    # round(0.125 * 20 = 2.5) = 2 and round(0.375 * 4 = 1.5) = 2: halves go to even.
    gen_case(fam, "l1_half_to_even", "mlp", ["l1 2.weight 0.125", "l1 2.bias 0.375"])
    gen_case(fam, "l1_ties", "mlp", ["l1 0.weight 0.4", "l1 2.weight 9"], tie_weights=True)
    gen_case(fam, "l1_importance", "mlp", ["l1 0.weight 0.5 @5"],
             extra=lambda rng, params: [rng.normal((5, 6))])
    gen_case(fam, "ln_rows_l2", "conv", ["ln 0.weight 0.5 2 0"])
    gen_case(fam, "ln_in_channels_l1", "conv", ["ln 0.weight 1 1 1"])
    gen_case(fam, "ln_last_inf", "conv", ["ln 0.weight 0.34 inf -1"])
    gen_case(fam, "ln_ninf", "mlp", ["ln 0.weight 2 -inf 1"])
    gen_case(fam, "ln_ties", "mlp", ["ln 0.weight 2 1 0"], tie_weights=True)
    gen_case(fam, "identity", "mlp", ["identity 0.bias", "identity 2.weight"])
    gen_case(fam, "custom", "conv", ["custom 3.weight @5"],
             extra=lambda rng, params: [rng.bools((3, 16)).float()])
    gen_case(fam, "iterative", "mlp",
             ["l1 0.weight 0.3", "ln 0.weight 2 2 0", "l1 0.weight 0.25", "ln 0.weight 1 1 1"])
    gen_case(fam, "iterative_conv", "conv",
             ["ln 0.weight 1 2 0", "l1 0.weight 0.5", "ln 0.weight 0.5 1 1", "l1 3.weight 5"])
    gen_case(fam, "global", "conv", ["global 0.35 0.weight 3.weight 3.bias"])
    gen_case(fam, "global_after_l1", "mlp",
             ["l1 0.weight 0.5", "global 20 0.weight 2.weight", "l1 2.weight 3"])
    gen_case(fam, "remove", "mlp", ["l1 0.weight 0.3", "ln 0.weight 1 2 0", "remove 0.weight",
                                    "l1 2.weight 0.5"])
    gen_case(fam, "remove_all", "conv", ["ln 0.weight 2 2 0", "global 0.5 0.weight 3.weight",
                                         "remove 0.weight", "remove 3.weight"])
    return fam
