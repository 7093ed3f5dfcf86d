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
    if (!be->kernel_get)
        return em_error(EM_EUNSUPPORTED, "the %s backend compiles no kernels", be->name);
    size_t klen = strlen(key);
    return be->kernel_get(id, key, klen, em_key_hash(key, klen), name, fname, render, ctx, out);
}
