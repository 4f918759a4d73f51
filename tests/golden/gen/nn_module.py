"""nn_module.golden: (being written)."""

from .common import Family


def gen_nn_module():
    return Family("nn_module", ["(no cases yet)"])
