#!/usr/bin/env bash
# The one script to run on a GPU machine (no network needed): build with the
# current Python, run the C tests and the whole pytest suite on cuda:0, then
# the GPU benchmark (Ember next to CuPy and PyTorch).  Each stage runs even
# if an earlier one failed; a summary comes last.  Logs go to $OUT (or
# ./gpu_check_logs).
#
#   bash tools/gpu_check.sh            all stages
#   bash tools/gpu_check.sh bench      the benchmark only (after a build)
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LOGS=${OUT:-$ROOT/gpu_check_logs}
mkdir -p "$LOGS"
PY=${EMBER_PYTHON:-python3}
export EMBER_USE_CURRENT_PYTHON=1 EMBER_PYTHON=$PY
export EMBER_CACHE_DIR=${EMBER_CACHE_DIR:-$(mktemp -d)/kernels}  # not under $OUT: keep the logs small
declare -a RESULTS=()

# cuFFT, cuSOLVER and cuBLAS (src/backend/cudalib/, the matmuls): when the
# loader cannot find one by its soname, put the pip wheel's folder (nvidia-
# cufft, nvidia-cusolver, nvidia-cublas, ...) on LD_LIBRARY_PATH; without
# them those functions take the host path and their CUDA tests skip.
for lib in libcufft.so.1 libcusolver.so.1 libcublas.so.1; do
    ldconfig -p 2>/dev/null | grep -q "$lib[123]" && continue
    d=$("$PY" -c "
import glob, os, site
for s in site.getsitepackages():
    for p in glob.glob(os.path.join(s, 'nvidia', '*', 'lib')) + glob.glob(os.path.join(s, 'nvidia', 'cu1*', 'lib')):
        if glob.glob(os.path.join(p, '$lib[123]*')): print(p); break
" 2>/dev/null | head -n 1)
    if [ -n "$d" ]; then
        export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        echo "using ${lib%.so.1} from $d"
    fi
done

# NVRTC: if the loader cannot find it, borrow the one a pip wheel (CuPy's or
# PyTorch's nvidia-cuda-nvrtc) or the toolkit ships.
if ! ldconfig -p 2>/dev/null | grep -q 'libnvrtc\.so\.1[23]'; then
    for d in /usr/local/cuda/lib64 $("$PY" -c "
import glob, os, site
for s in site.getsitepackages():
    for p in glob.glob(os.path.join(s, 'nvidia', '*', 'lib')) + glob.glob(os.path.join(s, 'nvidia', 'cu1*', 'lib')):
        if glob.glob(os.path.join(p, 'libnvrtc.so*')): print(p)
" 2>/dev/null); do
        if ls "$d"/libnvrtc.so* >/dev/null 2>&1; then
            export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
            echo "using NVRTC from $d"
            break
        fi
    done
fi

stage() { # stage NAME COMMAND...: run, log, remember the outcome
    local name=$1; shift
    echo "=== $name: $*"
    local t0=$SECONDS
    "$@" >"$LOGS/$name.log" 2>&1
    local rc=$?
    tail -n 25 "$LOGS/$name.log"
    RESULTS+=("$(printf '%-10s %s (rc=%d, %ds) log: %s' "$name" "$([ $rc = 0 ] && echo PASS || echo FAIL)" $rc $((SECONDS - t0)) "$LOGS/$name.log")")
}

info() {
    nvidia-smi || true
    "$PY" -c "import sys, numpy; print(sys.version); print('numpy', numpy.__version__)"
    "$PY" -c "import cupy; print('cupy', cupy.__version__)" || true
    "$PY" -c "import torch; print('torch', torch.__version__, torch.cuda.is_available())" || true
}

ctests() { (cd "${EMBER_BUILD_DIR:-build}" && ctest --output-on-failure); }

pytests() {
    EMBER_DEVICE=cuda:0 EMBER_DEBUG=${EMBER_DEBUG:-0} PYTHONPATH=$ROOT/python \
        "$PY" -m pytest -q -p no:cacheprovider tests/python -rs
}

bench() { PYTHONPATH=$ROOT/python "$PY" tools/gpu_bench.py; }

if [ "${1:-all}" = bench ]; then
    stage bench bench
else
    stage info info
    stage build bash tools/dev.sh build
    stage ctest ctests
    stage pytest pytests
    stage bench bench
fi
echo
echo "=== summary (logs in $LOGS)"
printf '%s\n' "${RESULTS[@]}" | tee "$LOGS/summary.txt"
