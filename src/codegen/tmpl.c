/* Kernel templates: placeholder expansion and the OpenCL argument form
 * (tmpl.h). */
#include "codegen/tmpl.h"

#include <stdio.h>
#include <string.h>

const char *em_tmpl_stype(const em_dialect *d, em_dtype dt) {
    static const char *const names[EM_NDTYPES] = {"bool",  "em_i8",  "em_i16", "em_i32", "em_i64",
                                                  "em_u8", "em_u16", "em_u32", "em_u64", "em_f16",
                                                  "float", "double", "em_c64", "em_c128"};
    if ((unsigned)dt >= EM_NDTYPES) return "void";
    return dt == EM_BOOL ? d->bool_storage : names[dt];
}

/* The spelling of placeholder name (len bytes) with its argument arg (or
 * NULL), written into buf; false for a name the dialect does not know. */
static bool em__spell(const em_dialect *d, const char *name, size_t len, const char *arg, char *buf,
                      size_t cap) {
#define IS(w) (len == sizeof(w) - 1 && !memcmp(name, w, len))
    const char *q = d->global[0] ? "__global " : "";
    if (IS("tid")) return em_dialect_reg(d->local_id, 0, buf, cap), true;
    if (IS("bid")) return em_dialect_reg(d->group_id, 0, buf, cap), true;
    if (IS("bdim")) return em_dialect_reg(d->local_size, 0, buf, cap), true;
    if (IS("gdim")) return em_dialect_reg(d->num_groups, 0, buf, cap), true;
    if (IS("sync")) { /* the statement without its semicolon */
        size_t n = strlen(d->barrier);
        while (n && (d->barrier[n - 1] == ';' || d->barrier[n - 1] == ' ')) n--;
        snprintf(buf, cap, "%.*s", (int)n, d->barrier);
    } else if (IS("shared"))
        snprintf(buf, cap, "%s", d->shared);
    else if (IS("local"))
        snprintf(buf, cap, "%s", d->args_struct ? "" : "__local ");
    else if (IS("global"))
        snprintf(buf, cap, "%s", q);
    else if (IS("ll"))
        snprintf(buf, cap, "%s", d->i64);
    else if (IS("ull"))
        snprintf(buf, cap, "%s", d->u64);
    else if (IS("ref"))
        snprintf(buf, cap, "%s", d->ref);
    else if (IS("fd")) /* a double parameter: OpenCL's em_fd is float without fp64 */
        snprintf(buf, cap, "%s", d->id == EM_DIALECT_OPENCL ? "em_fd" : "double");
    else if (IS("kernel")) {
        char b[96] = "";
        if (arg) {
            /* bounds' one %d becomes the argument's text */
            const char *pc = strstr(d->bounds, "%d");
            if (pc)
                snprintf(b, sizeof b, " %.*s%s%s", (int)(pc - d->bounds), d->bounds, arg, pc + 2);
        }
        snprintf(buf, cap, "%s%s", d->kernel, b);
    } else if (IS("claim") || IS("amax")) { /* %s in the spelling <- the arguments, in order */
        const char *fmt = IS("claim") ? d->atomic_claim : d->atomic_max_i32, *a = arg ? arg : "";
        if (!fmt) return false;
        size_t at = 0;
        for (const char *c = fmt; *c && at + 1 < cap; c++) {
            if (c[0] != '%' || c[1] != 's') {
                buf[at++] = *c;
                continue;
            }
            const char *end = strchr(a, ',');
            size_t n = end ? (size_t)(end - a) : strlen(a);
            for (size_t i = 0; i < n && at + 1 < cap; i++) buf[at++] = a[i];
            a = end ? end + 1 + (end[1] == ' ') : a + n;
            c++;
        }
        buf[at] = 0;
    } else
        return false;
    return true;
#undef IS
}

void em_tmpl_expand(const em_dialect *d, const char *text, const char *const *vars, em_sbuf *s) {
    const char *c = text;
    while (*c) {
        const char *open = strstr(c, "${");
        if (!open) {
            em_sbuf_put(s, c, strlen(c));
            return;
        }
        em_sbuf_put(s, c, (size_t)(open - c));
        const char *close = strchr(open, '}');
        if (!close) {
            em_sbuf_put(s, open, strlen(open));
            return;
        }
        const char *name = open + 2, *paren = memchr(name, '(', (size_t)(close - name));
        size_t len = (size_t)((paren ? paren : close) - name);
        char arg[64] = "", buf[256];
        if (paren) snprintf(arg, sizeof arg, "%.*s", (int)(close - paren - 2), paren + 1);
        bool done = false;
        for (int i = 0; vars && vars[i]; i += 2)
            if (strlen(vars[i]) == len && !memcmp(vars[i], name, len)) {
                em_sbuf_put(s, vars[i + 1], strlen(vars[i + 1]));
                done = true;
                break;
            }
        if (!done && em__spell(d, name, len, paren ? arg : NULL, buf, sizeof buf)) {
            em_sbuf_put(s, buf, strlen(buf));
            done = true;
        }
        if (!done) em_sbuf_put(s, open, (size_t)(close + 1 - open));
        c = close + 1;
    }
}

/* "[n1]" or "[n1][n2]" or "". */
static void em__dims(const em_tfield *f, char *buf, size_t cap) {
    if (!f->n1)
        buf[0] = 0;
    else if (!f->n2)
        snprintf(buf, cap, "[%d]", f->n1);
    else
        snprintf(buf, cap, "[%d][%d]", f->n1, f->n2);
}

static int em__count(const em_tfield *f) { return (f->n1 ? f->n1 : 1) * (f->n2 ? f->n2 : 1); }

void em_tmpl_args_types(const em_dialect *d, const em_tfield *f, int n, em_sbuf *s) {
    char dims[32];
    em_sbuf_printf(s, "typedef struct {\n");
    for (int i = 0; i < n; i++) {
        em__dims(&f[i], dims, sizeof dims);
        /* em_dslot: double, or the double's bits where the device has no double */
        const char *T = f[i].kind == 'd' ? "em_dslot" : f[i].kind == 'i' ? d->i64 : d->u64;
        em_sbuf_printf(s, "    %s %s%s;\n", T, f[i].name, dims);
    }
    em_sbuf_printf(s, "} em_argv;\ntypedef struct {\n");
    for (int i = 0; i < n; i++) {
        em__dims(&f[i], dims, sizeof dims);
        if (f[i].kind == 'p' || f[i].kind == 'q') {
            em_sbuf_printf(s, "    __global ");
            em_tmpl_expand(d, f[i].ctype ? f[i].ctype : "char", NULL, s);
            em_sbuf_printf(s, " *%s%s;\n", f[i].name, dims);
            if (f[i].kind == 'q') em_sbuf_printf(s, "    %s %s_v%s;\n", d->u64, f[i].name, dims);
        } else {
            const char *T = f[i].kind == 'd' ? "em_fd" : f[i].kind == 'i' ? d->i64 : d->u64;
            em_sbuf_printf(s, "    %s %s%s;\n", T, f[i].name, dims);
        }
    }
    em_sbuf_printf(s, "} em_args;\n");
}

void em_tmpl_params(const em_dialect *d, const em_tfield *f, int n, em_sbuf *s) {
    if (d->args_struct) {
        em_sbuf_printf(s, "const em_args p");
        return;
    }
    int b = 0;
    for (int i = 0; i < n; i++)
        if (f[i].kind == 'p' || f[i].kind == 'q')
            for (int j = 0; j < em__count(&f[i]); j++, b++)
                em_sbuf_printf(s, "__global char *d%d, ulong o%d, ", b, b);
    em_sbuf_printf(s, "const em_argv a");
}

void em_tmpl_prologue(const em_dialect *d, const em_tfield *f, int n, em_sbuf *s) {
    if (d->args_struct) return;
    em_sbuf_printf(s, "    em_args p;\n");
    int b = 0;
    for (int i = 0; i < n; i++) {
        const char *nm = f[i].name;
        int cnt = em__count(&f[i]);
        if (f[i].kind == 'p' || f[i].kind == 'q') {
            for (int j = 0; j < cnt; j++, b++) {
                em_sbuf_printf(s, "    p.%s", nm);
                if (f[i].n1) em_sbuf_printf(s, "[%d]", j);
                em_sbuf_printf(s, " = (__global ");
                em_tmpl_expand(d, f[i].ctype ? f[i].ctype : "char", NULL, s);
                /* a NULL buffer stays NULL (an unused or value slot) */
                em_sbuf_printf(s, " *)(d%d ? d%d + o%d : d%d);\n", b, b, b, b);
            }
            if (f[i].kind == 'q')
                em_sbuf_printf(s, "    for (int i_ = 0; i_ < %d; i_++) p.%s_v[i_] = a.%s[i_];\n",
                               cnt, nm, nm);
        } else if (f[i].kind == 'd' && !f[i].n1) { /* em_fd from its slot */
            em_sbuf_printf(s, "    p.%s = EM_DSLOT(a.%s);\n", nm, nm);
        } else if (f[i].kind == 'd') {
            em_sbuf_printf(s,
                           "    for (int i_ = 0; i_ < %d; i_++) ((em_fd *)p.%s)[i_] = "
                           "EM_DSLOT(((const em_dslot *)a.%s)[i_]);\n",
                           cnt, nm, nm);
        } else if (!f[i].n1) {
            em_sbuf_printf(s, "    p.%s = a.%s;\n", nm, nm);
        } else {
            const char *T = f[i].kind == 'd' ? "double" : f[i].kind == 'i' ? d->i64 : d->u64;
            em_sbuf_printf(s,
                           "    for (int i_ = 0; i_ < %d; i_++) ((%s *)p.%s)[i_] = "
                           "((const %s *)a.%s)[i_];\n",
                           cnt, T, nm, T, nm);
        }
    }
}

em_status em_tmpl_finish(const em_dialect *d, const em_tfield *f, int n, em_sbuf *t,
                         const char *const *extra, em_sbuf *out) {
    em_sbuf params = {0}, pro = {0};
    em_tmpl_params(d, f, n, &params);
    em_tmpl_prologue(d, f, n, &pro);
    const char *vars[13] = {"params", params.s ? params.s : "", "prologue", pro.s ? pro.s : ""};
    int k = 4;
    for (; extra && extra[0] && k < 12; extra += 2) vars[k++] = extra[0], vars[k++] = extra[1];
    vars[k] = NULL;
    bool oom = t->oom || params.oom || pro.oom;
    if (!oom) em_tmpl_expand(d, t->s, vars, out);
    em_sbuf_free(t), em_sbuf_free(&params), em_sbuf_free(&pro);
    return oom || out->oom ? em_error(EM_ENOMEM, "out of host memory rendering a kernel") : EM_OK;
}
