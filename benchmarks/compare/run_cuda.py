#!/usr/bin/env python3
"""GPU side-by-side runner: Ember against PyTorch's LibTorch on the CUDA workloads.

    benchmarks/compare/run_cuda.py [EMBER_BUILD_DIR] [options]     (default build dir: build/gpu)

Both sides are the one source benchmarks/compare/cuda_workloads.cpp: the Ember program comes from
the CMake build (target ember_compare_cuda); the LibTorch program is compiled here with the C++
compiler against the LibTorch inside the Python `torch` package (CUDA-enabled; Debian's
libtorch-dev has no CUDA), cached in --work and rebuilt when the source changes. Each case runs in
a fresh process per library; the table gives the median of each and the ratio Ember/LibTorch of
the rates (above 1: Ember faster), or LibTorch/Ember of the times (the same sense).

Exit status: 0, or 1 when an Ember result failed its check against the CPU (a wrong kernel), or
2 when the Ember program is missing. A LibTorch side that cannot be built or run is reported and
its column left empty. Standard library only.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "cuda_workloads.cpp")
HEADERS = [os.path.join(HERE, "bench_timer.h")]

# The include and library folders inside the torch package (what torch.utils.cpp_extension
# would say, without importing setuptools).
TORCH_PROBE = r"""
import json, os, torch
d = os.path.dirname(torch.__file__)
print(json.dumps({
    "version": torch.__version__, "cuda": torch.version.cuda,
    "available": torch.cuda.is_available(),
    "include": [os.path.join(d, "include"), os.path.join(d, "include", "torch", "csrc", "api", "include")],
    "lib": os.path.join(d, "lib"), "abi": int(torch._C._GLIBCXX_USE_CXX11_ABI)}))
"""


def log(msg):
    print(f"[run_cuda] {msg}", file=sys.stderr, flush=True)


def torch_info(python):
    try:
        out = subprocess.run([python, "-c", TORCH_PROBE], capture_output=True, text=True,
                             timeout=300, check=True).stdout
        return json.loads(out.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError) as e:
        log(f"no usable torch from {python}: {e}")
        return None


def build_torch_side(python, work):
    """Compiles the LibTorch program; returns its path, or None (reported)."""
    exe = os.path.join(work, "cuda_workloads_libtorch")
    newest = max(os.path.getmtime(p) for p in [SOURCE] + HEADERS)
    if os.path.exists(exe) and os.path.getmtime(exe) >= newest:
        return exe
    info = torch_info(python)
    if info is None:
        return None
    log(f"torch {info['version']} (CUDA {info['cuda']}, device visible: {info['available']})")
    os.makedirs(work, exist_ok=True)
    cxx = os.environ.get("CXX", "c++")
    # C++20: LibTorch from 2.13 on requires it, and older ones accept it.
    cmd = [cxx, "-O2", "-std=c++20", "-DBENCH_LIB_TORCH", f"-D_GLIBCXX_USE_CXX11_ABI={info['abi']}",
           "-I", HERE]
    for inc in info["include"]:
        cmd += ["-isystem", inc]
    # --no-as-needed: nothing in the program names a symbol of libtorch_cuda, whose load is what
    # registers the CUDA backend; a linker that drops unreferenced libraries would leave it out.
    partial = exe + ".partial"  # renamed when complete: a killed link leaves no program behind
    cmd += [SOURCE, "-o", partial, "-L", info["lib"], "-Wl,-rpath," + info["lib"], "-Wl,--no-as-needed",
            "-ltorch", "-ltorch_cuda", "-ltorch_cpu", "-lc10_cuda", "-lc10", "-Wl,--as-needed"]
    log("building the LibTorch side: " + " ".join(cmd[:6]) + " ...")
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        log("LibTorch side failed to build:\n" + r.stderr[-4000:])
        return None
    os.replace(partial, exe)
    return exe


def run_case(exe, case, timeout, env=None):
    """Returns {'RESULT': fields, 'NA': reason, 'INFO': [..], 'rc': int, 'err': tail}."""
    rec = {"INFO": [], "rc": None, "err": ""}
    try:
        r = subprocess.run([exe, case, "gpu"], capture_output=True, text=True, timeout=timeout,
                           env=env)
    except subprocess.TimeoutExpired:
        rec["rc"] = "timeout"
        return rec
    rec["rc"] = r.returncode
    rec["err"] = r.stderr[-2000:]
    for line in r.stdout.splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "RESULT":
            rec["RESULT"] = dict(w.split("=", 1) for w in words[5:] if "=" in w)
        elif words[0] == "NA":
            rec["NA"] = " ".join(words[5:])
        elif words[0] == "INFO":
            rec["INFO"].append(" ".join(words[5:]))
    return rec


def check_of(rec):
    for info in rec["INFO"]:
        for kv in info.split():
            if kv.startswith("check="):
                return kv[len("check="):]
    return "-"


def cell(rec):
    if rec is None:
        return "-"
    if "RESULT" in rec:
        return f"{float(rec['RESULT']['median']):.4g}"
    if "NA" in rec:
        return "NA"
    return f"rc={rec['rc']}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", nargs="?", default="build/gpu")
    ap.add_argument("--torch-python", default=os.environ.get("TORCH_PYTHON", "python3"),
                    help="the Python whose torch package provides LibTorch (default python3)")
    ap.add_argument("--work", default="build/compare-cuda", help="where the LibTorch side is built")
    ap.add_argument("--cases", default="", help="comma list (default: all)")
    ap.add_argument("--build-torch-only", action="store_true",
                    help="only build the LibTorch side (to overlap it with other work)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per program run")
    ap.add_argument("--ember-lib-path", default="",
                    help="LD_LIBRARY_PATH for the Ember program only (tools/gpu-bundle.sh bundles)")
    args = ap.parse_args()

    if args.build_torch_only:
        return 0 if build_torch_side(args.torch_python, args.work) else 1
    ember = os.path.join(args.build, "benchmarks", "compare", "ember_compare_cuda")
    if not os.access(ember, os.X_OK):
        log(f"no {ember}: configure with -DEMBER_BUILD_BENCHMARKS=ON and build ember_compare_cuda")
        return 2
    ember_env = None
    if args.ember_lib_path:
        ember_env = dict(os.environ)
        old = ember_env.get("LD_LIBRARY_PATH")
        ember_env["LD_LIBRARY_PATH"] = args.ember_lib_path + (":" + old if old else "")
    torch_exe = build_torch_side(args.torch_python, args.work)
    listed = subprocess.run([ember, "--list"], capture_output=True, text=True, env=ember_env)
    if listed.returncode != 0:
        log(f"{ember} --list failed (exit {listed.returncode}):\n{listed.stderr[-2000:]}")
        return 1
    cases = listed.stdout.split()
    if args.cases:
        cases = [c for c in cases if c in args.cases.split(",")]

    head = ("case", "unit", "ember", "libtorch", "speed ratio", "ember check", "torch check")
    widths = [14, 7, 10, 10, 11, 11, 11]

    def show(row):  # one row as soon as its case is done: a run cut short keeps what it measured
        print("  ".join(str(v).ljust(w) for v, w in zip(row, widths)), flush=True)

    print("GPU workloads (median; speed ratio > 1: Ember faster; 'us' rows are times per call)")
    show(head)
    failed = False
    for case in cases:
        log(f"{case}: ember")
        e = run_case(ember, case, args.timeout, ember_env)
        t = None
        if torch_exe:
            log(f"{case}: libtorch")
            t = run_case(torch_exe, case, args.timeout)
        unit = (e.get("RESULT") or (t or {}).get("RESULT") or {}).get("unit", "")
        ratio = "-"
        if "RESULT" in e and t is not None and "RESULT" in t:
            a, b = float(e["RESULT"]["median"]), float(t["RESULT"]["median"])
            if a > 0 and b > 0:
                ratio = f"{(b / a if unit == 'us' else a / b):.2f}"
        ok = check_of(e)
        if ok == "FAIL" or (e["rc"] not in (0,) and "NA" not in e):
            failed = True
            if e["err"]:
                log(f"{case}: ember stderr:\n{e['err']}")
        show((case, unit, cell(e), cell(t), ratio, ok, check_of(t) if t else "-"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
