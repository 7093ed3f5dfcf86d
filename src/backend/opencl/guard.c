/* EMBER_OPENCL_GUARD=1: guarded buffers, a debugging mode for devices that
 * compute in host memory (PoCL).
 *
 * Why: the pool rounds a request up to 512 bytes and reuses a freed block
 * for any request from half its size, and PoCL places buffers next to each
 * other, so a kernel that reads or writes a few elements past an array's
 * end reads a neighbour's bytes and goes unnoticed -- until, rarely, the
 * bytes past the end are the last of a mapping and the process dies with
 * SIGSEGV.  Here each buffer is its own mapping: its bytes end exactly
 * where an inaccessible page begins, and the driver is asked to use them
 * (CL_MEM_USE_HOST_PTR), so the first access past the end faults at once,
 * in the kernel that made it (a core dump or gdb names it).  mem.c neither
 * rounds nor caches in this mode.  The mapping goes when the driver
 * destroys the buffer (after the last command using it), through the
 * buffer's destructor callback. */
#include "backend/opencl/cl_internal.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct em__guard {
    void *base;
    size_t len;
} em__guard;

bool em_cl_guard_on(void) {
    static int on = -1; /* read once: a buffer's kind must not change under it */
    int v = __atomic_load_n(&on, __ATOMIC_RELAXED);
    if (v < 0) {
        const char *e = getenv("EMBER_OPENCL_GUARD");
        v = e && e[0] == '1';
        __atomic_store_n(&on, v, __ATOMIC_RELAXED);
    }
    return v;
}

size_t em_cl_guard_round(size_t n) {
    /* 8 bytes: every element type's alignment up to double, so the fence
     * sits at most 7 bytes past the end of a byte array and right at the
     * end of anything wider */
    return n ? (n + 7) & ~(size_t)7 : 8;
}

static void em__unmap(cl_mem m, void *user) {
    EM_UNUSED(m);
    em__guard *g = user;
    munmap(g->base, g->len);
    free(g);
}

cl_mem em_cl_guard_buffer(cl_context ctx, size_t size, cl_int *err) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t body = (size + page - 1) / page * page;
    em__guard *g = malloc(sizeof *g);
    if (!g) return *err = EM_CL_OUT_OF_HOST_MEMORY, NULL;
    g->len = body + page;
    g->base = mmap(NULL, g->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->base == MAP_FAILED) return free(g), *err = EM_CL_OUT_OF_HOST_MEMORY, NULL;
    char *fence = (char *)g->base + body;
    if (mprotect(fence, page, PROT_NONE) != 0) {
        munmap(g->base, g->len), free(g);
        return *err = EM_CL_OUT_OF_HOST_MEMORY, NULL;
    }
    cl_mem m = em__cl.clCreateBuffer(ctx, EM_CL_MEM_READ_WRITE | EM_CL_MEM_USE_HOST_PTR, size,
                                     fence - size, err);
    if (!m || *err != EM_CL_SUCCESS ||
        (*err = em__cl.clSetMemObjectDestructorCallback(m, em__unmap, g)) != EM_CL_SUCCESS) {
        if (m) em__cl.clReleaseMemObject(m);
        munmap(g->base, g->len), free(g);
        return NULL;
    }
    return m;
}
