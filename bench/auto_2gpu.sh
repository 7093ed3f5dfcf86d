#!/usr/bin/env bash
# device="auto" on two GPUs (issue 18), for one call on nvidia-h100-x2, in
# about 4.5 minutes (at most ~5.5): the host's topology, the build, the
# staging's tests on this host (fake driver), then bench_auto's stream row:
#   stream   the 24 GiB sum forced through cuda:0, then both GPUs, per chunk
#            size and per staging variant (--stage-variants: streaming stores
#            EMBER_STAGE_NT; the source's pages registered instead of staged,
#            EMBER_STAGE_REGISTER=1, or mixed with staging, =2, with 4 or 8
#            registrars), against h2d measured in-process
# and the same once more with 8 staging threads per device
# (EMBER_STAGE_THREADS, read once per process).  The ooc rows (auto's own
# choice: the CPU on both H100 hosts, which read faster than the bus) are
# left out for time.  JSON and logs under $OUT; the summary at the end.
# The target: both GPUs >= 1.8x one.
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
# The team (C) and the staged and registered copies on two fake devices at
# once: the knobs measured below move the same bytes.
timeout 60 ctest --test-dir build -R team 2>&1 | tail -1
timeout 60 "$PY" -m pytest -q -p no:cacheprovider -n 8 tests/python/test_auto_register.py \
    tests/python/test_auto.py -k "staged_copies or register" 2>&1 | tail -1
echo "=== bench_auto stream on 2 GPUs ($((SECONDS - T0)) s)"
timeout 130 "$PY" bench/bench_auto.py --rows stream --gpus 2 --reps 2 --row-timeout 125 \
    --chunks-mib "" --stage-variants --json "$OUT/auto_2gpu.json" > "$OUT/auto_2gpu.log" 2>&1
echo "rc=$?"
grep -E "^# (stream|staging)" "$OUT/auto_2gpu.log"
echo "=== the same with 8 staging threads per device ($((SECONDS - T0)) s)"
EMBER_STAGE_THREADS=8 timeout 125 "$PY" bench/bench_auto.py --rows stream --gpus 2 --reps 2 \
    --row-timeout 120 --chunks-mib "" --stage-variants --json "$OUT/auto_2gpu_t8.json" \
    > "$OUT/auto_2gpu_t8.log" 2>&1
echo "rc=$?"
grep -E "^# (stream|staging)" "$OUT/auto_2gpu_t8.log"
echo "=== done in $((SECONDS - T0)) s"
