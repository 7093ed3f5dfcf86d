#!/usr/bin/env bash
# Ember's differential fuzzer (tests/fuzz/run.py) as long campaigns.
#
#   bash tools/fuzz.sh cpu [CASES] [SECONDS]   a long CPU campaign (default 100000 cases),
#                                              then 8-thread cases (a tenth)
#   bash tools/fuzz.sh asan [CASES] [SECONDS]  the sanitizer build (tools/dev.sh asan builds
#                                              it), default 10000 cases, then a tenth on 8
#                                              threads
#   bash tools/fuzz.sh long [CASES [SECS [ASAN_SECS]]]  on a fresh machine, one command:
#                                              build, cpu (default 100000 cases, 180 s bound),
#                                              the sanitizer build, asan (a tenth of the
#                                              cases, 120 s bound): 3-8 minutes on 16 cores
#                                              with FUZZ_JOBS=15
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

cpu_campaigns() { # N SECONDS
    export PYTHONPATH=$ROOT/python
    campaign cpu --device cpu --cases "$1" --seed 2 --batch 250 --max-seconds "$2"
    campaign cpu_threads --device cpu --cases $(($1 / 10)) --seed 3 --threads 8 --batch 200 \
        --max-seconds $(($2 / 5))
}

asan_campaigns() { # N SECONDS
    ls build-asan/python/ember/_ember*.so >/dev/null 2>&1 ||
        { echo "no sanitizer build: run bash tools/dev.sh asan-build first" >&2; exit 2; }
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1:allocator_may_return_null=1:handle_sigfpe=0
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
    export PYTHONPATH=$ROOT/build-asan/python
    # small batches: an ASan child's start costs seconds, and the last ones finish together
    campaign asan --device cpu --cases "$1" --seed 4 --batch 100 --timeout 300 --max-seconds "$2"
    campaign asan_threads --device cpu --cases $(($1 / 10)) --seed 5 --threads 8 --batch 80 \
        --timeout 300 --max-seconds $(($2 / 5))
    unset LD_PRELOAD
}

case $mode in
cpu) cpu_campaigns "${2:-100000}" "${3:-300}" ;;
asan) asan_campaigns "${2:-10000}" "${3:-300}" ;;
long)
    # Everything on a fresh GPU host in one call of under 9.5 minutes: build, 100,000 CPU
    # cases and 10,000 threaded, the sanitizer build, 10,000 cases under it and 1,000
    # threaded.  The time bounds (a fifth of each for the threaded part) keep the whole
    # within about 8 minutes even where the throughput is far below the 1,500-2,000 cases
    # a second expected (the summary says how many cases ran).
    export EMBER_USE_CURRENT_PYTHON=1 EMBER_PYTHON=$PY PYTHONUNBUFFERED=1
    t0=$SECONDS
    bash tools/dev.sh build >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
    echo "== build: $((SECONDS - t0)) s"
    cpu_campaigns "${2:-100000}" "${3:-180}"
    t1=$SECONDS
    bash tools/dev.sh asan-build >"$OUT/asan_build.log" 2>&1 ||
        { tail -30 "$OUT/asan_build.log"; exit 1; }
    echo "== asan build: $((SECONDS - t1)) s"
    asan_campaigns "$((${2:-100000} / 10))" "${4:-120}"
    echo "== long: $((SECONDS - t0)) s in all"
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
    echo "usage: bash tools/fuzz.sh {cpu|asan|long|gpu} [CASES] [SECONDS]" >&2
    exit 2
    ;;
esac
echo "== summary"
cat "$OUT/summary.txt"
