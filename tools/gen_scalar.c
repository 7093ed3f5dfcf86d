/* Build-time generator: the preludes and the CPU loop list, from
 * include/ember/ops.def and the scalar library (src/codegen/scalar*.h).
 *
 *   gen_scalar OUTDIR SRCDIR
 *
 * writes into OUTDIR:
 *   ember_preludes.h   em_prelude_c / _cuda / _opencl as C string literals:
 *                      each dialect's head, then scalar.h and scalar_complex.h
 *                      (CUDA also gets C++ overloads em_add(a, b) -> em_add_f32;
 *                      OpenCL's head is head_opencl.cl then opencl_mathf.inc,
 *                      the math names it shares with the OpenCL jit prelude)
 *   ember_loops.inc    one EM_LOOP_ROW(OP, name, nin, DT, suffix, T, OT) per op
 *                      and loop dtype that ops.def declares (the CPU loop table)
 *   prelude_cuda.cu, prelude_opencl.cl, prelude_c.h   the same preludes as files
 *
 * Which loop dtypes a row has follows from its kinds and resolver exactly as
 * em_op_resolve (src/core/ufunc.c) derives them; tests/c/test_ops_table.c
 * checks the two agree.  Built and run by CMake, so the build needs no
 * Python; nothing it writes is kept in git.
 */
#include "ember/ember.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct row {
    const char *E, *name;
    int nin;
    em_resolver res;
    unsigned kinds;
} row;

static const row rows[] = {
#define EM_OP(E, name, nin, res, kinds, spell) {#E, #name, nin, EM_RES_##res, kinds},
#include "ember/ops.def"
#undef EM_OP
};
#define NROWS ((int)(sizeof rows / sizeof rows[0]))

/* Per dtype (dtypes.def order): enum suffix, scalar-library suffix, kind bit,
 * storage type, real component storage type. */
static const struct {
    const char *E, *sfx;
    unsigned kb;
    const char *T, *R;
} dts[EM_NDTYPES] = {
    {"BOOL", "b", EM_KB, "bool", "bool"},
    {"INT8", "i8", EM_KI, "em_i8", "em_i8"},
    {"INT16", "i16", EM_KI, "em_i16", "em_i16"},
    {"INT32", "i32", EM_KI, "em_i32", "em_i32"},
    {"INT64", "i64", EM_KI, "em_i64", "em_i64"},
    {"UINT8", "u8", EM_KU, "em_u8", "em_u8"},
    {"UINT16", "u16", EM_KU, "em_u16", "em_u16"},
    {"UINT32", "u32", EM_KU, "em_u32", "em_u32"},
    {"UINT64", "u64", EM_KU, "em_u64", "em_u64"},
    {"FLOAT16", "f16", EM_KF, "em_f16", "em_f16"},
    {"FLOAT32", "f32", EM_KF, "em_f32", "em_f32"},
    {"FLOAT64", "f64", EM_KF, "em_f64", "em_f64"},
    {"COMPLEX64", "c64", EM_KC, "em_c64", "em_f32"},
    {"COMPLEX128", "c128", EM_KC, "em_c128", "em_f64"},
};

/* np's smallest float for dt (em_float_for). */
static int float_for(int dt) {
    switch (dt) {
    case EM_BOOL:
    case EM_INT8:
    case EM_UINT8: return EM_FLOAT16;
    case EM_INT16:
    case EM_UINT16: return EM_FLOAT32;
    case EM_INT32:
    case EM_INT64:
    case EM_UINT32:
    case EM_UINT64: return EM_FLOAT64;
    default: return dt;
    }
}

/* The loop dtype em_op_resolve picks for promoted input dt, or -1. */
static int loop_for(const row *r, int dt) {
    int l = dt;
    switch (r->res) {
    case EM_RES_FLOAT: l = float_for(dt); break;
    case EM_RES_TRUEDIV:
        if (dts[dt].kb & (EM_KB | EM_KI | EM_KU)) l = EM_FLOAT64;
        break;
    case EM_RES_BOOL: return EM_BOOL;
    case EM_RES_CMP:
    case EM_RES_PRED:
    case EM_RES_REAL: break;
    default:
        if (dt == EM_BOOL && !(r->kinds & EM_KB) && (r->kinds & EM_KB8)) l = EM_INT8;
        break;
    }
    if (!(r->kinds & dts[l].kb)) return -1;
    /* float16 computes in float32; nextafter steps in float16's own ulps. */
    if (l == EM_FLOAT16 && strcmp(r->name, "nextafter") != 0) l = EM_FLOAT32;
    return l;
}

/* The storage type of the op's result for loop dtype l. */
static const char *out_type(const row *r, int l) {
    if (r->res == EM_RES_CMP || r->res == EM_RES_PRED || r->res == EM_RES_BOOL) return "bool";
    if (r->res == EM_RES_REAL) return dts[l].R;
    return dts[l].T;
}

/* Calls f(r, l) for each loop dtype of row r, once each. */
static void each_loop(const row *r, void (*f)(FILE *, const row *, int), FILE *o) {
    int seen[EM_NDTYPES] = {0};
    for (int dt = 0; dt < EM_NDTYPES; dt++) {
        int l = loop_for(r, dt);
        if (l >= 0 && !seen[l]) seen[l] = 1, f(o, r, l);
    }
}

static void loop_row(FILE *o, const row *r, int l) {
    fprintf(o, "EM_LOOP_ROW(%s, %s, %d, %s, %s, %s, %s)\n", r->E, r->name, r->nin, dts[l].E,
            dts[l].sfx, dts[l].T, out_type(r, l));
}

/* One C++ overload: em_<name>(args) calls em_<name>_<suffix>(args). */
static void shim(FILE *o, const row *r, int l) {
    const char *T = dts[l].T;
    fprintf(o, "EM_D %s em_%s(", out_type(r, l), r->name);
    if (r->nin == 3)
        fprintf(o, "bool a, %s b, %s c) { return em_%s_%s(a, b, c); }\n", T, T, r->name,
                dts[l].sfx);
    else if (r->nin == 2)
        fprintf(o, "%s a, %s b) { return em_%s_%s(a, b); }\n", T, T, r->name, dts[l].sfx);
    else
        fprintf(o, "%s a) { return em_%s_%s(a); }\n", T, r->name, dts[l].sfx);
}

static char *slurp(const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "gen_scalar: cannot read %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) exit(1);
    s[n] = 0;
    fclose(f);
    return s;
}

/* Drop the leading // lines of a text (a shared .inc's own description) and
 * the blank line after each block, as cmake/embed_text.cmake does for the
 * texts it embeds. */
static const char *body_of(const char *t) {
    while (t[0] == '/' && t[1] == '/') {
        while (t[0] == '/' && t[1] == '/') t += strcspn(t, "\n") + (strchr(t, '\n') != NULL);
        if (*t == '\n') t++;
    }
    return t;
}

static FILE *create(const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "gen_scalar: cannot write %s\n", path);
        exit(1);
    }
    return f;
}

/* text as a C string literal, one source line per literal line. */
static void literal(FILE *o, const char *text) {
    fputs("    \"", o);
    for (const char *c = text; *c; c++) {
        if (*c == '\n')
            fputs(c[1] ? "\\n\"\n    \"" : "\\n", o);
        else if (*c == '"' || *c == '\\')
            fprintf(o, "\\%c", *c);
        else
            fputc(*c, o);
    }
    fputs("\"", o);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: gen_scalar OUTDIR SRCDIR\n");
        return 2;
    }
    const char *out = argv[1], *src = argv[2];
    char *lib = slurp(src, "src/codegen/scalar.h");
    char *cplx = slurp(src, "src/codegen/scalar_complex.h");
    const char *heads[3] = {"src/codegen/head_c.h", "src/codegen/head_cuda.cuh",
                            "src/codegen/head_opencl.cl"};
    const char *files[3] = {"prelude_c.h", "prelude_cuda.cu", "prelude_opencl.cl"};
    const char *names[3] = {"em_prelude_c", "em_prelude_cuda", "em_prelude_opencl"};

    FILE *h = create(out, "ember_preludes.h");
    fputs("/* Generated by tools/gen_scalar.c from src/codegen/head_*, scalar.h and\n"
          " * scalar_complex.h: do not edit. */\n",
          h);
    for (int d = 0; d < 3; d++) {
        char *head = slurp(src, heads[d]);
        /* The whole prelude in one buffer: head, library, (CUDA) overloads. */
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        fputs(head, m);
        if (d == 2) {
            char *inc = slurp(src, "src/codegen/opencl_mathf.inc");
            fputs(body_of(inc), m);
            free(inc);
        }
        fprintf(m, "\n%s\n%s", lib, cplx);
        if (d == 1) {
            fputs("\n// C++ overloads of the per-type names (generated from ops.def).\n", m);
            for (int i = 0; i < NROWS; i++) each_loop(&rows[i], shim, m);
        }
        /* Every prelude ends with the marker line EM_PRELUDE_END
         * (src/backend/backend.h): the CUDA runtime numbers a compile
         * error's lines after it, so they count from the kernel's own. */
        fputs("// ---- end of Ember's prelude ----\n", m);
        fclose(m);
        FILE *f = create(out, files[d]);
        fputs(text, f);
        fclose(f);
        fprintf(h, "static const char %s[] =\n", names[d]);
        literal(h, text);
        fputs(";\n", h);
        free(text);
        free(head);
    }
    fclose(h);

    FILE *l = create(out, "ember_loops.inc");
    fputs("/* Generated by tools/gen_scalar.c from include/ember/ops.def: do not edit.\n"
          " * EM_LOOP_ROW(OP, name, nin, DT, suffix, T, OT) */\n",
          l);
    for (int i = 0; i < NROWS; i++) each_loop(&rows[i], loop_row, l);
    fclose(l);
    free(lib);
    free(cplx);
    return 0;
}
