/* The OpenCL loader and the build-only entry point (see opencl.h).  The
 * few OpenCL types are declared here: handles are opaque pointers, the
 * integers have the widths the OpenCL 1.2 headers give them. */
#include "backend/opencl/opencl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_program *cl_program;

enum {
    EM_CL_SUCCESS = 0,
    EM_CL_DEVICE_NAME = 0x102B,
    EM_CL_PROGRAM_BUILD_LOG = 0x1183,
};
static const cl_ulong EM_CL_DEVICE_TYPE_ALL = 0xFFFFFFFFu;

typedef struct em__cl_api {
#define EM_FN(ret, field, sym, params) ret(*field) params;
#include "backend/opencl/libOpenCL.fn"
#undef EM_FN
} em__cl_api;

static em__cl_api em__cl;
static pthread_once_t em__cl_once = PTHREAD_ONCE_INIT;
static em_status em__cl_status = EM_EUNSUPPORTED;
static char em__cl_why[256] = "OpenCL not loaded";
static cl_device_id em__cl_dev;
static cl_context em__cl_ctx;
static char em__cl_name[128];

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

/* Open the ICD loader, take the first device of the first platform that
 * has one and make one context for it (kept for the process). */
static void em__cl_load(void) {
    void *h = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(em__cl_why, sizeof em__cl_why, "could not load libOpenCL.so.1");
        return;
    }
    if (!em__cl_bind(h)) return;
    cl_platform_id plats[16];
    cl_uint np = 0;
    if (em__cl.clGetPlatformIDs(16, plats, &np) != EM_CL_SUCCESS || np == 0) {
        snprintf(em__cl_why, sizeof em__cl_why, "no OpenCL platform");
        return;
    }
    for (cl_uint i = 0; i < np && i < 16 && !em__cl_dev; i++) {
        cl_uint nd = 0;
        if (em__cl.clGetDeviceIDs(plats[i], EM_CL_DEVICE_TYPE_ALL, 1, &em__cl_dev, &nd) !=
                EM_CL_SUCCESS ||
            nd == 0)
            em__cl_dev = NULL;
    }
    if (!em__cl_dev) {
        snprintf(em__cl_why, sizeof em__cl_why, "no OpenCL device");
        return;
    }
    cl_int err = 0;
    em__cl_ctx = em__cl.clCreateContext(NULL, 1, &em__cl_dev, NULL, NULL, &err);
    if (!em__cl_ctx || err != EM_CL_SUCCESS) {
        snprintf(em__cl_why, sizeof em__cl_why, "clCreateContext failed (%d)", (int)err);
        return;
    }
    if (em__cl.clGetDeviceInfo(em__cl_dev, EM_CL_DEVICE_NAME, sizeof em__cl_name - 1, em__cl_name,
                               NULL) != EM_CL_SUCCESS)
        snprintf(em__cl_name, sizeof em__cl_name, "OpenCL device");
    em__cl_status = EM_OK;
}

em_status em_opencl_init(void) {
    pthread_once(&em__cl_once, em__cl_load);
    if (em__cl_status != EM_OK) return em_error(em__cl_status, "OpenCL: %s", em__cl_why);
    return EM_OK;
}

const char *em_opencl_device_name(void) { return em__cl_name; }

em_status em_opencl_build(const char *src, const char *options, char **log) {
    if (log) *log = NULL;
    em_status st = em_opencl_init();
    if (st != EM_OK) return st;
    if (!src) return em_error(EM_EVALUE, "em_opencl_build: no source");
    cl_int err = 0;
    cl_program p = em__cl.clCreateProgramWithSource(em__cl_ctx, 1, &src, NULL, &err);
    if (!p || err != EM_CL_SUCCESS)
        return em_error(EM_EDEVICE, "clCreateProgramWithSource failed (%d)", (int)err);
    err = em__cl.clBuildProgram(p, 1, &em__cl_dev, options ? options : "", NULL, NULL);
    if (err != EM_CL_SUCCESS) {
        size_t n = 0;
        em__cl.clGetProgramBuildInfo(p, em__cl_dev, EM_CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
        char *text = malloc(n + 1);
        if (text) {
            text[0] = 0;
            em__cl.clGetProgramBuildInfo(p, em__cl_dev, EM_CL_PROGRAM_BUILD_LOG, n, text, NULL);
            text[n] = 0;
        }
        em__cl.clReleaseProgram(p);
        st = em_error(EM_ECOMPILE, "OpenCL build failed (%d) on %s: %.400s", (int)err, em__cl_name,
                      text ? text : "");
        if (log)
            *log = text;
        else
            free(text);
        return st;
    }
    em__cl.clReleaseProgram(p);
    return EM_OK;
}
