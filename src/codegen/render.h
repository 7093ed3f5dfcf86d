/* The renderer: an elementwise node tree -> kernel source in a dialect
 * (codegen/dialect.h: CUDA C, OpenCL C).
 *
 * Data model: a kernel plan (em_kplan) is the tree plus its operands after
 * broadcasting and coalescing.  Operand 0 is the output; operands 1.. are
 * the distinct leaves in first-visit order.  Each operand has a layout
 * class: 'C' contiguous in the evaluation order, 'S' a broadcast scalar
 * (all strides 0), 'P' a host scalar (one element of at most 8 bytes in
 * CPU memory, read by a device kernel) passed by value, 'N' anything else.  When no operand is 'N' the kernel
 * uses the contiguous fast path (element i is at index i); otherwise it
 * decomposes i over the coalesced shape.  Index math is 32-bit when the
 * element count and every operand's byte extent fit, else 64-bit.
 *
 * The kernel takes one packed argument (em_kplan_args writes it):
 *   char *d[nops] ('P' operands: the value's bytes, zero-padded, in the
 *   slot); long long n; then, for the strided form only,
 *   long long shape[ndim]; long long st[nops][ndim]   (byte strides)
 * All fields are 8 bytes, so the layout has no padding.
 *
 * The structural key (em_kplan_key) names everything the source depends
 * on, so equal keys mean equal kernels.  Nothing here touches a device.
 */
#ifndef EM_RENDER_H
#define EM_RENDER_H

#include "backend/backend.h"
#include "codegen/dialect.h"
#include "codegen/sbuf.h"
#include "graph/node.h"

#include <stdbool.h>

#define EM_KMAXOPS 16
#define EM_KMAXNODES 128
#define EM_KNAME "em_kernel"

typedef struct em_kplan {
    const em_node *root;
    int nops;
    const em_node *leaves[EM_KMAXOPS]; /* leaves[k] is operand k (leaves[0] unused) */
    em_dtype dtypes[EM_KMAXOPS];       /* storage dtype of each operand */
    char cls[EM_KMAXOPS];              /* 'C', 'S' or 'N' */
    char *data[EM_KMAXOPS];
    int ndim;
    int64_t shape[EM_MAXDIMS];
    int64_t strides[EM_KMAXOPS][EM_MAXDIMS];
    int64_t n;
    bool contig, idx32;
} em_kplan;

/* Plan root evaluated into out (shape = the broadcast shape). */
EM_API em_status em_kplan_make(const em_node *root, const em_array *out, em_kplan *p);
/* Structural key: op tree, dtypes, layout classes, ndim, index width
 * (printable, one character per field; ops and dtypes stay below 78). */
EM_API void em_kplan_key(const em_kplan *p, em_sbuf *key);
/* The same key into buf (cap bytes, NUL-terminated when it fits): returns
 * its length, which is >= cap when it did not fit. */
EM_API size_t em_kplan_key_into(const em_kplan *p, char *buf, size_t cap);
/* The hash of a key for the in-memory tables (kernels, fusion statistics):
 * fast, not stable across versions (the disk cache uses em_fnv1a). */
EM_API uint64_t em_key_hash(const void *data, size_t n);
/* Elements a thread takes per step in the contiguous form's wide loop: 16
 * bytes of the widest array operand, at least 1 (1 for strided plans). */
EM_API int em_kplan_group(const em_kplan *p);
/* Whether p's kernel in dialect d has that wide loop: CUDA's contiguous
 * form always; OpenCL's where every array operand is stored as a built-in
 * scalar type (one load of a uint4, float4, char16 ... per operand; not
 * float16 or complex) and EMBER_OPENCL_NARROW is unset (read once: the
 * per-element loop, for measuring one against the other). */
EM_API bool em_render_ew_wide(const em_dialect *d, const em_kplan *p);
/* The kernel source in dialect d, prelude not included (see
 * em_render_full).  Where d->args_struct is false (OpenCL) the kernel takes
 * each operand as its own argument before the struct, in operand order:
 * "__global char *dK" for arrays, "ulong dK" (the value's bytes) for host
 * scalars ('P'), and the struct holds the rest: n, off[nops] (each array's
 * byte offset into its buffer, added on entry), then shape and st. */
EM_API em_status em_render_ew(const em_dialect *d, const em_kplan *p, em_sbuf *src);
/* d's prelude followed by the kernel. */
EM_API em_status em_render_full(const em_dialect *d, const em_kplan *p, em_sbuf *src);
/* Pack the kernel argument into buf (cap bytes); returns its size, or 0 if
 * it does not fit. */
EM_API size_t em_kplan_args(const em_kplan *p, void *buf, size_t cap);
/* The same for a dialect without args_struct (OpenCL), as backend.h's
 * em_kargs: the non-'P' operands' pointers in ka->buf in operand order, and
 * the struct at blob (cap bytes): long n; ulong v<k> for each 'P' operand
 * k (its value's bytes, zero-padded); then shape and strides as above.
 * Returns its size, 0 when it does not fit. */
EM_API size_t em_kplan_kargs(const em_kplan *p, em_kargs *ka, void *blob, size_t cap);
/* A short name for messages: "add_float32". */
EM_API void em_kplan_name(const em_kplan *p, char *buf, size_t len);

/* For producers fused into a reduction (render_reduce.h): the leaves of
 * root (operands 1.., data, dtypes, class 'P' for host scalars read on
 * out's device, else 'N'); no shapes.  dtypes[0] is root's dtype. */
em_status em_kplan_tree(const em_node *root, const em_array *out, em_kplan *p);
/* The tree part of the key: ops, loop dtypes, leaf dtypes and classes. */
void em_kplan_tree_key(const em_kplan *p, em_sbuf *key);
/* Emit the statements computing p->root from operands named x1.. (already
 * loaded); the name of the result (its natural dtype) goes to name. */
void em_render_tree(const em_kplan *p, em_sbuf *s, char *name, size_t len);
/* The same in dialect d (conversions spelled for it). */
void em_render_tree_d(const em_dialect *d, const em_kplan *p, em_sbuf *s, char *name, size_t len);
/* The dtype a node's statement computes in (its loop's output). */
em_dtype em_render_natural(const em_node *nd);

/* Append x converted from dtype `from` to `to` (the CPU backend's rules). */
void em__render_conv(em_sbuf *s, em_dtype from, em_dtype to, const char *x);
/* The same in dialect d. */
void em__render_conv_d(const em_dialect *d, em_sbuf *s, em_dtype from, em_dtype to, const char *x);
/* C spelling of a storage dtype in the prelude ("float", "em_i64"). */
EM_API const char *em_render_ctype(em_dtype dt);
/* The prelude source. */
EM_API const char *em_render_prelude(void);

#endif
