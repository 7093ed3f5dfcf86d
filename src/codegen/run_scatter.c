/* The accumulating scatter's driver (render_scatter.h): out[ix[i]] =
 * op(out[ix[i]], v[i]), repeated indices accumulating.  On a backend that
 * builds, one atomic kernel over the indices; on the CPU (precompiled ops,
 * no compiler) a serial loop over the scalar library's op here, in index
 * order, as NumPy's ufunc.at. */
#include "codegen/render_scatter.h"
#include "codegen/run.h"
#include "core/core.h"

#include "codegen/head_c.h"
#include "codegen/scalar.h"

#include <stdio.h>
#include <string.h>

typedef struct em__sc {
    em_scatter_op op;
    em_dtype dt;
    const em_dialect *d;
} em__sc;

static em_status em__render(const void *ctx, void *src) {
    const em__sc *c = ctx;
    return em_render_scatter(c->d, c->op, c->dt, src);
}

/* One element of the serial loop, by the scalar library's per-type op. */
#define EM__SERIAL(T, S)                                                    \
    case EM__##S: {                                                         \
        T *o = (T *)(void *)out->data;                                      \
        const T *v = (const T *)(const void *)vals->data;                   \
        for (int64_t i = 0; i < n; i++) {                                   \
            const int64_t j = ix[i];                                        \
            if (j < 0 || j >= size) continue;                               \
            switch (op) {                                                   \
            case EM_SC_ADD: o[j] = em_add_##S(o[j], v[i]); break;           \
            case EM_SC_SUBTRACT: o[j] = em_subtract_##S(o[j], v[i]); break; \
            case EM_SC_MULTIPLY: o[j] = em_multiply_##S(o[j], v[i]); break; \
            case EM_SC_MAXIMUM: o[j] = em_maximum_##S(o[j], v[i]); break;   \
            default: o[j] = em_minimum_##S(o[j], v[i]); break;              \
            }                                                               \
        }                                                                   \
        return EM_OK;                                                       \
    }

enum {
    EM__i32 = EM_INT32,
    EM__u32 = EM_UINT32,
    EM__i64 = EM_INT64,
    EM__u64 = EM_UINT64,
    EM__f32 = EM_FLOAT32,
    EM__f64 = EM_FLOAT64
};

static em_status em__serial(em_scatter_op op, em_array *out, const int64_t *ix, int64_t n,
                            const em_array *vals) {
    const int64_t size = em_array_size(out);
    switch ((int)out->dtype) {
        EM__SERIAL(int32_t, i32)
        EM__SERIAL(uint32_t, u32)
        EM__SERIAL(int64_t, i64)
        EM__SERIAL(uint64_t, u64)
        EM__SERIAL(float, f32)
        EM__SERIAL(double, f64)
    default: return em_error(EM_EINTERNAL, "scatter of %s", em_dtype_get(out->dtype)->name);
    }
}

em_status em_run_scatter(const em_backend *be, em_scatter_op op, em_array *out, const em_array *idx,
                         const em_array *vals) {
    int64_t n = em_array_size(idx);
    if ((unsigned)op >= EM_SC_NOPS) return em_error(EM_EVALUE, "scatter: unknown op %d", op);
    if (!em_scatter_dtype_ok(out->dtype))
        return em_error(EM_ETYPE, "scatter: no atomic accumulation of %s",
                        em_dtype_get(out->dtype)->name);
    if (out->ndim != 1 || idx->ndim != 1 || vals->ndim != 1 || !em_array_is_c_contiguous(out) ||
        !em_array_is_c_contiguous(idx) || !em_array_is_c_contiguous(vals))
        return em_error(EM_EVALUE, "scatter: out, indices and values must be 1-d and contiguous");
    if (idx->dtype != EM_INT64 || vals->dtype != out->dtype)
        return em_error(EM_ETYPE, "scatter: indices must be int64 and values %s, got %s and %s",
                        em_dtype_get(out->dtype)->name, em_dtype_get(idx->dtype)->name,
                        em_dtype_get(vals->dtype)->name);
    if (em_array_size(vals) != n)
        return em_error(EM_EVALUE, "scatter: %lld indices but %lld values", (long long)n,
                        (long long)em_array_size(vals));
    em_device dev = em_array_device(out);
    em_device di = em_array_device(idx), dv = em_array_device(vals);
    if (di.kind != dev.kind || di.id != dev.id || dv.kind != dev.kind || dv.id != dev.id)
        return em_error(EM_EVALUE, "scatter: out, indices and values must be on one device");
    if (n == 0 || em_array_size(out) == 0) return EM_OK;
    if (!be->module_build) return em__serial(op, out, (const int64_t *)(void *)idx->data, n, vals);
    const em_dialect *d;
    EM_CHECK(em_run_dialect(be, &d));
    em__sc c = {op, out->dtype, d};
    char key[64], name[48];
    snprintf(key, sizeof key, "SC|%d|%d", (int)op, (int)out->dtype);
    static const char *const names[EM_SC_NOPS] = {"add", "subtract", "multiply", "maximum",
                                                  "minimum"};
    snprintf(name, sizeof name, "scatter_%s_%s", names[op], em_dtype_get(out->dtype)->name);
    const em_kfn *k;
    EM_CHECK(em_run_kernel(be, dev.id, key, name, EM_KNAME, em__render, &c, &k));
    const em_device_props *pr;
    EM_CHECK(be->props_ref(dev.id, &pr));
    unsigned char args[40];
    const void *ptrs[3] = {out->data, idx->data, vals->data};
    int64_t nums[2] = {n, em_array_size(out)};
    memcpy(args, ptrs, sizeof ptrs), memcpy(args + 24, nums, sizeof nums);
    int slots[3];
    int64_t g = (n + 255) / 256, cap = (int64_t)pr->multiprocessor_count * 32;
    return em_run_launch(be, dev.id, k, (unsigned)(g < cap ? g : cap), 256, 0, args, sizeof args,
                         slots, em_run_slots(slots, 0, 3));
}
