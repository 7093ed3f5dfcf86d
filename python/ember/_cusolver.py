"""NumPy's linalg functions on CUDA arrays, assembled from cuSOLVER pieces
(``_ember.cuda_solver``: getrf, getrs, potrf, geqrf, orgqr, gesvd, syevd;
include/ember/cudalib.h).

Layout: the pieces take stacks of column-major matrices, an array of shape
(..., c, r) holding r x c matrices.  A row-major ember array ``a`` is
therefore passed as ``a.mT`` (the C side makes the one contiguous copy it
needs anyway, since cuSOLVER overwrites its operands), and a result ``r``
read back as ``r.mT`` (a view).  Where the transpose does not matter (det,
the Hermitian input of cholesky's and eigh's other triangle) it is skipped.

Errors: each piece leaves LAPACK's info per matrix in an int32 device
array.  The functions that must raise (solve, inv, cholesky, eigh, svd...)
reduce it on the device and read one flag, ``any(info != 0)``, after the
rest of their work is queued: one read of a few bytes per call, whatever
the batch size, which waits for the result as any read of it would (the
device never idles waiting for the host in the middle of a function); det
and slogdet never read it (a singular matrix is a valid input there).
NumPy's semantics (raise at the call) leave no way to skip that one wait,
but for eigh: its solvers fail only on a value that is not finite or is
huge, which the solver's input copy looks for, so a bounded stack's info
is not read at all (solver.c, em__eigh_look).

Dtypes are NumPy's: float32/64 and complex64/128 kept, bool and integers
taken as float64; other dtypes (float16, ...) go to NumPy, which raises.
"""
import functools as _functools
import os as _os

import numpy as _np

from . import _ember

LinAlgError = _np.linalg.LinAlgError

# The cuSOLVER pieces and the device kinds they serve, replaceable by the
# tests' emulator (a NumPy model of the column-major contract on the CPU).
_solver = _ember.cuda_solver
_DEVICES = ("cuda",)

_INTS = "?bBhHiIlLqQ"

# The one-call paths (gesv, inv, cholesky with its triangle cleared in C,
# the info flag read through a pinned slot: include/ember/cudalib.h) or,
# with EMBER_LINALG_PATH=old (or _FAST set False, as bench_fftsolve.py does
# for its A/B column), the pieces assembled here as before.
_FAST = _os.environ.get("EMBER_LINALG_PATH", "") != "old"

# solve, inv and det of matrices up to 64 x 64 (complex128: 32) in one
# kernel on CUDA and OpenCL (ember/smallla.h): LU (inv: Gauss-Jordan in
# place), the solve and LAPACK's info in one launch, so the success path is
# that launch and one 4-byte read.  On CUDA it takes the shapes where it
# beat the cuSOLVER / cuBLAS batched paths on the H100 (bench/probe_smallla.py,
# one process, ms, kernel against library; session 18): solve of one matrix
# (64^2 0.139 / 0.169, 32^2 0.079 / 0.112) and of stacks of n > 16 (stacks of
# 8 x 8 stay on cuBLAS's batched LU: 0.121 / 0.072), inv up to 32 x 32, one
# matrix or a stack (32^2 0.074 / 0.108, 10^4 x 8^2 0.080 / 0.092, 1000 x
# 32^2 0.117 / 0.143) and inv of one matrix up to 64 x 64 (session 20, with
# more threads a block for one matrix, run_smallla.c: 64^2 0.117 / 0.177,
# CuPy 0.154; stacks of 33-64 keep the library), det always
# (64^2 0.076 / 0.156, 10^4 x 8^2 0.049 / 0.082).  OpenCL has no other
# device path: every shape on a GPU, none on a CPU device (_opencl_gpu).
# Test hooks (helpers.linalg_path), not switches: _SMALL False keeps the
# paths above, _SMALL_ALL sends every shape the kernel takes to it.
_SMALL = True
_SMALL_ALL = False
# eigh / eigvalsh by Jacobi sweeps in one kernel (_small_eigh says where;
# syevjBatched / syevd otherwise).  A test and probe hook like _SMALL.
_SMALL_EIGH = True
_SMALL_K = 64  # solve's right-hand sides at most (the kernel walks them 16-64 at a time)
_SMALL_KINDS = ("cuda", "opencl")


@_functools.lru_cache(maxsize=None)
def loaded():
    return _ember.cudalib_available(1)


def work_dtype(x):
    """NumPy linalg's working dtype for x, or None when NumPy refuses it."""
    c = x.dtype.char
    if c in "fdFD":
        return x.dtype
    if c in _INTS:
        return _np.dtype(_np.float64)
    return None


def usable(*arrays):
    """True when every argument is a CUDA ember array on one device with a
    dtype cuSOLVER takes, none of them empty, and cuSOLVER loads."""
    return _operands(arrays, _DEVICES) and loaded()


def _operands(arrays, kinds):
    """Every argument an ember array on one device of these kinds, with a
    dtype NumPy's linalg takes, at least 1-d and not empty."""
    first = arrays[0]
    for a in arrays:
        if not isinstance(a, _ember.ndarray) or a._dev[0] not in kinds or a._dev != first._dev:
            return False
        if work_dtype(a) is None or a.ndim < 1 or a.size == 0:
            return False
    return True


def small_usable(*arrays):
    """True when the arguments could take the one-kernel path: ember arrays
    on one CUDA or OpenCL device, dtypes NumPy's linalg takes, none empty
    (the size and the dtype after promotion are checked by _small)."""
    if not _SMALL or not _operands(arrays, _SMALL_KINDS):
        return False
    # CUDA without cuSOLVER keeps its one documented behaviour: the host's
    # NumPy with em.HostFallbackWarning (test_cudalib's fake-driver check).
    return arrays[0]._dev[0] != "cuda" or loaded()


@_functools.lru_cache(maxsize=None)
def _small_maxn(dt):
    return _ember.small_linalg_maxn(dt)


def _stack(a):
    """Whether a holds more than one matrix."""
    batch = 1
    for d in a.shape[:-2]:
        batch *= d
    return batch > 1


@_functools.lru_cache(maxsize=None)
def _opencl_gpu(i):
    """Whether opencl:i is a GPU: a CPU device (PoCL) ran a block per matrix
    slower than NumPy on the host (10^4 x 8^2 solve 976 against 20 ms with
    the copies), so there the host's stays the default."""
    from . import opencl
    try:
        return opencl.device_info(f"opencl:{i}").get("type") == "gpu"
    except Exception:  # noqa: BLE001 -- no answer: the host's, as before
        return False


def _small(a, op, k=0):
    """Whether a (already of its working dtype) takes the one-kernel path for
    op ("solve", "inv", "det"): see _SMALL's note for the shapes."""
    if not _SMALL or a._dev[0] not in _SMALL_KINDS or a.size == 0:
        return False
    n = a.shape[-1]
    if n > _small_maxn(a.dtype) or k > _SMALL_K:
        return False
    if _SMALL_ALL:
        return True
    if a._dev[0] == "opencl":
        return _opencl_gpu(a._dev[1])
    if op == "det":
        return True
    if op == "solve":
        return n > 16 or not _stack(a)
    return n <= 32 or not _stack(a)  # inv


def _small_eigh(a):
    """Whether eigh / eigvalsh of a (of its working dtype) takes the Jacobi
    kernel: real n <= 32 or complex n <= 16 (a warp a matrix up to 16, a
    block above).  On CUDA only up to 8 x 8, stacks or one matrix, where it
    beat the library on the H100 (session 18, ms, kernel / syevjBatched /
    CuPy: 10^4 x 8^2 float64 0.278 / 0.418 / 0.390, float32 0.206 / 0.285 /
    0.257, complex128 0.337 / 1.186 / 1.158; one 8^2 0.073 against syevd's
    0.114); it lost above (session 21: one 16^2 0.297 against syevd's
    0.195, one 32^2 0.673 against 0.274; 1000 x 16^2 0.325 against
    syevjBatched's 0.182)."""
    if not _SMALL_EIGH or not _SMALL or a._dev[0] not in _SMALL_KINDS or a.size == 0:
        return False
    n = a.shape[-1]
    if n > (16 if a.dtype.kind == "c" else 32):
        return False
    if _SMALL_ALL:
        return True
    if a._dev[0] == "opencl":
        return _opencl_gpu(a._dev[1])
    return n <= 8


def _real(dt):
    return _np.dtype(_np.float32 if dt in (_np.float32, _np.complex64) else _np.float64)


def _cast(a, dt=None):
    return a.astype(work_dtype(a) if dt is None else dt, copy=False)


def _at_least_2d(a):
    if a.ndim < 2:
        raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least "
                          "two-dimensional")


def _square(a):
    _at_least_2d(a)
    if a.shape[-1] != a.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")


@_functools.lru_cache(maxsize=None)
def _mt_perm(ndim):
    return tuple(range(ndim - 2)) + (ndim - 1, ndim - 2)


def _mT(a):
    """a.mT without the axis checks of swapaxes (the one-call paths make
    three per call; half of solve's Python time went to them)."""
    return a.transpose(_mt_perm(a.ndim))


def _failed(info):
    """Whether any matrix's info is nonzero: one reduction on the device and
    one flag read back (in C on CUDA: a kernel for a stack, a queued copy
    into pinned memory and one wait for the stream).  None: the C side
    knew the answer without a read (eigh of a bounded finite stack:
    solver.c, em__eigh_look)."""
    if info is None or info.size == 0:
        return False
    if _FAST and info._dev[0] == "cuda":
        return _ember.cuda_info_failed(info)
    from ._reductions import any as _any
    return bool(_any(info))


@_functools.lru_cache(maxsize=None)
def _result_type(name):
    """NumPy's namedtuple class for a linalg result (SlogdetResult, ...)."""
    eye = _np.eye(2)
    return type({"slogdet": _np.linalg.slogdet, "qr": _np.linalg.qr, "svd": _np.linalg.svd,
                 "eigh": _np.linalg.eigh}[name](eye))


# ---- LU: solve, inv, det, slogdet -----------------------------------------

def solve(a, b):
    from ._manipulation import broadcast_shapes, broadcast_to
    _square(a)
    dt = _np.result_type(work_dtype(a), work_dtype(b))
    a, b = _cast(a, dt), _cast(b, dt)
    vec = b.ndim == 1
    if vec:
        b = b[:, None]
    n = a.shape[-1]
    if b.shape[-2] != n:
        return None  # NumPy's path raises its gufunc error
    if a.shape[:-2] != b.shape[:-2]:
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = broadcast_to(a, batch + (n, n))
        b = broadcast_to(b, batch + b.shape[-2:])
    if _small(a, "solve", b.shape[-1]):
        r = _ember.small_linalg(0, a, b)
        if r is not None:
            x, info = r
            if _failed(info):
                raise LinAlgError("Singular matrix")
            return x[..., 0] if vec else x
    if a._dev[0] not in _DEVICES:
        return None  # an OpenCL array the kernel did not take: the host's
    if _FAST:  # getrf and getrs in one C call
        x, info = _solver("gesv", _mT(a), _mT(b))
        x = _mT(x)
    else:
        lu, ipiv, info = _solver("getrf", a.mT)
        x = _solver("getrs", lu, ipiv, b.mT, 0).mT
    if _failed(info):  # read once the solve is queued: the device never waits for the host
        raise LinAlgError("Singular matrix")
    return x[..., 0] if vec else x


def inv(a):
    from ._creation import eye
    from ._manipulation import broadcast_to
    _square(a)
    a = _cast(a)
    n = a.shape[-1]
    if _small(a, "inv"):
        r = _ember.small_linalg(1, a)
        if r is not None:
            x, info = r
            if _failed(info):
                raise LinAlgError("Singular matrix")
            return x
    if a._dev[0] not in _DEVICES:
        return None  # an OpenCL array the kernel did not take: the host's
    if _FAST:  # getrf, the identities made on the device and getrs: one C call
        x, info = _solver("inv", _mT(a))
    else:
        lu, ipiv, info = _solver("getrf", a.mT)
        ident = broadcast_to(eye(n, dtype=a.dtype, device=_dev(a)), a.shape)
        x = _solver("getrs", lu, ipiv, ident, 0)
    if _failed(info):
        raise LinAlgError("Singular matrix")
    return _mT(x)


def _dev(a):
    return f"{a._dev[0]}:{a._dev[1]}"


def _lu_parts(a):
    """(diagonal of U, (-1) ** number of row swaps) of a's LU factors; the
    factors of a^T serve (same determinant), so no transpose is made."""
    from ._creation import _iota, diagonal
    from ._reductions import sum as _sum
    n = a.shape[-1]
    lu, ipiv, _ = _solver("getrf", a)
    d = diagonal(lu, axis1=-2, axis2=-1)
    # pivot i (1-based) left row i in place: the rows counted on the device
    swaps = _sum(ipiv != _iota(n, a.device) + 1, axis=-1)
    return d, 1 - 2 * (swaps % 2)


def det(a):
    from ._reductions import prod
    _square(a)
    a = _cast(a)
    if _small(a, "det"):
        r = _ember.small_linalg(2, a)
        if r is not None:
            return r[0]  # a singular matrix's det is 0: info is not read
    if a._dev[0] not in _DEVICES:
        return None  # an OpenCL array the kernel did not take: the host's
    d, sign = _lu_parts(a)
    return prod(d, axis=-1) * sign.astype(a.dtype)


def slogdet(a):
    from . import _ufuncs as u
    from ._reductions import prod, sum as _sum
    _square(a)
    a = _cast(a)
    d, sign = _lu_parts(a)
    mag = u.abs(d)
    logdet = _sum(u.log(mag), axis=-1)
    if a.dtype.kind == "c":
        unit = u.where(mag == 0, 0, d / u.where(mag == 0, 1, mag).astype(a.dtype))
    else:
        unit = u.sign(d)
    s = prod(unit, axis=-1) * sign.astype(a.dtype)
    return _result_type("slogdet")(s, logdet)


# ---- Cholesky, QR ----------------------------------------------------------

def cholesky(a, upper=False):
    from ._creation import tril, triu
    _square(a)
    a = _cast(a)
    if _FAST:
        # The column-major view of a.mT is a itself: potrf factors it in the
        # triangle asked for and one kernel clears the other, in the same C
        # call.  (Factoring a's view a^T in the other triangle would give a
        # C-contiguous result, but cuSOLVER took longer that way on the H100:
        # 0.068 against 0.053 ms at 64^2 and 0.161 against 0.085 on 10^4
        # 8 x 8, potrf and potrfBatched of the upper triangle.)
        r, info = _solver("cholesky", _mT(a), None, None, 1 if upper else 0)
        r = _mT(r)
    else:
        # The column-major view of a.mT is a itself: potrf factors a in the
        # triangle asked for and leaves the other with a's values (cleared here).
        f, info = _solver("potrf", a.mT, None, None, 1 if upper else 0)
        r = triu(f.mT) if upper else tril(f.mT)
    if _failed(info):
        raise LinAlgError("Matrix is not positive definite")
    return r


def qr(a, mode="reduced"):
    from ._creation import triu, zeros
    if mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(f"Unrecognized mode '{mode}'")
    _at_least_2d(a)
    a = _cast(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    if _small_qr(a):
        res = _ember.small_qr(_QR_MODES[mode], a)
        if res is not None:
            q, r = res
            if mode == "r":
                return r
            return (q, r) if mode == "raw" else _result_type("qr")(q, r)
    if a._dev[0] not in _DEVICES:
        return None  # an OpenCL array the kernel did not take: the host's
    f, tau, _ = _solver("geqrf", a.mT)  # f: (..., n, m), a's m x n factors column-major
    if mode == "raw":
        return f, tau  # NumPy's raw h is this transposed layout, (..., n, m)
    r = triu(f.mT[..., :k, :] if mode != "complete" else f.mT)
    if mode == "r":
        return r
    ncols = m if mode == "complete" else k
    batch = 1
    for d in a.shape[:-2]:
        batch *= d
    if batch > 1 and m <= 32:  # a stack of small matrices: Q without a call per matrix
        return _result_type("qr")(_form_q(f, tau, ncols), r)
    if n >= ncols:
        h = f[..., :ncols, :]
    else:  # complete with m > n: Q's m columns from the n reflectors
        h = zeros(a.shape[:-2] + (m, m), dtype=a.dtype, device=_dev(a))
        h[..., :n, :] = f
    q, _ = _solver("orgqr", h, tau)
    return _result_type("qr")(q.mT, r)


_QR_MODES = {"reduced": 0, "complete": 1, "r": 2, "raw": 3}


def _small_qr(a):
    """Whether qr of a (of its working dtype) takes the Householder kernel
    (m, n <= 32; ember/smallla.h): on CUDA every such shape, one matrix or a
    stack (geqrf + orgqr are two library calls and more launches; a stack's
    Q was formed from geqrfBatched's reflectors in Python, about seven
    launches a reflector: 0.69 ms for 10^4 8 x 8 on the H100, session 18);
    on OpenCL a GPU's (_opencl_gpu: PoCL keeps NumPy).  Not yet timed on a
    GPU (session 19 had no device time left): bench/probe_smallla.py
    --filter qr gives the kernel, the library path and CuPy / PyTorch."""
    if not _SMALL or a._dev[0] not in _SMALL_KINDS or a.size == 0:
        return False
    if max(a.shape[-2:]) > 32:
        return False
    if _SMALL_ALL or a._dev[0] == "cuda":
        return True
    return _opencl_gpu(a._dev[1])


def _form_q(f, tau, ncols):
    """Q's first ncols columns (row-major) from geqrf's factors f (..., n, m)
    and tau (..., k), for a stack of small matrices: the reflectors
    H_i = I - tau_i v_i v_i^H applied to the identity, last first, each as
    one batched product over the whole stack (orgqr has no batched form, and
    a loop of calls costs microseconds of host time per matrix)."""
    from . import _ufuncs as u
    from ._creation import eye
    from ._manipulation import broadcast_to
    from .linalg import matmul
    m, k = f.shape[-1], tau.shape[-1]
    batch = f.shape[:-2]
    q = broadcast_to(eye(m, ncols, dtype=f.dtype, device=_dev(f)), batch + (m, ncols)).copy()
    for i in reversed(range(k)):
        v = f[..., i, i:].copy()  # column i of the factors from row i: the reflector
        v[..., 0] = 1
        w = matmul(u.conj(v)[..., None, :], q[..., i:, :])  # v^H Q[i:]: (..., 1, ncols)
        q[..., i:, :] = q[..., i:, :] - (tau[..., i, None, None] * v[..., :, None]) * w
    return q


# ---- SVD and Hermitian eigenproblems ---------------------------------------

def svd(a, full_matrices=True, compute_uv=True):
    _at_least_2d(a)
    a = _cast(a)
    m, n = a.shape[-2:]
    job = 0 if not compute_uv else (2 if full_matrices else 1)
    # gesvd takes m >= n: a's column-major copy when it is tall, else a^T's
    # (a^T = U' S V'^H gives a = conj(V') S U'^T: U = V'^H read row-major
    # transposed, which is the array gesvd returns as it stands).
    tall = m >= n
    col = a.mT if tall else a
    if job:
        # Vectors by Jacobi sweeps first (gesvdj, PyTorch's default: 1.7x
        # gesvd's speed at 1024^2, 2.2x at 4096 x 64 on the H200); a stack
        # where any matrix did not converge runs gesvd instead, decided by
        # the one flag read that the error check makes anyway.
        s, u, v, info = _solver("gesvdj", col, None, None, job)
        if not _failed(info):
            # v holds V column-major: read row-major it is V^T, so V^H is its
            # conjugate, as it stands.
            vh = _conj(v)
            if tall:
                return _result_type("svd")(u.mT, s, vh)
            # a^T = U' S V'^H: a = conj(V') S U'^T, U = conj(V') = vh.mT
            return _result_type("svd")(vh.mT, s, u)
    s, u, vt, info = _solver("gesvd", col, None, None, job)
    if _failed(info):
        raise LinAlgError("SVD did not converge")
    if not compute_uv:
        return s
    if tall:
        return _result_type("svd")(u.mT, s, vt.mT)
    return _result_type("svd")(vt, s, u)


def _conj(x):
    from . import _ufuncs as u
    return u.conj(x) if x.dtype.kind == "c" else x


def eigh(a, UPLO="L", vectors=True):
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    _square(a)
    a = _cast(a)
    if _small_eigh(a):
        r = _ember.small_eigh(a, vectors, UPLO == "U")
        if r is not None:
            w, v, info = r
            if _failed(info):
                raise LinAlgError("Eigenvalues did not converge")
            return _result_type("eigh")(w, v) if vectors else w
    if a._dev[0] not in _DEVICES:
        return None  # an OpenCL array the kernel did not take: the host's
    # The column-major view of a.mT is a: its lower triangle is cuSOLVER's lower.
    w, v, info = _solver("syevd", a.mT, None, None, 1 if vectors else 0, 1 if UPLO == "U" else 0)
    if _failed(info):
        raise LinAlgError("Eigenvalues did not converge")
    return _result_type("eigh")(w, v.mT) if vectors else w


# ---- built from the above ---------------------------------------------------

def _eps(dt):
    return _np.finfo(_real(dt)).eps


def pinv(a, rtol=None, hermitian=False):
    from . import _ufuncs as u
    from ._reductions import max as _max
    from .linalg import matmul
    _at_least_2d(a)
    a = _cast(a)
    m, n = a.shape[-2:]
    if rtol is None:
        rtol = max(m, n) * _eps(a.dtype)
    uu, s, vh = svd(a, full_matrices=False)
    cutoff = _np.asarray(rtol)[..., None] if _np.ndim(rtol) else rtol
    cutoff = cutoff * _max(s, axis=-1, keepdims=True)
    keep = s > cutoff
    sinv = u.where(keep, 1 / u.where(keep, s, 1), 0).astype(s.dtype)
    # NumPy's order: vh^H @ (s^-1[:, None] * u^H)
    return matmul(u.conj(vh).mT, sinv[..., :, None].astype(a.dtype) * u.conj(uu).mT)


def matrix_rank(a, rtol=None, hermitian=False):
    from ._reductions import max as _max, sum as _sum
    s = svd(a, compute_uv=False)
    m, n = a.shape[-2:]
    if rtol is None:
        rtol = max(m, n) * _eps(s.dtype)
    tol = _max(s, axis=-1, keepdims=True) * rtol
    return _sum(s > tol, axis=-1)


def lstsq(a, b, rcond=None):
    from . import _ufuncs as u
    from ._reductions import max as _max, sum as _sum
    from .linalg import matmul
    if a.ndim != 2 or b.ndim not in (1, 2):
        return None  # NumPy's errors
    dt = _np.result_type(work_dtype(a), work_dtype(b))
    a, b = _cast(a, dt), _cast(b, dt)
    m, n = a.shape
    if b.shape[0] != m:
        return None
    vec = b.ndim == 1
    bb = b[:, None] if vec else b
    if rcond is None:
        rcond = _eps(dt) * max(m, n)
    uu, s, vh = svd(a, full_matrices=False)
    keep = s > rcond * _max(s)
    rank = int(_sum(keep))
    sinv = u.where(keep, 1 / u.where(keep, s, 1), 0).astype(dt)
    x = matmul(u.conj(vh).mT, sinv[:, None] * matmul(u.conj(uu).mT, bb))
    if rank == n and m > n:
        r = bb - matmul(a, x)
        resid = _sum(u.real(r * u.conj(r)) if dt.kind == "c" else r * r, axis=0)
    else:
        from ._creation import empty
        resid = empty((0,), dtype=_real(dt), device=_dev(a))
    return (x[:, 0] if vec else x), resid, _np.int32(rank), s


def cond(x, p=None):
    """numpy.linalg.cond: the ratio of extreme singular values for p None,
    2 and -2; otherwise norm(x, p) * norm(inv(x), p), NaNs from singular
    matrices turned into inf as NumPy does."""
    from . import _ufuncs as u
    from ._reductions import any as _any
    from .linalg import norm
    _at_least_2d(x)
    x = _cast(x)
    if p is None or p == 2 or p == -2:
        s = svd(x, compute_uv=False)
        r = s[..., -1] / s[..., 0] if p == -2 else s[..., 0] / s[..., -1]
    else:
        _square(x)
        from ._creation import eye
        from ._manipulation import broadcast_to
        n = x.shape[-1]
        lu, ipiv, _ = _solver("getrf", x.mT)  # no check: singular -> inf / nan
        ident = broadcast_to(eye(n, dtype=x.dtype, device=_dev(x)), x.shape)
        xi = _solver("getrs", lu, ipiv, ident, 0).mT
        r = (norm(x, p, axis=(-2, -1)) * norm(xi, p, axis=(-2, -1))).astype(_real(x.dtype))
    nan = u.isnan(r) & ~_any(u.isnan(x), axis=(-2, -1))
    return u.where(nan, _np.inf, r).astype(r.dtype)


def norm2(x, ord, axes, keepdims):
    """Matrix norms from singular values: ord 2 (largest), -2 (smallest),
    'nuc' (their sum), over axes (r, c)."""
    from ._manipulation import moveaxis
    from ._reductions import max as _max, min as _min, sum as _sum
    r0, c0 = (a % x.ndim for a in axes)
    y = moveaxis(x, (r0, c0), (-2, -1))
    s = svd(y, compute_uv=False)
    res = (_max if ord == 2 else _min if ord == -2 else _sum)(s, axis=-1)
    if keepdims:
        shape = list(x.shape)
        shape[r0] = shape[c0] = 1
        res = res.reshape(tuple(shape))
    return res
