/* Host-to-device copies from the source's own pages (EMBER_STAGE_REGISTER=1,
 * read at each copy): a large pageable copy's whole pages are registered
 * with the runtime (cuMemHostRegister) slice by slice on registrar threads
 * of the device's own, several slices ahead of the DMAs, each slice's DMA
 * reads its pages straight from the user's memory, and a registrar
 * unregisters the slice once the DMA's event says it is done.  The
 * unaligned head and tail, and any slice whose registration failed (a
 * read-only mapping, pages registered by someone else:
 * CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, a locked-memory limit), are
 * staged through the pinned buffers as before (run_copy.c); one failure
 * stages the rest of that copy, since the next slice would most likely
 * fail too.
 *
 * Why: a staged byte crosses host memory three times (read, written into a
 * pinned buffer, read by the DMA), and two GPUs' staged streams together
 * ran at 1.48x one GPU on a 32-core H100 host, where pinned copies to both
 * reached 1.83x.  A registered byte is read once, by the DMA; registering
 * costs CPU time per page (24-29 GB/s on one thread; unregistering 52-56),
 * so it pays only on other threads and ahead of the DMAs.
 *
 * The first slices are smaller (an eighth, a quarter, a half of a full
 * one) so that the first DMA starts after a short registration.  At most
 * EM_REG_SLOTS slices are locked at once per device.  Nothing stays
 * registered when the copy returns: the caller waits for every registrar,
 * unregisters what was registered and not copied, and the DMAs' events
 * are waited for before their pages are unregistered (also on a failure;
 * the copy runs with the GIL released, so an interrupt waits for it). */
#include "codegen/run_copy.h"
#include "core/core.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EM_MIB ((size_t)1 << 20)
#define EM_REG_SLICE (32 * EM_MIB)
#define EM_REG_THREADS 4
#define EM_REG_THREADS_MAX 16

enum { EM__R_FREE, EM__R_REGISTERING, EM__R_OK, EM__R_FAILED, EM__R_QUEUED, EM__R_UNREGISTERING };

/* EMBER_STAGE_REGISTER: 1, every slice registered (the caller waits for
 * its registrars); 2, mixed: a slice the registrars have not reached is
 * staged by the caller, and they go on ahead of it. */
static int em__mode(void) {
    const char *v = getenv("EMBER_STAGE_REGISTER");
    return v && (*v == '1' || *v == '2') ? *v - '0' : 0;
}

bool em__copy_reg_on(void) { return em__mode() != 0; }

static size_t em__page(void) {
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/* EMBER_STAGE_REG_THREADS, 1 to 16, default 4 (read at each copy). */
static int em__reg_threads(void) {
    const char *v = getenv("EMBER_STAGE_REG_THREADS");
    long n = v && *v ? atol(v) : EM_REG_THREADS;
    return n < 1 ? 1 : n > EM_REG_THREADS_MAX ? EM_REG_THREADS_MAX : (int)n;
}

/* A full slice: em_copy_tune's chunk where set (the tests' small copies),
 * else EMBER_STAGE_REG_MIB (default 32), in whole units of 8 pages (the
 * first slice is an eighth). */
size_t em__copy_reg_slice(void) {
    size_t s = em__copy_tuned();
    if (!s) {
        const char *v = getenv("EMBER_STAGE_REG_MIB");
        long mib = v && *v ? atol(v) : 0;
        s = mib >= 1 && mib <= 1024 ? (size_t)mib * EM_MIB : EM_REG_SLICE;
    }
    size_t unit = 8 * em__page();
    return (s + unit - 1) / unit * unit;
}

/* Slice k's start within the registered pages: S/8, S/4, S/2, then S each. */
static size_t em__slice_off(size_t S, size_t k) {
    return k <= 3 ? (S >> 3) * (((size_t)1 << k) - 1) : (S >> 3) * 7 + (k - 3) * S;
}

/* ---- the pages registered copies hold now, process-wide ---- */

static pthread_mutex_t em__held_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { const char *lo, *hi; } em__held[64 * EM_REG_SLOTS];

static bool em__hold(const char *p, size_t n, bool on) {
    bool done = false;
    pthread_mutex_lock(&em__held_lock);
    for (size_t i = 0; i < sizeof em__held / sizeof *em__held && !done; i++)
        if (on ? !em__held[i].lo : em__held[i].lo == p) {
            em__held[i].lo = on ? p : NULL, em__held[i].hi = on ? p + n : NULL;
            done = true;
        }
    pthread_mutex_unlock(&em__held_lock);
    return done;
}

bool em__copy_reg_overlaps(const void *p, size_t n) {
    const char *lo = p, *hi = lo + n;
    bool hit = false;
    pthread_mutex_lock(&em__held_lock);
    for (size_t i = 0; i < sizeof em__held / sizeof *em__held && !hit; i++)
        hit = em__held[i].lo && em__held[i].lo < hi && lo < em__held[i].hi;
    pthread_mutex_unlock(&em__held_lock);
    return hit;
}

/* ---- registrars ---- */

static void em__slice_at(const em__reg *r, size_t k, char **p, size_t *n) {
    size_t lo = em__slice_off(r->S, k), hi = em__slice_off(r->S, k + 1);
    *p = r->base + lo;
    *n = (hi < r->len ? hi : r->len) - lo;
}

/* The next task for a registrar (lock held), in this order: unregistering
 * a slice whose DMA is done; registering the next slice when its slot is
 * free; waiting for the oldest queued DMA and unregistering its slice --
 * one registrar at a time, so that the others keep registering ahead
 * while it waits (*waits: it will wait, and wakes the others after). */
static bool em__pick(em__reg *r, int *slot, bool *unreg, bool *waits) {
    if (!r->active) return false;
    int oldest = -1;
    for (int s = 0; s < EM_REG_SLOTS; s++) {
        if (r->state[s] != EM__R_QUEUED) continue;
        bool done = false;
        if (r->be->event_query(r->id, r->ev[s], &done) != EM_OK || done) {
            r->state[s] = EM__R_UNREGISTERING;
            *slot = s, *unreg = true, *waits = false;
            return true;
        }
        if (oldest < 0 || r->slice[s] < r->slice[oldest]) oldest = s;
    }
    size_t j = r->next_reg;
    if (r->lead && j < r->next_dma + r->lead) j = r->next_dma + r->lead;
    int s = (int)(j % EM_REG_SLOTS);
    if (!r->stop && j < r->nslices && r->state[s] == EM__R_FREE) {
        r->slice[s] = j;
        r->next_reg = j + 1;
        r->state[s] = EM__R_REGISTERING;
        *slot = s, *unreg = false, *waits = false;
        return true;
    }
    if (oldest >= 0 && !r->waiting) {
        r->state[oldest] = EM__R_UNREGISTERING;
        r->waiting = true;
        *slot = oldest, *unreg = true, *waits = true;
        return true;
    }
    return false;
}

static void *em__registrar(void *arg) {
    em__reg *r = arg;
    pthread_mutex_lock(&r->lock);
    for (;;) {
        int s;
        bool unreg, waits;
        while (!em__pick(r, &s, &unreg, &waits)) pthread_cond_wait(&r->cv, &r->lock);
        const em_backend *be = r->be;
        int id = r->id;
        void *ev = r->ev[s];
        char *p;
        size_t n;
        em__slice_at(r, r->slice[s], &p, &n);
        pthread_mutex_unlock(&r->lock);
        int next = EM__R_FREE;
        if (unreg) {
            /* If the wait fails the device is lost and runs no DMA: the
             * pages are unregistered all the same. */
            be->event_synchronize(id, ev);
            be->host_unregister(id, p);
            em__hold(p, n, false);
        } else if (!em__hold(p, n, true)) {
            next = EM__R_FAILED;
        } else if (be->host_register(id, p, n) == EM_OK) {
            next = EM__R_OK;
        } else {
            em__hold(p, n, false);
            next = EM__R_FAILED;
        }
        pthread_mutex_lock(&r->lock);
        if (next == EM__R_FAILED && !r->stop) {
            r->stop = true; /* the rest of this copy is staged */
            snprintf(r->why, sizeof r->why, "%s", em_last_error());
        }
        r->state[s] = next;
        if (waits) r->waiting = false;
        pthread_cond_broadcast(&r->cv);
    }
    return NULL;
}

void em__copy_reg_init(em__reg *r) {
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->cv, NULL);
}

/* Start registrars up to want (lock held); a failure leaves fewer. */
static void em__grow(em__reg *r, int want) {
    while (r->helpers < want) {
        pthread_attr_t at;
        pthread_t th;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        int e = pthread_create(&th, &at, em__registrar, r);
        pthread_attr_destroy(&at);
        if (e) return;
        r->helpers++;
    }
}

/* The slot events, made once per device generation (the staging lock held). */
static bool em__events(em__pipe *p, em__reg *r) {
    if (r->evs) return true;
    for (int s = 0; s < EM_REG_SLOTS; s++)
        if (p->be->event_create(p->id, false, &r->ev[s]) != EM_OK) {
            while (s-- > 0) p->be->event_destroy(p->id, r->ev[s]);
            return false;
        }
    return r->evs = true;
}

/* Whether slice k can be copied from its registered pages (true) or is to
 * be staged (false); waits for a registrar that has it (lock held).  Mixed
 * (r->lead > 0): a slice no registrar has taken is staged by the caller,
 * and the registrars take slices at least lead past the caller's, so that
 * theirs are registered by the time it gets there and it never waits for
 * a registration it could have staged around. */
static bool em__ready(em__reg *r, size_t k) {
    int s = (int)(k % EM_REG_SLOTS);
    for (;;) {
        if (r->slice[s] == k && (r->state[s] == EM__R_OK || r->state[s] == EM__R_FAILED))
            return r->state[s] == EM__R_OK;
        if (r->slice[s] != k && r->next_reg > k) return false; /* skipped */
        if (r->stop && r->next_reg <= k) return false;
        if (r->lead && r->next_reg <= k) {
            r->next_reg = k + 1;
            return false;
        }
        pthread_cond_wait(&r->cv, &r->lock);
    }
}

/* Slice k (slot s, registered) queued for its DMA. */
static void em__queue(em__pipe *p, em__reg *r, int s, char *dst, char *src, size_t n) {
    em_status e = p->be->from_host_async(p->id, dst, src, n, NULL);
    if (!em__copy_failed(p, e)) {
        p->queued = true;
        e = p->be->event_record(p->id, r->ev[s], NULL);
        if (!em__copy_failed(p, e)) {
            pthread_mutex_lock(&r->lock);
            r->state[s] = EM__R_QUEUED;
            pthread_mutex_unlock(&r->lock);
            return;
        }
        /* Queued with no event to wait for: the stream is, before the
         * pages are let go (the slot stays registered, for the cleanup). */
        p->be->stream_synchronize(p->id, NULL);
    }
}

/* Wait for every registrar, then unregister what is registered and was
 * not queued; no copy is active after (lock held). */
static void em__drain(em__pipe *p, em__reg *r) {
    r->stop = true;
    pthread_cond_broadcast(&r->cv);
    for (;;) {
        bool busy = false;
        for (int s = 0; s < EM_REG_SLOTS; s++)
            busy |= r->state[s] == EM__R_REGISTERING || r->state[s] == EM__R_QUEUED ||
                    r->state[s] == EM__R_UNREGISTERING;
        if (!busy) break;
        pthread_cond_wait(&r->cv, &r->lock);
    }
    for (int s = 0; s < EM_REG_SLOTS; s++) {
        if (r->state[s] == EM__R_OK) {
            char *q;
            size_t n;
            em__slice_at(r, r->slice[s], &q, &n);
            p->be->host_unregister(p->id, q);
            em__hold(q, n, false);
        }
        r->state[s] = EM__R_FREE;
    }
    r->active = false;
}

void em__copy_h2d_reg(em__pipe *p, char *dst, const char *src) {
    em__reg *r = &p->st->reg;
    size_t page = em__page(), n = p->n;
    size_t head = (page - (uintptr_t)src % page) % page;
    size_t tail = (uintptr_t)(src + n) % page;
    size_t S = em__copy_reg_slice();
    bool mixed = em__mode() == 2;
    int threads = em__reg_threads();
    if (n < head + tail + S || !em__events(p, r)) {
        em__copy_h2d(p, dst, src, n);
        return;
    }
    pthread_mutex_lock(&r->lock);
    r->be = p->be, r->id = p->id;
    r->base = (char *)src + head, r->len = n - head - tail, r->S = S;
    for (r->nslices = 0; em__slice_off(S, r->nslices) < r->len; r->nslices++) {}
    r->next_reg = r->next_dma = 0;
    for (int s = 0; s < EM_REG_SLOTS; s++) r->state[s] = EM__R_FREE, r->slice[s] = SIZE_MAX;
    r->active = true, r->stop = false, r->waiting = false, r->why[0] = 0;
    /* Two slices a registrar ahead: registering one takes about as long as
     * staging one, and the registrars share the driver's lock. */
    r->lead = mixed ? (size_t)(2 * threads < EM_REG_SLOTS / 2 ? 2 * threads : EM_REG_SLOTS / 2) : 0;
    em__grow(r, threads);
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->lock);

    em__copy_h2d(p, dst, src, head); /* staged while the first slices register */
    for (size_t k = 0; k < r->nslices && p->s == EM_OK; k++) {
        char *q;
        size_t len;
        em__slice_at(r, k, &q, &len);
        char *d = dst + (q - src);
        int s = (int)(k % EM_REG_SLOTS);
        pthread_mutex_lock(&r->lock);
        bool reg = em__ready(r, k);
        pthread_mutex_unlock(&r->lock);
        if (reg) {
            em__queue(p, r, s, d, q, len);
        } else {
            em__copy_h2d(p, d, q, len);
            pthread_mutex_lock(&r->lock);
            if (r->slice[s] == k) r->state[s] = EM__R_FREE; /* failed: nothing to undo */
            pthread_mutex_unlock(&r->lock);
        }
        pthread_mutex_lock(&r->lock);
        r->next_dma = k + 1;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->lock);
    }
    if (p->s == EM_OK) em__copy_h2d(p, dst + n - tail, src + n - tail, tail);
    pthread_mutex_lock(&r->lock);
    if (r->why[0] && em_debug_level() >= 1)
        fprintf(stderr, "ember: %s:%d: registering a copy's pages failed (%s); staged instead\n",
                p->be->name, p->id, r->why);
    em__drain(p, r);
    pthread_mutex_unlock(&r->lock);
}
