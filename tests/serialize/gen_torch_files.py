#!/usr/bin/python3
"""Writes the torch.save files that Ember's reader tests load, and checks the files Ember wrote.

Run with Debian's python3-torch (torch 1.13):
    /usr/bin/python3 tests/serialize/gen_torch_files.py           # (re)write tests/serialize/data/
    /usr/bin/python3 tests/serialize/gen_torch_files.py verify    # torch.load(weights_only=True)
                                                                  # data/ember_written/* and check
The files are committed; CI never runs this script. Output is deterministic (fixed seeds, values
chosen to be exact in every dtype).

data/manifest.txt, one line per tensor of the readable files (what the C++ test compares):
    <file> <key> <dtype> <sizes> <strides> <storage_offset> <storage_group> <requires_grad> <hex>
sizes/strides are comma-separated ("-" for none: a 0-dim tensor); storage_group numbers the
distinct storages of one file in order of first use (tensors with equal groups share a storage);
<hex> is the tensor's elements in row-major order, each as its little-endian bytes ("-" if empty).

Hostile files (each must be refused with an Error; the C++ test names the expected message):
    evil_os_system.pt        data.pkl calls os.system through GLOBAL + REDUCE
    evil_global.pt           a state_dict holding a datetime.date (a non-state_dict global)
    truncated.pt             the first half of a valid file
    bad_offset.pt            a central directory entry pointing past the end of the file
    short_storage.pt         a storage record shorter than its persistent id's numel needs
    tensor_past_storage.pt   a tensor whose sizes reach past its storage's numel
    deep_nesting.pt          a pickle of 5000 lists nested in each other
    evil_inst.pt             an INST opcode (instantiates an arbitrary class)
"""
import collections
import datetime
import io
import os
import sys
import zipfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
EMBER_WRITTEN = os.path.join(DATA, "ember_written")
DTYPE_NAMES = {
    torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
    torch.bfloat16: "bfloat16", torch.int8: "int8", torch.int16: "int16", torch.int32: "int32",
    torch.int64: "int64", torch.uint8: "uint8", torch.bool: "bool",
}


def tensor_hex(t):
    if t.numel() == 0:
        return "-"
    return t.detach().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes().hex()


def ints(v):
    return ",".join(str(x) for x in v) if len(v) else "-"


def manifest_lines(name, state):
    groups, lines = {}, []
    for key, t in state.items():
        ptr = t.storage().data_ptr() if t.numel() or t.storage().size() else ("empty", key)
        group = groups.setdefault(ptr, len(groups))
        lines.append(" ".join([name, key, DTYPE_NAMES[t.dtype], ints(t.shape), ints(t.stride()),
                               str(t.storage_offset()), str(group), str(int(t.requires_grad)),
                               tensor_hex(t)]))
    return lines


def dtypes_state():
    base = torch.tensor([0.0, 1.5, -2.25, 3.0, 100.0, -0.5])
    sd = collections.OrderedDict()
    for dtype in DTYPE_NAMES:
        if dtype == torch.bool:
            sd["bool"] = torch.tensor([True, False, True, True, False, False]).reshape(2, 3)
        elif dtype.is_floating_point:
            sd[DTYPE_NAMES[dtype]] = base.to(dtype).reshape(2, 3)
        else:
            sd[DTYPE_NAMES[dtype]] = torch.tensor([0, 1, 2, 100, 7, 127]).to(dtype).reshape(2, 3)
    sd["int64_big"] = torch.tensor([-(2**62), 2**40, -1], dtype=torch.int64)
    sd["float64_exact"] = torch.tensor([1 / 3, -1e-300, 2.5e300], dtype=torch.float64)
    return sd


def views_state():
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    sd = collections.OrderedDict()
    sd["base"] = base
    sd["transposed"] = base.t()               # shares base's storage, strides (1, 4)
    sd["sliced"] = base[1:, 1:3]              # storage offset 5, strides (4, 1)
    sd["row"] = base[2]                       # offset 8
    other = torch.arange(5, dtype=torch.int64) * 3
    sd["other"] = other[::2]                  # stride 2
    sd["scalar"] = torch.tensor(2.5, dtype=torch.float64)
    sd["empty"] = torch.zeros(0, 3)
    return sd


def sequential_state():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(),
                                torch.nn.Linear(4, 2))
    model.train()
    with torch.no_grad():
        model(torch.randn(5, 3))               # running stats move off their defaults
    return model.state_dict()                  # an OrderedDict with _metadata


def param_state():
    return {"p": torch.nn.Parameter(torch.tensor([1.0, -2.0])), "q": torch.tensor([3, 4])}


def save(name, obj):
    torch.save(obj, os.path.join(DATA, name))


def write_zip(name, pkl, records=()):
    """A torch.save-shaped zip written by Python's zipfile (unaligned, but valid)."""
    def info(rec_name):  # a fixed timestamp keeps the output deterministic
        return zipfile.ZipInfo("archive/" + rec_name, date_time=(2020, 1, 1, 0, 0, 0))

    with zipfile.ZipFile(os.path.join(DATA, name), "w", zipfile.ZIP_STORED) as z:
        z.writestr(info("data.pkl"), pkl)
        for rec_name, data in records:
            z.writestr(info(rec_name), data)
        z.writestr(info("version"), b"3\n")


def torch_bytes(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def zip_records(blob):
    z = zipfile.ZipFile(io.BytesIO(blob))
    return {info.filename.split("/", 1)[1]: z.read(info.filename) for info in z.infolist()}


def write_hostile():
    write_zip("evil_os_system.pt", b"\x80\x02cos\nsystem\nX\x04\x00\x00\x00echo\x85R.")
    save("evil_global.pt", {"w": torch.ones(2), "when": datetime.date(2020, 1, 1)})
    good = torch_bytes({"w": torch.arange(6.0)})
    with open(os.path.join(DATA, "truncated.pt"), "wb") as f:
        f.write(good[: len(good) // 2])
    # Point the first central directory entry's local header offset past the end.
    cd = good.find(b"PK\x01\x02")
    bad = bytearray(good)
    bad[cd + 42: cd + 46] = (len(good) + 1000).to_bytes(4, "little")
    with open(os.path.join(DATA, "bad_offset.pt"), "wb") as f:
        f.write(bytes(bad))
    recs = zip_records(torch_bytes({"w": torch.arange(6.0).reshape(2, 3)}))
    write_zip("short_storage.pt", recs["data.pkl"], [("data/0", recs["data/0"][:12])])
    pkl = recs["data.pkl"]
    sizes = b"K\x02K\x03\x86"
    assert pkl.count(sizes) == 1
    write_zip("tensor_past_storage.pt", pkl.replace(sizes, b"K\x04K\x03\x86"),
              [("data/0", recs["data/0"])])
    n = 5000
    write_zip("deep_nesting.pt", b"\x80\x02" + b"]" * n + b"a" * (n - 1) + b".")
    write_zip("evil_inst.pt", b"\x80\x02(X\x01\x00\x00\x00xios\nsystem\n.")


def generate():
    os.makedirs(EMBER_WRITTEN, exist_ok=True)
    lines = []
    readable = [("dtypes.pt", dtypes_state()), ("views.pt", views_state()),
                ("sequential.pt", sequential_state()), ("param.pt", param_state())]
    for name, state in readable:
        save(name, state)
        lines += manifest_lines(name, state)
    # Protocol 4 (FRAME, SHORT_BINUNICODE, MEMOIZE, STACK_GLOBAL), as torch.save(...,
    # pickle_protocol=4) writes it.
    torch.save(dtypes_state(), os.path.join(DATA, "dtypes_p4.pt"), pickle_protocol=4)
    lines += manifest_lines("dtypes_p4.pt", dtypes_state())
    # A generic value for ember::pickle_load: nested containers of every kind it reads.
    save("generic.pt", {"ints": [1, -2, 300, 70000, -(2**40)], "floats": (0.5, -1e10),
                        "strs": ["a", "\u00e9t\u00e9"], "flags": [True, False, None],
                        "nested": {"t": torch.tensor([1, 2], dtype=torch.int32), "e": {}}})
    with open(os.path.join(DATA, "manifest.txt"), "w") as f:
        f.write("# Written by gen_torch_files.py; see its docstring for the format.\n")
        f.write("\n".join(lines) + "\n")
    write_hostile()


def verify():
    """torch.load(weights_only=True) each file Ember wrote and compare with the manifest."""
    expected = {}
    with open(os.path.join(DATA, "manifest.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.split()
            expected.setdefault(fields[0], []).append(fields)
    checked = 0
    for name, rows in expected.items():
        path = os.path.join(EMBER_WRITTEN, name)
        state = torch.load(path, weights_only=True)
        assert list(state.keys()) == [r[1] for r in rows], (name, list(state.keys()))
        groups = {}
        for r in rows:
            t = state[r[1]]
            got = [DTYPE_NAMES[t.dtype], ints(t.shape), ints(t.stride()), str(t.storage_offset())]
            assert got == r[2:6], (name, r[1], got, r[2:6])
            assert tensor_hex(t) == r[8], (name, r[1])
            if t.numel():
                # Equal groups in the manifest must share one storage in the loaded file too.
                ptr = groups.setdefault(r[6], t.storage().data_ptr())
                assert ptr == t.storage().data_ptr(), (name, r[1], "storage not shared")
            checked += 1
        print("verified", path, len(rows), "tensors")
    # torch 1.13's weights_only unpickler has no BINFLOAT opcode (later versions do), and
    # generic.pt holds floats: this one file is read with the full unpickler.
    generic = torch.load(os.path.join(EMBER_WRITTEN, "generic.pt"), weights_only=False)
    want = torch.load(os.path.join(DATA, "generic.pt"))
    assert generic.keys() == want.keys(), generic
    for k in want:
        if k != "nested":
            assert generic[k] == want[k], (k, generic[k], want[k])
    assert torch.equal(generic["nested"]["t"], want["nested"]["t"])
    assert generic["nested"]["e"] == {}
    print("verified generic.pt; all", checked, "tensors match")


if __name__ == "__main__":
    torch.set_num_threads(1)
    if sys.argv[1:] == ["verify"]:
        verify()
    elif sys.argv[1:]:
        sys.exit(__doc__)
    else:
        generate()
