/* What runs around a factorization of small matrices, so that a 64 x 64
 * solve or cholesky costs one C call and no Python-side kernels
 * (include/ember/cudalib.h): the info check (one flag, read through a
 * pinned slot), the other triangle of a Cholesky factor cleared in place,
 * and the identity that inv solves against, made on the device.
 *
 * Why: on the H100 a 64^2 solve took 0.201 ms against CuPy's 0.151 and a
 * cholesky 0.096 against 0.059 (bench/RESULTS.md, h100_linalg), the
 * difference being host work per call -- Python's any(info) reduction and
 * a pageable read of its result, tril's fused kernel, eye + broadcast +
 * the getrs copy of it -- while the GPU waited for the host after the one
 * read that NumPy's semantics (raise at the call) need. */
#include "backend/cudalib/cudalib.h"

#include <pthread.h>
#include <stdatomic.h>

static const char em__epi_src[] =
    "extern \"C\" __global__ void em_cudalib_any(const int *info, long long n, int *flag) {\n"
    "    int v = 0;\n"
    "    for (long long i = threadIdx.x; i < n; i += blockDim.x) v |= info[i];\n"
    "    v = __syncthreads_or(v != 0);\n"
    "    if (threadIdx.x == 0) *flag = v;\n"
    "}\n"
    "template <class T> __device__ void em_tri(T *a, long long n, long long total, int upper) {\n"
    "    long long step = (long long)gridDim.x * blockDim.x;\n"
    "    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;\n"
    "         e += step) {\n"
    "        long long k = e % (n * n), j = k / n, i = k % n; /* row i, column j */\n"
    "        if (upper ? i > j : j > i) a[e] = T();\n"
    "    }\n"
    "}\n"
    "template <class T> __device__ void em_eye(T *a, long long n, long long total, T one) {\n"
    "    long long step = (long long)gridDim.x * blockDim.x;\n"
    "    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;\n"
    "         e += step) {\n"
    "        long long k = e % (n * n);\n"
    "        a[e] = k / n == k % n ? one : T();\n"
    "    }\n"
    "}\n"
    "struct em_c8 { float re, im; };\n" /* no vector types: NVRTC may run -minimal */
    "struct em_c16 { double re, im; };\n"
    "extern \"C\" __global__ void em_cudalib_tri(void *a, long long n, long long total,\n"
    "        int upper, int isz) {\n"
    "    if (isz == 4) em_tri((unsigned *)a, n, total, upper);\n"
    "    else if (isz == 8) em_tri((unsigned long long *)a, n, total, upper);\n"
    "    else em_tri((em_c16 *)a, n, total, upper);\n"
    "}\n"
    "extern \"C\" __global__ void em_cudalib_eye(void *a, long long n, long long total, int dt) {\n"
    "    if (dt == 0) em_eye((float *)a, n, total, 1.0f);\n"
    "    else if (dt == 1) em_eye((double *)a, n, total, 1.0);\n"
    "    else if (dt == 4) em_eye((em_c8 *)a, n, total, em_c8{1.0f, 0.0f});\n"
    "    else em_eye((em_c16 *)a, n, total, em_c16{1.0, 0.0});\n"
    "}\n";

enum { EM__ANY, EM__TRI, EM__EYE, EM__NFN };
static const char *const em__epi_names[EM__NFN] = {"em_cudalib_any", "em_cudalib_tri",
                                                   "em_cudalib_eye"};

/* Per device: the module's functions and a pinned block of flag slots,
 * both dropped with the context on a reset (em_cu_resets). */
enum { EM__SLOTS = 64 };
typedef struct em__epi {
    void *fn[EM__NFN];
    int *slots; /* pinned, EM__SLOTS ints */
    atomic_bool busy[EM__SLOTS];
    unsigned resets;
    bool ready;
} em__epi;
static em__epi em__ep[EM_CU_MAXDEV];
static pthread_mutex_t em__ep_lock = PTHREAD_MUTEX_INITIALIZER;

static em_status em__epi_get(int id, em__epi **out) {
    if (id < 0 || id >= EM_CU_MAXDEV) return em_error(EM_EDEVICE, "cuda:%d: no such device", id);
    pthread_mutex_lock(&em__ep_lock);
    em__epi *e = &em__ep[id];
    em_status s = EM_OK;
    unsigned gen = em_cu_resets();
    if (!e->ready || e->resets != gen) {
        em_build_opts o = {0};
        void *mod = NULL, *fn[EM__NFN] = {0}, *slots = NULL;
        s = em_cu_module_build(id, em__epi_src, "em_cudalib_epilogue", &o, &mod, NULL);
        for (int i = 0; s == EM_OK && i < EM__NFN; i++)
            s = em_cu_function(id, mod, em__epi_names[i], &fn[i]);
        if (s == EM_OK) s = em_cu_host_alloc(id, EM__SLOTS * sizeof(int), false, &slots);
        if (s == EM_OK) {
            /* The slots of before a reset went with the old context. */
            memcpy(e->fn, fn, sizeof fn);
            e->slots = slots, e->resets = gen, e->ready = true;
            for (int i = 0; i < EM__SLOTS; i++) atomic_store(&e->busy[i], false);
        }
    }
    pthread_mutex_unlock(&em__ep_lock);
    *out = e;
    return s;
}

static em_status em__launch1d(int id, void *fn, const char *name, int64_t total, void **params) {
    int64_t blocks = (total + 255) / 256;
    unsigned block[3] = {256, 1, 1}, grid[3] = {(unsigned)(blocks > 65535 ? 65535 : blocks), 1, 1};
    return em_cu_launch(id, fn, name, grid, block, 0, EM_STREAM_CURRENT, params);
}

em_status em_cudalib_tri_clear(int id, int upper, int64_t n, int64_t batch, int64_t isz, char *A) {
    em__epi *e;
    EM_CHECK(em__epi_get(id, &e));
    long long nn = n, total = n * n * batch;
    int up = upper, sz = (int)isz;
    void *a = A;
    void *params[] = {&a, &nn, &total, &up, &sz};
    return total ? em__launch1d(id, e->fn[EM__TRI], "em_cudalib_tri", total, params) : EM_OK;
}

em_status em_cudalib_eye(int id, int dt, int64_t n, int64_t batch, char *A) {
    em__epi *e;
    EM_CHECK(em__epi_get(id, &e));
    long long nn = n, total = n * n * batch;
    int d = dt;
    void *a = A;
    void *params[] = {&a, &nn, &total, &d};
    return total ? em__launch1d(id, e->fn[EM__EYE], "em_cudalib_eye", total, params) : EM_OK;
}

em_status em_cuda_info_failed(const em_array *info, bool *failed) {
    *failed = false;
    em_device d = em_array_device(info);
    if (d.kind != EM_CUDA || info->dtype != EM_INT32 || !em_array_is_c_contiguous(info))
        return em_error(EM_EVALUE, "info_failed: a C-contiguous int32 CUDA array");
    int64_t n = em_array_size(info);
    if (!n) return EM_OK;
    em__epi *e;
    EM_CHECK(em__epi_get(d.id, &e));
    EM_CHECK(em_cu_ctx(d.id));
    /* A free slot (one per concurrent caller on this device). */
    int slot = -1;
    while (slot < 0) {
        for (int i = 0; i < EM__SLOTS && slot < 0; i++) {
            bool no = false;
            if (atomic_compare_exchange_strong(&e->busy[i], &no, true)) slot = i;
        }
    }
    em_status s = EM_OK;
    const void *src = info->data;
    void *flag = NULL;
    if (n > 1) { /* one block ORs the stack's infos into one device int */
        s = em_cu_pool_alloc(d.id, sizeof(int), &flag);
        long long nl = n;
        const void *in = info->data;
        void *params[] = {(void *)&in, &nl, &flag};
        unsigned block[3] = {1024, 1, 1}, grid[3] = {1, 1, 1};
        if (s == EM_OK)
            s = em_cu_launch(d.id, e->fn[EM__ANY], "em_cudalib_any", grid, block, 0,
                             EM_STREAM_CURRENT, params);
        src = flag;
    }
    /* A pinned destination: the copy is queued, and the one wait below is
     * the stream's, not a staged pageable copy's. */
    CUstream st = em_cu_stream();
    if (s == EM_OK) s = em_cu_to_host_async(d.id, &e->slots[slot], src, sizeof(int), st);
    if (s == EM_OK) s = em_cu_stream_sync(d.id, st);
    if (s == EM_OK) *failed = e->slots[slot] != 0;
    if (flag) em_cu_pool_free(d.id, flag, sizeof(int));
    atomic_store(&e->busy[slot], false);
    return s;
}
