/* The cache of freed device blocks (blockcache.h). */
#include "backend/blockcache.h"

#include <stdlib.h>

uint64_t em_block_take(em_block_cache *c, size_t size, const void *stream) {
    em_block **best = NULL;
    for (em_block **b = &c->list; *b; b = &(*b)->next) {
        size_t s = (*b)->size;
        if (s < size || s / 2 > size || (*b)->stream != stream) continue;
        if (!best || s < (*best)->size) best = b;
        if (s == size) break;
    }
    if (!best) return 0;
    em_block *blk = *best;
    *best = blk->next;
    c->bytes -= blk->size;
    blk->next = c->nodes;
    c->nodes = blk;
    return blk->handle;
}

bool em_block_keep(em_block_cache *c, uint64_t handle, size_t size, const void *stream) {
    em_block *b = c->nodes;
    if (b)
        c->nodes = b->next;
    else if (!(b = malloc(sizeof *b)))
        return false;
    b->handle = handle;
    b->size = size;
    b->stream = stream;
    b->next = c->list;
    c->list = b;
    c->bytes += size;
    return true;
}

void em_block_drain(em_block_cache *c, void (*release)(void *ctx, uint64_t handle, size_t size),
                    void *ctx) {
    while (c->list) {
        em_block *b = c->list;
        c->list = b->next;
        c->bytes -= b->size;
        if (release) release(ctx, b->handle, b->size);
        free(b);
    }
}
