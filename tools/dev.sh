#!/usr/bin/env bash
# Ember's one entry point for a fresh machine: set up, build, then run the
# demo, the tests or the benchmarks.  Each step prints one line ("ember: ...").
#
#   bash tools/dev.sh demo      set up, build, run the demo on the best device found
#   bash tools/dev.sh test      set up, build, run every test (C tests, then pytest)
#   bash tools/dev.sh bench     set up, build, run the benchmarks
#   bash tools/dev.sh build     set up and build only
#   bash tools/dev.sh asan      build with ASan+UBSan into build-asan (pool off) and run the C
#                               tests (kernels rendered, not compiled: EMBER_TEST_RENDER_ONLY=0
#                               compiles them too), then pytest with the sanitizer runtime preloaded
#                               (EMBER_ASAN_PYTEST=0: C tests only; EMBER_ASAN_LEAKS=0: no
#                               leak checks)
#   bash tools/dev.sh asan-build  that build of the extension only (tools/fuzz.sh long)
#
# The set-up makes .venv, installs the build tools and Ember's test
# dependencies into it from PyPI, and installs Ember itself there as an
# editable package (pyproject.toml: the package is python/ember, where the
# CMake build puts the extension), so `.venv/bin/python` imports ember from
# any directory; `bash tools/dev.sh build` rebuilds it in place.
#
# Environment:
#   EMBER_USE_CURRENT_PYTHON=1  use the python3 on PATH as it is (no venv, no
#                               network, no install: PYTHONPATH=python is set
#                               for the commands run here): it must already
#                               have numpy, pytest and hypothesis (the GPU
#                               machine does)
#   EMBER_EXTRAS=dask,sklearn   optional extras (pyproject.toml) to install too:
#                               dask, sklearn, frames; their tests skip without them
#   EMBER_PYTHON=/path/python   the interpreter to start from (default python3)
#   EMBER_BUILD_DIR=build       where CMake builds
#   EMBER_PYTEST_JOBS=N         pytest's worker processes (pytest-xdist; default
#                               the cores, at most 2; 1: one process)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
cmd=${1:-test}
shift || true

PY0=${EMBER_PYTHON:-python3}
BUILD=${EMBER_BUILD_DIR:-build}

say() { printf 'ember: %s\n' "$*"; }

# pip, showing one line per package it fetches or installs (its full log
# is in .venv/pip.log, shown when it fails).
pip_install() {
    local log=$ROOT/.venv/pip.log
    if ! "$PY" -m pip install --disable-pip-version-check --progress-bar off "$@" 2>&1 |
        tee "$log" |
        { grep --line-buffered -E '^(Collecting|Installing collected|Successfully installed)' |
            sed -u 's/^/    /' || true; }; then
        tail -30 "$log" >&2
        echo "error: pip install $* failed (log: $log)" >&2
        exit 1
    fi
}

# Build tools from PyPI only where the system's are missing or too old.
build_tools() {
    local tools=("scikit-build-core>=1.1")
    local v='version (3\.(2[0-9]|[3-9][0-9])|[4-9])\.'  # 3.20 or later
    if ! cmake --version 2>/dev/null | head -1 | grep -qE "$v"; then
        tools+=("cmake>=3.20")
    fi
    command -v ninja >/dev/null || tools+=(ninja)
    echo "${tools[@]}"
}

# scikit-build-core's editable install puts python/ on sys.path (a .pth) and
# also a finder in front of sys.meta_path that resolves `ember` in python/
# only, so PYTHONPATH could not pick another build (tools/dev.sh asan runs
# the sanitizer build's package that way).  The .pth keeps its path line
# only: imports then follow sys.path, PYTHONPATH first.
plain_path_install() {
    local site
    site=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    rm -f "$site"/_editable_skbc_ember.start  # Python 3.15+ (PEP 829): the finder's hook
    [ -f "$site/_editable_skbc_ember.pth" ] && sed -i '/^import /d' "$site/_editable_skbc_ember.pth"
    local other=$ROOT/.venv/ember-pathcheck
    mkdir -p "$other/ember"
    echo "FROM = 'pythonpath'" > "$other/ember/__init__.py"
    (cd / && PYTHONPATH=$other "$PY" -c "import ember, sys
sys.exit(0 if getattr(ember, 'FROM', '') == 'pythonpath' else
         'ember: the editable install hides PYTHONPATH (' + ember.__file__ + ')')")
    rm -rf "$other"
}

setup_python() {
    if [ "${EMBER_USE_CURRENT_PYTHON:-0}" = 1 ]; then
        PY=$(command -v "$PY0")
        export PYTHONPATH=$ROOT/python${PYTHONPATH:+:$PYTHONPATH}
    else
        if [ ! -x .venv/bin/python ]; then
            say "creating venv (.venv, from $PY0)"
            "$PY0" -m venv .venv || {
                echo "error: '$PY0 -m venv' failed; on Debian: apt-get install python3-venv python3-dev" >&2
                exit 1
            }
        fi
        PY=$ROOT/.venv/bin/python
        export PATH=$ROOT/.venv/bin:$PATH
        # Installed once; again when pyproject.toml, the extras or the checkout's path change.
        local extras="test${EMBER_EXTRAS:+,$EMBER_EXTRAS}"
        local stamp
        stamp="$ROOT $extras $(cksum < pyproject.toml)"
        if [ "$(cat .venv/ember-setup 2>/dev/null)" != "$stamp" ]; then
            local tools
            read -ra tools <<<"$(build_tools)"
            say "installing build tools into .venv: ${tools[*]}"
            pip_install "${tools[@]}"
            say "installing ember into .venv (editable) with its dependencies: ember[$extras]"
            pip_install --no-build-isolation -e ".[$extras]"
            plain_path_install
            echo "$stamp" > .venv/ember-setup
        fi
    fi
    "$PY" -c "import numpy" || { echo "error: numpy is missing for $PY" >&2; exit 1; }
}

# build DIR [TARGET] [CMAKE ARGS...]: configure once, then build (all targets,
# or TARGET: the demo needs only the extension, not the C tests).
build() {
    local dir=$1 target=$2
    shift 2
    local gen=()
    command -v ninja >/dev/null && gen=(-G Ninja)
    if [ ! -f "$dir/CMakeCache.txt" ]; then
        say "configuring $dir (CMake; log in $dir/configure.log)"
        mkdir -p "$dir"
        cmake -S . -B "$dir" "${gen[@]}" -DPython_EXECUTABLE="$PY" -DEMBER_WERROR=ON "$@" \
            >"$dir/configure.log" 2>&1 || {
            cat "$dir/configure.log" >&2
            exit 1
        }
    fi
    say "building in $dir/${target:+ (target $target only)}"
    # Ninja's status line, one per step when the output is not a terminal;
    # some files take half a minute to compile, so a heartbeat in between.
    # (The build stays in the foreground, so Ctrl-C stops it.)
    heartbeat &
    local hb=$! rc=0
    NINJA_STATUS="    building (%f/%t) " \
        cmake --build "$dir" -j "$(nproc)" ${target:+--target "$target"} || rc=$?
    kill "$hb" 2>/dev/null || true
    wait "$hb" 2>/dev/null || true
    [ "$rc" = 0 ] || exit "$rc"
}

# A line every 15 s until killed, or until this script ($$) has gone.
heartbeat() {
    local t=0
    while kill -0 $$ 2>/dev/null; do
        sleep 1
        t=$((t + 1))
        [ $((t % 15)) != 0 ] || say "still building (${t} s)"
    done
}

# pytest's options for parallel workers (pytest-xdist, in the test extra):
# EMBER_PYTEST_JOBS of them (default: the cores, at most 2 -- CI's machine;
# more workers on a GPU machine share its memory), one whole file per worker
# (--dist loadfile): a file's tests run in their order in one process, as
# without xdist (conftest's one-case-in-N sampling counts per process), and
# a kernel a file builds is built once.  Compiled kernels are shared through
# Ember's disk cache (written atomically), so workers do not build each
# other's twice except on a race.  No xdist, or EMBER_PYTEST_JOBS=1: one process.
pytest_jobs() {
    local n=${EMBER_PYTEST_JOBS:-$(($(nproc) < 2 ? $(nproc) : 2))}
    if [ "$n" -gt 1 ] && "$PY" -c "import xdist" 2>/dev/null; then
        echo "-n $n --dist loadfile"
    fi
}

run_tests() {
    local dir=$1 jobs
    say "running the C tests (ctest)"
    (cd "$dir" && ctest --output-on-failure -j "$(nproc)")
    read -ra jobs <<<"$(pytest_jobs)"
    say "running the Python tests (pytest${jobs[*]:+ ${jobs[*]}})"
    "$PY" -m pytest -q -p no:cacheprovider "${jobs[@]}" tests/python "${@:2}"
}

setup_python
case $cmd in
build) build "$BUILD" "" ;;
demo)
    build "$BUILD" _ember
    say "running the demo: $PY -m ember.demo $*"
    exec "$PY" -m ember.demo "$@"
    ;;
test)
    build "$BUILD" ""
    run_tests "$BUILD" "$@"
    ;;
bench)
    build "$BUILD" ""
    exec "$PY" bench/run.py "$@"
    ;;
asan | asan-build)
    # ASan+UBSan build (host pool off) in its own directory, with its own
    # copy of the package, so the optimised in-place extension is untouched.
    ASAN_PKG=$ROOT/build-asan/python/ember
    mkdir -p "$ASAN_PKG"
    for f in "$ROOT"/python/ember/*; do
        case $f in *.so | *.so.* | */__pycache__) ;; *) ln -sfn "$f" "$ASAN_PKG/" ;; esac
    done
    # asan-build: the extension only (what the fuzzer runs), not the C tests
    build build-asan "$([ "$cmd" = asan ] || echo _ember)" -DEMBER_SANITIZE=ON \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBER_PKG_DIR="$ASAN_PKG"
    [ "$cmd" = asan ] || exit 0 # asan-build: the build only (tools/fuzz.sh long)
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
    # The vendor drivers' own process-lifetime allocations are not ours (tools/lsan.supp).
    export LSAN_OPTIONS=suppressions=$ROOT/tools/lsan.supp
    # The C tests render every kernel but leave NVRTC, PoCL and the C++ emulation's
    # compiles to the plain pass (tests/c/ctest.h; EMBER_TEST_RENDER_ONLY=0 runs them).
    (cd build-asan && EMBER_TEST_RENDER_ONLY=${EMBER_TEST_RENDER_ONLY:-1} \
        ASAN_OPTIONS=detect_leaks=$leaks ctest --output-on-failure -j "$(nproc)")
    [ "${EMBER_ASAN_PYTEST:-1}" = 1 ] || exit 0
    # Python is not built with ASan: preload the runtime (it must come first).
    # Leak detection stays off there: CPython keeps memory until exit by design.
    PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
    LD_PRELOAD="$PRELOAD" PYTHONPATH=$ROOT/build-asan/python "$PY" -c \
        "import ember, sys; m = open('/proc/self/maps').read(); \
sys.exit(0 if 'libasan' in m and '/build-asan/' in ember._ember.__file__ else 'asan: not the sanitizer build')"
    read -ra jobs <<<"$(pytest_jobs)"
    say "running the Python tests under ASan+UBSan (pytest${jobs[*]:+ ${jobs[*]}})"
    LD_PRELOAD="$PRELOAD" PYTHONPATH=$ROOT/build-asan/python \
        "$PY" -m pytest -q -p no:cacheprovider "${jobs[@]}" tests/python "$@"
    ;;
*)
    echo "usage: bash tools/dev.sh {demo|test|bench|build|asan|asan-build}" >&2
    exit 2
    ;;
esac
