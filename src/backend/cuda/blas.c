/* Matrix multiply on CUDA through cuBLAS (dlopen'ed like the driver).
 *
 * out (m x n) = a (m x k) @ b (k x n) for 2-d float32 or float64 arrays on
 * one CUDA device.  cuBLAS is column-major: a C-contiguous row-major matrix
 * is its transpose in column-major, so C^T = B^T A^T is computed with the
 * operands swapped; an F-contiguous operand is passed with op T instead.
 * Other layouts are copied to C-contiguous first.  One handle per device,
 * created on first use; the call goes on the thread's current stream.
 */
#include "backend/cuda/cuda_internal.h"

#include <pthread.h>

enum { EM_BLAS_N = 0, EM_BLAS_T = 1 };

static cublasHandle em__handles[EM_CU_MAXDEV];
static pthread_mutex_t em__blas_lock = PTHREAD_MUTEX_INITIALIZER;

static em_status em__handle(int id, cublasHandle *out) {
    EM_CHECK(em_cublas_init());
    EM_CHECK(em_cu_ctx(id));
    pthread_mutex_lock(&em__blas_lock);
    int r = em__handles[id] ? 0 : em__cublas.cublasCreate(&em__handles[id]);
    cublasHandle h = em__handles[id];
    pthread_mutex_unlock(&em__blas_lock);
    if (r != 0) return em_error(EM_EDEVICE, "cublasCreate failed on cuda:%d (status %d)", id, r);
    r = em__cublas.cublasSetStream(h, em_cu_stream());
    if (r != 0) return em_error(EM_EDEVICE, "cublasSetStream failed (status %d)", r);
    *out = h;
    return EM_OK;
}

/* The operand as cuBLAS sees it: op and leading dimension, copying if needed. */
static em_status em__operand(const em_array *x, em_array *tmp, const em_array **use, int *op, int *ld) {
    if (em_array_is_c_contiguous(x)) *use = x, *op = EM_BLAS_N, *ld = (int)(x->shape[1] ? x->shape[1] : 1);
    else if (em_array_is_f_contiguous(x)) *use = x, *op = EM_BLAS_T, *ld = (int)(x->shape[0] ? x->shape[0] : 1);
    else {
        EM_CHECK(em_astype(x, EM_NDTYPES, tmp));
        *use = tmp, *op = EM_BLAS_N, *ld = (int)(x->shape[1] ? x->shape[1] : 1);
    }
    return EM_OK;
}

static em_status em__check(const em_array *a, const em_array *b) {
    if (a->ndim != 2 || b->ndim != 2)
        return em_error(EM_EVALUE, "cuBLAS matmul takes 2-d arrays, got %d-d and %d-d", a->ndim, b->ndim);
    if (a->dtype != b->dtype || (a->dtype != EM_FLOAT32 && a->dtype != EM_FLOAT64))
        return em_error(EM_ETYPE, "cuBLAS matmul takes two float32 or two float64 arrays, got %s and %s",
                        em_dtype_get(a->dtype)->name, em_dtype_get(b->dtype)->name);
    if (a->shape[1] != b->shape[0])
        return em_error(EM_ESHAPE, "matmul: a has %lld columns but b has %lld rows", (long long)a->shape[1],
                        (long long)b->shape[0]);
    for (int i = 0; i < 2; i++)
        if (a->shape[i] > 0x7fffffff || b->shape[i] > 0x7fffffff)
            return em_error(EM_EOVERFLOW, "matmul: dimensions beyond 2^31-1 are not supported by cuBLAS");
    em_device da = em_array_device(a), db = em_array_device(b);
    if (da.kind != EM_CUDA || db.kind != EM_CUDA || da.id != db.id)
        return em_error(EM_EDEVICE, "cuBLAS matmul needs both arrays on one CUDA device");
    return EM_OK;
}

em_status em_cuda_matmul(const em_array *a, const em_array *b, em_array *out) {
    EM_CHECK(em__check(a, b));
    int id = em_array_device(a).id, m = (int)a->shape[0], k = (int)a->shape[1], n = (int)b->shape[1];
    em_array ta = {0}, tb = {0}, res = {0};
    const em_array *ua, *ub;
    int opa, opb, lda, ldb;
    cublasHandle h = NULL;
    int64_t shape[2] = {m, n};
    em_status s = em__operand(a, &ta, &ua, &opa, &lda);
    if (s == EM_OK) s = em__operand(b, &tb, &ub, &opb, &ldb);
    if (s == EM_OK) s = em_array_empty(&res, a->dtype, 2, shape, em_array_device(a));
    if (s == EM_OK && m && n) {
        if (k == 0) s = em_fill(&res, EM_INT32, &(int){0});
        else if ((s = em__handle(id, &h)) == EM_OK) {
            int r;
            if (a->dtype == EM_FLOAT32) {
                const float one = 1, zero = 0;
                r = em__cublas.cublasSgemm(h, opb, opa, n, m, k, &one, (const float *)ub->data, ldb,
                                           (const float *)ua->data, lda, &zero, (float *)res.data, n);
            } else {
                const double one = 1, zero = 0;
                r = em__cublas.cublasDgemm(h, opb, opa, n, m, k, &one, (const double *)ub->data, ldb,
                                           (const double *)ua->data, lda, &zero, (double *)res.data, n);
            }
            if (r != 0) s = em_error(EM_EDEVICE, "cuBLAS gemm failed with status %d", r);
        }
    }
    em_array_release(&ta), em_array_release(&tb);
    if (s != EM_OK) {
        em_array_release(&res);
        return s;
    }
    *out = res;
    return EM_OK;
}
