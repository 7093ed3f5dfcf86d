#!/usr/bin/env bash
# This session's benchmark call (logs under $OUT): host time with the driver
# shim, tools/gpu_bench.py, bench_fusion --gpu-only, bench_jit, and whether
# a fresh machine's slow first compiles come from untouched memory.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu_logs}
mkdir -p "$OUT"
PY=${EMBER_PYTHON:-python3}
export EMBER_USE_CURRENT_PYTHON=1 EMBER_PYTHON=$PY PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1 EMBER_CACHE_DIR=/tmp/emk
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
find /usr /opt \( -name 'libnvrtc*.so*' -o -name 'libcuda.so*' -o -name 'libcublas*.so*' \) -type f 2>/dev/null |
    xargs -r cat > /dev/null
bash tools/dev.sh build > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "=== first compiles after touching 16 GiB of fresh memory"
t0=$SECONDS; "$PY" -c "import numpy as np; a = np.ones(2**31); del a"; echo "touched in $((SECONDS - t0)) s"
EMBER_CACHE_DIR=/tmp/cc1 EMBER_DEBUG=2 timeout 60 "$PY" tools/probe_compile.py 2>&1 | grep -E "compiled in|first" |
    sed 's/ember: kernel cache //' | cut -c1-110 | tee "$OUT/compile_touched.log"
echo "=== host time per call"
cc -O2 -shared -fPIC -o /tmp/shim.so tools/probe_shim.c -Wl,--no-as-needed \
    "$(ldconfig -p | awk '/libcuda.so.1 /{print $NF; exit}')" -ldl &&
    EMBER_LIBCUDA=/tmp/shim.so timeout 80 "$PY" tools/probe_host.py 2>&1 | tee "$OUT/host.log"
for b in "tools/gpu_bench.py" "bench/bench_fusion.py --gpu-only" "bench/bench_jit.py --device cuda:0"; do
    echo "=== $b"
    f=$(basename "${b%% *}" .py)
    timeout 130 "$PY" $b > "$OUT/$f.log" 2>&1; tail -32 "$OUT/$f.log"
done
