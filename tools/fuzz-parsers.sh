#!/usr/bin/env bash
# Fuzzes Ember's file parsers with libFuzzer (Debian's clang):
#   tools/fuzz-parsers.sh [TARGET ...]     (default: every tests/fuzz_parsers/*_fuzz.cpp)
# Env: FUZZ_SECONDS (default 60) per target; EMBER_LIB_DIR: a release build of libember.so
# (default build/ci; built with GCC is fine).
# Each target is tests/fuzz_parsers/<name>_fuzz.cpp defining LLVMFuzzerTestOneInput; its seed corpus
# is tests/fuzz_parsers/corpus/<name>/ (read only: new inputs go to build/fuzz/<name>/corpus).
# The target and src/serialize/*.cpp are compiled with clang, instrumented for coverage, ASan and
# UBSan; the rest of Ember comes from libember.so (the executable's own, instrumented copies of the
# parser functions take precedence over the library's). Prints the executions each target ran.
set -euo pipefail
cd "$(dirname "$0")/.."
lib_dir=${EMBER_LIB_DIR:-build/ci}
seconds=${FUZZ_SECONDS:-60}
[ -f "$lib_dir/libember.so" ] || { echo "fuzz-parsers: no $lib_dir/libember.so (set EMBER_LIB_DIR)" >&2; exit 2; }
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz_parsers/*_fuzz.cpp; do
    b=$(basename "$f"); targets+=("${b%_fuzz.cpp}")
  done
fi
mkdir -p build/fuzz
for t in "${targets[@]}"; do
  out=build/fuzz/$t
  mkdir -p "$out/corpus" "$out/artifacts"
  echo "=== $t: build ==="
  clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I. -Iinclude "tests/fuzz_parsers/${t}_fuzz.cpp" src/serialize/*.cpp \
    -L"$lib_dir" -Wl,-rpath,"$(realpath "$lib_dir")" -lember -lfmt -lz -lpthread \
    -o "$out/fuzzer"
  echo "=== $t: run ${seconds}s ==="
  "$out/fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$out/artifacts/" "$out/corpus" "tests/fuzz_parsers/corpus/$t" 2>&1 |
    tee "$out/log" | grep -E '^(#[0-9]+ +DONE|==[0-9]+==|SUMMARY|Done)' || true
  if grep -q "ERROR: \|SUMMARY: " "$out/log"; then
    echo "fuzz-parsers: $t found a crash: see $out/log and $out/artifacts" >&2
    exit 1
  fi
  runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$out/log" | tail -n1)
  echo "$t: ${runs:-?} executions, no crash"
done
