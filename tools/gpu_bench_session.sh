#!/usr/bin/env bash
# The benchmarks in one device call (logs under $OUT): compile times in a
# machine's first and second process, optional tests on cuda:0 (GPU_TESTS="test_x.py ..."),
# optional copy probes (WITH_COPIES=1: tools/gpu_copies.sh), the driver's
# launch forms, import time, host time per small op with the driver shim,
# tools/gpu_bench.py, bench_fusion --gpu-only and bench_jit.
#   bash tools/gpu_bench_session.sh
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/gpu_common.sh
gpu_env
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
gpu_read_libs
bash tools/dev.sh build > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "=== first compiles on this machine, then in a second process (wall time, NVRTC's CPU time, store)"
for i in 1 2; do
    EMBER_CACHE_DIR=/tmp/cc$i EMBER_DEBUG=2 timeout 60 "$PY" tools/probe_compile.py 2>&1 | grep -E "compiled in" |
        sed "s/ember: kernel cache miss [0-9a-f]*.cubin for //" | cut -c1-110 | tee "$OUT/compile$i.log"
done
if [ -n "${GPU_TESTS:-}" ]; then
    echo "=== tests on cuda:0: $GPU_TESTS"
    for t in $GPU_TESTS; do
        EMBER_DEVICE=cuda:0 timeout 240 "$PY" -m pytest -q -p no:cacheprovider -x "tests/python/$t" > "$OUT/$t.log" 2>&1 &
    done
    wait
    for t in $GPU_TESTS; do echo "$t: $(tail -n 1 "$OUT/$t.log")"; done
fi
[ "${WITH_COPIES:-0}" = 1 ] && bash tools/gpu_copies.sh
echo "=== driver launch forms"
cc -O2 -o /tmp/pl tools/probe_launch.c -ldl && /tmp/pl 2>&1 | tail -7
echo "=== import time"
for i in 1 2 3; do
    "$PY" -c "import numpy, time; t = time.perf_counter(); import ember; print('import ember after numpy: %.1f ms' % ((time.perf_counter() - t) * 1e3))"
done
echo "=== host time per call"
gpu_build_shim && EMBER_LIBCUDA=/tmp/shim.so timeout 80 "$PY" tools/probe_host.py 2>&1 | tee "$OUT/host.log"
for b in "tools/gpu_bench.py" "bench/bench_fusion.py --gpu-only" "bench/bench_jit.py --device cuda:0"; do
    echo "=== $b"
    f=$(basename "${b%% *}" .py)
    timeout 130 "$PY" $b > "$OUT/$f.log" 2>&1; tail -32 "$OUT/$f.log"
done
