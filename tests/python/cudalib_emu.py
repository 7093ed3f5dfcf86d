"""NumPy models of the cuFFT and cuSOLVER pieces (_ember.cuda_fft, _ember.cuda_solver),
for running the Python assembly in ember/fft.py and ember/_cusolver.py on the CPU where
there is no GPU: same arguments, same layouts (column-major stacks), same output dtypes,
and assertions on the contract the C side checks.  The GPU runs the real pieces."""
import numpy as np

import ember as em

def _cm(x):  # the column-major matrices an array (..., c, r) holds
    a = np.asarray(x)
    assert a.dtype.char in "fdFD", a.dtype
    return a.swapaxes(-1, -2).copy()

def _st(m):  # store column-major matrices back as (..., c, r) C-contiguous
    return em.asarray(np.ascontiguousarray(np.asarray(m).swapaxes(-1, -2)))

def _getrf(A):
    A = A.copy(); n = A.shape[0]; ipiv = np.zeros(n, np.int64); info = 0
    for j in range(n):
        p = j + int(np.argmax(np.abs(A[j:, j]))); ipiv[j] = p + 1
        if p != j: A[[j, p]] = A[[p, j]]
        if A[j, j] == 0:
            info = info or j + 1; continue
        A[j+1:, j] /= A[j, j]
        A[j+1:, j+1:] -= np.outer(A[j+1:, j], A[j, j+1:])
    return A, ipiv, info

def _getrs(lu, ipiv, B, trans):
    assert trans == 0
    B = B.copy(); n = lu.shape[0]
    for j in range(n):
        p = ipiv[j] - 1
        if p != j: B[[j, p]] = B[[p, j]]
    with np.errstate(all="ignore"):  # a singular U gives inf / nan, as LAPACK's trsm does
        for j in range(n):  # L (unit lower) forward
            B[j+1:] -= np.outer(lu[j+1:, j], B[j])
        for j in reversed(range(n)):  # U backward
            B[j] /= lu[j, j]
            B[:j] -= np.outer(lu[:j, j], B[j])
    return B

def _herm(A, upper):
    t = np.triu(A) if upper else np.tril(A)
    return t + (np.triu(A, 1) if upper else np.tril(A, -1)).conj().T

def _potrf(A, upper):
    out = A.copy()
    try:
        L = np.linalg.cholesky(_herm(A, upper))
    except np.linalg.LinAlgError:
        return out, 1
    if upper:
        U = L.conj().T; iu = np.triu_indices(A.shape[0]); out[iu] = U[iu]
    else:
        il = np.tril_indices(A.shape[0]); out[il] = L[il]
    return out, 0

def _geqrf(A):
    A = A.copy(); m, n = A.shape; k = min(m, n); tau = np.zeros(k, A.dtype)
    for i in range(k):
        x = A[i:, i]; alpha = x[0]; xn = np.linalg.norm(x[1:])
        if xn == 0 and np.imag(alpha) == 0: continue
        beta = -np.copysign(np.sqrt(abs(alpha) ** 2 + xn ** 2), np.real(alpha))
        tau[i] = (beta - alpha) / beta
        A[i+1:, i] = x[1:] / (alpha - beta); A[i, i] = beta
        w = np.concatenate([[1], A[i+1:, i]]).astype(A.dtype)
        A[i:, i+1:] -= np.conj(tau[i]) * np.outer(w, w.conj() @ A[i:, i+1:])
    return A, tau

def _orgqr(A, tau):
    m, nc = A.shape; k = tau.shape[0]; Q = np.eye(m, nc, dtype=A.dtype)
    for i in reversed(range(k)):
        w = np.concatenate([[1], A[i+1:, i]]).astype(A.dtype)
        Q[i:, :] -= tau[i] * np.outer(w, w.conj() @ Q[i:, :])
    return Q

# Set by a test: gesvdj reports that its sweeps did not converge.
GESVDJ_FAILS = False


def solver(op, a, b=None, c=None, f1=0, f2=0):
    A = _cm(a); bs = A.shape[:-2]
    if op == "getrf":
        LU = np.empty_like(A); I = np.zeros(bs, np.int32)
        P = np.empty(bs + (A.shape[-1],), np.int64)
        for i in np.ndindex(bs): LU[i], P[i], I[i] = _getrf(A[i])
        P = P.astype(np.int32)  # the typed getrf's and cuBLAS's batched LU's
        return _st(LU), em.asarray(P), em.asarray(I)
    if op == "getrs":
        LU, P, B = A, np.asarray(b), _cm(c)
        assert P.dtype in (np.int32, np.int64) and B.dtype == LU.dtype and B.shape[:-2] == bs
        X = np.empty_like(B)
        for i in np.ndindex(bs): X[i] = _getrs(LU[i], P[i], B[i], f1)
        return _st(X)
    if op == "gesv":  # getrf + getrs in one call
        lu, p, i = solver("getrf", a)
        return solver("getrs", lu, p, b, 0), i
    if op == "inv":  # getrf + getrs against identities
        lu, p, i = solver("getrf", a)
        eye = np.broadcast_to(np.eye(A.shape[-1], dtype=A.dtype), A.shape)
        return solver("getrs", lu, p, _st(eye), 0), i
    if op == "cholesky":  # potrf with the other (column-major) triangle zeroed
        f, i = solver("potrf", a, None, None, f1)
        o = _cm(f)
        return _st(np.triu(o) if f1 else np.tril(o)), i
    if op == "potrf":
        O = np.empty_like(A); I = np.zeros(bs, np.int32)
        for i in np.ndindex(bs): O[i], I[i] = _potrf(A[i], bool(f1))
        return _st(O), em.asarray(I)
    if op == "geqrf":
        k = min(A.shape[-2:]); O = np.empty_like(A); T = np.empty(bs + (k,), A.dtype)
        for i in np.ndindex(bs): O[i], T[i] = _geqrf(A[i])
        return _st(O), em.asarray(T), em.asarray(np.zeros(bs, np.int32))
    if op == "orgqr":
        T = np.asarray(b); assert T.dtype == A.dtype and A.shape[-2] >= A.shape[-1] >= T.shape[-1]
        Q = np.empty_like(A)
        for i in np.ndindex(bs): Q[i] = _orgqr(A[i], T[i])
        return _st(Q), em.asarray(np.zeros(bs, np.int32))
    if op == "gesvd":
        m, n = A.shape[-2:]; assert m >= n
        rdt = np.finfo(A.dtype).dtype
        if f1 == 0:
            s = np.linalg.svd(A, compute_uv=False).astype(rdt)
            return em.asarray(s), None, None, em.asarray(np.zeros(bs, np.int32))
        info = em.asarray(np.zeros(bs, np.int32))
        if int(np.prod(bs)) > 1 and m <= 32 and A.dtype.kind == "f":
            # gesvdjBatched: the full U viewed down to n columns, V^T as a view of V
            U, S, VT = np.linalg.svd(A, full_matrices=True)
            u = _st(U.astype(A.dtype))
            u = u[..., :n, :] if f1 == 1 else u
            v = _st(np.swapaxes(VT, -1, -2).astype(A.dtype))
            return em.asarray(S.astype(rdt)), u, v.mT, info
        U, S, VT = np.linalg.svd(A, full_matrices=f1 == 2)
        return em.asarray(S.astype(rdt)), _st(U.astype(A.dtype)), _st(VT.astype(A.dtype)), info
    if op == "gesvdj":
        m, n = A.shape[-2:]; assert m >= n and f1 in (1, 2)
        rdt = np.finfo(A.dtype).dtype
        U, S, VT = np.linalg.svd(A, full_matrices=f1 == 2)
        V = np.swapaxes(VT.conj(), -1, -2)  # V itself, not V^H
        info = np.zeros(bs, np.int32)
        if GESVDJ_FAILS: info.flat[-1] = n + 1  # not converged: the caller must run gesvd
        return (em.asarray(S.astype(rdt)), _st(U.astype(A.dtype)), _st(V.astype(A.dtype)),
                em.asarray(info))
    if op == "syevd":
        W = np.empty(bs + (A.shape[-1],), np.finfo(A.dtype).dtype); V = np.empty_like(A)
        for i in np.ndindex(bs): W[i], V[i] = np.linalg.eigh(_herm(A[i], bool(f2)))
        return em.asarray(W), (_st(V) if f1 else None), em.asarray(np.zeros(bs, np.int32))
    raise ValueError(op)


def fft(x, rank, kind, nlast=0):
    a = np.asarray(x)
    assert 1 <= rank <= 3 and rank <= a.ndim
    axes = tuple(range(a.ndim - rank, a.ndim))
    if kind in (0, 1, 3): assert a.dtype.kind == 'c', a.dtype
    else: assert a.dtype in (np.float32, np.float64), a.dtype
    if kind == 0: r = np.fft.fftn(a, axes=axes)
    elif kind == 1: r = np.fft.ifftn(a, axes=axes, norm="forward")
    elif kind == 2: r = np.fft.rfftn(a, axes=axes)
    else:
        assert a.shape[-1] == nlast // 2 + 1
        r = np.fft.irfftn(a, s=list(a.shape[a.ndim-rank:-1]) + [nlast], axes=axes, norm="forward")
    return em.asarray(np.ascontiguousarray(r))
