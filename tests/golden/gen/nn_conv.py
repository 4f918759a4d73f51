"""nn_conv.golden: convolution and transposed convolution (forward, backward data, backward weights). (Per-op layout: to be written.)"""

from .common import Family


def gen_nn_conv():
    fam = Family("nn_conv", ["convolution and transposed convolution (forward, backward data, backward weights); per-op layout in tests/golden/gen/nn_conv.py."])
    return fam
