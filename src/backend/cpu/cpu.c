/* The CPU backend: host memory from the pool, the block interpreter, and
 * threaded loops.  Always present: it is the embedded default device. */
#include "backend/backend.h"
#include "backend/cpu/cpu.h"
#include "backend/cpu/loops.h"
#include "core/core.h"
#include "mem/hostpool.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

static int em__cpu_count(void) { return 1; }

static void em__cpu_name(char *buf, size_t len) {
    snprintf(buf, len, "CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *c = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && c) {
            c += 2;
            c[strcspn(c, "\n")] = 0;
            snprintf(buf, len, "%s", c);
            break;
        }
    }
    fclose(f);
}

static em_status em__cpu_props(int id, em_device_props *p) {
    EM_UNUSED(id);
    em__cpu_name(p->name, sizeof p->name);
    p->multiprocessor_count = em_get_num_threads();
    p->max_threads_per_block = 1024; /* what @jit kernels may use on the CPU */
    p->max_block_dim[0] = p->max_block_dim[1] = 1024;
    p->max_block_dim[2] = 64;
    p->max_grid_dim[0] = 0x7fffffff;
    p->max_grid_dim[1] = p->max_grid_dim[2] = 65535;
    p->shared_memory_per_block = 48 * 1024;
    struct sysinfo si;
    if (sysinfo(&si) == 0) p->total_memory = (size_t)si.totalram * si.mem_unit;
    return EM_OK;
}

static em_status em__cpu_mem_info(int id, size_t *free_bytes, size_t *total_bytes) {
    EM_UNUSED(id);
    struct sysinfo si;
    if (sysinfo(&si) != 0) return em_error(EM_EDEVICE, "sysinfo failed");
    *free_bytes = (size_t)(si.freeram + si.bufferram) * si.mem_unit;
    *total_bytes = (size_t)si.totalram * si.mem_unit;
    return EM_OK;
}

static em_status em__cpu_alloc(int id, size_t nbytes, void **ptr) {
    EM_UNUSED(id);
    void *p = em_host_alloc(nbytes);
    if (!p) {
        size_t fr = 0, tot = 0;
        em__cpu_mem_info(0, &fr, &tot);
        return em_error(EM_ENOMEM, "out of memory allocating %zu bytes on cpu (%zu bytes free)",
                        nbytes, fr);
    }
    *ptr = p;
    return EM_OK;
}

static void em__cpu_free(int id, void *ptr, size_t nbytes) {
    EM_UNUSED(id);
    em_host_free(ptr, nbytes);
}

static em_status em__cpu_memcpy(int id, void *dst, const void *src, size_t nbytes) {
    EM_UNUSED(id);
    if (nbytes) memmove(dst, src, nbytes);
    return EM_OK;
}

static em_status em__cpu_sync(int id) {
    EM_UNUSED(id);
    return EM_OK;
}

static pthread_once_t em__cpu_once = PTHREAD_ONCE_INIT;

static em_status em__cpu_eval(const em_node *root, em_array *out, uint64_t *key) {
    if (key) *key = 0;
    pthread_once(&em__cpu_once, em_cpu_loops_init);
    return em_cpu_eval(root, out);
}

/* The precompiled algorithms: loops and the block interpreter. */
static const em_backend_ops em__cpu_ops = {
    .eval = em__cpu_eval,
    .reduce = em_cpu_reduce,
    .scan = em_cpu_scan,
    .take = em_cpu_take,
    .put = em_cpu_put,
    .nonzero = em_cpu_nonzero,
    .mask_select = em_cpu_mask_select,
    .random = em_cpu_random,
    .sort = em_cpu_sort,
};

const em_backend em_cpu_backend = {
    .name = "cpu",
    .kind = EM_CPU,
    .device_count = em__cpu_count,
    .props = em__cpu_props,
    .mem_info = em__cpu_mem_info,
    .alloc = em__cpu_alloc,
    .free = em__cpu_free,
    .to_host = em__cpu_memcpy,
    .from_host = em__cpu_memcpy,
    .copy = em__cpu_memcpy,
    .synchronize = em__cpu_sync,
    .ops = &em__cpu_ops, /* compiles nothing: no dialect, kernel or launch entries */
    .stream_create = em_cpu_stream_create,
    .stream_destroy = em_cpu_stream_destroy,
    .stream_synchronize = em_cpu_stream_sync,
    .stream_wait_event = em_cpu_stream_wait_event,
    .stream_set = em_cpu_stream_set,
    .stream_get = em_cpu_stream_get,
    .event_create = em_cpu_event_create,
    .event_destroy = em_cpu_event_destroy,
    .event_record = em_cpu_event_record,
    .event_synchronize = em_cpu_event_sync,
    .event_query = em_cpu_event_query,
    .event_elapsed = em_cpu_event_elapsed,
};

void em_cpu_loops_init(void) {
    em_cpu_loops_init_table();
    em_cpu_loops_init_vmath(); /* last: replaces some float loops */
}
