#!/usr/bin/env python3
"""Side-by-side runner: Ember against LibTorch on the workloads of shared/BENCHMARKS.md.

    benchmarks/compare/run.py [EMBER_BUILD_DIR] [options]      (default build dir: build/release)

Builds the LibTorch-side programs with g++ once per anchor (LibTorch 1.13.1 from Debian, and the
newest LibTorch from --torch-new / $EMBER_TORCH_NEW / /work/cache/torch-2.15.0/torch when present;
cached in --work, rebuilt when a source or the command changes), takes the Ember-side programs from
the CMake build dir (targets ember_compare_*), runs every case of every workload for each library in
a fresh process (one thread setting per process), and prints one table per workload with a column
and a ratio Ember/LibTorch per anchor, the anchors' versions and the targets. Standard library only.

Whole-run protocol of BENCHMARKS.md: the set runs --passes times (2); before each program the
runner waits for an idle machine, and re-runs a program when other processes used more than
--busy-limit cores (0.10) while it ran (read from /proc/stat minus the program's own CPU time).

BENCH_QUICK=1 (or --quick) makes every measurement short and runs one pass: a smoke test only.
"""

import argparse
import contextlib
import fcntl
import glob
import gzip
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TORCH_INC = ["-isystem", "/usr/include/torch/csrc/api/include"]
TORCH_LIBS = ["-ltorch", "-ltorch_cpu", "-lc10"]
CXX = os.environ.get("CXX", "g++")
BASE_FLAGS = ["-std=c++17", "-D_GLIBCXX_USE_CXX11_ABI=1"]
WORKLOADS = ["hwlimits", "overhead", "elementwise", "sgemm", "devx", "train_step", "epoch",
             "data_loading", "conv", "attention", "collectives"]
# The newest LibTorch (BENCHMARKS.md "Anchor libraries"): the C++ library of the newest PyPI torch
# wheel, unpacked outside the repository; --torch-new or EMBER_TORCH_NEW override the default.
TORCH_NEW_DEFAULT = "/work/cache/torch-2.15.0/torch"
FASHION_MNIST_DIR = "/usr/share/datasets/fashion-mnist"

# Targets from the issue (ratios are Ember / LibTorch of the reported quantity).
TARGET_OVERHEAD_RATIO = 0.5       # per-op time <= 0.5x LibTorch
TARGET_MODULE_CALL_RATIO = 1.2  # issue #4: lin(x) vs F::linear, both Ember
TARGET_TRIAD_FRACTION = 0.80      # elementwise/sum >= 80% of STREAM triad
TARGET_MM_FRACTION = 0.95         # mm >= 95% of the best of openblas/oneDNN at each n
TARGET_COMPILE_S = 4.0
TARGET_LIBS_MB = 40.0
TARGET_STARTUP_MS = 30.0
# Issue #15: a training step and a Fashion-MNIST epoch (time ratios, Ember / anchor).
TARGET_TRAIN_RATIO_OLD = 0.5      # <= 0.5x LibTorch 1.13.1's time
TARGET_TRAIN_RATIO_NEW = 0.7      # <= 0.7x the newest LibTorch's time
# Issue #17: the §5 attention workload (time ratios, Ember / anchor).
TARGET_ATTN_RATIO_OLD = 0.6
TARGET_ATTN_RATIO_NEW = 1.0
# Issue #16: the CNN step and epoch (time ratios), conv GFLOP/s (rate ratios, >= 1 = not slower),
# and conv forward at L2 against the §7 FP32 peak.
TARGET_CNN_RATIO_OLD = 0.6
TARGET_CNN_RATIO_NEW = 0.8
TARGET_LSTM_RATIO_OLD = 0.6       # issue #17: LSTM LM step <= 0.6x LibTorch 1.13.1's time
TARGET_LSTM_RATIO_NEW = 1.0       # and at most the newest LibTorch's
TARGET_CONV_RATE_RATIO = 1.0
TARGET_CONV_L2_PEAK_FRACTION = 0.60

# ----------------------------------------------------------------------------- anchors


class Anchor:
    """One LibTorch the *_torch.cpp programs are built against. `suffix` tells its programs and
    its result labels apart ("" for 1.13.1, whose labels stay what they always were)."""

    def __init__(self, key, suffix, name, flags, inc, libs, blas_libs, version, available,
                 reason=""):
        self.key, self.suffix, self.name = key, suffix, name
        self.flags, self.inc, self.libs, self.blas_libs = flags, inc, libs, blas_libs
        self.version, self.available, self.reason = version, available, reason

    def label(self, lib):
        """The result label of a library column this anchor provides (libtorch, torch_mm)."""
        return lib + self.suffix


def header_version(header):
    """TORCH_VERSION as its version.h defines it (following one #include of another version.h,
    as the newer headers do); None when absent."""
    try:
        text = open(header).read()
    except OSError:
        return None
    m = re.search(r'#define\s+TORCH_VERSION\s*\\?\s*"([^"]+)"', text)
    if m:
        return m.group(1)
    inc = re.search(r'#include\s*<(torch/[\w/]*version\.h)>', text)
    if inc:
        root = header[:header.rfind("/torch/")]
        for base in (root, re.sub(r"/torch/csrc/api/include$", "", root)):
            v = header_version(os.path.join(base, inc.group(1)))
            if v:
                return v
    return None


def debian_torch_version():
    """The version of Debian's libtorch-dev package (its headers say 1.13.0 for 1.13.1)."""
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libtorch-dev"],
                             capture_output=True, text=True).stdout.strip()
    except OSError:
        return None
    return out or None


def uses_cxx11_abi(lib):
    """Whether a C++ library was built with the C++11 std::string ABI (std::__cxx11 symbols in
    its dynamic symbol table), read with nm; True when nm cannot tell."""
    try:
        out = subprocess.run(["nm", "-DC", lib], capture_output=True, text=True).stdout
    except OSError:
        return True
    return "std::__cxx11" in out or not out


def anchor_old():
    header = "/usr/include/torch/csrc/api/include/torch/version.h"
    tv = header_version(header) or "?"
    deb = debian_torch_version()
    version = f"TORCH_VERSION {tv}" + (f", Debian libtorch-dev {deb}" if deb else "")
    return Anchor("libtorch", "", "LibTorch 1.13.1", BASE_FLAGS, TORCH_INC, TORCH_LIBS,
                  ["-lopenblas"], version, True)


def anchor_new(root):
    """The newest LibTorch at `root` (a torch/ folder holding include/ and lib/)."""
    inc_dir, lib_dir = os.path.join(root or "", "include"), os.path.join(root or "", "lib")
    api = os.path.join(inc_dir, "torch", "csrc", "api", "include")
    have = bool(root) and all(os.path.exists(p) for p in (
        os.path.join(api, "torch", "torch.h"), os.path.join(lib_dir, "libtorch_cpu.so"),
        os.path.join(lib_dir, "libc10.so")))
    if not have:
        return Anchor("libtorch_new", "_new", "newest LibTorch", [], [], [], [], "not installed",
                      False, f"no torch/include + torch/lib with libtorch_cpu.so under {root}"
                      if root else f"none given (--torch-new, EMBER_TORCH_NEW) and no "
                      f"{TORCH_NEW_DEFAULT}")
    tv = header_version(os.path.join(api, "torch", "version.h")) or "?"
    wheel = None
    try:
        m = re.search(r"__version__\s*=\s*'([^']+)'", open(os.path.join(root, "version.py")).read())
        wheel = m.group(1) if m else None
    except OSError:
        pass
    abi = 1 if uses_cxx11_abi(os.path.join(lib_dir, "libc10.so")) else 0
    # Its headers need C++20; its BLAS (MKL) is inside libtorch_cpu, sized by
    # torch::set_num_threads alone (torch_threads.h, BENCH_TORCH_BUNDLED_BLAS).
    flags = ["-std=c++20", f"-D_GLIBCXX_USE_CXX11_ABI={abi}", "-DBENCH_TORCH_BUNDLED_BLAS"]
    version = f"TORCH_VERSION {tv}" + (f", wheel {wheel}" if wheel else "") + f", {root}"
    return Anchor("libtorch_new", "_new", f"LibTorch {tv}", flags, ["-isystem", inc_dir,
                  "-isystem", api], [f"-L{lib_dir}", f"-Wl,-rpath,{lib_dir}", "-ltorch_cpu",
                  "-lc10"], [], version, True)


ANCHORS = []  # [old, new], set in main()

# ----------------------------------------------------------------------------- programs


def torch_programs():
    """name -> (sources, extra link flags, sets threads): the *_torch.cpp programs, built with
    g++ -O2 once per anchor (its flags, includes and libraries added; a program that sets threads
    through torch_threads.h also links the anchor's BLAS libraries: OpenBLAS for 1.13)."""
    c = HERE
    progs = {
        "overhead_torch": ([f"{c}/overhead_torch.cpp"], [], True),
        "elementwise_torch": ([f"{c}/elementwise_torch.cpp"], [], True),
        "sgemm_torch": ([f"{c}/sgemm_torch.cpp"], ["-pthread"], True),
        "first_op_torch": ([f"{c}/devx/first_op_torch.cpp"], [], False),
        "train_step_torch": ([f"{c}/train_step_torch.cpp"], [], True),
        "epoch_torch": ([f"{c}/epoch_torch.cpp"], ["-lz"], True),
        "conv_torch": ([f"{c}/conv_torch.cpp"], [], True),
        "attention_torch": ([f"{c}/attention_torch.cpp"], [], True),
        # c10d's Gloo process group is declared only under USE_C10D_GLOO (both anchors have it).
        "collectives_torch": ([f"{c}/collectives_torch.cpp"], ["-DUSE_C10D_GLOO", "-pthread"],
                              True),
    }
    if os.path.exists(f"{c}/data_loading_torch.cpp"):
        progs["data_loading_torch"] = ([f"{c}/data_loading_torch.cpp"], ["-pthread"], False)
    return progs


def plain_programs():
    """name -> (sources, flags, link flags) for the programs that use no LibTorch."""
    c = HERE
    return {
        "sgemm_ref": ([f"{c}/sgemm_ref.cpp"], [], ["-lopenblas", "-ldnnl", "-fopenmp", "-pthread"]),
        "empty": ([f"{c}/devx/empty.cpp"], [], []),
    }


# The Ember-side targets of benchmarks/CMakeLists.txt.
EMBER_PROGRAMS = {
    "overhead": "ember_compare_overhead",
    "elementwise": "ember_compare_elementwise",
    "sgemm": "ember_compare_sgemm",
    "first_op": "ember_compare_first_op",
    "train_step": "ember_compare_train_step",
    "epoch": "ember_compare_epoch",
    "data_loading": "ember_compare_data_loading",
    "conv": "ember_compare_conv",
    "attention": "ember_compare_attention",
    "collectives": "ember_compare_collectives",
}

# Which programs each workload needs (torch programs are built per anchor).
WORKLOAD_TORCH_PROGRAMS = {
    "overhead": ["overhead_torch"],
    "elementwise": ["elementwise_torch"],
    "sgemm": ["sgemm_torch"],
    "devx": ["first_op_torch"],
    "train_step": ["train_step_torch"],
    "epoch": ["epoch_torch"],
    "data_loading": ["data_loading_torch"],
    "conv": ["conv_torch"],
    "attention": ["attention_torch"],
    "collectives": ["collectives_torch"],
}
WORKLOAD_PLAIN_PROGRAMS = {"sgemm": ["sgemm_ref"], "devx": ["empty"]}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def newest_mtime(paths):
    return max(os.path.getmtime(p) for p in paths)


def build_if_stale(exe, cmd, deps, lock, what):
    """Runs the compile `cmd` for `exe` unless it exists, is newer than `deps` and was built by
    the same command (kept in `exe`.cmd, so a changed anchor or flag rebuilds). False on failure."""
    stamp = exe + ".cmd"
    line = " ".join(cmd)
    fresh = (os.path.exists(exe) and os.path.getmtime(exe) >= newest_mtime(deps) and
             (not os.path.exists(stamp) or open(stamp).read() == line))
    if fresh:
        return True
    log(f"[build] {what}")
    with build_lock(lock):
        proc = subprocess.run(cmd)
    if proc.returncode != 0:
        log(f"  [fail] building {what} exited {proc.returncode}")
        if os.path.exists(exe):
            os.remove(exe)
        return False
    with open(stamp, "w") as f:
        f.write(line)
    return True


def anchor_work_dir(work, anchor):
    """1.13's programs stay where they always were; another anchor's go into a folder of its own."""
    return work if not anchor.suffix else os.path.join(work, "torch" + anchor.suffix)


def build_torch_side(work, only, lock=""):
    """Builds what the selected workloads need; returns name -> path, the *_torch programs once per
    available anchor under name + anchor suffix (missing: not built or failed)."""
    os.makedirs(work, exist_ok=True)
    needed_torch = {n for w in only for n in WORKLOAD_TORCH_PROGRAMS.get(w, [])}
    needed_plain = {n for w in only for n in WORKLOAD_PLAIN_PROGRAMS.get(w, [])}
    headers = glob.glob(f"{HERE}/*.h")
    out = {}
    for anchor in ANCHORS:
        if not anchor.available:
            continue
        d = anchor_work_dir(work, anchor)
        os.makedirs(d, exist_ok=True)
        for name, (srcs, extra, sets_threads) in torch_programs().items():
            if name not in needed_torch:
                continue
            exe = os.path.join(d, name)
            libs = anchor.libs + (anchor.blas_libs if sets_threads else []) + extra
            cmd = [CXX, "-O2", *anchor.flags, "-Wall", "-Wextra", f"-I{HERE}", *anchor.inc, *srcs,
                   "-o", exe, *libs]
            if build_if_stale(exe, cmd, srcs + headers, lock, f"{name} ({anchor.name})"):
                out[name + anchor.suffix] = exe
    for name, (srcs, flags, libs) in plain_programs().items():
        if name not in needed_plain:
            continue
        exe = os.path.join(work, name)
        cmd = [CXX, "-O2", *BASE_FLAGS, *flags, "-Wall", "-Wextra", f"-I{HERE}", *srcs, "-o", exe,
               *libs]
        if build_if_stale(exe, cmd, srcs + headers, lock, name):
            out[name] = exe
    if "hwlimits" in only:  # -O3 -march=native, as §7 says; no tensor library
        exe = os.path.join(work, "hwlimits")
        src = f"{HERE}/hwlimits.cpp"
        cmd = [CXX, "-O3", "-march=native", "-fopenmp", "-std=c++17", f"-I{HERE}", src, "-o", exe]
        if build_if_stale(exe, cmd, [src] + headers, lock, "hwlimits"):
            out["hwlimits"] = exe
    return out


def find_ember_programs(build):
    found = {}
    for key, target in EMBER_PROGRAMS.items():
        for cand in [os.path.join(build, "benchmarks", "compare", target),
                     os.path.join(build, "benchmarks", target), os.path.join(build, "bin", target),
                     os.path.join(build, target)]:
            if os.path.isfile(cand) and os.access(cand, os.X_OK):
                found[key] = cand
                break
        else:
            hits = [p for p in glob.glob(os.path.join(build, "**", target), recursive=True)
                    if os.access(p, os.X_OK)]
            if hits:
                found[key] = hits[0]
    return found


def find_libember(build):
    hits = sorted(glob.glob(os.path.join(build, "**", "libember.so*"), recursive=True), key=len)
    return hits[0] if hits else None


# ----------------------------------------------------------------------------- idle gating

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_busy_seconds():
    """Busy CPU-seconds of the whole machine so far (all cores)."""
    with open("/proc/stat") as f:
        parts = f.readline().split()[1:]
    v = [int(x) for x in parts]
    user, nice, system, idle, iowait, irq, softirq, steal = (v + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / CLK_TCK


def wait_for_idle(limit, max_wait):
    """Waits until the machine's load over 0.5 s is below `limit` cores; False on timeout."""
    deadline = time.time() + max_wait
    while True:
        b0, t0 = cpu_busy_seconds(), time.time()
        time.sleep(0.5)
        load = (cpu_busy_seconds() - b0) / (time.time() - t0)
        if load <= limit:
            return True
        if time.time() > deadline:
            return False


@contextlib.contextmanager
def build_lock(path):
    """Holds an exclusive flock on `path` (the lock this repo's builds take: `flock
    /tmp/ember-build.lock ninja ...`), so no cooperating build runs while a program is measured.
    Taken per program, so builds go on between programs."""
    if not path:
        yield
        return
    with open(path, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


class Runner:
    def __init__(self, args):
        self.args = args
        self.raw = []  # every output line, tagged with the pass

    def run(self, argv, env_extra=None, timeout=1800):
        """Runs one program; returns (stdout, others_cores, ok). Re-runs when others were busy."""
        env = dict(os.environ)
        if self.args.quick:
            env["BENCH_QUICK"] = "1"
        if env_extra:
            env.update(env_extra)
        others = 0.0
        for attempt in range(1 + self.args.retries):
            with build_lock(self.args.lock):
                out, err, others, rc = self._run_once(argv, env, timeout)
            if rc != 0:
                log(f"  [fail] {' '.join(argv)} exited {rc}\n{err.strip()[-2000:]}")
            if not self.args.gate or others <= self.args.busy_limit:
                break
            if attempt < self.args.retries:
                log(f"  [gate] others used {others:.2f} cores during "
                    f"{os.path.basename(argv[0])}; re-running ({attempt + 1}/{self.args.retries})")
            else:
                log(f"  [gate] others used {others:.2f} cores during "
                    f"{os.path.basename(argv[0])}; kept, marked '*' in the tables")
        return out, others, rc == 0

    def _run_once(self, argv, env, timeout):
        if self.args.gate and not wait_for_idle(self.args.busy_limit, self.args.idle_wait):
            log(f"  [gate] machine not idle after {self.args.idle_wait:.0f} s; running anyway")
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        b0, t0 = cpu_busy_seconds(), time.time()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                text=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            err += "\n[runner] timed out"
        wall = time.time() - t0
        # The child's own CPU time (RUSAGE_CHILDREN grows by each child once it is waited for).
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        child_cpu = (ru.ru_utime + ru.ru_stime) - (ru0.ru_utime + ru0.ru_stime)
        others = max(0.0, (cpu_busy_seconds() - b0 - child_cpu) / max(wall, 1e-9))
        return out, err, others, proc.returncode


# ----------------------------------------------------------------------------- results

LINE = re.compile(r"^(RESULT|NA|INFO) (\S+) (\S+) (\S+) (\S+) ?(.*)$")


class Results:
    """(workload, case, threads, lib) -> list over passes of {'median','min','max','unit',...}."""

    def __init__(self):
        self.data = {}
        self.info = {}
        self.flags = {}

    def add_output(self, text, pass_no, others, raw, lib_suffix=""):
        """Parses a program's lines; `lib_suffix` tells an anchor's labels apart (a program built
        against the newest LibTorch prints `libtorch`, recorded as `libtorch_new`)."""
        for line in text.splitlines():
            m = LINE.match(line.strip())
            if not m:
                continue
            kind, wl, case, thr, lib, rest = m.groups()
            lib += lib_suffix
            raw.append(f"pass={pass_no} others_cores={others:.2f} {kind} {wl} {case} {thr} {lib} "
                       f"{rest}".rstrip())
            kv = dict(x.split("=", 1) for x in rest.split() if "=" in x)
            key = (wl, case, thr, lib)
            if kind == "RESULT":
                rec = {k: (float(v) if k in ("median", "min", "max") else v) for k, v in kv.items()}
                rec["pass"] = pass_no
                rec["others"] = others
                self.data.setdefault(key, []).append(rec)
            elif kind == "NA":
                self.data.setdefault(key, []).append({"na": kv.get("reason", "n/a"),
                                                      "pass": pass_no})
            else:
                self.info.setdefault(key, {}).update(kv)

    def get(self, key, pass_no):
        for rec in self.data.get(key, []):
            if rec.get("pass") == pass_no:
                return rec
        return None


def fmt_na(rec):
    return {"not_built": "not built", "failed": "FAILED", "not_installed": "not installed",
            "build_failed": "build failed"}.get(rec["na"], "n/a")


def fmt_val(rec, digits=3):
    if rec is None:
        return "-"
    if "na" in rec:
        return fmt_na(rec)
    v = rec["median"]
    return f"{v:.{digits}g}{busy_mark(rec)}"


BUSY_LIMIT = 0.10  # set from --busy-limit


def busy_mark(rec):
    """'*' on a measurement during which other processes used more than the busy limit."""
    return "*" if rec.get("others", 0.0) > BUSY_LIMIT else ""


def fmt_cell(rec):
    if rec is None:
        return "-"
    if "na" in rec:
        return fmt_na(rec)
    return f"{rec['median']:.3g} [{rec['min']:.3g}-{rec['max']:.3g}]{busy_mark(rec)}"


def ratio(a, b):
    if a is None or b is None or "na" in a or "na" in b or b["median"] == 0:
        return None
    return a["median"] / b["median"]


def fmt_ratio(r):
    return "-" if r is None else f"{r:.2f}"


def verdict(ok, check="-"):
    """PASS/MISS against the target; INVALID when the library's own result failed its check."""
    if check == "FAIL":
        return "INVALID"
    return "-" if ok is None else ("PASS" if ok else "MISS")


def table(title, note, header, rows):
    print(f"\n### {title}\n")
    if note:
        print(note + "\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(" --- " for _ in header) + "|")
    for r in rows:
        print("| " + " | ".join(str(c) for c in r) + " |")
    sys.stdout.flush()


def column_name(anchor):
    """An anchor's column header: its name with the version its headers give."""
    return anchor.name


def anchor_recs(results, wl, case, thr, lib, pass_no):
    """Each anchor's record for a library column (`libtorch`, `torch_mm`), in ANCHORS order."""
    return [results.get((wl, case, thr, a.label(lib)), pass_no) for a in ANCHORS]


def anchor_ratio_headers(what="Ember"):
    return [f"{what}/{column_name(a)}" for a in ANCHORS]


def verdicts(oks, check="-"):
    """One verdict per anchor, joined: `PASS / MISS` (1.13.1 first)."""
    return " / ".join(verdict(ok, check) for ok in oks)


def anchors_note():
    """The line every table with LibTorch columns carries: which anchors, which versions."""
    return "Anchors: " + "; ".join(
        f"{column_name(a)} = {a.version if a.available else 'not installed'}" for a in ANCHORS) + \
        ". Verdicts are given per anchor, in that order."


# ----------------------------------------------------------------------------- workloads


def list_cases(exe):
    out = subprocess.run([exe, "--list"], capture_output=True, text=True, check=True).stdout
    return [l.strip() for l in out.splitlines() if l.strip()]


def run_workload_cases(runner, results, pass_no, workload, progs, cases, threads_list,
                       env_extra=None):
    """progs: list of (lib_label, argv_prefix); each case x threads x prog in a fresh process.
    A label ending in an anchor's suffix (`libtorch_new`) records that program's lines under it;
    argv_prefix None (not built) or a string (the reason: not_installed, build_failed) fills the
    column with that reason."""
    for case in cases:
        for thr in threads_list:
            for label, prefix in progs:
                if prefix is None or isinstance(prefix, str):
                    results.data.setdefault((workload, case, thr, label), []).append(
                        {"na": prefix or "not_built", "pass": pass_no})
                    continue
                suffix = next((a.suffix for a in ANCHORS if a.suffix and label.endswith(a.suffix)),
                              "")
                log(f"[pass {pass_no}] {workload} {case} {thr} {label}")
                out, others, ok = runner.run([*prefix, case, thr], env_extra)
                results.add_output(out, pass_no, others, runner.raw, suffix)
                if not ok and not LINE.search(out or ""):
                    results.data.setdefault((workload, case, thr, label), []).append(
                        {"na": "failed", "pass": pass_no})


def anchor_progs(torch_bins, name, lib, extra_argv=()):
    """(label, argv prefix) per anchor for the torch program `name` whose lines say `lib`: the
    program's path, or the reason its column stays empty (not_installed, build_failed)."""
    progs = []
    for a in ANCHORS:
        exe = torch_bins.get(name + a.suffix)
        if not a.available:
            progs.append((a.label(lib), "not_installed"))
        elif exe is None:
            progs.append((a.label(lib), "build_failed"))
        else:
            progs.append((a.label(lib), [exe, *extra_argv]))
    return progs


def hwlimits_register_check(exe):
    """peak_<ymm|zmm>_<NACC> -> True when its hot loop has no memory operand (objdump)."""
    try:
        dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe], capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    verdicts = {}
    for m in re.finditer(r"^[0-9a-f]+ <(peak_(?:ymm|zmm)_\d+)>:\n(.*?)(?:\n\n|\Z)", dis,
                         re.S | re.M):
        name, body = m.group(1), m.group(2)
        insns = []
        for line in body.splitlines():
            mm = re.match(r"\s*([0-9a-f]+):\s*(.*)", line)
            if mm:
                insns.append((int(mm.group(1), 16), mm.group(2)))
        # The hot loop: the longest backward conditional jump's range, holding the FMAs.
        best = None
        for addr, text in insns:
            j = re.match(r"j\w+\s+([0-9a-f]+)", text)
            if j and int(j.group(1), 16) < addr:
                lo = int(j.group(1), 16)
                body_insns = [t for a, t in insns if lo <= a <= addr]
                if any("vfmadd" in t for t in body_insns):
                    if best is None or len(body_insns) > len(best):
                        best = body_insns
        if best is not None:
            verdicts[name] = not any("(" in t for t in best if not t.startswith("nop"))
    return verdicts


def do_hwlimits(runner, results, pass_no, exe, threads):
    for case in ["peak_ymm", "peak_zmm", "stream_copy", "stream_triad"]:
        for thr in threads:
            log(f"[pass {pass_no}] hwlimits {case} {thr}")
            out, others, _ = runner.run([exe, case, thr])
            results.add_output(out, pass_no, others, runner.raw)


def triad(results, thr, pass_no):
    """STREAM triad GB/s for a thread setting (lt-def: the best one, i.e. 2 threads)."""
    cands = ["1", "2"] if thr == "lt-def" else [thr]
    vals = [results.get(("hwlimits", "stream_triad", t, "hw"), pass_no) for t in cands]
    vals = [v["median"] for v in vals if v and "na" not in v]
    return max(vals) if vals else None


def report_hwlimits(results, passes, threads, regcheck):
    rows = []
    best = {}
    for p in passes:
        for kind in ["ymm", "zmm"]:
            for thr in threads:
                cands = []
                for nacc in [8, 12, 16, 24]:
                    rec = results.get(("hwlimits", f"peak_{kind}_nacc{nacc}", thr, "hw"), p)
                    reg = regcheck.get(f"peak_{kind}_{nacc}")
                    regs = "-" if reg is None else ("yes" if reg else "no (spills)")
                    rows.append([p, f"peak FP32 {kind}", f"NACC={nacc}", thr, fmt_cell(rec),
                                 "GFLOP/s", regs])
                    if rec and "na" not in rec and reg is not False:
                        cands.append((rec["median"], nacc))
                if cands:
                    v, nacc = max(cands)
                    best[(p, kind, thr)] = (v, nacc)
                    rows.append([p, f"**best {kind}**", f"NACC={nacc}", thr, f"**{v:.3g}**",
                                 "GFLOP/s", ""])
        for case in ["stream_copy", "stream_triad"]:
            for thr in threads:
                rec = results.get(("hwlimits", case, thr, "hw"), p)
                rows.append([p, case, "", thr, fmt_cell(rec), "GB/s", ""])
    table("§7 Hardware limits (higher is better)",
          "median [min-max]; 'best' = the fastest NACC whose hot loop is register-only "
          "(objdump of the peak_* kernels).",
          ["pass", "measure", "variant", "threads", "value", "unit", "register-only loop"], rows)


def report_overhead(results, passes, threads):
    rows = []
    cases = ["add_1elem_nograd", "add_1elem_inference_mode", "add_1elem_requires_grad",
             "chain10_fwd_bwd", "chain10_fwd_bwd_per_op", "linear16_module_call",
             "linear16_functional"]
    for p in passes:
        for case in cases:
            for thr in threads:
                e = results.get(("overhead", case, thr, "ember"), p)
                ts = anchor_recs(results, "overhead", case, thr, "libtorch", p)
                if e is None and all(t is None for t in ts):
                    continue  # not run (--cases)
                unit = next((r["unit"] for r in (e, *ts) if r and "unit" in r), "us")
                rs = [ratio(e, t) for t in ts]
                oks = [None if r is None else r <= TARGET_OVERHEAD_RATIO for r in rs]
                check = results.info.get(("overhead", case, thr, "ember"), {}).get("check", "-")
                rows.append([p, case, thr, fmt_cell(e), *[fmt_cell(t) for t in ts], unit,
                             *[fmt_ratio(r) for r in rs], f"<= {TARGET_OVERHEAD_RATIO}", check,
                             verdicts(oks, check)])
    # Issue #4: Ember's module call against Ember's bare functional call (target <= 1.2x).
    for p in passes:
        for thr in threads:
            m = results.get(("overhead", "linear16_module_call", thr, "ember"), p)
            f = results.get(("overhead", "linear16_functional", thr, "ember"), p)
            if m is None or f is None:
                continue
            r = ratio(m, f)
            ok = None if r is None else r <= TARGET_MODULE_CALL_RATIO
            rows.append([p, "module_call/functional (Ember)", thr,
                         fmt_cell(m), fmt_cell(f), *[""] * (len(ANCHORS) - 1), "us/call",
                         fmt_ratio(r), *[""] * (len(ANCHORS) - 1),
                         f"<= {TARGET_MODULE_CALL_RATIO}", "-", verdict(ok, "-")])
    table("§1 Eager per-op overhead (time per call: lower is better)",
          "ratio = Ember / LibTorch time (lower is better; target <= 0.5). median [min-max]. "
          "check = Ember's result is float32 as the workload defines. "
          "Anchors (LibTorch 1.13.1): a+b 1 elem 0.58 us, requires_grad 1.26 us, chain 4.5 us/op.\n"
          + anchors_note(),
          ["pass", "case", "threads", "Ember", *[column_name(a) for a in ANCHORS], "unit",
           *anchor_ratio_headers(), "target", "check", "verdict"], rows)


def report_elementwise(results, passes, threads):
    rows = []
    cases = ["add_alloc", "add_out", "relu_alloc", "relu_out", "gelu_alloc", "gelu_out",
             "exp_alloc", "exp_out", "sum"]
    for p in passes:
        for case in cases:
            for thr in threads:
                e = results.get(("elementwise", case, thr, "ember"), p)
                ts = anchor_recs(results, "elementwise", case, thr, "libtorch", p)
                if e is None and all(t is None for t in ts):
                    continue  # not run (--cases)
                rs = [ratio(e, t) for t in ts]
                tri = triad(results, thr, p)
                frac = e["median"] / tri if e and "na" not in e and tri else None
                oks = [None if r is None else (r >= 1.0 and (frac is None or
                                                             frac >= TARGET_TRIAD_FRACTION))
                       for r in rs]
                check = results.info.get(("elementwise", case, thr, "ember"), {}).get("check", "-")
                rows.append([p, case, thr, fmt_cell(e), *[fmt_cell(t) for t in ts],
                             *[fmt_ratio(r) for r in rs],
                             "-" if frac is None else f"{100 * frac:.0f}%", check,
                             verdicts(oks, check)])
    table("§2 Elementwise throughput, N = 16 Mi floats (GB/s: higher is better)",
          "ratio = Ember / LibTorch GB/s (higher is better; target >= 1). 'of triad' = Ember GB/s "
          "/ STREAM triad at the same threads (lt-def: the 2-thread triad; target >= 80%). "
          "check = Ember result vs scalar math on a sample.\n" + anchors_note(),
          ["pass", "case", "threads", "Ember GB/s", *[f"{column_name(a)} GB/s" for a in ANCHORS],
           *anchor_ratio_headers(), "Ember of triad", "check", "verdict"], rows)


def report_sgemm(results, passes, threads, sizes):
    rows = []
    mm_labels = [a.label("torch_mm") for a in ANCHORS]
    for p in passes:
        for case in sizes:
            n = case[1:]
            for thr in threads:
                recs = {lib: results.get(("sgemm", case, thr, lib), p)
                        for lib in ["ember", *mm_labels, "openblas_cblas", "onednn_sgemm"]}
                refs = [r["median"] for k, r in recs.items()
                        if k in ("openblas_cblas", "onednn_sgemm") and r and "na" not in r]
                e = recs["ember"]
                frac = e["median"] / max(refs) if e and "na" not in e and refs else None
                checks = [results.info.get(("sgemm", case, thr, lib), {}).get("check")
                          for lib in recs]
                checks = [c for c in checks if c]
                check = "-" if not checks else ("pass" if all(c == "pass" for c in checks)
                                                else "FAIL")
                ok = None if frac is None else frac >= TARGET_MM_FRACTION
                rows.append([p, n, thr, fmt_cell(e), *[fmt_cell(recs[l]) for l in mm_labels],
                             fmt_val(recs["openblas_cblas"]), fmt_val(recs["onednn_sgemm"]),
                             *[fmt_ratio(ratio(e, recs[l])) for l in mm_labels],
                             "-" if frac is None else f"{100 * frac:.0f}%", check,
                             verdict(ok, check)])
        for thr in ["a1b1", "a2b1", "a1b2"]:
            rows.append([p, "1024 probe", f"{thr} (ATen {thr[1]}, BLAS {thr[3]})", "n/a",
                         fmt_cell(results.get(("sgemm", "n1024", thr, mm_labels[0]), p)),
                         *[""] * (len(ANCHORS) - 1), "", "", *[""] * len(ANCHORS), "",
                         results.info.get(("sgemm", "n1024", thr, mm_labels[0]), {}).get(
                             "check", "-"), ""])
    table("§3 SGEMM C = A·B (GFLOP/s: higher is better)",
          "Ember/torch_mm = GFLOP/s ratio (higher is better). 'of best BLAS' = Ember / "
          "max(openblas_cblas, onednn_sgemm) at the same n and threads (target >= 95%). check = "
          "every library's C vs a float64 product (max|err|/max|ref| < 1e-4). Probe rows: "
          "torch::mm of LibTorch 1.13.1 at n = 1024 with (ATen, OpenBLAS) threads (the newest "
          "LibTorch sizes its bundled MKL with torch::set_num_threads: no separate pool).\n"
          + anchors_note().replace(" Verdicts are given per anchor, in that order.", ""),
          ["pass", "n", "threads", "Ember", *[f"torch_mm {column_name(a)}" for a in ANCHORS],
           "openblas", "oneDNN", *[f"Ember/torch_mm {column_name(a)}" for a in ANCHORS],
           "Ember of best BLAS", "check", "verdict"], rows)


# --- §8 developer experience


def median3(values):
    return statistics.median(values) if values else None


def timed(cmd, env=None):
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        log(f"  [fail] {' '.join(cmd)}\n{proc.stderr[-3000:]}")
        return None
    return dt


def ldd_libs(exe):
    """{realpath: name ldd showed} of the shared libraries `exe` loads (ldd, symlinks resolved)."""
    out = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
    libs = {}
    for line in out.splitlines():
        m = re.search(r"=>\s*(/\S+)", line) or re.match(r"\s*(/\S+)", line)
        if m and os.path.exists(m.group(1)):
            libs.setdefault(os.path.realpath(m.group(1)), os.path.basename(m.group(1)))
    return libs


def ldd_closure(exe):
    """(bytes, count) of the shared libraries `exe` loads (ldd, symlinks resolved, unique)."""
    libs = ldd_libs(exe)
    return sum(os.path.getsize(p) for p in libs), len(libs)


# The issue's footprint target (#2): "the shared libraries a one-file program that includes the
# library and trains a Linear layer loads, beyond libc/libstdc++/BLAS/oneDNN, total at most 40 MB".
# Left out, by file name (the soname or the file ldd resolves to):
EXCLUDED_LIB_GROUPS = [
    ("libc", re.compile(r"^(libc|libm|libmvec|libpthread|libdl|librt|libutil|libresolv|libanl|"
                        r"ld-linux[-\w.]*|libgcc_s)\.so")),
    ("libstdc++", re.compile(r"^libstdc\+\+\.so")),
    ("BLAS", re.compile(r"^(libopenblas\w*|libblas\w*|libcblas|liblapack\w*|libmkl_\w+|"
                        r"libblis\w*)[-.\w]*\.so")),
    ("oneDNN", re.compile(r"^lib(dnnl|mkldnn)\.so")),
]
# ... and, as their runtime dependencies, the libraries that only excluded libraries need
# (DT_NEEDED): OpenBLAS's libgfortran and libquadmath, oneDNN's libOpenCL. A library the program
# or a counted library also needs (libgomp: libember and libdnnl) is counted.

MAPS_PROBE_SRC = r"""
// LD_PRELOADed by benchmarks/compare/run.py: at exit, copies /proc/self/maps to
// $EMBER_FOOTPRINT_MAPS, so the footprint also sees libraries loaded with dlopen.
#include <stdio.h>
#include <stdlib.h>
__attribute__((destructor)) static void ember_footprint_dump_maps(void) {
  const char* path = getenv("EMBER_FOOTPRINT_MAPS");
  if (!path) return;
  FILE* in = fopen("/proc/self/maps", "r");
  FILE* out = fopen(path, "w");
  char buf[4096];
  size_t n;
  while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
  if (in) fclose(in);
  if (out) fclose(out);
}
"""


def maps_probe(work):
    """The LD_PRELOAD probe above, built once into `work`; None when it does not build."""
    src = os.path.join(work, "footprint_probe.c")
    so = os.path.join(work, "footprint_probe.so")
    if not os.path.exists(so) or not os.path.exists(src) or open(src).read() != MAPS_PROBE_SRC:
        with open(src, "w") as f:
            f.write(MAPS_PROBE_SRC)
        cc = os.environ.get("CC", "cc")
        proc = subprocess.run([cc, "-shared", "-fPIC", "-O2", src, "-o", so], capture_output=True,
                              text=True)
        if proc.returncode != 0:
            log(f"  [footprint] probe did not build ({cc}): {proc.stderr.strip()[-500:]}")
            return None
    return so


def loaded_at_exit(exe, probe, work):
    """Realpaths of the shared objects mapped when `exe` exits (/proc/self/maps via the probe);
    None without a probe or when the program did not write the maps."""
    if not probe:
        return None
    out = os.path.join(work, "footprint_maps.txt")
    if os.path.exists(out):
        os.remove(out)
    env = dict(os.environ, LD_PRELOAD=probe, EMBER_FOOTPRINT_MAPS=out)
    subprocess.run([exe], capture_output=True, text=True, env=env)
    if not os.path.exists(out):
        return None
    libs = set()
    own = {os.path.realpath(exe), os.path.realpath(probe)}
    with open(out) as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) == 6 and parts[4] != "0" and parts[5].startswith("/"):
                path = os.path.realpath(parts[5].strip())
                if ".so" in os.path.basename(path) and path not in own and os.path.exists(path):
                    libs.add(path)
    return libs


def elf_dynamic(path):
    """(soname or None, [DT_NEEDED names]) of an ELF file (readelf); (None, None) without it."""
    try:
        out = subprocess.run(["readelf", "-dW", path], capture_output=True, text=True).stdout
    except OSError:
        return None, None
    soname = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", out)
    return (soname.group(1) if soname else None,
            re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out))


def footprint(exe, work):
    """The shared libraries `exe` loads, each with its size and whether the issue's target counts
    it: {"libs": [{"name", "path", "bytes", "group", "counted", "how"}], "counted_bytes",
    "counted_count", "all_bytes", "all_count", "method"}. The set is the ldd closure plus whatever
    /proc/self/maps shows mapped at exit (how = "dlopen" for those ldd does not list)."""
    by_ldd = ldd_libs(exe)
    at_exit = loaded_at_exit(exe, maps_probe(work), work)
    paths = dict(by_ldd)
    for p in sorted(at_exit or ()):
        paths.setdefault(p, os.path.basename(p))
    names, needed = {}, {}
    for p, shown in paths.items():
        soname, need = elf_dynamic(p)
        names[p] = {n for n in (soname, shown, os.path.basename(p)) if n}
        needed[p] = need
    _, exe_needed = elf_dynamic(exe)
    group = {}
    for p in paths:
        for g, rx in EXCLUDED_LIB_GROUPS:
            if any(rx.match(n) for n in names[p]):
                group[p] = g
                break
    have_graph = exe_needed is not None and all(v is not None for v in needed.values())
    changed = have_graph
    while changed:  # libraries that only excluded libraries need are excluded with them
        changed = False
        for p in paths:
            if p in group or names[p] & set(exe_needed):
                continue
            needers = [q for q in paths if q != p and names[p] & set(needed[q])]
            if needers and all(q in group for q in needers):
                group[p] = group[sorted(needers)[0]].split(" ")[0] + " (runtime dep)"
                changed = True
    libs = []
    for p, shown in paths.items():
        libs.append({"name": shown, "path": p, "bytes": os.path.getsize(p),
                     "group": group.get(p, "counted"), "counted": p not in group,
                     "how": "ldd" if p in by_ldd else "dlopen"})
    libs.sort(key=lambda l: (not l["counted"], -l["bytes"]))
    counted = [l for l in libs if l["counted"]]
    return {"libs": libs, "counted_bytes": sum(l["bytes"] for l in counted),
            "counted_count": len(counted), "all_bytes": sum(l["bytes"] for l in libs),
            "all_count": len(libs),
            "method": ("ldd + /proc/self/maps at exit" if at_exit is not None else "ldd") +
                      ("" if have_graph else "; no readelf: runtime deps not attributed")}


def startup(exe, runs, env_extra=None):
    """exec->main and exec->first result (ms) over `runs` launches; T0_NS exported before exec."""
    mains, firsts = [], []
    env = dict(os.environ)
    if env_extra:
        env.update(env_extra)
    for _ in range(runs):
        out = subprocess.run(["/bin/sh", "-c", 'T0_NS=$(date +%s%N); export T0_NS; exec "$0"', exe],
                             capture_output=True, text=True, env=env).stdout
        m = re.search(r"exec_to_main_ms=([\d.]+) exec_to_first_ms=([\d.]+)", out)
        if m:
            mains.append(float(m.group(1)))
            firsts.append(float(m.group(2)))
    return mains, firsts


def stats(v):
    if not v:
        return None
    return {"median": statistics.median(v), "min": min(v), "max": max(v)}


def do_devx(runner, results, pass_no, work, torch_bins, ember_build, ember_progs):
    """Fills results.info[('devx', ...)] for both libraries."""
    compile_reps = 1 if runner.args.quick else 3
    start_runs = 3 if runner.args.quick else 11
    d = os.path.join(work, "devx")
    os.makedirs(d, exist_ok=True)
    libs = {"libtorch": {"src": f"{HERE}/devx/linear_train_torch.cpp", "inc": TORCH_INC,
                         "link": TORCH_LIBS}}
    for a in ANCHORS[1:]:  # the newest LibTorch: its own flags (C++20), includes and libraries
        if a.available:
            libs[a.key] = {"src": f"{HERE}/devx/linear_train_torch.cpp", "inc": a.inc,
                           "link": a.libs, "flags": a.flags}
    libember = find_libember(ember_build) if ember_build else None
    if not libember and ember_progs.get("first_op"):  # the library the Ember programs load
        ldd = subprocess.run(["ldd", ember_progs["first_op"]], capture_output=True, text=True)
        m = re.search(r"libember\.so\S*\s*=>\s*(/\S+)", ldd.stdout)
        libember = m.group(1) if m else None
    if libember:
        libdir = os.path.dirname(libember)
        inc = ["-isystem", os.path.join(REPO, "include")]
        gen_inc = os.path.join(ember_build, "include")
        if os.path.isdir(gen_inc):
            inc += ["-isystem", gen_inc]
        libs["ember"] = {"src": f"{HERE}/devx/linear_train_ember.cpp", "inc": inc,
                         "link": [f"-L{libdir}", "-lember", f"-Wl,-rpath,{libdir}"]}
    out = {}
    for lib, spec in libs.items():
        r = {}
        exe = {}
        for opt in ["-O0", "-O2"]:
            exe[opt] = os.path.join(d, f"linear_train_{lib}{opt}")
            times = []
            for _ in range(compile_reps):
                log(f"[pass {pass_no}] devx compile {lib} {opt}")
                with build_lock(runner.args.lock):
                    if runner.args.gate:
                        wait_for_idle(runner.args.busy_limit, runner.args.idle_wait)
                    t = timed([CXX, opt, *spec.get("flags", BASE_FLAGS), *spec["inc"], spec["src"],
                               "-o", exe[opt],
                               *spec["link"]])
                if t is not None:
                    times.append(t)
            r[f"compile{opt}"] = stats(times)
            if not times:
                r[f"compile{opt}"] = {"failed": True}
        times = []
        for _ in range(compile_reps):
            log(f"[pass {pass_no}] devx compile {lib} -O2 -c")
            with build_lock(runner.args.lock):
                if runner.args.gate:
                    wait_for_idle(runner.args.busy_limit, runner.args.idle_wait)
                t = timed([CXX, "-O2", *spec.get("flags", BASE_FLAGS), *spec["inc"], "-c",
                           spec["src"], "-o",
                           os.path.join(d, f"linear_train_{lib}.o")])
            if t is not None:
                times.append(t)
        r["compile-O2-c"] = stats(times) if times else {"failed": True}
        if os.path.exists(exe["-O2"]):
            r["binary_bytes"] = os.path.getsize(exe["-O2"])
            r["libs_bytes"], r["libs_count"] = ldd_closure(exe["-O2"])
            r["footprint"] = footprint(exe["-O2"], d)
            run = subprocess.run([exe["-O2"]], capture_output=True, text=True)
            r["converged"] = "converged" in run.stdout and run.returncode == 0
            r["train_output"] = run.stdout.strip()
        out[lib] = r
    # start-up
    first = {"libtorch": torch_bins.get("first_op_torch"), "ember": ember_progs.get("first_op"),
             **{a.key: torch_bins.get("first_op_torch" + a.suffix) for a in ANCHORS[1:]},
             "empty": torch_bins.get("empty")}
    for lib, exe in first.items():
        if not exe:
            continue
        log(f"[pass {pass_no}] devx start-up {lib}")
        with build_lock(runner.args.lock):
            if runner.args.gate:
                wait_for_idle(runner.args.busy_limit, runner.args.idle_wait)
            startup(exe, 1)  # page cache warm-up launch, not counted
            mains, firsts = startup(exe, start_runs)
        out.setdefault(lib, {})["exec_to_main"] = stats(mains)
        out[lib]["exec_to_first"] = stats(firsts)
    results.info[("devx", pass_no)] = out


def report_devx(results, passes):
    rows = []
    na = len(ANCHORS)

    def s(x, scale=1.0, digits=3):
        if x is None:
            return "n/a"
        if x.get("failed"):
            return "build failed"
        return f"{x['median'] * scale:.{digits}g} [{x['min'] * scale:.{digits}g}-" \
               f"{x['max'] * scale:.{digits}g}]"

    for p in passes:
        d = results.info.get(("devx", p), {})
        e = d.get("ember", {})
        ts = [d.get(a.key, {}) for a in ANCHORS]

        def row(what, key, unit, target=None, scale=1.0, digits=3):
            ev = e.get(key)
            rs = []
            for t in ts:
                tv = t.get(key)
                good = [x for x in (ev, tv) if x and not x.get("failed")]
                rs.append(ev["median"] / tv["median"] if len(good) == 2 else None)
            ok = None if (ev is None or target is None) else (
                False if ev.get("failed") else ev["median"] * scale <= target)
            rows.append([p, what, s(ev, scale, digits), *[s(t.get(key), scale, digits) for t in ts],
                         unit, *[fmt_ratio(r) for r in rs],
                         "-" if target is None else f"<= {target:g}", verdict(ok)])

        row("compile+link -O0 (linear_train.cpp)", "compile-O0", "s")
        row("compile+link -O2 (linear_train.cpp)", "compile-O2", "s", TARGET_COMPILE_S)
        row("compile only -O2 -c", "compile-O2-c", "s")
        for x in (e, *ts):
            x["counted_bytes"] = (x.get("footprint") or {}).get("counted_bytes")
        for key, what, unit, scale, target in [("binary_bytes", "-O2 binary size", "KB", 1e-3,
                                                None),
                                               ("libs_bytes", "ldd closure size (all)", "MB",
                                                1e-6, None),
                                               ("counted_bytes", "loaded libs beyond libc/"
                                                "libstdc++/BLAS/oneDNN (issue #2)", "MB", 1e-6,
                                                TARGET_LIBS_MB)]:
            ev = e.get(key)
            rs = [ev / t[key] if ev and t.get(key) else None for t in ts]
            ok = None if (ev is None or target is None) else ev * scale <= target
            rows.append([p, what, "n/a" if ev is None else f"{ev * scale:.4g}",
                         *["n/a" if t.get(key) is None else f"{t[key] * scale:.4g}" for t in ts],
                         unit, *[fmt_ratio(r) for r in rs],
                         "-" if target is None else f"<= {target:g}", verdict(ok)])
        rows.append([p, "ldd closure count", e.get("libs_count", "n/a"),
                     *[t.get("libs_count", "n/a") for t in ts], "libs", *[""] * na, "", ""])
        rows.append([p, "loaded libs counted by issue #2",
                     (e.get("footprint") or {}).get("counted_count", "n/a"),
                     *[(t.get("footprint") or {}).get("counted_count", "n/a") for t in ts], "libs",
                     *[""] * na, "", ""])
        rows.append([p, "linear_train converged", e.get("converged", "n/a"),
                     *[t.get("converged", "n/a") for t in ts], "", *[""] * na, "", ""])
        row("start-up exec->main", "exec_to_main", "ms")
        row("start-up exec->first result", "exec_to_first", "ms", TARGET_STARTUP_MS)
        emp = d.get("empty", {}).get("exec_to_first")
        rows.append([p, "launcher baseline (empty.cpp, no library: one number for all)", s(emp),
                     *[s(emp)] * na, "ms", *[""] * na, "", ""])
    table("§8 Developer experience (times and sizes: lower is better)",
          "ratio = Ember / LibTorch (lower is better). median [min-max] of 3 compiles and 11 "
          "launches. Anchors (LibTorch 1.13.1): compile 20.5 s, libs 528 MB, start-up 672 ms. "
          "The newest LibTorch compiles with -std=c++20 (its headers need it).\n"
          + anchors_note().replace(" Verdicts are given per anchor, in that order.", ""),
          ["pass", "measure", "Ember", *[column_name(a) for a in ANCHORS], "unit",
           *anchor_ratio_headers(), "target", "verdict"], rows)
    report_footprint(results, passes)


FOOTPRINT_ROWS = 24  # a side with more libraries than this is summarised


def report_footprint(results, passes):
    """Per-library breakdown of the footprint (the libraries do not change between passes: the
    last pass that measured them)."""
    d = {}
    for p in passes:
        for lib, r in results.info.get(("devx", p), {}).items():
            if isinstance(r, dict) and r.get("footprint"):
                d[lib] = r["footprint"]
    if not d:
        return
    rows = []
    for lib in ("ember", *[a.key for a in ANCHORS]):
        f = d.get(lib)
        if not f:
            continue
        shown = f["libs"]
        if len(shown) > FOOTPRINT_ROWS:  # LibTorch: its largest counted libraries, then sums
            shown = [l for l in shown if l["counted"]][:FOOTPRINT_ROWS // 2]
        for l in shown:
            rows.append([lib, l["name"] if l["name"] == os.path.basename(l["path"]) else
                         f"{l['name']} ({os.path.basename(l['path'])})",
                         f"{l['bytes'] / 1e6:.2f}", l["group"] if l["counted"] else
                         f"excluded: {l['group']}", "" if l["how"] == "ldd" else l["how"]])
        if len(shown) < len(f["libs"]):
            rest = [l for l in f["libs"] if l["counted"] and l not in shown]
            rows.append([lib, f"{len(rest)} more counted libraries",
                         f"{sum(l['bytes'] for l in rest) / 1e6:.2f}", "counted", ""])
            groups = {}
            for l in f["libs"]:
                if not l["counted"]:
                    groups.setdefault(l["group"], []).append(l)
            for g, ls in groups.items():
                rows.append([lib, ", ".join(l["name"] for l in ls),
                             f"{sum(l['bytes'] for l in ls) / 1e6:.2f}", f"excluded: {g}", ""])
        rows.append([lib, "**counted total**", f"**{f['counted_bytes'] / 1e6:.2f}**",
                     f"{f['counted_count']} libs (target <= {TARGET_LIBS_MB:g} MB)", ""])
        rows.append([lib, "all loaded", f"{f['all_bytes'] / 1e6:.2f}", f"{f['all_count']} libs",
                     f["method"]])
    table("§8 Footprint: the shared libraries linear_train loads",
          "Issue #2 counts what the program loads beyond libc (libc, libm, libpthread, libdl, "
          "librt, ld-linux, libgcc_s), libstdc++, BLAS and oneDNN; a library that only excluded "
          "libraries need (DT_NEEDED: OpenBLAS's libgfortran/libquadmath, oneDNN's libOpenCL) is "
          "excluded with them. File sizes, symlinks resolved.",
          ["library", "file", "MB", "counted?", "note"], rows)


# --- §5(a) training step, §6 epoch, §9 data loading


def train_targets(cnn=False, lstm=False):
    """The time targets, one per anchor: issue #15's for the MLP (1.13.1: <= 0.5x; the newest:
    <= 0.7x), issue #16's for the CNN (<= 0.6x; <= 0.8x), issue #17's for the LSTM LM (<= 0.6x;
    <= 1x)."""
    old, new = ((TARGET_CNN_RATIO_OLD, TARGET_CNN_RATIO_NEW) if cnn
                else (TARGET_LSTM_RATIO_OLD, TARGET_LSTM_RATIO_NEW) if lstm
                else (TARGET_TRAIN_RATIO_OLD, TARGET_TRAIN_RATIO_NEW))
    return [old if not a.suffix else new for a in ANCHORS]


def report_train_step(results, passes, threads):
    rows = []
    for p in passes:
        for case in ["mlp_sgd", "mlp_adam", "lenet_sgd", "lenet_adam", "lstm_sgd", "lstm_adam",
                     "transformer_sgd", "transformer_adam"]:
            # Issue #17's targets cover the LSTM LM and the Transformer layer alike.
            targets = train_targets(cnn=case.startswith("lenet"),
                                    lstm=case.startswith(("lstm", "transformer")))
            for thr in threads:
                e = results.get(("train_step", case, thr, "ember"), p)
                ts = anchor_recs(results, "train_step", case, thr, "libtorch", p)
                if e is None and all(t is None for t in ts):
                    continue  # not run (--cases)
                rs = [ratio(e, t) for t in ts]
                oks = [None if r is None else r <= tg for r, tg in zip(rs, targets)]
                infos = [results.info.get(("train_step", case, thr, lib), {})
                         for lib in ["ember", *[a.label("libtorch") for a in ANCHORS]]]
                checks = [i.get("check") for i in infos if i.get("check")]
                check = "-" if not checks else ("pass" if all(c == "pass" for c in checks)
                                                else "FAIL")
                losses = " / ".join(i.get("last_loss", "-") for i in infos)
                rows.append([p, case, thr, fmt_cell(e), *[fmt_cell(t) for t in ts],
                             *[fmt_ratio(r) for r in rs], losses, check,
                             verdicts(oks, infos[0].get("check", "-"))])
    table("§5(a)/(b)/(c) Training step: MLP 784-512-256-10 and LeNet-style CNN, batch 64; LSTM "
          "LM (Embedding 10000x128, LSTM 128-256 x2, Linear 256-10000) on tokens [35, 20]; §5(d) "
          "TransformerEncoderLayer(256, 4, 1024) on x [128, 16, 256], mse_loss (ms per step: "
          "lower is better)",
          "One step = zero_grad, forward, cross_entropy, backward, opt.step() on fixed inputs; "
          "*_sgd: SGD(0.01, momentum 0.9), *_adam: Adam(1e-3). median [min-max] of 5 "
          "repetitions. ratio = Ember / LibTorch time (lower is better); targets: MLP (issue #15) "
          f"<= {TARGET_TRAIN_RATIO_OLD} x LibTorch 1.13.1, <= {TARGET_TRAIN_RATIO_NEW} x the "
          f"newest; LeNet (issue #16) <= {TARGET_CNN_RATIO_OLD} x, <= {TARGET_CNN_RATIO_NEW} x; "
          f"LSTM and Transformer (issue #17) <= {TARGET_LSTM_RATIO_OLD} x, <= "
          f"{TARGET_LSTM_RATIO_NEW} x. "
          "loss after = the loss on the fixed batch after the timed steps (Ember / anchors); "
          "check = every library's first loss is near ln(classes) and its loss went down.\n"
          + anchors_note(),
          ["pass", "case", "threads", "Ember ms", *[f"{column_name(a)} ms" for a in ANCHORS],
           *anchor_ratio_headers(), "loss after", "check", "verdict"], rows)


def report_epoch(results, passes, threads):
    rows = []
    libs = ["ember", *[a.label("libtorch") for a in ANCHORS]]
    for p in passes:
        for case in ["mlp", "cnn"]:
            targets = train_targets(cnn=case == "cnn")
            for thr in threads:
                e = results.get(("epoch", case, thr, "ember"), p)
                ts = anchor_recs(results, "epoch", case, thr, "libtorch", p)
                if e is None and all(t is None for t in ts):
                    continue
                rs = [ratio(e, t) for t in ts]
                oks = [None if r is None else r <= tg for r, tg in zip(rs, targets)]
                infos = [results.info.get(("epoch", case, thr, lib), {}) for lib in libs]
                checks = [i.get("check") for i in infos if i.get("check")]
                check = "-" if not checks else ("pass" if all(c == "pass" for c in checks)
                                                else "FAIL")

                def pct(i):
                    acc = i.get("accuracies")
                    return "-" if not acc else ",".join(f"{100 * float(a):.1f}%"
                                                        for a in acc.split(","))

                def load(i):
                    return "-" if "load_s" not in i else f"{float(i['load_s']):.2f}"

                rows.append([p, case, thr, fmt_cell(e), *[fmt_cell(t) for t in ts],
                             *[fmt_ratio(r) for r in rs], " / ".join(pct(i) for i in infos),
                             " / ".join(load(i) for i in infos), check,
                             verdicts(oks, infos[0].get("check", "-"))])
    table("§6 Fashion-MNIST epoch, MLP and CNN, batch 64 (seconds per epoch: lower is better)",
          "Per repetition: manual_seed(0), new model, SGD(0.01, momentum 0.9), randperm, 938 steps "
          "by index_select with loss.item() (timed), then eval accuracy on the 10,000 test "
          "images. median [min-max] over up to 3 repetitions (none started after 120 s). ratio = "
          "Ember / LibTorch time (lower is better); targets: MLP (issue #15) "
          f"<= {TARGET_TRAIN_RATIO_OLD} x LibTorch 1.13.1, <= {TARGET_TRAIN_RATIO_NEW} x the "
          f"newest; CNN (issue #16) <= {TARGET_CNN_RATIO_OLD} x, <= {TARGET_CNN_RATIO_NEW} x. "
          "accuracy per repetition and load+decode seconds (not timed in the epoch) are given "
          "as Ember / anchors; check = every repetition of every library reaches >= 80% "
          "(both should land near 85%).\n" + anchors_note(),
          ["pass", "model", "threads", "Ember s", *[f"{column_name(a)} s" for a in ANCHORS],
           *anchor_ratio_headers(), "accuracy", "load s", "check", "verdict"], rows)


def best_peak(results, thr, pass_no):
    """The §7 FP32 peak (GFLOP/s) for a thread setting: the best register-only NACC of the widest
    vectors measured in this run, or None when hwlimits did not run."""
    best = None
    for kind in ["ymm", "zmm"]:
        for nacc in [8, 12, 16, 24]:
            rec = results.get(("hwlimits", f"peak_{kind}_nacc{nacc}", thr, "hw"), pass_no)
            if rec and "na" not in rec:
                best = max(best or 0.0, rec["median"])
    return best


def report_conv(results, passes, threads):
    rows = []
    for p in passes:
        for case in ["L1_fwd", "L1_fwdbwd", "L2_fwd", "L2_fwdbwd"]:
            for thr in threads:
                e = results.get(("conv", case, thr, "ember"), p)
                ts = anchor_recs(results, "conv", case, thr, "libtorch", p)
                if e is None and all(t is None for t in ts):
                    continue
                rs = [ratio(e, t) for t in ts]
                oks = [None if r is None else r >= TARGET_CONV_RATE_RATIO for r in rs]
                peak = best_peak(results, thr, p)
                frac = (e["median"] / peak if e and "na" not in e and peak else None)
                if case == "L2_fwd" and frac is not None:
                    oks.append(frac >= TARGET_CONV_L2_PEAK_FRACTION)
                infos = [results.info.get(("conv", case, thr, lib), {})
                         for lib in ["ember", *[a.label("libtorch") for a in ANCHORS]]]
                checks = [i.get("check") for i in infos if i.get("check")]
                check = "-" if not checks else ("pass" if all(c == "pass" for c in checks)
                                                else "FAIL")
                rows.append([p, case, thr, fmt_cell(e), *[fmt_cell(t) for t in ts],
                             *[fmt_ratio(r) for r in rs],
                             "-" if peak is None else f"{peak:.0f}",
                             "-" if frac is None else f"{100 * frac:.0f}%", check,
                             verdicts(oks, infos[0].get("check", "-"))])
    table("§4 Conv2d 3x3, padding 1, batch 32 (GFLOP/s: higher is better)",
          "L1: x[32,3,32,32] -> 64 channels; L2: x[32,64,16,16] -> 128 channels. fwd under "
          "NoGradGuard; fwdbwd = forward + y.backward(g) (3 x the forward FLOPs). median "
          "[min-max]. ratio = Ember / LibTorch rate (higher is better); targets (issue #16): no "
          f"case slower than either LibTorch (ratio >= {TARGET_CONV_RATE_RATIO}), and L2 forward "
          f">= {int(TARGET_CONV_L2_PEAK_FRACTION * 100)}% of the §7 FP32 peak (run hwlimits in the "
          "same run for the peak column).\n" + anchors_note(),
          ["pass", "case", "threads", "Ember GFLOP/s",
           *[f"{column_name(a)} GFLOP/s" for a in ANCHORS], *anchor_ratio_headers(),
           "peak GFLOP/s", "of peak", "check", "verdict"], rows)


def report_attention(results, passes, threads):
    rows = []
    libs = ["ember", *[a.label("libtorch") for a in ANCHORS]]
    cases = list(dict.fromkeys(c for (w, c, _, _) in results.data if w == "attention"))
    for p in passes:
        for case in cases:
            # Issue #17's targets: the §5 attention workload (sdpa and manual, both directions)
            # <= 0.6x LibTorch 1.13.1 and <= the newest LibTorch; the §10 cases are reported.
            targets = ([TARGET_ATTN_RATIO_OLD if not a.suffix else TARGET_ATTN_RATIO_NEW
                        for a in ANCHORS] if not case.startswith("long") else [None] * len(ANCHORS))
            for thr in threads:
                e = results.get(("attention", case, thr, "ember"), p)
                ts = anchor_recs(results, "attention", case, thr, "libtorch", p)
                if e is None and all(t is None for t in ts):
                    continue
                rs = [ratio(e, t) for t in ts]
                oks = [None if r is None or tg is None else r <= tg for r, tg in zip(rs, targets)]
                infos = [results.info.get(("attention", case, thr, lib), {}) for lib in libs]
                checks = [i.get("check") for i in infos if i.get("check")]
                check = "-" if not checks else ("pass" if all(c == "pass" for c in checks)
                                                else "FAIL")
                mem = " / ".join(i.get("peak_mib", "-") for i in infos)
                rows.append([p, case, thr, fmt_cell(e), *[fmt_cell(t) for t in ts],
                             *[fmt_ratio(r) for r in rs], mem, check,
                             verdicts(oks, infos[0].get("check", "-"))])
    table("§5 attention workload and §10 attention at length (ms per call: lower is better)",
          "§5: q, k, v [16, 4, 128, 64]; manual = softmax(q kT / 8) v by matmul/softmax, sdpa = "
          "scaled_dot_product_attention (LibTorch 1.13: _scaled_dot_product_attention, its math "
          "path). §10: [1, 8, L, 64]. fwd under NoGradGuard, fwdbwd = out.backward(g). median "
          "[min-max]. ratio = Ember / LibTorch time; targets (issue #17, §5 cases): <= "
          f"{TARGET_ATTN_RATIO_OLD} x LibTorch 1.13.1 and <= {TARGET_ATTN_RATIO_NEW} x the "
          "newest. peak MiB = peak resident memory beyond the inputs (Ember / anchors).\n"
          + anchors_note(),
          ["pass", "case", "threads", "Ember ms", *[f"{column_name(a)} ms" for a in ANCHORS],
           *anchor_ratio_headers(), "peak MiB", "check", "verdict"], rows)


def report_collectives(results, passes):
    rows = []
    libs = ["ember", *[a.label("libtorch") for a in ANCHORS]]
    cases = list(dict.fromkeys(c for (w, c, _, _) in results.data if w == "collectives"))
    for p in passes:
        for case in cases:
            e = results.get(("collectives", case, "1", "ember"), p)
            ts = anchor_recs(results, "collectives", case, "1", "libtorch", p)
            if e is None and all(t is None for t in ts):
                continue
            rs = [ratio(e, t) for t in ts]
            infos = [results.info.get(("collectives", case, "1", lib), {}) for lib in libs]
            checks = [i.get("check") for i in infos if i.get("check")]
            check = "-" if not checks else ("pass" if all(c == "pass" for c in checks) else "FAIL")
            rows.append([p, case, fmt_cell(e), *[fmt_cell(t) for t in ts],
                         *[fmt_ratio(r) for r in rs], check])
    table("Collectives: 2 ranks x 1 thread on loopback, Gloo TCP (us per call: lower is better)",
          "all_reduce (SUM, float32) of 1 float, 64 KiB, the 721 KiB of the §5(b) LeNet step's "
          "gradients (DDP's one bucket) and 4 MiB, and barrier; Ember's ember::distributed "
          "against LibTorch's c10d ProcessGroupGloo (what Python's torch.distributed runs on). "
          "Fixed call counts on both ranks, median [min-max] of 7 repetitions. ratio = Ember / "
          "LibTorch time; no target (issue #19 sets its target on the DDP step, "
          "ember_bench_ddp).\n" + anchors_note(),
          ["pass", "case", "Ember us", *[f"{column_name(a)} us" for a in ANCHORS],
           *anchor_ratio_headers(), "check"], rows)


DATA_LOADING_LOAD_LINE = re.compile(r"^INFO data_loading load (\S+) (\S+=.*)$")


MNIST_FILES = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
               "t10k-labels-idx1-ubyte"]


def unpacked_mnist(work, src):
    """A folder with the four IDX files uncompressed: LibTorch's datasets::MNIST reads only those,
    and Debian ships Fashion-MNIST gzipped. `src` itself when it has them; else a copy gunzipped
    once into `work`/fashion-mnist-raw (Ember's MNIST reads either; both libraries get this one)."""
    if all(os.path.exists(os.path.join(src, f)) for f in MNIST_FILES):
        return src
    dst = os.path.join(work, "fashion-mnist-raw")
    os.makedirs(dst, exist_ok=True)
    for f in MNIST_FILES:
        gz, out = os.path.join(src, f + ".gz"), os.path.join(dst, f)
        if not os.path.exists(gz):
            log(f"[data_loading] no {gz}")
            return src
        if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(gz):
            with gzip.open(gz, "rb") as fin, open(out + ".tmp", "wb") as fout:
                shutil.copyfileobj(fin, fout)
            os.replace(out + ".tmp", out)
    return dst


def do_data_loading(runner, results, pass_no, progs, root):
    """§9: each program runs once per pass (`prog <root>`: it loops over its worker settings
    itself, at its default threads, printing `def` as the setting and `torch`/`ember` as the
    library). Its load-time line has no thread field; it is read as setting `def`."""
    for label, prefix in progs:
        if prefix is None or isinstance(prefix, str):
            results.data.setdefault(("data_loading", "-", "def", label), []).append(
                {"na": prefix or "not_built", "pass": pass_no})
            continue
        suffix = next((a.suffix for a in ANCHORS if a.suffix and label.endswith(a.suffix)), "")
        log(f"[pass {pass_no}] data_loading {label}")
        out, others, ok = runner.run([*prefix, root])
        out = "\n".join(DATA_LOADING_LOAD_LINE.sub(r"INFO data_loading load def \1 \2", l.strip())
                        for l in (out or "").splitlines())
        results.add_output(out, pass_no, others, runner.raw, suffix)
        if not ok:
            results.data.setdefault(("data_loading", "-", "def", label), []).append(
                {"na": "failed", "pass": pass_no})


def report_data_loading(results, passes):
    rows = []
    cases = sorted({k[1] for k in results.data if k[0] == "data_loading" and k[1] != "-"})
    labels = [a.label("torch") for a in ANCHORS]
    for p in passes:
        for case in cases or ["-"]:
            e = results.get(("data_loading", case, "def", "ember"), p) or \
                results.get(("data_loading", "-", "def", "ember"), p)
            ts = [results.get(("data_loading", case, "def", l), p) or
                  results.get(("data_loading", "-", "def", l), p) for l in labels]
            if e is None and all(t is None for t in ts):
                continue
            unit = next((r["unit"] for r in (e, *ts) if r and "unit" in r), "batches/s")
            infos = [results.info.get(("data_loading", case, "def", lib), {})
                     for lib in ["ember", *labels]]
            loads = [results.info.get(("data_loading", "load", "def", lib), {}).get(
                "mnist_train_load_s", "-") for lib in ["ember", *labels]]
            batches = " / ".join(i.get("batches_per_epoch", "-") for i in infos)
            rows.append([p, case, fmt_cell(e), *[fmt_cell(t) for t in ts], unit,
                         *[fmt_ratio(ratio(e, t)) for t in ts], batches, " / ".join(loads)])
    table("§9 Data loading: Fashion-MNIST, Normalize + Stack, batch 64, RandomSampler "
          "(higher is better)",
          "Batches per second over one full epoch per worker setting (w0, w2), the dataset "
          "already constructed; each library at its default threads. ratio = Ember / LibTorch "
          "rate (higher is better). batches per epoch and dataset load seconds: Ember / "
          "anchors.\n" + anchors_note().replace(" Verdicts are given per anchor, in that order.",
                                                 ""),
          ["pass", "case", "Ember", *[column_name(a) for a in ANCHORS], "unit",
           *anchor_ratio_headers(), "batches/epoch", "load s"], rows)


# ----------------------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", nargs="?", default=os.path.join(REPO, "build", "release"),
                    help="Ember CMake build dir (default build/release)")
    ap.add_argument("--only", default=",".join(WORKLOADS),
                    help=f"comma list of workloads ({','.join(WORKLOADS)})")
    ap.add_argument("--passes", type=int, default=None, help="passes over the set (default 2; "
                    "1 with --quick)")
    ap.add_argument("--quick", action="store_true",
                    default=os.environ.get("BENCH_QUICK", "0") not in ("", "0"),
                    help="short measurements (BENCH_QUICK=1): a smoke test")
    ap.add_argument("--threads", default="1,2,lt-def",
                    help="thread settings for elementwise and sgemm (default 1,2,lt-def)")
    ap.add_argument("--overhead-threads", default="lt-def", help="thread settings for §1")
    ap.add_argument("--sizes", default="64,128,256,512,1024,2048", help="SGEMM sizes")
    ap.add_argument("--cases", default="", help="comma list restricting the cases of §1/§2, and "
                    "of any other workload when it names some of them")
    ap.add_argument("--work", default=os.path.join(REPO, "build-bench-compare"),
                    help="where the LibTorch-side programs and logs go")
    ap.add_argument("--no-gate", dest="gate", action="store_false",
                    help="skip the idle-machine gate and re-runs")
    ap.add_argument("--busy-limit", type=float, default=0.10,
                    help="cores other processes may use while a program runs")
    ap.add_argument("--retries", type=int, default=2, help="re-runs of a disturbed program")
    ap.add_argument("--lock", default="/tmp/ember-build.lock",
                    help="flock file the repo's builds hold; each measured program holds it too, "
                    "so builds wait between programs ('' to disable)")
    ap.add_argument("--idle-wait", type=float, default=60.0, help="max seconds to wait for idle")
    ap.add_argument("--torch-new", default=os.environ.get("EMBER_TORCH_NEW") or (
                    TORCH_NEW_DEFAULT if os.path.isdir(TORCH_NEW_DEFAULT) else ""),
                    help="the newest LibTorch: a torch/ folder with include/ and lib/ (default "
                    f"$EMBER_TORCH_NEW, else {TORCH_NEW_DEFAULT} when it exists; '' for none)")
    ap.add_argument("--train-threads", default="1,2",
                    help="thread settings for train_step and epoch (default 1,2)")
    ap.add_argument("--fashion-mnist", default=FASHION_MNIST_DIR,
                    help=f"Fashion-MNIST folder for epoch and data_loading (default "
                    f"{FASHION_MNIST_DIR})")
    args = ap.parse_args()
    global BUSY_LIMIT
    BUSY_LIMIT = args.busy_limit if args.gate else float("inf")
    passes = list(range(1, 1 + (args.passes or (1 if args.quick else 2))))
    only = [w for w in args.only.split(",") if w]
    for w in only:
        if w not in WORKLOADS:
            ap.error(f"unknown workload {w}")
    threads = [t for t in args.threads.split(",") if t]
    sizes = [f"n{s}" for s in args.sizes.split(",") if s]
    case_filter = set(c for c in args.cases.split(",") if c)

    global ANCHORS
    ANCHORS = [anchor_old(), anchor_new(args.torch_new)]
    for a in ANCHORS:
        log(f"[anchor] {a.name}: {a.version if a.available else a.reason}")
    torch_bins = build_torch_side(args.work, only, args.lock)
    build = os.path.abspath(args.build)
    default_build = os.path.join(REPO, "build", "release")
    if build == default_build and not os.path.isdir(build) and os.path.isfile(
            os.path.join(REPO, "build", "CMakeCache.txt")):
        build = os.path.join(REPO, "build")  # a single-config tree at build/
        log(f"[ember] {default_build} does not exist; using {build}")
    ember = find_ember_programs(build) if os.path.isdir(build) else {}
    if not ember:
        log(f"[ember] no Ember compare programs under {build}: Ember columns will read 'not built' "
            "(build the ember_compare_* targets with -DEMBER_BUILD_BENCHMARKS=ON)")
    else:
        log(f"[ember] programs: {', '.join(sorted(ember))} from {build}")
    train_threads = [t for t in args.train_threads.split(",") if t]

    def cases_of(torch_name, ember_key, strict=False):
        """The cases a workload's programs list (the first LibTorch build, else Ember's), cut to
        --cases: always for §1/§2 (`strict`), otherwise when --cases names any of them."""
        exe = next((torch_bins[torch_name + a.suffix] for a in ANCHORS
                    if torch_name + a.suffix in torch_bins), ember.get(ember_key))
        cases = list_cases(exe) if exe else []
        picked = [c for c in cases if c in case_filter]
        return picked if picked or (strict and case_filter) else cases

    def ember_prog(key):
        return ("ember", [ember[key]] if key in ember else None)

    runner = Runner(args)
    results = Results()
    regcheck = {}
    if "hwlimits" in only and "hwlimits" in torch_bins:
        regcheck = hwlimits_register_check(torch_bins["hwlimits"])
    for p in passes:
        if "hwlimits" in only and "hwlimits" in torch_bins:
            do_hwlimits(runner, results, p, torch_bins["hwlimits"], ["1", "2"])
        if "overhead" in only:
            run_workload_cases(runner, results, p, "overhead", [
                ember_prog("overhead"), *anchor_progs(torch_bins, "overhead_torch", "libtorch")],
                cases_of("overhead_torch", "overhead", True),
                [t for t in args.overhead_threads.split(",") if t])
        if "elementwise" in only:
            run_workload_cases(runner, results, p, "elementwise", [
                ember_prog("elementwise"),
                *anchor_progs(torch_bins, "elementwise_torch", "libtorch")],
                cases_of("elementwise_torch", "elementwise", True), threads)
        if "sgemm" in only:
            ref = torch_bins.get("sgemm_ref")
            run_workload_cases(runner, results, p, "sgemm", [
                ember_prog("sgemm"), *anchor_progs(torch_bins, "sgemm_torch", "torch_mm"),
                ("openblas_cblas", [ref, "openblas_cblas"] if ref else "build_failed"),
                ("onednn_sgemm", [ref, "onednn_sgemm"] if ref else "build_failed")], sizes,
                threads)
            # The probe splits 1.13's two pools; the newest LibTorch sizes one pool for both.
            run_workload_cases(runner, results, p, "sgemm",
                               anchor_progs(torch_bins, "sgemm_torch", "torch_mm")[:1], ["n1024"],
                               ["a1b1", "a2b1", "a1b2"])
        if "devx" in only:
            do_devx(runner, results, p, args.work, torch_bins, build if ember or
                    find_libember(build) else None, ember)
        if "train_step" in only:
            run_workload_cases(runner, results, p, "train_step", [
                ember_prog("train_step"),
                *anchor_progs(torch_bins, "train_step_torch", "libtorch")],
                cases_of("train_step_torch", "train_step"), train_threads)
        if "epoch" in only:
            env_dir = {"BENCH_FASHION_MNIST": args.fashion_mnist}
            run_workload_cases(runner, results, p, "epoch", [
                ember_prog("epoch"), *anchor_progs(torch_bins, "epoch_torch", "libtorch")],
                cases_of("epoch_torch", "epoch"), train_threads, env_dir)
        if "data_loading" in only:
            if not os.path.exists(f"{HERE}/data_loading_torch.cpp"):
                log("[data_loading] no data_loading_torch.cpp yet: skipped")
            else:
                do_data_loading(runner, results, p, [
                    ember_prog("data_loading"),
                    *anchor_progs(torch_bins, "data_loading_torch", "torch")],
                    unpacked_mnist(args.work, args.fashion_mnist))

        if "conv" in only:
            run_workload_cases(runner, results, p, "conv", [
                ember_prog("conv"), *anchor_progs(torch_bins, "conv_torch", "libtorch")],
                cases_of("conv_torch", "conv"), train_threads)
        if "attention" in only:
            run_workload_cases(runner, results, p, "attention", [
                ember_prog("attention"),
                *anchor_progs(torch_bins, "attention_torch", "libtorch")],
                cases_of("attention_torch", "attention"), train_threads)

        if "collectives" in only:
            # Two ranks of one thread each (the DDP measurement's setting), whatever --threads.
            run_workload_cases(runner, results, p, "collectives", [
                ember_prog("collectives"),
                *anchor_progs(torch_bins, "collectives_torch", "libtorch")],
                cases_of("collectives_torch", "collectives"), ["1"])

    mode = "QUICK smoke test, not a measurement" if args.quick else "full protocol"
    names = " and ".join(a.name for a in ANCHORS if a.available)
    print(f"\n## Ember vs {names} ({mode}; {len(passes)} pass(es); Ember build: {build})\n")
    for a in ANCHORS:
        print(f"- {column_name(a)}: "
              f"{a.version if a.available else 'not installed: ' + a.reason}")
    if args.gate:
        print(f"\n`*` = other processes used more than {args.busy_limit} core while that program "
              f"ran, even after {args.retries} re-run(s): treat the number as disturbed.")
    if "hwlimits" in only:
        report_hwlimits(results, passes, ["1", "2"], regcheck)
    if "overhead" in only:
        report_overhead(results, passes, [t for t in args.overhead_threads.split(",") if t])
    if "elementwise" in only:
        report_elementwise(results, passes, threads)
    if "sgemm" in only:
        report_sgemm(results, passes, threads, sizes)
    if "devx" in only:
        report_devx(results, passes)
    if "train_step" in only:
        report_train_step(results, passes, train_threads)
    if "epoch" in only:
        report_epoch(results, passes, train_threads)
    if "data_loading" in only and os.path.exists(f"{HERE}/data_loading_torch.cpp"):
        report_data_loading(results, passes)
    if "conv" in only:
        report_conv(results, passes, train_threads)
    if "attention" in only:
        report_attention(results, passes, train_threads)
    if "collectives" in only:
        report_collectives(results, passes)

    stamp = time.strftime("%Y%m%d-%H%M%S")
    raw_path = os.path.join(args.work, f"results-{stamp}.txt")
    with open(raw_path, "w") as f:
        f.write("\n".join(runner.raw) + "\n")
        for k, v in results.info.items():
            if k[0] == "devx":
                f.write(f"DEVX pass={k[1]} {v}\n")
    log(f"[done] raw lines in {raw_path}")


if __name__ == "__main__":
    main()
