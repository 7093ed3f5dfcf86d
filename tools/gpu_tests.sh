#!/usr/bin/env bash
# The whole pytest suite on cuda:0, one pytest process per test file, P at a
# time (kernels compile in parallel), then one log with every failure.
#   bash tools/gpu_tests.sh [P] [LOG]     (EMBER_TEST_SKIP=regex leaves files out;
#   EMBER_TEST_HALF=1|2 half the files; EMBER_TEST_WORKSTEAL=1 one xdist run)
set -uo pipefail
cd "$(dirname "$0")/.."
P=${1:-8}
LOG=${2:-gpu_tests.log}
PY=${EMBER_PYTHON:-python3}
# Per-file logs where the caller says (gpu_session.sh: under $OUT), so that a
# run cut off by the device tool's time limit still brings back what ended.
TMP=${EMBER_TEST_LOGDIR:-$(mktemp -d)}
mkdir -p "$TMP"
export EMBER_DEVICE=cuda:0 PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
# Files that compile thousands of kernels (every op over every dtype pair)
# run on several workers where pytest-xdist is there (test_promotion.py took
# 406 s of a 466 s run alone, and once ran past the limit).
SPLIT=${EMBER_TEST_SPLIT:-test_promotion.py test_ufuncs.py test_reductions.py test_cuda_ops.py}
XDIST=0; "$PY" -c "import xdist" 2>/dev/null && XDIST=1
run_one() {
    local f=$1 extra=""
    if [ "$XDIST" = 1 ] && [[ " $SPLIT " == *" $(basename "$f") "* ]]; then extra="-n 3"; fi
    timeout "${EMBER_TEST_TIMEOUT:-480}" "$PY" -m pytest -q -p no:cacheprovider --tb=short -rfE $extra "$f" \
        > "$TMP/$(basename "$f").log" 2>&1
}
export -f run_one
export PY TMP SPLIT XDIST
# EMBER_TEST_SKIP: an extended regex of files to leave out (a call that runs the slowest
# files separately, on more workers, within the device tool's 600 s).
FILES=$(ls tests/python/test_*.py | grep -vE "${EMBER_TEST_SKIP:-^$}")
# EMBER_TEST_HALF=1|2: the first or second half of the files (the whole suite
# on cuda:0 is about 560 s of 14 workers: two device calls).
N=$(echo "$FILES" | wc -l)
case "${EMBER_TEST_HALF:-}" in
    1) FILES=$(echo "$FILES" | head -n $((N / 2))) ;;
    2) FILES=$(echo "$FILES" | tail -n +$((N / 2 + 1))) ;;
esac
# EMBER_TEST_WORKSTEAL=1: one pytest over the files on P xdist workers that
# steal each other's queued tests (xdist >= 3.2), instead of a process a file:
# session 22's whole suite on the H100, 308 + 254 s in two calls, none cut off.
if [ "${EMBER_TEST_WORKSTEAL:-0}" = 1 ] && [ "$XDIST" = 1 ]; then
    timeout "${EMBER_TEST_TIMEOUT:-480}" "$PY" -m pytest -v -n "$P" --dist worksteal -p no:cacheprovider \
        --tb=short -rfE $FILES > "$TMP/suite.log" 2>&1
    tail -n 1 "$TMP/suite.log" | tee "$LOG"
    grep -E "^(FAILED|ERROR)" "$TMP/suite.log" >> "$LOG"
    tail -n 1 "$TMP/suite.log" | grep -qE "^=+ [0-9]+ passed" && ! grep -qE "^(FAILED|ERROR)" "$TMP/suite.log"
    exit $?
fi
echo "$FILES" | xargs -P "$P" -I{} bash -c 'run_one {}'
: > "$LOG"
for f in "$TMP"/*.log; do
    echo "=== $(basename "$f" .log): $(tail -n 1 "$f")" | tee -a "$LOG"
done
for f in "$TMP"/*.log; do
    if ! tail -n 1 "$f" | grep -qE '^[0-9]+ passed(, [0-9]+ skipped)?( in|,)' || grep -q failed "$f"; then
        echo; echo "##### $(basename "$f" .log)"; cat "$f"
    fi >> "$LOG"
done
