/* Shared by the drivers (run.h). */
#include "codegen/run.h"
#include "codegen/render.h"
#include "core/core.h"

#include <string.h>

em_status em_run_dialect(const em_backend *be, const em_dialect **out) {
    *out = be->dialect ? em_dialect_find(be->dialect) : NULL;
    return *out ? EM_OK : em_error(EM_EUNSUPPORTED, "the %s backend renders no kernels", be->name);
}

em_status em_run_kernel(const em_backend *be, int id, const char *key, const char *name,
                        const char *fname, em_render_cb render, const void *ctx,
                        const em_kfn **out) {
    size_t klen = strlen(key);
    return em_run_get(be, id, key, klen, em_key_hash(key, klen), name, fname, render, ctx, out);
}

em_status em_run_launch(const em_backend *be, int id, const em_kfn *k, unsigned grid,
                        unsigned block, unsigned shmem, void *blob, size_t size, const int *slots,
                        int nslots) {
    const em_dialect *d;
    EM_CHECK(em_run_dialect(be, &d));
    if (d->args_struct) return em_run_launch1(be, id, k, grid, block, shmem, blob, false);
    if (nslots > EM_KARGS_MAXBUF)
        return em_error(EM_EUNSUPPORTED, "a kernel of more than %d buffers", EM_KARGS_MAXBUF);
    em_kargs ka = {.nbuf = nslots, .blob = blob, .blob_size = size};
    for (int i = 0; i < nslots; i++) {
        void *ptr = NULL;
        if (slots[i] >= 0 && 8 * (size_t)slots[i] + 8 <= size)
            memcpy(&ptr, (const char *)blob + 8 * (size_t)slots[i], sizeof ptr);
        ka.buf[i] = ptr;
    }
    /* A NULL slot (no partials, a fused leaf passed by value) is never read
     * by the kernel; the runtime maps every entry to a buffer, so it gets
     * one of the launch's own. */
    const void *any = NULL;
    for (int i = 0; i < nslots && !any; i++) any = ka.buf[i];
    for (int i = 0; i < nslots; i++)
        if (!ka.buf[i]) ka.buf[i] = any;
    return em_run_launch1(be, id, k, grid, block, shmem, &ka, true);
}

int em_run_slots(int *slots, int first, int n) {
    for (int i = 0; i < n; i++) slots[i] = first + i;
    return n;
}
