#!/bin/bash
# One device call for issue 19's scan rows (run from the tree's root on the GPU
# machine): build, GPU checks of the scans and compactions (default and single
# pass), A/B timings of the variants beside CuPy and PyTorch, and ncu of the
# trailing rows' kernels.  Logs under $OUT.
set -o pipefail
export LD_LIBRARY_PATH=$(python3 -c "import glob,site;print(':'.join(sorted(set(glob.glob(site.getsitepackages()[0]+'/nvidia/*/lib')))))")
EMBER_USE_CURRENT_PYTHON=1 EMBER_PYTHON=python3 bash tools/dev.sh build >/tmp/b.log 2>&1 || { tail -30 /tmp/b.log; exit 1; }
export PYTHONPATH=python EMBER_DEVICE=cuda:0 PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for v in "" 1; do
    EMBER_SCAN_ONEPASS=$v PROBE_TIME=0 timeout 90 python3 tools/probe_scan_check.py > $OUT/check$v.txt 2>&1
    echo "check onepass=$v rc=$? ok=$(grep -c '^ok' $OUT/check$v.txt)"; grep -E "WRONG|Error" $OUT/check$v.txt | head -8
done
timeout ${AB_S:-110} python3 tools/probe_scan_ab.py --filter "${AB_ROWS:-cumsum,nonzero,argwhere,flatnonzero,x[mask],compress,extract,digitize,geometric}" \
    --variant old:EMBER_SCAN_WARP=0,EMBER_NZ_STAGE=0,EMBER_DIGITIZE_CHECK_FIRST=1,EMBER_GEOM_FAST=0 \
    --variant new: --variant one:EMBER_SCAN_ONEPASS=1 2>&1 | tee $OUT/ab.txt
if [ -n "${NCU_OPS-x}" ]; then
    OPS=${NCU_OPS:-cumsum,nonzero,mask,digitize,geometric,geometric_old} timeout ${NCU_S:-70} \
        ncu -c 60 --section SpeedOfLight --section Occupancy --section LaunchStats \
        python3 tools/probe_scan_ncu.py > $OUT/ncu.txt 2>&1
    echo "ncu rc=$?"
    grep -E "^  [A-Za-z_0-9]+.*\(|^op |Duration|Registers Per|Achieved Occupancy|DRAM Throughput|Block Limit (Reg|Shared)" $OUT/ncu.txt \
        | sed -E 's/ +/ /g' | cut -c1-90 > $OUT/ncu_short.txt
fi
date -u
# What time is left (the call's limit is 300 s): the suites of the touched kernels on cuda:0.
rem=$((285 - SECONDS))
if [ $rem -gt 20 ]; then
    timeout $rem python3 -m pytest -q -x -p no:cacheprovider tests/python/test_scans.py \
        tests/python/test_unique_select.py tests/python/test_indexing.py > $OUT/pytest.txt 2>&1
    echo "pytest rc=$? in ${rem}s budget"; tail -3 $OUT/pytest.txt
fi
date -u
