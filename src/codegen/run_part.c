/* NumPy's partition / argpartition on a device without sorting
 * (em_partition, ember.h): the radix select (run_select.c) finds the k-th
 * values, then one compaction by bucket (render_part.h) writes the
 * elements below the first, those equal to it, those between it and the
 * next ... in three kernels: a per-tile count, one block's prefix over the
 * counts, a per-tile write.  Nothing is read back.  Against the full sort
 * the full sort's digit passes each read and write keys (and indices for
 * argpartition); here the select's passes only read, and the compaction
 * reads twice and writes once. */
#include "codegen/render_part.h"
#include "codegen/run_unique.h"
#include "core/core.h"

#include <stdio.h>
#include <string.h>

typedef struct em__pt {
    const em_backend *be;
    em_pt_spec k;
} em__pt;

static em_status em__pt_render(const void *ctx, void *sb) {
    const em__pt *x = ctx;
    const em_dialect *d;
    EM_CHECK(em_run_dialect(x->be, &d));
    return em_render_part(d, &x->k, sb);
}

typedef struct em__ptargs {
    void *p[4]; /* a, kv, part, out */
    int64_t n, ntile, m;
} em__ptargs;

static em_status em__pt_launch(const em_backend *be, int id, em_pt_spec k, em__ptargs *a,
                               int64_t blocks) {
    char key[48], name[48];
    snprintf(key, sizeof key, "PT%d|%d|%d", k.mode, (int)k.dtype, k.arg);
    static const char *const names[] = {"part_count", "part_prefix", "part_write"};
    snprintf(name, sizeof name, "%s_%s", names[k.mode], em_dtype_get(k.dtype)->name);
    em__pt x = {be, k};
    const em_kfn *f;
    EM_CHECK(em_run_kernel(be, id, key, name, EM_KNAME, em__pt_render, &x, &f));
    const em_device_props *pr;
    EM_CHECK(be->props_ref(id, &pr));
    int64_t cap = (int64_t)pr->multiprocessor_count * 32;
    unsigned char blob[sizeof *a];
    memcpy(blob, a, sizeof *a);
    int slots[4];
    return em_run_launch(be, id, f, (unsigned)(blocks < cap ? blocks : cap), 256, 0, blob,
                         sizeof blob, slots, em_run_slots(slots, 0, 4));
}

em_status em_run_part(const em_backend *be, const em_array *a, const em_array *kv, bool arg,
                      em_array *out) {
    const em_device dev = em_array_device(a);
    const int id = dev.id, m = (int)em_array_size(kv);
    const int64_t n = em_array_size(a), ntile = (n + EM_PT_TILE - 1) / EM_PT_TILE;
    const int64_t np = (2 * m + 1) * ntile + 1;
    em_array part = {0};
    memset(out, 0, sizeof *out);
    em_status st = em_array_empty(out, arg ? EM_INT64 : a->dtype, 1, &n, dev);
    if (st == EM_OK) st = em_array_empty(&part, EM_INT64, 1, &np, dev);
    /* the count and the prefix are the same for both outputs; the prefix for
     * every dtype (it reads only the counts) */
    em_pt_spec k = {.dtype = a->dtype};
    em__ptargs g = {.p = {a->data, kv->data, part.data, out->data}, .n = n, .ntile = ntile, .m = m};
    if (st == EM_OK && n) {
        k.mode = EM_PT_COUNT;
        st = em__pt_launch(be, id, k, &g, ntile);
        k.mode = EM_PT_PREFIX, k.dtype = EM_INT64;
        if (st == EM_OK) st = em__pt_launch(be, id, k, &g, 1);
        k.mode = EM_PT_WRITE, k.dtype = a->dtype, k.arg = arg;
        if (st == EM_OK) st = em__pt_launch(be, id, k, &g, ntile);
    }
    em_array_release(&part); /* back to the pool behind the queued kernels (one stream) */
    if (st != EM_OK) em_array_release(out);
    return st;
}
