#!/usr/bin/env bash
# Ember's one entry point for a fresh machine: set up, build, then run the
# demo, the tests or the benchmarks.
#
#   bash tools/dev.sh demo      set up, build, run the demo on the best device found
#   bash tools/dev.sh test      set up, build, run every test (C tests, then pytest)
#   bash tools/dev.sh bench     set up, build, run the benchmarks
#   bash tools/dev.sh build     set up and build only
#   bash tools/dev.sh asan      build with ASan+UBSan into build-asan (pool off) and run the C
#                               tests, then pytest with the sanitizer runtime preloaded
#                               (EMBER_ASAN_PYTEST=0: C tests only; EMBER_ASAN_LEAKS=0: no
#                               leak checks)
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
    # ASan+UBSan build (host pool off) in its own directory, with its own
    # copy of the package, so the optimised in-place extension is untouched.
    ASAN_PKG=$ROOT/build-asan/python/ember
    mkdir -p "$ASAN_PKG"
    for f in "$ROOT"/python/ember/*; do
        case $f in *.so | *.so.* | */__pycache__) ;; *) ln -sfn "$f" "$ASAN_PKG/" ;; esac
    done
    build build-asan -DEMBER_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBER_PKG_DIR="$ASAN_PKG"
    # allocator_may_return_null: the out-of-memory tests ask for more than exists and expect NULL;
    # handle_sigfpe=0: a SIGFPE is Ember's to handle (a user kernel's integer division by zero
    # becomes ZeroDivisionError) or the default's (the process ends), as without the sanitizer
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1:allocator_may_return_null=1:handle_sigfpe=0
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    # Leak checks for the C tests, unless LeakSanitizer cannot run here (it
    # needs ptrace, which some containers forbid) or EMBER_ASAN_LEAKS=0.
    leaks=${EMBER_ASAN_LEAKS:-1}
    if [ "$leaks" = 1 ] && ! ASAN_OPTIONS=detect_leaks=1 build-asan/test_shapes >/dev/null 2>build-asan/lsan-probe.log &&
        grep -q "LeakSanitizer has encountered a fatal error" build-asan/lsan-probe.log; then
        echo "warning: LeakSanitizer cannot run here; C tests without leak checks" >&2
        leaks=0
    fi
    (cd build-asan && ASAN_OPTIONS=detect_leaks=$leaks ctest --output-on-failure -j "$(nproc)")
    [ "${EMBER_ASAN_PYTEST:-1}" = 1 ] || exit 0
    # Python is not built with ASan: preload the runtime (it must come first).
    # Leak detection stays off there: CPython keeps memory until exit by design.
    PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
    LD_PRELOAD="$PRELOAD" PYTHONPATH=$ROOT/build-asan/python "$PY" -c \
        "import ember, sys; m = open('/proc/self/maps').read(); \
sys.exit(0 if 'libasan' in m and '/build-asan/' in ember._ember.__file__ else 'asan: not the sanitizer build')"
    LD_PRELOAD="$PRELOAD" PYTHONPATH=$ROOT/build-asan/python \
        "$PY" -m pytest -q -p no:cacheprovider tests/python "$@"
    ;;
*)
    echo "usage: bash tools/dev.sh {demo|test|bench|build|asan}" >&2
    exit 2
    ;;
esac
