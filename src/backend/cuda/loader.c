/* Run-time loading of the CUDA driver and NVRTC (the CUDA libraries'
 * bindings in backend/cudalib/ load theirs the same way, backend/dynlib.h).
 *
 * Each library's entry points come from its .fn table, expanded twice: once
 * into the struct of function pointers (cuda_api.h), once here into the
 * dlsym calls.  Several sonames are tried so that one build serves CUDA 12
 * and 13.  Loading happens once, under pthread_once, the first time a CUDA
 * device is asked about -- never at import.
 */
#include "backend/cuda/cuda_internal.h"
#include "backend/dynlib.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

em__cu_api em__cu;
em__nvrtc_api em__nvrtc;

typedef struct em__lib {
    pthread_once_t once;
    void *handle;
    em_status status;
    char why[512]; /* why loading failed, for messages and EMBER_DEBUG */
} em__lib;

static em__lib em__culib = {PTHREAD_ONCE_INIT}, em__nvlib = {PTHREAD_ONCE_INIT};
static int em__cu_count;
static int em__nvrtc_ver;

/* Fill table t from handle h using the .fn rows; false names the missing one. */
#define EM_FN EM_DL_BIND
static bool em__bind_cu(void *h, em__cu_api *t, char *why, size_t nwhy) {
#include "backend/cuda/libcuda.fn"
    return true;
}
static bool em__bind_nvrtc(void *h, em__nvrtc_api *t, char *why, size_t nwhy) {
#include "backend/cuda/libnvrtc.fn"
    return true;
}
#undef EM_FN

/* $EMBER_LIBCUDA (a path: a shim or the tests' fake driver), then the sonames. */
static void em__load_cu(void) {
    const char *over = getenv("EMBER_LIBCUDA");
    const char *names[] = {over && *over ? over : "libcuda.so.1", "libcuda.so.1", "libcuda.so",
                           NULL};
    em__lib *lib = &em__culib;
    lib->status = EM_EDEVICE;
    if (!(lib->handle = em_dl_open(NULL, names, lib->why, sizeof lib->why)) ||
        !em__bind_cu(lib->handle, &em__cu, lib->why, sizeof lib->why))
        goto fail;
    CUresult r = em__cu.cuInit(0);
    int n = 0;
    if (r == EM_CU_SUCCESS) r = em__cu.cuDeviceGetCount(&n);
    if (r != EM_CU_SUCCESS) {
        const char *name = "?";
        em__cu.cuGetErrorName(r, &name);
        snprintf(lib->why, sizeof lib->why, "cuInit failed: %s (%d)", name ? name : "?", r);
        goto fail;
    }
    if (n == 0) snprintf(lib->why, sizeof lib->why, "the driver reports no devices");
    em__cu_count = n;
    lib->status = EM_OK;
    if (n == 0) em_dl_say("CUDA driver", lib->why);
    return;
fail:
    em_dl_say("CUDA driver", lib->why);
}

int em_cu_init(void) {
    pthread_once(&em__culib.once, em__load_cu);
    return em__cu_count;
}

/* NVRTC's sonames, then the toolkit's usual homes: $EMBER_NVRTC (a path),
 * $CUDA_HOME / $CUDA_PATH, /usr/local/cuda. */
static void em__load_nvrtc(void) {
    static char paths[6][512];
    const char *envs[3] = {getenv("EMBER_NVRTC"), getenv("CUDA_HOME"), getenv("CUDA_PATH")};
    const char *names[16];
    int n = 0;
    if (envs[0] && *envs[0]) names[n++] = envs[0];
    for (int e = 1; e < 3; e++)
        if (envs[e] && *envs[e])
            for (int v = 0; v < 2; v++) {
                snprintf(paths[(e - 1) * 2 + v], sizeof paths[0], "%s/lib64/libnvrtc.so.%d",
                         envs[e], v ? 12 : 13);
                names[n++] = paths[(e - 1) * 2 + v];
            }
    static const char *const fixed[] = {"libnvrtc.so.13",
                                        "libnvrtc.so.12",
                                        "libnvrtc.so",
                                        "/usr/local/cuda/lib64/libnvrtc.so.13",
                                        "/usr/local/cuda/lib64/libnvrtc.so.12",
                                        "/usr/local/cuda/lib64/libnvrtc.so"};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) names[n++] = fixed[i];
    names[n] = NULL;
    em__lib *lib = &em__nvlib;
    lib->status = EM_EDEVICE;
    if (!(lib->handle = em_dl_open(NULL, names, lib->why, sizeof lib->why)) ||
        !em__bind_nvrtc(lib->handle, &em__nvrtc, lib->why, sizeof lib->why)) {
        em_dl_say("CUDA NVRTC", lib->why);
        return;
    }
    int major = 0, minor = 0;
    em__nvrtc.nvrtcVersion(&major, &minor);
    em__nvrtc_ver = major * 1000 + minor * 10;
    lib->status = EM_OK;
}

static void *em__nvrtc_thread(void *unused) {
    (void)unused;
    pthread_once(&em__nvlib.once, em__load_nvrtc);
    return NULL;
}

/* The loading thread (em_cuda_prefetch_nvrtc).  Not joined by a C atexit
 * handler: libnvrtc registers its destructors while it loads, after any
 * handler of ours, so exit() would run them while its constructors still
 * ran on the thread (a SIGSEGV seen here).  Its owner joins it first. */
static pthread_mutex_t em__prefetch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t em__nvrtc_loader;
static bool em__prefetch_on, em__prefetch_tried, em__nvrtc_loading;

void em_cuda_prefetch_nvrtc(bool on) {
    pthread_mutex_lock(&em__prefetch_lock);
    em__prefetch_on = on;
    pthread_mutex_unlock(&em__prefetch_lock);
}

void em_cuda_prefetch_wait(void) {
    pthread_mutex_lock(&em__prefetch_lock);
    em__prefetch_on = false; /* none starts after this */
    bool join = em__nvrtc_loading;
    em__nvrtc_loading = false;
    pthread_mutex_unlock(&em__prefetch_lock);
    if (join) pthread_join(em__nvrtc_loader, NULL);
}

void em_nvrtc_prefetch(void) {
    pthread_mutex_lock(&em__prefetch_lock);
    /* Once per process; if no thread starts, the first kernel loads NVRTC. */
    if (em__prefetch_on && !em__prefetch_tried)
        em__nvrtc_loading = pthread_create(&em__nvrtc_loader, NULL, em__nvrtc_thread, NULL) == 0;
    em__prefetch_tried = true;
    pthread_mutex_unlock(&em__prefetch_lock);
}

em_status em_nvrtc_init(void) {
    pthread_once(&em__nvlib.once, em__load_nvrtc);
    if (em__nvlib.status != EM_OK)
        return em_error(EM_EDEVICE, "NVRTC (the CUDA run-time compiler) is unavailable: %s",
                        em__nvlib.why);
    return EM_OK;
}

int em_nvrtc_version(void) { return em__nvrtc_ver; }

/* Why the driver gave no devices ("" when it did), for device errors. */
const char *em_cu_why(void) {
    em_cu_init();
    return em__cu_count ? "" : em__culib.why;
}

_Thread_local char em_cu_last_kernel[64];

em_status em_cu_fail(CUresult r, const char *fmt, ...) {
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const char *name = NULL, *text = NULL;
    em__cu.cuGetErrorName(r, &name);
    em__cu.cuGetErrorString(r, &text);
    /* Codes 700-799 are faults of a kernel, reported at the next call. */
    bool fault = r >= 700 && r < 800 && em_cu_last_kernel[0];
    em_cu_note_fault(r); /* a sticky one: the device is reset at its next use (reset.c) */
    return em_error(r == EM_CU_ERROR_OUT_OF_MEMORY ? EM_ENOMEM : EM_EDEVICE,
                    "CUDA error during %s: %s (%s)%s%s%s", what, name ? name : "unknown",
                    text ? text : "no description", fault ? "; the last kernel launched was '" : "",
                    fault ? em_cu_last_kernel : "", fault ? "'" : "");
}
