/* run_copy.c's staged host copies: a device's staging set and one copy's
 * pipeline.  Private to it. */
#ifndef EM_RUN_COPY_H
#define EM_RUN_COPY_H

#include "backend/backend.h"
#include "host/team.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

enum { EM_STAGE_NBUF = 4 };

/* Lanes (run_copy.c, EMBER_STAGE_BUF_KIB): each staging thread owns nbuf
 * small pinned buffers and runs its own pipeline over its part of a copy
 * (fill a buffer, queue its DMA, record its event), so buffers small enough
 * to stay in the last-level cache need no hand-off per buffer.  One pinned
 * block per device holds every lane's buffers; it is made again when the
 * geometry asked for changes (between copies: every DMA waited for). */
enum { EM_LANE_MAX = 16, EM_LANE_NBUF_MAX = 16 };
typedef struct em__lanes {
    int state;   /* run_copy.c's EM__UNTRIED / READY / OFF */
    char *block; /* lanes x nbuf buffers of buf bytes */
    int lanes, nbuf;
    size_t buf;
    int nev; /* events made so far (kept across geometries) */
    void *ev[EM_LANE_MAX * EM_LANE_NBUF_MAX];
    int nstream; /* EMBER_STAGE_LANE_STREAMS: a non-blocking stream a lane */
    void *stream[EM_LANE_MAX];
} em__lanes;

typedef struct em__stage {
    pthread_mutex_t lock; /* held for a whole staged copy, and while opening */
    int state;
    void *buf[EM_STAGE_NBUF];
    void *ev[EM_STAGE_NBUF]; /* recorded after the DMA that uses buf[i] */
    uint32_t gen;            /* the device's generation when they were made */
    em_team team;            /* the threads that fill and empty the buffers */
    em__lanes lanes;
} em__stage;

typedef struct em__pipe {
    const em_backend *be;
    int id;
    em__stage *st;
    size_t n, chunk;
    unsigned busy; /* buffers whose recorded DMA may still run */
    bool queued;   /* some DMA was queued (its event perhaps not recorded) */
    bool nt;       /* streaming stores into the buffers (em__stage_nt) */
    em_status s;   /* the first failure, its message in why */
    size_t k;      /* chunks staged so far (host-to-device: the next buffer) */
    char why[512];
} em__pipe;

#endif
