/* bincount on the CPU in one pass: each worker counts its range into a
 * private table that grows to the largest value it meets, tracking that
 * value as it goes, and the tables are summed into the output at the end.
 * NumPy reads the input twice (its min/max check, then the count) and
 * casts it to intp first; here the check is the table's bound test the
 * count needs anyway (a negative value is a huge unsigned one), so the
 * input is read once in its own dtype and stride. */
#include "core/core.h"
#include "ember/ember.h"
#include "host/threadpool.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    void *tab;   /* int64 counts, or double sums with weights */
    int64_t cap; /* entries in tab */
    int64_t hi;  /* the largest value seen, -1 before any */
} em__bc_part;

typedef struct {
    const char *x, *w;
    int64_t xs, ws; /* byte strides */
    em_dtype dt;
    int64_t cap0; /* a table's first size */
    em__bc_part *part;
    atomic_int bad; /* 1 negative, 2 no memory */
} em__bc;

/* Room for value v (>= cap) in p's table: doubling, so growth costs O(max). */
static int em__bc_grow(em__bc_part *p, int64_t v, size_t esz) {
    int64_t cap = p->cap ? p->cap : 1;
    while (cap <= v) cap = cap > INT64_MAX / 2 ? v + 1 : 2 * cap;
    if ((uint64_t)cap > SIZE_MAX / esz) return 0;
    char *t = realloc(p->tab, (size_t)cap * esz);
    if (!t) return 0;
    memset(t + (size_t)p->cap * esz, 0, (size_t)(cap - p->cap) * esz);
    p->tab = t, p->cap = cap;
    return 1;
}

/* The counting loop for input type T, weighted or not (ADD): the bound
 * test first, its slow path (grow, or a negative value) out of line. */
#define EM__BC_LOOP(T, ADD)                                \
    for (int64_t i = b; i < e; i++) {                      \
        const int64_t v = (int64_t)((const T *)x)[i * xs]; \
        if ((uint64_t)v >= (uint64_t)cap) {                \
            if (v < 0 || !em__bc_grow(p, v, 8)) {          \
                atomic_store(&c->bad, v < 0 ? 1 : 2);      \
                p->hi = hi;                                \
                return;                                    \
            }                                              \
            tab = p->tab, cap = p->cap;                    \
        }                                                  \
        hi = v > hi ? v : hi;                              \
        ADD;                                               \
    }
#define EM__BC_COUNT ((int64_t *)tab)[v]++
#define EM__BC_SUM ((double *)tab)[v] += w[i * ws]
#define EM__BC_TYPES(ADD)                             \
    switch (c->dt) {                                  \
    case EM_BOOL:                                     \
    case EM_UINT8: EM__BC_LOOP(uint8_t, ADD) break;   \
    case EM_INT8: EM__BC_LOOP(int8_t, ADD) break;     \
    case EM_INT16: EM__BC_LOOP(int16_t, ADD) break;   \
    case EM_UINT16: EM__BC_LOOP(uint16_t, ADD) break; \
    case EM_INT32: EM__BC_LOOP(int32_t, ADD) break;   \
    case EM_UINT32: EM__BC_LOOP(uint32_t, ADD) break; \
    default: EM__BC_LOOP(int64_t, ADD) break;         \
    }

static void em__bc_range(void *ctx, int64_t b, int64_t e, int worker) {
    em__bc *c = ctx;
    em__bc_part *p = &c->part[worker];
    if (!p->cap && !em__bc_grow(p, c->cap0 - 1, 8)) {
        atomic_store(&c->bad, 2);
        return;
    }
    /* locals: a store through tab could alias p's fields, reloaded otherwise */
    int64_t hi = p->hi, cap = p->cap;
    void *tab = p->tab;
    const char *x = c->x;
    const double *w = (const double *)c->w;
    const int64_t xs = c->xs / em_dtype_get(c->dt)->size, ws = c->ws / 8;
    if (c->w)
        EM__BC_TYPES(EM__BC_SUM)
    else
        EM__BC_TYPES(EM__BC_COUNT)
    p->hi = hi;
}

/* Ranges below this stay on one thread: a worker's table costs its zeroing
 * and its share of the merge. */
#define EM__BC_GRAIN (1 << 17)

em_status em_cpu_bincount(const em_array *x, const em_array *weights, int64_t minlength,
                          em_array *out) {
    if (!x || !out || x->ndim != 1 || minlength < 0) return EM_EVALUE;
    const int64_t n = x->shape[0];
    switch (x->dtype) {
    case EM_BOOL:
    case EM_INT8:
    case EM_INT16:
    case EM_INT32:
    case EM_INT64:
    case EM_UINT8:
    case EM_UINT16:
    case EM_UINT32: break;
    default: return EM_ETYPE;
    }
    if (em_array_device(x).kind != EM_CPU) return EM_EDEVICE;
    if (weights && (weights->ndim != 1 || weights->shape[0] != n || weights->dtype != EM_FLOAT64 ||
                    em_array_device(weights).kind != EM_CPU))
        return EM_EVALUE;
    /* the loops index in elements: odd strides or addresses (wrapped memory) are the caller's */
    const int64_t isz = em_dtype_get(x->dtype)->size;
    if (x->strides[0] % isz || (uintptr_t)x->data % (uintptr_t)isz) return EM_EUNSUPPORTED;
    if (weights && (weights->strides[0] % 8 || (uintptr_t)weights->data % 8))
        return EM_EUNSUPPORTED;
    const int wt = weights && n > 0; /* NumPy: no samples count into int64 */
    const int nw = em_pool_workers();
    em__bc c = {.x = x->data, .xs = x->strides[0], .dt = x->dtype};
    if (wt) c.w = weights->data, c.ws = weights->strides[0];
    /* a table big enough for minlength and small values from the start */
    c.cap0 = minlength > 1024 ? minlength : 1024;
    c.part = calloc((size_t)nw, sizeof(em__bc_part));
    if (!c.part) return EM_ENOMEM;
    for (int k = 0; k < nw; k++) c.part[k].hi = -1;
    atomic_init(&c.bad, 0);
    /* weight sums in NumPy's order, so they are its bits: one thread */
    if (n) em_parallel_for(n, wt ? n : EM__BC_GRAIN, em__bc_range, &c);
    int bad = atomic_load(&c.bad);
    int64_t hi = -1;
    for (int k = 0; k < nw; k++) hi = c.part[k].hi > hi ? c.part[k].hi : hi;
    const int64_t len = hi + 1 > minlength ? hi + 1 : minlength;
    em_status s = bad == 1 ? EM_EVALUE : bad == 2 ? EM_ENOMEM : EM_OK;
    if (s == EM_OK)
        s = em_array_empty(out, wt ? EM_FLOAT64 : EM_INT64, 1, &len, (em_device){EM_CPU, 0});
    if (s == EM_OK) {
        /* the first worker's table (the busiest) copied, the others added */
        int first = 1;
        for (int k = 0; k < nw; k++) {
            const em__bc_part *p = &c.part[k];
            if (!p->tab) continue;
            const int64_t m = p->cap < len ? p->cap : len;
            if (first) {
                memcpy(out->data, p->tab, (size_t)m * 8);
                memset(out->data + m * 8, 0, (size_t)(len - m) * 8);
                first = 0;
            } else if (wt) {
                double *o = (double *)out->data;
                const double *t = p->tab;
                for (int64_t i = 0; i < m; i++) o[i] += t[i];
            } else {
                int64_t *o = (int64_t *)out->data;
                const int64_t *t = p->tab;
                for (int64_t i = 0; i < m; i++) o[i] += t[i];
            }
        }
        if (first) memset(out->data, 0, (size_t)len * 8);
    }
    for (int k = 0; k < nw; k++) free(c.part[k].tab);
    free(c.part);
    return s;
}
