/* em_matmul (ember.h): the checks and the result, then the tiled kernel of
 * codegen/run_gemm.c on a device that compiles kernels.  CUDA's products go
 * to cuBLAS (cudalib/blas.c) and the CPU's to NumPy, from the Python layer;
 * this is OpenCL's (and any compiling backend's) product. */
#include "codegen/run.h"
#include "core/core.h"

#include <string.h>

em_status em_matmul(const em_array *a, const em_array *b, em_array *out) {
    if (!a || !a->buf || !b || !b->buf || !out)
        return em_error(EM_EVALUE, "em_matmul: a, b and out must be set");
    const em_device dev = em_array_device(a);
    const em_backend *be = em__backend(dev.kind);
    if (!be || !be->module_build || be->ops)
        return em_error(EM_EUNSUPPORTED,
                        "em_matmul runs on devices that compile kernels, not on %s",
                        be ? be->name : "this device");
    const em_device bdev = em_array_device(b);
    if (bdev.kind != dev.kind || bdev.id != dev.id)
        return em_error(EM_EVALUE, "em_matmul: a and b are on different devices");
    if (a->dtype != b->dtype)
        return em_error(EM_ETYPE, "em_matmul: a is %s and b %s (callers promote)",
                        em_dtype_get(a->dtype)->name, em_dtype_get(b->dtype)->name);
    const int nd = a->ndim;
    if (nd < 2 || b->ndim != nd)
        return em_error(EM_EVALUE, "em_matmul: a and b must be stacks of matrices of one ndim");
    for (int i = 0; i < nd - 2; i++)
        if (a->shape[i] != b->shape[i])
            return em_error(EM_EVALUE, "em_matmul: batch dimension %d differs (%lld, %lld)", i,
                            (long long)a->shape[i], (long long)b->shape[i]);
    if (a->shape[nd - 1] != b->shape[nd - 2])
        return em_error(EM_EVALUE,
                        "matmul: Input operand 1 has a mismatch in its core dimension 0, with "
                        "gufunc signature (n?,k),(k,m?)->(n?,m?) (size %lld is different from "
                        "%lld)",
                        (long long)b->shape[nd - 2], (long long)a->shape[nd - 1]);
    int64_t shape[EM_MAXDIMS];
    memcpy(shape, a->shape, sizeof shape[0] * (size_t)nd);
    shape[nd - 1] = b->shape[nd - 1];
    em_array res = {0};
    EM_CHECK(em_array_empty(&res, a->dtype, nd, shape, dev));
    em_status s = EM_OK;
    if (a->shape[nd - 1] == 0) { /* an empty sum: zeros */
        char zero[16] = {0};
        if (em_array_size(&res)) s = em_fill(&res, a->dtype, zero);
    } else {
        s = em_run_matmul(be, a, b, &res);
    }
    if (s != EM_OK) {
        em_array_release(&res);
        return s;
    }
    *out = res;
    return EM_OK;
}
