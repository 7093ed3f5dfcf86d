"""tools/bench_compare.py: one log a side, and several (gpu_compare.sh's
base, new, new, base order): the mean of a side's runs, their spread, and a
flag only for a change larger than both the tolerance and the spread."""
import os
import subprocess
import sys

TOOL = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "bench_compare.py")


def _run(tmp_path, base, new):
    def write(name, rows):
        p = tmp_path / name
        p.write_text("".join(f"cpu {k} {v}\n" for k, v in rows.items()))
        return str(p)

    b = ",".join(write(f"b{i}.log", r) for i, r in enumerate(base))
    n = ",".join(write(f"n{i}.log", r) for i, r in enumerate(new))
    out = subprocess.run([sys.executable, TOOL, b, n], capture_output=True, text=True, check=True)
    cells = {}
    for line in out.stdout.splitlines()[2:]:
        f = [c.strip() for c in line.strip("|").split("|")]
        cells[f[0]] = f[1:]
    return cells


def test_one_log_a_side(tmp_path):
    c = _run(tmp_path, [{"t": 2.0, "u": 1.0}], [{"t": 2.5, "u": 1.01}])
    assert c["cpu: t"] == ["value", "2", "2.5", "1.250 **", "0.000"]
    assert c["cpu: u"][3] == "1.010"  # within --tol 0.03: no flag


def test_several_logs_mean_and_spread(tmp_path):
    # base 1.0 then 1.2 (a drifting host), new 1.1 and 1.1: within the spread
    c = _run(tmp_path, [{"t": 1.0, "u": 2.0}, {"t": 1.2, "u": 2.0}],
             [{"t": 1.1, "u": 2.5}, {"t": 1.1, "u": 2.4}])
    assert c["cpu: t"] == ["value", "1.1", "1.1", "1.000", "0.182"]
    # a change past the tolerance and past the spread of either side is flagged
    assert c["cpu: u"] == ["value", "2", "2.45", "1.225 **", "0.041"]


def test_row_missing_from_a_run_is_left_out(tmp_path):
    c = _run(tmp_path, [{"t": 1.0, "v": 3.0}, {"t": 1.0}], [{"t": 1.0, "v": 3.0}])
    assert "cpu: t" in c and "cpu: v" not in c
