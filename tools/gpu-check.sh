#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU (sm_90 by default) and the CUDA toolkit: installs
# missing build dependencies (apt-get, only what is missing), builds Ember with CUDA (Release) plus
# the benchmarks, runs test_cuda first, then every other test, then the GPU benchmarks (programs
# under the build's benchmarks/ whose name contains "cuda"), all inside a time budget.
#
# Usage: tools/gpu-check.sh            (from anywhere in the checkout)
# Environment:
#   OUT            where logs go (default: <build>/gpu-check-logs); summary.txt says what passed
#   BUILD_DIR      build directory (default: build/gpu); reused when it exists
#   CUDA_ARCH      CMAKE_CUDA_ARCHITECTURES (default: 90)
#   BUDGET_S       total seconds (default: 480); later phases are skipped, not cut, when short
#   JOBS           build/test parallelism (default: nproc)
# Exit status: 0 when test_cuda and the other tests pass, 1 otherwise (the summary says which).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
start=$SECONDS
budget=${BUDGET_S:-480}
jobs=${JOBS:-$(nproc)}
build=${BUILD_DIR:-build/gpu}
arch=${CUDA_ARCH:-90}
out=${OUT:-$build/gpu-check-logs}
mkdir -p "$out" "$build"
summary="$out/summary.txt"
: >"$summary"
status=0

note() { echo "[gpu-check $((SECONDS - start))s] $*" | tee -a "$summary"; }
left() { echo $((budget - (SECONDS - start))); }
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
  return $rc
}

# ---- 1. Dependencies: only what is missing, and never fatal here (configure says what lacks) ----
export PATH=/usr/local/cuda/bin:$PATH
{
  echo "host: $(hostname)  cores: $(nproc)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || echo "nvidia-smi: not available"
  nvcc --version 2>&1 | tail -n 2 || echo "nvcc: not found"
} >"$out/machine.log" 2>&1
sed 's/^/    /' "$out/machine.log"
if [ -x tools/install-deps.sh ]; then
  run_step deps "$(( $(left) < 180 ? $(left) : 180 ))" tools/install-deps.sh ||
    note "deps: continuing; configure will name anything still missing"
else
  need=()
  for p in build-essential cmake ninja-build pkg-config libopenblas-dev libdnnl-dev libfmt-dev \
    zlib1g-dev libgtest-dev libbenchmark-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
  done
  if [ ${#need[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    run_step deps 180 bash -c "$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends ${need[*]}"
  fi
fi

# ---- 2. Configure and build: test_cuda first, so it runs even if the rest does not fit ----
run_step configure 120 cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DEMBER_USE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" -DEMBER_BUILD_TESTS=ON \
  -DEMBER_BUILD_BENCHMARKS=ON -DEMBER_BUILD_EXAMPLES=OFF || { status=1; exit 1; }
run_step build-test_cuda "$(( $(left) - 60 ))" cmake --build "$build" -j"$jobs" --target test_cuda ||
  { status=1; note "result: FAILED"; exit 1; }

# ---- 3. test_cuda: every CUDA kernel against the CPU ----
run_step test_cuda "$(( $(left) < 240 ? $(left) : 240 ))" "$build/tests/test_cuda" \
  --gtest_output=xml:"$out/test_cuda.xml" || status=1
grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$out/test_cuda.log" | head -n 40 | sed 's/^/    /'
if grep -q "SKIPPED" "$out/test_cuda.log" && ! nvidia-smi >/dev/null 2>&1; then
  note "test_cuda: tests were skipped: no GPU visible to this process"
fi

# ---- 4. Everything else: the other tests, built and run on the same (CUDA) build ----
if run_step build-all "$(( $(left) - 90 ))" cmake --build "$build" -j"$jobs"; then
  run_step ctest "$(( $(left) - 30 ))" ctest --test-dir "$build" -j"$jobs" --timeout 120 \
    --output-on-failure -E '^Cuda' || status=1
else
  status=1
fi

# ---- 5. GPU benchmarks: whatever the build made with "cuda" in its name ----
mapfile -t benches < <(find "$build/benchmarks" -type f -perm -u+x -iname '*cuda*' 2>/dev/null | sort)
if [ ${#benches[@]} -eq 0 ]; then
  note "benchmarks: no CUDA benchmark programs in $build/benchmarks"
fi
for b in "${benches[@]}"; do
  name=bench-$(basename "$b")
  limit=$(( $(left) < 90 ? $(left) : 90 ))
  run_step "$name" "$limit" "$b" || true  # a benchmark failure is reported, not fatal
done

if [ $status -eq 0 ]; then note "result: ok"; else note "result: FAILED"; fi
exit $status
