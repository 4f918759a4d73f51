#!/bin/sh
# Ember vs LibTorch on the workloads of shared/BENCHMARKS.md: see benchmarks/README.md.
#   benchmarks/compare/run.sh [EMBER_BUILD_DIR] [run.py options]
# BENCH_QUICK=1 for a smoke test.
exec python3 "$(dirname "$0")/run.py" "$@"
