/* Host C++ around rendered reduction kernels (test_cuda_reduce.c): the
 * scan emulator's block model (scan_emul.h: EM_RBLOCK POSIX threads per
 * block, blocks one after another, __shared__ as statics, __syncthreads()
 * a barrier) plus warp shuffles, each warp's 32 threads meeting at a
 * barrier of their own (warps of a block run different numbers of units,
 * so a block-wide one would hang).  Several kernels go into one shared
 * library, each in a namespace of its own (EMUL_KERNEL), loaded into the
 * test's process: the kernels read the plan's own packed argument, with
 * the test's pointers. */
#ifndef EM_REDUCE_EMUL_H
#define EM_REDUCE_EMUL_H

#include "scan_emul.h"

/* After EMUL_PRE, before the prelude. */
static const char REMUL_PRE[] =
    "#define EMUL_RB 256\n"
    "static pthread_barrier_t em_wbar[EMUL_RB / 32];\n"
    "static unsigned em_wsh[EMUL_RB];\n"
    "// Lane l gets lane l + d's value (its own past the warp's end).\n"
    "static unsigned __shfl_down_sync(unsigned, unsigned v, int d) {\n"
    "    const unsigned t = threadIdx.x, l = t % 32;\n"
    "    em_wsh[t] = v;\n"
    "    pthread_barrier_wait(&em_wbar[t / 32]);\n"
    "    const unsigned r = l + (unsigned)d < 32 ? em_wsh[t + d] : v;\n"
    "    pthread_barrier_wait(&em_wbar[t / 32]);\n"
    "    return r;\n"
    "}\n"
    "typedef void (*em_kfn)(const void *);\n"
    "static em_kfn em_cur_k;\n"
    "static const void *em_cur_a;\n"
    "static void *em_thread(void *v) {\n"
    "    threadIdx.x = (unsigned)(size_t)v, threadIdx.y = threadIdx.z = 0;\n"
    "    for (unsigned b = 0; b < gridDim.x; b++) {\n"
    "        blockIdx.x = b, blockIdx.y = blockIdx.z = 0;\n"
    "        em_cur_k(em_cur_a);\n"
    "        pthread_barrier_wait(&em_bar);\n"
    "    }\n"
    "    return 0;\n"
    "}\n"
    "static void em_launch(em_kfn k, const void *a, unsigned grid) {\n"
    "    blockDim.x = EMUL_RB, blockDim.y = blockDim.z = 1, gridDim.x = grid, gridDim.y = gridDim.z = 1;\n"
    "    em_cur_k = k, em_cur_a = a;\n"
    "    pthread_barrier_init(&em_bar, 0, EMUL_RB);\n"
    "    for (int w = 0; w < EMUL_RB / 32; w++) pthread_barrier_init(&em_wbar[w], 0, 32);\n"
    "    pthread_t t[EMUL_RB];\n"
    "    for (size_t i = 0; i < EMUL_RB; i++) if (pthread_create(&t[i], 0, em_thread, (void *)i)) abort();\n"
    "    for (int i = 0; i < EMUL_RB; i++) pthread_join(t[i], 0);\n"
    "    pthread_barrier_destroy(&em_bar);\n"
    "    for (int w = 0; w < EMUL_RB / 32; w++) pthread_barrier_destroy(&em_wbar[w]);\n"
    "}\n";

/* Kernel n's entry point, closing its namespace e<n> (printf with n three
 * times): pass 1 or pass 2 over grid blocks (warp mode has no pass 2:
 * REMUL_NO_K2 before this). */
static const char REMUL_NO_K2[] = "static void em_kernel2(const em_args p) { abort(); }\n";
static const char REMUL_ENTRY[] =
    "static void k1(const void *a) { em_kernel(*(const em_args *)a); }\n"
    "static void k2(const void *a) { em_kernel2(*(const em_args *)a); }\n"
    "}\n"
    "extern \"C\" void emul_%d(const void *a, unsigned grid, int pass2) {\n"
    "    em_launch(pass2 ? e%d::k2 : e%d::k1, a, grid);\n"
    "}\n";

#endif
