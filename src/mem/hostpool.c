#include "mem/hostpool.h"
#include "core/core.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define EM_POOL_CLASSES 240
#define EM_POOL_HUGE (1u << 21)

typedef struct em__free_block {
    struct em__free_block *next;
} em__free_block;

static struct {
    pthread_mutex_t lock;
    em__free_block *bins[EM_POOL_CLASSES];
    size_t cached, used, limit;
    size_t peak; /* high-water mark of used since the last reset */
    int enabled; /* -1 until the environment has been read */
} em__pool = {PTHREAD_MUTEX_INITIALIZER, {0}, 0, 0, 0, 0, -1};

/* Size class of n: its index and rounded size. */
static int em__class_of(size_t n, size_t *size) {
    if (n <= 64) {
        *size = 64;
        return 0;
    }
    int p = 63 - __builtin_clzll((unsigned long long)(n - 1));
    size_t q = (size_t)1 << (p - 2);
    size_t sub = (n - ((size_t)1 << p) + q - 1) / q; /* 1..4 */
    *size = ((size_t)1 << p) + sub * q;
    return (p - 6) * 4 + (int)sub;
}

static void em__pool_setup(void) {
#ifdef EM_NO_POOL
    em__pool.enabled = 0; /* sanitizer builds: every block goes back to malloc */
#else
    const char *v = getenv("EMBER_HOST_POOL");
    em__pool.enabled = !(v && v[0] == '0');
#endif
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    size_t ram = pages > 0 && psize > 0 ? (size_t)pages * (size_t)psize : (size_t)8 << 30;
    em__pool.limit = ram / 8;
}

/* A new block.  Large ones are aligned to 2 MiB so that madvise (which needs
 * a page-aligned start) can ask for transparent huge pages over all of it:
 * on 4 KiB pages a streaming loop over a few MiB pays a TLB miss every 4 KiB
 * (measured: astype of 1e6 float32 ran 2-3x slower than NumPy, whose large
 * arrays get huge pages). */
static void *em__fresh(size_t size) {
    void *p = NULL;
    size_t align = size >= EM_POOL_HUGE ? EM_POOL_HUGE : 64;
    if (posix_memalign(&p, align, size) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    if (size >= EM_POOL_HUGE) madvise(p, size, MADV_HUGEPAGE);
#endif
    return p;
}

void *em_host_alloc(size_t nbytes) {
    size_t size;
    int c = em__class_of(nbytes, &size);
    pthread_mutex_lock(&em__pool.lock);
    if (em__pool.enabled < 0) em__pool_setup();
    void *p = NULL;
    if (c < EM_POOL_CLASSES && em__pool.bins[c]) {
        p = em__pool.bins[c];
        em__pool.bins[c] = em__pool.bins[c]->next;
        em__pool.cached -= size;
    }
    em__pool.used += size;
    if (em__pool.used > em__pool.peak) em__pool.peak = em__pool.used;
    pthread_mutex_unlock(&em__pool.lock);
    if (!p) p = em__fresh(c < EM_POOL_CLASSES ? size : nbytes);
    if (!p) {
        pthread_mutex_lock(&em__pool.lock);
        em__pool.used -= size;
        pthread_mutex_unlock(&em__pool.lock);
        em_host_pool_release(); /* give the cache back and try once more */
        p = em__fresh(size);
        if (p) {
            pthread_mutex_lock(&em__pool.lock);
            em__pool.used += size;
            if (em__pool.used > em__pool.peak) em__pool.peak = em__pool.used;
            pthread_mutex_unlock(&em__pool.lock);
        }
    }
    return p;
}

void em_host_free(void *p, size_t nbytes) {
    if (!p) return;
    size_t size;
    int c = em__class_of(nbytes, &size);
    pthread_mutex_lock(&em__pool.lock);
    em__pool.used -= size;
    if (em__pool.enabled > 0 && c < EM_POOL_CLASSES && em__pool.cached + size <= em__pool.limit) {
        em__free_block *b = p;
        b->next = em__pool.bins[c];
        em__pool.bins[c] = b;
        em__pool.cached += size;
        p = NULL;
    }
    pthread_mutex_unlock(&em__pool.lock);
    free(p);
}

void em_host_pool_stats(size_t *used, size_t *cached) {
    pthread_mutex_lock(&em__pool.lock);
    if (used) *used = em__pool.used;
    if (cached) *cached = em__pool.cached;
    pthread_mutex_unlock(&em__pool.lock);
}

/* The most bytes held by live blocks since the last reset (the fusion
 * tests measure peak memory with it); reset starts again from now. */
EM_API void em_host_pool_peak(size_t *peak, int reset) {
    pthread_mutex_lock(&em__pool.lock);
    if (peak) *peak = em__pool.peak;
    if (reset) em__pool.peak = em__pool.used;
    pthread_mutex_unlock(&em__pool.lock);
}

void em_host_pool_release(void) {
    pthread_mutex_lock(&em__pool.lock);
    for (int c = 0; c < EM_POOL_CLASSES; c++) {
        em__free_block *b = em__pool.bins[c];
        while (b) {
            em__free_block *n = b->next;
            free(b);
            b = n;
        }
        em__pool.bins[c] = NULL;
    }
    em__pool.cached = 0;
    pthread_mutex_unlock(&em__pool.lock);
}
