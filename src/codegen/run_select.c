/* The radix select over a backend's primitives: the k-th smallest elements
 * of an array (NumPy's sort order, NaNs last) without sorting it
 * (em_select_kth, ember.h).
 *
 * A median needs one or two order statistics, not the sorted array: an LSD
 * sort of 2^24 float32 makes 4 digit passes that each read and write keys
 * and indices, a select makes as many passes that only read.  MSD digit by
 * digit (8 bits, the key's width / 8 passes): a histogram of the current
 * digit over the keys that share the prefix fixed so far, then one block
 * picks the bucket holding the rank still sought, appends that digit to
 * the prefix and subtracts the counts below it.  After the last digit the
 * prefix is the answer's key.  Up to EM_SEL_MAXN ranks share each pass's
 * read (a median's two middle elements: one read per digit for both).
 * Everything stays on the device: the state (prefixes, ranks, histograms)
 * is written once from the host, the passes chain on the stream, and no
 * count is read back; the passes read every element (a compacted candidate
 * list would save reads on the later passes at the cost of writes and a
 * size read-back). */
#include "codegen/render_select.h"
#include "codegen/run_unique.h"
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct em__sel {
    const em_backend *be;
    em_sel_spec k;
} em__sel;

static em_status em__sel_render(const void *ctx, void *sb) {
    const em__sel *x = ctx;
    const em_dialect *d;
    EM_CHECK(em_run_dialect(x->be, &d));
    return em_render_select(d, &x->k, sb);
}

typedef struct em__selargs {
    void *p[3]; /* a, st, out */
    int64_t n, shift;
    uint64_t hmask;
} em__selargs;

static em_status em__sel_launch(const em_backend *be, int id, em_sel_spec k, em__selargs *a,
                                int64_t blocks) {
    char key[48], name[48];
    snprintf(key, sizeof key, "SEL%d|%d|%d", k.mode, (int)k.dtype, k.nsel);
    static const char *const names[] = {"select_hist", "select_pick", "select_out"};
    snprintf(name, sizeof name, "%s_%s", names[k.mode], em_dtype_get(k.dtype)->name);
    em__sel x = {be, k};
    const em_kfn *f;
    EM_CHECK(em_run_kernel(be, id, key, name, EM_KNAME, em__sel_render, &x, &f));
    unsigned char blob[sizeof *a];
    memcpy(blob, a, sizeof *a);
    int slots[3];
    return em_run_launch(be, id, f, (unsigned)blocks, 256, 0, blob, sizeof blob, slots,
                         em_run_slots(slots, 0, 3));
}

/* One launch group: nsel ranks ks into out (nsel elements). */
static em_status em__select_group(const em_backend *be, int id, const em_array *a, int nsel,
                                  const int64_t *ks, char *out, int64_t grid) {
    const int size = em_dtype_get(a->dtype)->size;
    const size_t stbytes = (size_t)nsel * (16 + 4 * 256);
    unsigned char host[EM_SEL_MAXN * (16 + 4 * 256)];
    memset(host, 0, stbytes);
    for (int s = 0; s < nsel; s++) {
        uint64_t k = (uint64_t)ks[s];
        memcpy(host + 16 * s + 8, &k, 8);
    }
    void *st = NULL;
    EM_CHECK(be->alloc(id, stbytes, &st));
    em_status r = be->from_host(id, st, host, stbytes);
    em_sel_spec k = {.dtype = a->dtype, .nsel = nsel};
    em__selargs g = {.p = {a->data, st, out}, .n = em_array_size(a)};
    for (int pass = 0; r == EM_OK && pass < size; pass++) {
        g.shift = 8 * (size - 1 - pass);
        g.hmask = pass ? ~(uint64_t)0 << (g.shift + 8) : 0;
        k.mode = EM_SEL_HIST;
        r = em__sel_launch(be, id, k, &g, grid);
        k.mode = EM_SEL_PICK;
        if (r == EM_OK) r = em__sel_launch(be, id, k, &g, 1);
    }
    k.mode = EM_SEL_OUT;
    if (r == EM_OK) r = em__sel_launch(be, id, k, &g, 1);
    be->free(id, st, stbytes); /* the pool frees behind the queued kernels (one stream) */
    return r;
}

em_status em_run_select(const em_backend *be, const em_array *a, int nk, const int64_t *ks,
                        em_array *out) {
    const int id = em_array_device(a).id;
    const int64_t n = em_array_size(a), size = em_dtype_get(a->dtype)->size;
    const em_device_props *pr;
    EM_CHECK(be->props_ref(id, &pr));
    /* A few blocks per multiprocessor: each one zeroes and flushes its
     * shared histogram once and strides over many elements between. */
    int64_t grid = (n + 255) / 256, cap = (int64_t)pr->multiprocessor_count * 8;
    if (grid > cap) grid = cap;
    if (grid < 1) grid = 1;
    for (int g = 0; g < nk; g += EM_SEL_MAXN) {
        int m = nk - g < EM_SEL_MAXN ? nk - g : EM_SEL_MAXN;
        EM_CHECK(em__select_group(be, id, a, m, ks + g, (char *)out->data + g * size, grid));
    }
    return EM_OK;
}
