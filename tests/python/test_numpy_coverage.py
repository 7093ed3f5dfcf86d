"""Ember covers NumPy's public surface: every public callable of NumPy 2.x's
top level, numpy.linalg, numpy.fft, numpy.random (the legacy functions) and
numpy.random.Generator's methods is in Ember's matching namespace, or listed
with a reason in docs/numpy_not_implemented.txt.  The counts are printed."""
import inspect
import os

import numpy as np
import pytest

import ember as em

LIST = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "numpy_not_implemented.txt")


def _listed():
    """{name: reason} from the committed file."""
    out = {}
    with open(LIST) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, sep, reason = line.partition(",")
            assert sep and reason.strip(), f"line {n}: 'name, reason' expected, got {line!r}"
            assert name.strip() not in out, f"line {n}: {name.strip()} listed twice"
            out[name.strip()] = reason.strip()
    return out


def _public_callables(mod):
    """NumPy's public functions (ufuncs included, classes and submodules not)."""
    names = []
    for n in dir(mod):
        if n.startswith("_"):
            continue
        v = getattr(mod, n)
        if isinstance(v, np.ufunc) or (callable(v) and not inspect.isclass(v)
                                       and not inspect.ismodule(v)):
            names.append(n)
    return sorted(names)


def _namespaces():
    """(prefix, NumPy names, predicate 'Ember has it')."""
    gen = em.random.Generator(0)
    spaces = [
        ("", _public_callables(np), lambda n: callable(getattr(em, n, None))),
        ("linalg.", _public_callables(np.linalg), lambda n: callable(getattr(em.linalg, n, None))),
        ("fft.", _public_callables(np.fft), lambda n: callable(getattr(em.fft, n, None))),
        ("random.", _public_callables(np.random), lambda n: callable(getattr(em.random, n, None))),
        ("random.Generator.", sorted(n for n in dir(np.random.Generator) if not n.startswith("_")),
         lambda n: hasattr(gen, n)),
    ]
    return spaces


def test_every_numpy_callable_is_implemented_or_listed():
    listed = _listed()
    missing, stale, lines = [], [], []
    seen = set()
    for prefix, names, has in _namespaces():
        impl = lst = 0
        for n in names:
            key = prefix + n
            seen.add(key)
            if has(n):
                impl += 1
                if key in listed:
                    stale.append(key)
            elif key in listed:
                lst += 1
            else:
                missing.append(key)
        lines.append(f"numpy{'.' + prefix[:-1] if prefix else ''}: {len(names)} public callables, "
                     f"{impl} implemented, {lst} listed as left out")
    report = "\n".join(["", "NumPy coverage (numpy " + np.__version__ + "):"] + lines)
    print(report)
    unknown = sorted(set(listed) - seen)
    assert not missing, ("NumPy names neither in Ember nor in docs/numpy_not_implemented.txt: "
                         + ", ".join(missing))
    assert not stale, "listed as left out but Ember has them (remove the lines): " + ", ".join(stale)
    assert not unknown, "listed names NumPy does not have: " + ", ".join(unknown)


def test_left_out_list_is_short():
    """Fewer names left out than CuPy leaves out (CuPy's 'not implemented'
    comparison table lists well over a hundred NumPy names; the bar here is
    a quarter of the top level at most, and the list shrinks as branches land)."""
    listed = _listed()
    top = [n for n in listed if "." not in n]
    assert len(top) <= len(_public_callables(np)) // 4, len(top)


def test_implemented_names_work_on_ember_arrays():
    """A spot check that what the walk counts is real: a sample of the new
    names computes NumPy's answer on an Ember array."""
    a = np.array([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]])
    x = em.asarray(a)
    for name, args in [("median", ()), ("ptp", ()), ("trace", ()), ("average", ()),
                       ("nanvar", ()), ("corrcoef", ()), ("rot90", ()), ("diff", ())]:
        got = getattr(em, name)(x, *args)
        want = getattr(np, name)(a, *args)
        assert isinstance(got, em.ndarray), name
        np.testing.assert_allclose(got.get(), want, rtol=1e-12, err_msg=name)


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "logical_and", "sin"])
def test_ufunc_attributes_are_numpys(name):
    f, u = getattr(em, name), getattr(np, name)
    assert (f.nin, f.nout, f.nargs, f.identity, f.signature) == \
        (u.nin, u.nout, u.nargs, u.identity, u.signature)
    assert f.ntypes == u.ntypes and f.types == u.types and f.__name__ == u.__name__
    for m in ("reduce", "accumulate", "outer", "at", "reduceat"):
        assert callable(getattr(f, m))
