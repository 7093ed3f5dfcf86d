/* A few freed blocks of one size kept for reuse, without a lock.
 *
 * A small op allocates and frees the same handful of headers every call
 * (buffer headers, expression nodes, an evaluation job); glibc's malloc and
 * free cost about a tenth of its host instructions.  Each slot holds one
 * block or NULL and changes only by exchange or compare-and-swap, so there
 * is no ABA problem (unlike a lock-free stack); when every slot is taken the
 * caller frees as usual.  Blocks still in the slots at exit stay reachable. */
#ifndef EM_SPARE_H
#define EM_SPARE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#define EM_SPARE_SLOTS 4

typedef struct {
    _Atomic(void *) slot[EM_SPARE_SLOTS];
} em_spare;

/* A block from the slots, else malloc(size). */
static inline void *em_spare_alloc(em_spare *s, size_t size) {
    for (int i = 0; i < EM_SPARE_SLOTS; i++)
        if (atomic_load_explicit(&s->slot[i], memory_order_relaxed)) {
            void *p = atomic_exchange_explicit(&s->slot[i], NULL, memory_order_acquire);
            if (p) return p;
        }
    return malloc(size);
}

/* Keep p in a free slot, else free it. */
static inline void em_spare_free(em_spare *s, void *p) {
    if (!p) return;
    for (int i = 0; i < EM_SPARE_SLOTS; i++) {
        void *none = NULL;
        if (!atomic_load_explicit(&s->slot[i], memory_order_relaxed) &&
            atomic_compare_exchange_strong_explicit(&s->slot[i], &none, p, memory_order_release,
                                                    memory_order_relaxed))
            return;
    }
    free(p);
}

#endif
