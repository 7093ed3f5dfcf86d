/* libember: the C core of Ember.
 *
 * Data model
 * ----------
 * An array (em_array) is a *view*: a dtype, a shape, byte strides and a data
 * pointer into a refcounted *buffer* (em_buffer) that lives on one device.
 * Views are plain structs the caller owns; each holds one reference to its
 * buffer, dropped by em_array_release().  Slicing, transposing, broadcasting
 * and reshape-where-possible make new views of the same buffer.
 *
 * Invariants
 * ----------
 * - Every function returns an em_status.  Results are written through the
 *   out-pointer only on success; on failure the out-pointer is untouched and
 *   em_last_error() holds a message for this thread.
 * - Sizes are checked for overflow before memory is touched.
 * - An em_array with buf == NULL is "unset"; em_array_release() accepts it.
 * - Elementwise work is described by ops (ops.def) and run by the backend of
 *   the device the buffers live on; the core never #ifdefs a backend.
 */
#ifndef EMBER_H
#define EMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define EM_API __declspec(dllexport)
#else
#define EM_API __attribute__((visibility("default")))
#endif

#define EM_VERSION "0.1.0"
#define EM_MAXDIMS 32

/* ---- dtypes ------------------------------------------------------------ */

typedef enum em_dtype {
#define EM_DTYPE(E, name, ctype, kind, size, buf) EM_##E,
#include "ember/dtypes.def"
#undef EM_DTYPE
    EM_NDTYPES
} em_dtype;

typedef struct em_dtype_info {
    const char *name;      /* NumPy name: "float32" */
    char kind;             /* 'b' 'i' 'u' 'f' 'c' */
    uint8_t size;          /* bytes */
    const char *bufformat; /* PEP 3118 format: "f" */
} em_dtype_info;

/* Dtype kind bits, used by the op table. */
enum { EM_KB = 1, EM_KI = 2, EM_KU = 4, EM_KF = 8, EM_KC = 16 };

EM_API const em_dtype_info *em_dtype_get(em_dtype dt);
EM_API unsigned em_dtype_kindbit(em_dtype dt);
/* NumPy 2 promotion of two dtypes (np.promote_types). */
EM_API em_dtype em_promote(em_dtype a, em_dtype b);
/* The smallest float (or the complex component float) that holds dt exactly
 * per NumPy's ufunc rules: bool/int8/uint8 -> float16, int16/uint16 ->
 * float32, wider ints -> float64, floats -> themselves, complex -> complex. */
EM_API em_dtype em_float_for(em_dtype dt);
/* The real component dtype of a complex dtype; dt itself otherwise. */
EM_API em_dtype em_real_for(em_dtype dt);
/* np.can_cast(from, to, casting) for casting = "safe" or "same_kind". */
EM_API bool em_can_cast_safe(em_dtype from, em_dtype to);
EM_API bool em_can_cast_same_kind(em_dtype from, em_dtype to);
/* Look a dtype up by NumPy name ("float32"); returns EM_NDTYPES if unknown. */
EM_API em_dtype em_dtype_from_name(const char *name);

/* ---- status ------------------------------------------------------------ */

typedef enum em_status {
#define EM_STATUS(E, text) EM_E##E,
#include "ember/status.def"
#undef EM_STATUS
    EM_NSTATUS
} em_status;
#define EM_OK EM_EOK

EM_API const char *em_status_name(em_status s);
/* The message of the last failure on this thread ("" if none). */
EM_API const char *em_last_error(void);
/* Record a failure: sets the thread's message and returns s. */
EM_API em_status em_error(em_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- devices ----------------------------------------------------------- */

typedef enum em_device_kind { EM_CPU = 0, EM_CUDA = 1, EM_OPENCL = 2, EM_NKINDS } em_device_kind;

typedef struct em_device {
    em_device_kind kind;
    int id;
} em_device;

typedef struct em_device_props {
    char name[256];
    int compute_capability[2]; /* 0,0 where it has no meaning */
    int multiprocessor_count;  /* cores on the CPU */
    int max_threads_per_block;
    int max_block_dim[3];
    int max_grid_dim[3];
    size_t shared_memory_per_block;
    size_t total_memory;
} em_device_props;

EM_API em_status em_device_count(em_device_kind kind, int *count);
EM_API em_status em_device_props_get(em_device dev, em_device_props *props);
EM_API em_status em_device_mem_info(em_device dev, size_t *free_bytes, size_t *total_bytes);
EM_API em_status em_device_synchronize(em_device dev);
EM_API const char *em_device_kind_name(em_device_kind kind);
/* Parse "cpu", "cuda", "cuda:1", "opencl:0"; checks the device exists. */
EM_API em_status em_device_parse(const char *spec, em_device *out);
/* EM_OK if dev names a device present on this machine, else EM_EDEVICE
 * saying what is (em_device_parse without the string). */
EM_API em_status em_device_check(em_device dev);

/* ---- streams and events, on any device --------------------------------
 * Handles are the device backend's own, as void *; a NULL stream is the
 * device's default stream.  Each call checks dev (EM_EDEVICE) and passes the
 * handles to the backend's primitives (src/backend/backend.h says exactly
 * what each does).  On the CPU every operation has finished when it returns:
 * a stream is always complete and an event holds the host's clock. */
EM_API em_status em_stream_create(em_device dev, bool nonblocking, void **out);
EM_API em_status em_stream_destroy(em_device dev, void *s);
EM_API em_status em_stream_synchronize(em_device dev, void *s);
/* Work queued on s after this call starts after the work e recorded. */
EM_API em_status em_stream_wait_event(em_device dev, void *s, void *e);
/* Work queued on `waiter` after this call runs after the work queued on
 * `producer` so far, through an event; the host does not wait.  Nothing to
 * do when they are one stream. */
EM_API em_status em_stream_wait(em_device dev, void *waiter, void *producer);
/* The calling thread's current stream on dev's kind of device (NULL: the
 * default stream): launches and device copies queue on it, host copies wait
 * for it first. */
EM_API em_status em_stream_set(em_device dev, void *s);
EM_API em_status em_stream_get(em_device dev, void **out);
/* timing: usable with em_event_elapsed (else only for ordering: cheaper). */
EM_API em_status em_event_create(em_device dev, bool timing, void **out);
EM_API em_status em_event_destroy(em_device dev, void *e);
EM_API em_status em_event_record(em_device dev, void *e, void *s);
EM_API em_status em_event_synchronize(em_device dev, void *e);
/* *done: whether the recorded work has finished (never waits). */
EM_API em_status em_event_query(em_device dev, void *e, bool *done);
/* Milliseconds from start to end, two recorded, completed timing events. */
EM_API em_status em_event_elapsed(em_device dev, void *start, void *end, float *ms);

/* ---- host memory and host copies ------------------------------------------
 * Page-locked ("pinned") host memory, for every device of dev's kind: copies
 * between it and a device go by DMA at the bus's full rate.  EM_EUNSUPPORTED
 * where host memory is the device's own (the CPU). */
EM_API em_status em_pinned_alloc(em_device dev, size_t n, void **out);
EM_API em_status em_pinned_free(em_device dev, void *p);
/* Host<->device copies of pageable memory from 4 MiB on go through pinned
 * staging buffers (src/codegen/run_copy.c).  For tests and probes: staging
 * from min_bytes on (0: the default; SIZE_MAX: never), in chunks of chunk
 * bytes (0: the default, which depends on the size; at most a buffer).  Not
 * for use while copies run. */
EM_API void em_copy_tune(size_t min_bytes, size_t chunk);
typedef struct em_copy_stats {
    uint64_t staged;   /* copies through the staging buffers */
    uint64_t known;    /* large copies left to the driver: memory it knows (pinned) */
    uint64_t unstaged; /* large pageable copies left to the driver: no buffers */
    size_t min_bytes, buffers, buffer_bytes; /* the settings */
} em_copy_stats;
EM_API void em_copy_stats_get(em_copy_stats *out);
/* Whether [p, p + n) is host memory that dev's driver copies by DMA as it
 * is (pinned by Ember or anyone, registered, managed): such a source is never
 * staged.  False on the CPU and for devices that do not exist. */
EM_API bool em_host_pinned(em_device dev, const void *p, size_t n);

/* ---- arrays ------------------------------------------------------------ */

typedef struct em_buffer em_buffer;

enum { EM_WRITEABLE = 1 };

typedef struct em_array {
    em_buffer *buf; /* one owned reference; NULL when unset */
    char *data;     /* address of element (0, ..., 0) on the buffer's device */
    em_dtype dtype;
    int ndim;
    uint32_t flags;
    int64_t shape[EM_MAXDIMS];
    int64_t strides[EM_MAXDIMS]; /* bytes, may be negative or zero */
} em_array;

/* New uninitialised array, C-contiguous. */
EM_API em_status em_array_empty(em_array *out, em_dtype dt, int ndim, const int64_t *shape,
                                em_device dev);
/* Wrap memory owned by someone else; release(ctx) runs when the last view
 * goes.  strides == NULL means C-contiguous. */
EM_API em_status em_array_wrap(em_array *out, void *data, em_dtype dt, int ndim,
                               const int64_t *shape, const int64_t *strides, em_device dev,
                               void (*release)(void *ctx), void *ctx);
/* Let pending (fused) expressions read a's wrapped memory as a leaf, as they
 * read Ember's own: a write by the owner while a result waits is then the
 * caller's aliasing (the result may see it).  Without this, operations on
 * wrapped memory run eagerly.  The Python binding marks NumPy memory that
 * em.asarray wraps; DLPack and CUDA-array-interface imports stay eager. */
EM_API void em_array_allow_fusion(em_array *a);
/* device="auto" (the Python layer's placement, docs/auto.md): mark a's buffer as
 * one whose home Ember chooses; every view of the buffer shares the mark. */
EM_API void em_array_set_auto(em_array *a, bool on);
EM_API bool em_array_is_auto(const em_array *a);
/* Whether a's memory may be replaced by a copy elsewhere without another view
 * seeing it: no other view references its buffer. */
EM_API bool em_array_movable(const em_array *a);
/* Drop this view's reference and reset it to unset. */
EM_API void em_array_release(em_array *a);
/* dst = a new view identical to src (one more buffer reference). */
EM_API void em_array_view(em_array *dst, const em_array *src);
/* dst = src's fields, no reference taken: the sizes and strides of its
 * ndim dimensions only (a whole em_array is 540 bytes, most of them unused
 * dimensions, and small ops copy arrays often). */
static inline void em_array_assign(em_array *dst, const em_array *src) {
    dst->buf = src->buf, dst->data = src->data, dst->dtype = src->dtype;
    dst->ndim = src->ndim, dst->flags = src->flags;
    for (int i = 0; i < src->ndim && i < EM_MAXDIMS; i++)
        dst->shape[i] = src->shape[i], dst->strides[i] = src->strides[i];
}
EM_API int64_t em_array_size(const em_array *a);
EM_API int64_t em_array_nbytes(const em_array *a);
EM_API em_device em_array_device(const em_array *a);
/* EM_OK, or EM_EDEVICE when a's device memory was lost: the device was reset after a
 * faulting kernel since a was allocated (the CUDA backend's recovery). */
EM_API em_status em_array_live(const em_array *a);
EM_API bool em_array_is_c_contiguous(const em_array *a);
EM_API bool em_array_is_f_contiguous(const em_array *a);
/* Address range [lo, hi) the view can touch; lo == hi for empty arrays. */
EM_API void em_array_extent(const em_array *a, char **lo, char **hi);
/* Whether two views may touch the same bytes. */
EM_API bool em_arrays_overlap(const em_array *a, const em_array *b);
/* Base pointer of the whole buffer and its size (for interop). */
EM_API void *em_buffer_ptr(const em_buffer *b);
EM_API size_t em_buffer_size(const em_buffer *b);

/* ---- shapes ------------------------------------------------------------ */

/* n = prod(shape), with overflow and negative-size checks. */
EM_API em_status em_shape_size(int ndim, const int64_t *shape, int64_t *n);
/* Broadcast shapes together (NumPy rules). */
EM_API em_status em_broadcast_shapes(int nshapes, const int *ndims, const int64_t *const *shapes,
                                     int *out_ndim, int64_t *out_shape);
/* Python slice semantics (PySlice_AdjustIndices): clamps start/stop for a
 * dimension of length len and gives the element count.  step must be
 * nonzero.  Absent bounds are given as PySlice_Unpack does: start 0 /
 * INT64_MAX and stop INT64_MAX / INT64_MIN for positive / negative steps. */
EM_API em_status em_slice_normalize(int64_t len, int64_t *start, int64_t *stop, int64_t step,
                                    int64_t *count);

/* ---- views (no copies) ------------------------------------------------- */

typedef enum em_index_kind { EM_IX_INT, EM_IX_SLICE, EM_IX_NEWAXIS, EM_IX_ELLIPSIS } em_index_kind;
typedef struct em_index_item {
    em_index_kind kind;
    int64_t start, stop, step; /* INT uses start; SLICE uses all three, raw
                                  (as em_slice_normalize takes them) */
} em_index_item;

/* Basic indexing: ints, slices, newaxis and one ellipsis. */
EM_API em_status em_view_index(const em_array *a, int nitems, const em_index_item *items,
                               em_array *out);
EM_API em_status em_view_transpose(const em_array *a, const int *perm, em_array *out);
EM_API em_status em_view_broadcast_to(const em_array *a, int ndim, const int64_t *shape,
                                      em_array *out);
/* Reshape as a view if the strides allow it (C order); EM_EUNSUPPORTED if
 * they don't (the caller then copies).  One -1 in shape is inferred. */
EM_API em_status em_view_reshape(const em_array *a, int ndim, const int64_t *shape, em_array *out);
/* Reinterpret an array as another dtype of the same size (real/imag views use
 * em_view_component). */
EM_API em_status em_view_component(const em_array *a, int imag, em_array *out);

/* ---- elementwise ops --------------------------------------------------- */

typedef enum em_op {
#define EM_OP(E, name, nin, res, kinds, spell) EM_OP_##E,
#include "ember/ops.def"
#undef EM_OP
    EM_NOPS
} em_op;

typedef enum em_resolver {
    EM_RES_SAME,
    EM_RES_FLOAT,
    EM_RES_CMP,
    EM_RES_BOOL,
    EM_RES_PRED,
    EM_RES_REAL,
    EM_RES_WHERE,
    EM_RES_TRUEDIV /* integers and bool -> float64 (true division) */
} em_resolver;

typedef struct em_op_info {
    const char *name;
    int nin;
    em_resolver resolver;
    unsigned kinds;
    const char *spelling;
} em_op_info;

EM_API const em_op_info *em_op_get(em_op op);
/* Look an op up by NumPy name; EM_NOPS if unknown. */
EM_API em_op em_op_from_name(const char *name);
/* Given the (already promoted) input dtype, the loop dtype the inputs are cast
 * to and the output dtype.  EM_ETYPE when no loop exists. */
EM_API em_status em_op_resolve(em_op op, em_dtype promoted, em_dtype *loop, em_dtype *out);

/* out = op(in...), with broadcasting.  If out->buf is set it is written in
 * place (shape must equal the broadcast shape; values are cast to its dtype);
 * otherwise a new array of the resolved dtype is made on the inputs' device.
 * loop == EM_NDTYPES promotes the inputs (NumPy rules) and resolves. */
EM_API em_status em_ufunc(em_op op, int nin, const em_array *const *in, em_dtype loop,
                          em_array *out);
/* dst[...] = src, broadcasting src to dst's shape and casting its values. */
EM_API em_status em_copy_into(em_array *dst, const em_array *src);
/* New C-contiguous copy of a in dtype dt (dt == EM_NDTYPES keeps a's). */
EM_API em_status em_astype(const em_array *a, em_dtype dt, em_array *out);
/* Fill every element with one value given as a 0-d or 1-element host value of dtype vdt. */
EM_API em_status em_fill(em_array *dst, em_dtype vdt, const void *value);
/* Fills by index, in place, on the current stream (codegen/render_indexfill.h):
 * a C-contiguous array whose elements are 4, 8 or 16 bytes wide.  EYE, TRIL
 * and TRIU treat a as a stack of n x n matrices (its last two axes, equal):
 * EYE writes identities (integer, float or complex), TRIL zeroes what
 * is above each diagonal, TRIU what is below.  STEP writes a[i] = b0 + i * d
 * into a 1-d 4- or 8-byte integer array, modulo its width.  A device kernel
 * where the backend compiles them, a loop on the CPU.  b0 and d: STEP only. */
typedef enum em_index_fill_kind {
    EM_IFILL_EYE,
    EM_IFILL_TRIL,
    EM_IFILL_TRIU,
    EM_IFILL_STEP
} em_index_fill_kind;
EM_API em_status em_index_fill(em_array *a, em_index_fill_kind kind, uint64_t b0, uint64_t d);
/* out = a C-contiguous copy of a (float32/64 or complex64/128, any
 * layout), queued on the current stream, and flag[0] (an int32 array on
 * a's device; on CUDA it may wrap pinned host memory) set to 1 where a
 * real or imaginary part is NaN, infinite or of magnitude at least bound,
 * left as it was otherwise (codegen/render_copycheck.h).  What a solver
 * that fails only on such input must know, found by the copy it makes
 * anyway and readable before the solver has run (cudalib's eigh). */
EM_API em_status em_copy_checked(const em_array *a, double bound, em_array *out, em_array *flag);
/* Copy to another device (or the same one), result C-contiguous. */
EM_API em_status em_to_device(const em_array *a, em_device dev, em_array *out);
/* Bytes between a host pointer and a contiguous array of any device. */
EM_API em_status em_array_read(const em_array *a, void *host, size_t nbytes);
EM_API em_status em_array_write(em_array *a, const void *host, size_t nbytes);

/* ---- reductions (reductions.def) --------------------------------------- */

typedef enum em_reduce_op {
#define EM_REDUCE(E, name) EM_RED_##E,
#include "ember/reductions.def"
#undef EM_REDUCE
    EM_NREDUCE
} em_reduce_op;

/* Reduce over naxes axes (naxes < 0: all; negative axes count from the
 * end; a bad axis is EM_EINDEX, a repeated one EM_EVALUE).  dt is the
 * accumulate/output dtype (EM_NDTYPES: NumPy's default for the op).  If
 * out->buf is set it receives the result (cast, same_kind, unsafe for SUM,
 * PROD and em_scan as NumPy's; its shape must be the result's, keepdims
 * included).  ddof is used by VAR/STD.  ARGMIN /
 * ARGMAX take one axis or all (the C-order flat index). */
EM_API em_status em_reduce(em_reduce_op op, const em_array *a, int naxes, const int *axes,
                           bool keepdims, em_dtype dt, double ddof, em_array *out);
/* Inclusive scan (CUMSUM or CUMPROD) along axis (negative counts from the
 * end); axis == INT_MIN scans the C-order flattened array (out is 1-d).
 * dt as for em_reduce (EM_NDTYPES: NumPy's default, as SUM). */
EM_API em_status em_scan(em_reduce_op op, const em_array *a, int axis, em_dtype dt, em_array *out);

/* ---- indexing (gather / scatter) --------------------------------------- */

/* Integer index arrays (any integer dtype, any layout, same device as a)
 * broadcast together to a shape B.  Negative indices wrap once; anything
 * still outside [0, n) fails with EM_EINDEX and NumPy's message ("index 10
 * is out of bounds for axis 0 with size 5", axis counted in a). */

/* out[b..., r...] = a[idx[0][b...], ..., idx[nidx-1][b...], r...]: the idx
 * arrays index a's first nidx dimensions; out is C-contiguous, shape B +
 * a.shape[nidx:], dtype a's. */
EM_API em_status em_take(const em_array *a, int nidx, const em_array *idx, em_array *out);
/* a[idx[0][b], ..., r...] = values, values broadcast to B + a.shape[nidx:]
 * and cast to a's dtype.  Repeated indices: the last write wins. */
EM_API em_status em_put(em_array *a, int nidx, const em_array *idx, const em_array *values);
/* out = a.ravel()[idx] (a of any layout; idx's shape is out's). */
EM_API em_status em_take_flat(const em_array *a, const em_array *idx, em_array *out);
/* a.ravel()[idx] = values (values broadcast to idx's shape, cast). */
EM_API em_status em_put_flat(em_array *a, const em_array *idx, const em_array *values);
/* Accumulating scatter (ufunc.at): out[idx[i]] = op(out[idx[i]], values[i])
 * for every i in order of nothing (atomics on a device; repeated indices
 * all count), op one of add, subtract, multiply, maximum, minimum; out 1-d
 * contiguous int32, uint32, int64, uint64, float32 or float64, idx 1-d
 * contiguous int64, values 1-d contiguous of out's dtype, all on out's
 * device.  Indices outside out are skipped (the caller checks bounds). */
EM_API em_status em_scatter_accum(em_array *out, const em_array *idx, const em_array *values,
                                  em_op op);
/* Histogram counts or weight sums, added into out (codegen/render_histogram.h:
 * one atomic kernel on a device, a serial loop on the CPU).  x: (n, ndim)
 * samples, C-contiguous ((n,) for one dimension); per dimension d a mode
 * (0: the value is the bin, for bincount; 1: uniform edges, the bin
 * estimated as (v - lo[d]) * scale[d] and corrected against them; 2: any
 * non-decreasing edges, searched) and nbins[d]; edges: each non-counting
 * dimension's nbins + 1 edges in turn, 1-d contiguous, of the dtype samples
 * compare in (float32/64, int64, uint64); bin i holds e[i] <= v < e[i+1],
 * the last bin closed, values outside and NaN skipped; bins combine in C
 * order.  out: 1-d contiguous, prod(nbins) elements, int64 (weights NULL)
 * or the weights' dtype (float32/64, complex64/128; n of them, 1-d). */
EM_API em_status em_histogram(em_array *out, const em_array *x, const em_array *edges,
                              const em_array *weights, int ndim, const int *modes,
                              const int64_t *nbins, const double *lo, const double *scale);
/* bincount on the CPU (backend/cpu/bincount.c): x 1-d bool, int8..int64 or
 * uint8..uint32, any stride; weights NULL or 1-d float64 of x's length;
 * out (unset on entry) gets max(max(x) + 1, minlength) int64 counts, or
 * float64 weight sums (weights given and x not empty), as NumPy's.  A
 * negative value is EM_EVALUE, another dtype EM_ETYPE, another device
 * EM_EDEVICE, a stride or address not a multiple of the itemsize
 * EM_EUNSUPPORTED. */
EM_API em_status em_cpu_bincount(const em_array *x, const em_array *weights, int64_t minlength,
                                 em_array *out);
/* Coordinates of the nonzero elements of a (any layout, ndim >= 1; a 0-d a
 * is EM_EVALUE, as in NumPy 2): out is (nnz, ndim) int64 in C order. */
EM_API em_status em_nonzero(const em_array *a, em_array *out);
/* out = a[mask] (1-d, C order of the selected elements): mask of a's shape
 * on a's device, any dtype (its truth, as nonzero), a C-contiguous, ndim
 * >= 1.  One pass less than nonzero and a gather on a device. */
EM_API em_status em_mask_select(const em_array *a, const em_array *mask, em_array *out);

/* ---- sorting and searching (device kernels; the CPU's own radix sort) ---- */

/* A sorted copy of a along axis (negative counts from the end; INT_MIN:
 * the C-order flattened array, out 1-d): a stable LSD radix sort in
 * NumPy's order (NaNs last; complex by real, then imaginary part); with
 * descending the order flips (NaNs first) and ties keep their original
 * order.  out gets a's shape (along an axis other than the last, a view of
 * a C-contiguous result with that axis last).  On the CPU a radix sort
 * of real dtypes (backend/cpu/sort.c): EM_EUNSUPPORTED for complex there.
 * A bad axis is EM_EINDEX. */
EM_API em_status em_sort(const em_array *a, int axis, bool descending, em_array *out);
/* The same order as int64 indices along axis (argsort). */
EM_API em_status em_argsort(const em_array *a, int axis, bool descending, em_array *out);
/* The argsort of the C-order flattened a (idx: int64, 1-d) and, where the
 * device sorts both in one go (CUDA's fused passes), its sorted values
 * (keys: a's dtype, 1-d, the same as em_sort's); elsewhere keys is left
 * empty (keys->buf NULL) for the caller to gather. */
EM_API em_status em_argsort_keys(const em_array *a, bool descending, em_array *idx, em_array *keys);
/* Insertion points (int64, v's shape) of v's elements into the ascending
 * 1-D a (read through the int64 permutation sorter when not NULL): before
 * equal elements, after them with right.  v is cast to a's dtype first when
 * they differ (callers promote); NaNs order last, as in em_sort. */
EM_API em_status em_searchsorted(const em_array *a, const em_array *v, bool right,
                                 const em_array *sorter, em_array *out);
/* The distinct values of the sorted 1-D C-contiguous s (em_sort's output)
 * in one flag-and-compact pass: out[0] the values (s's dtype); out[1] with
 * index: each value's first position in the original order, perm[first]
 * (int64); out[2] with inverse: each original element's value rank (int64,
 * s's length, at perm[i]); out[3] with counts (int64).  perm: the argsort
 * that sorted s (needed by index and inverse, else may be NULL).  Equal is
 * == in s's dtype (-0.0 is 0.0); equal_nan makes every NaN one value.  The
 * outputs not asked for are left empty.  Devices that compile kernels
 * only: EM_EUNSUPPORTED on the CPU. */
EM_API em_status em_unique_sorted(const em_array *s, const em_array *perm, bool equal_nan,
                                  bool index, bool inverse, bool counts, em_array out[4]);
/* The set operations on sorted arrays (devices that compile kernels; bool,
 * integer and real dtypes, s and o of one dtype, C-contiguous; o 1-D and
 * sorted as the device sort sorts, NaNs last).  Membership is == in the
 * dtype (-0.0 is 0.0, a NaN is in nothing), by a binary search in o:
 *  EM_SETOP_IN / EM_SETOP_NOTIN: the distinct values of the sorted 1-D s
 *    (every NaN one value) that are / are not in o, sorted (intersect1d,
 *    setdiff1d); one read-back (the length);
 *  EM_SETOP_MERGE: the sorted 1-D s and o merged into one sorted array
 *    (stable: s's elements first among equals);
 *  EM_SETOP_ISIN / EM_SETOP_ISNOTIN: per element of s (any shape, any
 *    order) whether it is / is not in o, bool of s's shape;
 *  EM_SETOP_SINGLE: the elements of the sorted 1-D s equal to neither
 *    neighbour (== in the dtype: NaNs differ), sorted; o is not read
 *    (setxor1d: the merged distinct values of each input); one read-back. */
typedef enum em_setop {
    EM_SETOP_IN,
    EM_SETOP_NOTIN,
    EM_SETOP_MERGE,
    EM_SETOP_ISIN,
    EM_SETOP_ISNOTIN,
    EM_SETOP_SINGLE
} em_setop;
EM_API em_status em_setop_sorted(const em_array *s, const em_array *o, int mode, em_array *out);
/* The ks[i]-th smallest elements of a (any layout, read in C order) in
 * NumPy's sort order (NaNs last) into out: 1-D, nk elements, a's dtype.  A
 * radix select on the device (no sort, no read-back).  Every k in [0, n)
 * (EM_EINDEX otherwise); bool, integer and real dtypes (EM_ETYPE for
 * complex).  Devices that compile kernels only. */
EM_API em_status em_select_kth(const em_array *a, int nk, const int64_t *ks, em_array *out);

/* NumPy's partition (arg: argpartition, int64 indices) of a (any layout,
 * read in C order as 1-D) into out (1-D, a's size): for each rank k of ks
 * (nk of them, any order, repeats allowed, 1..8 distinct), out[k] is the
 * element a sorted would hold there, every element before it no larger and
 * every one after it no smaller (NumPy's order: NaNs last); within those
 * stretches the input's order.  The radix select then one compaction: no
 * sort, no read-back.  Every k in [0, n) (EM_EINDEX otherwise); bool,
 * integer and real dtypes (EM_ETYPE for complex); more than 8 distinct
 * ranks: EM_EUNSUPPORTED (callers sort).  Devices that compile kernels
 * only. */
EM_API em_status em_partition(const em_array *a, int nk, const int64_t *ks, bool arg,
                              em_array *out);

/* ---- matrix product (device kernels) ------------------------------------ */

/* out = a @ b for stacks of matrices: a (..., m, k) and b (..., k, n) of one
 * dtype and the same batch shape (callers promote and broadcast; any
 * strides, 0 included, are read in place), out a new C-contiguous
 * (..., m, n) array.  NumPy's sums: in the dtype (integers wrap, bool is OR
 * of ANDs); no float16.  The tiled kernel of devices that compile kernels
 * (OpenCL; CUDA has em_cuda_matmul): EM_EUNSUPPORTED elsewhere. */
EM_API em_status em_matmul(const em_array *a, const em_array *b, em_array *out);

/* ---- random (Philox4x32-10, counter based) ----------------------------- */

/* The stream (key, counter) is the sequence of Philox4x32-10 blocks
 * philox(ctr = {lo32(counter + j), hi32(counter + j), 0, 0},
 *        key = {lo32(key), hi32(key)}) for j = 0, 1, ...; each block is four
 * 32-bit words w0..w3.  Element i of a fill takes its bits from block i/4
 * (32-bit outputs: word i%4) or block i/2 (64-bit outputs: words 2(i%2),
 * 2(i%2)+1 as lo | hi << 32), so every device produces the same stream.
 * UNIFORM: float32 (w >> 8) * 2^-24, float64 (b64 >> 11) * 2^-53, in [0, 1).
 * NORMAL: Box-Muller on consecutive pairs of those uniforms (u1, u2):
 *   r = sqrt(-2 log(1 - u1)), z = (r cos 2 pi u2, r sin 2 pi u2); equal
 *   across devices up to the rounding of each device's log/sin/cos.
 * BITS: the raw words, uint32 or uint64.
 * INTEGERS (em_random_integers): low + floor(b64 * range / 2^64), any
 *   integer or bool dtype; the bias is at most range / 2^64 (< 1e-9 for any
 *   range under 2^34), the price of a result that depends on the position only. */
typedef enum em_random_kind {
    EM_RAND_UNIFORM,
    EM_RAND_NORMAL,
    EM_RAND_BITS,
    EM_RAND_INTEGERS,
    /* em_random_dist's rejection samplers (codegen/rand_dist.h gives the
     * stream and the methods): one Philox sub-stream per element. */
    EM_RAND_GAMMA,    /* float64 out; p0 the shape */
    EM_RAND_POISSON,  /* int64 out; p0 lam */
    EM_RAND_BINOMIAL, /* int64 out; p0 n (an integer held as float64), p1 p */
    EM_RAND_BETA      /* float64 out; p0 a, p1 b: X / (X + Y) of gamma(a), gamma(b) */
} em_random_kind;
/* A transform a fill applies to each value before it is stored
 * (em_random_fill_post), so that a distribution drawn from the uniform or
 * normal stream is one pass over memory: AFFINE v * pa + pb (UNIFORM or
 * NORMAL into float64); EXPONENTIAL -log(1 - v) * pa (UNIFORM into float32 or
 * float64; 1 - v is exact, so this is -log1p(-v) at log's cost); GEOMETRIC
 * max(ceil(log1p(-v) / pa), 1) as int64 with pa = log1p(-p) (v the UNIFORM
 * float64 stream; the CPU computes it too).  Each is the expression the
 * Python layer evaluated elementwise on the stream's values, so a device's
 * numbers are those of the unfused chain there; GEOMETRIC's are equal on
 * every device but where a quotient lies within an ulp or two of an
 * integer (each device's log1p). */
typedef enum em_random_post {
    EM_RPOST_NONE,
    EM_RPOST_AFFINE,
    EM_RPOST_EXPONENTIAL,
    EM_RPOST_GEOMETRIC
} em_random_post;
/* Fill a (float32/float64 for UNIFORM/NORMAL in [0,1) / N(0,1); uint32/uint64
 * for BITS) from the stream (key, counter).  The n-th element of a stream is
 * the same on every device.  Returns the next counter in *next. */
EM_API em_status em_random_fill(em_array *a, em_random_kind kind, uint64_t key, uint64_t counter,
                                uint64_t *next);
/* em_random_fill of kind into a's base dtype (float64 for GEOMETRIC, else
 * a's), each value transformed by post with pa and pb before it is stored
 * (on the CPU: the fill, then a loop with libm's functions; GEOMETRIC
 * converted as the uniforms are made). */
EM_API em_status em_random_fill_post(em_array *a, em_random_kind kind, em_random_post post,
                                     double pa, double pb, uint64_t key, uint64_t counter,
                                     uint64_t *next);
/* Fill an integer (or bool) array with low + [0, range) drawn as above.
 * low is the value's 64-bit two's-complement pattern, read as signed or
 * unsigned by a's dtype; range == 0 means 2^64.  Every value must fit a's
 * dtype (EM_EVALUE otherwise). */
EM_API em_status em_random_integers(em_array *a, uint64_t low, uint64_t range, uint64_t key,
                                    uint64_t counter, uint64_t *next);
/* Fill a with the variates of kind (GAMMA, POISSON, BINOMIAL, BETA) whose
 * parameters are p0 and p1 (p1 NULL where the kind has one): float64,
 * C-contiguous, on a's device, each of one element or a's element count
 * (element i takes element i).  The parameters are not validated here (the
 * callers check NumPy's domain).  *next = counter + a's element count. */
EM_API em_status em_random_dist(em_array *a, em_random_kind kind, const em_array *p0,
                                const em_array *p1, uint64_t key, uint64_t counter, uint64_t *next);

/* out[i] = pop[j_i] for each element i of out (C-contiguous, pop's dtype,
 * any shape, on pop's device), j the int64 stream em_random_integers gives
 * with low 0 and range len(pop) (pop 1-d, any strides, not empty): the
 * values of that fill and a take, in one kernel on a device that compiles
 * them (the indices are in range by construction: no check, no read-back).
 * *next as that fill's: counter + ceil(size / 2). */
EM_API em_status em_random_choice(em_array *out, const em_array *pop, uint64_t key,
                                  uint64_t counter, uint64_t *next);

/* ---- runtime ----------------------------------------------------------- */

EM_API void em_set_num_threads(int n);
EM_API int em_get_num_threads(void);
/* Host memory pool: bytes held by live arrays and bytes cached. */
EM_API void em_host_pool_stats(size_t *used, size_t *cached);
EM_API void em_host_pool_release(void);
/* The most bytes held by live blocks since the last reset (reset != 0 starts
 * again from now): the fusion tests measure peak memory with it. */
EM_API void em_host_pool_peak(size_t *peak, int reset);
/* EMBER_DEBUG level (0..4). */
EM_API int em_debug_level(void);

#ifdef __cplusplus
}
#endif
#endif /* EMBER_H */
