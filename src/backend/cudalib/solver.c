/* Dense factorizations on CUDA through cuSOLVER (see include/ember/cudalib.h).
 *
 * The 64-bit generic API (cusolverDnX...) serves the four dtypes with one
 * symbol each; the batch (leading axes) runs as a loop of calls on the
 * thread's current stream, except Hermitian eigenproblems up to 32 x 32,
 * which go in one syevjBatched call.  Work areas: the device part from
 * Ember's pool, sized once per call for the stack (every matrix has the
 * same shape), returned to the pool when the calls are queued (the pool
 * reuses a block only on the stream it was freed on); the host part, when
 * cuSOLVER asks for one, malloc'ed.
 *
 * info: every call writes its matrix's LAPACK info into an int32 device
 * array of the batch shape, which is returned, not read: the Python layer
 * reduces it on the device (one any(info != 0)) and reads the one flag,
 * so a stack costs one 1-byte read, not one per matrix, and only the
 * functions that must raise (solve, inv, cholesky, ...) read it at all. */
#include "backend/cudalib/cudalib.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static cusolverDnHandle em__handles[EM_CU_MAXDEV];
static cusolverDnParams em__params[EM_CU_MAXDEV];
static pthread_mutex_t em__sol_lock = PTHREAD_MUTEX_INITIALIZER;
/* A handle is bound to one stream at a time: a call holds its device's
 * lock from SetStream until its last cuSOLVER call is queued, so that two
 * threads on different streams do not retarget each other's handle. */
static pthread_mutex_t em__dev_lock[EM_CU_MAXDEV];
static pthread_once_t em__dev_once = PTHREAD_ONCE_INIT;

static void em__dev_locks_init(void) {
    for (int i = 0; i < EM_CU_MAXDEV; i++) pthread_mutex_init(&em__dev_lock[i], NULL);
}

static em_status em__fail(cusolverStatus r, const char *what) {
    /* cusolverStatus_t: 2 ALLOC_FAILED, 3 INVALID_VALUE, 6 EXECUTION_FAILED,
     * 7 INTERNAL_ERROR. */
    return em_error(r == 2 ? EM_ENOMEM : EM_EDEVICE, "cuSOLVER %s failed (status %d)", what, r);
}

/* Device id's handle and params (made on first use), bound to the
 * thread's current stream, with the device's lock held (em__release drops
 * it); *h stays NULL on failure. */
static em_status em__handle(int id, cusolverDnHandle *h, cusolverDnParams *p) {
    *h = NULL;
    EM_CHECK(em_cusolver_init());
    EM_CHECK(em_cu_ctx(id));
    pthread_once(&em__dev_once, em__dev_locks_init);
    pthread_mutex_lock(&em__sol_lock);
    cusolverStatus r = 0;
    if (!em__handles[id]) r = em__cusolver.cusolverDnCreate(&em__handles[id]);
    if (!r && !em__params[id]) r = em__cusolver.cusolverDnCreateParams(&em__params[id]);
    cusolverDnHandle hh = em__handles[id];
    *p = em__params[id];
    pthread_mutex_unlock(&em__sol_lock);
    if (r) return em__fail(r, "handle creation");
    pthread_mutex_lock(&em__dev_lock[id]);
    if ((r = em__cusolver.cusolverDnSetStream(hh, em_cu_stream()))) {
        pthread_mutex_unlock(&em__dev_lock[id]);
        return em__fail(r, "SetStream");
    }
    *h = hh;
    return EM_OK;
}

static void em__release(int id, cusolverDnHandle h) {
    if (h) pthread_mutex_unlock(&em__dev_lock[id]);
}

/* A stack of column-major matrices: the C-contiguous copy's shape (..., c, r)
 * holds r x c matrices. */
typedef struct em__mats {
    int id, dt;
    em_dtype t, real; /* the dtype and its real counterpart (for S, W) */
    int64_t batch, r, c, isz;
    int nb; /* batch ndim */
    int64_t bshape[EM_MAXDIMS];
} em__mats;

static em_status em__describe(const char *name, const em_array *a, bool square, em__mats *m) {
    em_device d = em_array_device(a);
    if (d.kind != EM_CUDA) return em_error(EM_EDEVICE, "cuSOLVER %s needs a CUDA array", name);
    if (a->ndim < 2)
        return em_error(EM_EVALUE,
                        "%d-dimensional array given. Array must be at least "
                        "two-dimensional",
                        a->ndim);
    m->dt = em_cudalib_dtype(a->dtype);
    if (m->dt < 0)
        return em_error(EM_ETYPE,
                        "cuSOLVER %s takes float32, float64, complex64 or complex128, "
                        "got %s",
                        name, em_dtype_get(a->dtype)->name);
    m->id = d.id, m->t = a->dtype;
    m->real = a->dtype == EM_COMPLEX64    ? EM_FLOAT32
              : a->dtype == EM_COMPLEX128 ? EM_FLOAT64
                                          : a->dtype;
    m->nb = a->ndim - 2, m->batch = 1;
    for (int i = 0; i < m->nb; i++) m->bshape[i] = a->shape[i], m->batch *= a->shape[i];
    m->c = a->shape[a->ndim - 2], m->r = a->shape[a->ndim - 1];
    m->isz = em_dtype_get(a->dtype)->size;
    if (square && m->r != m->c)
        return em_error(EM_EVALUE, "Last 2 dimensions of the array must be square");
    if (m->r > INT_MAX || m->c > INT_MAX)
        return em_error(EM_EOVERFLOW, "cuSOLVER %s: matrix dimensions beyond 2^31-1", name);
    return EM_OK;
}

static bool em__same_device(const em_array *x, int id) {
    em_device d = em_array_device(x);
    return d.kind == EM_CUDA && d.id == id;
}

/* An array of the batch shape followed by up to two more dimensions. */
static em_status em__new(const em__mats *m, em_dtype t, int extra, int64_t d0, int64_t d1,
                         em_array *out) {
    int64_t sh[EM_MAXDIMS];
    memcpy(sh, m->bshape, sizeof(int64_t) * (size_t)m->nb);
    if (extra > 0) sh[m->nb] = d0;
    if (extra > 1) sh[m->nb + 1] = d1;
    return em_array_empty(out, t, m->nb + extra, sh, (em_device){EM_CUDA, m->id});
}

/* info, zero-filled (the calls overwrite it; an empty matrix makes none). */
static em_status em__info(const em__mats *m, em_array *info) {
    EM_CHECK(em__new(m, EM_INT32, 0, 0, 0, info));
    int32_t zero = 0;
    if (m->batch && (m->r == 0 || m->c == 0)) return em_fill(info, EM_INT32, &zero);
    return EM_OK;
}

/* Whether the stack goes to a batched call: several matrices up to
 * EM_CUDALIB_SMALL square, counted in an int.  (One 64 x 64 matrix through
 * the batched calls was slower than getrf/potrf on the H100: solve 0.188
 * against 0.175 ms, cholesky 0.087 against 0.068.) */
static bool em__small(const em__mats *m) {
    return m->batch > 1 && m->batch <= INT_MAX && m->r == m->c && m->r <= EM_CUDALIB_SMALL;
}

typedef struct em__work {
    int id;
    void *dev, *host;
    size_t ndev;
} em__work;

static em_status em__work_get(em__work *w, int id, size_t ndev, size_t nhost) {
    w->id = id, w->dev = NULL, w->host = NULL, w->ndev = ndev;
    if (ndev) EM_CHECK(em_cu_pool_alloc(id, ndev, &w->dev));
    if (nhost && !(w->host = malloc(nhost))) {
        em_cu_pool_free(id, w->dev, ndev);
        w->dev = NULL;
        return em_error(EM_ENOMEM, "cuSOLVER: out of host memory (%zu bytes)", nhost);
    }
    return EM_OK;
}

static void em__work_put(em__work *w) {
    if (w->dev) em_cu_pool_free(w->id, w->dev, w->ndev);
    free(w->host);
    w->dev = w->host = NULL;
}

/* Release what a failed call made and return s. */
static em_status em__undo(em_status s, em_array *a, em_array *b, em_array *c, em_array *d) {
    em_array *all[4] = {a, b, c, d};
    for (int i = 0; i < 4; i++)
        if (all[i]) em_array_release(all[i]);
    return s;
}

#define EM__MAT(arr, m, i) ((arr).data + (i) * (m).r * (m).c * (m).isz)
#define EM__SOLVE(call, what)          \
    do {                               \
        cusolverStatus em__r = (call); \
        if (em__r) {                   \
            s = em__fail(em__r, what); \
            goto done;                 \
        }                              \
    } while (0)

/* The typed LU calls for dtype t (the four share a signature). */
static cusolverStatus em__getrf_size(em_dtype t, cusolverDnHandle h, int n, void *A, int ld,
                                     int *lwork) {
    switch (t) {
    case EM_FLOAT32: return em__cusolver.Sgetrf_bufferSize(h, n, n, A, ld, lwork);
    case EM_FLOAT64: return em__cusolver.Dgetrf_bufferSize(h, n, n, A, ld, lwork);
    case EM_COMPLEX64: return em__cusolver.Cgetrf_bufferSize(h, n, n, A, ld, lwork);
    default: return em__cusolver.Zgetrf_bufferSize(h, n, n, A, ld, lwork);
    }
}

static cusolverStatus em__getrf_one(em_dtype t, cusolverDnHandle h, int n, void *A, int ld,
                                    void *work, int *ipiv, int *info) {
    switch (t) {
    case EM_FLOAT32: return em__cusolver.Sgetrf(h, n, n, A, ld, work, ipiv, info);
    case EM_FLOAT64: return em__cusolver.Dgetrf(h, n, n, A, ld, work, ipiv, info);
    case EM_COMPLEX64: return em__cusolver.Cgetrf(h, n, n, A, ld, work, ipiv, info);
    default: return em__cusolver.Zgetrf(h, n, n, A, ld, work, ipiv, info);
    }
}

static cusolverStatus em__getrs_one(em_dtype t, cusolverDnHandle h, int trans, int n, int k,
                                    const void *A, int ld, const int *ipiv, void *B, int *info) {
    switch (t) {
    case EM_FLOAT32: return em__cusolver.Sgetrs(h, trans, n, k, A, ld, ipiv, B, ld, info);
    case EM_FLOAT64: return em__cusolver.Dgetrs(h, trans, n, k, A, ld, ipiv, B, ld, info);
    case EM_COMPLEX64: return em__cusolver.Cgetrs(h, trans, n, k, A, ld, ipiv, B, ld, info);
    default: return em__cusolver.Zgetrs(h, trans, n, k, A, ld, ipiv, B, ld, info);
    }
}

em_status em_cuda_getrf(const em_array *a, em_array *lu, em_array *ipiv, em_array *info) {
    em__mats m = {0};
    EM_CHECK(em__describe("getrf", a, true, &m));
    em_array A = {0}, P = {0}, I = {0};
    em__work w = {0};
    cusolverDnHandle h = NULL;
    cusolverDnParams p;
    int64_t n = m.r, ld = n ? n : 1;
    /* A stack of small matrices goes through cuBLAS's batched LU in one
     * call when cuBLAS loads, anything else one typed getrf per matrix;
     * both give int32 pivots. */
    bool small = em__small(&m) && em_cublasb_init() == EM_OK;
    em_status s = em_astype(a, EM_NDTYPES, &A);
    if (s == EM_OK) s = em__new(&m, EM_INT32, 1, n, 0, &P);
    if (s == EM_OK) s = em__info(&m, &I);
    if (s == EM_OK && m.batch && n) {
        size_t nd = 0, nh = 0;
        if ((s = em__handle(m.id, &h, &p)) != EM_OK) goto done;
        if (small) {
            s = em_cudalib_getrf_batched(m.id, m.dt, (int)n, (int)m.batch, A.data, (int *)P.data,
                                         (int *)I.data);
            goto done;
        }
        (void)nh;
        int N = (int)n, L = (int)ld, lwork = 0;
        EM__SOLVE(em__getrf_size(m.t, h, N, A.data, L, &lwork), "getrf_bufferSize");
        nd = (size_t)lwork * (size_t)m.isz;
        if ((s = em__work_get(&w, m.id, nd, 0)) != EM_OK) goto done;
        for (int64_t i = 0; i < m.batch; i++)
            EM__SOLVE(em__getrf_one(m.t, h, N, EM__MAT(A, m, i), L, w.dev, (int *)P.data + i * n,
                                    (int *)I.data + i),
                      "getrf");
    }
done:
    em__work_put(&w);
    em__release(m.id, h);
    if (s != EM_OK) return em__undo(s, &A, &P, &I, NULL);
    *lu = A, *ipiv = P, *info = I;
    return EM_OK;
}

/* getrs on X in place (X: a C-contiguous stack of b's shape, dtype and
 * device, which the caller owns). */
static em_status em__getrs_in(const em_array *lu, const em_array *ipiv, const em_array *b,
                              int trans, em_array *X) {
    em__mats m = {0}, mb = {0};
    EM_CHECK(em__describe("getrs", lu, true, &m));
    EM_CHECK(em__describe("getrs", b, false, &mb));
    int64_t n = m.r, k = mb.c, ld = n ? n : 1;
    /* getrf's int32 pivots of a small stack came from cuBLAS's batched LU
     * (the same test as getrf's); int64 ones from the 64-bit API. */
    bool i32 = ipiv->dtype == EM_INT32;
    bool batched = i32 && em__small(&m) && em_cublasb_init() == EM_OK;
    bool ok = mb.t == m.t && mb.r == n && mb.batch == m.batch && (ipiv->dtype == EM_INT64 || i32) &&
              em_array_is_c_contiguous(ipiv) && em_array_is_c_contiguous(lu) &&
              ipiv->ndim == m.nb + 1 && ipiv->shape[m.nb] == n && trans >= 0 && trans <= 2 &&
              mb.id == m.id && em__same_device(ipiv, m.id);
    for (int i = 0; ok && i < m.nb; i++) ok = mb.bshape[i] == m.bshape[i];
    if (!ok)
        return em_error(EM_EVALUE, "cuSOLVER getrs: lu, ipiv and b do not match (getrf's "
                                   "outputs and a right-hand side of the same batch and dtype)");
    em__work w = {0};
    cusolverDnHandle h = NULL;
    cusolverDnParams p;
    em_status s = EM_OK;
    if (m.batch && n && k) {
        if ((s = em__handle(m.id, &h, &p)) != EM_OK) goto done;
        if (batched) {
            if (k > INT_MAX) {
                s = em_error(EM_EOVERFLOW, "cuBLAS getrsBatched: more than 2^31-1 columns");
                goto done;
            }
            s = em_cudalib_getrs_batched(m.id, m.dt, trans, (int)n, (int)k, (int)m.batch, lu->data,
                                         (const int *)ipiv->data, X->data);
            goto done;
        }
        /* getrs reports only bad arguments in info: one scratch int serves. */
        if ((s = em__work_get(&w, m.id, sizeof(int), 0)) != EM_OK) goto done;
        if (i32) {
            if (k > INT_MAX) {
                s = em_error(EM_EOVERFLOW, "cuSOLVER getrs: more than 2^31-1 columns");
                goto done;
            }
            for (int64_t i = 0; i < m.batch; i++)
                EM__SOLVE(em__getrs_one(m.t, h, trans, (int)n, (int)k, EM__MAT(*lu, m, i), (int)ld,
                                        (const int *)ipiv->data + i * n, EM__MAT(*X, mb, i),
                                        (int *)w.dev),
                          "getrs");
            goto done;
        }
        for (int64_t i = 0; i < m.batch; i++)
            EM__SOLVE(em__cusolver.Xgetrs(h, p, trans, n, k, m.dt, EM__MAT(*lu, m, i), ld,
                                          (const int64_t *)ipiv->data + i * n, m.dt,
                                          EM__MAT(*X, mb, i), ld, (int *)w.dev),
                      "getrs");
    }
done:
    em__work_put(&w);
    em__release(m.id, h);
    return s;
}

em_status em_cuda_getrs(const em_array *lu, const em_array *ipiv, const em_array *b, int trans,
                        em_array *x) {
    em_array X = {0};
    EM_CHECK(em_astype(b, EM_NDTYPES, &X));
    em_status s = em__getrs_in(lu, ipiv, b, trans, &X);
    if (s != EM_OK) return em__undo(s, &X, NULL, NULL, NULL);
    *x = X;
    return EM_OK;
}

/* solve: getrf, then getrs on the copy of b, lu and ipiv dropped once
 * queued (the pool reuses their blocks only after, on this stream). */
em_status em_cuda_gesv(const em_array *a, const em_array *b, em_array *x, em_array *info) {
    em_array lu = {0}, piv = {0}, I = {0}, X = {0};
    EM_CHECK(em_cuda_getrf(a, &lu, &piv, &I));
    em_status s = em_astype(b, EM_NDTYPES, &X);
    if (s == EM_OK) s = em__getrs_in(&lu, &piv, b, 0, &X);
    em_array_release(&lu), em_array_release(&piv);
    if (s != EM_OK) return em__undo(s, &X, &I, NULL, NULL);
    *x = X, *info = I;
    return EM_OK;
}

/* inv: getrf, then getrs against an identity stack made on the device (no
 * host copy, no broadcast copy of it). */
em_status em_cuda_inv(const em_array *a, em_array *x, em_array *info) {
    em_array lu = {0}, piv = {0}, I = {0}, X = {0};
    EM_CHECK(em_cuda_getrf(a, &lu, &piv, &I));
    int64_t n = lu.shape[lu.ndim - 1], batch = n ? em_array_size(&lu) / (n * n) : 0;
    em_status s = em_array_empty(&X, lu.dtype, lu.ndim, lu.shape, em_array_device(&lu));
    if (s == EM_OK)
        s = em_cudalib_eye(em_array_device(&lu).id, em_cudalib_dtype(lu.dtype), n, batch, X.data);
    if (s == EM_OK) s = em__getrs_in(&lu, &piv, &X, 0, &X);
    em_array_release(&lu), em_array_release(&piv);
    if (s != EM_OK) return em__undo(s, &X, &I, NULL, NULL);
    *x = X, *info = I;
    return EM_OK;
}

em_status em_cuda_potrf(const em_array *a, bool upper, em_array *out, em_array *info) {
    em__mats m = {0};
    EM_CHECK(em__describe("potrf", a, true, &m));
    em_array A = {0}, I = {0};
    em__work w = {0};
    cusolverDnHandle h = NULL;
    cusolverDnParams p;
    int64_t n = m.r, ld = n ? n : 1;
    int uplo = upper ? 1 : 0; /* CUBLAS_FILL_MODE_UPPER / LOWER */
    em_status s = em_astype(a, EM_NDTYPES, &A);
    if (s == EM_OK) s = em__info(&m, &I);
    if (s == EM_OK && m.batch && n) {
        size_t nd = 0, nh = 0;
        if ((s = em__handle(m.id, &h, &p)) != EM_OK) goto done;
        if (em__small(&m)) {
            s = em_cudalib_potrf_batched(h, m.id, m.dt, uplo, (int)n, (int)m.batch, A.data,
                                         (int *)I.data);
            goto done;
        }
        EM__SOLVE(em__cusolver.Xpotrf_bufferSize(h, p, uplo, n, m.dt, A.data, ld, m.dt, &nd, &nh),
                  "potrf_bufferSize");
        if ((s = em__work_get(&w, m.id, nd, nh)) != EM_OK) goto done;
        for (int64_t i = 0; i < m.batch; i++)
            EM__SOLVE(em__cusolver.Xpotrf(h, p, uplo, n, m.dt, EM__MAT(A, m, i), ld, m.dt, w.dev,
                                          nd, w.host, nh, (int *)I.data + i),
                      "potrf");
    }
done:
    em__work_put(&w);
    em__release(m.id, h);
    if (s != EM_OK) return em__undo(s, &A, &I, NULL, NULL);
    *out = A, *info = I;
    return EM_OK;
}

/* cholesky: potrf, then the other triangle cleared in place by one kernel
 * (the factor as NumPy returns it, read row-major through a transpose). */
em_status em_cuda_cholesky(const em_array *a, bool upper, em_array *out, em_array *info) {
    em_array F = {0}, I = {0};
    EM_CHECK(em_cuda_potrf(a, upper, &F, &I));
    int64_t n = F.shape[F.ndim - 1], batch = n ? em_array_size(&F) / (n * n) : 0;
    em_status s = em_cudalib_tri_clear(em_array_device(&F).id, upper, n, batch,
                                       em_dtype_get(F.dtype)->size, F.data);
    if (s != EM_OK) return em__undo(s, &F, &I, NULL, NULL);
    *out = F, *info = I;
    return EM_OK;
}

em_status em_cuda_geqrf(const em_array *a, em_array *out, em_array *tau, em_array *info) {
    em__mats m = {0};
    EM_CHECK(em__describe("geqrf", a, false, &m));
    em_array A = {0}, T = {0}, I = {0};
    em__work w = {0};
    cusolverDnHandle h = NULL;
    cusolverDnParams p;
    int64_t rows = m.r, cols = m.c, k = rows < cols ? rows : cols, ld = rows ? rows : 1;
    em_status s = em_astype(a, EM_NDTYPES, &A);
    if (s == EM_OK) s = em__new(&m, m.t, 1, k, 0, &T);
    if (s == EM_OK) s = em__info(&m, &I);
    /* Stacks of small matrices with rows >= cols: cuBLAS's batched QR. */
    bool small = m.batch > 1 && m.batch <= INT_MAX && rows <= EM_CUDALIB_SMALL && rows >= cols &&
                 em_cublasb_init() == EM_OK;
    if (s == EM_OK && m.batch && k) {
        size_t nd = 0, nh = 0;
        if ((s = em__handle(m.id, &h, &p)) != EM_OK) goto done;
        if (small) {
            s = em_cudalib_geqrf_batched(m.id, m.dt, (int)rows, (int)cols, (int)m.batch, A.data,
                                         T.data);
            goto done;
        }
        EM__SOLVE(em__cusolver.Xgeqrf_bufferSize(h, p, rows, cols, m.dt, A.data, ld, m.dt, T.data,
                                                 m.dt, &nd, &nh),
                  "geqrf_bufferSize");
        if ((s = em__work_get(&w, m.id, nd, nh)) != EM_OK) goto done;
        for (int64_t i = 0; i < m.batch; i++)
            EM__SOLVE(em__cusolver.Xgeqrf(h, p, rows, cols, m.dt, EM__MAT(A, m, i), ld, m.dt,
                                          T.data + i * k * m.isz, m.dt, w.dev, nd, w.host, nh,
                                          (int *)I.data + i),
                      "geqrf");
    }
done:
    em__work_put(&w);
    em__release(m.id, h);
    if (s != EM_OK) return em__undo(s, &A, &T, &I, NULL);
    *out = A, *tau = T, *info = I;
    return EM_OK;
}

em_status em_cuda_orgqr(const em_array *a, const em_array *tau, em_array *q, em_array *info) {
    em__mats m = {0};
    EM_CHECK(em__describe("orgqr", a, false, &m));
    int64_t rows = m.r, cols = m.c, k = tau->ndim ? tau->shape[tau->ndim - 1] : -1;
    bool ok = tau->dtype == m.t && tau->ndim == m.nb + 1 && em_array_is_c_contiguous(tau) &&
              em__same_device(tau, m.id) && rows >= cols && cols >= k && k >= 0;
    for (int i = 0; ok && i < m.nb; i++) ok = tau->shape[i] == m.bshape[i];
    if (!ok)
        return em_error(EM_EVALUE, "cuSOLVER orgqr: a (..., ncols, m) with m >= ncols >= k and "
                                   "tau (..., k) of its dtype and batch");
    em_array A = {0}, I = {0};
    em__work w = {0};
    cusolverDnHandle h = NULL;
    cusolverDnParams p;
    int ld = rows ? (int)rows : 1, lwork = 0;
    em_status s = em_astype(a, EM_NDTYPES, &A);
    if (s == EM_OK) s = em__info(&m, &I);
    if (s == EM_OK && m.batch && cols) {
        if ((s = em__handle(m.id, &h, &p)) != EM_OK) goto done;
        int M = (int)rows, N = (int)cols, K = (int)k;
        const void *t0 = tau->data;
        switch (m.t) {
        case EM_FLOAT32:
            EM__SOLVE(em__cusolver.Sorgqr_bufferSize(h, M, N, K, A.data, ld, t0, &lwork), "orgqr");
            break;
        case EM_FLOAT64:
            EM__SOLVE(em__cusolver.Dorgqr_bufferSize(h, M, N, K, A.data, ld, t0, &lwork), "orgqr");
            break;
        case EM_COMPLEX64:
            EM__SOLVE(em__cusolver.Cungqr_bufferSize(h, M, N, K, A.data, ld, t0, &lwork), "ungqr");
            break;
        default:
            EM__SOLVE(em__cusolver.Zungqr_bufferSize(h, M, N, K, A.data, ld, t0, &lwork), "ungqr");
            break;
        }
        if ((s = em__work_get(&w, m.id, (size_t)lwork * (size_t)m.isz, 0)) != EM_OK) goto done;
        for (int64_t i = 0; i < m.batch; i++) {
            void *ai = EM__MAT(A, m, i);
            const void *ti = tau->data + i * k * m.isz;
            int *inf = (int *)I.data + i;
            cusolverStatus r;
            switch (m.t) {
            case EM_FLOAT32:
                r = em__cusolver.Sorgqr(h, M, N, K, ai, ld, ti, w.dev, lwork, inf);
                break;
            case EM_FLOAT64:
                r = em__cusolver.Dorgqr(h, M, N, K, ai, ld, ti, w.dev, lwork, inf);
                break;
            case EM_COMPLEX64:
                r = em__cusolver.Cungqr(h, M, N, K, ai, ld, ti, w.dev, lwork, inf);
                break;
            default: r = em__cusolver.Zungqr(h, M, N, K, ai, ld, ti, w.dev, lwork, inf); break;
            }
            EM__SOLVE(r, "orgqr");
        }
    }
done:
    em__work_put(&w);
    em__release(m.id, h);
    if (s != EM_OK) return em__undo(s, &A, &I, NULL, NULL);
    *q = A, *info = I;
    return EM_OK;
}

/* Batches of real matrices up to 32 x 32 in one Jacobi call; U (m x m)
 * and V (n x n, not V^H) in full, S descending as gesvd's. */
static em_status em__gesvdj_batched(const em__mats *m, cusolverDnHandle h, int job, em_array *A,
                                    em_array *S, em_array *U, em_array *V, em_array *I) {
    gesvdjInfo prm = NULL;
    cusolverStatus r = em__cusolver.cusolverDnCreateGesvdjInfo(&prm);
    if (r) return em__fail(r, "CreateGesvdjInfo");
    int rows = (int)m->r, cols = (int)m->c, nb = (int)m->batch, lwork = 0, jobz = job ? 1 : 0;
    /* U and V are given even without vectors: gesvdjBatched wrote through
     * NULL ones there (an illegal address on the H200, 2026-11-26). */
    void *u = U->data, *v = V->data;
    em_status s = EM_OK;
    em__work w = {0};
    bool f32 = m->t == EM_FLOAT32;
    r = (f32 ? em__cusolver.SgesvdjBatched_bufferSize : em__cusolver.DgesvdjBatched_bufferSize)(
        h, jobz, rows, cols, A->data, rows, S->data, u, rows, v, cols, &lwork, prm, nb);
    if (r) s = em__fail(r, "gesvdjBatched_bufferSize");
    if (s == EM_OK) s = em__work_get(&w, m->id, (size_t)lwork * (size_t)m->isz, 0);
    if (s == EM_OK) {
        r = (f32 ? em__cusolver.SgesvdjBatched : em__cusolver.DgesvdjBatched)(
            h, jobz, rows, cols, A->data, rows, S->data, u, rows, v, cols, w.dev, lwork,
            (int *)I->data, prm, nb);
        if (r) s = em__fail(r, "gesvdjBatched");
    }
    em__work_put(&w);
    em__cusolver.cusolverDnDestroyGesvdjInfo(prm);
    return s;
}

em_status em_cuda_gesvd(const em_array *a, int job, em_array *sv, em_array *u, em_array *vt,
                        em_array *info) {
    em__mats m = {0};
    EM_CHECK(em__describe("gesvd", a, false, &m));
    int64_t rows = m.r, cols = m.c, ld = rows ? rows : 1;
    if (rows < cols || job < 0 || job > 2)
        return em_error(EM_EVALUE,
                        "cuSOLVER gesvd takes m x n matrices with m >= n and job 0, 1 "
                        "or 2 (got %lld x %lld, job %d)",
                        (long long)rows, (long long)cols, job);
    em_array A = {0}, S = {0}, U = {0}, V = {0}, I = {0};
    em__work w = {0};
    cusolverDnHandle h = NULL;
    cusolverDnParams p;
    signed char jobu = job == 0 ? 'N' : job == 1 ? 'S' : 'A', jobvt = job == 0 ? 'N' : 'S';
    int64_t ucols = job == 2 ? rows : cols, ldvt = cols ? cols : 1;
    int drs = em_cudalib_dtype(m.real);
    /* Stacks of small real matrices: one gesvdjBatched call (full U). */
    bool jac = m.batch > 1 && m.batch <= INT_MAX && rows <= EM_CUDALIB_SMALL &&
               (m.t == EM_FLOAT32 || m.t == EM_FLOAT64);
    em_status s = em_astype(a, EM_NDTYPES, &A);
    if (s == EM_OK) s = em__new(&m, m.real, 1, cols, 0, &S);
    if (s == EM_OK && (job || jac)) s = em__new(&m, m.t, 2, jac ? rows : ucols, rows, &U);
    if (s == EM_OK && (job || jac)) s = em__new(&m, m.t, 2, cols, cols, &V);
    if (s == EM_OK) s = em__info(&m, &I);
    if (s == EM_OK && job == 2 && m.batch && rows && !cols) {
        /* No columns: U is still an m x m unitary; the identity serves (NumPy's too). */
        s = em_error(EM_EVALUE, "cuSOLVER gesvd: full U of a matrix without columns");
    }
    if (s == EM_OK && m.batch && cols) {
        size_t nd = 0, nh = 0;
        if ((s = em__handle(m.id, &h, &p)) != EM_OK) goto done;
        if (jac) {
            s = em__gesvdj_batched(&m, h, job, &A, &S, &U, &V, &I);
            goto done;
        }
        EM__SOLVE(em__cusolver.Xgesvd_bufferSize(h, p, jobu, jobvt, rows, cols, m.dt, A.data, ld,
                                                 drs, S.data, m.dt, U.data, ld, m.dt, V.data, ldvt,
                                                 m.dt, &nd, &nh),
                  "gesvd_bufferSize");
        if ((s = em__work_get(&w, m.id, nd, nh)) != EM_OK) goto done;
        int64_t rsz = em_dtype_get(m.real)->size;
        for (int64_t i = 0; i < m.batch; i++)
            EM__SOLVE(em__cusolver.Xgesvd(h, p, jobu, jobvt, rows, cols, m.dt, EM__MAT(A, m, i), ld,
                                          drs, S.data + i * cols * rsz, m.dt,
                                          job ? U.data + i * rows * ucols * m.isz : NULL, ld, m.dt,
                                          job ? V.data + i * cols * cols * m.isz : NULL, ldvt, m.dt,
                                          w.dev, nd, w.host, nh, (int *)I.data + i),
                      "gesvd");
    }
done:
    em__work_put(&w);
    em__release(m.id, h);
    em_array_release(&A);
    if (s != EM_OK) {
        em_array_release(&I);
        return em__undo(s, &S, &U, &V, NULL);
    }
    if (jac && job && m.batch && cols) {
        /* The reduced U: the first n columns of the full one (a view); V^H
         * of a real V: its transpose (a view with the strides swapped). */
        if (job == 1) U.shape[m.nb] = cols;
        int64_t t = V.strides[m.nb];
        V.strides[m.nb] = V.strides[m.nb + 1], V.strides[m.nb + 1] = t;
    }
    *sv = S, *info = I;
    if (job)
        *u = U, *vt = V;
    else
        em_array_release(&U), em_array_release(&V); /* the Jacobi call's scratch */
    return EM_OK;
}

/* One gesvdj of the typed API for dtype t (the four share a signature). */
static cusolverStatus em__gesvdj_one(em_dtype t, cusolverDnHandle h, int jobz, int econ, int m,
                                     int n, void *A, void *S, void *U, int ldu, void *V, int ldv,
                                     void *work, int lwork, int *info, gesvdjInfo p) {
    switch (t) {
    case EM_FLOAT32:
        return em__cusolver.Sgesvdj(h, jobz, econ, m, n, A, m, S, U, ldu, V, ldv, work, lwork, info,
                                    p);
    case EM_FLOAT64:
        return em__cusolver.Dgesvdj(h, jobz, econ, m, n, A, m, S, U, ldu, V, ldv, work, lwork, info,
                                    p);
    case EM_COMPLEX64:
        return em__cusolver.Cgesvdj(h, jobz, econ, m, n, A, m, S, U, ldu, V, ldv, work, lwork, info,
                                    p);
    default:
        return em__cusolver.Zgesvdj(h, jobz, econ, m, n, A, m, S, U, ldu, V, ldv, work, lwork, info,
                                    p);
    }
}

static cusolverStatus em__gesvdj_size(em_dtype t, cusolverDnHandle h, int jobz, int econ, int m,
                                      int n, const void *A, const void *S, const void *U, int ldu,
                                      const void *V, int ldv, int *lwork, gesvdjInfo p) {
    switch (t) {
    case EM_FLOAT32:
        return em__cusolver.Sgesvdj_bufferSize(h, jobz, econ, m, n, A, m, S, U, ldu, V, ldv, lwork,
                                               p);
    case EM_FLOAT64:
        return em__cusolver.Dgesvdj_bufferSize(h, jobz, econ, m, n, A, m, S, U, ldu, V, ldv, lwork,
                                               p);
    case EM_COMPLEX64:
        return em__cusolver.Cgesvdj_bufferSize(h, jobz, econ, m, n, A, m, S, U, ldu, V, ldv, lwork,
                                               p);
    default:
        return em__cusolver.Zgesvdj_bufferSize(h, jobz, econ, m, n, A, m, S, U, ldu, V, ldv, lwork,
                                               p);
    }
}

/* The Jacobi SVD (cudalib.h): stacks of small real matrices in one
 * gesvdjBatched call, anything else one gesvdj per matrix.  U is laid out
 * as gesvd's; V is returned as V (column-major n x n), which the caller
 * reads as V^H row-major after a conjugate (no transpose to make). */
em_status em_cuda_gesvdj(const em_array *a, int job, em_array *sv, em_array *u, em_array *v,
                         em_array *info) {
    em__mats m = {0};
    EM_CHECK(em__describe("gesvdj", a, false, &m));
    int64_t rows = m.r, cols = m.c;
    if (rows < cols || job < 1 || job > 2)
        return em_error(EM_EVALUE,
                        "cuSOLVER gesvdj takes m x n matrices with m >= n and job 1 or 2 "
                        "(got %lld x %lld, job %d)",
                        (long long)rows, (long long)cols, job);
    em_array A = {0}, S = {0}, U = {0}, V = {0}, I = {0};
    em__work w = {0};
    cusolverDnHandle h = NULL;
    cusolverDnParams p;
    gesvdjInfo prm = NULL;
    bool jac = m.batch > 1 && m.batch <= INT_MAX && rows <= EM_CUDALIB_SMALL &&
               (m.t == EM_FLOAT32 || m.t == EM_FLOAT64);
    /* gesvdjBatched has no economy mode: its U is always m x m (viewed down). */
    int econ = job == 1 && !jac;
    int64_t ucols = econ ? cols : rows;
    em_status s = em_astype(a, EM_NDTYPES, &A);
    if (s == EM_OK) s = em__new(&m, m.real, 1, cols, 0, &S);
    if (s == EM_OK) s = em__new(&m, m.t, 2, ucols, rows, &U);
    if (s == EM_OK) s = em__new(&m, m.t, 2, cols, cols, &V);
    if (s == EM_OK) s = em__info(&m, &I);
    if (s == EM_OK && job == 2 && m.batch && rows && !cols)
        s = em_error(EM_EVALUE, "cuSOLVER gesvdj: full U of a matrix without columns");
    if (s == EM_OK && m.batch && cols) {
        if ((s = em__handle(m.id, &h, &p)) != EM_OK) goto done;
        if (jac) {
            s = em__gesvdj_batched(&m, h, job, &A, &S, &U, &V, &I);
            goto done;
        }
        cusolverStatus r = em__cusolver.cusolverDnCreateGesvdjInfo(&prm);
        if (r) {
            s = em__fail(r, "CreateGesvdjInfo");
            goto done;
        }
        int M = (int)rows, N = (int)cols, ldu = M, ldv = N, lwork = 0;
        EM__SOLVE(em__gesvdj_size(m.t, h, 1, econ, M, N, A.data, S.data, U.data, ldu, V.data, ldv,
                                  &lwork, prm),
                  "gesvdj_bufferSize");
        if ((s = em__work_get(&w, m.id, (size_t)lwork * (size_t)m.isz, 0)) != EM_OK) goto done;
        int64_t rsz = em_dtype_get(m.real)->size;
        for (int64_t i = 0; i < m.batch; i++)
            EM__SOLVE(em__gesvdj_one(m.t, h, 1, econ, M, N, EM__MAT(A, m, i),
                                     S.data + i * cols * rsz, U.data + i * rows * ucols * m.isz,
                                     ldu, V.data + i * cols * cols * m.isz, ldv, w.dev, lwork,
                                     (int *)I.data + i, prm),
                      "gesvdj");
    }
done:
    em__work_put(&w);
    if (prm) em__cusolver.cusolverDnDestroyGesvdjInfo(prm);
    em__release(m.id, h);
    em_array_release(&A);
    if (s != EM_OK) {
        em_array_release(&I);
        return em__undo(s, &S, &U, &V, NULL);
    }
    if (job == 1 && !econ) U.shape[m.nb] = cols; /* the reduced U: a view of the full one */
    *sv = S, *u = U, *v = V, *info = I;
    return EM_OK;
}

/* Batches of n <= 32 Hermitian matrices in one Jacobi call. */
static em_status em__syevj_batched(const em__mats *m, cusolverDnHandle h, int jobz, int uplo,
                                   em_array *A, em_array *W, em_array *I) {
    syevjInfo prm = NULL;
    cusolverStatus r = em__cusolver.cusolverDnCreateSyevjInfo(&prm);
    if (r) return em__fail(r, "CreateSyevjInfo");
    int n = (int)m->r, lwork = 0, nb = (int)m->batch;
    em_status s = EM_OK;
    em__work w = {0};
    switch (m->t) {
    case EM_FLOAT32:
        r = em__cusolver.SsyevjBatched_bufferSize(h, jobz, uplo, n, A->data, n, W->data, &lwork,
                                                  prm, nb);
        break;
    case EM_FLOAT64:
        r = em__cusolver.DsyevjBatched_bufferSize(h, jobz, uplo, n, A->data, n, W->data, &lwork,
                                                  prm, nb);
        break;
    case EM_COMPLEX64:
        r = em__cusolver.CheevjBatched_bufferSize(h, jobz, uplo, n, A->data, n, W->data, &lwork,
                                                  prm, nb);
        break;
    default:
        r = em__cusolver.ZheevjBatched_bufferSize(h, jobz, uplo, n, A->data, n, W->data, &lwork,
                                                  prm, nb);
        break;
    }
    if (r) s = em__fail(r, "syevjBatched_bufferSize");
    if (s == EM_OK) s = em__work_get(&w, m->id, (size_t)lwork * (size_t)m->isz, 0);
    if (s == EM_OK) {
        int *inf = (int *)I->data;
        switch (m->t) {
        case EM_FLOAT32:
            r = em__cusolver.SsyevjBatched(h, jobz, uplo, n, A->data, n, W->data, w.dev, lwork, inf,
                                           prm, nb);
            break;
        case EM_FLOAT64:
            r = em__cusolver.DsyevjBatched(h, jobz, uplo, n, A->data, n, W->data, w.dev, lwork, inf,
                                           prm, nb);
            break;
        case EM_COMPLEX64:
            r = em__cusolver.CheevjBatched(h, jobz, uplo, n, A->data, n, W->data, w.dev, lwork, inf,
                                           prm, nb);
            break;
        default:
            r = em__cusolver.ZheevjBatched(h, jobz, uplo, n, A->data, n, W->data, w.dev, lwork, inf,
                                           prm, nb);
            break;
        }
        if (r) s = em__fail(r, "syevjBatched");
    }
    em__work_put(&w);
    em__cusolver.cusolverDnDestroySyevjInfo(prm);
    return s;
}

/* Whether eigh's info is read only where it can be nonzero (the default;
 * EMBER_EIGH_INFO=always reads it every time, for A/B on a device).
 * Cyclic Jacobi (syevjBatched) converges on every finite Hermitian matrix,
 * and syevd's tridiagonal QL / divide and conquer does in practice; what
 * stops them is a value that is not finite or whose square overflows (the
 * off-diagonal norm, the Householder norms).  So the stack's copy (made
 * anyway: the solver overwrites it) also raises a flag for such a value
 * (em__eigh_bound), read through a pinned slot and an event after the
 * solver is queued: an unflagged
 * stack's info is released unread (*info left empty: nothing for the
 * caller to check) and the call returns while the solver runs.  Why:
 * reading info put the host's part of every call after the GPU's (H100,
 * 1000 x 16 x 16 float64: 0.158 ms a call back to back, 0.128 without;
 * CuPy reads no info by default: 0.130). */
static bool em__eigh_look(void) {
    const char *e = getenv("EMBER_EIGH_INFO");
    return !(e && !strcmp(e, "always"));
}

/* The bound: 2^((E - 2 ceil(log2 n) - 8) / 2), E the real dtype's largest
 * exponent (128, 1024), so that n^2 squares of values below it sum to
 * 2^-8 of the range at most (float64 n = 16: 2^504, float32 n = 32: 2^55,
 * n = 4096: 2^48). */
static double em__eigh_bound(em_dtype real, int64_t n) {
    int lg = 0;
    while (lg < 62 && ((int64_t)1 << lg) < n) lg++;
    return ldexp(1.0, ((real == EM_FLOAT32 ? 128 : 1024) - 2 * lg - 8) / 2);
}

em_status em_cuda_syevd(const em_array *a, bool vectors, bool upper, em_array *wout, em_array *v,
                        em_array *info) {
    em__mats m = {0};
    EM_CHECK(em__describe("syevd", a, true, &m));
    em_array A = {0}, W = {0}, I = {0};
    em__work w = {0};
    cusolverDnHandle h = NULL;
    cusolverDnParams p;
    int64_t n = m.r, ld = n ? n : 1;
    int jobz = vectors ? 1 : 0, uplo = upper ? 1 : 0, dw = em_cudalib_dtype(m.real);
    const bool jacobi = n && n <= 32 && m.batch > 1 && m.batch <= INT_MAX;
    em_cudalib_look look = {0, -1};
    em_status s = m.batch && n && em__eigh_look()
                      ? em_cudalib_look_start(a, em__eigh_bound(m.real, n), &A, &look)
                      : em_astype(a, EM_NDTYPES, &A);
    if (s == EM_OK) s = em__new(&m, m.real, 1, n, 0, &W);
    if (s == EM_OK) s = em__info(&m, &I);
    if (s == EM_OK && m.batch && n) {
        if ((s = em__handle(m.id, &h, &p)) != EM_OK) goto done;
        if (jacobi) {
            s = em__syevj_batched(&m, h, jobz, uplo, &A, &W, &I);
            goto done;
        }
        size_t nd = 0, nh = 0;
        EM__SOLVE(em__cusolver.Xsyevd_bufferSize(h, p, jobz, uplo, n, m.dt, A.data, ld, dw, W.data,
                                                 m.dt, &nd, &nh),
                  "syevd_bufferSize");
        if ((s = em__work_get(&w, m.id, nd, nh)) != EM_OK) goto done;
        int64_t rsz = em_dtype_get(m.real)->size;
        for (int64_t i = 0; i < m.batch; i++)
            EM__SOLVE(em__cusolver.Xsyevd(h, p, jobz, uplo, n, m.dt, EM__MAT(A, m, i), ld, dw,
                                          W.data + i * n * rsz, m.dt, w.dev, nd, w.host, nh,
                                          (int *)I.data + i),
                      "syevd");
    }
done:
    em__work_put(&w);
    em__release(m.id, h);
    bool flagged = true;
    em_status s2 = em_cudalib_look_end(&look, &flagged);
    if (s == EM_OK) s = s2;
    if (s != EM_OK) return em__undo(s, &A, &W, &I, NULL);
    if (!flagged) em_array_release(&I), memset(&I, 0, sizeof I);
    *wout = W, *info = I;
    if (vectors)
        *v = A;
    else
        em_array_release(&A);
    return EM_OK;
}
