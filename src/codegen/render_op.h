/* One op as one elementwise kernel, for any dialect: out[i] = op(in...[i])
 * over contiguous arrays of the loop dtype.  The smallest kernel that calls
 * the scalar library's em_<op>_<suffix> through a dialect's prelude, so a
 * test can compile every op of ops.def for every target (NVRTC, OpenCL);
 * the full elementwise renderer (render.c) becomes dialect-aware later. */
#ifndef EM_CODEGEN_RENDER_OP_H
#define EM_CODEGEN_RENDER_OP_H

#include "codegen/dialect.h"
#include "codegen/render.h"

/* The kernel's name when none is given. */
#define EM_OP1_KERNEL "em_op1"

/* Append the kernel for op on loop dtype loop, named name, to src; the
 * dialect's prelude (d->prelude) must come first, once for any number of
 * kernels.  Kernel arguments: out, then each input, then the element count
 * (em_i64); the C dialect's kernel is a plain function looping over them.
 * EM_EVALUE for a dialect, op or dtype out of range. */
EM_API em_status em_render_op1(const em_dialect *d, em_op op, em_dtype loop, const char *name,
                               em_sbuf *src);
/* The dtype op's loop on dtype loop writes (bool for comparisons ...). */
EM_API em_dtype em_op1_out_dtype(em_op op, em_dtype loop);

#endif
