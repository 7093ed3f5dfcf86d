#!/usr/bin/env bash
# device="auto" on two GPUs (issue 18), for one call on nvidia-h100-x2, in
# about 4.5 minutes: the host's topology and caches, the build, the
# staging's tests (the fake driver's two devices; the real driver's round
# trips through the lanes and the shared buffers), then
# bench/probe_stage.py: the 24 GiB sum streamed through cuda:0 and through
# both, per staging variant in one process (the shared 8 MiB buffers;
# lanes of 256 KiB-2 MiB buffers a thread, plain or streaming stores, 4/8/16
# lanes a device; the buffers per lane), then from a pinned source (never
# staged).  The registration variants (session 16) lost on both hosts and
# are gone.  JSON and logs under $OUT; the summary at the end.
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
    lscpu | grep -E "Model name|Socket|NUMA|L2|L3"
    free -g | head -2
    ulimit -l
} > "$OUT/host.txt" 2>&1
cat "$OUT/host.txt"
bash tools/dev.sh build > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "=== built in $((SECONDS - T0)) s"
{
    timeout 60 ctest --test-dir build -R team 2>&1 | tail -1
    timeout 60 "$PY" -m pytest -q -p no:cacheprovider -n 8 tests/python/test_auto.py \
        -k "lanes or pinned_source" 2>&1 | tail -2
    for kib in 0 256 1000; do
        EMBER_STAGE_BUF_KIB=$kib EMBER_TEST_DEVICES=cuda:0 timeout 40 "$PY" -m pytest -q \
            -p no:cacheprovider tests/python/test_cuda_copies.py -k round_trips 2>&1 | tail -1
    done
} > "$OUT/tests.log" 2>&1
cat "$OUT/tests.log"
echo "=== probe_stage ($((SECONDS - T0)) s)"
timeout 150 "$PY" bench/probe_stage.py --budget 120 --json "$OUT/auto_2gpu_stage.json" \
    > "$OUT/probe_stage.log" 2>&1
rc=$?
echo "rc=$rc"
if [ $rc = 0 ]; then grep -v "^\[" "$OUT/probe_stage.log" | tail -25; else tail -40 "$OUT/probe_stage.log"; fi
echo "=== done in $((SECONDS - T0)) s"
