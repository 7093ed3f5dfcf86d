#!/usr/bin/env bash
# Build the user documentation and run its examples as tests.
#
#   bash tools/docs.sh            install docs/requirements.txt into the set-up's
#                                 Python, build Ember if needed, then
#                                 HTML into build/docs/html and the doctest
#                                 builder (every example, on the CPU device)
#   bash tools/docs.sh html       HTML only
#   bash tools/docs.sh doctest    examples only
#
# The Python is the one tools/dev.sh set up: .venv, or with
# EMBER_USE_CURRENT_PYTHON=1 the python3 on PATH (EMBER_PYTHON names another).
# Warnings are errors (-W --keep-going): a broken reference, a docstring that
# does not parse or a public name missing from the API reference fails the build.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

if [ "${EMBER_USE_CURRENT_PYTHON:-0}" = 1 ]; then
    PY=$(command -v "${EMBER_PYTHON:-python3}")
else
    [ -x .venv/bin/python ] || bash tools/dev.sh build
    PY=$ROOT/.venv/bin/python
fi

echo "docs: installing docs/requirements.txt into $PY"
"$PY" -m pip install -q --disable-pip-version-check -r docs/requirements.txt

# The examples import ember: build it (a no-op when up to date) unless this
# Python already has it installed.
if ! "$PY" -c "import ember" 2>/dev/null; then
    echo "docs: building ember"
    bash tools/dev.sh build >/dev/null
    export PYTHONPATH=$ROOT/python${PYTHONPATH:+:$PYTHONPATH}
fi

# The same output on every machine: examples run on the CPU device, with the
# kernel cache in a fresh directory.
export EMBER_DEVICE=cpu
export EMBER_CACHE_DIR=${EMBER_CACHE_DIR:-$ROOT/build/docs/kernel-cache}
mkdir -p "$EMBER_CACHE_DIR" && chmod 700 "$EMBER_CACHE_DIR"

run() {
    echo "docs: sphinx -b $1"
    "$PY" -m sphinx -b "$1" -W --keep-going -q -d build/docs/doctrees docs "build/docs/$1"
}
case ${1:-all} in
html) run html ;;
doctest) run doctest ;;
all) run html; run doctest; echo "docs: HTML in build/docs/html/index.html" ;;
*) echo "usage: bash tools/docs.sh [html|doctest]" >&2; exit 2 ;;
esac
