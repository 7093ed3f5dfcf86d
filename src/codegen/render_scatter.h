/* The accumulating scatter: out[ix[i]] = op(out[ix[i]], v[i]) for every i,
 * repeated indices accumulating (ufunc.at on a device), with atomics: the
 * native ones where the dialect has them, else a compare-and-swap loop
 * around the scalar library's op.
 * codegen/run_scatter.c drives it (and does the CPU's serial loop).
 * Argument (packed, all fields 8 bytes):
 *   char *out; const long long *ix; const char *v; long long n, size
 * (size: out's elements; an index outside [0, size) is skipped). */
#ifndef EM_RENDER_SCATTER_H
#define EM_RENDER_SCATTER_H

#include "backend/backend.h"
#include "codegen/dialect.h"
#include "codegen/render.h"

/* The ops it accumulates with. */
typedef enum em_scatter_op {
    EM_SC_ADD,
    EM_SC_SUBTRACT,
    EM_SC_MULTIPLY,
    EM_SC_MAXIMUM,
    EM_SC_MINIMUM,
    EM_SC_NOPS
} em_scatter_op;

/* Whether dt has the template: 32- and 64-bit integers and floats. */
EM_API bool em_scatter_dtype_ok(em_dtype dt);
/* The kernel (named EM_KNAME) for op on dt, prelude included. */
EM_API em_status em_render_scatter(const em_dialect *d, em_scatter_op op, em_dtype dt,
                                   em_sbuf *src);
/* The driver (run_scatter.c): out 1-d contiguous of a dtype the template
 * has, idx and vals 1-d contiguous of one length, int64 and out's dtype,
 * all on out's device; indices outside out are skipped. */
EM_API em_status em_run_scatter(const em_backend *be, em_scatter_op op, em_array *out,
                                const em_array *idx, const em_array *vals);

#endif
