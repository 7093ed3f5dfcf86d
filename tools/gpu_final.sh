#!/usr/bin/env bash
# This session's last device call (logs under $OUT): the copy probes
# (tools/gpu_copies.sh), the driver's launch forms, host time per small op,
# import time, and tools/gpu_bench.py.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu_logs}
PY=${EMBER_PYTHON:-python3}
export EMBER_USE_CURRENT_PYTHON=1 EMBER_PYTHON=$PY PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1 EMBER_CACHE_DIR=/tmp/emk
date -u
find /usr /opt \( -name 'libnvrtc*.so*' -o -name 'libcuda.so*' -o -name 'libcublas*.so*' \) -type f 2>/dev/null |
    xargs -r cat > /dev/null
bash tools/gpu_copies.sh
echo "=== driver launch forms"
cc -O2 -o /tmp/pl tools/probe_launch.c -ldl && /tmp/pl 2>&1 | tail -7
echo "=== import time"
for i in 1 2 3; do "$PY" -c "import numpy, time; t = time.perf_counter(); import ember; print('import ember after numpy: %.1f ms' % ((time.perf_counter() - t) * 1e3))"; done
echo "=== host time per call"
cc -O2 -shared -fPIC -o /tmp/shim.so tools/probe_shim.c -Wl,--no-as-needed \
    "$(ldconfig -p | awk '/libcuda.so.1 /{print $NF; exit}')" -ldl &&
    EMBER_LIBCUDA=/tmp/shim.so timeout 80 "$PY" tools/probe_host.py 2>&1 | tee "$OUT/host.log"
echo "=== gpu_bench"
timeout 150 "$PY" tools/gpu_bench.py 2>&1 | tee "$OUT/gpu_bench.log" | tail -16
