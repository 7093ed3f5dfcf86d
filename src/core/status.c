/* Status codes and the thread-local error message. */
#include "core/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static _Thread_local char em__msg[16384]; /* room for a compiler log */

static const char *const em__status_names[] = {
#define EM_STATUS(E, text) text,
#include "ember/status.def"
#undef EM_STATUS
};

const char *em_status_name(em_status s) {
    if ((unsigned)s >= EM_NSTATUS) return "unknown status";
    return em__status_names[s];
}

const char *em_last_error(void) { return em__msg; }

em_status em_error(em_status s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(em__msg, sizeof em__msg, fmt, ap);
    va_end(ap);
    return s;
}

int em_debug_level(void) {
    static int level = -1;
    if (level < 0) {
        const char *v = getenv("EMBER_DEBUG");
        level = v ? atoi(v) : 0;
    }
    return level;
}
