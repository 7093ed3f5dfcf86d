/* The accumulating scatter (render_scatter.h): one template for CUDA and
 * OpenCL.  Each element is one atomic update of out: a native atomic where
 * the dialect has one for the op and type (CUDA's atomicAdd, float64's on
 * sm_60 and later, atomicMax/atomicMin on integers; OpenCL's 32-bit
 * atomic_add), else a compare-and-swap loop on the element's bits around
 * the scalar library's em_<op>_<suffix>, so NaN and wrap-around are
 * NumPy's.  Subtraction adds the negation (exact in IEEE arithmetic and
 * modulo 2^n), so it takes add's native atomics. */
#include "codegen/render_scatter.h"
#include "codegen/tmpl.h"

static const char *const em__opname[EM_SC_NOPS] = {"add", "subtract", "multiply", "maximum",
                                                   "minimum"};

bool em_scatter_dtype_ok(em_dtype dt) {
    return dt == EM_INT32 || dt == EM_UINT32 || dt == EM_INT64 || dt == EM_UINT64 ||
           dt == EM_FLOAT32 || dt == EM_FLOAT64;
}

/* Per dialect: the integer of the element's width, its compare-and-swap
 * and the bit casts of a float. */
typedef struct em__atoms {
    const char *b32, *b64, *cas32, *cas64; /* the compare-and-swap functions */
    const char *f2b, *b2f, *d2b, *b2d;
} em__atoms;

static const em__atoms em__cuda = {"unsigned int",
                                   "unsigned long long",
                                   "atomicCAS",
                                   "atomicCAS",
                                   "__float_as_uint",
                                   "__uint_as_float",
                                   "(unsigned long long)__double_as_longlong",
                                   "__longlong_as_double"};
static const em__atoms em__opencl = {"uint",    "ulong",    "atomic_cmpxchg", "atom_cmpxchg",
                                     "as_uint", "as_float", "as_ulong",       "as_double"};

/* The native atomic statement for op on dt at q (an EM_T pointer) with
 * value v, or NULL where there is none. */
static const char *em__native(const em_dialect *d, em_scatter_op op, em_dtype dt) {
    bool add = op == EM_SC_ADD || op == EM_SC_SUBTRACT;
    if (d->id == EM_DIALECT_OPENCL) {
        if (add && dt == EM_INT32) return "atomic_add((volatile __global int *)q, v);";
        if (add && dt == EM_UINT32) return "atomic_add((volatile __global uint *)q, v);";
        return NULL;
    }
    if (add) {
        switch (dt) {
        case EM_INT32: return "atomicAdd((int *)q, v);";
        case EM_UINT32: return "atomicAdd((unsigned int *)q, v);";
        case EM_INT64:
        case EM_UINT64: return "atomicAdd((unsigned long long *)q, (unsigned long long)v);";
        case EM_FLOAT32: return "atomicAdd(q, v);";
        default: return NULL; /* float64: sm_60 and later only, below */
        }
    }
    if (op == EM_SC_MAXIMUM || op == EM_SC_MINIMUM) {
        bool mx = op == EM_SC_MAXIMUM;
        switch (dt) {
        case EM_INT32: return mx ? "atomicMax((int *)q, v);" : "atomicMin((int *)q, v);";
        case EM_UINT32:
            return mx ? "atomicMax((unsigned int *)q, v);" : "atomicMin((unsigned int *)q, v);";
        case EM_INT64:
            return mx ? "atomicMax((long long *)q, (long long)v);"
                      : "atomicMin((long long *)q, (long long)v);";
        case EM_UINT64:
            return mx ? "atomicMax((unsigned long long *)q, (unsigned long long)v);"
                      : "atomicMin((unsigned long long *)q, (unsigned long long)v);";
        default: return NULL;
        }
    }
    return NULL;
}

em_status em_render_scatter(const em_dialect *d, em_scatter_op op, em_dtype dt, em_sbuf *out) {
    if (d->id != EM_DIALECT_CUDA && d->id != EM_DIALECT_OPENCL)
        return em_error(EM_EUNSUPPORTED, "the scatter kernels are not rendered for %s", d->name);
    if ((unsigned)op >= EM_SC_NOPS || !em_scatter_dtype_ok(dt))
        return em_error(EM_EUNSUPPORTED, "no atomic scatter of %s", em_dtype_get(dt)->name);
    const em__atoms *a = d->id == EM_DIALECT_CUDA ? &em__cuda : &em__opencl;
    bool wide = em_dtype_get(dt)->size == 8, flt = dt == EM_FLOAT32 || dt == EM_FLOAT64;
    const char *bits = wide ? a->b64 : a->b32, *suf = em_scalar_suffix(dt);
    const char *fn = em__opname[op == EM_SC_SUBTRACT ? EM_SC_ADD : op];
    em_tfield f[5] = {{'p', "out", 0, 0, NULL},
                      {'p', "ix", 0, 0, "const ${ll}"},
                      {'p', "v", 0, 0, NULL},
                      {'i', "n", 0, 0, NULL},
                      {'i', "size", 0, 0, NULL}};
    em_sbuf t = {0};
    em_sbuf_printf(out, "%s\n", d->prelude);
    if (wide && d->id == EM_DIALECT_OPENCL)
        em_sbuf_printf(&t, "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n");
    em_sbuf_printf(&t, "typedef em_%s EM_T;\ntypedef %s EM_B;\n", suf, bits);
    if (d->id == EM_DIALECT_CUDA)
        em_sbuf_printf(&t, "struct em_args {\n    char *out;\n    const long long *ix;\n"
                           "    const char *v;\n    long long n, size;\n};\n");
    else
        em_tmpl_args_types(d, f, 5, &t);
    /* The element's bits and back: casts for integers. */
    em_sbuf_printf(&t, "EM_D EM_B em_bits(EM_T x) { return %s(x); }\n",
                   flt ? (wide ? a->d2b : a->f2b) : "(EM_B)");
    em_sbuf_printf(&t, "EM_D EM_T em_val(EM_B b) { return %s(b); }\n",
                   flt ? (wide ? a->b2d : a->b2f) : "(EM_T)");
    em_sbuf_printf(&t, "EM_D void em_accum(${global}EM_T *q, EM_T v) {\n");
    /* -v keeps a float's signed zero (x - +0 is x + -0); integers wrap. */
    if (op == EM_SC_SUBTRACT) em_sbuf_printf(&t, "    v = %s;\n", flt ? "-v" : "(EM_T)0 - v");
    const char *nat = em__native(d, op, dt);
    bool f64add = d->id == EM_DIALECT_CUDA && dt == EM_FLOAT64 && fn[0] == 'a';
    if (nat) {
        em_sbuf_printf(&t, "    %s\n}\n", nat);
    } else {
        if (f64add) em_sbuf_printf(&t, "#if __CUDA_ARCH__ >= 600\n    atomicAdd(q, v);\n#else\n");
        const char *qb = d->id == EM_DIALECT_CUDA ? "(EM_B *)q" : "(volatile __global EM_B *)q";
        em_sbuf_printf(&t,
                       "    EM_B old = *(${global}EM_B *)q, seen;\n"
                       "    do {\n        seen = old;\n"
                       "        old = %s(%s, seen, em_bits(em_%s_%s(em_val(seen), v)));\n"
                       "    } while (old != seen);\n",
                       wide ? a->cas64 : a->cas32, qb, fn, suf);
        if (f64add) em_sbuf_printf(&t, "#endif\n");
        em_sbuf_printf(&t, "}\n");
    }
    em_sbuf_printf(&t,
                   "${kernel(256)} " EM_KNAME "(${params}) {\n${prologue}"
                   "    const ${ll} step = (${ll})${bdim} * ${gdim};\n"
                   "    for (${ll} i = ${bid} * (${ll})${bdim} + ${tid}; i < p.n; i += step) {\n"
                   "        const ${ll} j = p.ix[i];\n"
                   "        if (j < 0 || j >= p.size) continue;\n"
                   "        em_accum((${global}EM_T *)p.out + j, "
                   "((${global}const EM_T *)p.v)[i]);\n    }\n}\n");
    return em_tmpl_finish(d, f, 5, &t, NULL, out);
}
