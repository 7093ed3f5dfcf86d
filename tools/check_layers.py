#!/usr/bin/env python3
"""Check that libember's #includes go down the layers, never back up.

    python3 tools/check_layers.py              check the tree (exit 1 on a violation)
    python3 tools/check_layers.py --self-test  plant bad includes in a scratch tree and
                                               check that each one is caught

The layers, in the order a call flows (docs/architecture.md, "Layers"):

    python/_ember  ->  include/ember  ->  core  ->  graph  ->  codegen  ->  backend  ->  base

A file may include headers of its own layer and of the layers to its right,
never of a layer to its left.  Besides:

- the extension (python/_ember) includes only the public API, include/ember/*,
  and its own headers: nothing under src/;
- include/ember/* includes only include/ember/*;
- a backend's folder (src/backend/<name>/) is private to that backend: the
  layers above reach a backend through the table in src/backend/backend.h
  (and the other shared headers directly in src/backend/), and one backend
  never includes another's headers -- except src/backend/cudalib/, the
  bindings of the CUDA libraries (cuBLAS, cuFFT, cuSOLVER), which sit on the
  CUDA runtime and may include src/backend/cuda/'s headers (LIBRARY_OF);
- the LEAVES below are data-model or utility headers that every layer may
  include (each with its reason).

- kernel text (a `__global__ void` or `__kernel void` definition) is
  written only under src/codegen/, where every kernel is rendered: the
  backends load and launch what codegen gives them, the extension and the
  public headers hold none (KERNEL_RE; the Python front ends and tests/
  are not scanned).

Only #include "..." lines are read (a system header <...> is never ours;
one that names a path inside the tree is reported).  Includes inside
comments or #if 0 blocks are still read: a stale one should go anyway.
"""
import os
import re
import sys
import tempfile

# Where each folder of src/ sits, top to bottom.  A file may include its own
# rank or a larger one.
LAYERS = [
    ("src/core/", "core", 0),      # arrays, dtypes, the op driver (em_ufunc), reductions
    ("src/graph/", "graph", 1),    # lazy expressions and the fusion planner
    ("src/codegen/", "codegen", 2),  # kernel source for every dialect, kernel templates
    ("src/backend/", "backend", 3),  # runtimes behind the backend table
    # The system C compiler as a JIT and the CPU kernel launcher: the CPU's
    # compile and launch primitives, a runtime beside the backends.
    ("src/jit/", "backend", 3),
    # Host services every runtime uses, with no knowledge of arrays or
    # kernels: the host memory pool, the thread pool, the SIGFPE guard.
    ("src/mem/", "base", 4),
    ("src/host/", "base", 4),
]

# Headers any file of src/ may include, whatever its layer.
LEAVES = {
    # The basics of the data model that every layer handles: buffers,
    # status checks, dtype sizes (the public types are in include/ember).
    "src/core/core.h": "buffers, EM_CHECK, dtype sizes: the data model of every layer",
    "src/core/spare.h": "a header-only lock-free cache of freed blocks, no dependencies",
    # The tree type: built by core and graph, rendered by codegen, run by the
    # backends.  It is the seam between the layers, so it is below all of them.
    "src/graph/node.h": "the node tree every layer below the graph consumes",
    # Utilities that live in codegen/ for history but know nothing of kernels.
    "src/codegen/sbuf.h": "the string builder (sources, cache keys, messages)",
    "src/codegen/diskcache.h":
        "the on-disk cache of compiled binaries, used by every compiler (NVRTC, the C JIT);"
        " it belongs with the compile primitive of the backend table",
    # The scalar library (branch scalar): NumPy semantics of each op, in the
    # C subset every dialect accepts; the CPU loops and the device preludes
    # are built from it.
    "src/codegen/scalar.h": "one scalar library for the CPU loops and every device prelude",
    "src/codegen/scalar_complex.h":
        "the scalar library's complex part (follows scalar.h, kept apart for length)",
    # The C dialect's head: the types, math names and barriers the library
    # needs in C11; the CPU loops compile the library with it, as the C
    # prelude does, so the CPU loops and the C JIT share one text.
    "src/codegen/head_c.h": "the C head of the scalar library, for the CPU loops and the C prelude",
    # The one Philox round function, written once in the dialects' common
    # subset: the CPU backend runs it, the random renderer pastes its text.
    "src/codegen/philox.h": "the one Philox round function, for the CPU and every device",
    # The rejection samplers (gamma, poisson, binomial), written once the same way: the CPU
    # backend compiles them, the random renderer pastes their text into device kernels.
    "src/codegen/rand_dist.h": "the one text of the rejection samplers, for the CPU and devices",
}

# Known violations, each to be removed by the change named.  Keys are
# (including file, included file), both relative to the repository root.
# Empty since the CUDA backend became a runtime of primitives (issue 14).
ALLOWED = {}

# Folders of library bindings that sit on one runtime and may include its
# private headers (the only exception to "one backend never includes
# another's"): the CUDA libraries need the runtime's contexts, current
# stream and library loader.
LIBRARY_OF = {"src/backend/cudalib/": "src/backend/cuda/"}

# A kernel's definition in any dialect, in code or inside a string literal.
KERNEL_RE = re.compile(r'\b(__global__|__kernel)\s+void\b')
KERNEL_HOME = "src/codegen/"

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
SCANNED = ("src", "python/_ember", "include")
SUFFIXES = (".c", ".h", ".def", ".fn", ".cu", ".cl", ".inc")


def layer_of(path):
    for prefix, name, rank in LAYERS:
        if path.startswith(prefix):
            return name, rank
    return None, None


def backend_folder(path):
    """'src/backend/cuda/' for a file in a backend's own folder, else None."""
    parts = path.split("/")
    if len(parts) > 3 and parts[0] == "src" and parts[1] == "backend":
        return "/".join(parts[:3]) + "/"
    return None


def resolve(root, src, name):
    """The repository path an #include "name" in file src means, or None."""
    here = os.path.dirname(src)
    candidates = [os.path.join(here, name)]
    if src.startswith("src/"):
        candidates += [os.path.join("src", name), os.path.join("include", name)]
    elif src.startswith("include/"):
        candidates += [os.path.join("include", name)]
    else:  # the extension: its own folder, then what its build gives it
        candidates += [os.path.join("include", name)]
    for c in candidates:
        c = os.path.normpath(c)
        if os.path.isfile(os.path.join(root, c)):
            return c
    return None


def check_one(src, inc, raw):
    """A message if src must not include inc (raw: the text written), else None."""
    if src.startswith("python/_ember/"):
        if inc.startswith("python/_ember/") or inc.startswith("include/ember/"):
            return None
        return "the extension may include only include/ember/ and its own headers"
    if src.startswith("include/"):
        if inc.startswith("include/ember/"):
            return None
        return "a public header may include only include/ember/"
    if not src.startswith("src/"):
        return None
    if inc.startswith("include/ember/") or inc in LEAVES:
        return None
    if not inc.startswith("src/"):
        return "includes %s, outside libember's sources" % raw
    mine, theirs = backend_folder(src), backend_folder(inc)
    if theirs and theirs != mine and LIBRARY_OF.get(mine) != theirs:
        if mine:
            return "one backend includes another's private header"
        return "reaches into a backend's private folder (use src/backend/backend.h)"
    (lname, lrank), (iname, irank) = layer_of(src), layer_of(inc)
    if lrank is None:
        return "is in no layer: add its folder to LAYERS in tools/check_layers.py"
    if irank is None:
        return "includes a header in no layer: add its folder to LAYERS"
    if irank < lrank:
        return "runs back up the layers (%s includes %s)" % (lname, iname)
    return None


def files(root):
    for top in SCANNED:
        for dirpath, dirnames, names in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for n in sorted(names):
                if n.endswith(SUFFIXES):
                    yield os.path.relpath(os.path.join(dirpath, n), root)


def check(root, allowed=ALLOWED):
    """(violations, allowed entries that were used): violations as strings."""
    bad, used = [], set()
    for src in files(root):
        with open(os.path.join(root, src), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for m in INCLUDE_RE.finditer(text):
            kind, raw = m.group(1), m.group(2)
            line = text.count("\n", 0, m.start()) + 1
            where = "%s:%d: #include %s" % (src, line, kind + raw + (">" if kind == "<" else '"'))
            if kind == "<":
                if "/" in raw and (raw.startswith("..") or raw.split("/")[0] in ("src", "python")):
                    bad.append("%s: a system include naming a path inside the tree" % where)
                continue
            inc = resolve(root, src, raw)
            if inc is None:
                if src.startswith("python/_ember/") or ".." in raw.split("/"):
                    bad.append("%s: does not name include/ember/ or the extension's own "
                               "headers" % where)
                continue  # generated in the build tree, or a system header in quotes
            why = check_one(src, inc, raw)
            if why and (src, inc) in allowed:
                used.add((src, inc))
                continue
            if why:
                bad.append("%s: %s" % (where, why))
        if not src.startswith(KERNEL_HOME):
            for m in KERNEL_RE.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                bad.append("%s:%d: kernel text outside %s (render it there; a backend only "
                           "loads and launches)" % (src, line, KERNEL_HOME))
    return bad, used


def self_test():
    """Plant one bad include of each kind in a scratch tree; each must be caught,
    and the good includes beside them must not be."""
    tree = {
        "include/ember/ember.h": "",
        "include/ember/kernel.h": '#include "ember/ember.h"\n',
        "src/core/core.h": '#include "ember/ember.h"\n',
        "src/core/ufunc.c": '#include "core/core.h"\n#include "backend/backend.h"\n',
        "src/graph/node.h": '#include "ember/ember.h"\n',
        "src/graph/expr.h": '#include "graph/node.h"\n',
        "src/graph/expr.c": '#include "graph/expr.h"\n#include "codegen/render.h"\n',
        "src/codegen/render.h": '#include "graph/node.h"\n#include "codegen/sbuf.h"\n',
        "src/codegen/sbuf.h": "",
        "src/backend/backend.h": '#include "graph/node.h"\n',
        "src/backend/cpu/cpu.c": '#include "backend/backend.h"\n#include "host/threadpool.h"\n',
        "src/backend/cpu/loops.h": "",
        "src/backend/cuda/cuda.c": '#include "backend/backend.h"\n',
        "src/backend/cuda/libs.h": '#include "backend/backend.h"\n',
        "src/backend/cudalib/blas.c": '#include "backend/cuda/libs.h"\n',
        "src/backend/cudalib/blas.h": "",
        "src/host/threadpool.h": '#include "core/core.h"\n',
        "python/_ember/pyember.h": '#include "ember/ember.h"\n',
        "python/_ember/jit.c": '#include "pyember.h"\n#include "ember/kernel.h"\n',
        "src/codegen/render_ok.c": 'static const char k[] = "__global__ void f() {}";\n',
        "src/backend/cuda/compile_ok.c": 'const char *m = "is it a __global__ function?";\n',
    }
    planted = {
        "src/core/bad_up.c": ('#include "graph/expr.h"\n', None),
        "src/codegen/bad_up.c": ('#include "graph/expr.h"\n', "runs back up"),
        "src/backend/cuda/bad_up.c": ('#include "codegen/render.h"\n', "runs back up"),
        "src/host/bad_up.c": ('#include "backend/backend.h"\n', "runs back up"),
        "src/graph/bad_private.c": ('#include "backend/cpu/loops.h"\n', "private folder"),
        "src/backend/cuda/bad_sibling.c": ('#include "backend/cpu/loops.h"\n', "another's"),
        "src/backend/cudalib/bad_cpu.c": ('#include "backend/cpu/loops.h"\n', "another's"),
        "src/backend/cuda/bad_lib.c": ('#include "backend/cudalib/blas.h"\n', "another's"),
        "python/_ember/bad_src.c": ('#include "../../src/core/core.h"\n', "extension"),
        "python/_ember/bad_angle.c": ("#include <../../src/core/core.h>\n", "system include"),
        "include/ember/bad.h": ('#include "../../src/core/core.h"\n', "public header"),
        "src/backend/cudalib/bad_kernel.c": (
            'static const char k[] = "extern \\"C\\" __global__ void f(int *a) {}";\n',
            "kernel text"),
        "python/_ember/bad_kernel.c": ('const char *k = "__kernel void f() {}";\n', "kernel text"),
    }
    with tempfile.TemporaryDirectory() as root:
        for path, text in list(tree.items()) + [(p, t) for p, (t, _) in planted.items()]:
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        bad, _ = check(root, allowed={})
        ok = True
        for path, (_, expect) in planted.items():
            hits = [b for b in bad if b.startswith(path + ":")]
            if expect is None:  # core including graph goes down: allowed
                if hits:
                    print("self-test: %s was flagged but is allowed: %s" % (path, hits))
                    ok = False
            elif not any(expect in h for h in hits):
                print("self-test: the planted include in %s was not caught (%s)" % (path, hits))
                ok = False
        for b in bad:
            if not any(b.startswith(p + ":") for p in planted):
                print("self-test: a good include was flagged: " + b)
                ok = False
        # An allow-list entry silences exactly its own include.
        key = ("src/graph/bad_private.c", "src/backend/cpu/loops.h")
        bad2, used = check(root, allowed={key: "test"})
        if used != {key} or any(b.startswith(key[0] + ":") for b in bad2):
            print("self-test: the allow-list did not silence its entry")
            ok = False
    print("check_layers self-test: " + ("ok" if ok else "FAILED"))
    return ok


def main(argv):
    if "--self-test" in argv:
        return 0 if self_test() else 1
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bad, used = check(root)
    stale = sorted(set(ALLOWED) - used)
    for b in bad:
        print(b)
    for src, inc in stale:
        print("%s: allow-list entry for %s is no longer needed: remove it from "
              "tools/check_layers.py" % (src, inc))
    if bad or stale:
        print("check_layers: %d finding(s) against the layers, %d stale allow-list entr%s "
              "(docs/architecture.md, \"Layers\")" % (len(bad), len(stale),
                                                      "y" if len(stale) == 1 else "ies"))
        return 1
    print("check_layers: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
