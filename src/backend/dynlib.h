/* Run-time loading of what Ember never links: CUDA's driver and NVRTC
 * (backend/cuda/loader.c), the CUDA libraries (backend/cudalib/) and
 * OpenCL's ICD loader (backend/opencl/opencl.c).  Each keeps its entry
 * points in a .fn table of EM_FN(ret, field, symbol, params) rows, expanded
 * once into a struct of function pointers and once, with EM_DL_BIND, into
 * the dlsym calls that fill it. */
#ifndef EM_DYNLIB_H
#define EM_DYNLIB_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* dlopen $env when it is set (a path: a failure there is final, since the
 * user asked for that one), else the first of names (NULL-terminated) that
 * loads.  NULL on failure, with why naming what was tried
 * ("could not load <each name>"); on success why is the empty string. */
void *em_dl_open(const char *env, const char *const *names, char *why, size_t nwhy);

/* Say at EMBER_DEBUG >= 1 why lib is unavailable ("ember: <lib> unavailable: <why>"). */
void em_dl_say(const char *lib, const char *why);

/* A .fn row as a dlsym call, in a bool function with h (the handle), t (the
 * table), why and nwhy in scope: a missing symbol is named in why and the
 * function returns false. */
#define EM_DL_BIND(ret, field, sym, params)            \
    if (!(*(void **)&t->field = dlsym(h, sym))) {      \
        snprintf(why, nwhy, "symbol %s missing", sym); \
        return false;                                  \
    }

#endif
