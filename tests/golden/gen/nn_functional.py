"""nn_functional.golden: (being written)."""

from .common import Family


def gen_nn_functional():
    return Family("nn_functional", ["(no cases yet)"])
