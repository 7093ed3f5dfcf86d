#!/usr/bin/env bash
# Probes for the open host-time, compile-time and seed 004 float64 items, in
# one device call (logs under $OUT):
#   bash tools/gpu_probe.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu_logs}
mkdir -p "$OUT"
PY=${EMBER_PYTHON:-python3}
export EMBER_USE_CURRENT_PYTHON=1 EMBER_PYTHON=$PY PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
lscpu | grep -E "Model name|^CPU\(s\)"
bash tools/dev.sh build > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "=== driver launch cost"
cc -O2 -o /tmp/pl tools/probe_launch.c -ldl && /tmp/pl 2>&1 | tee "$OUT/launch.log"
echo "=== host time per call"
timeout 120 "$PY" tools/probe_host.py 2>&1 | tee "$OUT/host.log"
echo "=== compile time: two fresh processes, fresh caches"
for i in 1 2; do
    EMBER_CACHE_DIR=/tmp/emc$i EMBER_DEBUG=2 timeout 120 "$PY" tools/probe_compile.py > "$OUT/compile$i.log" 2>&1
    grep -E "compiled in|first" "$OUT/compile$i.log" | sed 's/ember: kernel cache miss //' | cut -c1-110
done
echo "=== nvrtc split"
timeout 200 "$PY" tools/probe_nvrtc.py 2>&1 | tail -14 | tee "$OUT/nvrtc.log"
echo "=== seed 004 float64 kernel shapes"
timeout 200 "$PY" tools/probe_seed64.py 2>&1 | tee "$OUT/seed64.log"
