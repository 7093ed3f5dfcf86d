/* Matrix multiply on CUDA through cuBLAS (dlopen'ed like the driver, from
 * libcublas.fn).
 *
 * out (..., m, n) = a (..., m, k) @ b (..., k, n) on one CUDA device, for
 * float16/32/64 and complex64/128 stacks with equal batch dimensions (the
 * caller broadcasts them), as one strided-batched gemm.  cuBLAS is
 * column-major: a row-major matrix is its transpose in column-major, so
 * C^T = B^T A^T is computed with the operands swapped; a column-major
 * operand is passed with op T instead.  Broadcast batch dimensions keep
 * stride 0, so nothing is materialised for them.
 * Other layouts are copied to C-contiguous first.  One handle per device,
 * created on first use; the call goes on the thread's current stream.
 */
#include "backend/cuda/libs.h"
#include "backend/dynlib.h"
#include "ember/cuda.h"

#include <pthread.h>
#include <stdio.h>

typedef int cublasStatus;
typedef struct cublasContext *cublasHandle;

#define EM_FN(ret, field, sym, params) ret(*field) params;
static struct {
#include "backend/cudalib/libcublas.fn"
} em__cublas;
#undef EM_FN

static pthread_once_t em__blas_once = PTHREAD_ONCE_INIT;
static char em__blas_why[512]; /* empty once loaded */

static void em__blas_load(void) {
    static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so", NULL};
    void *h = em_dl_open(NULL, names, em__blas_why, sizeof em__blas_why);
    if (!h) em_dl_say("cuBLAS", em__blas_why);
#define EM_FN(ret, field, sym, params)                                         \
    if (h && !(*(void **)&em__cublas.field = dlsym(h, sym))) {                 \
        snprintf(em__blas_why, sizeof em__blas_why, "symbol %s missing", sym); \
        h = NULL;                                                              \
    }
#include "backend/cudalib/libcublas.fn"
#undef EM_FN
}

static em_status em__blas_init(void) {
    pthread_once(&em__blas_once, em__blas_load);
    if (em__blas_why[0]) return em_error(EM_EDEVICE, "cuBLAS is unavailable: %s", em__blas_why);
    return EM_OK;
}

enum { EM_BLAS_N = 0, EM_BLAS_T = 1 };

static cublasHandle em__handles[EM_CU_MAXDEV];
static pthread_mutex_t em__blas_lock = PTHREAD_MUTEX_INITIALIZER;

/* The device was reset (reset.c): the handle belonged to the old context and
 * is dropped without cublasDestroy (which would touch it); a new one is made. */
void em_cu_blas_forget(int id) {
    pthread_mutex_lock(&em__blas_lock);
    if ((unsigned)id < EM_CU_MAXDEV) em__handles[id] = NULL;
    pthread_mutex_unlock(&em__blas_lock);
}

static em_status em__handle(int id, cublasHandle *out) {
    EM_CHECK(em__blas_init());
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

/* cuBLAS's names for our dtypes (cudaDataType_t, cublasComputeType_t). */
enum { EM_R16F = 2, EM_R32F = 0, EM_R64F = 1, EM_C32F = 4, EM_C64F = 5 };
enum { EM_COMPUTE_32F = 68, EM_COMPUTE_64F = 70, EM_GEMM_DEFAULT = -1 };

/* One operand of a strided-batched gemm: a stack of r x c matrices. */
typedef struct em__gop {
    const char *data;
    int op, ld;        /* as cuBLAS sees the column-major view */
    long long bstride; /* elements between consecutive matrices (0: broadcast) */
} em__gop;

/* Whether x's batch dims (all but the last two) collapse to one stride. */
static bool em__batch_stride(const em_array *x, int64_t isz, long long *bs) {
    int nb = x->ndim - 2;
    int64_t st = 0, span = 1;
    bool any = false;
    for (int i = nb - 1; i >= 0; i--) {
        if (x->shape[i] == 1) continue;
        if (!any)
            st = x->strides[i], any = true;
        else if (x->strides[i] != st * span)
            return false;
        span *= x->shape[i];
        if (st == 0 && x->strides[i] != 0) return false;
    }
    if (st % isz) return false;
    *bs = any ? (long long)(st / isz) : 0;
    return true;
}

/* The operand as cuBLAS sees it: op, leading dimension and batch stride,
 * from a copy when the layout has no such description (negative or
 * non-unit inner strides, uneven batch strides). */
static em_status em__operand(const em_array *x, em_array *tmp, em__gop *g) {
    int nd = x->ndim;
    int64_t isz = em_dtype_get(x->dtype)->size, r = x->shape[nd - 2], c = x->shape[nd - 1];
    int64_t sr = x->strides[nd - 2], sc = x->strides[nd - 1];
    for (int pass = 0; pass < 2; pass++) {
        long long bs;
        bool row = (sc == isz || c == 1) && (r == 1 || (sr > 0 && sr % isz == 0 && sr / isz >= c));
        bool col = (sr == isz || r == 1) && (c == 1 || (sc > 0 && sc % isz == 0 && sc / isz >= r));
        if ((row || col) && em__batch_stride(x, isz, &bs) &&
            (row ? (r == 1 ? c : sr / isz) : (c == 1 ? r : sc / isz)) <= 0x7fffffff) {
            g->data = x->data, g->bstride = bs;
            if (row)
                g->op = EM_BLAS_N, g->ld = (int)(r == 1 ? (c ? c : 1) : sr / isz);
            else
                g->op = EM_BLAS_T, g->ld = (int)(c == 1 ? (r ? r : 1) : sc / isz);
            if (g->ld < 1) g->ld = 1;
            return EM_OK;
        }
        if (pass) break;
        EM_CHECK(em_astype(x, EM_NDTYPES, tmp));
        x = tmp, sr = x->strides[nd - 2], sc = x->strides[nd - 1];
    }
    return em_error(EM_EVALUE, "matmul: no cuBLAS layout for an operand (internal error)");
}

static em_status em__check(const em_array *a, const em_array *b) {
    if (a->ndim < 2 || a->ndim != b->ndim)
        return em_error(EM_EVALUE,
                        "cuBLAS matmul takes two arrays of the same ndim >= 2, got %d-d and %d-d",
                        a->ndim, b->ndim);
    em_dtype t = a->dtype;
    if (b->dtype != t || (t != EM_FLOAT16 && t != EM_FLOAT32 && t != EM_FLOAT64 &&
                          t != EM_COMPLEX64 && t != EM_COMPLEX128))
        return em_error(EM_ETYPE,
                        "cuBLAS matmul takes two arrays of one dtype among float16, float32, "
                        "float64, complex64 and complex128, got %s and %s",
                        em_dtype_get(a->dtype)->name, em_dtype_get(b->dtype)->name);
    int nd = a->ndim;
    for (int i = 0; i < nd - 2; i++)
        if (a->shape[i] != b->shape[i])
            return em_error(EM_ESHAPE,
                            "cuBLAS matmul: batch dimensions differ (broadcast them first)");
    if (a->shape[nd - 1] != b->shape[nd - 2])
        return em_error(EM_ESHAPE, "matmul: a has %lld columns but b has %lld rows",
                        (long long)a->shape[nd - 1], (long long)b->shape[nd - 2]);
    for (int i = nd - 2; i < nd; i++)
        if (a->shape[i] > 0x7fffffff || b->shape[i] > 0x7fffffff)
            return em_error(EM_EOVERFLOW,
                            "matmul: dimensions beyond 2^31-1 are not supported by cuBLAS");
    em_device da = em_array_device(a), db = em_array_device(b);
    if (da.kind != EM_CUDA || db.kind != EM_CUDA || da.id != db.id)
        return em_error(EM_EDEVICE, "cuBLAS matmul needs both arrays on one CUDA device");
    return EM_OK;
}

/* The gemm on a stack: C^T = B^T A^T in cuBLAS's column-major terms, so
 * the row-major output needs no transpose.  float16 accumulates in float32
 * (as NumPy does); float32 stays full precision (no TF32), like PyTorch's
 * default. */
static em_status em__gemm(int id, em_dtype t, const em__gop *ga, const em__gop *gb, char *c, int m,
                          int n, int k, int64_t batch) {
    cublasHandle h = NULL;
    EM_CHECK(em__handle(id, &h));
    double one[2] = {1, 0}, zero[2] = {0, 0};
    float onef[2] = {1, 0}, zerof[2] = {0, 0};
    int dt, compute = EM_COMPUTE_32F;
    const void *al = onef, *be = zerof;
    switch (t) {
    case EM_FLOAT16: dt = EM_R16F; break;
    case EM_FLOAT32: dt = EM_R32F; break;
    case EM_COMPLEX64: dt = EM_C32F; break;
    case EM_FLOAT64: dt = EM_R64F, compute = EM_COMPUTE_64F, al = one, be = zero; break;
    default: dt = EM_C64F, compute = EM_COMPUTE_64F, al = one, be = zero; break;
    }
    /* One product through the plain gemm, as PyTorch calls it: cuBLAS may
     * pick its kernel differently for a batch of one (float16 8192^3 on the
     * H100 read 93-100 % of PyTorch's rate through the batched call). */
    if (batch == 1) {
        int r =
            em__cublas.cublasGemmEx(h, gb->op, ga->op, n, m, k, al, gb->data, dt, gb->ld, ga->data,
                                    dt, ga->ld, be, c, dt, n, compute, EM_GEMM_DEFAULT);
        return r ? em_error(EM_EDEVICE, "cuBLAS gemm failed with status %d", r) : EM_OK;
    }
    /* cuBLAS counts batches in int: larger stacks go in slices. */
    int64_t isz = em_dtype_get(t)->size;
    for (int64_t b0 = 0; b0 < batch; b0 += 0x7fffffff) {
        int nb = (int)(batch - b0 < 0x7fffffff ? batch - b0 : 0x7fffffff);
        int r = em__cublas.cublasGemmStridedBatchedEx(
            h, gb->op, ga->op, n, m, k, al, gb->data + b0 * gb->bstride * isz, dt, gb->ld,
            gb->bstride, ga->data + b0 * ga->bstride * isz, dt, ga->ld, ga->bstride, be,
            c + b0 * (int64_t)m * n * isz, dt, n, (long long)m * n, nb, compute, EM_GEMM_DEFAULT);
        if (r != 0) return em_error(EM_EDEVICE, "cuBLAS gemm failed with status %d", r);
    }
    return EM_OK;
}

em_status em_cuda_matmul(const em_array *a, const em_array *b, em_array *out) {
    EM_CHECK(em__check(a, b));
    int nd = a->ndim, id = em_array_device(a).id;
    int m = (int)a->shape[nd - 2], k = (int)a->shape[nd - 1], n = (int)b->shape[nd - 1];
    int64_t shape[EM_MAXDIMS], batch = 1;
    for (int i = 0; i < nd - 2; i++) shape[i] = a->shape[i], batch *= a->shape[i];
    shape[nd - 2] = m, shape[nd - 1] = n;
    em_array ta = {0}, tb = {0}, res = {0};
    em__gop ga, gb;
    em_status s = em_array_empty(&res, a->dtype, nd, shape, em_array_device(a));
    if (s == EM_OK && batch && m && n) {
        if (k == 0) {
            char zero[16] = {0};
            s = em_fill(&res, a->dtype, zero);
        } else {
            s = em__operand(a, &ta, &ga);
            if (s == EM_OK) s = em__operand(b, &tb, &gb);
            if (s == EM_OK) s = em__gemm(id, a->dtype, &ga, &gb, res.data, m, n, k, batch);
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
