#!/usr/bin/env bash
# One device-machine session in two calls of at most 10 minutes each (the
# device tool's limit), logs under $OUT:
#   bash tools/gpu_session.sh suite   build, ctest, the whole pytest suite on cuda:0
#   bash tools/gpu_session.sh bench   every benchmark side by side (needs the build)
# Wheels carried in .whl/ (Dask, distributed, array-api-compat: see the device
# tool's README) are installed into /tmp/site first, so the Dask and
# scikit-learn tests run on the GPU too.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu_logs}
mkdir -p "$OUT"
PY=${EMBER_PYTHON:-python3}
export EMBER_USE_CURRENT_PYTHON=1 EMBER_PYTHON=$PY EMBER_CACHE_DIR=${EMBER_CACHE_DIR:-/tmp/emk}
if ls .whl/*.whl >/dev/null 2>&1; then
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
        && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
. tools/gpu_common.sh
[ "${EMBER_WARM_NVRTC:-1}" = 1 ] && gpu_read_libs
case "${1:-suite}" in
suite)
    bash tools/dev.sh build > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
    # The C tests beside the pytest files (one device call has 10 minutes).
    (cd build && timeout "${EMBER_TEST_TIMEOUT:-420}" ctest -j4 --output-on-failure > "$OUT/ctest.log" 2>&1) &
    EMBER_TEST_LOGDIR=$OUT/tests EMBER_PYTHON=$PY bash tools/gpu_tests.sh "${P:-12}" "$OUT/tests.log"
    wait
    tail -3 "$OUT/ctest.log"
    grep -E "^=== " "$OUT/tests.log" | awk '{print}' | tail -60
    ;;
bench)
    "$PY" -X importtime -c "import ember" 2>&1 | tail -1
    "$PY" -c "import time; t=time.perf_counter(); import ember; print('import ember s', time.perf_counter()-t)"
    for b in tools/gpu_bench.py bench/bench_fusion.py bench/bench_kernels.py bench/bench_jit.py; do
        [ -f "$b" ] || continue
        echo "=== $b"
        timeout "${BENCH_TIMEOUT:-200}" "$PY" "$b" 2>&1 | tee "$OUT/$(basename "$b" .py).log" | tail -40
    done
    ;;
esac
