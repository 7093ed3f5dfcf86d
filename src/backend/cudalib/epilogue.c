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
 * read that NumPy's semantics (raise at the call) need.
 *
 * The kernels are codegen's (this folder only loads and launches): the
 * triangle and the identities are em_index_fill's, the info check
 * em_reduce's count_nonzero; what is cudalib's own is the pinned slot the
 * check's one number comes back through. */
#include "backend/cudalib/cudalib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

/* Per device: a pinned block of flag slots, dropped with the context on a
 * reset (em_cu_resets). */
enum { EM__SLOTS = 64 };
typedef struct em__epi {
    int64_t *slots; /* pinned, EM__SLOTS of them */
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
        void *slots = NULL;
        s = em_cu_host_alloc(id, EM__SLOTS * sizeof(int64_t), false, &slots);
        if (s == EM_OK) {
            /* The slots of before a reset went with the old context. */
            e->slots = slots, e->resets = gen, e->ready = true;
            for (int i = 0; i < EM__SLOTS; i++) atomic_store(&e->busy[i], false);
        }
    }
    pthread_mutex_unlock(&em__ep_lock);
    *out = e;
    return s;
}

/* A stack of batch n x n matrices at A as an array of dtype dt's size isz
 * (any dtype of that size: the fills below write bits), borrowed. */
static em_status em__stack(int id, int64_t n, int64_t batch, em_dtype dt, char *A, em_array *out) {
    int64_t sh[3] = {batch, n, n};
    return em_array_wrap(out, A, dt, 3, sh, NULL, (em_device){EM_CUDA, id}, NULL, NULL);
}

static em_status em__fill(int id, int64_t n, int64_t batch, em_dtype dt, char *A,
                          em_index_fill_kind kind) {
    if (!n || !batch) return EM_OK;
    em_array M = {0};
    EM_CHECK(em__stack(id, n, batch, dt, A, &M));
    em_status s = em_index_fill(&M, kind, 0, 0);
    em_array_release(&M);
    return s;
}

/* The factor is column-major: its upper triangle is the lower of the
 * row-major stack the fill sees. */
em_status em_cudalib_tri_clear(int id, int upper, int64_t n, int64_t batch, int64_t isz, char *A) {
    em_dtype dt = isz == 4 ? EM_FLOAT32 : isz == 8 ? EM_FLOAT64 : EM_COMPLEX128;
    return em__fill(id, n, batch, dt, A, upper ? EM_IFILL_TRIL : EM_IFILL_TRIU);
}

em_status em_cudalib_eye(int id, int dt, int64_t n, int64_t batch, char *A) {
    static const em_dtype of[] = {EM_FLOAT32, EM_FLOAT64, EM_NDTYPES, EM_NDTYPES, EM_COMPLEX64};
    em_dtype t = dt >= 0 && dt < 5 && of[dt] != EM_NDTYPES ? of[dt] : EM_COMPLEX128;
    return em__fill(id, n, batch, t, A, EM_IFILL_EYE);
}

/* A free slot (one per concurrent caller on this device), and back. */
static int em__slot_take(em__epi *e) {
    for (;;)
        for (int i = 0; i < EM__SLOTS; i++) {
            bool no = false;
            if (atomic_compare_exchange_strong(&e->busy[i], &no, true)) return i;
        }
}

static void em__slot_give(em__epi *e, int i) {
    if (i >= 0) atomic_store(&e->busy[i], false);
}

/* The stack's smallest and largest real parts (a complex stack read as
 * twice as many reals; NaN propagates, as NumPy's min / max) queued into
 * two pinned slots, then an event: em_cudalib_bounded_end waits for that
 * event alone, not for the solver queued after it. */
em_status em_cudalib_bounded_start(const em_array *A, double bound, em_cudalib_bound *b) {
    memset(b, 0, sizeof *b);
    b->slot[0] = b->slot[1] = -1;
    const em_device d = em_array_device(A);
    const em_dtype t = A->dtype;
    const em_dtype rt = t == EM_COMPLEX64 ? EM_FLOAT32 : t == EM_COMPLEX128 ? EM_FLOAT64 : t;
    if (d.kind != EM_CUDA || (rt != EM_FLOAT32 && rt != EM_FLOAT64) || !em_array_is_c_contiguous(A))
        return em_error(EM_EVALUE, "bounded_start: a C-contiguous float or complex CUDA array");
    b->id = d.id, b->rt = rt, b->bound = bound;
    em__epi *e = NULL;
    EM_CHECK(em__epi_get(d.id, &e));
    EM_CHECK(em_cu_ctx(d.id));
    int64_t nr = em_array_size(A) * (rt == t ? 1 : 2);
    em_array R = {0}, r[2] = {{0}, {0}};
    em_status s = em_array_wrap(&R, A->data, rt, 1, &nr, NULL, d, NULL, NULL);
    CUstream st = em_cu_stream();
    for (int k = 0; k < 2 && s == EM_OK; k++) {
        b->slot[k] = em__slot_take(e);
        s = em_reduce(k ? EM_RED_MAX : EM_RED_MIN, &R, -1, NULL, false, EM_NDTYPES, 0, &r[k]);
        if (s == EM_OK)
            s = em_cu_to_host_async(d.id, &e->slots[b->slot[k]], r[k].data,
                                    (size_t)em_dtype_get(rt)->size, st);
    }
    if (s == EM_OK) s = em_cu_event_create(d.id, false, &b->ev);
    if (s == EM_OK) s = em_cu_event_record(d.id, b->ev, st);
    /* the pool's again once the stream is past them */
    em_array_release(&r[0]), em_array_release(&r[1]), em_array_release(&R);
    if (s != EM_OK) {
        bool unused;
        em_cudalib_bounded_end(b, &unused);
    }
    return s;
}

em_status em_cudalib_bounded_end(em_cudalib_bound *b, bool *inside) {
    *inside = false;
    em__epi *e = &em__ep[b->id];
    em_status s = EM_OK;
    if (b->ev) {
        s = em_cu_event_sync(b->id, b->ev);
        if (s == EM_OK && b->slot[0] >= 0 && b->slot[1] >= 0) {
            double lo, hi;
            if (b->rt == EM_FLOAT32) {
                float f[2];
                memcpy(&f[0], &e->slots[b->slot[0]], sizeof(float));
                memcpy(&f[1], &e->slots[b->slot[1]], sizeof(float));
                lo = f[0], hi = f[1];
            } else {
                memcpy(&lo, &e->slots[b->slot[0]], sizeof lo);
                memcpy(&hi, &e->slots[b->slot[1]], sizeof hi);
            }
            *inside = lo > -b->bound && hi < b->bound; /* false for a NaN */
        }
        em_cu_event_destroy(b->id, b->ev);
        b->ev = NULL;
    }
    /* Only once the event has passed: the queued copies wrote the slots. */
    em__slot_give(e, b->slot[0]), em__slot_give(e, b->slot[1]);
    b->slot[0] = b->slot[1] = -1;
    return s;
}

em_status em_cuda_info_failed(const em_array *info, bool *failed) {
    *failed = false;
    em_device d = em_array_device(info);
    if (d.kind != EM_CUDA || info->dtype != EM_INT32 || !em_array_is_c_contiguous(info))
        return em_error(EM_EVALUE, "info_failed: a C-contiguous int32 CUDA array");
    int64_t n = em_array_size(info);
    if (!n) return EM_OK;
    em__epi *e = NULL;
    EM_CHECK(em__epi_get(d.id, &e));
    EM_CHECK(em_cu_ctx(d.id));
    int slot = em__slot_take(e);
    em_status s = EM_OK;
    const void *src = info->data;
    size_t nb = sizeof(int32_t);
    em_array cnt = {0};
    if (n > 1) { /* the stack's nonzero infos counted into one device int64 */
        s = em_reduce(EM_RED_COUNT_NONZERO, info, -1, NULL, false, EM_NDTYPES, 0, &cnt);
        if (s == EM_OK) src = cnt.data, nb = sizeof(int64_t);
    }
    /* A pinned destination: the copy is queued, and the one wait below is
     * the stream's, not a staged pageable copy's. */
    CUstream st = em_cu_stream();
    e->slots[slot] = 0; /* an int32 fills its low half (little-endian) */
    if (s == EM_OK) s = em_cu_to_host_async(d.id, &e->slots[slot], src, nb, st);
    if (s == EM_OK) s = em_cu_stream_sync(d.id, st);
    if (s == EM_OK) *failed = e->slots[slot] != 0;
    em_array_release(&cnt); /* the pool's again once the stream is past it (it is) */
    em__slot_give(e, slot);
    return s;
}
