# One device call for inv's and qr's small-matrix kernels (session 19 wrote it
# and had no device time left to make it): from the repository root on the
# GPU machine, with $OUT set (the run tool's) and, in .old/, a `git archive`
# of the tree before them (git archive 60c0f2a), about 4.5 minutes on one H100.
#   both trees built side by side (the extension only); the small linalg
#   tests on cpu + cuda:0; bench/probe_smallla.py: the inv / solve / det /
#   qr rows as kernel / library / default / CuPy / PyTorch, and each
#   solve / inv / det row's kernel at 256, 512 and 1024 threads
#   (EMBER_SMALLLA_NT); the old tree's kernel on the inv and solve rows;
#   bench_fftsolve's qr 1024^2 and solve 64^2 (must not move); test_linalg.
export PYTHONUNBUFFERED=1 EMBER_CACHE_DIR=/tmp/emk
t0=$(date +%s)
PY=$(command -v python3)
b() {
    cmake -S "$1" -B "$1/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$PY" \
        -DEMBER_WERROR=ON > "$2" 2>&1 && cmake --build "$1/build" -j 16 --target _ember >> "$2" 2>&1
    echo "rc $?" >> "$2"
}
b . "$OUT/build.log" &
b .old "$OUT/build_old.log" &
wait
tail -1 "$OUT/build.log"; tail -1 "$OUT/build_old.log"; echo "build $(($(date +%s) - t0)) s"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export PYTHONPATH=$PWD/python
EMBER_TEST_DEVICES=cpu,cuda:0 timeout 70 python -m pytest -q -p no:cacheprovider -rf \
    tests/python/test_linalg_smallqr.py tests/python/test_linalg_smallla.py \
    tests/python/test_linalg_small.py > "$OUT/tests.log" 2>&1
echo "small tests rc $?"; tail -2 "$OUT/tests.log"; grep -E "^FAILED|^ERROR" "$OUT/tests.log" | head -20
F="inv 64^2,inv 32^2,inv 10000x8x8,inv 1000x32x32,inv 100x64,solve 64^2,solve 10000,det 10000,qr"
timeout 100 python bench/probe_smallla.py --min-time 0.03 --runs 5 --filter "$F" \
    --nt 256,512,1024 > "$OUT/probe_new.log" 2>&1
echo "probe new rc $?"; cat "$OUT/probe_new.log"
PYTHONPATH=$PWD/.old/python EMBER_CACHE_DIR=/tmp/emk_old timeout 25 python bench/probe_smallla.py \
    --min-time 0.03 --runs 5 --filter "inv 64^2,inv 32^2,inv 10000x8x8,inv 100x64,solve 64^2" \
    > "$OUT/probe_old.log" 2>&1
echo "probe old rc $?"; cat "$OUT/probe_old.log"
timeout 30 python bench/bench_fftsolve.py --filter "qr 1024,solve 64" > "$OUT/fftsolve.log" 2>&1
echo "fftsolve rc $?"; tail -6 "$OUT/fftsolve.log"
EMBER_TEST_DEVICES=cpu,cuda:0 timeout $((285 - $(date +%s) + t0)) python -m pytest -q \
    -p no:cacheprovider -rf tests/python/test_linalg.py > "$OUT/tests2.log" 2>&1
echo "test_linalg rc $?"; tail -2 "$OUT/tests2.log"
echo "all $(($(date +%s) - t0)) s"
