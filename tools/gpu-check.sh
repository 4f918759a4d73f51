#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU (sm_90 by default) and the CUDA toolkit: runs
# test_cuda first, then every other test program, then the GPU benchmarks (ember_compare_cuda
# beside the same workloads in PyTorch's LibTorch, benchmarks/compare/run_cuda.py), all inside a
# time budget.
#
# Two ways to get the programs:
#   - a bundle made on a CPU machine by tools/gpu-bundle.sh (.gpu-bundle/, git-ignored): used
#     when its source checksum matches this tree. Nothing is built or installed; this is the way
#     for the lent GPU machines, which start bare and reach no package registry.
#   - otherwise (no bundle) a build here (Release, CUDA), after installing what is missing with
#     apt-get. A bundle that does not match the tree is an error naming the files that differ
#     (a build on a lent GPU machine could not get its dependencies); GPU_CHECK_BUILD=1 builds
#     here instead.
#
# Usage: tools/gpu-check.sh            (from anywhere in the checkout)
# With the device tool (15 minutes of GPU time a session, the machine's start included): run
# tools/gpu-bundle.sh here first (~11 min on 2 cores), then one call: command
# `BUDGET_S=420 bash tools/gpu-check.sh`, carry [".gpu-bundle"], timeout_s 480. summary.txt and
# gpu-check-logs.tar.gz come back in $OUT.
# Environment:
#   LOG_DIR        where logs go (default: <build>/gpu-check-logs); summary.txt says what passed
#   OUT            when set (the device tool sets it), summary.txt and all logs as
#                  gpu-check-logs.tar.gz are copied there at the end
#   BUILD_DIR      build directory when building here (default: build/gpu); reused when it exists
#   CUDA_ARCH      CMAKE_CUDA_ARCHITECTURES when building here (default: 90)
#   BUDGET_S       total seconds (default: 480); later phases are skipped, not cut, when short
#   JOBS           build/test parallelism (default: nproc)
#   TORCH_PYTHON   the Python whose torch provides the LibTorch side (default: python3)
# Exit status: 0 when test_cuda, the other tests and the GPU results' checks pass, 1 otherwise
# (the summary says which).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
start=$SECONDS
budget=${BUDGET_S:-480}
jobs=${JOBS:-$(nproc)}
build=${BUILD_DIR:-build/gpu}
arch=${CUDA_ARCH:-90}
bundle=.gpu-bundle
status=0

use_bundle=0
bundle_note="no bundle (.gpu-bundle/): building here"
if [ -f "$bundle/manifest" ] && [ -f "$bundle/bundle.tar.xz" ]; then
  manifest_value() { sed -n "s/^$1=//p" "$bundle/manifest"; }
  have=$(bash tools/gpu-bundle.sh --checksum)
  if [ "$(manifest_value checksum)" = "$have" ]; then
    use_bundle=1
    build=$(manifest_value build)
    bundle_note="bundle of commit $(manifest_value commit), CUDA $(manifest_value cuda), sm_$(manifest_value arch)"
  elif [ "${GPU_CHECK_BUILD:-0}" = 1 ]; then
    bundle_note="bundle of commit $(manifest_value commit) is stale: building here (GPU_CHECK_BUILD=1)"
  else
    echo "gpu-check: the bundle (commit $(manifest_value commit), checksum $(manifest_value checksum))"
    echo "does not match this tree (checksum $have). Files that differ:"
    bash tools/gpu-bundle.sh --hashes | diff "$bundle/sources.sha256" - | sed -n 's/^[<>] /  /p' | head -n 20
    echo "Run tools/gpu-bundle.sh again on the CPU machine, or set GPU_CHECK_BUILD=1 to build here."
    if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then echo "stale bundle" >"$OUT/summary.txt"; fi
    exit 1
  fi
fi

out=${LOG_DIR:-$build/gpu-check-logs}
mkdir -p "$out" "$build"
summary="$out/summary.txt"
: >"$summary"
# Copied after every step, so a run killed from outside still hands back what it did.
hand_back_logs() {
  [ -n "${OUT:-}" ] && [ -d "$OUT" ] || return 0
  cp "$summary" "$OUT/" && tar -czf "$OUT/gpu-check-logs.tar.gz" -C "$out" .
}
torch_build_pid=""
on_exit() {
  [ -n "$torch_build_pid" ] && kill "$torch_build_pid" 2>/dev/null
  hand_back_logs
}
trap on_exit EXIT

note() { echo "[gpu-check $((SECONDS - start))s] $*" | tee -a "$summary"; }
left() { echo $((budget - (SECONDS - start))); }
cap() { local l; l=$(left); echo $((l < $1 ? l : $1)); }  # the budget left, at most $1 seconds
# run_step NAME SECONDS CMD...: runs CMD with a timeout, its output in $out/NAME.log.
run_step() {
  local name=$1 limit=$2
  shift 2
  if [ "$limit" -le 5 ]; then
    note "$name: SKIPPED (time budget spent)"
    return 124
  fi
  timeout --kill-after=10 "$limit" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  if [ $rc -eq 0 ]; then note "$name: ok"; else note "$name: FAILED (exit $rc, log $out/$name.log)"; fi
  tail -n 15 "$out/$name.log" | sed 's/^/    /'
  hand_back_logs
  return $rc
}

# ---- 1. The machine, and the LibTorch side of the benchmarks built in the background ----
export PATH=/usr/local/cuda/bin:$PATH
{
  echo "host: $(hostname)  cores: $(nproc)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || echo "nvidia-smi: not available"
  nvcc --version 2>&1 | tail -n 2 || echo "nvcc: not found"
} >"$out/machine.log" 2>&1
sed 's/^/    /' "$out/machine.log"
note "programs: $bundle_note"
torch_python=${TORCH_PYTHON:-python3}
timeout 300 "$torch_python" benchmarks/compare/run_cuda.py --build-torch-only \
  --torch-python "$torch_python" --work "$build/compare-cuda" >"$out/torch-side-build.log" 2>&1 &
torch_build_pid=$!

# ---- 2. The programs: unpacked from the bundle, or built here (test_cuda first) ----
# ember_env: how Ember's programs are started. With a bundle they need its libraries and the
# machine's cuBLAS on LD_LIBRARY_PATH; only they get it (PyTorch brings its own CUDA libraries).
ember_env=(env)
ember_libs=""
if [ $use_bundle -eq 1 ]; then
  if command -v xz >/dev/null; then
    run_step unpack 120 tar -xJf "$bundle/bundle.tar.xz" -C "$root" || { note "result: FAILED"; exit 1; }
  else  # no xz program: Python's tarfile reads .xz with the standard library
    run_step unpack 120 python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
      "$bundle/bundle.tar.xz" "$root" || { note "result: FAILED"; exit 1; }
  fi
  # The CUDA libraries the bundle leaves out (cuBLAS, cuSOLVER, cuDNN...; the manifest names them)
  # from this machine: the loader's cache, its toolkit, or the pip packages beside torch.
  machine_libs=$(sed -n 's/^machine_libs=//p' "$bundle/manifest")
  if [ -z "$machine_libs" ]; then  # a bundle from before the manifest named them
    machine_libs="libcublas.so.$(sed -n 's/^cuda=\([0-9]*\).*/\1/p' "$bundle/manifest")"
    machine_libs="$machine_libs libcudnn.so.$(sed -n 's/^cudnn=//p' "$bundle/manifest")"
  fi
  pip_nvidia=$(timeout 60 "${TORCH_PYTHON:-python3}" -c \
    'import os, torch; print(os.path.join(os.path.dirname(os.path.dirname(torch.__file__)), "nvidia"))' 2>/dev/null)
  find_names=()
  for lib in $machine_libs; do find_names+=(${find_names:+-o} -name "$lib"); done
  cuda_dirs=$({
    for lib in $machine_libs; do
      ldconfig -p 2>/dev/null | sed -n "s/.*[[:space:]]$lib => //p"
    done
    timeout 60 find /usr/local/cuda* /usr/lib /opt ${pip_nvidia:+"$pip_nvidia"} \( "${find_names[@]}" \) 2>/dev/null
  } | xargs -r -n1 dirname | awk '!seen[$0]++' | paste -sd: -)
  [ -n "$cuda_dirs" ] || note "none of $machine_libs on this machine: the programs cannot load"
  ember_libs="$root/$build:$root/$build/bundle-lib${cuda_dirs:+:$cuda_dirs}"
  ember_env=(env "LD_LIBRARY_PATH=$ember_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
  note "Ember's library path: $ember_libs"
  missing=$("${ember_env[@]}" ldd "$build/tests/test_cuda" 2>&1 | grep "not found")
  [ -z "$missing" ] || note "test_cuda cannot load: $(echo "$missing" | paste -sd' ' -)"
else
  if [ -x tools/install-deps.sh ]; then
    run_step deps "$(cap 180)" tools/install-deps.sh ||
      note "deps: continuing; configure will name anything still missing"
  fi
  run_step configure 120 cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DEMBER_USE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" -DEMBER_BUILD_TESTS=ON \
    -DEMBER_BUILD_BENCHMARKS=ON -DEMBER_BUILD_EXAMPLES=OFF || { note "result: FAILED"; exit 1; }
  run_step build-test_cuda "$(( $(left) - 60 ))" cmake --build "$build" -j"$jobs" --target test_cuda ||
    { note "result: FAILED"; exit 1; }
fi
export EMBER_GOLDEN_DIR="$root/tests/golden"

# ---- 3. test_cuda: every CUDA kernel against the CPU ----
run_step test_cuda "$(cap 240)" "${ember_env[@]}" "$build/tests/test_cuda" \
  --gtest_output=xml:"$out/test_cuda.xml" || status=1
# A check in which no CUDA test ran is a failed check, whatever the exit status says: test_cuda
# skips (and passes) without a device, and the CUDA convolution tests skip without cuDNN.
cuda_passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out/test_cuda.log" | tail -n 1)
cuda_skipped=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out/test_cuda.log" | tail -n 1)
if [ "${cuda_passed:-0}" -eq 0 ]; then
  note "test_cuda: FAILED: no CUDA test passed (none ran on a GPU)"
  status=1
elif [ "${cuda_skipped:-0}" -gt 0 ]; then
  note "test_cuda: $cuda_skipped tests skipped; reasons:"
  grep -A1 ": Skipped$" "$out/test_cuda.log" | grep -v ": Skipped$\|^--$" | sort | uniq -c | head -n 10 |
    tee -a "$summary"
  if grep -q "no CUDA device" "$out/test_cuda.log"; then
    note "test_cuda: FAILED: tests skipped for want of a GPU visible to this process"
    status=1
  fi
fi

# ---- 4. Every other test program, on the same (CUDA-enabled) library ----
if [ $use_bundle -eq 0 ]; then
  run_step build-all "$(( $(left) - 90 ))" cmake --build "$build" -j"$jobs" || status=1
fi
for t in "$build"/tests/test_*; do
  [ -x "$t" ] && [ -f "$t" ] || continue
  name=$(basename "$t")
  [ "$name" = test_cuda ] && continue
  run_step "$name" "$(cap 120)" "${ember_env[@]}" "$t" --gtest_brief=1 || status=1
done

# ---- 5. GPU benchmarks: Ember and LibTorch side by side (shorter repetitions than on the CPU:
# GPU timings settle fast, and the machine is lent by the minute) ----
wait "$torch_build_pid" || note "LibTorch side not built (log $out/torch-side-build.log): Ember only"
torch_build_pid=""
tail -n 5 "$out/torch-side-build.log" | sed 's/^/    /'
BENCH_TARGET_S=${BENCH_TARGET_S:-0.05} BENCH_REPS=${BENCH_REPS:-7} \
  run_step bench-cuda "$(cap 240)" "$torch_python" benchmarks/compare/run_cuda.py "$build" \
  --torch-python "$torch_python" --work "$build/compare-cuda" \
  ${ember_libs:+--ember-lib-path "$ember_libs"} || status=1
sed -n '/^GPU workloads/,$p' "$out/bench-cuda.log" | grep -v '^\[run_cuda\]' >>"$summary"
hand_back_logs

if [ $status -eq 0 ]; then note "result: ok"; else note "result: FAILED"; fi
exit $status
