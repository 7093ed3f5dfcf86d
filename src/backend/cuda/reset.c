/* Recovery after a faulting kernel.
 *
 * A kernel that faults (an illegal address, a trap, a misaligned access:
 * CUDA's codes 700-719 below) leaves its context "sticky": every later call
 * in that context returns the same error, for the life of the context.
 * Ember does not give up the device for the rest of the process: the call
 * that sees such an error marks the device lost (em_cu_note_fault, from
 * em_cu_fail), and the next call that makes the device current
 * (em_cu_ctx) recovers it here:
 *
 *   - everything Ember cached in the old context is dropped without calling
 *     the driver on it: the pool's cached blocks and the cuBLAS handle
 *     (em_cu_*_forget); the staged copies' pinned buffers and events
 *     (codegen/run_copy.c) are made anew when it sees the new generation; loaded
 *     kernels and modules are keyed by the device's generation, so the old
 *     ones are never found again; a thread's current stream from before
 *     the reset reads as the default stream (stream.c);
 *   - the device's generation is bumped (core/device.c): arrays allocated
 *     before the reset raise "the array's memory was lost ..." when used
 *     (em_array_live), and freeing them gives nothing back to the pool, since
 *     their addresses may already belong to new allocations;
 *   - the primary context is reset (cuDevicePrimaryCtxReset frees all of
 *     its memory and state) and retained again: new work runs.
 *
 * Other threads that are using the device at that moment see errors from
 * their calls; streams and events the user created (em.cuda.Stream) and
 * raw modules loaded before belong to the old context and raise when used.
 *
 * NVIDIA documents that a process must exit after a sticky error, and on
 * real drivers the reset usually fails with the same error (the H200 run of
 * 2026-11-26).  Then the device is dead for the process: every later call
 * that makes it current raises one error that names the fault and says the
 * process must be restarted (no further driver call, so no cascade of
 * different errors), while the CPU and other devices keep working
 * (docs/guide/troubleshooting.rst, docs/fuzzing.md).
 */
#include "backend/cuda/cuda_internal.h"
#include "core/core.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_bool em__lost[EM_CU_MAXDEV];
static atomic_int em__fault[EM_CU_MAXDEV]; /* the sticky code that made it lost */
static atomic_int em__dead[EM_CU_MAXDEV];  /* the reset's error: lost for good */
static atomic_uint em__resets;             /* resets of any device, for stream.c */
static pthread_mutex_t em__reset_lock = PTHREAD_MUTEX_INITIALIZER;
/* The device whose context this thread last made current: the one a
 * failing call ran in. */
static _Thread_local int em__current = -1;

void em_cu_note_current(int id) { em__current = id; }

unsigned em_cu_resets(void) { return atomic_load_explicit(&em__resets, memory_order_acquire); }

bool em_cu_sticky(CUresult r) {
    switch (r) {
    case 700: /* CUDA_ERROR_ILLEGAL_ADDRESS */
    case 702: /* CUDA_ERROR_LAUNCH_TIMEOUT */
    case 710: /* CUDA_ERROR_ASSERT (a device-side trap or assert) */
    case 714: /* CUDA_ERROR_HARDWARE_STACK_ERROR */
    case 715: /* CUDA_ERROR_ILLEGAL_INSTRUCTION */
    case 716: /* CUDA_ERROR_MISALIGNED_ADDRESS */
    case 717: /* CUDA_ERROR_INVALID_ADDRESS_SPACE */
    case 718: /* CUDA_ERROR_INVALID_PC */
    case 719: /* CUDA_ERROR_LAUNCH_FAILED */ return true;
    default: return false;
    }
}

void em_cu_note_fault(CUresult r) {
    int id = em__current;
    if (em_cu_sticky(r) && id >= 0 && id < EM_CU_MAXDEV) {
        int none = 0; /* the first fault is the one to name */
        atomic_compare_exchange_strong(&em__fault[id], &none, (int)r);
        atomic_store_explicit(&em__lost[id], true, memory_order_release);
    }
}

bool em_cu_lost(int id) {
    return (unsigned)id < EM_CU_MAXDEV && atomic_load_explicit(&em__lost[id], memory_order_acquire);
}

/* The one error of a dead device. */
static em_status em__dead_error(int id) {
    int fault = atomic_load(&em__fault[id]), reset = atomic_load(&em__dead[id]);
    const char *name = NULL;
    if (fault) em__cu.cuGetErrorName((CUresult)fault, &name);
    return em_error(EM_EDEVICE,
                    "cuda:%d is unusable for the rest of this process: a kernel faulted "
                    "(CUDA error %d, %s) and the driver keeps that error for the process "
                    "(resetting the context failed with error %d); restart the process to use "
                    "the GPU again (arrays on the CPU keep working)",
                    id, fault, name ? name : "a sticky error", reset);
}

bool em_cu_dead(int id) {
    return (unsigned)id < EM_CU_MAXDEV && atomic_load_explicit(&em__dead[id], memory_order_acquire);
}

em_status em_cu_recover(int id, CUcontext *ctx) {
    em_status s = EM_OK;
    pthread_mutex_lock(&em__reset_lock);
    if (atomic_load_explicit(&em__dead[id], memory_order_acquire)) {
        s = em__dead_error(id);
    } else if (atomic_load_explicit(&em__lost[id], memory_order_acquire)) {
        em_cu_pool_forget(id);
        em_cu_blas_forget(id);
        atomic_fetch_add_explicit(&em__resets, 1, memory_order_acq_rel);
        CUdevice d;
        CUcontext c = NULL;
        CUresult r = em__cu.cuDeviceGet(&d, id);
        if (r == EM_CU_SUCCESS) r = em__cu.cuDevicePrimaryCtxReset(d);
        if (r == EM_CU_SUCCESS) r = em__cu.cuDevicePrimaryCtxRetain(&c, d);
        /* The new context must take a call: a driver that kept the sticky
         * error answers the first one with it. */
        if (r == EM_CU_SUCCESS) r = em__cu.cuCtxSetCurrent(c);
        if (r == EM_CU_SUCCESS) r = em__cu.cuCtxSynchronize();
        if (r == EM_CU_SUCCESS) {
            /* kernels, modules and arrays of before (on a dead device they
             * keep their generation: any use of them meets the dead error) */
            em_device dev = {EM_CUDA, id};
            em_device_generation_bump(dev);
            *ctx = c;
            atomic_store(&em__fault[id], 0);
            atomic_store_explicit(&em__lost[id], false, memory_order_release);
            if (em_debug_level() >= 1)
                fprintf(stderr, "ember: cuda:%d was reset after a faulting kernel\n", id);
        } else {
            atomic_store_explicit(&em__dead[id], r ? (int)r : -1, memory_order_release);
            s = em__dead_error(id);
            if (em_debug_level() >= 1)
                fprintf(stderr, "ember: cuda:%d could not be reset (CUDA error %d)\n", id, r);
        }
    }
    pthread_mutex_unlock(&em__reset_lock);
    return s;
}
