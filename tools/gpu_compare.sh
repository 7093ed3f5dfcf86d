#!/usr/bin/env bash
# Before/after benchmarks in one device call: builds the baseline tree in
# $BASE (a `git archive` of the baseline commit, carried with the call) and
# this tree side by side, then runs each benchmark base, new, new, base
# (ROUNDS=1: base, new only) and prints new/base for every row, each side the
# mean of its runs, with the spread between runs of one tree
# (tools/bench_compare.py).  With the base always first, the host's and the
# GPU's drift over a call fell on the new tree alone: issue 14's call of
# 2026-11-26 09:22 read matmul 8192 f16 -6.9 % and the CPU rows at 16 threads
# up to +22 % slower; with the trees alternating, each of those rows stayed
# within the spread between one tree's own processes
# (bench/raw/h100_issue14_interleaved.json).
#   BASE=.base bash tools/gpu_compare.sh [bench ...]
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. tools/gpu_common.sh
gpu_env
BASE=${BASE:-.base}
[ -d "$BASE" ] || { echo "no baseline tree in $BASE" >&2; exit 2; }
BENCHES=("$@")
[ ${#BENCHES[@]} -gt 0 ] || BENCHES=(tools/gpu_bench.py bench/bench_fusion.py bench/bench_kernels.py)
(cd "$BASE" && bash tools/dev.sh build > "$OUT/build-base.log" 2>&1) &
bash tools/dev.sh build > "$OUT/build-new.log" 2>&1 || { tail -30 "$OUT/build-new.log"; exit 1; }
wait || true
[ -f "$BASE/build/CMakeCache.txt" ] || { tail -30 "$OUT/build-base.log"; exit 1; }
# Each run's log in $LOGS; $OUT gets one file per benchmark (every run's
# log under a header), as the device call returns at most 8 files.
LOGS=${LOGS:-/tmp/gpu_compare}
mkdir -p "$LOGS"
ORDER="base-1 new-1 new-2 base-2"
[ "${ROUNDS:-2}" = 1 ] && ORDER="base-1 new-1"
for b in "${BENCHES[@]}"; do
    name=$(basename "$b" .py)
    for run in $ORDER; do
        side=${run%-*}
        dir=$ROOT; [ $side = base ] && dir=$ROOT/$BASE
        (cd "$dir" && PYTHONPATH=$dir/python EMBER_CACHE_DIR=/tmp/emk-$side \
            timeout "${BENCH_TIMEOUT:-240}" "$PY" "$ROOT/$b" > "$LOGS/$run-$name.log" 2>&1)
    done
    echo "=== $name"
    logs() { local l=() r; for r in $ORDER; do [ "${r%-*}" = "$1" ] && l+=("$LOGS/$r-$name.log"); done
        (IFS=,; echo "${l[*]}"); }
    "$PY" tools/bench_compare.py "$(logs base)" "$(logs new)"
    (cd "$LOGS" && for r in $ORDER; do echo "==> $r-$name.log"; cat "$r-$name.log"; done) \
        > "$OUT/$name.log"
done
