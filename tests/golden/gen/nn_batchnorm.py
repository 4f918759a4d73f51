"""nn_batchnorm.golden: batch, instance and group normalisation, local response normalisation. (Per-op layout: to be written.)"""

from .common import Family


def gen_nn_batchnorm():
    fam = Family("nn_batchnorm", ["batch, instance and group normalisation, local response normalisation; per-op layout in tests/golden/gen/nn_batchnorm.py."])
    return fam
