"""nn_lazy.golden: PyTorch's lazy modules initialised by their first input, so Ember's can be
checked to infer the same shapes and, from the same seed, draw the same initial values (the
generators agree: include/ember/core/generator.h).

Record layout (tests/nn/lazy_test.cpp reads it). float32.

    case lazy/<variant>     the variant names the module and its arguments (see MODULES below;
                            the C++ test has one builder per variant)
    iarg seed               torch.manual_seed(seed) right before the module is constructed
    arg  x                  the first input
    str  <key> ...          state_dict keys after the first call, in Python's order
    out  y, then the state_dict values in the order of the str lines
"""

import torch
import torch.nn as nn

from .common import Family, Rng, fmt_tensor

# (variant, constructor, input shape)
MODULES = [
    ("linear", lambda: nn.LazyLinear(5), (3, 7)),
    ("linear_nobias", lambda: nn.LazyLinear(4, bias=False), (2, 3, 6)),
    ("conv1d", lambda: nn.LazyConv1d(4, 3), (2, 3, 9)),
    ("conv2d", lambda: nn.LazyConv2d(6, 3, stride=2, padding=1, groups=2), (2, 4, 7, 7)),
    ("conv2d_unbatched", lambda: nn.LazyConv2d(3, 2), (5, 6, 6)),
    ("conv3d", lambda: nn.LazyConv3d(2, 2, bias=False), (1, 3, 4, 4, 4)),
    ("conv_transpose1d", lambda: nn.LazyConvTranspose1d(3, 3, stride=2), (2, 4, 5)),
    ("conv_transpose2d", lambda: nn.LazyConvTranspose2d(4, 3, groups=2), (2, 6, 4, 4)),
    ("conv_transpose3d", lambda: nn.LazyConvTranspose3d(2, 2), (1, 3, 3, 3, 3)),
    ("batch_norm1d", lambda: nn.LazyBatchNorm1d(), (8, 5)),
    ("batch_norm2d", lambda: nn.LazyBatchNorm2d(), (4, 3, 5, 5)),
    ("batch_norm3d", lambda: nn.LazyBatchNorm3d(momentum=0.3), (2, 3, 3, 3, 3)),
    ("instance_norm1d_affine",
     lambda: nn.LazyInstanceNorm1d(affine=True, track_running_stats=False), (2, 4, 6)),
    ("instance_norm2d_stats",
     lambda: nn.LazyInstanceNorm2d(affine=False, track_running_stats=True), (2, 3, 5, 5)),
    # Lazy instance norms default to affine=True and track_running_stats=True (unlike
    # InstanceNorm*d): _LazyNormBase's defaults.
    ("instance_norm3d_defaults", lambda: nn.LazyInstanceNorm3d(), (2, 2, 3, 3, 3)),
]


def gen_nn_lazy():
    fam = Family("nn_lazy", ["torch.nn lazy modules after their first call; layout: "
                             "tests/golden/gen/nn_lazy.py"])
    for k, (variant, make, shape) in enumerate(MODULES):
        name = f"lazy/{variant}"
        x = Rng(name).normal(shape)
        seed = 100 + k
        torch.manual_seed(seed)
        m = make()
        m.train()
        y = m(x)
        sd = m.state_dict()
        fam.names.add(name)
        fam.count += 1
        fam.lines += [f"case {name}", f"call {variant}"]
        fam.lines += [f"str {key}" for key in sd.keys()]
        fam.lines += [f"iarg {seed}", f"arg {fmt_tensor(x)}"]
        fam.lines += [f"out {fmt_tensor(o)}" for o in [y.detach(), *sd.values()]]
        fam.lines.append("end")
    return fam
