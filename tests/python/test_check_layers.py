"""tools/check_layers.py: the tree keeps its layers, and the checker catches
a planted include that runs back up (its self-test plants one of each kind)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "tools", "check_layers.py")


def _run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def test_self_test_catches_planted_includes():
    r = _run("--self-test")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "self-test: ok" in r.stdout


def test_tree_keeps_its_layers():
    r = _run()
    assert r.returncode == 0, r.stdout + r.stderr


def test_extension_reaches_libember_only_through_include():
    """The rule the checker enforces for python/_ember, checked directly."""
    ext = os.path.join(ROOT, "python", "_ember")
    for name in sorted(os.listdir(ext)):
        with open(os.path.join(ext, name)) as f:
            for line in f:
                if line.lstrip().startswith("#include"):
                    assert "src/" not in line and ".." not in line, (name, line)
