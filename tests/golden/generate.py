#!/usr/bin/python3
"""Writes the PyTorch golden files tests/golden/<family>.golden that Ember's forward tests read.

Run with Debian's python3-torch (torch 1.13), not a pyenv/venv python:
    /usr/bin/python3 tests/golden/generate.py [family ...]      # default: every family
Each case seeds its own generator from crc32 of its name and torch runs on one thread, so the
output is deterministic; the script builds every family twice and fails if the two differ. The
files are committed; CI never runs this script. The families live in gen/<family>.py, each with a
comment block that says how its records map onto Ember's API.

File format (one record per case; tests/support/golden.h is the C++ reader)
---------------------------------------------------------------------------
    # comment              ignored, also between the lines of a record
    case <op>/<variant>    starts a record; names are unique within a file
    call <text>            the PyTorch expression that made the outputs (a0.. args, s0.. sargs,
                           i0.. iargs, l0.. ilists, q0.. strs)
    flag <word>            a modifier, see FLAGS below
    str <word>             a string argument (rounding mode, gelu approximate, einsum equation,
                           matrix_norm ord, index components)
    sarg <number>          a Scalar argument: an integer literal is integral, true/false is bool,
                           anything else (1.5, 1e-06, nan, inf, -inf) is floating
    iarg <int>             one integer argument (dim, k, decimals, diagonal offset, ...)
    ilist [<int> ...]      one integer-list argument (dims, sizes, repeats, shifts, pads)
    arg <tensor>           a tensor argument, in call order
    out <tensor>           an expected output, in return order (values before indices)
    end
    <tensor> := <dtype> <ndim> <size_0> ... <size_ndim-1> <value_0> ... <value_numel-1>

Values are row-major. dtype is one of uint8 int8 int16 int32 int64 float16 bfloat16 float32 float64
bool. Integers are decimal, bools 0/1. Floats are nan, inf, -inf or a decimal: a float32 value is
the shortest string that reads back exactly with strtof; float64, float16 and bfloat16 values read
back exactly with strtod (then convert). A 0-dim tensor is `<dtype> 0 <value>`; a zero-size one has
no values. Lines of one kind keep their call order; a kind a case lacks means "not given" (no sarg
on logit: eps = None; no ilist on var: dim = None).

FLAGS
    transposed       call with a0.mT (a0 is stored contiguous, so the op sees a strided view)
    transposed_a1    the same for a1
    tensor_scalar    `other` is sarg 0, not a tensor: op(a0, s0) (where: where(a0, a1, s0))
    scalar_tensor    `self` is sarg 0: op(s0, a0) (where: where(a0, s0, a1))
    alpha            add/sub: the last sarg is alpha
    keepdim          keepdim=true (absent: false)
    descending       sort/argsort descending=true
    smallest         topk largest=false
    no_min, no_max   clamp: that bound is not given; the bounds given are the sargs (or args)
    upper            cholesky upper=true
    reduced_outputs  linalg: the outputs are invariants of the result, not its raw parts (see call)
"""

import os
import sys

import torch

from gen.autograd_e2e import gen_autograd_e2e
from gen.binary import gen_binary
from gen.common import ROOT
from gen.linalg import gen_linalg
from gen.lr_scheduler import gen_lr_scheduler
from gen.nn_attention import gen_nn_attention
from gen.nn_batchnorm import gen_nn_batchnorm
from gen.nn_conv import gen_nn_conv
from gen.nn_flex import gen_nn_flex
from gen.nn_functional import gen_nn_functional
from gen.nn_fuse import gen_nn_fuse
from gen.nn_layer import gen_nn_layer
from gen.nn_lazy import gen_nn_lazy
from gen.nn_loss import gen_nn_loss
from gen.nn_module import gen_nn_module
from gen.nn_parametrize import gen_nn_parametrize
from gen.nn_pad import gen_nn_pad
from gen.nn_pool import gen_nn_pool
from gen.nn_prune import gen_nn_prune
from gen.nn_resample import gen_nn_resample
from gen.nn_rnn import gen_nn_rnn
from gen.nn_transformer import gen_nn_transformer
from gen.optim import gen_optim
from gen.random import gen_random
from gen.reduction import gen_reduction
from gen.shape import gen_shape
from gen.unary import gen_unary

FAMILIES = {"unary": gen_unary, "binary": gen_binary, "reduction": gen_reduction,
            "linalg": gen_linalg, "shape": gen_shape, "autograd_e2e": gen_autograd_e2e,
            "nn_functional": gen_nn_functional, "nn_layer": gen_nn_layer,
            "nn_loss": gen_nn_loss, "nn_module": gen_nn_module, "optim": gen_optim,
            "random": gen_random, "lr_scheduler": gen_lr_scheduler,
            "nn_conv": gen_nn_conv, "nn_pool": gen_nn_pool, "nn_batchnorm": gen_nn_batchnorm,
            "nn_pad": gen_nn_pad, "nn_resample": gen_nn_resample, "nn_rnn": gen_nn_rnn,
            "nn_attention": gen_nn_attention, "nn_transformer": gen_nn_transformer,
            "nn_flex": gen_nn_flex, "nn_parametrize": gen_nn_parametrize,
            "nn_prune": gen_nn_prune, "nn_lazy": gen_nn_lazy,
            "nn_fuse": gen_nn_fuse}
MAX_BYTES = 2 * 1024 * 1024


def main(argv):
    torch.set_num_threads(1)
    for name in argv or list(FAMILIES):
        fam = FAMILIES[name]()
        if FAMILIES[name]().lines != fam.lines:
            raise SystemExit(f"{name}: two runs differ; an input is not seeded (torch.empty?)")
        path = fam.write()
        size = os.path.getsize(path)
        print(f"{os.path.relpath(path, ROOT)}: {fam.count} cases, {size / 1024:.0f} KiB, "
              f"{len(fam.unsupported)} skipped as unsupported by torch")
        if size > MAX_BYTES:
            raise SystemExit(f"{path} is over 2 MiB; use smaller inputs")
        if os.environ.get("GOLDEN_VERBOSE"):
            for line in fam.unsupported:
                print("  skipped:", line)
            for case, ins, outs in fam.dtype_log:
                print(f"  {case}: {','.join(ins)} -> {','.join(outs)}")


if __name__ == "__main__":
    main(sys.argv[1:])
