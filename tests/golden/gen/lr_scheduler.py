"""lr_scheduler.golden: torch.optim.lr_scheduler learning-rate sequences for
tests/schedulers/scheduler_golden_test.cpp.

Every case builds an optimizer over one tiny parameter per param group, attaches one scheduler
(or a composite of two), and records each group's learning rate right after construction and
after every step (and the momentum, or Adam's beta1, when the scheduler cycles it):

    case <scheduler>/<variant>
    call <the Python constructor>      for messages
    str  <optimizer>                   q0: sgd (momentum 0.9) or adam
    str  ...                           q1..: the scheduler's string options (modes), see below
    iarg <nsteps>                      i0: number of step() calls S
    iarg ...                           i1..: the scheduler's integer options, see below
    ilist [...]                        l0: milestones (multistep, sequential)
    sarg ...                           s0..: the scheduler's float options, see below
    arg  float64 [G]                   a0: the initial lr of each param group
    arg  float64 [S]                   a1: plateau: the metric of each step; warm restarts with
                                       fractional epochs: the epoch given to each step(epoch)
    out  float64 [S+1, G]              o0: lr of each group; row 0 after construction
    out  float64 [S+1, G]              o1: momentum (beta1 for adam) of each group, if cycled
    end

Options per scheduler (Python's argument names):
    step          i1 step_size                      s0 gamma
    multistep     l0 milestones                     s0 gamma
    exponential                                     s0 gamma
    polynomial    i1 total_iters                    s0 power
    constant      i1 total_iters                    s0 factor
    linear        i1 total_iters                    s0 start_factor, s1 end_factor
    lambda        q1 the function: pow (0.95 ** epoch) or inv (1 / (epoch + 1))
    multiplicative q1 the function: const (0.97) or alt (0.9 on even epochs, 1.05 on odd)
    cosine        i1 T_max                          s0 eta_min
    warm_restarts i1 T_0, i2 T_mult                 s0 eta_min
    cyclic        q1 mode; i1 step_size_up, i2 step_size_down (-1: None), i3 cycle_momentum
                  s0 base_lr, s1 max_lr, s2 gamma, s3 base_momentum, s4 max_momentum
    onecycle      q1 anneal_strategy; i1 total_steps, i2 three_phase, i3 cycle_momentum
                  s0 max_lr, s1 pct_start, s2 div_factor, s3 final_div_factor,
                  s4 base_momentum, s5 max_momentum
    plateau       q1 mode, q2 threshold_mode; i1 patience, i2 cooldown
                  s0 factor, s1 threshold, s2 min_lr, s3 eps
    sequential    q1 the pair: linear_exponential (LinearLR(start 0.1, total 4),
                  ExponentialLR(0.9)) or constant_cosine (ConstantLR(0.5, 3),
                  CosineAnnealingLR(T_max 20, eta_min 1e-4)); l0 milestones
    chained       q1 the pair: constant_exponential (ConstantLR(0.5, 7), ExponentialLR(0.95)) or
                  linear_cosine (LinearLR(0.2, 1.0, 10), CosineAnnealingLR(T_max 15))
"""

import math
import warnings

import torch
from torch.optim import lr_scheduler as S

from .common import Family, Rng

NSTEPS = 110
GROUP_LRS = [0.1, 0.05]

LAMBDAS = {"pow": lambda e: 0.95 ** e, "inv": lambda e: 1.0 / (e + 1)}
MULTIPLIERS = {"const": lambda e: 0.97, "alt": lambda e: 0.9 if e % 2 == 0 else 1.05}


def _optimizer(kind, lrs):
    groups = [{"params": [torch.zeros(1, requires_grad=True)], "lr": lr} for lr in lrs]
    if kind == "sgd":
        return torch.optim.SGD(groups, lr=lrs[0], momentum=0.9)
    return torch.optim.Adam(groups, lr=lrs[0])


def _momentum(group):
    return group["betas"][0] if "betas" in group else group["momentum"]


def _run(opt, sched, nsteps, step_arg=None, momentum=False):
    """The lr (and momentum) of each group after construction and after every step."""
    lrs, moms = [], []

    def record():
        lrs.append([g["lr"] for g in opt.param_groups])
        moms.append([_momentum(g) for g in opt.param_groups])

    record()
    for k in range(nsteps):
        opt.step()
        if step_arg is None:
            sched.step()
        else:
            sched.step(step_arg[k])
        record()
    outs = [torch.tensor(lrs, dtype=torch.float64)]
    if momentum:
        outs.append(torch.tensor(moms, dtype=torch.float64))
    return outs


def _case(fam, name, call, make, *, opt_kind="sgd", strs=(), iargs=(), sargs=(), ilists=(),
          lrs=GROUP_LRS, nsteps=NSTEPS, step_arg=None, momentum=False):
    opt = _optimizer(opt_kind, lrs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched = make(opt)
        outs = _run(opt, sched, nsteps, step_arg, momentum)
    args = [torch.tensor(lrs, dtype=torch.float64)]
    if step_arg is not None:
        args.append(torch.tensor(step_arg, dtype=torch.float64))
    fam.case(name, call, args, ref="outs", env={"outs": outs}, strs=[opt_kind, *strs],
             iargs=[nsteps, *iargs], sargs=sargs, ilists=ilists)


def _plateau_metrics(name, nsteps):
    """A noisy loss curve with long flat stretches, so patience and cooldown both matter."""
    r = Rng(name)
    base = [1.0 / (1 + 0.05 * min(k, 40)) for k in range(nsteps)]
    noise = r.uniform([nsteps], -0.01, 0.01, torch.float64).tolist()
    return [b + n for b, n in zip(base, noise)]


def _sequential_pair(which, opt):
    if which == "linear_exponential":
        return S.LinearLR(opt, start_factor=0.1, total_iters=4), S.ExponentialLR(opt, gamma=0.9)
    return (S.ConstantLR(opt, factor=0.5, total_iters=3),
            S.CosineAnnealingLR(opt, T_max=20, eta_min=1e-4))


def _chained_pair(which, opt):
    if which == "constant_exponential":
        return S.ConstantLR(opt, factor=0.5, total_iters=7), S.ExponentialLR(opt, gamma=0.95)
    return (S.LinearLR(opt, start_factor=0.2, end_factor=1.0, total_iters=10),
            S.CosineAnnealingLR(opt, T_max=15))


def gen_lr_scheduler():
    fam = Family("lr_scheduler", [
        "torch.optim.lr_scheduler: the lr of every param group after construction and after "
        "each step; layout in tests/golden/gen/lr_scheduler.py."])

    for size, gamma in [(7, 0.5), (1, 0.97), (30, 0.1)]:
        _case(fam, f"step/size{size}", f"StepLR(opt, step_size={size}, gamma={gamma})",
              lambda o: S.StepLR(o, size, gamma), iargs=[size], sargs=[gamma])
    for ms, gamma in [([10, 25, 25, 60], 0.5), ([0, 3, 100], 0.1)]:
        _case(fam, f"multistep/m{len(ms)}_{ms[0]}", f"MultiStepLR(opt, {ms}, gamma={gamma})",
              lambda o: S.MultiStepLR(o, ms, gamma), ilists=[ms], sargs=[gamma])
    for gamma in [0.97, 1.01]:
        _case(fam, f"exponential/g{gamma}", f"ExponentialLR(opt, gamma={gamma})",
              lambda o: S.ExponentialLR(o, gamma), sargs=[gamma])
    for total, power in [(50, 1.0), (80, 2.5), (5, 0.5)]:
        _case(fam, f"polynomial/t{total}_p{power}", f"PolynomialLR(opt, {total}, {power})",
              lambda o: S.PolynomialLR(o, total_iters=total, power=power),
              iargs=[total], sargs=[power])
    for factor, total in [(1.0 / 3, 5), (0.5, 40), (0.25, 0)]:
        _case(fam, f"constant/t{total}", f"ConstantLR(opt, factor={factor}, total_iters={total})",
              lambda o: S.ConstantLR(o, factor=factor, total_iters=total),
              iargs=[total], sargs=[factor])
    for start, end, total in [(1.0 / 3, 1.0, 5), (0.1, 0.9, 60), (1.0, 0.05, 100)]:
        _case(fam, f"linear/t{total}", f"LinearLR(opt, {start}, {end}, total_iters={total})",
              lambda o: S.LinearLR(o, start_factor=start, end_factor=end, total_iters=total),
              iargs=[total], sargs=[start, end])
    for fn in LAMBDAS:
        _case(fam, f"lambda/{fn}", f"LambdaLR(opt, {fn})",
              lambda o: S.LambdaLR(o, LAMBDAS[fn]), strs=[fn])
    _case(fam, "lambda/per_group", "LambdaLR(opt, [pow, inv])",
          lambda o: S.LambdaLR(o, [LAMBDAS["pow"], LAMBDAS["inv"]]), strs=["pow", "inv"])
    for fn in MULTIPLIERS:
        _case(fam, f"multiplicative/{fn}", f"MultiplicativeLR(opt, {fn})",
              lambda o: S.MultiplicativeLR(o, MULTIPLIERS[fn]), strs=[fn])
    for t_max, eta_min in [(10, 0.0), (37, 1e-3), (100, 0.01)]:
        _case(fam, f"cosine/t{t_max}", f"CosineAnnealingLR(opt, T_max={t_max}, eta_min={eta_min})",
              lambda o: S.CosineAnnealingLR(o, t_max, eta_min), iargs=[t_max], sargs=[eta_min])
    for t0, mult, eta_min in [(10, 1, 0.0), (3, 2, 1e-4), (5, 3, 0.001)]:
        _case(fam, f"warm_restarts/t{t0}_m{mult}",
              f"CosineAnnealingWarmRestarts(opt, T_0={t0}, T_mult={mult}, eta_min={eta_min})",
              lambda o: S.CosineAnnealingWarmRestarts(o, t0, mult, eta_min),
              iargs=[t0, mult], sargs=[eta_min])
    # step(epoch) with fractional epochs: 5 batches per epoch, as Python's docstring example.
    epochs = [k / 5 for k in range(1, NSTEPS + 1)]
    _case(fam, "warm_restarts/fractional_m2",
          "CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.001); step(k / 5)",
          lambda o: S.CosineAnnealingWarmRestarts(o, 2, 2, 0.001),
          iargs=[2, 2], sargs=[0.001], step_arg=epochs)
    cyclic = [("triangular", 10, -1, 1, 1.0), ("triangular2", 8, 12, 1, 1.0),
              ("exp_range", 15, 5, 0, 0.99)]
    for mode, up, down, cm, gamma in cyclic:
        _case(fam, f"cyclic/{mode}",
              f"CyclicLR(opt, 0.01, 0.1, step_size_up={up}, step_size_down="
              f"{None if down < 0 else down}, mode={mode}, gamma={gamma}, "
              f"cycle_momentum={bool(cm)}, base_momentum=0.8, max_momentum=0.9)",
              lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=up,
                                   step_size_down=None if down < 0 else down, mode=mode,
                                   gamma=gamma, cycle_momentum=bool(cm), base_momentum=0.8,
                                   max_momentum=0.9),
              strs=[mode], iargs=[up, down, cm], sargs=[0.01, 0.1, gamma, 0.8, 0.9],
              momentum=bool(cm))
    onecycle = [("cos", 0, "sgd", 0.3), ("linear", 0, "sgd", 0.25), ("cos", 1, "adam", 0.3),
                ("linear", 1, "sgd", 0.4)]
    for anneal, three, opt_kind, pct in onecycle:
        total = NSTEPS
        _case(fam, f"onecycle/{anneal}_{'three' if three else 'two'}_{opt_kind}",
              f"OneCycleLR(opt, max_lr=0.5, total_steps={total}, pct_start={pct}, "
              f"anneal_strategy={anneal}, three_phase={bool(three)}, div_factor=20.0, "
              f"final_div_factor=1000.0, base_momentum=0.85, max_momentum=0.95)",
              lambda o: S.OneCycleLR(o, max_lr=0.5, total_steps=total, pct_start=pct,
                                     anneal_strategy=anneal, three_phase=bool(three),
                                     div_factor=20.0, final_div_factor=1000.0),
              opt_kind=opt_kind, strs=[anneal], iargs=[total, three, 1],
              sargs=[0.5, pct, 20.0, 1000.0, 0.85, 0.95], momentum=True)
    plateau = [("min", "rel", 5, 0, 0.5, 1e-4, 0.0, 1e-8),
               ("min", "abs", 3, 4, 0.3, 1e-3, 0.004, 1e-8),
               ("max", "rel", 4, 2, 0.1, 1e-2, 1e-5, 1e-8),
               ("max", "abs", 2, 1, 0.7, 0.0, 0.0, 1e-3)]
    for mode, tmode, patience, cooldown, factor, thr, min_lr, eps in plateau:
        name = f"plateau/{mode}_{tmode}"
        metrics = _plateau_metrics(name, NSTEPS)
        if mode == "max":
            metrics = [-m for m in metrics]
        _case(fam, name,
              f"ReduceLROnPlateau(opt, mode={mode}, factor={factor}, patience={patience}, "
              f"threshold={thr}, threshold_mode={tmode}, cooldown={cooldown}, min_lr={min_lr}, "
              f"eps={eps}); step(metric)",
              lambda o: S.ReduceLROnPlateau(o, mode=mode, factor=factor, patience=patience,
                                            threshold=thr, threshold_mode=tmode,
                                            cooldown=cooldown, min_lr=min_lr, eps=eps),
              strs=[mode, tmode], iargs=[patience, cooldown], sargs=[factor, thr, min_lr, eps],
              step_arg=metrics)
    for which, ms in [("linear_exponential", [4]), ("constant_cosine", [30])]:
        _case(fam, f"sequential/{which}", f"SequentialLR(opt, [{which}], milestones={ms})",
              lambda o: S.SequentialLR(o, list(_sequential_pair(which, o)), milestones=ms),
              strs=[which], ilists=[ms])
    for which in ["constant_exponential", "linear_cosine"]:
        _case(fam, f"chained/{which}", f"ChainedScheduler([{which}])",
              lambda o: S.ChainedScheduler(list(_chained_pair(which, o))), strs=[which])
    return fam
