#!/usr/bin/env bash
# Host<->device copies on the GPU machine in one device call (logs under
# $OUT): build, the copy tests on the real driver, the host memcpy rate the staged copy is bounded by
# (tools/probe_memcpy.c), then tools/probe_copies.py (correctness, Ember
# staged vs the driver's copy by size and chunk size, and gpu_bench's copy
# rows next to CuPy and PyTorch).
#   bash tools/gpu_copies.sh
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/gpu_common.sh
gpu_env
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader
nproc; lscpu | grep -E "Model name|L3" || true
bash tools/dev.sh build > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "=== host memcpy (the staged copy's host half)"
cc -O2 -Iinclude -Isrc tools/probe_memcpy.c build/libember_static.a -lm -ldl -pthread -o /tmp/probe_memcpy &&
    timeout 120 /tmp/probe_memcpy 2>&1 | tee "$OUT/memcpy.log"
echo "=== tests/python/test_cuda_copies.py on cuda:0"
EMBER_DEVICE=cuda:0 timeout 120 "$PY" -m pytest -q -p no:cacheprovider tests/python/test_cuda_copies.py 2>&1 | tail -3
echo "=== copies"
timeout 400 "$PY" tools/probe_copies.py 2>&1 | tee "$OUT/copies.log"
