/* Kernel text for the Python front ends, reached through the extension
 * (include/ember/kernel.h): the preludes of @em.jit kernels and of
 * expression kernels, and the dialect tables' spellings by name, so that
 * python/ember/_jit/render.py and _expr.py keep no kernel text of their
 * own, nor _rawcpu.py its CUDA-on-the-CPU shim.  The preludes are source
 * files in this folder (jit_prelude_c.inc, jit_prelude_cuda.cuh, jit_prelude_opencl.cl,
 * expr_prelude_c.inc, expr_prelude_cuda.cuh, expr_prelude_opencl.cl, raw_prelude_c.inc),
 * embedded by the build (cmake/embed_text.cmake) into headers in the build
 * tree. */
#include "codegen/dialect.h"
#include "codegen/expr_prelude_c.h"
#include "codegen/expr_prelude_cuda.h"
#include "codegen/expr_prelude_opencl.h"
#include "codegen/jit_prelude_c.h"
#include "codegen/jit_prelude_cuda.h"
#include "codegen/jit_prelude_opencl.h"
#include "codegen/raw_prelude_c.h"
#include "ember/kernel.h"

#include <stddef.h>
#include <string.h>

const char *em_jit_prelude(const char *dialect) {
    if (!dialect) return NULL;
    if (strcmp(dialect, "c") == 0) return em_jit_prelude_c_text;
    if (strcmp(dialect, "cuda") == 0) return em_jit_prelude_cuda_text;
    if (strcmp(dialect, "opencl") == 0) return em_jit_prelude_opencl_text;
    return NULL;
}

const char *em_expr_prelude(const char *dialect) {
    if (!dialect) return NULL;
    if (strcmp(dialect, "c") == 0) return em_expr_prelude_c_text;
    if (strcmp(dialect, "cuda") == 0) return em_expr_prelude_cuda_text;
    if (strcmp(dialect, "opencl") == 0) return em_expr_prelude_opencl_text;
    return NULL;
}

const char *em_raw_prelude(const char *dialect) {
    return dialect && strcmp(dialect, "c") == 0 ? em_raw_prelude_c_text : NULL;
}

/* One row per field of em_dialect a front end may spell with: a string
 * (offset of a const char * member) or a number (of a bool or int one). */
typedef struct {
    const char *key;
    size_t off;
    char kind; /* 's' string, 'b' bool, 'i' int */
} em__dfield;

#define EM__S(f) \
    { #f, offsetof(em_dialect, f), 's' }
#define EM__B(f) \
    { #f, offsetof(em_dialect, f), 'b' }
#define EM__I(f) \
    { #f, offsetof(em_dialect, f), 'i' }
static const em__dfield em__dfields[] = {
    EM__S(name),         EM__S(kernel),      EM__S(bounds),       EM__S(device_fn),
    EM__S(global),       EM__S(shared),      EM__S(constant),     EM__S(restrict_kw),
    EM__B(args_struct),  EM__S(local_id),    EM__S(group_id),     EM__S(local_size),
    EM__S(num_groups),   EM__S(barrier),     EM__S(fence),        EM__S(atomic_add_u32),
    EM__B(has_atomic64), EM__B(has_shuffle), EM__S(shfl_down),    EM__I(warp_size),
    EM__B(has_fp64),     EM__B(has_int64),   EM__S(warp_barrier), EM__S(dyn_shared),
};
#undef EM__S
#undef EM__B
#undef EM__I

em_status em_dialect_entry(const char *dialect, int i, const char **key, const char **str,
                           int *num) {
    const em_dialect *d = em_dialect_find(dialect);
    if (!d)
        return em_error(EM_EVALUE, "no kernel dialect named '%s' (c, cuda, opencl)",
                        dialect ? dialect : "(null)");
    if (i < 0 || (size_t)i >= sizeof em__dfields / sizeof em__dfields[0])
        return em_error(EM_EINDEX, "dialect entry %d is past the last", i);
    const em__dfield *f = &em__dfields[i];
    const char *at = (const char *)d + f->off;
    *key = f->key;
    *str = NULL;
    *num = 0;
    if (f->kind == 's')
        memcpy(str, at, sizeof *str);
    else if (f->kind == 'b')
        *num = *(const bool *)(const void *)at;
    else
        *num = *(const int *)(const void *)at;
    return EM_OK;
}
