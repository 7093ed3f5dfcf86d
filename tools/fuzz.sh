#!/usr/bin/env bash
# Ember's differential fuzzer (tests/fuzz/run.py) as long campaigns.
#
#   bash tools/fuzz.sh cpu [CASES] [SECONDS]   a long CPU campaign (default 100000 cases),
#                                              then 8-thread cases (a tenth)
#   bash tools/fuzz.sh asan [CASES] [SECONDS]  the sanitizer build (tools/dev.sh asan builds
#                                              it), default 10000 cases, then a tenth on 8
#                                              threads
#   bash tools/fuzz.sh gpu [CASES]             on a GPU machine, one command: build, the
#                                              campaign with CUDA arrays (default 10000), 8
#                                              threads on CUDA, the GPU fault cases
#                                              (tests/fuzz/gpu_faults.py)
#
# FUZZ_JOBS child processes run at once (default: the cores).  SECONDS bounds a campaign: no
# batch starts after it (default 300, a fifth of it for the threaded campaign), so with
# FUZZ_JOBS=14 on the 16-core GPU host each mode ends within about 8 minutes even where not
# all cases ran; the summary says how many did.  Each campaign's summary (counts per
# class, then per signature) is printed to stdout and kept in $OUT (default ./fuzz_logs)
# with the JSON counts; $OUT/summary.txt has one line per run.  Reproduce any case with
# `python tests/fuzz/run.py --case SEED --shrink [--device cuda:0]`.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/fuzz_logs}
mkdir -p "$OUT"
PY=${EMBER_PYTHON:-python3}
JOBS=${FUZZ_JOBS:-$(nproc)}
mode=${1:-cpu}
: >"$OUT/summary.txt"

campaign() { # campaign NAME ARGS...: run.py with its counts and summary kept
    local name=$1; shift
    "$PY" tests/fuzz/run.py --jobs "$JOBS" --progress --out "$OUT/$name.json" "$@" \
        >"$OUT/$name.txt" 2>"$OUT/$name.err"
    local rc=$?
    echo "== $name (rc=$rc)"
    grep -v '^  *[0-9][0-9]*  .* known$' "$OUT/$name.txt" | head -60 # new signatures in full
    grep '^  *[0-9][0-9]*  .* known$' "$OUT/$name.txt" | head -25
    echo "$name (rc=$rc): $(head -1 "$OUT/$name.txt")" >>"$OUT/summary.txt"
}

case $mode in
cpu)
    n=${2:-100000}
    secs=${3:-300}
    export PYTHONPATH=$ROOT/python
    campaign cpu --cases "$n" --seed 2 --batch 250 --max-seconds "$secs"
    campaign cpu_threads --cases $((n / 10)) --seed 3 --threads 8 --batch 200 \
        --max-seconds $((secs / 5))
    ;;
asan)
    n=${2:-10000}
    secs=${3:-300}
    ls build-asan/python/ember/_ember*.so >/dev/null 2>&1 ||
        { echo "no sanitizer build: run bash tools/dev.sh asan first" >&2; exit 2; }
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1:allocator_may_return_null=1:handle_sigfpe=0
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
    export PYTHONPATH=$ROOT/build-asan/python
    # small batches: an ASan child's start costs seconds, and the last ones finish together
    campaign asan --cases "$n" --seed 4 --batch 100 --timeout 300 --max-seconds "$secs"
    campaign asan_threads --cases $((n / 10)) --seed 5 --threads 8 --batch 80 --timeout 300 \
        --max-seconds $((secs / 5))
    ;;
gpu)
    n=${2:-10000}
    export EMBER_USE_CURRENT_PYTHON=1 EMBER_PYTHON=$PY PYTHONPATH=$ROOT/python PYTHONUNBUFFERED=1
    export EMBER_CACHE_DIR=${EMBER_CACHE_DIR:-$(mktemp -d)/kernels}
    bash tools/dev.sh build >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
    # The GPU's cases compile kernels: fewer children at once than cores.
    JOBS=${FUZZ_JOBS:-4}
    campaign gpu --device cuda:0 --cases "$n" --seed 6 --batch 250 --timeout 180
    campaign gpu_threads --device cuda:0 --cases $((n / 10)) --seed 7 --threads 8 --batch 200 \
        --timeout 180
    "$PY" tests/fuzz/gpu_faults.py --device cuda:0 --out "$OUT/gpu_faults.json" \
        >"$OUT/gpu_faults.txt" 2>&1
    echo "gpu_faults (rc=$?):" | tee -a "$OUT/summary.txt"
    sed 's/^/  /' "$OUT/gpu_faults.txt" | tee -a "$OUT/summary.txt"
    ;;
*)
    echo "usage: bash tools/fuzz.sh {cpu|asan|gpu} [CASES]" >&2
    exit 2
    ;;
esac
echo "== summary"
cat "$OUT/summary.txt"
