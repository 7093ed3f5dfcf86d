#!/usr/bin/env bash
# Probes and benchmarks for the open host-time, compile-time and reduction
# items, in one device call of at most 10 minutes (logs under $OUT):
#   bash tools/gpu_probe.sh
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/gpu_common.sh
gpu_env
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
gpu_read_libs
bash tools/dev.sh build > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "=== host time per call (driver time from the shim)"
gpu_build_shim && EMBER_LIBCUDA=/tmp/shim.so timeout 150 "$PY" tools/probe_host.py 2>&1 | tee "$OUT/host.log"
echo "=== reductions, every variant"
EMBER_PROBE_VARIANTS="${EMBER_PROBE_VARIANTS-;u0;u8;u0,i64}" EMBER_CACHE_DIR=/tmp/emc2 timeout 200 "$PY" tools/probe_seed64_ember.py > "$OUT/seed64_ember.log" 2>&1
tail -45 "$OUT/seed64_ember.log"
echo "=== compile time: two fresh processes with fresh caches, then a warm disk cache"
for i in 1 2 3; do
    d=/tmp/cc$i; [ $i = 3 ] && d=/tmp/cc2
    EMBER_CACHE_DIR=$d EMBER_DEBUG=2 timeout 120 "$PY" tools/probe_compile.py > "$OUT/compile$i.log" 2>&1
    grep -E "compiled in|first|hit \(disk\)" "$OUT/compile$i.log" | sed 's/ember: kernel cache //' | cut -c1-110
done
echo "=== nvrtc options"
timeout 150 "$PY" tools/probe_nvrtc.py 2>&1 | tail -12 | tee "$OUT/nvrtc.log"
[ "${WITH_BENCH:-0}" = 1 ] || exit 0
echo "=== gpu_bench"
EMBER_CACHE_DIR=/tmp/emc2 timeout 150 "$PY" tools/gpu_bench.py 2>&1 | tee "$OUT/gpu_bench.log" | tail -20
