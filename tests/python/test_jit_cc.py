"""_ember._cc_available / _cc_load / _cc_sym: the C compiler JIT from Python
(the binding the expression kernels use too)."""
import ctypes
import os
import subprocess
import sys

import pytest

import ember as em

E = em._ember
needs_cc = pytest.mark.skipif(not E._cc_available(), reason="no C compiler: " + E._cc_why())


@needs_cc
def test_load_sym_and_call():
    h = E._cc_load("long em_t_twice(long x) { return 2 * x; }\n", "twice")
    addr = E._cc_sym(h, "em_t_twice")
    assert isinstance(addr, int) and addr
    assert ctypes.CFUNCTYPE(ctypes.c_long, ctypes.c_long)(addr)(21) == 42
    assert E._cc_sym(h, "absent") is None
    assert E._cc_load("long em_t_twice(long x) { return 2 * x; }\n", "twice") == h  # memory cache


@needs_cc
def test_compile_error_has_log_and_numbered_source():
    with pytest.raises(em.CompileError) as info:
        E._cc_load("int f(void) {\n    return nope;\n}\n", "broken")
    msg = str(info.value)
    assert "could not compile 'broken'" in msg
    assert "nope" in msg and "   2      return nope;" in msg
    E._cc_load("int em_t_ok(void) { return 1; }\n", "ok")  # still works


def test_bad_arguments():
    with pytest.raises(TypeError):
        E._cc_load(1, "x")
    with pytest.raises(ValueError, match="a handle from _cc_load is required"):
        E._cc_sym(0, "x")


@needs_cc
def test_disk_cache_is_reused_across_processes(tmp_path):
    code = ("import ember._ember as E; h = E._cc_load('int em_t_disk(void) { return 7; }', 'disk');"
            "print(E._cc_sym(h, 'em_t_disk') is not None)")
    env = dict(os.environ, EMBER_CACHE_DIR=str(tmp_path), EMBER_DEBUG="2",
               PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "..", "python"))
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert first.stdout.strip() == second.stdout.strip() == "True"
    assert "C kernel cache miss" in first.stderr
    assert "C kernel cache hit (disk)" in second.stderr
    assert [p.suffix for p in tmp_path.iterdir()] == [".so"]  # temporaries are gone
    assert oct(tmp_path.stat().st_mode & 0o777) == "0o700"


def test_import_ember_does_not_import_the_front_end():
    code = ("import sys, ember; print('ember._jit' in sys.modules, 'ast' in sys.modules, "
            "'inspect' in sys.modules); ember.jit; print('ember._jit' in sys.modules)")
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "..", "python"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    lines = out.stdout.split("\n")
    assert lines[0].split()[0] == "False", out.stderr
    assert lines[1] == "True"


@needs_cc
def test_debug_log_names_the_specialisation(tmp_path):
    path = tmp_path / "k.py"
    path.write_text("import numpy as np, ember as em\n"
                    "@em.jit\n"
                    "def k(a, n):\n"
                    "    a[0] = n\n"
                    "with em.Device('cpu'):\n"
                    "    k[1, 1](np.zeros(2, np.float32), 3)\n")
    env = dict(os.environ, EMBER_DEBUG="2", EMBER_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "..", "python"))
    out = subprocess.run([sys.executable, str(path)], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "C kernel cache miss" in out.stderr
    assert "@em.jit kernel 'k' (array(float32, 1d, C), int64) for cpu in" in out.stderr
