"""optim.golden: torch.optim trajectories for tests/optim/sgd_test.cpp.

One record per optimizer configuration, all for the same shape of problem: NPARAM parameters, each
given a fixed gradient per step (the gradients do not depend on the parameters, so the trajectory
is a pure function of the update rule), and the parameters recorded after every step.

    case sgd/<variant>
    call sgd(...)                  the configuration, for messages
    iarg <nparam>                  i0: number of parameters P
    iarg <nsteps>                  i1: number of steps S
    ilist <group of each param>    l0: which param group each parameter belongs to (0-based)
    sarg x 6 per group             lr, momentum, dampening, weight_decay, nesterov, maximize
    arg  x P                       the initial parameters
    arg  x P*S                     the gradients: step k, parameter i is arg P + k*P + i
    out  x P*S                     the parameters after step k: out k*P + i
    end

Adadelta, Adamax, NAdam and RAdam use the same layout (their sargs: KWARG_OPTIMIZERS, with
betas as beta1, beta2). LBFGS runs over a closure instead of fixed gradients; see _lbfgs_case.

The optimizer is built as torch.optim.SGD([{'params': [...], <group 0 options>}, ...]); in Ember,
SGD(param groups with their SGDOptions, group 0's options as defaults). torch 1.13's default path
is the single-tensor loop (foreach=False), one in-place op after another, as Ember's step.
"""

import torch

from .common import Family, Rng

SHAPES = [[3, 4], [5], [2, 2, 3]]
NSTEPS = 4
OPTION_NAMES = ["lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize"]


def _group_options(opts):
    full = {"lr": 0.1, "momentum": 0.0, "dampening": 0.0, "weight_decay": 0.0,
            "nesterov": False, "maximize": False}
    full.update(opts)
    return full


def _run_steps(opt, ps, grads):
    """Steps opt len(grads) // len(ps) times, step k giving parameter i the gradient
    grads[k * len(ps) + i]; returns the parameters after every step, flattened."""
    n = len(ps)
    outs = []
    for k in range(len(grads) // n):
        for i, p in enumerate(ps):
            p.grad = grads[k * n + i].clone()
        opt.step()
        outs += [p.detach().clone() for p in ps]
    return outs


def sgd_trajectory(params, grads, groups, group_opts):
    """The parameters after each of the len(grads) // len(params) steps, flattened."""
    ps = [p.clone().requires_grad_() for p in params]
    param_groups = []
    for g, opts in enumerate(group_opts):
        param_groups.append(dict(params=[p for p, gi in zip(ps, groups) if gi == g], **opts))
    opt = torch.optim.SGD(param_groups, lr=group_opts[0]["lr"])
    return _run_steps(opt, ps, grads)


def _sgd_case(fam, variant, groups, group_opts, dtype=torch.float32):
    name = f"sgd/{variant}"
    r = Rng(name)
    params = [r.uniform(s, -1, 1, dtype) for s in SHAPES]
    grads = [r.normal(s, dtype) for _ in range(NSTEPS) for s in SHAPES]
    group_opts = [_group_options(o) for o in group_opts]
    sargs = []
    for o in group_opts:
        sargs += [float(o[k]) if k not in ("nesterov", "maximize") else bool(o[k])
                  for k in OPTION_NAMES]
    desc = "; ".join(", ".join(f"{k}={o[k]}" for k in OPTION_NAMES) for o in group_opts)
    outs = sgd_trajectory(params, grads, groups, group_opts)
    fam.case(name, f"sgd({desc})", params + grads, ref="outs", env={"outs": outs},
             sargs=sargs, iargs=[len(SHAPES), NSTEPS], ilists=[groups])


def gen_optim():
    fam = Family("optim", [
        "torch.optim.SGD trajectories: initial parameters, a fixed gradient per parameter and "
        "step, and the parameters after every step (layout: tests/golden/gen/optim.py)."])
    one = [0, 0, 0]
    _sgd_case(fam, "plain", one, [{"lr": 0.1}])
    _sgd_case(fam, "momentum", one, [{"lr": 0.1, "momentum": 0.9}])
    _sgd_case(fam, "momentum_dampening", one, [{"lr": 0.05, "momentum": 0.8, "dampening": 0.3}])
    _sgd_case(fam, "nesterov", one, [{"lr": 0.1, "momentum": 0.9, "nesterov": True}])
    _sgd_case(fam, "weight_decay", one, [{"lr": 0.1, "weight_decay": 0.05}])
    _sgd_case(fam, "weight_decay_momentum", one,
              [{"lr": 0.02, "momentum": 0.7, "dampening": 0.1, "weight_decay": 0.3}])
    _sgd_case(fam, "maximize_nesterov", one,
              [{"lr": 0.1, "momentum": 0.5, "nesterov": True, "weight_decay": 0.01,
                "maximize": True}])
    _sgd_case(fam, "two_groups", [0, 1, 0],
              [{"lr": 0.1, "momentum": 0.9}, {"lr": 0.01, "momentum": 0.5, "weight_decay": 0.1}])
    _sgd_case(fam, "momentum_float64", one, [{"lr": 0.1, "momentum": 0.9, "dampening": 0.2}],
              dtype=torch.float64)
    _adam_cases(fam)
    _rmsprop_adagrad_cases(fam)
    _adadelta_adamax_cases(fam)
    _nadam_radam_cases(fam)
    _lbfgs_cases(fam)
    return fam


ADAM_OPTION_NAMES = ["lr", "beta1", "beta2", "eps", "weight_decay", "amsgrad", "maximize"]


def _adam_case(fam, kind, variant, groups, group_opts, dtype=torch.float32):
    """case adam/<variant> or adamw/<variant>: the SGD layout, with 7 sargs per group (lr, beta1,
    beta2, eps, weight_decay, amsgrad, maximize)."""
    name = f"{kind}/{variant}"
    r = Rng(name)
    params = [r.uniform(s, -1, 1, dtype) for s in SHAPES]
    grads = [r.normal(s, dtype) for _ in range(NSTEPS) for s in SHAPES]
    default_wd = 0.0 if kind == "adam" else 0.01
    full = []
    for o in group_opts:
        f = {"lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": default_wd,
             "amsgrad": False, "maximize": False}
        f.update(o)
        full.append(f)
    sargs = []
    for o in full:
        sargs += [bool(o[k]) if k in ("amsgrad", "maximize") else float(o[k])
                  for k in ADAM_OPTION_NAMES]
    ps = [p.clone().requires_grad_() for p in params]
    param_groups = []
    for g, o in enumerate(full):
        param_groups.append(dict(params=[p for p, gi in zip(ps, groups) if gi == g], lr=o["lr"],
                                 betas=(o["beta1"], o["beta2"]), eps=o["eps"],
                                 weight_decay=o["weight_decay"], amsgrad=o["amsgrad"],
                                 maximize=o["maximize"]))
    cls = torch.optim.Adam if kind == "adam" else torch.optim.AdamW
    opt = cls(param_groups, foreach=False)
    outs = _run_steps(opt, ps, grads)
    desc = "; ".join(", ".join(f"{k}={o[k]}" for k in ADAM_OPTION_NAMES) for o in full)
    fam.case(name, f"{kind}({desc})", params + grads, ref="outs", env={"outs": outs},
             sargs=sargs, iargs=[len(SHAPES), NSTEPS], ilists=[groups])


def _adam_cases(fam):
    one = [0, 0, 0]
    for kind in ("adam", "adamw"):
        _adam_case(fam, kind, "plain", one, [{"lr": 0.01}])
        _adam_case(fam, kind, "betas_eps", one,
                   [{"lr": 0.05, "beta1": 0.5, "beta2": 0.9, "eps": 1e-3}])
        _adam_case(fam, kind, "weight_decay", one, [{"lr": 0.02, "weight_decay": 0.1}])
        _adam_case(fam, kind, "amsgrad", one, [{"lr": 0.02, "amsgrad": True, "weight_decay": 0.05}])
        _adam_case(fam, kind, "maximize", one, [{"lr": 0.01, "maximize": True}])
        _adam_case(fam, kind, "two_groups", [0, 1, 0],
                   [{"lr": 0.01}, {"lr": 0.1, "beta1": 0.8, "amsgrad": True}])
        _adam_case(fam, kind, "amsgrad_float64", one,
                   [{"lr": 0.03, "amsgrad": True, "weight_decay": 0.02}], dtype=torch.float64)


# Option names in sarg order, and defaults, of the optimizers whose torch kwargs are these names.
KWARG_OPTIMIZERS = {
    "rmsprop": (torch.optim.RMSprop, ["lr", "alpha", "eps", "weight_decay", "momentum", "centered",
                                      "maximize"],
                {"lr": 1e-2, "alpha": 0.99, "eps": 1e-8, "weight_decay": 0.0, "momentum": 0.0,
                 "centered": False, "maximize": False}),
    "adagrad": (torch.optim.Adagrad, ["lr", "lr_decay", "weight_decay",
                                      "initial_accumulator_value", "eps", "maximize"],
                {"lr": 1e-2, "lr_decay": 0.0, "weight_decay": 0.0,
                 "initial_accumulator_value": 0.0, "eps": 1e-10, "maximize": False}),
    "adadelta": (torch.optim.Adadelta, ["lr", "rho", "eps", "weight_decay", "maximize"],
                 {"lr": 1.0, "rho": 0.9, "eps": 1e-6, "weight_decay": 0.0, "maximize": False}),
    "adamax": (torch.optim.Adamax, ["lr", "beta1", "beta2", "eps", "weight_decay", "maximize"],
               {"lr": 2e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.0,
                "maximize": False}),
    "nadam": (torch.optim.NAdam, ["lr", "beta1", "beta2", "eps", "weight_decay",
                                  "momentum_decay"],
              {"lr": 2e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.0,
               "momentum_decay": 4e-3}),
    "radam": (torch.optim.RAdam, ["lr", "beta1", "beta2", "eps", "weight_decay"],
              {"lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.0}),
}


def _torch_kwargs(o):
    """The torch keyword arguments for option dict o: beta1, beta2 become betas."""
    if "beta1" not in o:
        return o
    kw = {k: v for k, v in o.items() if k not in ("beta1", "beta2")}
    kw["betas"] = (o["beta1"], o["beta2"])
    return kw


def _kwarg_case(fam, kind, variant, groups, group_opts, dtype=torch.float32):
    """case <kind>/<variant>: the SGD layout, with len(names) sargs per group in KWARG_OPTIMIZERS'
    order (booleans as 0/1)."""
    cls, names, defaults = KWARG_OPTIMIZERS[kind]
    name = f"{kind}/{variant}"
    r = Rng(name)
    params = [r.uniform(s, -1, 1, dtype) for s in SHAPES]
    grads = [r.normal(s, dtype) for _ in range(NSTEPS) for s in SHAPES]
    full = [dict(defaults, **o) for o in group_opts]
    sargs = []
    for o in full:
        sargs += [o[k] if isinstance(o[k], bool) else float(o[k]) for k in names]
    ps = [p.clone().requires_grad_() for p in params]
    param_groups = [dict(params=[p for p, gi in zip(ps, groups) if gi == g], **_torch_kwargs(o))
                    for g, o in enumerate(full)]
    # Adagrad fills every state's sum at construction from the constructor's
    # initial_accumulator_value (group 0's here, Ember's defaults), not the group's: so do
    # LibTorch and Ember.
    extra = ({"initial_accumulator_value": full[0]["initial_accumulator_value"]}
             if kind == "adagrad" else {})
    opt = cls(param_groups, foreach=False, **extra)
    outs = _run_steps(opt, ps, grads)
    desc = "; ".join(", ".join(f"{k}={o[k]}" for k in names) for o in full)
    fam.case(name, f"{kind}({desc})", params + grads, ref="outs", env={"outs": outs},
             sargs=sargs, iargs=[len(SHAPES), NSTEPS], ilists=[groups])


def _rmsprop_adagrad_cases(fam):
    one = [0, 0, 0]
    _kwarg_case(fam, "rmsprop", "plain", one, [{"lr": 0.01}])
    _kwarg_case(fam, "rmsprop", "alpha_eps_decay", one,
                [{"lr": 0.02, "alpha": 0.9, "eps": 1e-3, "weight_decay": 0.1}])
    _kwarg_case(fam, "rmsprop", "momentum", one, [{"lr": 0.01, "momentum": 0.9}])
    _kwarg_case(fam, "rmsprop", "centered_momentum", one,
                [{"lr": 0.01, "momentum": 0.5, "centered": True}])
    _kwarg_case(fam, "rmsprop", "maximize_centered", one,
                [{"lr": 0.01, "centered": True, "maximize": True}])
    _kwarg_case(fam, "rmsprop", "two_groups", [0, 1, 0],
                [{"lr": 0.01}, {"lr": 0.05, "momentum": 0.9, "centered": True}])
    _kwarg_case(fam, "rmsprop", "centered_float64", one,
                [{"lr": 0.01, "momentum": 0.3, "centered": True, "weight_decay": 0.01}],
                dtype=torch.float64)
    _kwarg_case(fam, "adagrad", "plain", one, [{"lr": 0.1}])
    _kwarg_case(fam, "adagrad", "lr_decay_initial", one,
                [{"lr": 0.1, "lr_decay": 0.5, "initial_accumulator_value": 0.3}])
    _kwarg_case(fam, "adagrad", "weight_decay_eps", one,
                [{"lr": 0.05, "weight_decay": 0.2, "eps": 1e-2}])
    _kwarg_case(fam, "adagrad", "maximize", one, [{"lr": 0.1, "maximize": True}])
    _kwarg_case(fam, "adagrad", "two_groups", [0, 1, 0],
                [{"lr": 0.1}, {"lr": 0.3, "lr_decay": 0.1, "initial_accumulator_value": 1.0}])
    _kwarg_case(fam, "adagrad", "float64", one,
                [{"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.05}], dtype=torch.float64)


def _adadelta_adamax_cases(fam):
    one = [0, 0, 0]
    _kwarg_case(fam, "adadelta", "plain", one, [{}])
    _kwarg_case(fam, "adadelta", "rho_eps_lr", one, [{"lr": 0.5, "rho": 0.5, "eps": 1e-3}])
    _kwarg_case(fam, "adadelta", "weight_decay_maximize", one,
                [{"lr": 2.0, "weight_decay": 0.1, "maximize": True}])
    _kwarg_case(fam, "adadelta", "two_groups", [0, 1, 0],
                [{"lr": 1.0}, {"lr": 0.3, "rho": 0.99, "weight_decay": 0.05}])
    _kwarg_case(fam, "adadelta", "float64", one, [{"lr": 0.7, "rho": 0.8, "weight_decay": 0.02}],
                dtype=torch.float64)
    _kwarg_case(fam, "adamax", "plain", one, [{"lr": 0.01}])
    _kwarg_case(fam, "adamax", "betas_eps", one,
                [{"lr": 0.05, "beta1": 0.5, "beta2": 0.9, "eps": 1e-3}])
    _kwarg_case(fam, "adamax", "weight_decay_maximize", one,
                [{"lr": 0.02, "weight_decay": 0.1, "maximize": True}])
    _kwarg_case(fam, "adamax", "two_groups", [0, 1, 0],
                [{"lr": 0.01}, {"lr": 0.1, "beta1": 0.8, "weight_decay": 0.01}])
    _kwarg_case(fam, "adamax", "float64", one, [{"lr": 0.03, "beta2": 0.99, "weight_decay": 0.02}],
                dtype=torch.float64)


def _nadam_radam_cases(fam):
    one = [0, 0, 0]
    _kwarg_case(fam, "nadam", "plain", one, [{"lr": 0.01}])
    _kwarg_case(fam, "nadam", "betas_eps", one,
                [{"lr": 0.05, "beta1": 0.5, "beta2": 0.9, "eps": 1e-3}])
    _kwarg_case(fam, "nadam", "weight_decay_momentum_decay", one,
                [{"lr": 0.02, "weight_decay": 0.1, "momentum_decay": 0.3}])
    _kwarg_case(fam, "nadam", "two_groups", [0, 1, 0],
                [{"lr": 0.01}, {"lr": 0.1, "beta1": 0.8, "momentum_decay": 0.01}])
    _kwarg_case(fam, "nadam", "float64", one,
                [{"lr": 0.03, "beta2": 0.99, "weight_decay": 0.02, "momentum_decay": 0.1}],
                dtype=torch.float64)
    # RAdam rectifies once rho_t > 5: from step 6 with beta2 = 0.999, from step 2 with small
    # beta2; both branches are covered within NSTEPS by "rectified".
    _kwarg_case(fam, "radam", "plain", one, [{"lr": 0.01}])
    _kwarg_case(fam, "radam", "rectified", one,
                [{"lr": 0.05, "beta1": 0.5, "beta2": 0.3, "eps": 1e-3}])
    _kwarg_case(fam, "radam", "weight_decay", one, [{"lr": 0.02, "weight_decay": 0.1}])
    _kwarg_case(fam, "radam", "two_groups", [0, 1, 0],
                [{"lr": 0.01}, {"lr": 0.1, "beta1": 0.8, "beta2": 0.5, "weight_decay": 0.01}])
    _kwarg_case(fam, "radam", "float64", one,
                [{"lr": 0.03, "beta2": 0.4, "weight_decay": 0.02}], dtype=torch.float64)


LBFGS_SHAPES = [[3], [2, 2]]
LBFGS_STEPS = 3
LBFGS_OPTION_NAMES = ["lr", "max_iter", "max_eval", "tolerance_grad", "tolerance_change",
                      "history_size", "strong_wolfe"]


def lbfgs_objective(params, problem, data):
    """The closure's loss over the parameters flattened into x (tests/optim/lbfgs_test.cpp
    computes the same): problem 0 is the Rosenbrock function
    sum_j 100 (x_{j+1} - x_j^2)^2 + (1 - x_j)^2; problem 1 the quadratic 0.5 x.(A x) - b.x with
    A = data[0] (symmetric positive definite) and b = data[1]."""
    x = torch.cat([p.reshape(-1) for p in params])
    if problem == 0:
        return (100 * (x[1:] - x[:-1] * x[:-1]) ** 2 + (1 - x[:-1]) ** 2).sum()
    a, b = data
    return 0.5 * (x * (a @ x)).sum() - (b * x).sum()


def _lbfgs_case(fam, variant, problem, opts, dtype=torch.float32):
    """case lbfgs/<variant>:
        iarg <nparam> <nsteps> <problem>    problem: 0 Rosenbrock, 1 quadratic (lbfgs_objective)
        sarg x 7                           lr, max_iter, max_eval, tolerance_grad,
                                           tolerance_change, history_size, strong_wolfe
        arg x P                            the initial parameters
        arg A, b                           the quadratic's data (problem 1 only)
        out x (P + 1) * S                  after step k: the parameters (out k*(P+1) + i) and
                                           the loss step k returned (out k*(P+1) + P, 0-dim)
    """
    name = f"lbfgs/{variant}"
    r = Rng(name)
    full = {"lr": 1.0, "max_iter": 20, "max_eval": None, "tolerance_grad": 1e-7,
            "tolerance_change": 1e-9, "history_size": 100, "strong_wolfe": False}
    full.update(opts)
    if full["max_eval"] is None:
        full["max_eval"] = full["max_iter"] * 5 // 4
    params = [r.uniform(s, -1, 1, dtype) for s in LBFGS_SHAPES]
    n = sum(p.numel() for p in params)
    data = []
    if problem == 1:
        m = r.normal([n, n], dtype)
        data = [m @ m.T / n + torch.eye(n, dtype=dtype), r.normal([n], dtype)]
    ps = [p.clone().requires_grad_() for p in params]
    opt = torch.optim.LBFGS(ps, lr=full["lr"], max_iter=full["max_iter"],
                            max_eval=full["max_eval"], tolerance_grad=full["tolerance_grad"],
                            tolerance_change=full["tolerance_change"],
                            history_size=full["history_size"],
                            line_search_fn="strong_wolfe" if full["strong_wolfe"] else None)

    def closure():
        opt.zero_grad()
        loss = lbfgs_objective(ps, problem, data)
        loss.backward()
        return loss

    outs = []
    for _ in range(LBFGS_STEPS):
        loss = opt.step(closure)
        outs += [p.detach().clone() for p in ps] + [loss.detach().clone()]
    sargs = [full[k] if isinstance(full[k], bool) else
             (int(full[k]) if k in ("max_iter", "max_eval", "history_size") else float(full[k]))
             for k in LBFGS_OPTION_NAMES]
    desc = ", ".join(f"{k}={full[k]}" for k in LBFGS_OPTION_NAMES)
    fam.case(name, f"lbfgs({desc})", params + data, ref="outs", env={"outs": outs}, sargs=sargs,
             iargs=[len(LBFGS_SHAPES), LBFGS_STEPS, problem])


def _lbfgs_cases(fam):
    _lbfgs_case(fam, "rosenbrock_fixed", 0, {"lr": 0.1, "max_iter": 10})
    # float32 line searches run few iterations: Python does the search's scalar arithmetic in
    # float32 0-dim tensors (Ember and LibTorch in double), a difference that grows large once
    # the iterates sit in the flat bottom of the valley. The float64 cases check the long runs.
    _lbfgs_case(fam, "rosenbrock_strong_wolfe", 0, {"strong_wolfe": True, "max_iter": 4})
    _lbfgs_case(fam, "quadratic_fixed_history", 1, {"lr": 0.5, "max_iter": 8, "history_size": 3})
    _lbfgs_case(fam, "quadratic_strong_wolfe", 1,
                {"strong_wolfe": True, "max_iter": 2, "history_size": 4})
    _lbfgs_case(fam, "rosenbrock_strong_wolfe_float64", 0,
                {"strong_wolfe": True, "max_iter": 12, "history_size": 5}, dtype=torch.float64)
    _lbfgs_case(fam, "quadratic_fixed_float64", 1, {"lr": 0.7, "max_iter": 9, "max_eval": 7},
                dtype=torch.float64)
