"""`import ember` loads the array core only; the rest loads on first use with
the public API unchanged (ember/__init__.py).  Each check runs in a fresh
interpreter, where nothing has loaded the lazy parts yet."""
import importlib
import os
import subprocess
import sys

import pytest

import ember as em

LAZY = ["ember.fft", "ember.linalg", "ember.random", "ember.dask", "ember.cuda_runtime", "ember._sorting",
        "ember._interop", "ember._kernels", "ember._array_api", "ember._expr", "ember._jit", "numpy.fft"]


def _run(code):
    env = dict(os.environ)
    env.pop("EMBER_DEVICE", None)  # naming a device at import loads its driver, as it should
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(em.__file__)), env.get("PYTHONPATH", "")])
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout.strip()


def test_import_loads_only_the_core():
    out = _run("import sys, numpy, ember\n"
               f"print(sorted(m for m in {LAZY!r} if m in sys.modules))\n"
               "print(any('libcuda' in l or 'libOpenCL' in l for l in open('/proc/self/maps')))\n")
    assert out.split("\n") == ["[]", "False"]


def test_lazy_names_table_matches_the_modules():
    table = em._LAZY_NAMES
    for module in em._LISTED:
        assert set(table[module]) | {"matrix_transpose"} >= set(importlib.import_module("ember." + module).__all__), module
        assert set(table[module]) <= set(importlib.import_module("ember." + module).__all__), module


def test_dir_and_star_import_list_everything_before_loading():
    out = _run("import sys, ember as em\n"
               "d = dir(em)\n"
               "print(all(n in d for n in ('fft', 'linalg', 'random', 'dask', 'matmul', 'sort', 'RawKernel',\n"
               "                           'from_dlpack', 'get_default_memory_pool', 'unique_all', 'einsum')))\n"
               "print('ember.linalg' in sys.modules)\n"
               "ns = {}\n"
               "exec('from ember import *', ns)\n"
               "print(ns['linalg'] is sys.modules['ember.linalg'], ns['fft'].__name__, ns['random'].__name__,\n"
               "      ns['matmul'] is sys.modules['ember.linalg'].matmul, 'RawKernel' in ns, 'isin' in ns,\n"
               "      'Stream' in ns, 'get_unpickle_device' in ns)\n")
    assert out.split("\n") == ["True", "False", "True ember.fft ember.random True True True True True"]


def test_missing_attribute_is_still_an_attribute_error():
    with pytest.raises(AttributeError, match="module 'ember' has no attribute 'no_such_thing'"):
        em.no_such_thing  # noqa: B018
    assert not hasattr(em, "__wrapped__")


# First touch of each ndarray method a lazy module owns: the stub loads the
# module and the call goes on to the real method.
FIRST_TOUCH = {
    "dot": "print(a.dot(a.T).tolist())",
    "matmul": "print((a @ a.T).tolist())",
    "sort": "b = a[0].copy(); b[0] = 9; b.sort(); print(b.tolist())",
    "argsort": "print(a[1].argsort().tolist())",
    "pickle": "import pickle; print(pickle.loads(pickle.dumps(a)).tolist())",
    "reduce": "print(a.__reduce__()[0] is not None)",
    "array_ufunc": "print(np.add(a, 1).tolist())",
    "array_function": "print(np.concatenate([a, a]).shape)",
    "dlpack": "print(np.from_dlpack(a).tolist(), a.__dlpack_device__())",
    "cuda_array_interface": "print(hasattr(a, '__cuda_array_interface__'))",
}
WANT = {
    "dot": "[[5.0, 14.0], [14.0, 50.0]]", "matmul": "[[5.0, 14.0], [14.0, 50.0]]", "sort": "[1.0, 2.0, 9.0]",
    "argsort": "[0, 1, 2]", "pickle": "[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]", "reduce": "True",
    "array_ufunc": "[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]", "array_function": "(4, 3)",
    "dlpack": "[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] (1, 0)", "cuda_array_interface": "False",
}


@pytest.mark.parametrize("what", sorted(FIRST_TOUCH))
def test_first_touch_of_a_lazy_method(what):
    out = _run("import numpy as np, ember as em\n"
               "a = em.arange(6.0, device='cpu').reshape(2, 3)\n" + FIRST_TOUCH[what] + "\n")
    assert out == WANT[what]
