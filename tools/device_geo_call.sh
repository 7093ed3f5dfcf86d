#!/bin/bash
# One device call for issue 19's geometric and cumsum rows (session 17; run from
# the tree's root on the GPU machine): build, the random and scan tests on
# cpu + cuda:0, the A/B probe (tools/probe_geo.py: the switches' old forms
# against the new defaults beside PyTorch and CuPy), then bench_surface's rows
# with the new defaults.  Logs under $OUT; a short summary at the end.
set -o pipefail
export LD_LIBRARY_PATH=$(python3 -c "import glob,site;print(':'.join(sorted(set(glob.glob(site.getsitepackages()[0]+'/nvidia/*/lib')))))")
EMBER_USE_CURRENT_PYTHON=1 EMBER_PYTHON=python3 bash tools/dev.sh build >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
export PYTHONPATH=python PYTHONUNBUFFERED=1 EMBER_CACHE_DIR=/tmp/emk
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout ${PROBE_S:-90} python3 tools/probe_geo.py 2>&1 | tee $OUT/probe.txt
date -u
EMBER_DEVICE=cuda:0 EMBER_TEST_DEVICES=cpu,cuda:0 timeout 65 python3 -m pytest -q -x -n 8 -p no:cacheprovider \
    tests/python/test_random_post.py tests/python/test_scans.py > $OUT/pytest.txt 2>&1
echo "pytest rc=$?"; tail -3 $OUT/pytest.txt
rem=$((225 - SECONDS))
if [ $rem -gt 25 ]; then
    timeout $rem python3 bench/bench_surface.py --device cuda:0 \
        --filter "geometric,cumsum,standard_normal,random (uniform),integers" --repeat 7 > $OUT/surface.txt 2>&1
    echo "surface rc=$? (${rem}s budget)"; grep -E "geometric|cumsum|standard_normal|uniform|integers" $OUT/surface.txt | cut -c1-150
fi
date -u
