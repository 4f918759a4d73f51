"""nn_resample.golden: interpolation (upsampling), grid_sample, affine_grid. (Per-op layout: to be written.)"""

from .common import Family


def gen_nn_resample():
    fam = Family("nn_resample", ["interpolation (upsampling), grid_sample, affine_grid; per-op layout in tests/golden/gen/nn_resample.py."])
    return fam
