# Sphinx configuration for Ember's documentation.
#
# Build with `bash tools/docs.sh` (HTML into build/docs/html, then every
# example run by the doctest builder on the CPU device).  Warnings are errors
# there (`-W --keep-going`).
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

# The examples run on the CPU device whatever the machine has, so their output
# is the same everywhere (tools/docs.sh sets this too).
os.environ.setdefault("EMBER_DEVICE", "cpu")

try:
    import ember  # noqa: F401  (an installed or in-tree build)
except ImportError:
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import ember  # noqa: F401

project = "Ember"
author = "the Ember developers"
copyright = "2026, the Ember developers"
release = ember.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "myst_parser",
    "_ext.apicheck",
]
sys.path.insert(0, os.path.dirname(__file__))

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "requirements.txt", "_ext"]

# The developer notes are Markdown written for reading on a code host: their
# links to source files (`src/...`) are not documents of this site.
myst_heading_anchors = 3
suppress_warnings = ["myst.xref_missing"]

autodoc_default_options = {"undoc-members": False}
autodoc_typehints = "none"
autodoc_member_order = "bysource"
add_module_names = False

doctest_global_setup = """
import importlib.util
import numpy as np
import ember as em
have_dask = importlib.util.find_spec("dask") is not None
have_sklearn = all(importlib.util.find_spec(m) is not None
                   for m in ("sklearn", "scipy", "array_api_compat"))
"""
# SciPy reads this when first imported (the scikit-learn example needs it).
os.environ.setdefault("SCIPY_ARRAY_API", "1")
# Plain `>>>` blocks in the pages are tests too, not only `.. doctest::`.
doctest_test_doctest_blocks = "default"
import doctest as _doctest  # noqa: E402
doctest_default_flags = (_doctest.ELLIPSIS | _doctest.NORMALIZE_WHITESPACE
                         | _doctest.DONT_ACCEPT_TRUE_FOR_1)

html_theme = "alabaster"
html_title = f"Ember {release}"
html_theme_options = {
    "description": "GPU and CPU array computing for Python",
    "fixed_sidebar": True,
}
