#!/bin/bash
# One device call for issue 19's cumsum and geometric rows (run from the tree's
# root on the GPU machine): build, GPU checks of the scans (the default single
# pass in registers, and CUB's block-index order), the forms and launch shapes
# side by side beside CuPy, PyTorch and a copy (tools/probe_scan_tune.py), ncu of
# the scan and geometric kernels, then test_scans.py on cuda:0.  Logs under $OUT.
set -o pipefail
export LD_LIBRARY_PATH=$(python3 -c "import glob,site;print(':'.join(sorted(set(glob.glob(site.getsitepackages()[0]+'/nvidia/*/lib')))))")
EMBER_USE_CURRENT_PYTHON=1 EMBER_PYTHON=python3 bash tools/dev.sh build >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
export PYTHONPATH=python EMBER_DEVICE=cuda:0 PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
# the default, every accumulator through the regs form (=2), block order with 8 windows
for v in "" "EMBER_SCAN_ONEPASS=2" "EMBER_SCAN_TUNE=256,16,1,8"; do
    env $v PROBE_TIME=0 timeout 80 python3 tools/probe_scan_check.py > $OUT/check_${v//[^A-Z0-9]/}.txt 2>&1
    echo "check $v rc=$? ok=$(grep -c '^ok' $OUT/check_${v//[^A-Z0-9]/}.txt)"; grep -E "WRONG|Error" $OUT/check_${v//[^A-Z0-9]/}.txt | head -4
done
timeout ${TUNE_S:-100} python3 tools/probe_scan_tune.py ${TUNE_VARIANTS:-three:EMBER_SCAN_ONEPASS=0 q1:EMBER_SCAN_TUNE=256,16,0,1 regs: \
    q8:EMBER_SCAN_TUNE=256,16,0,8 k32:EMBER_SCAN_TUNE=256,32,0,4 b512:EMBER_SCAN_TUNE=512,16,0,4 \
    byq8:EMBER_SCAN_TUNE=256,16,1,8 wide:EMBER_SCAN_ONEPASS=2} 2>&1 | tee $OUT/tune.txt
if [ -n "${NCU_OPS-x}" ] && which ncu >/dev/null 2>&1; then
    OPS=${NCU_OPS:-cumsum} timeout ${NCU_S:-50} \
        ncu -c 12 --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
        python3 tools/probe_scan_ncu.py > $OUT/ncu.txt 2>&1
    echo "ncu rc=$?"
    grep -E "^  [A-Za-z_0-9]+.*\(|^op |Duration|Registers Per|Achieved Occupancy|DRAM Throughput|Memory Throughput|Block Limit (Reg|Shared)|Compute \(SM\)" $OUT/ncu.txt \
        | sed -E "s/ +/ /g" | cut -c1-90
fi
date -u
rem=$((280 - SECONDS))
if [ $rem -gt 20 ]; then
    EMBER_TEST_DEVICES=cuda:0 timeout $rem python3 -m pytest -q -x -n 8 -p no:cacheprovider tests/python/test_scans.py > $OUT/pytest.txt 2>&1
    echo "pytest rc=$? in ${rem}s budget"; tail -3 $OUT/pytest.txt
fi
date -u
