#!/usr/bin/env bash
# Ember's one entry point for a fresh machine: set up, build, then run the
# demo, the tests or the benchmarks.
#
#   bash tools/dev.sh demo      set up, build, run the demo on the best device found
#   bash tools/dev.sh test      set up, build, run every test (C tests, then pytest)
#   bash tools/dev.sh bench     set up, build, run the benchmarks
#   bash tools/dev.sh build     set up and build only
#   bash tools/dev.sh asan      build with ASan+UBSan into build-asan and run the tests under it
#
# Environment:
#   EMBER_USE_CURRENT_PYTHON=1  use the python3 on PATH as it is (no venv, no
#                               network): it must already have numpy, pytest
#                               and hypothesis (the GPU machine does)
#   EMBER_PYTHON=/path/python   the interpreter to start from (default python3)
#   EMBER_BUILD_DIR=build       where CMake builds
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
cmd=${1:-test}
shift || true

PY0=${EMBER_PYTHON:-python3}
BUILD=${EMBER_BUILD_DIR:-build}

setup_python() {
    if [ "${EMBER_USE_CURRENT_PYTHON:-0}" = 1 ]; then
        PY=$(command -v "$PY0")
    else
        if [ ! -x .venv/bin/python ]; then
            "$PY0" -m venv .venv || {
                echo "error: '$PY0 -m venv' failed; on Debian: apt-get install python3-venv python3-dev" >&2
                exit 1
            }
        fi
        PY=$ROOT/.venv/bin/python
        if ! "$PY" -c "import numpy, pytest, hypothesis, cmake, ninja" 2>/dev/null; then
            "$PY" -m pip install -q --upgrade pip
            "$PY" -m pip install -q -r requirements-dev.txt
        fi
        export PATH=$ROOT/.venv/bin:$PATH
    fi
    "$PY" -c "import numpy" || { echo "error: numpy is missing for $PY" >&2; exit 1; }
}

build() {
    local dir=$1; shift
    local gen=()
    command -v ninja >/dev/null && gen=(-G Ninja)
    if [ ! -f "$dir/CMakeCache.txt" ]; then
        cmake -S . -B "$dir" "${gen[@]}" -DPython_EXECUTABLE="$PY" -DEMBER_WERROR=ON "$@" >/dev/null
    fi
    cmake --build "$dir" -j "$(nproc)"
}

run_tests() {
    local dir=$1
    (cd "$dir" && ctest --output-on-failure -j "$(nproc)")
    PYTHONPATH=$ROOT/python "$PY" -m pytest -q -p no:cacheprovider tests/python "${@:2}"
}

setup_python
case $cmd in
build) build "$BUILD" ;;
demo)
    build "$BUILD"
    PYTHONPATH=$ROOT/python exec "$PY" -m ember.demo "$@"
    ;;
test)
    build "$BUILD"
    run_tests "$BUILD" "$@"
    ;;
bench)
    build "$BUILD"
    PYTHONPATH=$ROOT/python exec "$PY" bench/run.py "$@"
    ;;
asan)
    build build-asan -DEMBER_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
    (cd build-asan && ctest --output-on-failure)
    # The extension lives next to python/ember; the sanitizer runtime must be preloaded into Python.
    ASAN_LIB=$(gcc -print-file-name=libasan.so)
    UBSAN_LIB=$(gcc -print-file-name=libubsan.so)
    ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        LD_PRELOAD="$ASAN_LIB $UBSAN_LIB" PYTHONPATH=$ROOT/python \
        "$PY" -m pytest -q -p no:cacheprovider tests/python -x "$@"
    echo "(the optimised build is rebuilt next time: run 'bash tools/dev.sh build')"
    rm -f "$BUILD/CMakeCache.txt"
    ;;
*)
    echo "usage: bash tools/dev.sh {demo|test|bench|build|asan}" >&2
    exit 2
    ;;
esac
