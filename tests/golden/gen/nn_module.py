"""nn_module.golden: the state_dict keys, named_parameters() and named_buffers() of a set of
architectures built from torch.nn modules, so Ember's module tree can be checked to give the same
dotted names, in the same order, with the same shapes and dtypes (checkpoints move between the
two). No tensor values are stored: initialisation is random and tested elsewhere.

Record layout (tests/nn/state_dict_keys_test.cpp builds the same architectures and reads this):

    case <what>/<arch>     what: state_dict | named_parameters | named_buffers
    call <text>            the Python that built the architecture, for messages
    str <key>              one per entry, in Python's order (dotted names have no spaces)
    arg int64 1 <ndim> <size_0> ... <size_ndim-1>
                           one per entry, in the same order: the entry's shape as a 1-D int64
                           tensor (a 0-dim entry is the empty `int64 1 0`)
    out <dtype> 1 0        one per entry, in the same order: an empty tensor of the entry's dtype
    end

An architecture with no entries of a kind writes a record with no str/arg/out lines (it asserts
that Ember has none either). torch 1.13 has no nn.RMSNorm: its records are written by hand from
recent PyTorch's definition (one parameter "weight" of shape normalized_shape, registered as None
without elementwise_affine); where torch has it, the generator checks the hand-written keys.
"""

from collections import OrderedDict

import torch
import torch.nn as nn

from .common import DTYPE_NAMES, Family, fmt_tensor


class Custom(nn.Module):
    """Embedding + LayerNorm + ModuleList of Linear + ModuleDict of heads + ParameterList +
    ParameterDict, with a persistent int64 buffer, a non-persistent buffer and a parameter of its
    own registered after the submodules (state_dict lists a module's own entries first)."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 6, padding_idx=0)
        self.norm = nn.LayerNorm(6)
        self.layers = nn.ModuleList([nn.Linear(6, 6), nn.Linear(6, 6, bias=False)])
        self.heads = nn.ModuleDict(OrderedDict([("reg", nn.Linear(6, 1)),
                                                ("cls", nn.Linear(6, 3))]))
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(6)),
                                        nn.Parameter(torch.zeros(2, 3))])
        self.extras = nn.ParameterDict(OrderedDict([("z", nn.Parameter(torch.ones(1))),
                                                    ("a", nn.Parameter(torch.ones(2)))]))
        self.register_buffer("step", torch.zeros((), dtype=torch.int64))
        self.register_buffer("cache", torch.zeros(4), persistent=False)
        self.temperature = nn.Parameter(torch.ones(1))


class WithLoss(nn.Module):
    """A model that keeps its weighted criterion as a submodule."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 5)
        self.criterion = nn.CrossEntropyLoss(weight=torch.ones(5))


def build_shared():
    lin = nn.Linear(3, 3)
    return nn.Sequential(lin, nn.ReLU(), lin)


# (arch name, Python source for the record's call line, builder). The C++ test has one builder
# per name; a name on one side only fails the test.
ARCHS = [
    ("mlp", "nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.1), nn.Linear(8, 2))",
     lambda: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.1), nn.Linear(8, 2))),
    ("nested",
     "nn.Sequential(nn.Sequential(nn.Linear(3, 4), nn.ReLU()), nn.Sequential(OrderedDict(fc="
     "nn.Linear(4, 5), norm=nn.LayerNorm(5), drop=nn.Dropout2d())), nn.Linear(5, 1, bias=False))",
     lambda: nn.Sequential(
         nn.Sequential(nn.Linear(3, 4), nn.ReLU()),
         nn.Sequential(OrderedDict([("fc", nn.Linear(4, 5)), ("norm", nn.LayerNorm(5)),
                                    ("drop", nn.Dropout2d())])),
         nn.Linear(5, 1, bias=False))),
    ("custom", "Custom() (see gen/nn_module.py)", Custom),
    ("shared", "lin = nn.Linear(3, 3); nn.Sequential(lin, nn.ReLU(), lin)", build_shared),
    ("layer_norm_no_affine", "nn.Sequential(nn.Linear(2, 3), nn.LayerNorm([3], "
     "elementwise_affine=False))",
     lambda: nn.Sequential(nn.Linear(2, 3), nn.LayerNorm([3], elementwise_affine=False))),
    ("embedding_bag", "nn.EmbeddingBag(10, 3, mode='sum', padding_idx=2)",
     lambda: nn.EmbeddingBag(10, 3, mode="sum", padding_idx=2)),
    ("embedding_pretrained", "nn.Embedding.from_pretrained(torch.zeros(7, 2))",
     lambda: nn.Embedding.from_pretrained(torch.zeros(7, 2))),
    ("cross_entropy_weight", "nn.CrossEntropyLoss(weight=torch.ones(5))",
     lambda: nn.CrossEntropyLoss(weight=torch.ones(5))),
    ("cross_entropy_plain", "nn.CrossEntropyLoss()", lambda: nn.CrossEntropyLoss()),
    ("bce_with_logits_pos_weight", "nn.BCEWithLogitsLoss(pos_weight=torch.ones(3))",
     lambda: nn.BCEWithLogitsLoss(pos_weight=torch.ones(3))),
    ("bce_with_logits_both",
     "nn.BCEWithLogitsLoss(weight=torch.ones(2, 3), pos_weight=torch.ones(3))",
     lambda: nn.BCEWithLogitsLoss(weight=torch.ones(2, 3), pos_weight=torch.ones(3))),
    ("weighted_losses",
     "nn.ModuleDict(OrderedDict(nll=nn.NLLLoss(weight=torch.ones(4)), bce=nn.BCELoss(weight="
     "torch.ones(4)), mlsm=nn.MultiLabelSoftMarginLoss(weight=torch.ones(4)), mm=nn.MultiMarginLoss"
     "(weight=torch.ones(4)), l1=nn.L1Loss()))",
     lambda: nn.ModuleDict(OrderedDict([
         ("nll", nn.NLLLoss(weight=torch.ones(4))), ("bce", nn.BCELoss(weight=torch.ones(4))),
         ("mlsm", nn.MultiLabelSoftMarginLoss(weight=torch.ones(4))),
         ("mm", nn.MultiMarginLoss(weight=torch.ones(4))), ("l1", nn.L1Loss())]))),
    ("with_loss", "WithLoss() (see gen/nn_module.py)", WithLoss),
    ("bilinear", "nn.Bilinear(3, 4, 5)", lambda: nn.Bilinear(3, 4, 5)),
    ("prelu", "nn.Sequential(nn.Linear(4, 4), nn.PReLU(4))",
     lambda: nn.Sequential(nn.Linear(4, 4), nn.PReLU(4))),
]

# RMSNorm architectures, written by hand (torch 1.13 lacks nn.RMSNorm). Each entry:
# (arch, call, {kind: [(key, shape, dtype)]}, builder for a torch that has RMSNorm).
F32 = torch.float32
RMS_ARCHS = [
    ("rms_norm", "nn.RMSNorm([2, 3])",
     {"state_dict": [("weight", [2, 3], F32)], "named_parameters": [("weight", [2, 3], F32)],
      "named_buffers": []},
     lambda: nn.RMSNorm([2, 3])),
    ("rms_norm_in_mlp",
     "nn.Sequential(nn.Linear(4, 4), nn.RMSNorm(4), nn.RMSNorm(4, elementwise_affine=False))",
     {"state_dict": [("0.weight", [4, 4], F32), ("0.bias", [4], F32), ("1.weight", [4], F32)],
      "named_parameters": [("0.weight", [4, 4], F32), ("0.bias", [4], F32),
                           ("1.weight", [4], F32)],
      "named_buffers": []},
     lambda: nn.Sequential(nn.Linear(4, 4), nn.RMSNorm(4),
                           nn.RMSNorm(4, elementwise_affine=False))),
]


def entries(module, kind):
    if kind == "state_dict":
        items = module.state_dict().items()
    elif kind == "named_parameters":
        items = module.named_parameters()
    else:
        items = module.named_buffers()
    return [(k, list(v.shape), v.dtype) for k, v in items]


def write(fam, name, call, items):
    assert name not in fam.names, name
    fam.names.add(name)
    fam.count += 1
    rec = [f"case {name}", f"call {call}"]
    rec += [f"str {k}" for k, _, _ in items]
    rec += [f"arg {fmt_tensor(torch.tensor(shape, dtype=torch.int64))}" for _, shape, _ in items]
    rec += [f"out {DTYPE_NAMES[dtype]} 1 0" for _, _, dtype in items]
    rec.append("end")
    fam.lines += rec


KINDS = ("state_dict", "named_parameters", "named_buffers")


def gen_nn_module():
    fam = Family("nn_module", ["state_dict / named_parameters / named_buffers of torch.nn "
                               "architectures; layout: tests/golden/gen/nn_module.py"])
    for arch, call, build in ARCHS:
        torch.manual_seed(0)  # values are not stored; seeded only so nothing varies
        module = build()
        for kind in KINDS:
            write(fam, f"{kind}/{arch}", call, entries(module, kind))
    for arch, call, by_kind, build in RMS_ARCHS:
        if hasattr(nn, "RMSNorm"):
            module = build()
            for kind in KINDS:
                assert entries(module, kind) == by_kind[kind], (arch, kind)
        for kind in KINDS:
            write(fam, f"{kind}/{arch}", call + "  # written by hand: torch 1.13 has no RMSNorm",
                  by_kind[kind])
    return fam
