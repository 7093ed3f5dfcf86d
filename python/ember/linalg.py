"""em.linalg: products, norms and decompositions (NumPy's and the Array API's names).

On the CPU the work is NumPy's (and its BLAS/LAPACK): an ember array lends
its buffer to ``numpy.asarray`` without a copy and NumPy's result is wrapped
back the same way.  On CUDA:

- the products of floating and complex arrays (``matmul``, ``dot``,
  ``inner``, ``tensordot``, ``einsum``) run in cuBLAS as strided-batched
  gemms (``_ember.cuda_matmul``, ``_einsum``);
- ``solve``, ``inv``, ``det``, ``slogdet``, ``cholesky``, ``qr``, ``svd``,
  ``svdvals``, ``eigh``, ``eigvalsh``, ``lstsq``, ``pinv``,
  ``matrix_rank``, ``cond`` and the singular-value norms (``ord`` 2, -2,
  'nuc') run in cuSOLVER (``_cusolver``), batched over leading axes;
- the vector and Frobenius/1/inf matrix norms run as Ember reductions;
- on CUDA and OpenCL, ``solve``, ``inv`` and ``det`` of matrices up to
  64 x 64 (complex128: 32) and ``eigh``/``eigvalsh`` of real symmetric ones
  up to 32 x 32 and complex Hermitian ones up to 16 x 16 can run as one
  Ember kernel (``_ember.small_linalg``, ``small_eigh``: LU with LAPACK's
  pivoting, Gauss-Jordan for inv, Jacobi sweeps a warp a matrix): on OpenCL
  GPUs for every such shape, on CUDA where it beat cuSOLVER
  (``_cusolver._small``, ``_small_eigh``); ``qr`` of m x n matrices with
  m, n <= 32 likewise (``_ember.small_qr``: Householder as LAPACK's geqr2
  and org2r, every shape on CUDA and OpenCL GPUs, ``_cusolver._small_qr``).

Everything else, and all of it on other devices or when cuSOLVER is
missing, is copied to the host, computed by NumPy and copied back, with
``em.HostFallbackWarning`` once per function.  Dtype promotion, shape rules
and error messages are NumPy's; singular matrices raise
``em.linalg.LinAlgError`` (NumPy's class).

``__all__`` lists the names ``import ember`` also exports at top level
(``em.matmul``, ``em.dot``, ...); the rest live in ``em.linalg`` only, as in
NumPy.
"""
import numpy as _np

from . import _cusolver as _cs
from . import _ember
from . import _device as _devmod
from . import _host as _hostlib

__all__ = [
    "matmul", "dot", "vdot", "inner", "outer", "tensordot", "einsum", "matrix_transpose",
    "vecdot",
]
# em.linalg only (not at top level): norm, vector_norm, matrix_norm, solve,
# inv, pinv, det, slogdet, svd, svdvals, qr, cholesky, eigh, eigvalsh, eig,
# eigvals, lstsq, matrix_rank, matrix_power, trace, diagonal, cross,
# multi_dot, LinAlgError.

LinAlgError = _np.linalg.LinAlgError


# ---- host hand-off --------------------------------------------------------

def _device_of(arrays):
    """The device string of the first ember array among the arguments (None: current)."""
    return _hostlib.device_of(*arrays)


def _host(name, a):
    """A NumPy view of a: no copy for CPU ember arrays; for device arrays a
    host copy (the results go back to the device)."""
    return _hostlib.host(a)


def _warn_host(name, arrays):
    """em.HostFallbackWarning (once per function) when name runs on the host
    for a device array holding data (empty arrays cost no copy)."""
    for a in arrays:
        if isinstance(a, _ember.ndarray) and a._dev[0] != "cpu" and a.size:
            _hostlib.warn_fallback("linalg." + name, _device_of((a,)))
            return


def _wrap(r, dev):
    """NumPy result(s) -> ember arrays on dev (zero copy on the CPU)."""
    if isinstance(r, tuple):
        return type(r)(*(_wrap(x, dev) for x in r)) if hasattr(r, "_fields") else \
            tuple(_wrap(x, dev) for x in r)
    if isinstance(r, (list,)):
        return [_wrap(x, dev) for x in r]
    return _hostlib.wrap(r, dev)


def _call(name, fn, arrays, *args, **kw):
    """fn(*host(arrays), *args, **kw) with the result wrapped back."""
    dev = _device_of(arrays)
    _warn_host(name, arrays)
    host = [_host(name, a) for a in arrays]
    return _wrap(fn(*host, *args, **kw), dev)


def _out_call(name, fn, arrays, out, **kw):
    """As _call, writing into an ember out= through its buffer (no copy)."""
    if out is None:
        return _call(name, fn, arrays, **kw)
    if not isinstance(out, _ember.ndarray):
        raise TypeError(f"out must be an ember.ndarray, not {type(out).__name__}")
    if not out._writeable:
        raise ValueError("output array is read-only")
    _warn_host(name, tuple(arrays) + (out,))
    if out._dev[0] == "cpu":
        fn(*[_host(name, a) for a in arrays], out=_host(name, out), **kw)
    else:
        out[...] = fn(*[_host(name, a) for a in arrays], **kw)
    return out


# ---- products -------------------------------------------------------------

_BLAS_CHARS = "efdFD"  # float16/32/64, complex64/128: what cuBLAS multiplies


# What the tiled kernel of OpenCL devices multiplies (em_matmul): NumPy's
# matmul dtypes less float16 (NumPy sums it in float16 through its own loop).
_KERNEL_CHARS = "?bhilqBHILQfdFD"


def _cuda_pair(x1, x2):
    """True when x1 and x2 are ember arrays on one CUDA or OpenCL device (the
    products with a device path: cuBLAS, or the tiled kernel of em_matmul)."""
    return (isinstance(x1, _ember.ndarray) and isinstance(x2, _ember.ndarray)
            and x1._dev[0] in ("cuda", "opencl") and x1._dev == x2._dev)


def _cuda_matmul(x1, x2):
    """x1 @ x2 through cuBLAS, or None when cuBLAS cannot take it (integer or
    bool dtypes, 0-d operands, mismatched core dimensions: NumPy's path then
    computes the result or raises NumPy's error).  NumPy's rules: the result
    dtype of the pair, 1-d operands promoted to a matrix and the added axis
    removed afterwards, batch dimensions broadcast (stride 0, no copy)."""
    from ._dtypes import result_type
    from ._manipulation import broadcast_shapes, broadcast_to
    dt = result_type(x1, x2)
    cuda = x1._dev[0] == "cuda"
    if dt.char not in (_BLAS_CHARS if cuda else _KERNEL_CHARS) or x1.ndim == 0 or x2.ndim == 0:
        return None
    a = x1 if x1.dtype == dt else x1.astype(dt)
    b = x2 if x2.dtype == dt else x2.astype(dt)
    va, vb = a.ndim == 1, b.ndim == 1
    if va:
        a = a[None, :]
    if vb:
        b = b[:, None]
    if a.shape[-1] != b.shape[-2]:
        return None
    try:
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        return None
    a = broadcast_to(a, batch + a.shape[-2:])
    b = broadcast_to(b, batch + b.shape[-2:])
    r = (_ember.cuda_matmul if cuda else _ember.device_matmul)(a, b)
    if va and vb:
        return r[..., 0, 0]
    if va:
        return r[..., 0, :]
    if vb:
        return r[..., 0]
    return r


def matmul(x1, x2, /, out=None):
    """Matrix product with broadcasting over batch dimensions (``x1 @ x2``).
    On CUDA, floating and complex products run in cuBLAS."""
    if out is None and _devmod._auto_any(x1, x2):  # device="auto": placed first
        from .auto._place import call
        return call("matmul", matmul, (x1, x2))
    if _cuda_pair(x1, x2):
        r = _cuda_matmul(x1, x2)
        if r is not None:
            if out is None:
                return r
            out[...] = r
            return out
    return _out_call("matmul", _np.matmul, (x1, x2), out)


def dot(a, b, out=None):
    """numpy.dot: sums over the last axis of a and the second-to-last of b.
    For operands of at most 2 dimensions this is matmul (cuBLAS on CUDA)."""
    if (_cuda_pair(a, b) and 1 <= a.ndim <= 2 and 1 <= b.ndim <= 2
            and a.shape[-1] == b.shape[0]):  # else NumPy's "not aligned" error
        return matmul(a, b, out=out)
    return _out_call("dot", _np.dot, (a, b), out)


def vdot(a, b, /):
    """Flattened dot product, conjugating a."""
    return _call("vdot", _np.vdot, (a, b))


def inner(a, b, /):
    """Sum over the last axes; for 1-d and 2-d CUDA operands, a @ b.T in cuBLAS."""
    if _cuda_pair(a, b) and 1 <= a.ndim <= 2 and 1 <= b.ndim <= 2 and a.shape[-1] == b.shape[-1]:
        return matmul(a, b if b.ndim == 1 else b.T)
    return _call("inner", _np.inner, (a, b))


def outer(x1, x2, /):
    """Outer product of two vectors (inputs are flattened, as in NumPy)."""
    return _call("outer", _np.outer, (x1, x2))


def tensordot(x1, x2, /, axes=2):
    """Sum over the given axes; on CUDA, NumPy's own reduction to one matrix
    product (transpose, reshape, cuBLAS gemm)."""
    if _cuda_pair(x1, x2):
        r = _cuda_tensordot(x1, x2, axes)
        if r is not None:
            return r
    return _call("tensordot", _np.tensordot, (x1, x2), axes=axes)


def _cuda_tensordot(a, b, axes):
    """tensordot as one matmul, or None to let NumPy decide (and raise)."""
    try:
        if isinstance(axes, int):
            if axes < 0 or axes > min(a.ndim, b.ndim):
                return None
            ax_a, ax_b = list(range(a.ndim - axes, a.ndim)), list(range(axes))
        else:
            ax_a, ax_b = axes
            ax_a = [ax_a] if isinstance(ax_a, int) else list(ax_a)
            ax_b = [ax_b] if isinstance(ax_b, int) else list(ax_b)
        ax_a = [x % a.ndim for x in ax_a] if a.ndim else ax_a
        ax_b = [x % b.ndim for x in ax_b] if b.ndim else ax_b
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    if (len(ax_a) != len(ax_b) or len(set(ax_a)) != len(ax_a) or len(set(ax_b)) != len(ax_b)
            or any(a.shape[i] != b.shape[j] for i, j in zip(ax_a, ax_b))):
        return None
    from ._manipulation import permute_dims
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [j for j in range(b.ndim) if j not in ax_b]
    k = 1
    for i in ax_a:
        k *= a.shape[i]
    m = 1
    for i in free_a:
        m *= a.shape[i]
    n = 1
    for j in free_b:
        n *= b.shape[j]
    a2 = permute_dims(a, free_a + ax_a).reshape((m, k))
    b2 = permute_dims(b, ax_b + free_b).reshape((k, n))
    r = _cuda_matmul(a2, b2)
    if r is None:
        return None
    return r.reshape(tuple(a.shape[i] for i in free_a) + tuple(b.shape[j] for j in free_b))


def einsum(subscripts, /, *operands, out=None, **kwargs):
    """numpy.einsum (``optimize=`` and ``dtype=`` pass through).  CUDA
    operands contract on the device as batched cuBLAS gemms where the
    subscripts allow (see ``_einsum``); the rest run in NumPy on the host."""
    # CUDA only: its partial sums (_einsum._sum_out) promote small integers,
    # which cuBLAS never sees (floats only) but OpenCL's integer kernel would.
    if (operands and not kwargs.get("dtype") and all(_cuda_pair(operands[0], o) for o in operands)
            and operands[0]._dev[0] == "cuda"):
        from ._einsum import cuda_einsum
        r = cuda_einsum(subscripts, operands)
        if r is not None:
            if out is None:
                return r
            out[...] = r
            return out
    def run(*ops, **dest):
        return _np.einsum(subscripts, *ops, **dest, **kwargs)
    return _out_call("einsum", run, operands, out)


def vecdot(x1, x2, /, *, axis=-1):
    """sum(conj(x1) * x2) over axis, broadcasting the other dimensions."""
    return _call("vecdot", _np.linalg.vecdot, (x1, x2), axis=axis)


from ._manipulation import matrix_transpose  # noqa: E402  (one implementation, a view)


def multi_dot(arrays, *, out=None):
    """The product of a list of matrices, in the cheapest order (numpy.linalg.multi_dot)."""
    return _call("multi_dot", lambda *a: _np.linalg.multi_dot(a), tuple(arrays))


def matrix_power(a, n, /):
    """The `n`-th power of a square matrix, by repeated squaring (numpy.linalg.matrix_power)."""
    return _call("matrix_power", _np.linalg.matrix_power, (a,), n)


def cross(x1, x2, /, *, axis=-1):
    """Cross product of 3-vectors along `axis` (the Array API's linalg.cross)."""
    return _call("cross", _np.linalg.cross, (x1, x2), axis=axis)


def trace(x, /, *, offset=0, dtype=None):
    """Sum of the diagonal of the last two axes (Array API semantics)."""
    return _call("trace", _np.linalg.trace, (x,), offset=offset, dtype=dtype)


def diagonal(x, /, *, offset=0):
    """The diagonals of the last two axes, `offset` above the main one (the Array API's
    linalg.diagonal)."""
    return _call("diagonal", _np.linalg.diagonal, (x,), offset=offset)


# ---- norms ----------------------------------------------------------------

def _on_device(x):
    """True for an ember array on a device other than the CPU (norms there go
    through Ember's reductions instead of a host round trip)."""
    return isinstance(x, _ember.ndarray) and x._dev[0] != "cpu"


def _vector_norm(x, ord, axis, keepdims):
    """A vector norm with Ember's ufuncs and reductions (NumPy's formulas)."""
    from . import _reductions as r, _ufuncs as u
    if x.dtype.kind in "biu":
        x = x.astype(_np.float64)  # NumPy's norms of integers are float64
    a = u.abs(x)
    if ord is None or ord == 2:
        return u.sqrt(r.sum(a * a, axis=axis, keepdims=keepdims))
    if ord == _np.inf:
        return r.max(a, axis=axis, keepdims=keepdims)
    if ord == -_np.inf:
        return r.min(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        return r.sum((a != 0).astype(a.dtype), axis=axis, keepdims=keepdims)
    if ord == 1:
        return r.sum(a, axis=axis, keepdims=keepdims)
    return r.sum(a ** ord, axis=axis, keepdims=keepdims) ** (1.0 / ord)


def _matrix_norm(x, ord, axes, keepdims):
    """Frobenius and the max/min column/row sums on the device, the norms
    that need singular values (2, -2, 'nuc') through cuSOLVER on CUDA, or
    None (NumPy's path)."""
    from . import _reductions as r, _ufuncs as u
    r0, c0 = (ax % x.ndim for ax in axes)
    if r0 == c0:
        return None
    if ord in (2, -2, "nuc"):
        return _cs.norm2(x, ord, (r0, c0), keepdims) if _cs.usable(x) else None
    if ord in (None, "fro"):
        return _vector_norm(x, None, (r0, c0), keepdims)
    if ord not in (1, -1, _np.inf, -_np.inf):
        return None
    if x.dtype.kind in "biu":
        x = x.astype(_np.float64)
    a = u.abs(x)
    over, then = (r0, c0) if ord in (1, -1) else (c0, r0)  # sum down columns, or along rows
    sums = r.sum(a, axis=over, keepdims=True)
    red = r.max if ord in (1, _np.inf) else r.min
    res = red(sums, axis=then, keepdims=True)
    return res if keepdims else res.reshape(tuple(n for i, n in enumerate(res.shape) if i not in (r0, c0)))


def norm(x, ord=None, axis=None, keepdims=False):
    """numpy.linalg.norm: vector norms (ord any number, inf, -inf) and matrix
    norms (None/'fro', 'nuc', 1, -1, 2, -2, inf, -inf).  On a GPU the vector
    norms and the Frobenius/1/inf matrix norms run as Ember reductions."""
    if _on_device(x) and x.size:
        ax = (axis,) if isinstance(axis, int) else axis
        res = None
        if ax is None and (ord is None or (x.ndim == 1 and ord != "fro" and ord != "nuc")):
            res = _vector_norm(x.reshape(-1) if ord is None else x, ord, None, False)
            if keepdims and res is not None:
                res = res.reshape((1,) * x.ndim)
        elif ax is not None and len(ax) == 1 and not isinstance(ord, str):
            res = _vector_norm(x, ord, ax[0], keepdims)
        elif ax is not None and len(ax) == 2 or (ax is None and x.ndim == 2):
            res = _matrix_norm(x, ord, ax or (0, 1), keepdims)
        if res is not None:
            return res
    return _call("norm", _np.linalg.norm, (x,), ord=ord, axis=axis, keepdims=keepdims)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """Vector norm of order `ord` over `axis` (all elements by default; the Array
    API's linalg.vector_norm)."""
    if _on_device(x) and x.size and not isinstance(ord, str):
        if axis is None:
            res = _vector_norm(x.reshape(-1), ord, None, False)
            return res.reshape((1,) * x.ndim) if keepdims else res
        return _vector_norm(x, ord, axis, keepdims)
    return _call("vector_norm", _np.linalg.vector_norm, (x,), axis=axis, keepdims=keepdims,
                 ord=ord)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """Matrix norm of order `ord` (default Frobenius) over the last two axes (the
    Array API's linalg.matrix_norm)."""
    if _on_device(x) and x.size and x.ndim >= 2:
        res = _matrix_norm(x, ord, (-2, -1), keepdims)
        if res is not None:
            return res
    return _call("matrix_norm", _np.linalg.matrix_norm, (x,), keepdims=keepdims, ord=ord)


# ---- solvers and decompositions (cuSOLVER on CUDA, else LAPACK through NumPy)

def _cuda(name, *arrays):
    """True when name's arguments go to cuSOLVER (see _cusolver.usable)."""
    return _cs.usable(*arrays)


def solve(x1, x2, /):
    """Solve x1 @ x = x2 (x2 a vector only when it is 1-d, as in NumPy 2)."""
    if _cuda("solve", x1, x2) or _cs.small_usable(x1, x2):
        r = _cs.solve(x1, x2)
        if r is not None:
            return r
    return _call("solve", _np.linalg.solve, (x1, x2))


def inv(x, /):
    """The inverse of each square matrix (LinAlgError "Singular matrix")."""
    if _cuda("inv", x) or _cs.small_usable(x):
        r = _cs.inv(x)
        if r is not None:
            return r
    return _call("inv", _np.linalg.inv, (x,))


def det(x, /):
    """Determinants from the LU factors (0 for singular matrices)."""
    if _cuda("det", x) or _cs.small_usable(x):
        r = _cs.det(x)
        if r is not None:
            return r
    return _call("det", _np.linalg.det, (x,))


def slogdet(x, /):
    """(sign, log|det|) from the LU factors (sign 0, -inf for singular matrices)."""
    if _cuda("slogdet", x):
        return _cs.slogdet(x)
    return _call("slogdet", _np.linalg.slogdet, (x,))


def svdvals(x, /):
    """Singular values, descending (the Array API's linalg.svdvals)."""
    if _cuda("svdvals", x):
        return _cs.svd(x, compute_uv=False)
    return _call("svdvals", _np.linalg.svdvals, (x,))


def eigvalsh(x, /, UPLO="L"):
    """Eigenvalues, ascending, of Hermitian matrices (from the UPLO triangle)."""
    if _cuda("eigvalsh", x) or _cs.small_usable(x):
        r = _cs.eigh(x, UPLO, vectors=False)
        if r is not None:
            return r
    return _call("eigvalsh", _np.linalg.eigvalsh, (x,), UPLO=UPLO)


def _complex(a):
    """a in the complex dtype of its precision (complex64 for float32/float16)."""
    return a.astype(_np.complex64 if a.dtype in (_np.float32, _np.float16, _np.complex64)
                    else _np.complex128, copy=False)


def eig(x, /):
    """(eigenvalues, eigenvectors) of general matrices, always complex as the
    Array API asks (NumPy returns real arrays when every eigenvalue is real).
    On the host everywhere (cuSOLVER's geev is not bound)."""
    _warn_host("eig", (x,))
    r = _np.linalg.eig(_host("eig", x))
    return _wrap(type(r)(_complex(r.eigenvalues), _complex(r.eigenvectors)), _device_of((x,)))


def eigvals(x, /):
    """Eigenvalues of general matrices, always complex (see eig)."""
    _warn_host("eigvals", (x,))
    return _wrap(_complex(_np.linalg.eigvals(_host("eigvals", x))), _device_of((x,)))


def pinv(x, /, *, rtol=None, hermitian=False):
    """Moore-Penrose pseudo-inverse through the SVD (numpy.linalg.pinv)."""
    x = _ember.asarray(x) if not isinstance(x, _ember.ndarray) else x
    if x.dtype.kind in "biu" and rtol is None:  # rtol=None takes eps of x's dtype: a float's
        x = x.astype("float64")
    if _cuda("pinv", x) and x.ndim >= 2 and not _np.ndim(rtol):
        return _cs.pinv(x, rtol, hermitian)
    return _call("pinv", _np.linalg.pinv, (x,), rtol=rtol, hermitian=hermitian)


def matrix_rank(x, /, *, rtol=None, hermitian=False):
    """Number of singular values above the tolerance (numpy.linalg.matrix_rank)."""
    if _cuda("matrix_rank", x) and x.ndim >= 2 and not _np.ndim(rtol):
        return _cs.matrix_rank(x, rtol, hermitian)
    return _call("matrix_rank", _np.linalg.matrix_rank, (x,), rtol=rtol, hermitian=hermitian)


def cond(x, p=None):
    """Condition number in the norm p (numpy.linalg.cond); singular matrices give inf."""
    if _cuda("cond", x) and x.ndim >= 2 and (p in (None, 2, -2, "fro", "nuc") or
                                             p in (1, -1, _np.inf, -_np.inf)):
        return _cs.cond(x, p)
    return _call("cond", _np.linalg.cond, (x,), p=p)


def lstsq(a, b, rcond=None):
    """Least-squares solution of ``a @ x = b``: (x, residuals, rank, singular values),
    as numpy.linalg.lstsq."""
    if _cuda("lstsq", a, b) and (rcond is None or not _np.ndim(rcond)):
        r = _cs.lstsq(a, b, rcond)
        if r is not None:
            return r
    return _call("lstsq", _np.linalg.lstsq, (a, b), rcond=rcond)


def svd(x, /, full_matrices=True, compute_uv=True, hermitian=False):
    """(U, S, Vh) as numpy.linalg.svd; S only when compute_uv=False.  On CUDA a
    Hermitian input takes the general SVD (hermitian= is a speed hint in NumPy)."""
    if _cuda("svd", x):
        return _cs.svd(x, full_matrices, compute_uv)
    return _call("svd", _np.linalg.svd, (x,), full_matrices=full_matrices,
                 compute_uv=compute_uv, hermitian=hermitian)


def qr(x, /, mode="reduced"):
    """QR decomposition, ``mode`` ``'reduced'`` (default), ``'complete'``, ``'r'`` or
    ``'raw'`` (numpy.linalg.qr)."""
    if _cuda("qr", x) or _cs.small_usable(x):
        r = _cs.qr(x, mode)
        if r is not None:
            return r
    return _call("qr", _np.linalg.qr, (x,), mode=mode)


def cholesky(x, /, *, upper=False):
    """Lower (or, with upper=True, upper) Cholesky factor."""
    if _cuda("cholesky", x):
        return _cs.cholesky(x, upper)
    return _call("cholesky", _np.linalg.cholesky, (x,), upper=upper)


def eigh(x, /, UPLO="L"):
    """(eigenvalues, eigenvectors) of Hermitian matrices."""
    if _cuda("eigh", x) or _cs.small_usable(x):
        r = _cs.eigh(x, UPLO)
        if r is not None:
            return r
    return _call("eigh", _np.linalg.eigh, (x,), UPLO=UPLO)


_ember._set_hook("matmul", matmul)


def _method_dot(self, b, out=None):
    return dot(self, b, out)


from ._methods import attach as _attach  # noqa: E402

_attach("dot", _method_dot)
