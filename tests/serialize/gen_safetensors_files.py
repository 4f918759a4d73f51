#!/usr/bin/python3
"""Writes the safetensors test files of tests/serialize/data/safetensors/ (committed; CI never runs
this). Run with Debian's python3-torch 1.13:  /usr/bin/python3 tests/serialize/gen_safetensors_files.py

Debian 12 has no `safetensors` package, so the files are written here with json + struct,
following the format's specification and its reference writer (Rust `safetensors::tensor::prepare`):
tensors ordered by dtype rank (the Dtype enum: larger first), then by name; the header is compact
JSON with "__metadata__" first, padded with spaces to a multiple of 8 bytes; the data follows
contiguously, little-endian.

Outputs:
  <name>.safetensors   a valid file
  <name>.expected      what it holds, independent of any safetensors reader: one line per item,
                       "metadata <key hex> <value hex>" and
                       "tensor <name hex> <DTYPE> <ndim> <dims...> <data hex>" (hex "-": empty)
                       (tensor lines in the order of the file's header)
  hostile_<what>.safetensors   invalid files; the test expects an Error naming the problem
Seeds for tools/fuzz-parsers.sh go to tests/fuzz_parsers/corpus/{safetensors,archive}/.
"""
import json
import os
import shutil
import struct

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data", "safetensors")
CORPUS = os.path.join(HERE, "..", "fuzz_parsers", "corpus")

# Safetensors dtype name -> (torch dtype, rank in the reference's Dtype enum).
DTYPES = {
    "BOOL": (torch.bool, 0),
    "U8": (torch.uint8, 1),
    "I8": (torch.int8, 2),
    "I16": (torch.int16, 5),
    "F16": (torch.float16, 7),
    "BF16": (torch.bfloat16, 8),
    "I32": (torch.int32, 9),
    "F32": (torch.float32, 11),
    "F64": (torch.float64, 12),
    "I64": (torch.int64, 13),
}
NAME_OF = {v[0]: k for k, v in DTYPES.items()}


def tensor_bytes(t):
    t = t.contiguous()
    if t.dtype in (torch.float16, torch.bfloat16):
        t = t.view(torch.int16)  # numpy has no bfloat16: the same bits as int16
    return t.numpy().tobytes()


def header_json(obj):
    # Compact, UTF-8 (not \u escapes) and control characters as \u00xx: what serde_json writes.
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def reference_bytes(tensors, metadata=None):
    """The bytes Python's safetensors.torch.save_file writes for `tensors` (a dict)."""
    items = sorted(tensors.items(), key=lambda kv: (-DTYPES[NAME_OF[kv[1].dtype]][1], kv[0]))
    header = {}
    if metadata is not None:
        header["__metadata__"] = dict(sorted(metadata.items()))
    data, offset = [], 0
    for name, t in items:
        b = tensor_bytes(t)
        header[name] = {"dtype": NAME_OF[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(b)]}
        data.append(b)
        offset += len(b)
    h = header_json(header)
    h += b" " * ((8 - len(h) % 8) % 8)
    return struct.pack("<Q", len(h)) + h + b"".join(data)


def raw_file(header_obj_or_bytes, data=b"", pad=True):
    """A file from a header (dict or raw bytes) and data, for hand-made and hostile files."""
    h = header_obj_or_bytes if isinstance(header_obj_or_bytes, bytes) else header_json(header_obj_or_bytes)
    if pad:
        h += b" " * ((8 - len(h) % 8) % 8)
    return struct.pack("<Q", len(h)) + h + data


def write(name, content):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(content)


def expected_lines(content):
    """Describes a valid file from its own header, in header order (checked against the tensors
    it was made from by the caller)."""
    n = struct.unpack("<Q", content[:8])[0]
    header = json.loads(content[8:8 + n].decode("utf-8"))
    data = content[8 + n:]
    lines = []
    for k, v in sorted(header.get("__metadata__", {}).items()):
        lines.append("metadata %s %s" % (k.encode().hex() or "-", v.encode().hex() or "-"))
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        chunk = data[b:e].hex() or "-"
        lines.append("tensor %s %s %d %s %s" % (name.encode().hex() or "-", info["dtype"], len(info["shape"]),
                                                " ".join(str(s) for s in info["shape"]), chunk))
    return "\n".join(lines) + "\n"


def valid(name, content, tensors):
    write(name + ".safetensors", content)
    text = expected_lines(content)
    # The description must agree with the tensors themselves, not just with the header.
    for tname, t in tensors.items():
        assert ("tensor %s %s" % (tname.encode().hex() or "-", NAME_OF[t.dtype])) in text, tname
        assert (tensor_bytes(t).hex() or "-") in text, tname
    with open(os.path.join(OUT, name + ".expected"), "w") as f:
        f.write(text)


def all_dtypes():
    inf, nan = float("inf"), float("nan")
    t = {}
    for dt in (torch.float64, torch.float32, torch.float16, torch.bfloat16):
        t[NAME_OF[dt].lower()] = torch.tensor([[-2.5, -0.0, 0.0, 1.0 / 3], [1.5, inf, -inf, nan]], dtype=dt)
    for dt in (torch.int64, torch.int32, torch.int16, torch.int8):
        info = torch.iinfo(dt)
        t[NAME_OF[dt].lower()] = torch.tensor([[info.min, -1, 0], [1, 100, info.max]], dtype=dt)
    t["u8"] = torch.tensor([[0, 1, 127], [128, 200, 255]], dtype=torch.uint8)
    t["bool"] = torch.tensor([[True, False, True], [False, False, True]])
    t["f32_transposed"] = torch.arange(6, dtype=torch.float32).reshape(2, 3).t()  # saved contiguous
    return t


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))

    t = all_dtypes()
    valid("all_dtypes", reference_bytes(t, {"format": "pt", "source": "gen_safetensors_files.py"}), t)

    t = {"scalar_f32": torch.tensor(3.25), "scalar_bool": torch.tensor(True),
         "scalar_i64": torch.tensor(-7), "empty_f32": torch.zeros(0),
         "empty_i64_2x0": torch.zeros(2, 0, dtype=torch.int64)}
    valid("scalar_and_empty", reference_bytes(t), t)

    t = {"na\u00efve": torch.tensor([1.0]), 'q"uote': torch.tensor([2.0]), "back\\slash": torch.tensor([3.0]),
         "tab\tname": torch.tensor([4.0]), "ctl\x01": torch.tensor([5.0]), "\u65e5\u672c": torch.tensor([6.0]),
         "emoji\U0001F600": torch.tensor([7.0]), "": torch.tensor([8.0])}
    valid("unicode_names", reference_bytes(t, {"note": "\u00fcn\u00efcode \"q\" \n\t\x7f"}), t)

    # A state_dict Python made (after one training step, so the BatchNorm buffers are not trivial).
    torch.manual_seed(0)
    model = torch.nn.Module()
    model.fc1 = torch.nn.Linear(3, 4)
    model.bn = torch.nn.BatchNorm1d(4)
    model.fc2 = torch.nn.Linear(4, 2)
    model.fc2(model.bn(model.fc1(torch.randn(5, 3))))
    t = {k: v.detach().clone() for k, v in model.state_dict().items()}
    valid("state_dict", reference_bytes(t, {"format": "pt"}), t)

    # An older writer's layout: unpadded header, tensors in name order, not aligned (I64 at byte 4
    # of the buffer, whose start is odd): Ember copies what it cannot map aligned.
    b, a = torch.tensor([1.5], dtype=torch.float32), torch.tensor([-3, 5], dtype=torch.int64)
    hdr = header_json({"a": {"dtype": "I64", "shape": [2], "data_offsets": [4, 20]},
                       "b": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})
    if (8 + len(hdr)) % 2 == 0:
        hdr += b" "
    valid("legacy_layout", raw_file(hdr, tensor_bytes(b) + tensor_bytes(a), pad=False), {"a": a, "b": b})

    f32x2 = struct.pack("<2f", 1.0, 2.0)
    info = lambda dtype, shape, b, e: {"dtype": dtype, "shape": shape, "data_offsets": [b, e]}
    hostile = {
        "too_short": b"\x05\x00\x00",
        "header_past_end": struct.pack("<Q", 1000) + b"{}",
        "header_too_large": struct.pack("<Q", 1 << 40) + b"{}" + b" " * 6,
        "header_not_object": raw_file(b"[1,2]"),
        "bad_json": raw_file(b'{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},}', f32x2),
        "bad_utf8": raw_file(b'{"\xff\xfe":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}', f32x2),
        "duplicate_key": raw_file(b'{"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
                                  b'"x":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', f32x2),
        "deep_json": raw_file(b'{"__metadata__":' + b"[" * 200 + b"]" * 200 + b"}"),
        "unknown_dtype": raw_file({"x": info("F128", [1], 0, 8)}, f32x2),
        "unsupported_dtype": raw_file({"x": info("U16", [4], 0, 8)}, f32x2),
        "negative_shape": raw_file({"x": info("F32", [-2], 0, 8)}, f32x2),
        "huge_shape": raw_file({"x": info("F32", [1 << 62, 1 << 62], 0, 8)}, f32x2),
        "size_mismatch": raw_file({"x": info("F32", [3], 0, 8)}, f32x2),
        "offsets_out_of_range": raw_file({"x": info("F32", [16], 0, 64)}, f32x2),
        "offsets_reversed": raw_file({"x": info("F32", [0], 8, 4)}, f32x2),
        "overlap": raw_file({"x": info("F32", [2], 0, 8), "y": info("F32", [1], 4, 8)}, f32x2),
        "gap": raw_file({"x": info("F32", [1], 4, 8)}, f32x2),
        "trailing_bytes": raw_file({"x": info("F32", [1], 0, 4)}, f32x2),
        "bad_bool": raw_file({"x": info("BOOL", [2], 0, 2)}, b"\x01\x02"),
        "metadata_not_string": raw_file(b'{"__metadata__":{"a":1}}'),
        "offsets_not_pair": raw_file({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0]}}, f32x2),
    }
    for name, content in hostile.items():
        write("hostile_%s.safetensors" % name, content)

    # Fuzzing seeds: every file above, and archives in Ember's layout (ember.archive metadata).
    for sub in ("safetensors", "archive"):
        d = os.path.join(CORPUS, sub)
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
    for f in sorted(os.listdir(OUT)):
        if f.endswith(".safetensors"):
            shutil.copy(os.path.join(OUT, f), os.path.join(CORPUS, "safetensors", f))
    tree = {"format": "ember.archive", "version": 1, "entries": [
        {"path": ["fc"], "kind": "archive"},
        {"path": ["fc", "weight"], "kind": "tensor", "name": "fc.weight", "buffer": False},
        {"path": ["fc", "mean"], "kind": "tensor", "name": "fc.mean", "buffer": True},
        {"path": ["step"], "kind": "int", "value": 3},
        {"path": ["lr"], "kind": "double", "bits": "3f50624dd2f1a9fc"},
        {"path": ["flag"], "kind": "bool", "value": True},
        {"path": ["name"], "kind": "string", "value": "adam"},
        {"path": ["raw"], "kind": "string", "hex": "ff00"},
        {"path": ["sizes"], "kind": "int_list", "value": [1, -2]},
        {"path": ["betas"], "kind": "double_list", "bits": ["3feccccccccccccd"]},
        {"path": ["list"], "kind": "tensor_list", "names": ["list.0", None]},
        {"path": ["none"], "kind": "none"},
        {"path": ["undef"], "kind": "undefined_tensor"},
        {"path": ["dict"], "kind": "dict", "items": [
            [{"kind": "string", "value": "a"},
             {"kind": "list", "items": [{"kind": "int", "value": 1}, {"kind": "tuple", "items": []}]}],
            [{"kind": "none"}, {"kind": "tensor", "name": "dict.1"}]]}]}
    t = {"fc.weight": torch.tensor([[1.0, 2.0]]), "fc.mean": torch.tensor([0.5]),
         "list.0": torch.tensor([1, 2], dtype=torch.int32), "dict.1": torch.tensor([True])}
    arch = os.path.join(CORPUS, "archive")
    with open(os.path.join(arch, "tree.safetensors"), "wb") as f:
        f.write(reference_bytes(t, {"ember.archive": json.dumps(tree, separators=(",", ":")),
                                    "format": "pt"}))
    shutil.copy(os.path.join(OUT, "state_dict.safetensors"), os.path.join(arch, "flat.safetensors"))
    with open(os.path.join(arch, "zip.pt"), "wb") as f:
        f.write(b"PK\x03\x04" + b"\x00" * 26)


if __name__ == "__main__":
    main()
