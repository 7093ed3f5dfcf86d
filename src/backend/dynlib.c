/* Run-time loading of drivers and libraries (dynlib.h). */
#include "backend/dynlib.h"
#include "core/core.h"

#include <stdlib.h>

void *em_dl_open(const char *env, const char *const *names, char *why, size_t nwhy) {
    const char *over = env ? getenv(env) : NULL;
    if (over && *over) {
        void *h = dlopen(over, RTLD_NOW | RTLD_LOCAL);
        if (!h) snprintf(why, nwhy, "could not load %s=%s (%s)", env, over, dlerror());
        return h;
    }
    size_t off = (size_t)snprintf(why, nwhy, "could not load");
    for (int i = 0; names[i]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) {
            why[0] = '\0'; /* callers test an empty why for "loaded" (cudalib/blas.c) */
            return h;
        }
        if (off < nwhy) off += (size_t)snprintf(why + off, nwhy - off, " %s", names[i]);
    }
    return NULL;
}

void em_dl_say(const char *lib, const char *why) {
    if (em_debug_level() >= 1) fprintf(stderr, "ember: %s unavailable: %s\n", lib, why);
}
