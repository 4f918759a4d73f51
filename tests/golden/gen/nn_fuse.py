"""nn_fuse.golden: torch.ao.quantization.fuse_modules (eval) and fuse_modules_qat (training) on
small models, so Ember's fuse_modules can be checked to give Python's module structure
(state_dict keys and values) and outputs.

Record layout (tests/nn/fuse_modules_test.cpp reads it; one C++ builder per model). float32.

    case fuse/<model>       <model> names the architecture (MODELS below) and the mode
    iarg n_before           how many state_dict entries the unfused model has
    iarg n_after            how many the fused one has
    str  <key> ...          the n_before keys, then the n_after keys, in Python's order
    arg  x                  the input
    arg  <value> ...        the unfused model's state_dict values (loaded into Ember's model)
    out  y                  the fused model's output on x (eval, or training for *_qat)
    out  <value> ...        the fused model's state_dict values after that call
"""

import torch
import torch.nn as nn
from torch.ao.quantization import fuse_modules, fuse_modules_qat

from .common import Family, Rng, fmt_tensor


class Net(nn.Module):
    """conv-bn-relu, conv(reflect padding, no bias)-relu, linear-bn, linear-relu."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(8, 4, 3, padding=1, padding_mode="reflect", bias=False)
        self.relu2 = nn.ReLU()
        self.fc1 = nn.Linear(4 * 5 * 5, 6)
        self.bn3 = nn.BatchNorm1d(6)
        self.fc2 = nn.Linear(6, 5)
        self.relu3 = nn.ReLU()

    def forward(self, x):
        x = self.relu2(self.conv2(self.relu1(self.bn1(self.conv1(x)))))
        return self.relu3(self.fc2(self.bn3(self.fc1(x.flatten(1)))))


NET_GROUPS = [["conv1", "bn1", "relu1"], ["conv2", "relu2"], ["fc1", "bn3"], ["fc2", "relu3"]]


def seq1d():
    return nn.Sequential(nn.Conv1d(2, 4, 3), nn.BatchNorm1d(4), nn.ReLU(),
                         nn.ConvTranspose1d(4, 3, 3, stride=2), nn.BatchNorm1d(3))


def seq3d():
    return nn.Sequential(nn.Conv3d(2, 3, 2), nn.ReLU(), nn.BatchNorm3d(3), nn.ReLU(),
                         nn.Conv3d(3, 2, 1), nn.BatchNorm3d(2))


def seq2d_qat():
    return nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4), nn.Conv2d(4, 3, 1),
                         nn.BatchNorm2d(3), nn.ReLU())


# (model, builder, groups, input shape, qat)
MODELS = [
    ("net", Net, NET_GROUPS, (2, 3, 5, 5), False),
    ("seq1d", seq1d, [["0", "1", "2"], ["3", "4"]], (2, 2, 7), False),
    ("seq3d", seq3d, [["0", "1"], ["2", "3"], ["4", "5"]], (2, 2, 4, 4, 4), False),
    ("net_qat", Net, NET_GROUPS, (4, 3, 5, 5), True),
    ("seq2d_qat", seq2d_qat, [["0", "1"], ["2", "3", "4"]], (3, 2, 6, 6), True),
]


def randomize(model, rng):
    """Parameters and running statistics away from their defaults (bn weights positive)."""
    with torch.no_grad():
        for name, t in model.state_dict().items():
            if t.dtype != torch.float32:
                continue
            if name.endswith("running_var"):
                t.copy_(rng.uniform(t.shape, 0.5, 1.5))
            else:
                t.copy_(rng.normal(t.shape) * 0.5)


def gen_nn_fuse():
    fam = Family("nn_fuse", ["torch.ao.quantization.fuse_modules(_qat) on small models; layout: "
                             "tests/golden/gen/nn_fuse.py"])
    for model_name, make, groups, shape, qat in MODELS:
        name = f"fuse/{model_name}"
        rng = Rng(name)
        torch.manual_seed(0)
        m = make()
        randomize(m, rng)
        x = rng.normal(shape)
        before = m.state_dict()
        before = {k: v.clone() for k, v in before.items()}
        if qat:
            m.train()
            fused = fuse_modules_qat(m, groups)
        else:
            m.eval()
            with torch.no_grad():
                ref = m(x)
            fused = fuse_modules(m, groups)
        with torch.no_grad():
            y = fused(x)
        if not qat:
            assert torch.allclose(y, ref, rtol=1e-5, atol=1e-5 * ref.abs().max()), name
        after = fused.state_dict()
        fam.names.add(name)
        fam.count += 1
        fam.lines += [f"case {name}", f"call {model_name}", f"iarg {len(before)}",
                      f"iarg {len(after)}"]
        fam.lines += [f"str {key}" for key in [*before.keys(), *after.keys()]]
        fam.lines += [f"arg {fmt_tensor(x)}"]
        fam.lines += [f"arg {fmt_tensor(v)}" for v in before.values()]
        fam.lines += [f"out {fmt_tensor(o)}" for o in [y.detach(), *after.values()]]
        fam.lines.append("end")
    return fam
