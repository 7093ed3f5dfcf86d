/* em_histogram (ember.h): the public entry of the atomic histogram, its
 * arguments into the driver's spec (codegen/render_histogram.h). */
#include "codegen/render_histogram.h"
#include "core/core.h"

em_status em_histogram(em_array *out, const em_array *x, const em_array *edges,
                       const em_array *weights, int ndim, const int *modes, const int64_t *nbins,
                       const double *lo, const double *scale) {
    if (ndim < 1 || ndim > EM_HIST_MAXDIM)
        return em_error(EM_EVALUE, "histogram: %d dimensions (1 to %d)", ndim, EM_HIST_MAXDIM);
    em_hist_spec s = {.ndim = ndim};
    for (int d = 0; d < ndim; d++) {
        if (modes[d] < EM_HIST_COUNT || modes[d] > EM_HIST_EDGES)
            return em_error(EM_EVALUE, "histogram: unknown bin mode %d", modes[d]);
        s.mode[d] = (em_hist_mode)modes[d];
        s.nb[d] = nbins[d];
        s.lo[d] = lo ? lo[d] : 0.0;
        s.scale[d] = scale ? scale[d] : 0.0;
    }
    return em_run_histogram(em__backend(em_array_device(out).kind), out, x, edges, weights, &s);
}
