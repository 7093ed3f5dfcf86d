/* A growable string builder: kernel source, cache keys, messages.
 *
 * Kept apart from the renderer so that every layer may build strings
 * without including codegen/render.h: the C-compiler JIT (src/jit/) and
 * the backends use it too (tools/check_layers.py lists it as a leaf).
 * Writes that fail for memory set oom and are dropped; the caller checks
 * oom once at the end.  The functions are defined in codegen/render.c.
 */
#ifndef EM_SBUF_H
#define EM_SBUF_H

#include "ember/ember.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct em_sbuf {
    char *s;
    size_t len, cap;
    bool oom;
    bool fixed; /* s is the caller's (em_sbuf_on): moved to the heap if it grows */
} em_sbuf;

/* A builder writing into the caller's buffer of cap bytes first (a key built
 * per launch then needs no allocation); em_sbuf_free is still required. */
static inline em_sbuf em_sbuf_on(char *buf, size_t cap) {
    if (cap) buf[0] = 0;
    return (em_sbuf){.s = buf, .cap = cap, .fixed = true};
}

EM_API void em_sbuf_printf(em_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
EM_API void em_sbuf_free(em_sbuf *b);
/* Append n bytes of s (no printf: for keys built per launch). */
EM_API void em_sbuf_put(em_sbuf *b, const char *s, size_t n);
void em_sbuf_putc(em_sbuf *b, char c);

#endif
