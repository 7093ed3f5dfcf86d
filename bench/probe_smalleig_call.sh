# One device call for eigh's small-matrix kernels (session 19 wrote it and
# had no device time left to make it): from the repository root on the GPU
# machine, with $OUT set (the run tool's), about 4 minutes on one H100.
#   build; the eigh tests on cpu + cuda:0 (the default kernels, then the
#   2 x 2 block kernel: test_linalg_smalleig.py sets EMBER_SMALLEIG=pair);
#   bench/probe_smalleig.py --syevj: the syevjBatched split against CuPy,
#   then every eigh row: pair / pair64 / pair256 / s18 / library / default /
#   CuPy / PyTorch, each row's error against NumPy first.
export EMBER_USE_CURRENT_PYTHON=1 PYTHONUNBUFFERED=1 EMBER_CACHE_DIR=/tmp/emk
bash tools/dev.sh build > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
export PYTHONPATH=python
nvidia-smi --query-gpu=name --format=csv,noheader
EMBER_TEST_DEVICES=cpu,cuda:0 timeout 120 python -m pytest -q -p no:cacheprovider \
    tests/python/test_linalg_smalleig.py tests/python/test_linalg_smallla.py \
    -k "eigh or smalleig or blocks or tau or noncontig or complex_odd" > "$OUT/tests.log" 2>&1
echo "tests rc $?"; tail -3 "$OUT/tests.log"
timeout 150 python bench/probe_smalleig.py --syevj --runs 5 --min-time 0.05 > "$OUT/probe.log" 2>&1
echo "probe rc $?"; grep -v "^no " "$OUT/probe.log"
