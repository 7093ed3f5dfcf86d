/* Kernel templates written once for every dialect that compiles kernels.
 *
 * A template is kernel text with placeholders ${name} for what the
 * dialects spell differently; em_tmpl_expand pastes the dialect's spelling
 * (codegen/dialect.h), so one text renders as CUDA C or OpenCL C and the
 * CUDA expansion is the text the CUDA kernels always had:
 *   ${tid} ${bid} ${bdim} ${gdim}  index registers, dimension 0
 *   ${sync}      the block barrier as an expression (no semicolon)
 *   ${shared}    block-shared storage ("__shared__", "__local")
 *   ${local}     qualifier of a pointer into it ("", "__local ")
 *   ${global}    qualifier of a pointer into device memory ("", "__global ")
 *   ${ll} ${ull} the 64-bit integers ("long long", "long" ...)
 *   ${ref}       how a helper takes a struct it reads ("&", "")
 *   ${fd}        a double parameter's type: "double", OpenCL's em_fd (float on
 *                a device without fp64; a 'd' field arrives as EM_DSLOT's)
 *   ${kernel}    what precedes a kernel's name, launch bounds included:
 *                ${kernel(EM_B)} bounds the block at EM_B threads
 *   ${claim(a)}  the dialect's atomic_claim of the 64-bit error word at a
 *   ${amax(a, v)} its 32-bit atomic max
 * and the caller's own names (vars).  An unknown name is left as it is, so
 * the compiler names it.
 *
 * Arguments: a dialect with args_struct takes the template's packed struct
 * (em_args) as it is.  One without (OpenCL: no pointer in a kernel
 * argument) takes the em_kargs form of backend.h: each pointer field of the
 * struct as a buffer and a byte offset, in field order, then the struct as
 * numbers (em_argv: every pointer field kept as a ulong slot, so the host
 * packs one layout for both).  The kernel rebuilds em_args -- the same
 * field names, the pointers addressing the buffers -- in its first lines,
 * and the template's body reads p.<field> in every dialect. */
#ifndef EM_CODEGEN_TMPL_H
#define EM_CODEGEN_TMPL_H

#include "codegen/dialect.h"
#include "codegen/sbuf.h"

/* One 8-byte field (or an array of them) of a template's argument. */
typedef struct em_tfield {
    /* 'p' char pointer, 'i' / 'u' 64-bit int / unsigned, 'd' double; 'q' a slot holding a
     * pointer or (a host scalar) a value's bytes: rebuilt as a pointer
     * <name> and the raw slot <name>_v. */
    char kind;
    const char *name;
    int n1, n2;        /* array extents (0: not an array; n2 only with n1) */
    const char *ctype; /* 'p' only: the pointee type ("char" when NULL) */
} em_tfield;

/* Append text with d's spellings for the placeholders and vars: NULL or
 * pairs name, value, ... ending with NULL. */
EM_API void em_tmpl_expand(const em_dialect *d, const char *text, const char *const *vars,
                           em_sbuf *s);
/* For a dialect without args_struct: the typedefs em_argv and em_args of
 * the n fields. */
EM_API void em_tmpl_args_types(const em_dialect *d, const em_tfield *f, int n, em_sbuf *s);
/* The kernel's parameter list: "const em_args p" where args_struct, else
 * the buffers and offsets then "const em_argv a". */
EM_API void em_tmpl_params(const em_dialect *d, const em_tfield *f, int n, em_sbuf *s);
/* The statements rebuilding p from the buffers and a ("" where args_struct). */
EM_API void em_tmpl_prologue(const em_dialect *d, const em_tfield *f, int n, em_sbuf *s);
/* The end of every template renderer: t (the kernel's text, freed here) expanded into out
 * with ${params} and ${prologue} of the n fields and the pairs of extra (NULL, or name,
 * value, ... ending with NULL; at most 4 pairs); EM_ENOMEM when any buffer ran out. */
EM_API em_status em_tmpl_finish(const em_dialect *d, const em_tfield *f, int n, em_sbuf *t,
                                const char *const *extra, em_sbuf *out);
/* The storage type of dt in d's device memory ("uchar" for OpenCL's bool). */
EM_API const char *em_tmpl_stype(const em_dialect *d, em_dtype dt);

#endif
