/* CUDA devices: counts, properties, primary contexts.
 *
 * Each device's primary context is retained the first time that device is
 * used (never at import) and kept for the life of the process; every call
 * that touches a device first makes its context current on the calling
 * thread (cuCtxSetCurrent is cheap, and always calling it stays right when
 * CuPy or PyTorch in the same process switch contexts behind our back).
 * CUDA_VISIBLE_DEVICES is honoured by the driver itself.
 */
#include "backend/cuda/cuda_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct em__dev {
    atomic_bool ready; /* opened: the launch path's check, without the lock */
    em_status status;
    char why[256];
    CUcontext ctx;
    em_device_props props;
} em__dev;

static em__dev em__devs[EM_CU_MAXDEV];
static pthread_mutex_t em__devs_lock = PTHREAD_MUTEX_INITIALIZER;

static em_status em__check_id(int id) {
    int n = em_cu_init();
    if (id < 0 || id >= n || id >= EM_CU_MAXDEV)
        return em_error(EM_EDEVICE, "no device cuda:%d (%d CUDA device%s available%s%s)", id, n,
                        n == 1 ? "" : "s", n ? "" : ": ", n ? "" : em_cu_why());
    return EM_OK;
}

static em_status em__attr(CUdevice d, int attr, int *v) {
    EM_CU(em__cu.cuDeviceGetAttribute(v, attr, d), "cuDeviceGetAttribute");
    return EM_OK;
}

/* Query properties and retain the primary context.  Lock held. */
static em_status em__open(int id, em__dev *dv) {
    CUdevice d;
    em_device_props *p = &dv->props;
    int shm;
    EM_CU(em__cu.cuDeviceGet(&d, id), "cuDeviceGet");
    EM_CU(em__cu.cuDeviceGetName(p->name, (int)sizeof p->name, d), "cuDeviceGetName");
    EM_CHECK(em__attr(d, EM_CU_ATTR_CC_MAJOR, &p->compute_capability[0]));
    EM_CHECK(em__attr(d, EM_CU_ATTR_CC_MINOR, &p->compute_capability[1]));
    EM_CHECK(em__attr(d, EM_CU_ATTR_MULTIPROCESSOR_COUNT, &p->multiprocessor_count));
    EM_CHECK(em__attr(d, EM_CU_ATTR_MAX_THREADS_PER_BLOCK, &p->max_threads_per_block));
    for (int i = 0; i < 3; i++) {
        EM_CHECK(em__attr(d, EM_CU_ATTR_MAX_BLOCK_DIM_X + i, &p->max_block_dim[i]));
        EM_CHECK(em__attr(d, EM_CU_ATTR_MAX_GRID_DIM_X + i, &p->max_grid_dim[i]));
    }
    EM_CHECK(em__attr(d, EM_CU_ATTR_SHARED_MEMORY_PER_BLOCK, &shm));
    p->shared_memory_per_block = (size_t)shm;
    EM_CU(em__cu.cuDeviceTotalMem(&p->total_memory, d), "cuDeviceTotalMem");
    /* Every first use of a device compiles or loads kernels soon: NVRTC may
     * load while the driver makes the context (a disk-cache hit needs its
     * version for the key; em_cuda_prefetch_nvrtc). */
    em_nvrtc_prefetch();
    EM_CU(em__cu.cuDevicePrimaryCtxRetain(&dv->ctx, d), "cuDevicePrimaryCtxRetain");
    return EM_OK;
}

static em_status em__dev_get(int id, em__dev **out) {
    if ((unsigned)id < EM_CU_MAXDEV &&
        atomic_load_explicit(&em__devs[id].ready, memory_order_acquire)) {
        *out = &em__devs[id];
        return EM_OK;
    }
    EM_CHECK(em__check_id(id));
    em__dev *dv = &em__devs[id];
    pthread_mutex_lock(&em__devs_lock);
    if (!dv->ctx && dv->status == EM_OK) {
        dv->status = em__open(id, dv);
        if (dv->status != EM_OK)
            snprintf(dv->why, sizeof dv->why, "%s", em_last_error());
        else
            atomic_store_explicit(&dv->ready, true, memory_order_release);
    }
    pthread_mutex_unlock(&em__devs_lock);
    if (dv->status != EM_OK) return em_error(dv->status, "cuda:%d is unusable: %s", id, dv->why);
    *out = dv;
    return EM_OK;
}

em_status em_cu_ctx(int id) {
    em__dev *dv;
    EM_CHECK(em__dev_get(id, &dv));
    if (em_cu_lost(id)) EM_CHECK(em_cu_recover(id, &dv->ctx)); /* after a fault: reset.c */
    em_cu_note_current(id);
    EM_CU(em__cu.cuCtxSetCurrent(dv->ctx), "cuCtxSetCurrent");
    return EM_OK;
}

em_status em_cu_props(int id, const em_device_props **out) {
    em__dev *dv;
    EM_CHECK(em__dev_get(id, &dv));
    *out = &dv->props;
    return EM_OK;
}
