"""em.linalg against numpy.linalg: products over every dtype, batching and
broadcasting, edge layouts, norms, decompositions, errors."""
import numpy as np
import pytest

import ember as em
from helpers import ALL_DTYPES, FLOAT_DTYPES, COMPLEX_DTYPES, assert_same, random_array, to_em

# float16 matmul accumulates differently per BLAS path; compare loosely.
TOL = {"e": 2e-2, "f": 1e-4, "F": 1e-4}


def tol(dt):
    return TOL.get(np.dtype(dt).char)


def check(got, want):
    want = np.asarray(want)
    rtol = tol(want.dtype)
    if rtol and got.device != em.Device("cpu") and want.dtype.char in "fF":
        # cuSOLVER's float32 factorizations round differently from LAPACK's: a
        # random 4 x 4 inverse differed by 1.7e-3 relative on the H200.
        rtol = 3e-3
    assert_same(got, want, rtol=rtol, atol=1e-5 if want.dtype.kind in "fc" else 0)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_matmul_every_dtype(device, rng, dtype):
    a, b = random_array(rng, (4, 5), dtype), random_array(rng, (5, 3), dtype)
    ea, eb = em.asarray(a), em.asarray(b)
    check(ea @ eb, a @ b)
    check(em.matmul(ea, eb), np.matmul(a, b))
    check(em.dot(ea, eb), np.dot(a, b))


@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.complex64], ids=str)
def test_mixed_dtype_promotion(device, rng, dtype):
    a = random_array(rng, (3, 4), dtype)
    b = random_array(rng, (4, 2), np.float64)
    check(em.asarray(a) @ em.asarray(b), a @ b)
    check(em.dot(em.asarray(a), 2.0), np.dot(a, 2.0))  # weak scalar keeps a's float kind


@pytest.mark.parametrize("sa,sb", [
    ((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((5, 2, 3), (3, 4)),
    ((5, 1, 2, 3), (4, 3, 2)), ((1, 2, 3), (6, 3, 1)), ((0, 2, 3), (3, 4)), ((2, 0), (0, 3)),
])
def test_matmul_shapes_and_broadcast(device, rng, sa, sb):
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    check(em.asarray(a) @ em.asarray(b), a @ b)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.int32], ids=str)
def test_matmul_edge_layouts(device, rng, dtype):
    b = random_array(rng, (4, 4), dtype)
    for name, a in [("transposed", random_array(rng, (4, 4), dtype).T),
                    ("strided", random_array(rng, (8, 8), dtype)[::2, ::2]),
                    ("negative", random_array(rng, (4, 8), dtype)[::-1, ::-2]),
                    ("broadcast", np.broadcast_to(random_array(rng, (1, 4), dtype), (4, 4)))]:
        ea = to_em(a)
        check(ea @ em.asarray(b), a @ b)
        check(em.asarray(b) @ ea, b @ a)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128,
                                   np.int8, np.uint16, np.int64, np.bool_], ids=str)
def test_matmul_past_one_tile(device, rng, dtype):
    # Sizes crossing the device kernels' 64 x 64 output tiles (32 for
    # complex128) and their k steps of 16, with ragged edges; int8 sums wrap
    # and bool is OR of ANDs, as in NumPy.
    # Sums of 37 products near 100 in magnitude: an absolute bound for floats
    # (BLAS sums in another order; a relative one fails on results near 0).
    ch = np.dtype(dtype).char
    atol = 1e-3 if ch in "fF" else 1e-9 if ch in "dD" else 0

    def same(got, want):
        assert got.dtype == want.dtype and got.shape == want.shape
        if atol:
            np.testing.assert_allclose(got.get(), want, rtol=1e-5, atol=atol)
        else:
            np.testing.assert_array_equal(got.get(), want)

    a, b = random_array(rng, (2, 70, 37), dtype), random_array(rng, (37, 129), dtype)
    same(em.asarray(a) @ em.asarray(b), a @ b)
    at = random_array(rng, (37, 70), dtype)[::-1].T  # transposed and reversed: no copy
    bt = random_array(rng, (129, 74), dtype)[:, ::2].T
    same(to_em(at) @ to_em(bt), at @ bt)
    if np.dtype(dtype).kind in "iu":
        big = np.full((3, 40), 100, dtype)
        same(em.asarray(big) @ em.asarray(big.T.copy()), big @ big.T)


def test_matmul_out_and_inplace(device, rng):
    a, b = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    out = em.zeros((3, 3))
    r = em.matmul(em.asarray(a), em.asarray(b), out=out)
    assert r is out
    check(out, a @ b)
    x = em.asarray(a.copy())
    x @= em.asarray(b)
    check(x, a @ b)
    with pytest.raises(ValueError, match="read-only"):
        em.matmul(em.asarray(a), em.asarray(b), out=em.zeros(3)._broadcast_to((3, 3)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128,
                                   np.int64], ids=str)
def test_vector_products(device, rng, dtype):
    x, y = random_array(rng, (6,), dtype), random_array(rng, (6,), dtype)
    ex, ey = em.asarray(x), em.asarray(y)
    check(em.vdot(ex, ey), np.vdot(x, y))
    check(em.inner(ex, ey), np.inner(x, y))
    check(em.outer(ex, ey), np.outer(x, y))
    m, n = random_array(rng, (2, 3, 6), dtype), random_array(rng, (3, 6), dtype)
    check(em.vecdot(em.asarray(m), em.asarray(n)), np.linalg.vecdot(m, n))
    check(em.vecdot(em.asarray(m), em.asarray(m), axis=1), np.linalg.vecdot(m, m, axis=1))


def test_tensordot_and_einsum(device, rng):
    a, b = rng.standard_normal((3, 4, 5)), rng.standard_normal((4, 3, 2))
    ea, eb = em.asarray(a), em.asarray(b)
    check(em.tensordot(ea, eb, axes=([0, 1], [1, 0])), np.tensordot(a, b, axes=([0, 1], [1, 0])))
    check(em.tensordot(ea, ea, axes=3), np.tensordot(a, a, axes=3))
    check(em.tensordot(ea[0], eb[0], axes=0), np.tensordot(a[0], b[0], axes=0))
    check(em.einsum("ijk,jil->kl", ea, eb), np.einsum("ijk,jil->kl", a, b))
    check(em.einsum("ii->i", em.asarray(a[0, :4, :4])), np.einsum("ii->i", a[0, :4, :4]))
    out = em.zeros((5, 2))
    assert em.einsum("ijk,jil->kl", ea, eb, out=out) is out
    check(out, np.einsum("ijk,jil->kl", a, b))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.complex64, np.complex128], ids=str)
def test_batched_products_every_float_dtype(device, rng, dtype):
    # Stacks with broadcast batch dims (stride 0), a transposed stack, and
    # a batch that is not one stride apart (copied): the cuBLAS paths on CUDA.
    a = random_array(rng, (3, 1, 4, 5), dtype)
    b = random_array(rng, (2, 5, 6), dtype)
    check(em.asarray(a) @ em.asarray(b), a @ b)
    t = np.swapaxes(random_array(rng, (2, 6, 5), dtype), -1, -2)
    check(em.asarray(a[0]) @ to_em(t), a[0] @ t)
    uneven = random_array(rng, (4, 3, 4, 5), dtype)[::2, ::-1]
    check(to_em(uneven) @ em.asarray(b[0]), uneven @ b[0])


@pytest.mark.parametrize("axes", [0, 1, ([1, 2], [1, 0]), ([2, 0], [0, 2]), (1, 1), ([-1], [-3])])
def test_tensordot_axes(device, rng, axes):
    a, b = rng.standard_normal((3, 4, 5)), rng.standard_normal((5, 4, 3))
    check(em.tensordot(em.asarray(a), em.asarray(b), axes=axes), np.tensordot(a, b, axes=axes))
    f = a.astype(np.float32)
    check(em.inner(em.asarray(f[0]), em.asarray(f[1])), np.inner(f[0], f[1]))


def test_matrix_transpose_is_a_view(device, rng):
    a = rng.standard_normal((2, 3, 4))
    t = em.matrix_transpose(em.asarray(a))
    check(t, np.matrix_transpose(a))
    x = em.asarray(a)
    assert em.matrix_transpose(x)._ptr == x._ptr  # no copy
    with pytest.raises(ValueError, match="at least 2-dimensional"):
        em.matrix_transpose(em.ones(3))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES[1:] + COMPLEX_DTYPES, ids=str)
@pytest.mark.parametrize("ord", [None, 1, 2, np.inf, -np.inf, 0, 3])
def test_vector_norm(device, rng, dtype, ord):
    x = random_array(rng, (7,), dtype)
    check(em.linalg.norm(em.asarray(x), ord), np.linalg.norm(x, ord))
    check(em.linalg.vector_norm(em.asarray(x), ord=ord if ord is not None else 2),
          np.linalg.vector_norm(x, ord=ord if ord is not None else 2))


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_matrix_norm(device, rng, ord):
    a = rng.standard_normal((3, 4, 5))
    check(em.linalg.norm(em.asarray(a), ord, axis=(1, 2)), np.linalg.norm(a, ord, axis=(1, 2)))
    check(em.linalg.norm(em.asarray(a), ord, axis=(1, 2), keepdims=True),
          np.linalg.norm(a, ord, axis=(1, 2), keepdims=True))
    check(em.linalg.matrix_norm(em.asarray(a), ord=ord or "fro"),
          np.linalg.matrix_norm(a, ord=ord or "fro"))
    check(em.linalg.norm(to_em(a[:, ::-1, ::2])), np.linalg.norm(a[:, ::-1, ::2]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128], ids=str)
def test_solvers_and_decompositions(device, rng, dtype):
    a = random_array(rng, (2, 4, 4), dtype) + 8 * np.eye(4, dtype=dtype)
    spd = a @ np.conj(np.swapaxes(a, -1, -2))
    b = random_array(rng, (2, 4, 3), dtype)
    ea, es, eb = em.asarray(a), em.asarray(spd), em.asarray(b)
    check(em.linalg.solve(ea, eb), np.linalg.solve(a, b))
    check(em.linalg.inv(ea), np.linalg.inv(a))
    check(em.linalg.det(ea), np.linalg.det(a))
    check(em.linalg.cholesky(es), np.linalg.cholesky(spd))
    check(em.linalg.cholesky(es, upper=True), np.linalg.cholesky(spd, upper=True))
    w, v = em.linalg.eigh(es)
    wn, _ = np.linalg.eigh(spd)
    check(w, wn)
    check(es @ v, v.get() * w.get()[..., None, :])  # A v = v diag(w)
    u, s, vh = em.linalg.svd(ea, full_matrices=False)
    check(s, np.linalg.svd(a, compute_uv=False))
    check(u @ (s.get()[..., :, None] * vh.get()), a)
    check(em.linalg.svd(ea, compute_uv=False), np.linalg.svd(a, compute_uv=False))
    q, r = em.linalg.qr(ea)
    check(q @ r, a)
    assert isinstance(q, em.ndarray) and isinstance(r, em.ndarray)


def test_more_array_api_functions(device, rng):
    a = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    ea = em.asarray(a)
    sign, logdet = em.linalg.slogdet(ea)
    check(sign, np.linalg.slogdet(a).sign)
    check(logdet, np.linalg.slogdet(a).logabsdet)
    check(em.linalg.pinv(ea), np.linalg.pinv(a))
    check(em.linalg.matrix_rank(ea), np.linalg.matrix_rank(a))
    check(em.linalg.matrix_power(ea, 3), np.linalg.matrix_power(a, 3))
    check(em.linalg.trace(ea, offset=1), np.linalg.trace(a, offset=1))
    check(em.linalg.diagonal(ea), np.linalg.diagonal(a))
    check(em.linalg.cross(ea, ea[::-1]), np.linalg.cross(a, a[::-1]))
    check(em.linalg.svdvals(ea), np.linalg.svdvals(a))
    check(em.linalg.eigvalsh(ea + ea.T), np.linalg.eigvalsh(a + a.T))
    check(em.linalg.multi_dot([ea, ea, ea]), np.linalg.multi_dot([a, a, a]))


def test_results_are_zero_copy_ember_arrays(device):
    x = em.ones((3, 3))
    r = em.linalg.inv(x + em.asarray(np.eye(3)))
    assert isinstance(r, em.ndarray) and r.device == device
    if device.kind == "cpu":
        h = np.asarray(r)
        assert h.ctypes.data == r._ptr  # the host view is r's own memory
    ro = em.ones((2, 2))._broadcast_to((3, 2, 2))  # read-only inputs are fine
    check(em.linalg.det(ro), np.zeros(3))


def test_methods(device, rng):
    a = rng.standard_normal((2, 3, 4))
    x = em.asarray(a)
    check(x.mT, np.matrix_transpose(a))
    check(x[0].dot(x[1].T), a[0].dot(a[1].T))
    with pytest.raises(ValueError, match="matrix transpose with ndim < 2 is undefined"):  # NumPy's .mT wording
        em.ones(3).mT


def test_top_level_exports():
    for name in ("matmul", "dot", "vdot", "tensordot", "einsum", "outer", "inner",
                 "matrix_transpose", "vecdot"):
        assert getattr(em, name) is getattr(em.linalg, name)
    for name in ("norm", "solve", "inv", "det", "svd", "qr", "cholesky", "eigh"):
        assert not hasattr(em, name) and callable(getattr(em.linalg, name))


def test_errors(device):
    a, b = em.ones((2, 3)), em.ones((4, 2))
    with pytest.raises(ValueError, match="operand 1 has a mismatch in its core dimension 0"
                                         ".*size 4 is different from 3"):
        a @ b
    with pytest.raises(ValueError, match="matmul: Input operand 0 does not have enough dimensions"):
        em.matmul(em.asarray(np.float64(1)), a)
    with pytest.raises(ValueError, match="shapes \\(2,3\\) and \\(4,2\\) not aligned"):
        em.dot(a, b)
    with pytest.raises(em.linalg.LinAlgError, match="Singular matrix"):
        em.linalg.inv(em.zeros((3, 3)))
    with pytest.raises(em.linalg.LinAlgError, match="must be square"):
        em.linalg.det(a)
    with pytest.raises(TypeError, match="did not contain a loop with signature"):
        a @ "x"
    assert (a @ em.ones(3)).tolist() == [3.0, 3.0]  # still working


@pytest.mark.parametrize("dtype,want", [("float32", "complex64"), ("float64", "complex128"),
                                        ("complex64", "complex64"), ("complex128", "complex128")])
def test_eig_is_always_complex(device, rng, dtype, want):
    # The Array API asks for complex results even when every eigenvalue is
    # real (NumPy then returns real arrays).
    a = np.triu(random_array(rng, (2, 4, 4), dtype))  # real eigenvalues for real input
    w, v = em.linalg.eig(to_em(a))
    wn, vn = np.linalg.eig(a)
    assert w.dtype == want and v.dtype == want
    assert_same(w, wn.astype(want), rtol=1e-4 if "64" in want and want != "complex128" else 1e-12)
    ev = em.linalg.eigvals(to_em(a))
    assert ev.dtype == want
    assert np.allclose(np.asarray(ev), np.linalg.eigvals(a), rtol=1e-4)
    with pytest.raises(np.linalg.LinAlgError, match="Last 2 dimensions of the array must be square"):
        em.linalg.eig(em.ones((2, 3)))


EINSUMS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("bij,bjk->bki", [(2, 3, 4), (2, 4, 5)]),
    ("ijk,jil->kl", [(3, 4, 5), (4, 3, 2)]), ("i,i->", [(6,), (6,)]), ("i,j->ij", [(3,), (4,)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]), ("ijk->kji", [(2, 3, 4)]), ("ijk->i", [(2, 3, 4)]), ("ij->", [(3, 4)]),
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 2)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("iab,ibc->iac", [(4, 2, 3), (4, 3, 2)]), ("ik,ij->", [(3, 4), (3, 5)]), ("ij,ij->ij", [(3, 4), (3, 4)]),
]


@pytest.mark.parametrize("sub,shapes", EINSUMS)
def test_einsum_matches_numpy(device, rng, sub, shapes):
    ops = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    check(em.einsum(sub, *[em.asarray(o) for o in ops]), np.einsum(sub, *ops))


@pytest.mark.parametrize("sub,shapes", EINSUMS + [("ii->i", [(3, 3)]), ("...ij,...jk", [(2, 3, 4), (4, 5)]),
                                                 ("ij,jk->ik", [(3, 1), (4, 5)])])
def test_einsum_device_plan(monkeypatch, rng, sub, shapes):
    # The CUDA planner with the gemm swapped for NumPy's, so its permutes,
    # reshapes and label bookkeeping are checked on any machine.  Subscripts
    # it does not cover must say so (None), never compute something wrong.
    from ember import _einsum, linalg
    monkeypatch.setattr(linalg, "_cuda_matmul", lambda a, b: em.asarray(np.matmul(a.get(), b.get())))
    ops = [rng.standard_normal(s) for s in shapes]
    got = _einsum.cuda_einsum(sub, [em.asarray(o) for o in ops])
    try:
        want = np.einsum(sub, *ops)
    except ValueError:
        assert got is None
        return
    unsupported = "." in sub or "ii" in sub or any(1 in s for s in shapes)
    if unsupported:
        assert got is None
    else:
        check(got, want)


@pytest.fixture
def reduction_norms(monkeypatch):
    """Route CPU arrays through the device norms (Ember reductions), so the
    GPU formulas are checked against NumPy on any machine."""
    from ember import linalg
    monkeypatch.setattr(linalg, "_on_device", lambda x: isinstance(x, em.ndarray))


@pytest.mark.parametrize("dtype", [np.int32] + FLOAT_DTYPES[1:] + COMPLEX_DTYPES, ids=str)
@pytest.mark.parametrize("ord", [None, 1, 2, np.inf, -np.inf, 0, 3, -1.5])
def test_vector_norm_by_reductions(reduction_norms, rng, dtype, ord):
    x = random_array(rng, (4, 7), dtype)
    ex = em.asarray(x)
    check(em.linalg.norm(ex[0], ord), np.linalg.norm(x[0], ord))
    check(em.linalg.norm(ex, ord, axis=1), np.linalg.norm(x, ord, axis=1))
    check(em.linalg.norm(ex, ord, axis=0, keepdims=True), np.linalg.norm(x, ord, axis=0, keepdims=True))
    o = 2 if ord is None else ord
    check(em.linalg.vector_norm(ex, ord=o), np.linalg.vector_norm(x, ord=o))
    check(em.linalg.vector_norm(ex, ord=o, axis=(0, 1), keepdims=True),
          np.linalg.vector_norm(x, ord=o, axis=(0, 1), keepdims=True))
    check(em.linalg.norm(ex), np.linalg.norm(x))
    check(em.linalg.norm(ex, keepdims=True), np.linalg.norm(x, keepdims=True))


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_matrix_norm_by_reductions(reduction_norms, rng, ord):
    test_matrix_norm("cpu", rng, ord)
    a = rng.standard_normal((3, 4, 5))
    check(em.linalg.norm(em.asarray(a), ord, axis=(2, 0)), np.linalg.norm(a, ord, axis=(2, 0)))
