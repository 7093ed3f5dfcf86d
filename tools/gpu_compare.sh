#!/usr/bin/env bash
# Before/after benchmarks in one device call: builds the baseline tree in
# $BASE (a `git archive` of the baseline commit, carried with the call) and
# this tree side by side, then runs each benchmark on both, alternating, and
# prints new/base for every row (tools/bench_compare.py).
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
for b in "${BENCHES[@]}"; do
    name=$(basename "$b" .py)
    for side in base new; do
        dir=$ROOT; [ $side = base ] && dir=$ROOT/$BASE
        (cd "$dir" && PYTHONPATH=$dir/python EMBER_CACHE_DIR=/tmp/emk-$side \
            timeout "${BENCH_TIMEOUT:-240}" "$PY" "$ROOT/$b" > "$OUT/$side-$name.log" 2>&1)
    done
    echo "=== $name"
    "$PY" tools/bench_compare.py "$OUT/base-$name.log" "$OUT/new-$name.log"
done
