#!/usr/bin/env bash
# device="auto" on two GPUs (issue 18), for one call on nvidia-h100-x2, in
# about 4 minutes (at most ~5.5): the host's topology, the build, the
# staging's tests on this host, then bench_auto's out-of-core rows:
#   ooc, ooc_1gpu  the 24 GiB sum by auto on both GPUs and on cuda:0 alone
#                  (auto keeps it on the CPU where the CPU reads faster than
#                  the bus: then both are the CPU's time)
#   stream         the same sum forced through cuda:0, then both GPUs, per
#                  chunk size and per staging variant (--stage-variants:
#                  streaming stores EMBER_STAGE_NT, watching helpers
#                  EMBER_STAGE_SPIN_US), against h2d measured in-process
# and the stream once more with 8 staging threads per device, and once with
# 32 MiB staging buffers (EMBER_STAGE_BUF_MIB; both read once per process).  JSON and logs under $OUT; the summary at
# the end.  The target: both GPUs >= 1.8x one.
#   bash bench/auto_2gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/gpu_common.sh
gpu_env
T0=$SECONDS
{
    nvidia-smi --query-gpu=index,name,pci.bus_id,pcie.link.gen.current,pcie.link.width.current \
        --format=csv,noheader
    nvidia-smi topo -m
    nproc
    lscpu | grep -E "Model name|Socket|NUMA|L3"
    free -g | head -2
} > "$OUT/host.txt" 2>&1
cat "$OUT/host.txt"
bash tools/dev.sh build > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "=== built in $((SECONDS - T0)) s"
# The team (C) and the staged copies on two fake devices at once, with each
# staging variant: the knobs measured below move the same bytes.
timeout 60 ctest --test-dir build -R team 2>&1 | tail -1
timeout 90 "$PY" -m pytest -q -p no:cacheprovider tests/python/test_auto.py \
    -k "staged_copies or stream" 2>&1 | tail -1
echo "=== bench_auto ooc, stream on 2 GPUs ($((SECONDS - T0)) s)"
timeout 240 "$PY" bench/bench_auto.py --rows ooc,stream --gpus 2 --reps 2 --row-timeout 150 \
    --stage-variants --json "$OUT/auto_2gpu.json" > "$OUT/auto_2gpu.log" 2>&1
echo "rc=$?"
grep -E "^ooc|^stream|^# (stream|staging|ooc)|^\| (ooc|stream)" "$OUT/auto_2gpu.log"
echo "=== the stream with 8 staging threads per device ($((SECONDS - T0)) s)"
EMBER_STAGE_THREADS=8 timeout 90 "$PY" bench/bench_auto.py --rows stream --gpus 2 --reps 2 \
    --row-timeout 85 --chunks-mib "" --json "$OUT/auto_2gpu_t8.json" > "$OUT/auto_2gpu_t8.log" 2>&1
echo "rc=$?"
grep -E "^# stream" "$OUT/auto_2gpu_t8.log"
echo "=== the stream with 32 MiB staging buffers ($((SECONDS - T0)) s)"
EMBER_STAGE_BUF_MIB=32 timeout 90 "$PY" bench/bench_auto.py --rows stream --gpus 2 --reps 2 \
    --row-timeout 85 --chunks-mib "" --json "$OUT/auto_2gpu_buf32.json" > "$OUT/auto_2gpu_buf32.log" 2>&1
echo "rc=$?"
grep -E "^# stream" "$OUT/auto_2gpu_buf32.log"
echo "=== done in $((SECONDS - T0)) s"
