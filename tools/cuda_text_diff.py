"""Compare two dumps of every CUDA kernel rendering (tests/c/test_render_cuda_all.c
with EMBER_RENDER_DUMP=DIR, before and after a change of a template) modulo the
rewrites known to leave the GPU's work the same; print what is left.

    python tools/cuda_text_diff.py BEFORE_DIR AFTER_DIR

The known rewrites (branch ocltpl, the templates made one text for CUDA and OpenCL):
  - the scalar library's per-type name for the C++ overload it resolved to
    (em_add(a, b) on em_state = float -> em_add_f32(a, b));
  - the flat index kernel's bad index written by the thread that claims the error word;
  - nonzero's row pointer and row index declared apart;
  - complex conversions spelled em_mk_c64((float)x, (float)0) (branch oclrt) for
    em_mk<em_c64, float>((float)x, 0).
Exit status 1 when anything else differs."""
import difflib
import os
import re
import sys

SUFFIXED = re.compile(
    r"\bem_(add|multiply|isnan|maximum|minimum|equal|less|greater)_(b|[iuf]\d+|c64|c128)\(")


def norm(t):
    t = SUFFIXED.sub(r"em_\1(", t)
    t = t.replace(
        "{ if (atomicCAS((unsigned long long *)p.err, 0ull, 1ull) == 0ull) p.err[1] =",
        "{ atomicCAS((unsigned long long *)p.err, 0ull, 1ull); p.err[1] =")
    t = t.replace(
        "long long *row = (long long *)p.ix[0] + (k++) * EM_M;\n            long long r = j0 + i;",
        "long long *row = (long long *)p.ix[0] + (k++) * EM_M, r = j0 + i;")
    t = re.sub(r"em_mk_c(64|128)\(\((float|double)\)(.*?), \((float|double)\)0\)",
               lambda m: "em_mk<em_c%s, %s>((%s)%s, 0)" % (m[1], m[2], m[2], m[3]), t)
    t = re.sub(r"em_mk_c(64|128)\(\((float|double)\)([^,]*?)\.re, \((float|double)\)([^,]*?)\.im\)",
               lambda m: "em_mk<em_c%s, %s>(%s.re, %s.im)" % (m[1], m[2], m[3], m[5]), t)
    return t


def main(before, after):
    left = 0
    for name in sorted(set(os.listdir(before)) | set(os.listdir(after))):
        try:
            tb = open(os.path.join(before, name)).read()
            ta = open(os.path.join(after, name)).read()
        except FileNotFoundError:
            print("only on one side:", name)
            left += 1
            continue
        if tb == ta or norm(tb) == norm(ta):
            continue
        left += 1
        if left <= 3:
            print(name)
            diff = difflib.unified_diff(norm(tb).splitlines(1), norm(ta).splitlines(1))
            sys.stdout.writelines(list(diff)[:40])
    print("renderings differing beyond the known rewrites:", left)
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
