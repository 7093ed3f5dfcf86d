#!/usr/bin/env bash
# Where a small op's host time goes on the device machine, in one call:
# the CPU, the driver's launch forms (tools/probe_launch.c, every stream),
# tools/probe_host.py with the timing shim (the driver's share), and the same
# probe on the fake driver (tests/c/fake_libcuda.c: Ember and Python alone
# on this CPU, kernels not run).
#   bash tools/gpu_host_probe.sh
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/gpu_common.sh
gpu_env
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
lscpu | grep -E "Model name|^CPU\(s\)|MHz" | head -4
bash tools/dev.sh build > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "=== driver launch forms"
cc -O2 -o /tmp/pl tools/probe_launch.c -ldl && /tmp/pl 2>&1
for round in 1 2; do
    echo "=== host time per call, real driver (shim), round $round"
    gpu_build_shim && EMBER_LIBCUDA=/tmp/shim.so timeout 80 "$PY" tools/probe_host.py 2>&1 | tee "$OUT/host$round.log"
    echo "=== host time per call, fake driver (Ember and Python only), round $round"
    cc -O2 -shared -fPIC -o /tmp/fake.so tests/c/fake_libcuda.c &&
        EMBER_LIBCUDA=/tmp/fake.so timeout 80 "$PY" tools/probe_host.py --ember-only 2>&1 | tee "$OUT/fake$round.log"
done
