"""nn_pool.golden: pooling: max, average, adaptive, LP, unpooling, fractional. (Per-op layout: to be written.)"""

from .common import Family


def gen_nn_pool():
    fam = Family("nn_pool", ["pooling: max, average, adaptive, LP, unpooling, fractional; per-op layout in tests/golden/gen/nn_pool.py."])
    return fam
