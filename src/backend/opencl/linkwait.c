/* PoCL links a kernel's work-group function the first time a launch of a
 * new shape runs, on one of its own worker threads, by spawning the system
 * linker through clang's driver: posix_spawn with the process's environ.
 * glibc's setenv and unsetenv may move or free that array meanwhile, so a
 * thread that changes the environment then (pytest writes
 * PYTEST_CURRENT_TEST at every test phase; os.environ in any thread) makes
 * the spawn fail with EFAULT, and PoCL aborts the process ("posix_spawn
 * failed: Bad address ... Final linking of kernel ... failed").  Changing
 * os.environ for two seconds after each new kernel's launch (no wait)
 * aborted three runs in four within six kernels, on the 2-core VM; with the
 * wait, twelve kernels ran clean.
 *
 * So on PoCL the first launch of each (kernel, work-group shape) waits for
 * its queue before it returns: the link is done while the launching thread
 * is still inside Ember.  (Another Python thread may still change the
 * environment while this one waits with the GIL released; nothing a
 * caller does can order that against PoCL's spawn.)  Later
 * launches of the shape do not wait.  Other platforms link at build time
 * and never wait.  EMBER_OPENCL_LINK_WAIT=0 turns the wait off, 1 on for
 * any platform. */
#include "backend/opencl/cl_internal.h"

#include <stdlib.h>
#include <string.h>

enum { EM__WARM = 4096 };

typedef struct em__warm {
    const void *kernel; /* NULL: a free slot */
    size_t local[3];
    cl_uint ndim;
    bool big; /* a global size past 32 bits: PoCL specializes on it */
} em__warm;

static em__warm em__seen[EM__WARM];
static int em__nseen;
static uint64_t em__waits;
static pthread_mutex_t em__seen_lock = PTHREAD_MUTEX_INITIALIZER;

bool em_cl_link_waits(const em_opencl_info *in) {
    const char *e = getenv("EMBER_OPENCL_LINK_WAIT");
    if (e && *e) return strcmp(e, "0") != 0;
    return strstr(in->platform, "Portable Computing Language") || strstr(in->version, "PoCL");
}

/* Whether the shape was seen before; adds it when not (a full table adds
 * nothing: every launch then waits, which is only slower). */
static bool em__seen_before(const em__warm *w) {
    size_t h = (uintptr_t)w->kernel >> 4;
    for (cl_uint i = 0; i < 3; i++) h = h * 1000003u ^ w->local[i];
    h = (h * 31 + w->ndim) * 2 + w->big;
    bool seen = false;
    pthread_mutex_lock(&em__seen_lock);
    for (size_t i = 0, j = h % EM__WARM; i < EM__WARM; i++, j = (j + 1) % EM__WARM) {
        em__warm *s = &em__seen[j];
        if (!s->kernel) {
            if (em__nseen < EM__WARM * 3 / 4) *s = *w, em__nseen++;
            break;
        }
        if (!memcmp(s, w, sizeof *w)) {
            seen = true;
            break;
        }
    }
    pthread_mutex_unlock(&em__seen_lock);
    return seen;
}

cl_int em_cl_link_wait(const em_cl_dev *d, cl_command_queue q, const void *kernel, cl_uint ndim,
                       const size_t *global, const size_t *local) {
    if (!d->link_wait) return 0;
    em__warm w;
    memset(&w, 0, sizeof w); /* the padding too: slots are compared whole */
    w.kernel = kernel;
    w.ndim = ndim;
    for (cl_uint i = 0; i < ndim && i < 3; i++) {
        w.local[i] = local ? local[i] : 0;
        w.big |= global[i] > UINT32_MAX;
    }
    if (em__seen_before(&w)) return 0;
    pthread_mutex_lock(&em__seen_lock);
    em__waits++;
    pthread_mutex_unlock(&em__seen_lock);
    return em__cl.clFinish(q);
}

uint64_t em_opencl_link_waits(void) {
    pthread_mutex_lock(&em__seen_lock);
    uint64_t n = em__waits;
    pthread_mutex_unlock(&em__seen_lock);
    return n;
}

void em_cl_link_forget(void) {
    /* A released kernel's address may come back for another kernel, whose
     * first launch must wait again: forget every shape (releases are the
     * user's raw kernels, rare). */
    pthread_mutex_lock(&em__seen_lock);
    memset(em__seen, 0, sizeof em__seen);
    em__nseen = 0;
    pthread_mutex_unlock(&em__seen_lock);
}
