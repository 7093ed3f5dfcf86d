/* FFTs on CUDA through cuFFT (see include/ember/cudalib.h).
 *
 * One cufftMakePlanMany64 plan per (device, stream, type, sizes, batch),
 * kept in a small cache: making a plan costs far more than running a small
 * transform (CuPy and PyTorch cache them the same way).  Plans are made
 * with auto-allocation off, so the work area comes from Ember's pool at
 * each call and goes back to it when the call is queued: the pool reuses a
 * block only on the stream it was freed on, so the next user of the bytes
 * runs after this transform.  The data use the basic (contiguous) layout:
 * inembed/onembed NULL, distances the product of the sizes. */
#include "backend/cudalib/cudalib.h"

#include <pthread.h>

enum { EM__FFT_CACHE = 32 };
enum {
    EM__R2C = 0x2a,
    EM__C2R = 0x2c,
    EM__C2C = 0x29,
    EM__D2Z = 0x6a,
    EM__Z2D = 0x6c,
    EM__Z2Z = 0x69
};

typedef struct em__plan {
    bool used;
    int dev, type, rank;
    CUstream stream;
    long long n[3], batch;
    cufftHandle h;
    size_t work;
    uint64_t last; /* for LRU eviction */
} em__plan;

static em__plan em__plans[EM__FFT_CACHE];
static uint64_t em__tick;
static int em__created;
static pthread_mutex_t em__fft_lock = PTHREAD_MUTEX_INITIALIZER;

static em_status em__fail(cufftResult r, const char *what) {
    /* cufftResult: 2 ALLOC_FAILED, 4 INVALID_VALUE, 5 INTERNAL_ERROR,
     * 6 EXEC_FAILED, 7 SETUP_FAILED, 8 INVALID_SIZE. */
    return em_error(r == 2 ? EM_ENOMEM : EM_EDEVICE, "cuFFT %s failed (cufftResult %d)", what, r);
}

/* The cached plan for the key, made on a miss (lock held). */
static em_status em__plan_get(int dev, int type, int rank, const long long *n, long long batch,
                              em__plan **out) {
    CUstream s = em_cu_stream();
    em__plan *lru = &em__plans[0];
    for (int i = 0; i < EM__FFT_CACHE; i++) {
        em__plan *p = &em__plans[i];
        if (p->used && p->dev == dev && p->stream == s && p->type == type && p->rank == rank &&
            p->batch == batch && !memcmp(p->n, n, sizeof p->n)) {
            p->last = ++em__tick;
            *out = p;
            return EM_OK;
        }
        if (!p->used || (lru->used && p->last < lru->last)) lru = p;
    }
    if (lru->used) { /* evict: the plan's kernels may still be queued, which cuFFT allows */
        em__cufft.cufftDestroy(lru->h);
        lru->used = false;
    }
    cufftHandle h = 0;
    cufftResult r = em__cufft.cufftCreate(&h);
    if (r) return em__fail(r, "plan creation");
    long long nn[3];
    memcpy(nn, n, sizeof nn);
    size_t work = 0;
    if ((r = em__cufft.cufftSetAutoAllocation(h, 0)) ||
        (r = em__cufft.cufftMakePlanMany64(h, rank, nn, NULL, 1, 0, NULL, 1, 0, type, batch,
                                           &work)) ||
        (r = em__cufft.cufftSetStream(h, s))) {
        em__cufft.cufftDestroy(h);
        return em__fail(r, "planning");
    }
    *lru = (em__plan){true, dev, type, rank, s, {n[0], n[1], n[2]}, batch, h, work, ++em__tick};
    em__created++;
    *out = lru;
    return EM_OK;
}

static em_status em__check(const em_array *x, int rank, int kind, int64_t nlast) {
    em_device d = em_array_device(x);
    if (d.kind != EM_CUDA) return em_error(EM_EDEVICE, "cuFFT takes an array on a CUDA device");
    if (rank < 1 || rank > 3 || rank > x->ndim)
        return em_error(EM_EVALUE,
                        "cuFFT transforms 1 to 3 trailing axes of a %d-d array, "
                        "not %d",
                        x->ndim, rank);
    if (kind < EM_FFT_FORWARD || kind > EM_FFT_C2R)
        return em_error(EM_EVALUE, "unknown FFT kind %d", kind);
    bool real = x->dtype == EM_FLOAT32 || x->dtype == EM_FLOAT64;
    bool cplx = x->dtype == EM_COMPLEX64 || x->dtype == EM_COMPLEX128;
    if (kind == EM_FFT_R2C ? !real : !cplx)
        return em_error(EM_ETYPE, "cuFFT %s takes %s input, got %s",
                        kind == EM_FFT_R2C   ? "R2C"
                        : kind == EM_FFT_C2R ? "C2R"
                                             : "C2C",
                        kind == EM_FFT_R2C ? "float32 or float64" : "complex64 or complex128",
                        em_dtype_get(x->dtype)->name);
    for (int i = x->ndim - rank; i < x->ndim; i++)
        if (x->shape[i] < 1)
            return em_error(EM_EVALUE, "Invalid number of FFT data points (%lld) specified.",
                            (long long)x->shape[i]);
    if (kind == EM_FFT_C2R && (nlast < 1 || x->shape[x->ndim - 1] != nlast / 2 + 1))
        return em_error(EM_EVALUE, "cuFFT C2R of %lld points takes %lld complex inputs, got %lld",
                        (long long)nlast, (long long)(nlast / 2 + 1),
                        (long long)x->shape[x->ndim - 1]);
    return EM_OK;
}

static em_status em__exec(int id, const em_array *in, em_array *res, int rank, int kind,
                          const long long *n, long long batch) {
    bool dbl = in->dtype == EM_FLOAT64 || in->dtype == EM_COMPLEX128;
    int type = kind == EM_FFT_R2C   ? (dbl ? EM__D2Z : EM__R2C)
               : kind == EM_FFT_C2R ? (dbl ? EM__Z2D : EM__C2R)
                                    : (dbl ? EM__Z2Z : EM__C2C);
    EM_CHECK(em_cufft_init());
    EM_CHECK(em_cu_ctx(id));
    pthread_mutex_lock(&em__fft_lock);
    em__plan *p = NULL;
    em_status s = em__plan_get(id, type, rank, n, batch, &p);
    void *work = NULL;
    size_t wbytes = s == EM_OK ? p->work : 0;
    if (s == EM_OK && wbytes) s = em_cu_pool_alloc(id, wbytes, &work);
    cufftResult r = 0;
    if (s == EM_OK && (r = em__cufft.cufftSetWorkArea(p->h, work))) s = em__fail(r, "work area");
    if (s == EM_OK) {
        void *i = in->data, *o = res->data;
        int dir = kind == EM_FFT_INVERSE ? 1 : -1; /* CUFFT_INVERSE, CUFFT_FORWARD */
        switch (type) {
        case EM__C2C: r = em__cufft.cufftExecC2C(p->h, i, o, dir); break;
        case EM__Z2Z: r = em__cufft.cufftExecZ2Z(p->h, i, o, dir); break;
        case EM__R2C: r = em__cufft.cufftExecR2C(p->h, i, o); break;
        case EM__D2Z: r = em__cufft.cufftExecD2Z(p->h, i, o); break;
        case EM__C2R: r = em__cufft.cufftExecC2R(p->h, i, o); break;
        default: r = em__cufft.cufftExecZ2D(p->h, i, o); break;
        }
        if (r) s = em__fail(r, "execution");
    }
    pthread_mutex_unlock(&em__fft_lock);
    if (work) em_cu_pool_free(id, work, wbytes);
    return s;
}

em_status em_cuda_fft(const em_array *x, int rank, int kind, int64_t nlast, em_array *out) {
    EM_CHECK(em__check(x, rank, kind, nlast));
    int nd = x->ndim, id = em_array_device(x).id;
    em_dtype ot = x->dtype;
    if (kind == EM_FFT_R2C) ot = x->dtype == EM_FLOAT32 ? EM_COMPLEX64 : EM_COMPLEX128;
    if (kind == EM_FFT_C2R) ot = x->dtype == EM_COMPLEX64 ? EM_FLOAT32 : EM_FLOAT64;
    int64_t shape[EM_MAXDIMS];
    long long n[3] = {0, 0, 0}, batch = 1;
    for (int i = 0; i < nd; i++) shape[i] = x->shape[i];
    for (int i = 0; i < nd - rank; i++) batch *= x->shape[i];
    for (int i = 0; i < rank; i++) n[i] = x->shape[nd - rank + i];
    if (kind == EM_FFT_R2C) shape[nd - 1] = x->shape[nd - 1] / 2 + 1;
    if (kind == EM_FFT_C2R) shape[nd - 1] = nlast, n[rank - 1] = nlast;
    em_array tmp = {0}, res = {0};
    const em_array *in = x;
    em_status s = em_array_empty(&res, ot, nd, shape, em_array_device(x));
    if (s == EM_OK && batch > 0 && (kind == EM_FFT_C2R || !em_array_is_c_contiguous(x))) {
        s = em_astype(x, EM_NDTYPES, &tmp);
        in = &tmp;
    }
    if (s == EM_OK && batch > 0) s = em__exec(id, in, &res, rank, kind, n, batch);
    em_array_release(&tmp);
    if (s != EM_OK) {
        em_array_release(&res);
        return s;
    }
    *out = res;
    return EM_OK;
}

void em_cuda_fft_plans_clear(void) {
    pthread_mutex_lock(&em__fft_lock);
    for (int i = 0; i < EM__FFT_CACHE; i++)
        if (em__plans[i].used) {
            em__cufft.cufftDestroy(em__plans[i].h);
            em__plans[i].used = false;
        }
    pthread_mutex_unlock(&em__fft_lock);
}

void em_cuda_fft_plans_stats(int *cached, int *created) {
    pthread_mutex_lock(&em__fft_lock);
    int c = 0;
    for (int i = 0; i < EM__FFT_CACHE; i++) c += em__plans[i].used;
    *cached = c, *created = em__created;
    pthread_mutex_unlock(&em__fft_lock);
}
