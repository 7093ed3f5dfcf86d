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
 */
#include "backend/cuda/cuda_internal.h"
#include "core/core.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_bool em__lost[EM_CU_MAXDEV];
static atomic_uint em__resets; /* resets of any device, for stream.c */
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
    if (em_cu_sticky(r) && id >= 0 && id < EM_CU_MAXDEV)
        atomic_store_explicit(&em__lost[id], true, memory_order_release);
}

bool em_cu_lost(int id) {
    return (unsigned)id < EM_CU_MAXDEV && atomic_load_explicit(&em__lost[id], memory_order_acquire);
}

em_status em_cu_recover(int id, CUcontext *ctx) {
    em_status s = EM_OK;
    pthread_mutex_lock(&em__reset_lock);
    if (atomic_load_explicit(&em__lost[id], memory_order_acquire)) {
        em_cu_pool_forget(id);
        em_cu_blas_forget(id);
        em_device dev = {EM_CUDA, id};
        em_device_generation_bump(dev); /* kernels, modules and arrays of before */
        atomic_fetch_add_explicit(&em__resets, 1, memory_order_acq_rel);
        CUdevice d;
        CUcontext c = NULL;
        CUresult r = em__cu.cuDeviceGet(&d, id);
        if (r == EM_CU_SUCCESS) r = em__cu.cuDevicePrimaryCtxReset(d);
        if (r == EM_CU_SUCCESS) r = em__cu.cuDevicePrimaryCtxRetain(&c, d);
        if (r == EM_CU_SUCCESS) {
            *ctx = c;
            atomic_store_explicit(&em__lost[id], false, memory_order_release);
            if (em_debug_level() >= 1)
                fprintf(stderr, "ember: cuda:%d was reset after a faulting kernel\n", id);
        } else {
            s = em_error(EM_EDEVICE,
                         "cuda:%d could not be reset after a faulting kernel "
                         "(CUDA error %d)",
                         id, r);
        }
    }
    pthread_mutex_unlock(&em__reset_lock);
    return s;
}
