"""nn_rnn.golden: torch.nn's recurrent layers and cells (RNN, LSTM, GRU, RNNCell, LSTMCell,
GRUCell): outputs, final states and the gradients of every input and parameter.

Record layout (tests/nn/modules_rnn_test.cpp builds the same module and reads this):

    case <Module>/<variant>   Module: RNN LSTM GRU RNNCell LSTMCell GRUCell
    call <text>               the Python that built and ran it, for messages
    flag relu                 RNN / RNNCell: nonlinearity='relu' (absent: tanh)
    str <name>                one per parameter, named_parameters() order
    iarg                      layers: input_size hidden_size num_layers bias batch_first
                              bidirectional proj_size has_state
                              cells:  input_size hidden_size bias has_state
    arg input                 (<Module>Packed records: then `arg lengths`, int64, see PACKED)
                              then, with has_state, the initial state (h0; LSTM: h0 c0), then
                              one cotangent per output, then the parameters in `str` order
    out                       the outputs (layers: output, h_n[, c_n]; RNNCell/GRUCell: h';
                              LSTMCell: h', c'), then the gradients of loss = sum over outputs of
                              (output * cotangent).sum() with respect to the input, the initial
                              state (with has_state) and each parameter, in that order

Every case exists in float64 (checked at float64 precision) and float32. The module runs in
eval mode (dropout between layers is tested separately, it is random).
"""

import torch
import torch.nn as nn

from .common import Family, Rng

DTYPES = [("float64", torch.float64), ("float32", torch.float32)]

# (variant, module name, constructor kwargs, (seq, batch) or None for unbatched, has_state)
LAYERS = [
    ("tanh_1layer", "RNN", dict(input_size=3, hidden_size=4), (5, 2), True),
    ("relu_2layer_nostate", "RNN", dict(input_size=3, hidden_size=4, num_layers=2,
                                        nonlinearity="relu"), (4, 3), False),
    ("tanh_bidir_batch_first", "RNN", dict(input_size=2, hidden_size=3, bidirectional=True,
                                           batch_first=True), (4, 2), True),
    ("tanh_unbatched", "RNN", dict(input_size=3, hidden_size=2, num_layers=2), None, True),
    ("1layer", "LSTM", dict(input_size=3, hidden_size=4), (5, 2), True),
    ("2layer_bidir", "LSTM", dict(input_size=3, hidden_size=4, num_layers=2,
                                  bidirectional=True), (4, 3), True),
    ("nobias_batch_first_nostate", "LSTM", dict(input_size=4, hidden_size=3, bias=False,
                                                batch_first=True), (3, 2), False),
    ("proj", "LSTM", dict(input_size=3, hidden_size=5, proj_size=2), (4, 2), True),
    ("proj_2layer_bidir", "LSTM", dict(input_size=3, hidden_size=4, proj_size=3, num_layers=2,
                                       bidirectional=True), (3, 2), True),
    ("unbatched", "LSTM", dict(input_size=2, hidden_size=3, num_layers=2), None, True),
    # hidden sizes past one register of floats: the fused kernels' vector body and tail
    ("wide", "LSTM", dict(input_size=5, hidden_size=18), (4, 3), True),
    ("wide_bidir_nostate", "LSTM", dict(input_size=3, hidden_size=17, bidirectional=True),
     (3, 2), False),
    ("1layer", "GRU", dict(input_size=3, hidden_size=4), (5, 2), True),
    ("2layer_bidir_batch_first", "GRU", dict(input_size=3, hidden_size=4, num_layers=2,
                                             bidirectional=True, batch_first=True), (4, 3), True),
    ("nobias_nostate", "GRU", dict(input_size=2, hidden_size=3, bias=False), (3, 2), False),
    ("unbatched_nostate", "GRU", dict(input_size=3, hidden_size=2), None, False),
]

# Packed sequences: (variant, module name, kwargs, lengths in input order, has_state). Recorded
# as <Module>Packed/<variant>: the input padded, then `arg lengths` (int64) after it; the module
# runs on pack_padded_sequence(input, lengths, batch_first, enforce_sorted=False) and the first
# output is pad_packed_sequence's padded result (zeros past each length).
PACKED = [
    ("bidir_2layer", "LSTM", dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True),
     [3, 5, 1, 4], True),
    ("proj_batch_first_nostate", "LSTM", dict(input_size=2, hidden_size=5, proj_size=3,
                                              batch_first=True), [2, 4, 4], False),
    ("bidir", "GRU", dict(input_size=3, hidden_size=4, bidirectional=True), [4, 2, 3], True),
    ("relu_2layer", "RNN", dict(input_size=2, hidden_size=3, num_layers=2, nonlinearity="relu"),
     [1, 3, 2], True),
]

# (variant, module name, constructor kwargs, batch or None for unbatched, has_state)
CELLS = [
    ("tanh", "RNNCell", dict(input_size=3, hidden_size=4), 2, True),
    ("relu_nobias", "RNNCell", dict(input_size=3, hidden_size=4, bias=False,
                                    nonlinearity="relu"), 3, True),
    ("nostate", "RNNCell", dict(input_size=2, hidden_size=3), 2, False),
    ("state", "LSTMCell", dict(input_size=3, hidden_size=4), 2, True),
    ("nobias_nostate", "LSTMCell", dict(input_size=3, hidden_size=2, bias=False), 3, False),
    ("unbatched", "LSTMCell", dict(input_size=3, hidden_size=2), None, True),
    ("state", "GRUCell", dict(input_size=3, hidden_size=4), 2, True),
    ("nobias_unbatched", "GRUCell", dict(input_size=2, hidden_size=3, bias=False), None, True),
]


def _kwargs_text(kw):
    return ", ".join(f"{k}={v!r}" for k, v in kw.items())


def _run(fam, name, module_name, kw, inputs, states, iargs, dtype, rng, lengths=None):
    module = getattr(nn, module_name)(**kw).to(dtype).eval()
    names = [n for n, _ in module.named_parameters()]
    params = []
    hidden = kw["hidden_size"]
    with torch.no_grad():
        for n, p in module.named_parameters():
            p.copy_(rng.uniform(p.shape, -hidden ** -0.5, hidden ** -0.5, dtype))
            params.append(p.detach().clone())
    x = inputs.clone().requires_grad_(True)
    st = [s.clone().requires_grad_(True) for s in states]
    if lengths is not None:
        bf = kw.get("batch_first", False)
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=bf,
                                                   enforce_sorted=False)
        arg = tuple(st) if module_name == "LSTM" else (st[0] if st else None)
        res = module(packed, arg) if st else module(packed)
        out = nn.utils.rnn.pad_packed_sequence(res[0], batch_first=bf,
                                               total_length=inputs.shape[1 if bf else 0])[0]
        outs = [out] + (list(res[1]) if module_name == "LSTM" else [res[1]])
    elif module_name == "LSTM":
        out, (h, c) = module(x, tuple(st)) if st else module(x)
        outs = [out, h, c]
    elif module_name == "LSTMCell":
        outs = list(module(x, tuple(st)) if st else module(x))
    else:
        res = module(x, st[0]) if st else module(x)
        outs = list(res) if isinstance(res, tuple) else [res]
    cots = [rng.normal(o.shape, dtype) for o in outs]
    loss = sum((o * c).sum() for o, c in zip(outs, cots))
    wrt = [x] + st + list(module.parameters())
    grads = torch.autograd.grad(loss, wrt)
    ev = {"res": [o.detach() for o in outs] + [g.detach() for g in grads]}
    flags = ["relu"] if kw.get("nonlinearity") == "relu" else []
    call = f"nn.{module_name}({_kwargs_text(kw)}) on {list(inputs.shape)}" + (
        " with state" if states else "")
    if lengths is not None:
        call += f" packed with lengths {lengths.tolist()} (enforce_sorted=False)"
    extra = [lengths] if lengths is not None else []
    fam.case(name, call, [inputs] + extra + states + cots + params, ref="res", env=ev,
             iargs=iargs, strs=names, flags=flags)


def _layer_case(fam, name, module_name, kw, shape, has_state, dtype, lengths=None):
    """One layer record: shape (seq, batch) or None for unbatched; lengths for a packed run."""
    rng = Rng(name)
    layers = kw.get("num_layers", 1)
    dirs = 2 if kw.get("bidirectional") else 1
    proj = kw.get("proj_size", 0)
    hout = proj if proj else kw["hidden_size"]
    batch_first = kw.get("batch_first", False)
    if shape is None:
        x = rng.normal([4, kw["input_size"]], dtype)
        batch_dims = []
    else:
        seq, batch = shape
        x = rng.normal([batch, seq, kw["input_size"]] if batch_first
                       else [seq, batch, kw["input_size"]], dtype)
        batch_dims = [batch]
    states = []
    if has_state:
        states.append(rng.normal([layers * dirs] + batch_dims + [hout], dtype))
        if module_name == "LSTM":
            states.append(rng.normal([layers * dirs] + batch_dims + [kw["hidden_size"]], dtype))
    iargs = [kw["input_size"], kw["hidden_size"], layers, int(kw.get("bias", True)),
             int(batch_first), int(dirs == 2), proj, int(has_state)]
    _run(fam, name, module_name, kw, x, states, iargs, dtype, rng,
         lengths=None if lengths is None else torch.tensor(lengths, dtype=torch.int64))


def _layer_cases(fam):
    for variant, module_name, kw, shape, has_state in LAYERS:
        for dname, dtype in DTYPES:
            _layer_case(fam, f"{module_name}/{variant}_{dname}", module_name, kw, shape,
                        has_state, dtype)


def _packed_cases(fam):
    for variant, module_name, kw, lengths, has_state in PACKED:
        for dname, dtype in DTYPES:
            _layer_case(fam, f"{module_name}Packed/{variant}_{dname}", module_name, kw,
                        (max(lengths), len(lengths)), has_state, dtype, lengths)


def _cell_cases(fam):
    for variant, module_name, kw, batch, has_state in CELLS:
        for dname, dtype in DTYPES:
            name = f"{module_name}/{variant}_{dname}"
            rng = Rng(name)
            batch_dims = [] if batch is None else [batch]
            x = rng.normal(batch_dims + [kw["input_size"]], dtype)
            states = []
            if has_state:
                states.append(rng.normal(batch_dims + [kw["hidden_size"]], dtype))
                if module_name == "LSTMCell":
                    states.append(rng.normal(batch_dims + [kw["hidden_size"]], dtype))
            iargs = [kw["input_size"], kw["hidden_size"], int(kw.get("bias", True)),
                     int(has_state)]
            _run(fam, name, module_name, kw, x, states, iargs, dtype, rng)


def gen_nn_rnn():
    fam = Family("nn_rnn", ["Recurrent layers and cells of torch.nn; layout in "
                            "tests/golden/gen/nn_rnn.py."])
    _layer_cases(fam)
    _packed_cases(fam)
    _cell_cases(fam)
    return fam
