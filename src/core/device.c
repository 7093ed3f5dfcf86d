/* Device lookup: names, counts and properties, through the backends. */
#include "backend/backend.h"
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const em_backend *em__backend(em_device_kind kind) {
    switch (kind) {
    case EM_CPU: return &em_cpu_backend;
    case EM_CUDA: return &em_cuda_backend;
    case EM_OPENCL: return &em_opencl_backend;
    default: return NULL;
    }
}

const char *em_device_kind_name(em_device_kind kind) {
    static const char *const names[] = {"cpu", "cuda", "opencl"};
    return (unsigned)kind < EM_NKINDS ? names[kind] : "unknown";
}

em_status em_device_count(em_device_kind kind, int *count) {
    if ((unsigned)kind >= EM_NKINDS) return em_error(EM_EVALUE, "unknown device kind %d", kind);
    const em_backend *be = em__backend(kind);
    *count = be ? be->device_count() : 0;
    return EM_OK;
}

static em_status em__backend_for(em_device dev, const em_backend **out) {
    int n = 0;
    EM_CHECK(em_device_count(dev.kind, &n));
    if (dev.id < 0 || dev.id >= n) {
        /* A backend that finds no devices leaves the reason in the message:
         * clear it and ask again (not on every call: printf costs more than
         * the rest of an em.empty). */
        em_error(EM_OK, "%s", "");
        EM_CHECK(em_device_count(dev.kind, &n));
        char why[512];
        snprintf(why, sizeof why, "%s", n ? "" : em_last_error());
        return em_error(EM_EDEVICE, "no device %s:%d (%d %s device%s available%s%s)",
                        em_device_kind_name(dev.kind), dev.id, n, em_device_kind_name(dev.kind),
                        n == 1 ? "" : "s", why[0] ? ": " : "", why);
    }
    *out = em__backend(dev.kind);
    return EM_OK;
}

em_status em_device_check(em_device dev) {
    const em_backend *be;
    if ((unsigned)dev.kind >= EM_NKINDS)
        return em_error(EM_EDEVICE, "unknown device kind %d", (int)dev.kind);
    return em__backend_for(dev, &be);
}

em_status em_device_props_get(em_device dev, em_device_props *props) {
    const em_backend *be;
    EM_CHECK(em__backend_for(dev, &be));
    memset(props, 0, sizeof *props);
    return be->props(dev.id, props);
}

em_status em_device_mem_info(em_device dev, size_t *free_bytes, size_t *total_bytes) {
    const em_backend *be;
    EM_CHECK(em__backend_for(dev, &be));
    return be->mem_info(dev.id, free_bytes, total_bytes);
}

em_status em_device_synchronize(em_device dev) {
    const em_backend *be;
    EM_CHECK(em__backend_for(dev, &be));
    return be->synchronize(dev.id);
}

em_status em_device_parse(const char *spec, em_device *out) {
    em_device d = {EM_CPU, 0};
    size_t klen = strcspn(spec, ":");
    int k;
    for (k = 0; k < EM_NKINDS; k++)
        if (strlen(em_device_kind_name(k)) == klen && !strncmp(spec, em_device_kind_name(k), klen))
            break;
    if (k == EM_NKINDS)
        return em_error(EM_EDEVICE,
                        "unknown device '%s'; expected 'cpu', 'cuda[:N]' or 'opencl[:N]'", spec);
    d.kind = (em_device_kind)k;
    if (spec[klen] == ':') {
        char *end;
        long id = strtol(spec + klen + 1, &end, 10);
        if (*end || end == spec + klen + 1 || id < 0 || id > 1 << 20)
            return em_error(EM_EDEVICE, "bad device number in '%s'", spec);
        d.id = (int)id;
    }
    const em_backend *be;
    EM_CHECK(em__backend_for(d, &be));
    *out = d;
    return EM_OK;
}
