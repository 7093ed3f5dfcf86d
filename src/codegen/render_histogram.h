/* The atomic histogram: one template for CUDA and OpenCL, a serial loop on
 * the CPU (run_histogram.c).  Counts (or weight sums) of the samples of x
 * per bin, the bin computed in the kernel: for bincount the value itself;
 * for a histogram, per dimension, the bin i with e[i] <= v < e[i+1] (the
 * last bin closed, values outside [e[0], e[nb]] and NaN skipped: NumPy's
 * rule), found by a binary search of the edges or, for uniform edges, by
 * (v - lo) * scale corrected against the edges (so it is exact whatever
 * the rounding of the estimate); dimensions combine in C order (the
 * flattened bin of histogramdd).  Each block privatises the bins in shared
 * memory (replicated per warp group where they are few, to spread the
 * contention) and adds them to out with one global atomic per bin; bins
 * that do not fit go straight to global memory.
 *
 * Argument (packed, all fields 8 bytes):
 *   char *out; const char *x, *e, *w; long long n, nbin;
 *   long long nb[EM_HIST_MAXDIM], eoff[EM_HIST_MAXDIM];
 *   double lo[EM_HIST_MAXDIM], scale[EM_HIST_MAXDIM]
 * (n samples of ndim values each, x[i * ndim + d]; nbin: the product of
 * nb; the edges of dimension d at e + eoff[d]). */
#ifndef EM_RENDER_HISTOGRAM_H
#define EM_RENDER_HISTOGRAM_H

#include "backend/backend.h"
#include "codegen/dialect.h"
#include "codegen/render.h"

#define EM_HIST_MAXDIM 8

/* How a dimension's bin is found. */
typedef enum em_hist_mode {
    EM_HIST_COUNT,   /* bincount: the value is the bin, outside [0, nb) skipped */
    EM_HIST_UNIFORM, /* edges from linspace: estimate, then corrected against them */
    EM_HIST_EDGES    /* any non-decreasing edges: binary search */
} em_hist_mode;

/* What a call asks for (the driver's input). */
typedef struct em_hist_spec {
    int ndim;
    em_hist_mode mode[EM_HIST_MAXDIM];
    int64_t nb[EM_HIST_MAXDIM]; /* bins of each dimension */
    double lo[EM_HIST_MAXDIM];  /* uniform: the estimate (v - lo) * scale */
    double scale[EM_HIST_MAXDIM];
} em_hist_spec;

/* What one kernel is rendered for (the driver's choice; its cache key). */
typedef struct em_hist_kernel {
    em_dtype x, c; /* the samples' dtype; the one they compare in (the edges') */
    em_dtype w;    /* EM_NDTYPES: counts into int64; else the weights' (and out's) */
    int ndim;
    unsigned char mode[EM_HIST_MAXDIM];
    int64_t cap;  /* shared accumulators per replica (0: accumulate in global memory) */
    int reps;     /* replicas of the shared bins (a power of two, at most 8) */
    int64_t ecap; /* edges held in shared memory (0: read from global memory) */
    int fast;     /* 1: the one-dimension count kernel (shared bins, 32-bit bin
                   * arithmetic, 16-byte loads on CUDA); 0: the general one */
} em_hist_kernel;

/* Whether the template takes these dtypes: x any integer or float32/64
 * (an integer for EM_HIST_COUNT), c float32/64 or a 64-bit integer, w
 * float32/64 or complex64/128. */
EM_API bool em_hist_dtypes_ok(em_dtype x, em_dtype c, em_dtype w);
/* The kernel (named EM_KNAME), prelude included. */
EM_API em_status em_render_histogram(const em_dialect *d, const em_hist_kernel *k, em_sbuf *src);
/* The driver (run_histogram.c): adds into out (1-d contiguous of spec's
 * nbin elements, zeroed by the caller: int64 without w, w's dtype with).
 * x: (n, ndim) or (n,) for one dimension, C-contiguous; edges (NULL when
 * every dimension is EM_HIST_COUNT): each dimension's nb + 1 edges one
 * after the other, 1-d contiguous, its dtype the comparison's; w NULL or
 * n values.  All on out's device. */
EM_API em_status em_run_histogram(const em_backend *be, em_array *out, const em_array *x,
                                  const em_array *edges, const em_array *w,
                                  const em_hist_spec *spec);

#endif
