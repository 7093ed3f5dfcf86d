/* What run_copy.c (the staged host copies) and run_copy_reg.c (the same
 * copies from registered pages) share: a device's staging set and one
 * copy's pipeline.  Private to the two. */
#ifndef EM_RUN_COPY_H
#define EM_RUN_COPY_H

#include "backend/backend.h"
#include "host/team.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

enum { EM_STAGE_NBUF = 4 };
/* Slices of a registered copy in flight per device at most (registering,
 * registered, queued or unregistering): 16 x 32 MiB locked at most. */
enum { EM_REG_SLOTS = 16 };

/* A device's registrar threads and the one registered copy they serve
 * (run_copy_reg.c); its lock and condition variable are initialised with
 * the staging set's. */
typedef struct em__reg {
    pthread_mutex_t lock;
    pthread_cond_t cv; /* every change of the fields below is broadcast */
    int helpers;       /* registrar threads started so far */
    bool active, stop; /* a copy runs; no more registrations for it */
    bool waiting;      /* a registrar waits for a DMA (em__pick) */
    const em_backend *be;
    int id;
    char *base;                 /* the copy's first whole page */
    size_t len, S;              /* the whole pages' bytes; a full slice's */
    size_t nslices;             /* slice k: run_copy_reg.c's em__slice */
    size_t next_reg;            /* the next slice to register */
    size_t next_dma;            /* the caller's next slice (those before: queued or staged) */
    size_t lead;                /* mixed: registrars take slices from next_dma + lead on */
    size_t slice[EM_REG_SLOTS]; /* the slice a slot holds */
    int state[EM_REG_SLOTS];    /* run_copy_reg.c's EM__R_* */
    void *ev[EM_REG_SLOTS];     /* recorded after the slot's DMA */
    bool evs;                   /* ev made (with the buffers' generation) */
    char why[256];              /* the first registration's failure */
} em__reg;

typedef struct em__stage {
    pthread_mutex_t lock; /* held for a whole staged copy, and while opening */
    int state;
    void *buf[EM_STAGE_NBUF];
    void *ev[EM_STAGE_NBUF]; /* recorded after the DMA that uses buf[i] */
    uint32_t gen;            /* the device's generation when they were made */
    em_team team;            /* the threads that fill and empty the buffers */
    em__reg reg;
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

/* Whether s failed; the first failure is kept, with its message. */
bool em__copy_failed(em__pipe *p, em_status s);
/* Stage n bytes from src to dst through the buffers (host-to-device). */
void em__copy_h2d(em__pipe *p, char *dst, const char *src, size_t n);
/* The copy of p->n bytes from src to dst with its whole pages registered
 * (run_copy_reg.c); p's buffers stage the rest.  Everything it registered
 * is unregistered before it returns, whatever failed. */
void em__copy_h2d_reg(em__pipe *p, char *dst, const char *src);
/* Whether [p, p + n) overlaps pages that a registered copy holds now (the
 * runtime knows them, but only until that copy ends). */
bool em__copy_reg_overlaps(const void *p, size_t n);
/* EMBER_STAGE_REGISTER=1 (read at each copy). */
bool em__copy_reg_on(void);
/* A registered copy's full slice (em_copy_tune's chunk where set: the
 * tests' small copies). */
size_t em__copy_reg_slice(void);
/* em_copy_tune's chunk (0: unset). */
size_t em__copy_tuned(void);
void em__copy_reg_init(em__reg *r);

#endif
