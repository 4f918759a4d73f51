"""nn_pad.golden: padding in every mode, pixel (un)shuffle, fold/unfold, channel shuffle. (Per-op layout: to be written.)"""

from .common import Family


def gen_nn_pad():
    fam = Family("nn_pad", ["padding in every mode, pixel (un)shuffle, fold/unfold, channel shuffle; per-op layout in tests/golden/gen/nn_pad.py."])
    return fam
