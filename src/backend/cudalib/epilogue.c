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
 * em_reduce's count_nonzero, the look at a solver's input em_copy_checked's;
 * what is cudalib's own is the pinned slots those numbers come back
 * through. */
#include "backend/cudalib/cudalib.h"

#include <pthread.h>
#include <stdatomic.h>

/* Per device: a pinned block of flag slots, dropped with the context on a
 * reset (em_cu_resets). */
enum { EM__SLOTS = 64 };
typedef struct em__epi {
    int64_t *slots;      /* pinned, EM__SLOTS of them */
    void *ev[EM__SLOTS]; /* a slot's event (em_cudalib_look_*), made on first use */
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
            for (int i = 0; i < EM__SLOTS; i++) atomic_store(&e->busy[i], false), e->ev[i] = NULL;
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

em_status em_cudalib_look_start(const em_array *a, double bound, em_array *out,
                                em_cudalib_look *k) {
    k->slot = -1;
    const em_device d = em_array_device(a);
    if (d.kind != EM_CUDA) return em_error(EM_EDEVICE, "look_start: a CUDA array");
    em__epi *e = NULL;
    EM_CHECK(em__epi_get(d.id, &e));
    EM_CHECK(em_cu_ctx(d.id));
    k->id = d.id, k->slot = em__slot_take(e);
    e->slots[k->slot] = 0;
    /* The slot as a device array: pinned memory is the device's to write
     * at the same address (unified addressing). */
    em_array flag = {0};
    int64_t one = 1;
    CUstream st = em_cu_stream();
    em_status s = em_array_wrap(&flag, &e->slots[k->slot], EM_INT32, 1, &one, NULL, d, NULL, NULL);
    if (s == EM_OK) s = em_copy_checked(a, bound, out, &flag);
    if (s == EM_OK && !e->ev[k->slot]) s = em_cu_event_create(d.id, false, &e->ev[k->slot]);
    if (s == EM_OK) s = em_cu_event_record(d.id, e->ev[k->slot], st);
    em_array_release(&flag);
    if (s != EM_OK) { /* once nothing queued here can still write the slot */
        em_array_release(out);
        em_cu_stream_sync(d.id, st);
        em__slot_give(e, k->slot);
        k->slot = -1;
    }
    return s;
}

em_status em_cudalib_look_end(em_cudalib_look *k, bool *flagged) {
    *flagged = true;
    if (k->slot < 0) return EM_OK;
    em__epi *e = &em__ep[k->id];
    em_status s = em_cu_event_sync(k->id, e->ev[k->slot]);
    if (s == EM_OK) *flagged = e->slots[k->slot] != 0;
    /* Only once the copy has run (or the wait failed, with the context:
     * a fault is sticky): it may write the slot. */
    em__slot_give(e, k->slot);
    k->slot = -1;
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
