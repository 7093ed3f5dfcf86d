#!/usr/bin/env bash
# Run the Array API conformance suite (data-apis/array-api-tests) against ember.
#
#   bash tools/array_api_tests.sh /path/to/array-api-tests [extra pytest args]
#
# The checkout is not part of Ember: clone it (with its array-api submodule,
# `git clone --recursive https://github.com/data-apis/array-api-tests`).
# Known failures are listed in tools/array_api_xfails.txt (one test id per
# line); the suite runs with few hypothesis examples so that it stays quick.
#
# Environment:
#   EMBER_PYTHON=...        interpreter (default: .venv/bin/python, else python3)
#   ARRAY_API_DEPS_DIR=dir  install missing requirements into dir (pip --target)
#                           instead of the interpreter's environment
#   MAX_EXAMPLES=5          hypothesis examples per test
#   ARRAY_API_TESTS_VERSION the standard version tested (the suite's default if unset)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SUITE=${1:?usage: tools/array_api_tests.sh PATH_TO_ARRAY_API_TESTS [pytest args]}
shift
SUITE=$(cd "$SUITE" && pwd)
if [ -x "${EMBER_PYTHON:-}" ] || command -v "${EMBER_PYTHON:-}" >/dev/null 2>&1; then
    PY=$EMBER_PYTHON
elif [ -x "$ROOT/.venv/bin/python" ]; then
    PY=$ROOT/.venv/bin/python
else
    PY=python3
fi
[ -d "$SUITE/array_api_tests" ] || { echo "error: $SUITE is not an array-api-tests checkout" >&2; exit 2; }
[ -d "$SUITE/array-api/src" ] || {
    echo "error: $SUITE/array-api is empty: run 'git submodule update --init' there" >&2; exit 2; }

# Requirements: install only what is missing.
export PYTHONPATH=$ROOT/python${ARRAY_API_DEPS_DIR:+:$ARRAY_API_DEPS_DIR}
if ! "$PY" - "$SUITE/requirements.txt" <<'PYEOF'
# Exit 1 if a requirement ("name" or "name>=version") is missing or too old.
import re, sys
from importlib.metadata import version, PackageNotFoundError
def num(v):
    return tuple(int(p) for p in re.findall(r"\d+", v)[:3])
for line in open(sys.argv[1]):
    req = line.split("#")[0].strip()
    if not req:
        continue
    name, _, low = re.split(r"(>=|==)", req, maxsplit=1) + ["", ""] if "=" not in req else re.split(r"(>=|==)", req, maxsplit=1)
    try:
        if low and num(version(name.strip())) < num(low):
            sys.exit(1)
    except PackageNotFoundError:
        sys.exit(1)
PYEOF
then
    echo "installing the suite's requirements for $PY" >&2
    if [ -n "${ARRAY_API_DEPS_DIR:-}" ]; then
        "$PY" -m pip install -q --target "$ARRAY_API_DEPS_DIR" -r "$SUITE/requirements.txt"
    else
        "$PY" -m pip install -q -r "$SUITE/requirements.txt"
    fi
fi
"$PY" -c "import ember" || { echo "error: ember does not import: build it first (bash tools/dev.sh build)" >&2; exit 1; }

export ARRAY_API_TESTS_MODULE=ember
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
cd "$SUITE"
set +e
"$PY" -m pytest array_api_tests -q -p no:cacheprovider -rN --tb=no \
    --xfails-file "$ROOT/tools/array_api_xfails.txt" \
    --max-examples "${MAX_EXAMPLES:-5}" --disable-deadline --continue-on-collection-errors \
    "$@" 2>&1 | tee "$LOG"
rc=${PIPESTATUS[0]}
set -e
summary=$(grep -E "^(=+ )?[0-9]+ (passed|failed)|[0-9]+ passed|[0-9]+ failed" "$LOG" | tail -1)
passed=$(echo "$summary" | grep -oE "[0-9]+ passed" | grep -oE "[0-9]+" || echo 0)
echo "array-api-tests: ${passed:-0} passed ($summary)"
exit "$rc"
