/* Host copies through staging buffers: the driver of em_algo_to_host and
 * em_algo_from_host, written once over the backend table's pinned host
 * memory, asynchronous copies and events (backend.h).
 *
 * A device driver copies pageable memory through small pinned buffers of
 * its own, one piece at a time: CUDA's runs at 8-14 GB/s on the H100, where
 * pinned memory moves at ~55 GB/s.  A large copy from or to pageable memory
 * goes instead through a few larger pinned buffers of Ember's, per device,
 * as a pipeline: for host-to-device the CPU threads copy chunk k into a
 * buffer while the DMA engine moves the chunks before it to the device;
 * device-to-host is the mirror (a DMA into a buffer, then the threads copy
 * out of it while the next chunks' DMAs run).  An event per buffer says
 * when its DMA finished: a buffer is refilled (or read) only after that.
 *
 * The semantics are the backend's synchronous copy's: the copy first waits
 * for the calling thread's current stream, the DMAs go on the default
 * stream, where the synchronous copy runs (so they are ordered against
 * other streams exactly as it is, for every caller, and a current stream of
 * another device cannot get in the way), and the call returns when every
 * byte is in place.  One copy at a time uses a device's buffers (a lock per
 * device).  On a failure the DMAs already queued are waited for before the
 * error is returned, so the next copy finds idle buffers.
 *
 * Host memory the runtime already knows (host_known: pinned by Ember or by
 * another library, registered or managed) keeps the synchronous copy, a DMA
 * at the bus's rate.  The buffers are allocated on a device's first large
 * pageable copy and kept for the process: never freed (at exit the driver
 * may be gone before us; the OS takes them back).  If pinning fails, copies
 * take the synchronous path for the rest of the process, never an error.
 * A backend without host_alloc (the CPU) always copies directly.
 *
 * Registering the source's pages instead of staging them (session 16,
 * cuMemHostRegister on helper threads ahead of the DMAs) lost to staging
 * on both H100 hosts (11 GB/s against 44 on two GPUs: registering a page
 * costs about what copying it does) and was removed; docs/auto.md.
 */
#include "codegen/run.h"
#include "codegen/run_copy.h"
#include "core/core.h"
#include "host/team.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define EM_STAGE_HAVE_NT 1
#endif

#define EM_MIB ((size_t)1 << 20)
/* Smaller copies take the synchronous path.  A 4 MiB copy takes CUDA's
 * driver ~400 us; staged, its four chunks' fixed costs (handing a memcpy to
 * the pool, ~5 us on a 2-core VM, a DMA and an event of a few us each) are
 * ~10 % of that, where at 1 MiB they would be most of it and the pipeline
 * barely overlaps.  An estimate: tools/gpu_copies.sh measures staged and
 * driver copies by size on a GPU machine, to place it. */
#define EM_STAGE_MIN (4 * EM_MIB)
/* Buffers per device and their size: 32 MiB pinned per device in all.
 * Four let three DMAs wait queued while the threads fill the fourth, so
 * the DMA engine never idles on a late host copy.  EMBER_STAGE_BUF_MIB (1
 * to 64, read once per process) sets the size: each chunk pays a team job,
 * a DMA call and an event (tens of us: a seventh of an 8 MiB chunk's ~180
 * us when the helpers sleep between chunks), which larger chunks spread;
 * session 15 measured 32 on two GPUs (no better).  EMBER_STAGE_BUF_KIB
 * (below) stages through lanes of small buffers instead. */
#define EM_STAGE_BUF (8 * EM_MIB)
#define EM_STAGE_BUF_MAX (64 * EM_MIB)

static size_t em__buf_bytes(void) {
    static _Atomic size_t bytes;
    size_t b = atomic_load_explicit(&bytes, memory_order_relaxed);
    if (b) return b;
    const char *v = getenv("EMBER_STAGE_BUF_MIB");
    long mib = v && *v ? atol(v) : 0;
    b = mib >= 1 ? (size_t)mib * EM_MIB : EM_STAGE_BUF;
    b = b > EM_STAGE_BUF_MAX ? EM_STAGE_BUF_MAX : b;
    atomic_store_explicit(&bytes, b, memory_order_relaxed);
    return b;
}
/* A copy is cut into at least EM_STAGE_NBUF chunks (so that a 4 MiB one
 * still overlaps), none below 1 MiB (per-chunk costs) nor above a buffer;
 * chunks are whole 64 KiB.  Long copies pay about one chunk's memcpy and
 * one chunk's DMA that do not overlap (~3 % of 256 MiB at 8 MiB). */
#define EM_STAGE_CHUNK_MIN EM_MIB
#define EM_STAGE_ALIGN ((size_t)64 << 10)
/* The memcpy is split over the device's staging team (host/team.h: threads
 * of its own, so that two devices' copies at once each get several) in
 * whole pages, at least 256 KiB a thread (less would cost more to hand out
 * than to copy). */
#define EM_STAGE_PAGE ((size_t)4096)
#define EM_STAGE_GRAIN ((size_t)256 << 10)
/* Devices per kind with staging buffers; the others copy directly. */
#define EM_STAGE_MAXDEV 64

enum { EM__UNTRIED, EM__READY, EM__OFF };

static em__stage em__st[EM_NKINDS][EM_STAGE_MAXDEV];
static pthread_once_t em__st_once = PTHREAD_ONCE_INIT;

static void em__st_init(void) {
    for (int k = 0; k < EM_NKINDS; k++)
        for (int i = 0; i < EM_STAGE_MAXDEV; i++) {
            em__stage *st = &em__st[k][i];
            pthread_mutex_init(&st->lock, NULL);
            pthread_mutex_init(&st->team.lock, NULL);
            pthread_cond_init(&st->team.go, NULL);
            pthread_cond_init(&st->team.done, NULL);
        }
}

/* em_copy_tune's settings, and the counters of em_copy_stats_get. */
static _Atomic size_t em__min = EM_STAGE_MIN, em__chunk_set;
static atomic_uint_fast64_t em__n_staged, em__n_known, em__n_unstaged;

void em_copy_tune(size_t min_bytes, size_t chunk) {
    atomic_store(&em__min, min_bytes ? min_bytes : EM_STAGE_MIN);
    atomic_store(&em__chunk_set, chunk > em__buf_bytes() ? em__buf_bytes() : chunk);
}

static size_t em__copy_tuned(void) {
    return atomic_load_explicit(&em__chunk_set, memory_order_relaxed);
}

void em_copy_stats_get(em_copy_stats *out) {
    out->staged = atomic_load(&em__n_staged);
    out->known = atomic_load(&em__n_known);
    out->unstaged = atomic_load(&em__n_unstaged);
    out->min_bytes = atomic_load(&em__min);
    out->buffers = EM_STAGE_NBUF;
    out->buffer_bytes = em__buf_bytes();
}

bool em_host_pinned(em_device dev, const void *p, size_t n) {
    const em_backend *be;
    if (!n || em__backend_for(dev, &be) != EM_OK || !be->host_known) return false;
    return be->host_known(dev.id, p, n);
}

/* Pin the buffers and make the events (lock held).  Tried once: a failure
 * (a locked-memory limit, no memory) would most likely fail again, and each
 * try costs milliseconds. */
static void em__open(const em_backend *be, em__stage *st, int id) {
    em_status s = EM_OK;
    for (int i = 0; i < EM_STAGE_NBUF && s == EM_OK; i++) {
        s = be->host_alloc(id, em__buf_bytes(), false, &st->buf[i]);
        if (s != EM_OK)
            st->buf[i] = NULL;
        else if ((s = be->event_create(id, false, &st->ev[i])) != EM_OK)
            st->ev[i] = NULL;
    }
    st->state = s == EM_OK ? EM__READY : EM__OFF;
    if (s == EM_OK) return;
    for (int i = 0; i < EM_STAGE_NBUF; i++) {
        if (st->ev[i]) be->event_destroy(id, st->ev[i]);
        if (st->buf[i]) be->host_free(id, st->buf[i]);
    }
    if (em_debug_level() >= 1)
        fprintf(stderr,
                "ember: %s:%d: no pinned staging buffers (%s); large pageable copies take the "
                "driver's path\n",
                be->name, id, em_last_error());
}

/* Device id's staging set, locked, when a copy of n bytes at host should be
 * staged; NULL when the backend's synchronous copy should copy. */
static em__stage *em__take(const em_backend *be, int id, const void *host, size_t n) {
    if (!be->host_alloc || n < atomic_load_explicit(&em__min, memory_order_relaxed) ||
        (unsigned)id >= EM_STAGE_MAXDEV)
        return NULL;
    if (be->host_known(id, host, n)) {
        atomic_fetch_add_explicit(&em__n_known, 1, memory_order_relaxed);
        return NULL;
    }
    pthread_once(&em__st_once, em__st_init);
    em__stage *st = &em__st[be->kind][id];
    pthread_mutex_lock(&st->lock);
    /* A device reset (CUDA after a faulting kernel: backend/cuda/reset.c)
     * took the buffers and events with the old context: forget them, with
     * no call on them, and pin anew. */
    uint32_t gen = em_device_generation((em_device){be->kind, id});
    if (st->state != EM__UNTRIED && st->gen != gen) {
        for (int i = 0; i < EM_STAGE_NBUF; i++) st->buf[i] = NULL, st->ev[i] = NULL;
        memset(&st->lanes, 0, sizeof st->lanes); /* the lanes' block and events too */
        st->state = EM__UNTRIED;
    }
    if (st->state == EM__UNTRIED) st->gen = gen, em__open(be, st, id);
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
    size_t most = em__buf_bytes();
    return c < EM_STAGE_CHUNK_MIN ? EM_STAGE_CHUNK_MIN : c > most ? most : c;
}

/* ---- the host side: a memcpy over the device's team ---- */

typedef struct em__mc {
    char *d;
    const char *s;
    size_t n;
    bool nt; /* non-temporal stores into d (a pinned buffer) */
} em__mc;

/* Whether host-to-device staging stores into the pinned buffers bypass the
 * cache (EMBER_STAGE_NT=1; read per copy, so one process can compare).  A
 * staged byte crosses host memory three times (read, written to the buffer,
 * read by the DMA) and a plain store reads its line first, a fourth: two
 * GPUs at ~45 GB/s each need ~270-360 GB/s of it.  Streaming stores drop
 * that read, but a buffer written around the cache cannot be served to the
 * DMA from it: which wins is the host's to say (bench/auto_2gpu.sh). */
static bool em__stage_nt(void) {
#ifdef EM_STAGE_HAVE_NT
    const char *v = getenv("EMBER_STAGE_NT");
    return v && *v == '1';
#else
    return false;
#endif
}

#ifdef EM_STAGE_HAVE_NT
/* n bytes from s to d in 64-byte steps of 16-byte loads, with streaming
 * stores (stream) or plain ones; d is 16-byte aligned (a buffer's start plus
 * whole pages), s need not be.  Inlined with a constant stream, so each
 * caller gets its own loop. */
static inline void em__copy16(char *d, const char *s, size_t n, bool stream) {
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m128i v[4]; /* the four loads issued before the stores, as the loop was measured */
        for (int k = 0; k < 4; k++) v[k] = _mm_loadu_si128((const __m128i *)(s + i + 16 * k));
        for (int k = 0; k < 4; k++)
            if (stream)
                _mm_stream_si128((__m128i *)(d + i + 16 * k), v[k]);
            else
                _mm_storeu_si128((__m128i *)(d + i + 16 * k), v[k]);
    }
    if (i < n) memcpy(d + i, s + i, n - i);
}

/* memcpy with streaming stores (EMBER_STAGE_NT=1) */
static void em__nt_copy(char *d, const char *s, size_t n) {
    em__copy16(d, s, n, true);
    _mm_sfence(); /* the stores are visible before the DMA is queued */
}

/* The lanes' fill of a buffer: 16-byte loads and plain stores, which
 * allocate the buffer's lines in the cache, where the DMA then reads them.
 * Why not memcpy: on one two-H100 host (24 GiB from pageable memory,
 * session 18) both GPUs read 71-77 GB/s through glibc's memcpy and 88-89
 * through this loop in two rounds (one GPU 45-46 either way); on a
 * two-H200 host with the same CPU, four rounds each, 80.9 against 80.2 on
 * average: level there.  glibc picks its own way to copy a MiB (`rep
 * movsb` or streaming stores, by the CPU's tunables), which may not leave
 * the buffer in the L3 as plain stores do.  A
 * non-temporal prefetch of the source (to keep it out of the L3) lost
 * (44-58).  Copies under EM_LANE_LOOP_MIN keep memcpy: one H100 read 16
 * MiB at 21.3 GB/s through this loop and 24.7 through memcpy, 64 MiB 33.4
 * and 35.5, where each lane fills a buffer or two and the fill's own speed
 * shows; 256 MiB and up level (43.3 / 43.2).  EMBER_STAGE_NT=0 (read per
 * copy) takes memcpy at every size, for A/B. */
#define EM_LANE_LOOP_MIN ((size_t)128 << 20)
static void em__lane_copy(char *d, const char *s, size_t n) { em__copy16(d, s, n, false); }

static bool em__stage_libc(void) {
    const char *v = getenv("EMBER_STAGE_NT");
    return v && *v == '0';
}
#endif

static void em__mc_part(void *ctx, int64_t b, int64_t e, int worker) {
    (void)worker;
    const em__mc *m = ctx;
    size_t lo = (size_t)b * EM_STAGE_PAGE, hi = (size_t)e * EM_STAGE_PAGE;
    size_t len = (hi < m->n ? hi : m->n) - lo;
#ifdef EM_STAGE_HAVE_NT
    if (m->nt && ((uintptr_t)(m->d + lo) & 15) == 0) {
        em__nt_copy(m->d + lo, m->s + lo, len);
        return;
    }
#endif
    memcpy(m->d + lo, m->s + lo, len);
}

/* The team is the device's (its staging lock held): another device's copy
 * running at once has its own.  nt: into a pinned buffer (host-to-device). */
static void em__pmemcpy(em_team *t, void *d, const void *s, size_t n, bool nt) {
    em__mc m = {d, s, n, nt};
    em_team_run(t, (int64_t)((n + EM_STAGE_PAGE - 1) / EM_STAGE_PAGE),
                (int64_t)(EM_STAGE_GRAIN / EM_STAGE_PAGE), em__mc_part, &m);
}

/* ---- the pipeline ---- */

/* Whether s failed; the first failure is kept, with its message. */
static bool em__copy_failed(em__pipe *p, em_status s) {
    if (s == EM_OK) return false;
    if (p->s == EM_OK) {
        p->s = s;
        snprintf(p->why, sizeof p->why, "%s", em_last_error());
    }
    return true;
}

static size_t em__len(const em__pipe *p, size_t k) {
    size_t off = k * p->chunk;
    return p->n - off < p->chunk ? p->n - off : p->chunk;
}

/* Wait until buffer b's DMA has finished. */
static bool em__wait(em__pipe *p, int b) {
    if (!(p->busy & 1u << b)) return true;
    if (em__copy_failed(p, p->be->event_synchronize(p->id, p->st->ev[b]))) return false;
    p->busy &= ~(1u << b);
    return true;
}

/* After queueing a DMA on buffer b (s: how that went): record b's event on
 * the default stream, the DMAs' own. */
static bool em__queued(em__pipe *p, int b, em_status s) {
    if (em__copy_failed(p, s)) return false;
    p->queued = true;
    if (em__copy_failed(p, p->be->event_record(p->id, p->st->ev[b], NULL))) return false;
    p->busy |= 1u << b;
    return true;
}

/* Stage n bytes from src to dst through the shared buffers. */
static void em__copy_h2d(em__pipe *p, char *dst, const char *src, size_t n) {
    for (size_t off = 0; off < n && p->s == EM_OK; off += p->chunk) {
        int b = (int)(p->k++ % EM_STAGE_NBUF);
        size_t len = n - off < p->chunk ? n - off : p->chunk;
        if (!em__wait(p, b)) return;
        em__pmemcpy(&p->st->team, p->st->buf[b], src + off, len, p->nt);
        if (!em__queued(p, b, p->be->from_host_async(p->id, dst + off, p->st->buf[b], len, NULL)))
            return;
    }
}

/* ---- lanes: a pipeline per staging thread over small buffers ---- */

/* EMBER_STAGE_BUF_KIB (read at each copy): host-to-device copies go
 * through lanes of buffers of this many KiB (64 to 65536, whole 4 KiB)
 * instead of the team's four shared buffers; 0: the shared ones; unset:
 * 1024 (two H100s, 32-core Xeon with 300 MiB of L3, session 17: the 24 GiB
 * stream 45.9 GB/s on one GPU and 81.5 on both, 1.77x, against the shared
 * buffers' 45.0 and 51.7; 8 GiB 45.9 / 83.8; 512 KiB and 2 MiB lost).
 * Why: a staged byte is read from the source, written to a buffer and read
 * again by the DMA.  Where the buffers in flight fit the last-level cache
 * the DMA's read is served from the cache (a device read snoops it), so
 * host memory sees the source's read alone; 8 MiB buffers handed to the
 * whole team per chunk do not fit, and small ones would cost a team
 * hand-off (~45 us) each.  A lane hands off nothing: each thread fills its
 * own buffers, queues their DMAs and waits on their events itself.  The
 * cost is a DMA call and an event per buffer (a few us). */
static size_t em__lane_buf(void) {
    size_t tuned = em__copy_tuned();
    const char *v = getenv("EMBER_STAGE_BUF_KIB");
    long kib = v && *v ? atol(v) : 1024;
    if (kib <= 0) return 0;
    if (tuned) return tuned; /* the tests' small copies: many lanes' buffers */
    kib = kib < 64 ? 64 : kib > 65536 ? 65536 : kib;
    return ((size_t)kib << 10) / EM_STAGE_PAGE * EM_STAGE_PAGE;
}

/* Buffers per lane: EMBER_STAGE_NBUF (read at each copy), 2 to 16, default
 * 4 (three DMAs queued while the lane fills the fourth). */
static int em__lane_nbuf(void) {
    const char *v = getenv("EMBER_STAGE_NBUF");
    long n = v && *v ? atol(v) : 4;
    return n < 2 ? 2 : n > EM_LANE_NBUF_MAX ? EM_LANE_NBUF_MAX : (int)n;
}

/* The lanes in the geometry asked for (staging lock held; every earlier
 * DMA waited for), made anew when it changed.  False: lanes cannot be had
 * (pinning failed once: the shared buffers stage, for the process). */
static bool em__lanes_open(const em_backend *be, int id, em__lanes *l, int lanes, int nbuf,
                           size_t buf) {
    if (l->state == EM__OFF) return false;
    if (l->state == EM__READY && l->lanes == lanes && l->nbuf == nbuf && l->buf == buf) return true;
    if (l->block) be->host_free(id, l->block);
    l->block = NULL, l->state = EM__OFF;
    void *blk = NULL;
    em_status s = be->host_alloc(id, (size_t)lanes * (size_t)nbuf * buf, false, &blk);
    while (s == EM_OK && l->nev < lanes * nbuf) {
        s = be->event_create(id, false, &l->ev[l->nev]);
        if (s == EM_OK) l->nev++;
    }
    if (s != EM_OK) {
        if (blk) be->host_free(id, blk);
        if (em_debug_level() >= 1)
            fprintf(stderr, "ember: %s:%d: no staging lanes (%s); the shared buffers stage\n",
                    be->name, id, em_last_error());
        return false;
    }
    l->block = blk, l->lanes = lanes, l->nbuf = nbuf, l->buf = buf, l->state = EM__READY;
    return true;
}

typedef struct em__lane_job {
    em__pipe *p;
    bool own;  /* each lane's DMAs on its own stream, else the default one */
    bool libc; /* buffers filled by memcpy, not em__lane_copy (EMBER_STAGE_NT=0) */
    char *dst;
    const char *src;
    size_t units;         /* buffers' worth in the copy: lane L takes a run of them */
    pthread_mutex_t lock; /* p's failure fields */
    atomic_bool failed;   /* every lane stops at its next buffer */
    atomic_bool unwaited; /* a DMA was queued whose event was not recorded */
    atomic_bool lost;     /* waiting for a DMA failed: lanes unusable */
} em__lane_job;

static void em__lane_fail(em__lane_job *j, em_status s) {
    pthread_mutex_lock(&j->lock);
    em__copy_failed(j->p, s);
    pthread_mutex_unlock(&j->lock);
    atomic_store(&j->failed, true);
}

/* Lane L's whole part: its buffers, filled, sent and waited for in turn;
 * every DMA it queued has finished (or is known lost) when it returns. */
static void em__lane_run(em__lane_job *j, int L) {
    em__pipe *p = j->p;
    em__lanes *l = &p->st->lanes;
    size_t buf = l->buf, u0 = j->units * (size_t)L / (size_t)l->lanes,
           u1 = j->units * (size_t)(L + 1) / (size_t)l->lanes;
    char *bufs = l->block + (size_t)L * (size_t)l->nbuf * buf;
    void **ev = &l->ev[L * l->nbuf];
    void *ds = j->own ? l->stream[L] : NULL;
    unsigned busy = 0;
    em_status s;
    for (size_t u = u0, k = 0; u < u1 && !atomic_load(&j->failed); u++, k++) {
        int b = (int)(k % (size_t)l->nbuf);
        if (busy & 1u << b) {
            if ((s = p->be->event_synchronize(p->id, ev[b])) != EM_OK) {
                atomic_store(&j->lost, true);
                em__lane_fail(j, s);
                break;
            }
            busy &= ~(1u << b);
        }
        size_t off = u * buf, len = p->n - off < buf ? p->n - off : buf;
        char *d = bufs + (size_t)b * buf;
#ifdef EM_STAGE_HAVE_NT
        if (p->nt)
            em__nt_copy(d, j->src + off, len);
        else if (!j->libc)
            em__lane_copy(d, j->src + off, len);
        else
#endif
            memcpy(d, j->src + off, len);
        if ((s = p->be->from_host_async(p->id, j->dst + off, d, len, ds)) != EM_OK) {
            em__lane_fail(j, s);
            break;
        }
        if ((s = p->be->event_record(p->id, ev[b], ds)) != EM_OK) {
            em__lane_fail(j, s);
            /* the DMA just queued has no event: its stream is waited for
             * (the default stream's by the caller, em__finish) */
            if (!ds)
                atomic_store(&j->unwaited, true);
            else if (p->be->stream_synchronize(p->id, ds) != EM_OK)
                atomic_store(&j->lost, true);
            break;
        }
        busy |= 1u << b;
    }
    for (int b = 0; b < l->nbuf; b++)
        if (busy & 1u << b && (s = p->be->event_synchronize(p->id, ev[b])) != EM_OK) {
            atomic_store(&j->lost, true);
            em__lane_fail(j, s);
        }
}

static void em__lane_part(void *ctx, int64_t b, int64_t e, int worker) {
    (void)worker;
    for (int64_t L = b; L < e; L++) em__lane_run(ctx, (int)L);
}

/* EMBER_STAGE_LANE_STREAMS=1 (read at each copy): each lane queues its
 * DMAs on a non-blocking stream of its own (made once, kept) instead of
 * the default stream, whose implicit ordering against every blocking
 * stream the driver keeps under one lock for all the lanes' calls.  The
 * copy still waits for the caller's stream first and returns after its last
 * DMA, but no longer orders against the default stream's other work.
 * False: off, or a stream could not be made. */
static bool em__lane_streams(em__pipe *p, int lanes) {
    const char *v = getenv("EMBER_STAGE_LANE_STREAMS");
    if (!v || *v != '1' || !p->be->stream_create) return false;
    em__lanes *l = &p->st->lanes;
    while (l->nstream < lanes)
        if (p->be->stream_create(p->id, true, &l->stream[l->nstream]) != EM_OK)
            return false;
        else
            l->nstream++;
    return true;
}

/* The host-to-device copy through lanes; false: no lanes (the caller
 * stages through the shared buffers).  Lanes: the team's threads, at most
 * one per buffer of the copy. */
static bool em__copy_h2d_lanes(em__pipe *p, char *dst, const char *src) {
    size_t buf = em__lane_buf();
    if (!buf) return false;
    size_t units = (p->n + buf - 1) / buf;
    int lanes = em_team_size();
    lanes = lanes > EM_LANE_MAX ? EM_LANE_MAX : lanes;
    lanes = (size_t)lanes > units ? (int)units : lanes;
    if (!em__lanes_open(p->be, p->id, &p->st->lanes, lanes, em__lane_nbuf(), buf)) return false;
    em__lane_job j = {
        .p = p, .own = em__lane_streams(p, lanes), .dst = dst, .src = src, .units = units};
#ifdef EM_STAGE_HAVE_NT
    j.libc = em__stage_libc() || p->n < EM_LANE_LOOP_MIN;
#endif
    atomic_init(&j.failed, false);
    atomic_init(&j.unwaited, false);
    atomic_init(&j.lost, false);
    pthread_mutex_init(&j.lock, NULL);
    em_team_run(&p->st->team, lanes, 1, em__lane_part, &j);
    pthread_mutex_destroy(&j.lock);
    /* an unrecorded DMA: em__finish waits for the stream */
    p->queued = atomic_load(&j.unwaited);
    if (atomic_load(&j.lost)) p->st->lanes.state = EM__OFF, p->st->lanes.block = NULL;
    return true;
}

/* Queue chunk k's DMA from the device into its buffer. */
static bool em__fetch(em__pipe *p, const char *src, size_t k) {
    int b = (int)(k % EM_STAGE_NBUF);
    return em__queued(
        p, b, p->be->to_host_async(p->id, p->st->buf[b], src + k * p->chunk, em__len(p, k), NULL));
}

static void em__d2h(em__pipe *p, char *dst, const char *src) {
    size_t nk = (p->n + p->chunk - 1) / p->chunk;
    for (size_t k = 0; k < nk && k < EM_STAGE_NBUF; k++)
        if (!em__fetch(p, src, k)) return;
    for (size_t k = 0; k < nk; k++) {
        int b = (int)(k % EM_STAGE_NBUF);
        if (!em__wait(p, b)) return;
        em__pmemcpy(&p->st->team, dst + k * p->chunk, p->st->buf[b], em__len(p, k), false);
        if (k + EM_STAGE_NBUF < nk && !em__fetch(p, src, k + EM_STAGE_NBUF)) return;
    }
}

/* Wait for every DMA still queued, whatever happened, so that the next copy
 * finds the buffers idle; then report the first failure.  If the waiting
 * itself fails, whether a DMA still runs is unknown: the buffers are never
 * used again (nor freed) and later copies take the synchronous path. */
static em_status em__finish(em__pipe *p, const char *what) {
    bool failed = p->s != EM_OK, lost = false;
    for (int b = 0; b < EM_STAGE_NBUF; b++)
        if (p->busy & 1u << b)
            lost |= em__copy_failed(p, p->be->event_synchronize(p->id, p->st->ev[b]));
    if (failed && p->queued) /* a DMA whose event was never recorded: the stream */
        lost |= em__copy_failed(p, p->be->stream_synchronize(p->id, NULL));
    if (lost) p->st->state = EM__OFF;
    if (p->s != EM_OK) return em_error(p->s, "%s failed: %s", what, p->why);
    atomic_fetch_add_explicit(&em__n_staged, 1, memory_order_relaxed);
    return EM_OK;
}

/* The staged copy of n bytes between dst and src (which one is the host's
 * is h2d's to say), or the backend's synchronous one. */
static em_status em__copy(const em_backend *be, int id, void *dst, const void *src, size_t n,
                          bool h2d) {
    em__stage *st = em__take(be, id, h2d ? src : dst, n);
    if (!st) return h2d ? be->from_host(id, dst, src, n) : be->to_host(id, dst, src, n);
    em__pipe p = {be, id, st, n, em__chunk(n), 0, false, h2d && em__stage_nt(), EM_OK, 0, ""};
    void *cur = be->stream_get(id);
    em_status s = cur ? be->stream_synchronize(id, cur) : EM_OK;
    if (s == EM_OK) {
        if (!h2d)
            em__d2h(&p, dst, src);
        else if (!em__copy_h2d_lanes(&p, dst, src))
            em__copy_h2d(&p, dst, src, n);
        s = em__finish(&p, h2d ? "a host-to-device copy" : "a device-to-host copy");
    }
    pthread_mutex_unlock(&st->lock);
    return s;
}

em_status em_algo_to_host(const em_backend *be, int id, void *dst, const void *src, size_t n) {
    return em__copy(be, id, dst, src, n, false);
}

em_status em_algo_from_host(const em_backend *be, int id, void *dst, const void *src, size_t n) {
    return em__copy(be, id, dst, src, n, true);
}
