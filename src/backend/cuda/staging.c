/* Staged copies between pageable host memory and a device.
 *
 * The driver copies pageable memory through small pinned buffers of its
 * own, one piece at a time: 8-14 GB/s on the H100, where pinned memory moves
 * at ~55 GB/s.  A large copy from or to pageable memory goes instead through
 * a few larger pinned buffers of Ember's, per device, as a pipeline: for
 * host-to-device the CPU threads copy chunk k into a buffer while the DMA
 * engine moves the chunks before it to the device; device-to-host is the
 * mirror (a DMA into a buffer, then the threads copy out of it while the
 * next chunks' DMAs run).  An event per buffer says when its DMA finished:
 * a buffer is refilled (or read) only after that.
 *
 * The semantics are the synchronous copy's: the caller has waited for its
 * current stream (em_cu_wait_current), the DMAs go on the legacy default
 * stream, where the driver's synchronous copy ran (so they are ordered
 * against other streams exactly as before, for every caller, and a current
 * stream of another device cannot get in the way), and the call returns
 * when every byte is in place.  One copy at a time uses a device's buffers
 * (a lock per device).  On a driver error the DMAs already queued are waited
 * for before the error is returned, so the next copy finds idle buffers.
 *
 * Host memory the driver already knows (pinned by Ember or by another
 * library, registered or managed) keeps the direct call, a DMA at the bus's
 * rate.  The buffers are allocated on a device's first large pageable copy
 * and kept for the process: never freed (at exit the driver may be gone
 * before us; the OS takes them back).  If pinning fails, copies take the
 * driver's path for the rest of the process, never an error.
 */
#include "host/threadpool.h"
#include "backend/cuda/cuda_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define EM_MIB ((size_t)1 << 20)
/* Smaller copies take the driver's path.  A 4 MiB copy takes the driver
 * ~400 us; staged, its four chunks' fixed costs (handing a memcpy to the
 * pool, ~5 us on a 2-core VM, a DMA and an event of a few us each) are
 * ~10 % of that, where at 1 MiB they would be most of it and the pipeline
 * barely overlaps.  An estimate: tools/gpu_copies.sh measures staged and
 * driver copies by size on a GPU machine, to place it. */
#define EM_STAGE_MIN (4 * EM_MIB)
/* Buffers per device and their size: 32 MiB pinned per device in all.
 * Four let three DMAs wait queued while the threads fill the fourth, so
 * the DMA engine never idles on a late host copy. */
enum { EM_STAGE_NBUF = 4 };
#define EM_STAGE_BUF (8 * EM_MIB)
/* A copy is cut into at least EM_STAGE_NBUF chunks (so that a 4 MiB one
 * still overlaps), none below 1 MiB (per-chunk costs) nor above a buffer;
 * chunks are whole 64 KiB.  Long copies pay about one chunk's memcpy and
 * one chunk's DMA that do not overlap (~3 % of 256 MiB at 8 MiB). */
#define EM_STAGE_CHUNK_MIN EM_MIB
#define EM_STAGE_ALIGN ((size_t)64 << 10)
/* The memcpy is split over the CPU pool in whole pages, at least 256 KiB a
 * thread (less would cost more to hand out than to copy). */
#define EM_STAGE_PAGE ((size_t)4096)
#define EM_STAGE_GRAIN ((size_t)256 << 10)

enum { EM__UNTRIED, EM__READY, EM__OFF };

/* The stream of the DMAs: the legacy default stream (see above). */
#define EM__LEGACY ((CUstream)NULL)

typedef struct em__stage {
    pthread_mutex_t lock; /* held for a whole staged copy, and while opening */
    int state;
    void *buf[EM_STAGE_NBUF];
    CUevent ev[EM_STAGE_NBUF]; /* recorded after the DMA that uses buf[i] */
} em__stage;

static em__stage em__st[EM_CU_MAXDEV];
static pthread_once_t em__st_once = PTHREAD_ONCE_INIT;

static void em__st_init(void) {
    for (int i = 0; i < EM_CU_MAXDEV; i++) pthread_mutex_init(&em__st[i].lock, NULL);
}

/* em_cuda_copy_tune's settings, and the counters of em_cuda_copy_stats. */
static _Atomic size_t em__min = EM_STAGE_MIN, em__chunk_set;
static atomic_uint_fast64_t em__n_staged, em__n_known, em__n_unstaged;

void em_cuda_copy_tune(size_t min_bytes, size_t chunk) {
    atomic_store(&em__min, min_bytes ? min_bytes : EM_STAGE_MIN);
    atomic_store(&em__chunk_set, chunk > EM_STAGE_BUF ? EM_STAGE_BUF : chunk);
}

void em_cuda_copy_stats_get(em_cuda_copy_stats *out) {
    out->staged = atomic_load(&em__n_staged);
    out->known = atomic_load(&em__n_known);
    out->unstaged = atomic_load(&em__n_unstaged);
    out->min_bytes = atomic_load(&em__min);
    out->buffers = EM_STAGE_NBUF;
    out->buffer_bytes = EM_STAGE_BUF;
}

static void em__close(em__stage *st) {
    for (int i = 0; i < EM_STAGE_NBUF; i++) {
        if (st->ev[i]) em__cu.cuEventDestroy(st->ev[i]);
        if (st->buf[i]) em__cu.cuMemFreeHost(st->buf[i]);
        st->ev[i] = NULL, st->buf[i] = NULL;
    }
}

/* The device was reset (reset.c): the pinned buffers and events went with
 * the old context; forget them (no driver call) and pin anew when needed. */
void em_cu_staging_forget(int id) {
    if ((unsigned)id >= EM_CU_MAXDEV) return;
    pthread_once(&em__st_once, em__st_init);
    em__stage *st = &em__st[id];
    pthread_mutex_lock(&st->lock);
    for (int i = 0; i < EM_STAGE_NBUF; i++) st->buf[i] = NULL, st->ev[i] = NULL;
    st->state = EM__UNTRIED;
    pthread_mutex_unlock(&st->lock);
}

/* Pin the buffers and make the events (lock held; device id's context is
 * current).  Tried once: a failure (a locked-memory limit, no memory) would
 * most likely fail again, and each try costs milliseconds. */
static void em__open(em__stage *st, int id) {
    CUresult r = EM_CU_SUCCESS;
    for (int i = 0; i < EM_STAGE_NBUF && r == EM_CU_SUCCESS; i++) {
        r = em__cu.cuMemHostAlloc(&st->buf[i], EM_STAGE_BUF, 0);
        if (r != EM_CU_SUCCESS)
            st->buf[i] = NULL;
        else if ((r = em__cu.cuEventCreate(&st->ev[i], EM_CU_EVENT_DISABLE_TIMING)) !=
                 EM_CU_SUCCESS)
            st->ev[i] = NULL;
    }
    st->state = r == EM_CU_SUCCESS ? EM__READY : EM__OFF;
    if (r == EM_CU_SUCCESS) return;
    em__close(st);
    if (em_debug_level() >= 1)
        fprintf(stderr,
                "ember: cuda:%d: no pinned staging buffers (CUDA error %d); large pageable copies "
                "take the driver's path\n",
                id, r);
}

/* Whether the driver knows host memory [p, p + n): pinned, registered or
 * managed memory has a memory type; pageable memory is an invalid value to
 * it.  Both ends are asked, for a range that runs out of a registration. */
static bool em__known(const void *p, size_t n) {
    unsigned type = 0;
    CUdeviceptr a = (CUdeviceptr)(uintptr_t)p;
    return em__cu.cuPointerGetAttribute(&type, EM_CU_POINTER_MEMORY_TYPE, a) == EM_CU_SUCCESS &&
           em__cu.cuPointerGetAttribute(&type, EM_CU_POINTER_MEMORY_TYPE, a + n - 1) ==
               EM_CU_SUCCESS;
}

/* Device id's staging set, locked, when a copy of n bytes at host should be
 * staged; NULL when the driver should copy. */
static em__stage *em__take(int id, const void *host, size_t n) {
    if (n < atomic_load_explicit(&em__min, memory_order_relaxed) || (unsigned)id >= EM_CU_MAXDEV)
        return NULL;
    if (em__known(host, n)) {
        atomic_fetch_add_explicit(&em__n_known, 1, memory_order_relaxed);
        return NULL;
    }
    pthread_once(&em__st_once, em__st_init);
    em__stage *st = &em__st[id];
    pthread_mutex_lock(&st->lock);
    if (st->state == EM__UNTRIED) em__open(st, id);
    if (st->state == EM__READY) return st;
    pthread_mutex_unlock(&st->lock);
    atomic_fetch_add_explicit(&em__n_unstaged, 1, memory_order_relaxed);
    return NULL;
}

static size_t em__chunk(size_t n) {
    size_t c = atomic_load_explicit(&em__chunk_set, memory_order_relaxed);
    if (c) return c;
    c = ((n + EM_STAGE_NBUF - 1) / EM_STAGE_NBUF + EM_STAGE_ALIGN - 1) / EM_STAGE_ALIGN *
        EM_STAGE_ALIGN;
    return c < EM_STAGE_CHUNK_MIN ? EM_STAGE_CHUNK_MIN : c > EM_STAGE_BUF ? EM_STAGE_BUF : c;
}

/* ---- the host side: a memcpy over the CPU pool ---- */

typedef struct em__mc {
    char *d;
    const char *s;
    size_t n;
} em__mc;

static void em__mc_part(void *ctx, int64_t b, int64_t e, int worker) {
    (void)worker;
    const em__mc *m = ctx;
    size_t lo = (size_t)b * EM_STAGE_PAGE, hi = (size_t)e * EM_STAGE_PAGE;
    memcpy(m->d + lo, m->s + lo, (hi < m->n ? hi : m->n) - lo);
}

/* em_parallel_for is safe from any thread: when the pool is busy (another
 * thread's job) or we are inside one of its workers, it runs inline. */
static void em__pmemcpy(void *d, const void *s, size_t n) {
    em__mc m = {d, s, n};
    em_parallel_for((int64_t)((n + EM_STAGE_PAGE - 1) / EM_STAGE_PAGE),
                    (int64_t)(EM_STAGE_GRAIN / EM_STAGE_PAGE), em__mc_part, &m);
}

/* ---- the pipeline ---- */

typedef struct em__pipe {
    em__stage *st;
    CUstream s;
    size_t n, chunk;
    unsigned busy; /* buffers whose recorded DMA may still run */
    bool queued;   /* some DMA was queued (its event perhaps not recorded) */
    CUresult r;    /* the first failure */
} em__pipe;

static size_t em__len(const em__pipe *p, size_t k) {
    size_t off = k * p->chunk;
    return p->n - off < p->chunk ? p->n - off : p->chunk;
}

/* Wait until buffer b's DMA has finished. */
static bool em__wait(em__pipe *p, int b) {
    if (!(p->busy & 1u << b)) return true;
    if ((p->r = em__cu.cuEventSynchronize(p->st->ev[b])) != EM_CU_SUCCESS) return false;
    p->busy &= ~(1u << b);
    return true;
}

/* After queueing a DMA on buffer b (r: how that went): record b's event. */
static bool em__queued(em__pipe *p, int b, CUresult r) {
    if ((p->r = r) != EM_CU_SUCCESS) return false;
    p->queued = true;
    if ((p->r = em__cu.cuEventRecord(p->st->ev[b], p->s)) != EM_CU_SUCCESS) return false;
    p->busy |= 1u << b;
    return true;
}

static void em__h2d(em__pipe *p, CUdeviceptr dst, const char *src) {
    for (size_t k = 0; k * p->chunk < p->n; k++) {
        int b = (int)(k % EM_STAGE_NBUF);
        size_t off = k * p->chunk, len = em__len(p, k);
        if (!em__wait(p, b)) return;
        em__pmemcpy(p->st->buf[b], src + off, len);
        if (!em__queued(p, b, em__cu.cuMemcpyHtoDAsync(dst + off, p->st->buf[b], len, p->s)))
            return;
    }
}

/* Queue chunk k's DMA from the device into its buffer. */
static bool em__fetch(em__pipe *p, CUdeviceptr src, size_t k) {
    int b = (int)(k % EM_STAGE_NBUF);
    return em__queued(
        p, b, em__cu.cuMemcpyDtoHAsync(p->st->buf[b], src + k * p->chunk, em__len(p, k), p->s));
}

static void em__d2h(em__pipe *p, char *dst, CUdeviceptr src) {
    size_t nk = (p->n + p->chunk - 1) / p->chunk;
    for (size_t k = 0; k < nk && k < EM_STAGE_NBUF; k++)
        if (!em__fetch(p, src, k)) return;
    for (size_t k = 0; k < nk; k++) {
        int b = (int)(k % EM_STAGE_NBUF);
        if (!em__wait(p, b)) return;
        em__pmemcpy(dst + k * p->chunk, p->st->buf[b], em__len(p, k));
        if (k + EM_STAGE_NBUF < nk && !em__fetch(p, src, k + EM_STAGE_NBUF)) return;
    }
}

/* Wait for every DMA still queued, whatever happened, so that the next copy
 * finds the buffers idle; then report the first failure.  If the waiting
 * itself fails, whether a DMA still runs is unknown: the buffers are never
 * used again (nor freed) and later copies take the driver's path. */
static em_status em__finish(em__pipe *p, const char *what) {
    CUresult d = EM_CU_SUCCESS;
    for (int b = 0; b < EM_STAGE_NBUF; b++) {
        if (!(p->busy & 1u << b)) continue;
        CUresult r = em__cu.cuEventSynchronize(p->st->ev[b]);
        if (d == EM_CU_SUCCESS) d = r;
    }
    if (p->r != EM_CU_SUCCESS && p->queued) { /* a DMA whose event was never recorded */
        CUresult r = em__cu.cuStreamSynchronize(p->s);
        if (d == EM_CU_SUCCESS) d = r;
    }
    if (d != EM_CU_SUCCESS) p->st->state = EM__OFF;
    CUresult r = p->r != EM_CU_SUCCESS ? p->r : d;
    if (r != EM_CU_SUCCESS) return em_cu_fail(r, what);
    atomic_fetch_add_explicit(&em__n_staged, 1, memory_order_relaxed);
    return EM_OK;
}

em_status em_cu_copy_h2d(int id, CUdeviceptr dst, const void *src, size_t n) {
    em__stage *st = em__take(id, src, n);
    if (!st) {
        EM_CU(em__cu.cuMemcpyHtoD(dst, src, n), "a host-to-device copy");
        return EM_OK;
    }
    em__pipe p = {st, EM__LEGACY, n, em__chunk(n), 0, false, EM_CU_SUCCESS};
    em__h2d(&p, dst, src);
    em_status s = em__finish(&p, "a host-to-device copy");
    pthread_mutex_unlock(&st->lock);
    return s;
}

em_status em_cu_copy_d2h(int id, void *dst, CUdeviceptr src, size_t n) {
    em__stage *st = em__take(id, dst, n);
    if (!st) {
        EM_CU(em__cu.cuMemcpyDtoH(dst, src, n), "a device-to-host copy");
        return EM_OK;
    }
    em__pipe p = {st, EM__LEGACY, n, em__chunk(n), 0, false, EM_CU_SUCCESS};
    em__d2h(&p, dst, src);
    em_status s = em__finish(&p, "a device-to-host copy");
    pthread_mutex_unlock(&st->lock);
    return s;
}
