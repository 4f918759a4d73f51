"""random.golden: numbers PyTorch's CPU generator gives right after torch.manual_seed(seed), which
Ember's must reproduce (tests/core/random_parity_test.cpp, tests/nn/init_parity_test.cpp).

random.golden
  rand/<dtype>_seed<s>        torch.rand(l0, dtype)            after manual_seed(i0)
  uniform/<dtype>_seed<s>     torch.empty(l0).uniform_(s0, s1)  after manual_seed(i0)
  randperm/n<n>_seed<s>       torch.randperm(i1)                after manual_seed(i0)
  randint/seed<s>             torch.randint(s0, s1, l0)         after manual_seed(i0)
  linear_init/<in>x<out>      nn.Linear(i1, i2): outs weight, bias, after manual_seed(i0)
  mlp_init/784_512_256_10     the example trainer's MLP: outs w1 b1 w2 b2 w3 b3 (first 64
                              values of each, flattened) then randperm(60000)[:64]
  randn/<dtype>_n<n>_seed<s>  torch.randn(l0, dtype) after manual_seed(i0): fewer than 16 values
                              go one at a time through the cached Box-Muller pair, 16 or more in
                              blocks of 16 (with the last block redrawn), as ATen's normal_kernel
  randn_twice/<dtype>_n<n>    two torch.randn(l0) in a row (the cached second value carries over)
  normal/<dtype>_n<n>         torch.empty(l0).normal_(s0, s1) after manual_seed(i0)
  init/<fn>                   nn.init.<fn> of a torch.empty(l0) after manual_seed(i0)
The float32 blocks use PyTorch's AVX2 log/sincos polynomials there, so Ember's values differ in
the last bits (tests compare with a tolerance).
"""

import torch

from .common import Family


def _seeded(seed, fn):
    torch.manual_seed(seed)
    return fn()


def gen_random():
    fam = Family("random", ["PyTorch CPU generator output after manual_seed; see gen/random.py."])
    for seed in (0, 7, 123456789):
        for dt, name in ((torch.float32, "float32"), (torch.float64, "float64")):
            fam.case(f"rand/{name}_seed{seed}", "rand", [], iargs=[seed], ilists=[[40]],
                     strs=[name], ref=f"_seeded({seed}, lambda: torch.rand(l0, dtype=torch.{name}))",
                     env={"_seeded": _seeded})
            fam.case(f"uniform/{name}_seed{seed}", "uniform_", [], iargs=[seed], ilists=[[30]],
                     sargs=[-0.25, 3.5], strs=[name],
                     ref=f"_seeded({seed}, lambda: torch.empty(l0, dtype=torch.{name})"
                         ".uniform_(s0, s1))", env={"_seeded": _seeded})
        for n in (1, 10, 1000):
            fam.case(f"randperm/n{n}_seed{seed}", "randperm", [], iargs=[seed, n],
                     ref=f"_seeded({seed}, lambda: torch.randperm(i1))", env={"_seeded": _seeded})
        fam.case(f"randint/seed{seed}", "randint", [], iargs=[seed], ilists=[[50]],
                 sargs=[-5, 7], ref=f"_seeded({seed}, lambda: torch.randint(s0, s1, l0))",
                 env={"_seeded": _seeded})
    for fan_in, fan_out in ((5, 3), (784, 10)):
        fam.case(f"linear_init/{fan_in}x{fan_out}", "nn.Linear", [], iargs=[0, fan_in, fan_out],
                 ref="_seeded(i0, lambda: (lambda l: (l.weight.detach(), l.bias.detach()))("
                     "torch.nn.Linear(i1, i2)))", env={"_seeded": _seeded})

    for dt in ("float32", "float64", "float16", "bfloat16"):
        for n in (1, 3, 15, 16, 17, 40, 100):
            fam.case(f"randn/{dt}_n{n}_seed7", "randn", [], iargs=[7], ilists=[[n]], strs=[dt],
                     ref=f"_seeded(i0, lambda: torch.randn(l0, dtype=torch.{dt}))",
                     env={"_seeded": _seeded})
        for n in (3, 20):
            fam.case(f"randn_twice/{dt}_n{n}", "randn_twice", [], iargs=[11], ilists=[[n]],
                     strs=[dt], ref=f"_seeded(i0, lambda: (torch.randn(l0, dtype=torch.{dt}), "
                                    f"torch.randn(l0, dtype=torch.{dt})))",
                     env={"_seeded": _seeded})
        for n in (5, 33):
            fam.case(f"normal/{dt}_n{n}", "normal_", [], iargs=[3], ilists=[[n]],
                     sargs=[-1.5, 0.25], strs=[dt],
                     ref=f"_seeded(i0, lambda: torch.empty(l0, dtype=torch.{dt}).normal_(s0, s1))",
                     env={"_seeded": _seeded})
    for dt in ("float16", "bfloat16"):
        fam.case(f"uniform/{dt}_seed0", "uniform_", [], iargs=[0], ilists=[[30]],
                 sargs=[-0.25, 3.5], strs=[dt],
                 ref=f"_seeded(i0, lambda: torch.empty(l0, dtype=torch.{dt}).uniform_(s0, s1))",
                 env={"_seeded": _seeded})
    for fn, call in (("kaiming_normal_", "torch.nn.init.kaiming_normal_(t)"),
                     ("xavier_normal_", "torch.nn.init.xavier_normal_(t, 0.5)"),
                     ("trunc_normal_", "torch.nn.init.trunc_normal_(t, 0.5, 2.0, -1.0, 3.0)"),
                     ("normal_", "torch.nn.init.normal_(t, 1.0, 3.0)")):
        for shape in ((3, 4), (20, 30)):
            fam.case(f"init/{fn}_{shape[0]}x{shape[1]}", fn, [], iargs=[5], ilists=[list(shape)],
                     ref=f"_seeded(i0, lambda: (lambda t: {call})(torch.empty(l0)))",
                     env={"_seeded": _seeded})

    def mlp():
        torch.manual_seed(0)
        m = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(),
                                torch.nn.Linear(512, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 10))
        outs = [p.detach().reshape(-1)[:64].clone() for p in m.parameters()]
        return tuple(outs) + (torch.randperm(60000)[:64],)
    fam.case("mlp_init/784_512_256_10", "mlp", [], iargs=[0], ref="mlp()", env={"mlp": mlp})
    return fam
