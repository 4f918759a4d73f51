#!/usr/bin/env bash
# Runs every test Ember has, from a clean or existing checkout:
#   1. installs missing dependencies (tools/install-deps.sh),
#   2. release build (-Werror) + all tests; where the CUDA toolkit is present this build includes
#      the CUDA sources (sm_90), so they compile in CI and the CUDA tests run (skipping without a
#      GPU) without a third build of the library,
#   3. ASan+UBSan build (CPU only) + all tests,
#   4. an install of the release build used by a separate find_package(Ember) program.
# Usage: tools/test.sh [--quick]   (--quick: release build and tests only)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
tools/install-deps.sh

# The generated compat headers match tests/compat/libtorch_headers.txt (none missing or stale).
tools/gen-compat-headers.sh --check

jobs=$(nproc)
quick=0
[ "${1:-}" = "--quick" ] && quick=1

# Totals over every test program of every suite, for the closing line "N passed, N failed, N
# skipped". A program that ended without GoogleTest's summary (a crash, a timeout), or with a
# non-zero exit status after it, counts as one failure.
passed=0 failed=0 skipped=0
count_log() {
  local log=$1 p f s r
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\.$/\1/p' "$log" | tail -n1)
  s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) tests\{0,1\}[.,].*$/\1/p' "$log" | tail -n1)
  # With --gtest_brief GoogleTest prints no "N tests failed" total: failed = ran - passed - skipped.
  r=$(sed -n 's/^\[==========\] \([0-9]*\) tests\{0,1\} from .* ran\..*$/\1/p' "$log" | tail -n1)
  if [ -n "$r" ]; then f=$((r - ${p:-0} - ${s:-0})); else f=1; fi
  # A program whose tests all passed but that exited non-zero (a sanitizer's leak report at exit)
  # failed too: the runner below marks its log.
  if [ "${f:-0}" -eq 0 ] && grep -q '^EMBER-TEST-PROGRAM-FAILED' "$log"; then f=1; fi
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-0}))
  skipped=$((skipped + ${s:-0}))
}
count_results() {
  local log
  for log in "$1"/tests/test_*.log; do
    [ -f "$log" ] && count_log "$log"
  done
}
summary_and_exit() {
  echo "$passed passed, $failed failed, $skipped skipped"
  exit "$1"
}

# run_suite NAME DIR [cmake args...]; TARGETS and LABEL (ctest -L) narrow a suite when set.
run_suite() {
  local name=$1 dir=$2
  shift 2
  echo "=== $name: configure + build ($dir) [${SECONDS}s] ==="
  cmake -S . -B "$dir" -G Ninja -DEMBER_WERROR=ON "$@" >"$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; return 1; }
  # shellcheck disable=SC2086
  cmake --build "$dir" -j"$jobs" ${TARGETS:+--target $TARGETS}
  echo "=== $name: tests [${SECONDS}s] ==="
  if [ -z "${LABEL:-}" ]; then
    # One process per test program instead of ctest's one per test: ~1200 process starts cost
    # 57 s of a release run whose tests take 3 s, and minutes under ASan. (ctest still works for
    # developers: every test is registered with it.)
    # shellcheck disable=SC2016
    rm -f "$dir"/tests/test_*.log
    local status=0
    find "$dir/tests" -maxdepth 1 -type f -name 'test_*' -perm -u+x -print0 |
      xargs -0 -n1 -P"$jobs" sh -c 'timeout 900 "$0" --gtest_brief=1 > "$0.log" 2>&1 || { echo "EMBER-TEST-PROGRAM-FAILED: exit status $?" >> "$0.log"; cat "$0.log"; exit 1; }' ||
      status=1
    count_results "$dir"
    [ $status -eq 0 ] || summary_and_exit 1
  else
    (cd "$dir" && ctest --output-on-failure -j"$jobs" --timeout 300 ${LABEL:+-L $LABEL})
  fi
}

cuda_args=(-DEMBER_USE_CUDA=OFF)
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
  cuda_args=(-DEMBER_USE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90)
else
  echo "=== no CUDA toolkit here: the release build is CPU only ==="
fi

mkdir -p build
run_suite release build/ci -DCMAKE_BUILD_TYPE=Release "${cuda_args[@]}"

# The GEMM and linalg tests once more with OpenBLAS forced onto an old core, so the routes around a
# fallback core (kernels/cpu/blas_core.cpp: oneDNN for float32, Eigen for float64) run on every CI
# machine, not only on CPUs newer than OpenBLAS's table.
echo "=== release: GEMM with OpenBLAS on a fallback core (OPENBLAS_CORETYPE=Prescott) [${SECONDS}s] ==="
fallback_log=build/ci/blas_fallback.log
fallback_status=0
OPENBLAS_CORETYPE=Prescott timeout 900 build/ci/tests/test_ops --gtest_brief=1 \
  --gtest_filter='GemmProvider.*:LinalgMm.*:LinalgBmm.*:MatmulTest.*:Linalg/LinalgGolden.*' \
  >"$fallback_log" 2>&1 || { cat "$fallback_log"; fallback_status=1; }
count_log "$fallback_log"
[ $fallback_status -eq 0 ] || summary_and_exit 1

# oneDNN's tests once more with OpenMP limited to one thread: oneDNN splits work for the threads it
# asks for, so a smaller team than Ember's thread count must never reach it (kernels/cpu/
# gemm_blas.cpp, sync_omp_threads; before, a convolution's weight gradient came back half done).
echo "=== release: oneDNN under OMP_THREAD_LIMIT=1 [${SECONDS}s] ==="
limit_status=0
declare -A limit_filters=([test_nn]='ConvFunctional.*:LinearModule.*'
  [test_ops]='LinalgMm.*:LinalgMmKernels.*:GemmProvider.ColumnSplit*')
for program in test_nn test_ops; do
  limit_log=build/ci/thread_limit_$program.log
  OMP_THREAD_LIMIT=1 timeout 900 build/ci/tests/$program --gtest_brief=1 \
    --gtest_filter="${limit_filters[$program]}" >"$limit_log" 2>&1 ||
    { cat "$limit_log"; limit_status=1; }
  count_log "$limit_log"
done
[ $limit_status -eq 0 ] || summary_and_exit 1
[ $quick -eq 1 ] && summary_and_exit 0

# -g1: line tables for the sanitizers' stack traces without full debug info (10-15% of the build).
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_suite asan build/asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
  -DEMBER_SANITIZE="address;undefined" \
  -DEMBER_USE_CUDA=OFF -DEMBER_BUILD_EXAMPLES=OFF

echo "=== install: find_package(Ember) from a separate project [${SECONDS}s] ==="
rm -rf build/install build/consumer
cmake --install build/ci --prefix "$root/build/install" >/dev/null
cmake -S tests/install -B build/consumer -G Ninja -DCMAKE_PREFIX_PATH="$root/build/install" >/dev/null
cmake --build build/consumer >/dev/null
build/consumer/ember_consumer
echo "=== all passed [${SECONDS}s] ==="
summary_and_exit 0
