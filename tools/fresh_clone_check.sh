#!/usr/bin/env bash
# A new user's first hour, checked from fresh clones of this repository's
# HEAD (commit first: uncommitted changes are not in a clone).  Needs PyPI.
# CI runs it (.ci/run); about 5 minutes on 2 cores.
#
#   1. The README's set-up in a fresh clone, without EMBER_USE_CURRENT_PYTHON:
#      `bash tools/dev.sh demo --quick` (the README's first command, with a
#      shorter timing table).  Its longest silence between two output lines
#      is reported (and must stay under EMBER_MAX_SILENCE seconds, default 60).
#   2. `import ember` with the Python it made, from another directory.
#   3. `pip wheel .` of a second fresh clone, installed into a new venv:
#      `python -m ember.demo --quick` from another directory finds the seed
#      examples the wheel ships (ember/examples) and runs every one.
#
#   EMBER_PYTHON=/path/python   the interpreter to start from (default python3)
#   KEEP=1                      keep the temporary directory (its path is printed)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY0=${EMBER_PYTHON:-python3}
TMP=$(mktemp -d)
if [ "${KEEP:-0}" = 1 ]; then
    echo "fresh_clone_check: working in $TMP (kept)"
else
    trap 'rm -rf "$TMP"' EXIT
fi
mkdir -p "$TMP/elsewhere"
say() { printf '== fresh_clone_check: %s\n' "$*"; }

# Echo stdin line by line; at the end report the longest gap between lines.
watch_silence() {
    "$PY0" -u -c '
import sys, time
last = start = time.monotonic()
worst = (0.0, "(start)")
prev = "(start)"
for line in sys.stdin:
    now = time.monotonic()
    if now - last > worst[0]:
        worst = (now - last, prev)
    last, prev = now, line.strip()[:90]
    sys.stdout.write(line)
print(f"== longest silence: {worst[0]:.1f} s, after the line: {worst[1]}")
print(f"== total: {time.monotonic() - start:.0f} s")
limit = float(sys.argv[1])
sys.exit(f"the set-up was silent for more than {limit:.0f} s" if worst[0] > limit else 0)
' "${EMBER_MAX_SILENCE:-60}"
}

say "1. the README's set-up in a fresh clone"
git clone -q "$ROOT" "$TMP/clone"
(cd "$TMP/clone" && env -u EMBER_USE_CURRENT_PYTHON -u PYTHONPATH -u VIRTUAL_ENV \
    bash tools/dev.sh demo --quick 2>&1) | tee "$TMP/demo.log" | watch_silence
grep -q -- "--- examples/seed004_norm_and_timing.py" "$TMP/demo.log"
if grep -q "(exit status" "$TMP/demo.log"; then
    echo "error: a seed example failed in the demo (above)" >&2
    exit 1
fi

say "2. import ember with .venv/bin/python from another directory"
(cd "$TMP/elsewhere" && env -u PYTHONPATH "$TMP/clone/.venv/bin/python" -c "
import ember as em, numpy as np
x = em.asarray(np.arange(5.0))
assert (x * 2 + 1).get().tolist() == [1.0, 3.0, 5.0, 7.0, 9.0]
print('imported', em.__file__, 'version', em.__version__)
assert em.__file__.startswith('$TMP/clone/python/'), em.__file__
")

say "3. pip wheel . of a fresh clone, installed into a new venv, python -m ember.demo --quick"
git clone -q "$ROOT" "$TMP/clone2"
"$PY0" -m venv "$TMP/wheelenv"
WPY=$TMP/wheelenv/bin/python
(cd "$TMP/clone2" && "$WPY" -m pip wheel --disable-pip-version-check --no-deps -w "$TMP/dist" .)
"$WPY" -m pip install --disable-pip-version-check -q "$TMP"/dist/ember-*.whl
"$WPY" -c "import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
print(*names, sep='\n')
assert 'ember/examples/seed004_norm_and_timing.py' in names" "$TMP"/dist/ember-*.whl
(cd "$TMP/elsewhere" && env -u PYTHONPATH "$WPY" -m ember.demo --quick) | tee "$TMP/wheel-demo.log"
grep -q "Seed examples from $TMP/wheelenv/.*/site-packages/ember/examples" "$TMP/wheel-demo.log"
n=$(grep -c -- "^--- examples/seed" "$TMP/wheel-demo.log")
want=$(ls "$ROOT"/examples/seed*.py | wc -l)
if [ "$n" != "$want" ]; then
    echo "error: the installed demo ran $n seed examples, not $want" >&2
    exit 1
fi
if grep -q "(exit status" "$TMP/wheel-demo.log"; then
    echo "error: a seed example failed in the installed demo (above)" >&2
    exit 1
fi
say "ok"
