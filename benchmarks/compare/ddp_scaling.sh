#!/usr/bin/env bash
# Issue #19's DDP measurement in one go: for each model, the 1-process x 1-thread step, then the
# 2-rank DDP step (tools/ember-run) over a sweep of bucket sizes, with the throughput scaling
# 2 x (1-process step) / (DDP step), the compute-only step, the all-reduce alone and the share of
# it hidden behind backward (ember_bench_ddp's columns). The 1-process baseline is re-measured
# before each DDP run: on a shared VM the two must come from the same few seconds.
#
# Usage: benchmarks/compare/ddp_scaling.sh [BUILD_DIR (build/release)] [models (lenet mlp)]
#        BUCKETS="25 1 0.25 0.1" to change the sweep (MiB).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release}
shift || true
models=${*:-lenet mlp}
buckets=${BUCKETS:-25 1 0.25 0.1}
bench=$build/benchmarks/compare/ember_bench_ddp
[ -x "$bench" ] || { echo "no $bench: build the ember_bench_ddp target (needs Gloo)" >&2; exit 1; }

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

echo "| model | bucket_cap_mb | buckets | 1 proc ms | DDP step ms | scaling | compute ms | synced ms | comm ms | overlap | overlap vs synced |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for model in $models; do
  for mb in $buckets; do
    one=$(OMP_NUM_THREADS=1 "$bench" "$model" | grep '^RESULT')
    two=$(tools/ember-run --nproc 2 "$bench" "$model" "$mb" | grep '^RESULT')
    base=$(field median "$one")
    step=$(field median "$two")
    scaling=$(awk -v a="$base" -v b="$step" 'BEGIN { printf "%.2f", 2 * a / b }')
    echo "| $model | $mb | $(field buckets "$two") | $base | $step | ${scaling}x |" \
      "$(field compute_ms "$two") | $(field synced_ms "$two") | $(field comm_ms "$two") |" \
      "$(field overlap "$two") | $(field overlap_synced "$two") |"
  done
done
