/* The three dialect tables (see dialect.h). */
#include "codegen/dialect.h"
/* em_prelude_c/_cuda/_opencl: made by the build (tools/gen_scalar.c). */
#include "ember_preludes.h"

#include <stdio.h>
#include <string.h>

/* C for the CPU: src/jit/cpu_launch.c runs a kernel as a loop over blocks
 * and threads; its context em_i carries the index registers, and the
 * launcher's coroutines make the barrier a yield. */
const em_dialect em_dialect_c = {
    .id = EM_DIALECT_C,
    .name = "c",
    .kernel = "void",
    .bounds = "",
    .device_fn = "static inline",
    .global = "",
    .shared = "static _Thread_local",
    .constant = "static const",
    .restrict_kw = "restrict",
    .args_struct = true,
    .local_id = "em_i.tid[%d]",
    .group_id = "em_i.bid[%d]",
    .local_size = "em_i.bdim[%d]",
    .num_groups = "em_i.gdim[%d]",
    .barrier = "em_syncthreads();",
    .fence = "__atomic_thread_fence(__ATOMIC_SEQ_CST);",
    .atomic_add_u32 = "__atomic_fetch_add(%s, %s, __ATOMIC_SEQ_CST)",
    .has_atomic64 = true,
    .has_shuffle = false,
    .shfl_down = NULL,
    .warp_size = 0,
    .warp_barrier = NULL,
    .dyn_shared = NULL,
    .umulhi32 = NULL,
    .umulhi64 = NULL,
    .has_fp64 = true,
    .has_int64 = true,
    .i64 = "long long",
    .prelude = em_prelude_c,
    .bool_storage = "bool",
    .u64 = "unsigned long long",
    .ref = "",
    .atomic_claim = "__atomic_exchange_n((long long *)%s, 1LL, __ATOMIC_SEQ_CST) == 0",
    .atomic_max_i32 = NULL,
    .int_as_float = NULL,
};

const em_dialect em_dialect_cuda = {
    .id = EM_DIALECT_CUDA,
    .name = "cuda",
    .kernel = "extern \"C\" __global__ void",
    .bounds = "__launch_bounds__(%d)",
    .device_fn = "static __device__ __forceinline__",
    .global = "",
    .shared = "__shared__",
    .constant = "__constant__",
    .restrict_kw = "__restrict__",
    .args_struct = true,
    .local_id = "threadIdx.%c",
    .group_id = "blockIdx.%c",
    .local_size = "blockDim.%c",
    .num_groups = "gridDim.%c",
    .barrier = "__syncthreads();",
    .fence = "__threadfence();",
    .atomic_add_u32 = "atomicAdd(%s, %s)",
    .has_atomic64 = true,
    .has_shuffle = true,
    .shfl_down = "__shfl_down_sync(0xffffffffu, %s, %s)",
    .warp_size = 32,
    .warp_barrier = "__syncwarp();",
    .dyn_shared = "extern __shared__ __align__(16) unsigned char %s[];",
    .umulhi32 = "__umulhi",
    .umulhi64 = "__umul64hi",
    .has_fp64 = true,
    .has_int64 = true,
    .i64 = "long long",
    .prelude = em_prelude_cuda,
    .bool_storage = "bool",
    .u64 = "unsigned long long",
    .ref = "&",
    .atomic_claim = "atomicCAS((unsigned long long *)%s, 0ull, 1ull) == 0ull",
    .atomic_max_i32 = "atomicMax(%s, %s)",
    .int_as_float = "__int_as_float",
};

/* OpenCL C 1.2: fp64 is an extension the device may lack; the OpenCL
 * backend checks cl_khr_fp64 and the prelude enables it where present. */
const em_dialect em_dialect_opencl = {
    .id = EM_DIALECT_OPENCL,
    .name = "opencl",
    .kernel = "__kernel void",
    .bounds = "__attribute__((reqd_work_group_size(%d, 1, 1)))",
    .device_fn = "static inline",
    .global = "__global",
    .shared = "__local",
    .constant = "__constant",
    .restrict_kw = "restrict",
    .args_struct = false,
    .local_id = "get_local_id(%d)",
    .group_id = "get_group_id(%d)",
    .local_size = "get_local_size(%d)",
    .num_groups = "get_num_groups(%d)",
    .barrier = "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
    .fence = "mem_fence(CLK_GLOBAL_MEM_FENCE);",
    .atomic_add_u32 = "atomic_add(%s, %s)",
    .has_atomic64 = false,
    .has_shuffle = false,
    .shfl_down = NULL,
    .warp_size = 0,
    .warp_barrier = NULL,
    .dyn_shared = NULL,
    .umulhi32 = "mul_hi",
    .umulhi64 = "mul_hi",
    .has_fp64 = true,
    .has_int64 = true,
    .i64 = "long",
    .prelude = em_prelude_opencl,
    .bool_storage = "uchar",
    .u64 = "ulong",
    .ref = "",
    .atomic_claim = "atomic_cmpxchg((volatile __global int *)%s, 0, 1) == 0",
    .atomic_max_i32 = "atomic_max(%s, %s)",
    .int_as_float = "as_float",
};

const em_dialect *em_dialect_get(em_dialect_id id) {
    static const em_dialect *const all[EM_NDIALECTS] = {&em_dialect_c, &em_dialect_cuda,
                                                        &em_dialect_opencl};
    return (unsigned)id < EM_NDIALECTS ? all[id] : NULL;
}

const em_dialect *em_dialect_find(const char *name) {
    for (int i = 0; i < EM_NDIALECTS; i++)
        if (name && strcmp(em_dialect_get((em_dialect_id)i)->name, name) == 0)
            return em_dialect_get((em_dialect_id)i);
    return NULL;
}

/* A format names its dimension by letter (%c: x, y, z) or number (%d);
 * substituted by hand since the formats are data, not literals. */
const char *em_dialect_reg(const char *fmt, int dim, char *buf, size_t len) {
    size_t at = 0;
    if (!len) return buf;
    if (dim < 0 || dim > 2) dim = 0;
    for (const char *c = fmt; *c && at + 1 < len; c++) {
        if (c[0] == '%' && (c[1] == 'c' || c[1] == 'd')) {
            buf[at++] = c[1] == 'c' ? (char)('x' + dim) : (char)('0' + dim);
            c++;
        } else {
            buf[at++] = *c;
        }
    }
    buf[at] = 0;
    return buf;
}

/* The bounds field is data with one %d: formatted here, where the one
 * non-literal format is allowed. */
const char *em_dialect_bounds(const em_dialect *d, int threads, char *buf, size_t len) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    if (len) snprintf(buf, len, d->bounds, threads);
#pragma GCC diagnostic pop
    return buf;
}

const char *em_scalar_suffix(em_dtype dt) {
    static const char *const sfx[EM_NDTYPES] = {"b",   "i8",  "i16", "i32", "i64", "u8",  "u16",
                                                "u32", "u64", "f16", "f32", "f64", "c64", "c128"};
    return (unsigned)dt < EM_NDTYPES ? sfx[dt] : "";
}
