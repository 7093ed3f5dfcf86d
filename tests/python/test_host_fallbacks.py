"""No silent host round trips: every function that runs NumPy on the host
for an array on a device names itself to _host.warn_fallback (directly, or
through _hostcall.numpy_fallback / Generator._host_draw) with a literal
name, and docs/host_fallbacks.txt lists exactly those names."""
import ast
import os
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest

import ember as em
from ember import _host, _hostcall

ROOT = pathlib.Path(__file__).resolve().parents[2]
PKG = ROOT / "python" / "ember"
LIST = ROOT / "docs" / "host_fallbacks.txt"

CALLS = {"warn_fallback", "numpy_fallback", "_fallback", "_host_draw"}
# The helpers that pass on their caller's name.
# linalg's _warn_host forwards "linalg." + its caller's name: em.linalg's and
# em.fft's fallbacks (cuSOLVER / cuFFT missing, other devices) are not in the
# list, as its header says.
FORWARDERS = {"warn_fallback", "numpy_fallback", "_host_draw", "_warn_host"}


class _Scan(ast.NodeVisitor):
    def __init__(self, path):
        self.path, self.stack, self.names, self.bad = path, [], set(), []

    def visit_FunctionDef(self, node):
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    def visit_Call(self, node):
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        if name in CALLS:
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                self.names.add(first.value)
            elif not (self.stack and self.stack[-1] in FORWARDERS):
                self.bad.append(f"{self.path.name}:{node.lineno}")
        self.generic_visit(node)


def _code_names():
    names, bad = set(), []
    for p in sorted(PKG.rglob("*.py")):
        s = _Scan(p)
        s.visit(ast.parse(p.read_text()))
        names |= s.names
        bad += s.bad
    return names, bad


def _listed():
    out = []
    for line in LIST.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, sep, why = line.partition(",")
            assert sep and why.strip(), f"'name, when' expected: {line!r}"
            out.append(name.strip())
    assert len(out) == len(set(out)), "a name is listed twice"
    return set(out)


def test_list_matches_the_code():
    names, bad = _code_names()
    assert not bad, f"host fallbacks whose name is not a literal (the list cannot be checked): {bad}"
    listed = _listed()
    assert names - listed == set(), f"fallbacks missing from docs/host_fallbacks.txt: {names - listed}"
    assert listed - names == set(), f"listed but no longer in the code: {listed - names}"


def test_the_scan_sees_a_new_fallback(tmp_path):
    """The check can fail: a module with an unlisted fallback is caught, and
    one whose name is computed is refused."""
    src = ("from ._hostcall import numpy_fallback as _fallback\n"
           "def f(x):\n    return _fallback('brand_new', None, x)\n"
           "def g(x, n):\n    return _fallback(n, None, x)\n")
    p = tmp_path / "m.py"
    p.write_text(src)
    s = _Scan(p)
    s.visit(ast.parse(src))
    assert s.names == {"brand_new"} and s.bad == ["m.py:5"]
    assert "brand_new" not in _listed()


@pytest.fixture
def recorded(monkeypatch):
    """The names warn_fallback is called with (on the CPU too, where it is silent)."""
    calls = []
    real = _host.warn_fallback

    def record(name, device):
        calls.append((name, device))
        return real(name, device)
    monkeypatch.setattr(_host, "warn_fallback", record)
    return calls


def test_fallbacks_called_at_run_time_are_listed(recorded, cpu_unless_device_param):
    x = em.asarray(np.arange(10.0))
    em.spacing(x.astype(em.float16))  # native: NumPy's half rule
    em.spacing(x, out=em.empty(10))  # native: written into out
    em.spacing(x, dtype=em.float32)
    em.frexp(x)  # native
    em.quantile(x, 0.3, method="weibull")  # native now: an index formula on the sorted data
    em.quantile(x, 0.3, method="inverted_cdf", weights=em.ones(10))
    em.i0(x)  # native: Cephes' series as Ember ops
    em.bincount(em.asarray([1, 2, 2]), weights=em.asarray([1.0, 2.0, 3.0]))  # CPU: not a fallback
    em.random.default_rng(1).zipf(3.0, size=4)
    em.subtract.reduce(x)
    em.median(x)  # native: no record
    names = {n for n, _ in recorded}
    assert names == {"spacing", "quantile", "random.zipf", "ufunc.reduce"}
    assert names <= _listed()
    assert all(d == "cpu:0" for _, d in recorded)


def test_warns_once_per_function_for_a_device():
    _host._warned.discard("test.fn")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        _host.warn_fallback("test.fn", "cuda:0")
        _host.warn_fallback("test.fn", "cuda:0")
        _host.warn_fallback("test.fn", "cpu:0")
    got = [x for x in w if issubclass(x.category, em.HostFallbackWarning)]
    assert len(got) == 1 and "ember.test.fn ran on the host for an array on cuda:0" in str(got[0].message)


def test_numpy_fallback_warns_for_a_device_array(monkeypatch):
    """numpy_fallback names the arguments' device (a fake one here: the
    device lookup is what matters) and hands NumPy host arrays."""
    monkeypatch.setattr(_hostcall, "find_device", lambda args, kwargs=None: "cuda:7")
    _host._warned.discard("frexp")
    with pytest.warns(em.HostFallbackWarning, match="ember.frexp ran on the host .* cuda:7"):
        try:
            _hostcall.numpy_fallback("frexp", lambda a: (type(a), 0), em.arange(3.0))
        except Exception:  # wrapping onto the fake device fails after the warning
            pass


def test_ember_debug_prints_every_fallback():
    code = ("import warnings, ember as em\nfrom ember import _host\n"
            "warnings.simplefilter('ignore')\n"
            "_host.warn_fallback('x.y', 'cuda:0'); _host.warn_fallback('x.y', 'cuda:0')\n")
    env = dict(os.environ, EMBER_DEBUG="1", PYTHONPATH=str(ROOT / "python"))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("host fallback: ember.x.y ran on the host") == 2, r.stderr
    env["EMBER_DEBUG"] = "0"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=120)
    assert "host fallback" not in r.stderr
