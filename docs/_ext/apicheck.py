"""A Sphinx check that the API reference covers Ember's public names.

Every name in ``ember.__all__`` and in the ``__all__`` of ``ember.linalg``,
``ember.fft``, ``ember.random`` and ``ember.dask`` must be documented by an
autodoc (or ``py:``) directive somewhere in the docs; a missing one is a
warning, so the build (``-W``) fails until the reference page lists it.  NumPy
objects that Ember re-exports (the dtypes), constants and submodules are
exempt: the reference describes them in prose.
"""
import importlib
import types

from sphinx.util import logging

logger = logging.getLogger(__name__)

SUBMODULES = ("linalg", "fft", "random", "dask", "auto")


def _public_names():
    import ember
    names = []
    for n in ember.__all__:
        obj = getattr(ember, n)
        mod = getattr(obj, "__module__", "") or ""
        if (isinstance(obj, (types.ModuleType, float, type(None))) or mod.split(".")[0] == "numpy"
                or n == "cuda"):  # em.cuda: an object whose functions are listed one by one
            continue
        # A top-level alias of a submodule's function (em.matmul is
        # em.linalg.matmul) counts when either name is documented.
        names.append(("ember." + n, mod + "." + n))
    # Loaded on first use, so not in ember.__all__ until then.
    for n in ("ElementwiseKernel", "ReductionKernel", "jit", "vectorize", "stencil"):
        names.append(("ember." + n,))
    for sub in SUBMODULES:
        m = importlib.import_module("ember." + sub)
        for n in getattr(m, "__all__", ()):
            obj = getattr(m, n)
            if (getattr(obj, "__module__", "") or "").split(".")[0] == "numpy":
                continue
            names.append((f"ember.{sub}.{n}",))
    return names


def check(app, env):
    documented = set(env.get_domain("py").objects)
    missing = [c[0] for c in _public_names() if not any(n in documented for n in c)]
    for n in missing:
        logger.warning("public name %s is not in the API reference (docs/api/)", n)


def setup(app):
    app.connect("env-check-consistency", check)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


# ---- the NumPy functions Ember does not have yet ----------------------------

from docutils import nodes  # noqa: E402
from sphinx.util.docutils import SphinxDirective  # noqa: E402


def numpy_coverage():
    """(count of NumPy's public functions, the sorted names Ember lacks)."""
    import inspect
    import numpy as np
    import ember
    have = set(dir(ember)) | set(ember.__all__)
    funcs = [n for n in dir(np) if not n.startswith("_")
             and callable(getattr(np, n)) and not inspect.isclass(getattr(np, n))]
    return len(funcs), sorted(n for n in funcs if n not in have)


class NumpyCoverage(SphinxDirective):
    """``.. numpy-coverage::``: a paragraph counting NumPy's public functions
    that ``ember`` has, and a list of those it lacks, computed at build time
    (so the contract page never lists a function that has since been added)."""

    def run(self):
        import numpy as np
        total, missing = numpy_coverage()
        para = nodes.paragraph(text=(
            f"With NumPy {np.__version__}, Ember has {total - len(missing)} of NumPy's {total} "
            f"public functions (by name); the {len(missing)} it lacks are: "))
        for i, n in enumerate(missing):
            para += nodes.literal(text=n)
            para += nodes.Text(", " if i + 1 < len(missing) else ".")
        return [para]


_setup_check = setup


def setup(app):  # noqa: F811
    app.add_directive("numpy-coverage", NumpyCoverage)
    return _setup_check(app)
