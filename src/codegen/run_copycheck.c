/* em_copy_checked (ember.h): the checked copy of render_copycheck.h on a
 * device that compiles kernels, a loop on the CPU.  Queued on the current
 * stream; nothing is read back here (the caller reads the flag when it
 * needs to: cudalib's epilogue.c, through pinned memory and an event). */
#include "codegen/render_copycheck.h"
#include "codegen/run.h"
#include "core/core.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct em__ccx {
    const em_backend *be;
    em_copycheck_spec k;
} em__ccx;

static em_status em__cc_render(const void *ctx, void *sb) {
    const em__ccx *x = ctx;
    const em_dialect *d;
    EM_CHECK(em_run_dialect(x->be, &d));
    return em_render_copycheck(d, &x->k, sb);
}

typedef struct em__ccargs {
    const void *a;
    void *out, *flag;
    int64_t d1, d2, total, s0, s1, s2;
    uint64_t bound;
} em__ccargs;

/* a's shape as at most three dimensions (d0, d1, d2) with byte strides:
 * axes of size 1 dropped, neighbours merged where one stride steps over the
 * other.  False when more than three remain. */
static bool em__cc_collapse(const em_array *a, int64_t d[3], int64_t st[3]) {
    int64_t sh[EM_MAXDIMS], sd[EM_MAXDIMS];
    int n = 0;
    for (int i = 0; i < a->ndim; i++) {
        if (a->shape[i] == 1) continue;
        if (n && sd[n - 1] == a->strides[i] * a->shape[i])
            sh[n - 1] *= a->shape[i], sd[n - 1] = a->strides[i];
        else
            sh[n] = a->shape[i], sd[n] = a->strides[i], n++;
    }
    if (n > 3) return false;
    for (int i = 0; i < 3; i++) {
        int j = i - (3 - n);
        d[i] = j >= 0 ? sh[j] : 1, st[i] = j >= 0 ? sd[j] : 0;
    }
    return true;
}

static void em__cc_cpu(const em_copycheck_spec *k, const em__ccargs *g) {
    const uint64_t mag = k->wbytes == 8 ? ~0ull >> 1 : 0x7fffffffull;
    int bad = 0;
    char *w = g->out;
    const size_t esz = (size_t)k->wbytes * (size_t)k->words;
    for (int64_t e = 0; e < g->total; e++) {
        const int64_t i2 = e % g->d2, r = e / g->d2, i1 = r % g->d1, i0 = r / g->d1;
        const char *s = (const char *)g->a + i0 * g->s0 + i1 * g->s1 + i2 * g->s2;
        memcpy(w + (size_t)e * esz, s, esz);
        for (int q = 0; q < k->words; q++) {
            uint64_t v = 0;
            if (k->wbytes == 8)
                memcpy(&v, s + 8 * q, 8);
            else {
                uint32_t u;
                memcpy(&u, s + 4 * q, 4);
                v = u;
            }
            bad |= (v & mag) >= g->bound;
        }
    }
    if (bad) *(int32_t *)g->flag = 1;
}

/* The bits of bound as a word of wbytes bytes (above float32's range: its
 * infinity's, so infinities are still flagged). */
static uint64_t em__cc_bits(double bound, int wbytes) {
    if (wbytes == 8) {
        uint64_t u;
        memcpy(&u, &bound, 8);
        return u;
    }
    float f = bound > FLT_MAX ? INFINITY : (float)bound;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

em_status em_copy_checked(const em_array *a, double bound, em_array *out, em_array *flag) {
    memset(out, 0, sizeof *out);
    if (!a || !a->buf || !flag || !flag->buf) return em_error(EM_EVALUE, "copy_checked: no array");
    const em_dtype_info *t = em_dtype_get(a->dtype);
    if (t->kind != 'f' && t->kind != 'c')
        return em_error(EM_ETYPE, "copy_checked: float32/64 or complex64/128, got %s", t->name);
    const int words = t->kind == 'c' ? 2 : 1, wbytes = (int)t->size / words;
    if (wbytes != 4 && wbytes != 8)
        return em_error(EM_ETYPE, "copy_checked: float32/64 or complex64/128, got %s", t->name);
    if (isnan(bound)) return em_error(EM_EVALUE, "copy_checked: the bound is NaN");
    const em_device dev = em_array_device(a), fd = em_array_device(flag);
    if (fd.kind != dev.kind || fd.id != dev.id || flag->dtype != EM_INT32 ||
        em_array_size(flag) < 1)
        return em_error(EM_EVALUE, "copy_checked: the flag is an int32 array on a's device");
    int64_t d[3], st[3];
    if (!em__cc_collapse(a, d, st)) { /* a layout of more than three axes: copied first */
        em_array c = {0};
        EM_CHECK(em_astype(a, EM_NDTYPES, &c));
        em_status s = em_copy_checked(&c, bound, out, flag);
        em_array_release(&c);
        return s;
    }
    EM_CHECK(em_array_empty(out, a->dtype, a->ndim, a->shape, dev));
    em__ccx x = {.k = {wbytes, words}};
    em__ccargs g = {.a = a->data,
                    .out = out->data,
                    .flag = flag->data,
                    .d1 = d[1],
                    .d2 = d[2],
                    .total = em_array_size(a),
                    .s0 = st[0],
                    .s1 = st[1],
                    .s2 = st[2],
                    .bound = em__cc_bits(bound, wbytes)};
    if (!g.total) return EM_OK;
    em_status s = EM_OK;
    const em_backend *be = x.be = em__backend(dev.kind);
    if (!be)
        s = em_error(EM_EDEVICE, "no backend for %s", em_device_kind_name(dev.kind));
    else if (!be->module_build) {
        if (dev.kind == EM_CPU)
            em__cc_cpu(&x.k, &g);
        else
            s = em_error(EM_EUNSUPPORTED, "the %s backend compiles no kernels", be->name);
    } else {
        char key[32], name[48];
        snprintf(key, sizeof key, "CC%d|%d", wbytes, words);
        snprintf(name, sizeof name, "copy_checked_%s", t->name);
        const em_kfn *f = NULL;
        const em_device_props *pr = NULL;
        s = em_run_kernel(be, dev.id, key, name, EM_KNAME, em__cc_render, &x, &f);
        if (s == EM_OK) s = be->props_ref(dev.id, &pr);
        if (s == EM_OK) {
            int64_t blocks = (g.total + 255) / 256, cap = (int64_t)pr->multiprocessor_count * 32;
            unsigned char blob[sizeof g];
            memcpy(blob, &g, sizeof g);
            int slots[3];
            s = em_run_launch(be, dev.id, f, (unsigned)(blocks < cap ? blocks : cap), 256, 0, blob,
                              sizeof blob, slots, em_run_slots(slots, 0, 3));
        }
    }
    if (s != EM_OK) em_array_release(out);
    return s;
}
