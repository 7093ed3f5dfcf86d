/* Run-time loading of cuFFT and cuSOLVER (backend/dynlib.h, as loader.c).
 *
 * $EMBER_LIBCUFFT / $EMBER_LIBCUSOLVER (a path) is tried first, then the
 * sonames: CUDA 13 ships cuFFT and cuSOLVER as .so.12, CUDA 12 as .so.11.
 * On the GPU machines the libraries come from pip wheels (nvidia-cufft,
 * nvidia-cusolver), which the dynamic loader finds as it finds cuBLAS's.
 * A missing library is not an error for Ember: the Python layer computes
 * on the host then (with em.HostFallbackWarning). */
#include "backend/cudalib/cudalib.h"
#include "backend/dynlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

em__cufft_api em__cufft;
em__cusolver_api em__cusolver;
em__cublasb_api em__cublasb;

typedef struct em__clib {
    pthread_once_t once;
    em_status status;
    char why[512];
} em__clib;

static em__clib em__fftlib = {PTHREAD_ONCE_INIT}, em__sollib = {PTHREAD_ONCE_INIT},
                em__bllib = {PTHREAD_ONCE_INIT};

#define EM_FN EM_DL_BIND
static bool em__bind_cufft(void *h, em__cufft_api *t, char *why, size_t nwhy) {
#include "backend/cudalib/libcufft.fn"
    return true;
}
static bool em__bind_cusolver(void *h, em__cusolver_api *t, char *why, size_t nwhy) {
#include "backend/cudalib/libcusolver.fn"
    return true;
}
static bool em__bind_cublasb(void *h, em__cublasb_api *t, char *why, size_t nwhy) {
#include "backend/cudalib/libcublas_batched.fn"
    return true;
}
#undef EM_FN

static const char *const em__fft_names[] = {"libcufft.so.12", "libcufft.so.11", "libcufft.so",
                                            NULL};
static const char *const em__sol_names[] = {"libcusolver.so.12", "libcusolver.so.11",
                                            "libcusolver.so", NULL};

static void em__load_cufft(void) {
    em__clib *l = &em__fftlib;
    l->status = EM_EDEVICE;
    void *h = em_dl_open("EMBER_LIBCUFFT", em__fft_names, l->why, sizeof l->why);
    if (!h || !em__bind_cufft(h, &em__cufft, l->why, sizeof l->why)) {
        em_dl_say("cuFFT", l->why);
        return;
    }
    l->status = EM_OK;
}

static void em__load_cusolver(void) {
    em__clib *l = &em__sollib;
    l->status = EM_EDEVICE;
    void *h = em_dl_open("EMBER_LIBCUSOLVER", em__sol_names, l->why, sizeof l->why);
    if (!h || !em__bind_cusolver(h, &em__cusolver, l->why, sizeof l->why)) {
        em_dl_say("cuSOLVER", l->why);
        return;
    }
    l->status = EM_OK;
}

/* cuBLAS's sonames, as src/backend/cuda/loader.c tries them (CUDA 13, 12);
 * dlopen hands back the handle already loaded for the gemms. */
static const char *const em__blas_names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so",
                                             NULL};

static void em__load_cublasb(void) {
    em__clib *l = &em__bllib;
    l->status = EM_EDEVICE;
    void *h = em_dl_open("EMBER_LIBCUBLAS", em__blas_names, l->why, sizeof l->why);
    if (!h || !em__bind_cublasb(h, &em__cublasb, l->why, sizeof l->why)) {
        em_dl_say("cuBLAS (batched LU)", l->why);
        return;
    }
    l->status = EM_OK;
}

em_status em_cublasb_init(void) {
    pthread_once(&em__bllib.once, em__load_cublasb);
    if (em__bllib.status != EM_OK)
        return em_error(EM_EDEVICE, "cuBLAS is unavailable: %s", em__bllib.why);
    return EM_OK;
}

em_status em_cufft_init(void) {
    pthread_once(&em__fftlib.once, em__load_cufft);
    if (em__fftlib.status != EM_OK)
        return em_error(EM_EDEVICE, "cuFFT is unavailable: %s", em__fftlib.why);
    return EM_OK;
}

em_status em_cusolver_init(void) {
    pthread_once(&em__sollib.once, em__load_cusolver);
    if (em__sollib.status != EM_OK)
        return em_error(EM_EDEVICE, "cuSOLVER is unavailable: %s", em__sollib.why);
    return EM_OK;
}

bool em_cudalib_available(int which) {
    em_status s = which == EM_CUDALIB_CUFFT    ? em_cufft_init()
                  : which == EM_CUDALIB_CUBLAS ? em_cublasb_init()
                                               : em_cusolver_init();
    return s == EM_OK;
}

/* Bind one library file into a scratch table, uncached (for the tests: do
 * the symbol lists resolve against a real library?).  The library stays
 * loaded. */
em_status em_cudalib_probe(int which, const char *path) {
    char why[512];
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return em_error(EM_EDEVICE, "could not load %s: %s", path, dlerror());
    bool ok;
    if (which == EM_CUDALIB_CUFFT) {
        em__cufft_api t;
        ok = em__bind_cufft(h, &t, why, sizeof why);
    } else if (which == EM_CUDALIB_CUBLAS) {
        em__cublasb_api t;
        ok = em__bind_cublasb(h, &t, why, sizeof why);
    } else {
        em__cusolver_api t;
        ok = em__bind_cusolver(h, &t, why, sizeof why);
    }
    /* No dlclose: NVIDIA's libraries allocate at load (their own copies of
     * libstdc++'s exception pool among them) and free nothing at unload, so
     * unloading would leak what staying loaded keeps reachable. */
    return ok ? EM_OK : em_error(EM_EDEVICE, "%s: %s", path, why);
}

int em_cudalib_dtype(em_dtype t) {
    /* cudaDataType (library_types.h): CUDA_R_32F 0, R_64F 1, C_32F 4, C_64F 5. */
    switch (t) {
    case EM_FLOAT32: return 0;
    case EM_FLOAT64: return 1;
    case EM_COMPLEX64: return 4;
    case EM_COMPLEX128: return 5;
    default: return -1;
    }
}
