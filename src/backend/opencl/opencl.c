/* The OpenCL loader: the ICD loader opened at run time (never linked, no
 * OpenCL headers at build time), every GPU, CPU and accelerator device of
 * every platform found once, errors named; and the build-only entry point
 * (opencl.h) that the ops-table test compiles every op with. */
#include "backend/dynlib.h"
#include "backend/opencl/cl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

em__cl_api em__cl;
em_cl_dev em_cl_devs[EM_CL_MAXDEV];
int em_cl_ndev;
static pthread_once_t em__cl_once = PTHREAD_ONCE_INIT;
static char em__cl_why[512] = "OpenCL not loaded";

static bool em__cl_bind(void *h) {
#define EM_FN(ret, field, sym, params)                                                \
    if (!(*(void **)&em__cl.field = dlsym(h, sym))) {                                 \
        snprintf(em__cl_why, sizeof em__cl_why, "libOpenCL: symbol %s missing", sym); \
        return false;                                                                 \
    }
#include "backend/opencl/libOpenCL.fn"
#undef EM_FN
    return true;
}

void em_cl_read_info(em_cl_dev *d); /* device.c */

static bool em__contains_nocase(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0) return true;
    return n == 0;
}

/* Open the ICD loader and list the devices (their properties too: cheap,
 * and the count must not depend on which device was used first). */
static void em__cl_load(void) {
    static const char *const names[] = {"libOpenCL.so.1", "libOpenCL.so", NULL};
    void *h = em_dl_open(NULL, names, em__cl_why, sizeof em__cl_why);
    if (!h || !em__cl_bind(h)) return;
    cl_platform_id plats[16];
    cl_uint np = 0;
    if (em__cl.clGetPlatformIDs(16, plats, &np) != EM_CL_SUCCESS || np == 0) {
        snprintf(em__cl_why, sizeof em__cl_why, "no OpenCL platform");
        return;
    }
    const cl_ulong types =
        EM_CL_DEVICE_TYPE_GPU | EM_CL_DEVICE_TYPE_CPU | EM_CL_DEVICE_TYPE_ACCELERATOR;
    /* EMBER_OPENCL_PLATFORM keeps the platforms whose name contains it (any case), as
     * CUDA_VISIBLE_DEVICES does for CUDA: the loader lists the platforms in its own order
     * (a CPU platform such as PoCL may come before a GPU's), and opencl:0 is the first. */
    const char *want = getenv("EMBER_OPENCL_PLATFORM");
    char seen[256] = "";
    for (cl_uint i = 0; i < np && i < 16; i++) {
        if (want && *want) {
            char name[128] = "";
            em__cl.clGetPlatformInfo(plats[i], EM_CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
            name[sizeof name - 1] = 0;
            size_t k = strlen(seen);
            snprintf(seen + k, sizeof seen - k, "%s'%s'", k ? ", " : "", name);
            if (!em__contains_nocase(name, want)) continue;
        }
        cl_device_id ids[EM_CL_MAXDEV];
        cl_uint nd = 0;
        if (em__cl.clGetDeviceIDs(plats[i], types, EM_CL_MAXDEV, ids, &nd) != EM_CL_SUCCESS)
            continue;
        for (cl_uint j = 0; j < nd && j < EM_CL_MAXDEV && em_cl_ndev < EM_CL_MAXDEV; j++) {
            em_cl_dev *d = &em_cl_devs[em_cl_ndev++];
            d->plat = plats[i], d->dev = ids[j];
            pthread_mutex_init(&d->launch_lock, NULL);
            em_cl_read_info(d);
        }
    }
    if (!em_cl_ndev && want && *want)
        snprintf(em__cl_why, sizeof em__cl_why,
                 "no OpenCL platform's name contains '%s' (EMBER_OPENCL_PLATFORM); the "
                 "platforms: %s",
                 want, seen);
    else if (!em_cl_ndev)
        snprintf(em__cl_why, sizeof em__cl_why, "no OpenCL device");
}

int em_cl_count(void) {
    pthread_once(&em__cl_once, em__cl_load);
    return em_cl_ndev;
}

const char *em_cl_why(void) { return em__cl_why; }

/* The names of the codes a user may meet (cl.h's); others by number. */
static const char *em__cl_errname(cl_int e) {
    switch (e) {
    case -1: return "CL_DEVICE_NOT_FOUND";
    case -2: return "CL_DEVICE_NOT_AVAILABLE";
    case -4: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case -5: return "CL_OUT_OF_RESOURCES";
    case -6: return "CL_OUT_OF_HOST_MEMORY";
    case -11: return "CL_BUILD_PROGRAM_FAILURE";
    case -30: return "CL_INVALID_VALUE";
    case -36: return "CL_INVALID_COMMAND_QUEUE";
    case -38: return "CL_INVALID_MEM_OBJECT";
    case -46: return "CL_INVALID_KERNEL_NAME";
    case -48: return "CL_INVALID_KERNEL";
    case -49: return "CL_INVALID_ARG_INDEX";
    case -50: return "CL_INVALID_ARG_VALUE";
    case -51: return "CL_INVALID_ARG_SIZE";
    case -52: return "CL_INVALID_KERNEL_ARGS";
    case -53: return "CL_INVALID_WORK_DIMENSION";
    case -54: return "CL_INVALID_WORK_GROUP_SIZE";
    case -55: return "CL_INVALID_WORK_ITEM_SIZE";
    case -61: return "CL_INVALID_BUFFER_SIZE";
    case -63: return "CL_INVALID_GLOBAL_WORK_SIZE";
    default: return "an OpenCL error";
    }
}

em_status em_cl_fail(cl_int err, const char *what) {
    em_status s = err == EM_CL_OUT_OF_HOST_MEMORY || err == EM_CL_MEM_OBJECT_ALLOCATION_FAILURE
                      ? EM_ENOMEM
                      : EM_EDEVICE;
    return em_error(s, "OpenCL: %s failed: %s (%d)", what, em__cl_errname(err), (int)err);
}

/* ---- the build-only entry point (opencl.h): opencl:0 ---- */

em_status em_opencl_init(void) {
    if (em_cl_count() == 0) return em_error(EM_EUNSUPPORTED, "OpenCL: %s", em__cl_why);
    em_cl_dev *d;
    return em_cl_open(0, &d);
}

const char *em_opencl_device_name(void) { return em_cl_ndev ? em_cl_devs[0].props.name : ""; }

em_status em_opencl_build(const char *src, const char *options, char **log) {
    if (log) *log = NULL;
    EM_CHECK(em_opencl_init());
    if (!src) return em_error(EM_EVALUE, "em_opencl_build: no source");
    em_cl_dev *d = &em_cl_devs[0];
    cl_program p = NULL;
    cl_int err = 0;
    char *text = NULL;
    EM_CHECK(em_cl_build_source(d, src, options ? options : "", &p, &err, &text));
    if (err == EM_CL_SUCCESS) {
        em__cl.clReleaseProgram(p);
        return EM_OK;
    }
    em_status st = em_error(EM_ECOMPILE, "OpenCL build failed (%d) on %s: %.400s", (int)err,
                            d->props.name, text ? text : "");
    if (log)
        *log = text;
    else
        free(text);
    return st;
}
