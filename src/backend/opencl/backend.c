/* The OpenCL backend's table: devices, memory, copies, modules and launch.
 * Device pointers are mem.c's synthetic addresses, decoded here for the
 * copies.  Every algorithm is codegen/run_*.c's over these primitives; a
 * template without an OpenCL rendering fails with the op's name
 * (codegen/run_module.c). */
#include "backend/opencl/cl_internal.h"

#include <stdio.h>
#include <string.h>

static int em__count(void) {
    int n = em_cl_count();
    if (n == 0) em_error(EM_EDEVICE, "%s", em_cl_why()); /* the reason, for em_device_parse */
    return n;
}

static em_status em__props(int id, em_device_props *out) {
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    *out = d->props;
    return EM_OK;
}

static em_status em__props_ref(int id, const em_device_props **out) {
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    *out = &d->props;
    return EM_OK;
}

/* OpenCL tells no free memory: the device's size less the pool's. */
static em_status em__mem_info(int id, size_t *fr, size_t *tot) {
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    size_t used, held;
    em_opencl_pool_stats(id, &used, &held);
    *tot = d->info.total_memory;
    *fr = held < *tot ? *tot - held : 0;
    return EM_OK;
}

static em_status em__to_host(int id, void *dst, const void *src, size_t n) {
    em_cl_dev *d;
    cl_mem m;
    size_t off;
    EM_CHECK(em_cl_open(id, &d));
    EM_CHECK(em_cl_ptr(src, &m, &off));
    cl_int err = em__cl.clEnqueueReadBuffer(em_cl_queue(d), m, 1, off, n, dst, 0, NULL, NULL);
    return err ? em_cl_fail(err, "a device-to-host copy") : EM_OK;
}

static em_status em__from_host(int id, void *dst, const void *src, size_t n) {
    em_cl_dev *d;
    cl_mem m;
    size_t off;
    EM_CHECK(em_cl_open(id, &d));
    EM_CHECK(em_cl_ptr(dst, &m, &off));
    cl_int err = em__cl.clEnqueueWriteBuffer(em_cl_queue(d), m, 1, off, n, src, 0, NULL, NULL);
    return err ? em_cl_fail(err, "a host-to-device copy") : EM_OK;
}

static em_status em__copy(int id, void *dst, const void *src, size_t n) {
    em_cl_dev *d;
    cl_mem ms, md;
    size_t os, od;
    EM_CHECK(em_cl_open(id, &d));
    EM_CHECK(em_cl_ptr(src, &ms, &os));
    EM_CHECK(em_cl_ptr(dst, &md, &od));
    if (!n) return EM_OK;
    cl_int err = em__cl.clEnqueueCopyBuffer(em_cl_queue(d), ms, md, os, od, n, 0, NULL, NULL);
    return err ? em_cl_fail(err, "a device-to-device copy") : EM_OK;
}

/* clEnqueueFillBuffer wants the offset and size in whole patterns. */
static em_status em__fill(int id, void *dst, size_t n, int width, uint32_t v) {
    em_cl_dev *d;
    cl_mem m;
    size_t off;
    EM_CHECK(em_cl_open(id, &d));
    EM_CHECK(em_cl_ptr(dst, &m, &off));
    if (!n) return EM_OK;
    if (off % (size_t)width)
        return em_error(EM_EUNSUPPORTED, "a fill at an offset not a multiple of %d", width);
    unsigned char pat[4];
    memcpy(pat, &v, 4); /* the low bytes, little-endian as every OpenCL host Ember runs on */
    cl_int err = em__cl.clEnqueueFillBuffer(em_cl_queue(d), m, pat, (size_t)width, off,
                                            n * (size_t)width, 0, NULL, NULL);
    return err ? em_cl_fail(err, "a fill") : EM_OK;
}

static em_status em__sync(int id) {
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    cl_int err = em__cl.clFinish(em_cl_queue(d));
    return err ? em_cl_fail(err, "synchronize") : EM_OK;
}

const em_backend em_opencl_backend = {
    .name = "opencl",
    .kind = EM_OPENCL,
    .device_count = em__count,
    .props = em__props,
    .mem_info = em__mem_info,
    .alloc = em_cl_alloc,
    .free = em_cl_free,
    .to_host = em__to_host,
    .from_host = em__from_host,
    .copy = em__copy,
    .fill = em__fill,
    .synchronize = em__sync,
    .dialect = "opencl",
    .props_ref = em__props_ref,
    .module_build = em_cl_module_build,
    .function = em_cl_function,
    .launch = em_cl_launch,
    .ops = NULL,
    .stream_create = em_cl_stream_create,
    .stream_destroy = em_cl_stream_destroy,
    .stream_synchronize = em_cl_stream_sync,
    .stream_wait_event = em_cl_stream_wait_event,
    .stream_set = em_cl_stream_set,
    .stream_get = em_cl_stream_get,
    .event_create = em_cl_event_create,
    .event_destroy = em_cl_event_destroy,
    .event_record = em_cl_event_record,
    .event_synchronize = em_cl_event_sync,
    .event_query = em_cl_event_query,
    .event_elapsed = em_cl_event_elapsed,
};
