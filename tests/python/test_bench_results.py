"""bench/RESULTS.md's tables are the ones bench/results/*.json give
(bench/plot.py renders them; matplotlib is not needed for the check)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_results_page_matches_its_data():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "plot.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
