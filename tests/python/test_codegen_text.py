"""Kernel text reaches the Python renderers from src/codegen/ through the
extension: the dialect tables (_ember.dialect) and the @em.jit preludes
(_ember.jit_prelude, embedded by the build from src/codegen/jit_prelude_*)."""
import os
import re

import numpy as np
import pytest

from ember import _ember

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def _source_text(name):
    """A prelude as the build embeds it: each file's leading // description
    dropped, several files ("a+b", CMakeLists.txt's EMBER_EMBEDDED) concatenated."""
    parts = []
    for one in name.split("+"):
        with open(os.path.join(ROOT, "src", "codegen", one)) as f:
            text = f.read()
            # CMake's REGEX REPLACE anchors ^ again after each match: every
            # leading comment block goes, with the blank line after each.
            while True:
                cut = re.sub(r"\A(//[^\n]*\n)+\n?", "", text)
                if cut == text:
                    break
                text = cut
            parts.append(text)
    return "".join(parts)


@pytest.mark.parametrize("dialect,name", [("c", "jit_prelude_c.inc"),
                                          ("cuda", "jit_prelude_cuda.cuh+jit_ops_device.inc+jit_int_device.inc"),
                                          ("opencl", "opencl_mathf.inc+jit_prelude_opencl.cl"
                                                     "+jit_ops_device.inc+jit_int_device.inc")])
def test_jit_prelude_is_the_embedded_file(dialect, name):
    text = _ember.jit_prelude(dialect)
    assert text == _source_text(name)
    first = {"c": "#include <stdint.h>", "cuda": "typedef signed char em_i8;",
             "opencl": "#define sqrtf sqrt\n"}[dialect]
    assert text.startswith(first)
    if dialect != "c":  # the shared integer semantics (jit_int_device.inc), once
        assert text.count("EM_DEV em_i64 em_floordiv_i64(") == 1
    if dialect == "opencl":  # the math names shared with head_opencl.cl, once
        assert text.count("#define sqrtf sqrt\n") == 1 and text.count("#define roundf round\n") == 1
        assert text.index("#define fmodf fmod") < text.index("em_mod_float32(")


@pytest.mark.parametrize("dialect,name", [("c", "expr_prelude_c.inc"),
                                          ("cuda", "expr_prelude_cuda.cuh")])
def test_expr_prelude_is_the_embedded_file(dialect, name):
    text = _ember.expr_prelude(dialect)
    assert text == _source_text(name)
    assert text.startswith("#pragma GCC" if dialect == "c" else "static __device__")


def test_raw_prelude_is_the_embedded_file():
    text = _ember.raw_prelude("c")
    assert text == _source_text("raw_prelude_c.inc")
    assert "#define __syncthreads()" in text
    with pytest.raises(ValueError, match="cuda"):
        _ember.raw_prelude("cuda")


@pytest.mark.parametrize("fn,dialect", [("jit_prelude", "metal"), ("expr_prelude", "metal"),
                                        ("raw_prelude", "opencl")])
def test_prelude_unknown_dialect(fn, dialect):
    with pytest.raises(ValueError, match=dialect):
        getattr(_ember, fn)(dialect)


def test_expr_prelude_opencl():
    text = _ember.expr_prelude("opencl")
    assert "vload_half" in text and "#define abs(x)" in text and not text.startswith("//")


def test_jit_prelude_opencl():
    p = _ember.jit_prelude("opencl")
    assert "typedef uchar em_b;" in p and "EM_ATOMICS32(__local, _l)" in p
    with pytest.raises(ValueError, match="no @em.jit prelude for dialect 'metal'"):
        _ember.jit_prelude("metal")


def test_dialect_tables():
    cuda, c, ocl = _ember.dialect("cuda"), _ember.dialect("c"), _ember.dialect("opencl")
    assert cuda["kernel"] == 'extern "C" __global__ void'
    assert cuda["barrier"] == "__syncthreads();" and cuda["shared"] == "__shared__"
    assert cuda["local_id"] == "threadIdx.%c" and cuda["warp_size"] == 32
    assert c["local_id"] == "em_i.tid[%d]" and c["barrier"] == "em_syncthreads();"
    assert ocl["kernel"] == "__kernel void" and ocl["has_atomic64"] is False
    assert ocl["shfl_down"] is None and cuda["has_shuffle"] is True
    assert cuda["warp_barrier"] == "__syncwarp();" and c["warp_barrier"] is None
    assert cuda["dyn_shared"] % "s" == "extern __shared__ __align__(16) unsigned char s[];"
    assert set(c) == set(cuda) == set(ocl)
    with pytest.raises(ValueError, match="no kernel dialect"):
        _ember.dialect("metal")


def test_renderer_spells_through_the_table():
    """The CPU rendering of a kernel with a barrier uses the C table's spelling,
    which the C prelude defines; the CUDA one uses CUDA's."""
    import test_jit as tj
    a = np.zeros(8)
    cpu = tj.block_sum.render(a, a, device="cpu")
    cuda = tj.block_sum.render(a, a, device="cuda")
    assert "em_syncthreads();" in cpu and "__syncthreads();" not in cpu
    assert "__syncthreads();" in cuda and 'extern "C" __global__ void' in cuda


@pytest.mark.parametrize("path", [("_jit", "render.py"), ("_expr.py",)])
def test_python_renderers_keep_no_kernel_text(path):
    """The @em.jit and expression-kernel renderers spell nothing CUDA-specific
    themselves (comments and docstrings aside)."""
    import ast
    with open(os.path.join(ROOT, "python", "ember", *path)) as f:
        tree = ast.parse(f.read())
    for node in ast.walk(tree):  # drop docstrings; unparsing drops the comments
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                and isinstance(first.value.value, str):
            body[0] = ast.Pass()
    text = ast.unparse(tree)
    for word in ("__global__", "__syncthreads", "__syncwarp", "__shared__", 'extern "C"',
                 "threadIdx", "blockIdx", "atomicAdd", "__device__"):
        assert word not in text, word
