# Shared by the tools/gpu_*.sh scripts (sourced, on the device machine).

# The scripts' common setting: logs under $OUT, Python as $PY, Ember from
# this checkout, unbuffered output, the kernel cache in /tmp/emk unless set.
gpu_env() {
    OUT=${OUT:-$PWD/gpu_logs}
    mkdir -p "$OUT"
    PY=${EMBER_PYTHON:-python3}
    export EMBER_USE_CURRENT_PYTHON=1 EMBER_PYTHON=$PY PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
    export EMBER_CACHE_DIR=${EMBER_CACHE_DIR:-/tmp/emk}
}

# Read the CUDA libraries into the page cache once, so that the first
# compile and the test time limits do not also time a cold disk.  (A fresh
# machine's first process still compiled 2-14x slower with them read, and
# with its CPU time equal to its wall time: that part is not the disk.)
gpu_read_libs() {
    local t0=$SECONDS
    find /usr /opt \( -name 'libnvrtc*.so*' -o -name 'libcuda.so*' -o -name 'libcublas*.so*' \) -type f 2>/dev/null |
        xargs -r cat > /dev/null
    echo "read the NVRTC/CUDA/cuBLAS libraries in $((SECONDS - t0)) s"
}

# tools/probe_shim.c as /tmp/shim.so, linked to the real driver: give it as
# EMBER_LIBCUDA to time cuLaunchKernel (tools/probe_host.py reads it).
gpu_build_shim() {
    cc -O2 -shared -fPIC -o /tmp/shim.so tools/probe_shim.c -Wl,--no-as-needed \
        "$(ldconfig -p | awk '/libcuda.so.1 /{print $NF; exit}')" -ldl
}
