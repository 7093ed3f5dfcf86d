/* The OpenCL runtime, first brick (issue 16 builds the backend on it): the
 * ICD loader opened at run time (never linked, no OpenCL headers at build
 * time) and a build-only entry point that compiles OpenCL C source for the
 * first device of the first platform. */
#ifndef EM_BACKEND_OPENCL_H
#define EM_BACKEND_OPENCL_H

#include "ember/ember.h"

/* EM_OK when libOpenCL loads and has a platform with a device, else
 * EM_EUNSUPPORTED with the reason as the last error.  Loads once. */
EM_API em_status em_opencl_init(void);
/* The device em_opencl_build compiles for ("" before em_opencl_init). */
EM_API const char *em_opencl_device_name(void);
/* Compile src with options (NULL: none) for the first device of the first
 * platform.  EM_OK, or EM_ECOMPILE with the build log in *log (malloc'ed,
 * the caller frees it; NULL when not wanted), or em_opencl_init's status. */
EM_API em_status em_opencl_build(const char *src, const char *options, char **log);

#endif
