/* Dialects: the spellings that differ between the C-family languages Ember
 * renders kernels in.  One const table per target; every renderer takes one
 * and writes nothing target-specific of its own, so a kernel template is
 * written once and rendered for the CPU (C11, built by the system compiler),
 * CUDA C (NVRTC) or OpenCL C.
 *
 * Data model: a dialect is plain data (strings and flags), never code.  A
 * string field is a complete token sequence to paste, or a printf format
 * with exactly the conversions its comment names.  Index registers are
 * given per dimension (x, y, z) and evaluate to an unsigned integer of at
 * least 32 bits; renderers cast them to the index type they use.
 *
 * Invariants: the scalar library (NumPy semantics of every op) is written in
 * the subset all three accept: no templates, no overloading, no _Generic, no
 * C99 complex; per-type names (em_add_f32) over the storage types em_i8 ..
 * em_c128 that each prelude typedefs.  What one dialect cannot spell, its
 * table says (has_* flags), and a renderer asked for it returns
 * EM_EUNSUPPORTED instead of emitting source that will not compile.
 */
#ifndef EM_DIALECT_H
#define EM_DIALECT_H

#include "ember/ember.h"

#include <stdbool.h>

typedef enum em_dialect_id {
    EM_DIALECT_C,      /* C11 for the CPU: kernels run by src/jit's launcher */
    EM_DIALECT_CUDA,   /* CUDA C++ as NVRTC takes it (extern "C" kernels) */
    EM_DIALECT_OPENCL, /* OpenCL C 1.2 */
    EM_NDIALECTS
} em_dialect_id;

typedef struct em_dialect {
    em_dialect_id id;
    const char *name; /* "c", "cuda", "opencl" (the Python side's names) */

    /* ---- declarations ---- */
    const char *kernel;      /* before a kernel's name: 'extern "C" __global__ void' */
    const char *bounds;      /* launch-bounds attribute, %d = threads per block ("" if none) */
    const char *device_fn;   /* before a helper function: "static __device__ __forceinline__" */
    const char *global;      /* address-space qualifier of device memory ("", "__global") */
    const char *shared;      /* block-shared storage ("__shared__", "__local") */
    const char *constant;    /* read-only constant storage ("__constant__", "__constant") */
    const char *restrict_kw; /* "__restrict__", "restrict" */
    /* Kernel arguments: CUDA and C take one packed struct by value whose
     * pointers address device memory; OpenCL forbids pointers inside kernel
     * argument structs, so each buffer is its own __global argument. */
    bool args_struct;

    /* ---- index registers, %d = dimension 0..2 ---- */
    const char *local_id; /* "threadIdx.%c" style: see em_dialect_reg */
    const char *group_id;
    const char *local_size;
    const char *num_groups;

    /* ---- synchronisation and atomics ---- */
    const char *barrier; /* block-wide barrier with memory fence, a statement */
    const char *fence;   /* device-wide memory fence, a statement */
    /* 32-bit atomic add on int/unsigned, %s = address, %s = value (an expression) */
    const char *atomic_add_u32;
    bool has_atomic64;     /* 64-bit integer atomics */
    bool has_shuffle;      /* warp shuffles (else reductions go through shared memory) */
    const char *shfl_down; /* %s = value, %s = delta, full mask; NULL if !has_shuffle */
    int warp_size;         /* 0 when the dialect has no fixed warp (OpenCL, C) */
    /* Barrier among the threads of one warp, a statement; NULL without warps. */
    const char *warp_barrier;
    /* Declaration of the block's dynamic shared memory as bytes aligned to 16,
     * %s = its name; NULL where it is not a declaration (OpenCL passes a
     * __local pointer argument, the C launcher a context field). */
    const char *dyn_shared;
    /* High half of an unsigned product, a function name taking (a, b):
     * 32-bit ("__umulhi", "mul_hi") and 64-bit ("__umul64hi"); NULL where
     * the dialect has none (renderers then spell it with a wider multiply). */
    const char *umulhi32;
    const char *umulhi64;

    /* ---- types and numbers ---- */
    bool has_fp64; /* double is a storage and compute type (OpenCL: device-dependent) */
    bool has_int64;
    const char *i64;     /* the 64-bit signed integer: "long long", "long" (OpenCL) */
    const char *prelude; /* storage typedefs and the scalar library, for this dialect */
    /* Storage type of a bool element in device memory: OpenCL forbids bool
     * in buffers, so it stores uchar and converts on load and store. */
    const char *bool_storage;

    /* ---- for kernel templates (codegen/tmpl.h expands them) ---- */
    const char *u64; /* the 64-bit unsigned integer: "unsigned long long", "ulong" */
    /* How a helper takes a struct it only reads: "&" (a C++ reference) or
     * "" (by value, where the language has no references). */
    const char *ref;
    /* Set a zeroed 64-bit error word at address %s to nonzero, an
     * expression true in the one thread that set it first (OpenCL 1.2 has
     * only 32-bit atomics: it claims the low word). */
    const char *atomic_claim;
    /* 32-bit signed atomic max, %s = address, %s = value; NULL if none. */
    const char *atomic_max_i32;
    /* The function reinterpreting an int's bits as a float. */
    const char *int_as_float;
} em_dialect;

EM_API extern const em_dialect em_dialect_c;
EM_API extern const em_dialect em_dialect_cuda;
EM_API extern const em_dialect em_dialect_opencl;

/* The table for id, or NULL for an id out of range. */
EM_API const em_dialect *em_dialect_get(em_dialect_id id);
/* The table named name ("c", "cuda", "opencl"), or NULL. */
EM_API const em_dialect *em_dialect_find(const char *name);
/* Write register fmt (one of local_id .. num_groups) for dimension dim
 * (0..2) into buf: "threadIdx.x", "get_local_id(0)", "em_i.tid[0]".
 * Returns buf. */
EM_API const char *em_dialect_reg(const char *fmt, int dim, char *buf, size_t len);
/* Write d's launch-bounds attribute for threads per block into buf ("" if
 * the dialect has none).  Returns buf. */
EM_API const char *em_dialect_bounds(const em_dialect *d, int threads, char *buf, size_t len);
/* The scalar library's suffix for a loop dtype ("b", "i8" .. "f32", "c128"):
 * op name of ops.def + "_" + suffix names its function (em_add_f32), in
 * every dialect's prelude and in the CPU loops.  "" for a dtype out of range. */
EM_API const char *em_scalar_suffix(em_dtype dt);

#endif
