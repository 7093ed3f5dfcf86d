/* Stacks of small matrices in one library call (cudalib.h, "batched.c"):
 * cuBLAS's getrfBatched / getrsBatched and cuSOLVER's potrfBatched.  A
 * loop of one cuSOLVER call per matrix costs microseconds of host time
 * each, which for 10^4 8 x 8 matrices is the whole run; these calls do the
 * stack in one launch sequence.  They take arrays of device pointers, one
 * per matrix, written on the device (em__ptrs).  cudalib keeps
 * its own cuBLAS handle per device (bound to the current stream under the
 * solver's device lock, which the caller holds). */
#include "backend/cudalib/cudalib.h"

#include <pthread.h>
#include <stdlib.h>

static cublasHandle em__bh[EM_CU_MAXDEV];
static pthread_mutex_t em__bh_lock = PTHREAD_MUTEX_INITIALIZER;

static em_status em__blas(int id, cublasHandle *out) {
    EM_CHECK(em_cublasb_init());
    pthread_mutex_lock(&em__bh_lock);
    int r = em__bh[id] ? 0 : em__cublasb.cublasCreate(&em__bh[id]);
    cublasHandle h = em__bh[id];
    pthread_mutex_unlock(&em__bh_lock);
    if (r) return em_error(EM_EDEVICE, "cublasCreate failed on cuda:%d (status %d)", id, r);
    if ((r = em__cublasb.cublasSetStream(h, em_cu_stream())))
        return em_error(EM_EDEVICE, "cublasSetStream failed (status %d)", r);
    *out = h;
    return EM_OK;
}

/* The pointer arrays are written on the device by one small kernel
 * (em_index_fill's STEP, rendered in codegen), queued on the current stream
 * like the call that reads them: a copy from the host (the first version)
 * made the host wait for the stream on every call, which left the GPU idle
 * between calls (the batched rows trailed PyTorch's by 30-50 %, whose
 * arrays are made on the device too).  A device array of batch pointers
 * base + i * step (bytes). */
static em_status em__ptrs(int id, char *base, size_t step, int batch, em_array *out) {
    int64_t sh[1] = {batch};
    EM_CHECK(em_array_empty(out, EM_UINT64, 1, sh, (em_device){EM_CUDA, id}));
    em_status s = em_index_fill(out, EM_IFILL_STEP, (uint64_t)(uintptr_t)base, (uint64_t)step);
    if (s != EM_OK) em_array_release(out);
    return s;
}

static size_t em__isz(int dt) { return dt == 0 ? 4 : dt == 1 || dt == 4 ? 8 : 16; }

em_status em_cudalib_getrf_batched(int id, int dt, int n, int batch, char *A, int *ipiv,
                                   int *info) {
    cublasHandle h = NULL;
    EM_CHECK(em__blas(id, &h));
    em_array P = {0};
    EM_CHECK(em__ptrs(id, A, em__isz(dt) * (size_t)n * (size_t)n, batch, &P));
    void *const *pa = (void *const *)P.data;
    int r;
    switch (dt) {
    case 0: r = em__cublasb.SgetrfBatched(h, n, pa, n, ipiv, info, batch); break;
    case 1: r = em__cublasb.DgetrfBatched(h, n, pa, n, ipiv, info, batch); break;
    case 4: r = em__cublasb.CgetrfBatched(h, n, pa, n, ipiv, info, batch); break;
    default: r = em__cublasb.ZgetrfBatched(h, n, pa, n, ipiv, info, batch); break;
    }
    em_array_release(&P); /* queued: the pool reuses it only after, on this stream */
    return r ? em_error(EM_EDEVICE, "cuBLAS getrfBatched failed (status %d)", r) : EM_OK;
}

em_status em_cudalib_getrs_batched(int id, int dt, int trans, int n, int k, int batch, char *lu,
                                   const int *ipiv, char *B) {
    cublasHandle h = NULL;
    EM_CHECK(em__blas(id, &h));
    size_t isz = em__isz(dt);
    em_array PA = {0}, PB = {0};
    EM_CHECK(em__ptrs(id, lu, isz * (size_t)n * (size_t)n, batch, &PA));
    em_status s = em__ptrs(id, B, isz * (size_t)n * (size_t)k, batch, &PB);
    if (s != EM_OK) {
        em_array_release(&PA);
        return s;
    }
    const void *const *pa = (const void *const *)PA.data;
    void *const *pb = (void *const *)PB.data;
    int hinfo = 0, r; /* getrsBatched's info is a host int: argument checks only */
    switch (dt) {
    case 0: r = em__cublasb.SgetrsBatched(h, trans, n, k, pa, n, ipiv, pb, n, &hinfo, batch); break;
    case 1: r = em__cublasb.DgetrsBatched(h, trans, n, k, pa, n, ipiv, pb, n, &hinfo, batch); break;
    case 4: r = em__cublasb.CgetrsBatched(h, trans, n, k, pa, n, ipiv, pb, n, &hinfo, batch); break;
    default:
        r = em__cublasb.ZgetrsBatched(h, trans, n, k, pa, n, ipiv, pb, n, &hinfo, batch);
        break;
    }
    em_array_release(&PA), em_array_release(&PB);
    if (r || hinfo)
        return em_error(EM_EDEVICE, "cuBLAS getrsBatched failed (status %d, info %d)", r, hinfo);
    return EM_OK;
}

em_status em_cudalib_geqrf_batched(int id, int dt, int m, int n, int batch, char *A, char *tau) {
    cublasHandle h = NULL;
    EM_CHECK(em__blas(id, &h));
    size_t isz = em__isz(dt);
    int k = m < n ? m : n;
    em_array PA = {0}, PT = {0};
    EM_CHECK(em__ptrs(id, A, isz * (size_t)m * (size_t)n, batch, &PA));
    em_status s = em__ptrs(id, tau, isz * (size_t)k, batch, &PT);
    if (s != EM_OK) {
        em_array_release(&PA);
        return s;
    }
    void *const *pa = (void *const *)PA.data, *const *pt = (void *const *)PT.data;
    int hinfo = 0, r;
    switch (dt) {
    case 0: r = em__cublasb.SgeqrfBatched(h, m, n, pa, m, pt, &hinfo, batch); break;
    case 1: r = em__cublasb.DgeqrfBatched(h, m, n, pa, m, pt, &hinfo, batch); break;
    case 4: r = em__cublasb.CgeqrfBatched(h, m, n, pa, m, pt, &hinfo, batch); break;
    default: r = em__cublasb.ZgeqrfBatched(h, m, n, pa, m, pt, &hinfo, batch); break;
    }
    em_array_release(&PA), em_array_release(&PT);
    if (r || hinfo)
        return em_error(EM_EDEVICE, "cuBLAS geqrfBatched failed (status %d, info %d)", r, hinfo);
    return EM_OK;
}

em_status em_cudalib_potrf_batched(cusolverDnHandle h, int id, int dt, int upper, int n, int batch,
                                   char *A, int *info) {
    em_array P = {0};
    EM_CHECK(em__ptrs(id, A, em__isz(dt) * (size_t)n * (size_t)n, batch, &P));
    void **pa = (void **)P.data;
    int r, uplo = upper ? 1 : 0;
    switch (dt) {
    case 0: r = em__cusolver.SpotrfBatched(h, uplo, n, pa, n, info, batch); break;
    case 1: r = em__cusolver.DpotrfBatched(h, uplo, n, pa, n, info, batch); break;
    case 4: r = em__cusolver.CpotrfBatched(h, uplo, n, pa, n, info, batch); break;
    default: r = em__cusolver.ZpotrfBatched(h, uplo, n, pa, n, info, batch); break;
    }
    em_array_release(&P);
    return r ? em_error(EM_EDEVICE, "cuSOLVER potrfBatched failed (status %d)", r) : EM_OK;
}
