/* Running @em.jit kernels on the CPU (ember/kernel.h). */
#include "ember/kernel.h"
#include "codegen/sbuf.h"
#include "core/core.h"
#include "host/fpe_guard.h"
#include "host/threadpool.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define EM_JIT_MAX_SHARED (48 * 1024)
#define EM_JIT_MAX_THREADS 1024
/* Kernel threads run per em_fpe_run call (a piece of a part): enough that
 * setting up the recovery point (~20 ns) is lost in the work, few enough
 * that a fault stops the launch soon. */
#define EM_JIT_PIECE_THREADS 65536

em_status em_jit_check_launch(const char *name, const int64_t grid[3], const int64_t block[3],
                              int64_t shared_bytes) {
    static const int64_t gmax[3] = {2147483647, 65535, 65535}, bmax[3] = {1024, 1024, 64};
    static const char xyz[3] = {'x', 'y', 'z'};
    for (int d = 0; d < 3; d++) {
        if (grid[d] < 1 || grid[d] > gmax[d])
            return em_error(
                EM_ELAUNCH,
                "kernel '%s': grid dimension %c = %lld is out of range: it must be 1 to %lld", name,
                xyz[d], (long long)grid[d], (long long)gmax[d]);
        if (block[d] < 1 || block[d] > bmax[d])
            return em_error(
                EM_ELAUNCH,
                "kernel '%s': block dimension %c = %lld is out of range: it must be 1 to %lld",
                name, xyz[d], (long long)block[d], (long long)bmax[d]);
    }
    int64_t t = block[0] * block[1] * block[2];
    if (t > EM_JIT_MAX_THREADS)
        return em_error(
            EM_ELAUNCH,
            "kernel '%s': %lld threads per block (%lld x %lld x %lld) exceeds the limit of %d",
            name, (long long)t, (long long)block[0], (long long)block[1], (long long)block[2],
            EM_JIT_MAX_THREADS);
    if (shared_bytes < 0 || shared_bytes > EM_JIT_MAX_SHARED)
        return em_error(
            EM_ELAUNCH,
            "kernel '%s': %lld bytes of shared memory per block exceeds the limit of %d", name,
            (long long)shared_bytes, EM_JIT_MAX_SHARED);
    return EM_OK;
}

/* print() from generated code: append to the current buffer. */
static void em__jit_print(em_jit_ctx *c, const char *fmt, ...) {
    em_sbuf *b = c->out;
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        em_sbuf_printf(b, "%s", tmp);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) return;
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    em_sbuf_printf(b, "%s", big);
    free(big);
}

/* One block's coroutines (kernels that call syncthreads). */
typedef struct em__sched {
    ucontext_t main;
    ucontext_t *uc;
    em_jit_ctx *ctx; /* one per thread */
    em_sbuf *outs;   /* one per thread */
    char *done;
    char *stacks;
    size_t stack, span; /* usable stack bytes; stack + guard page */
    int n, current;
    em_jit_thread_fn fn;
    const int64_t *args;
} em__sched;

static _Thread_local em__sched *em__cur;

static void em__co_entry(void) {
    em__sched *s = em__cur;
    int i = s->current;
    s->fn(&s->ctx[i], s->args);
    s->done[i] = 1; /* returning resumes s->main through uc_link */
}

static void em__jit_sync(em_jit_ctx *c) {
    em__sched *s = c->sched;
    swapcontext(&s->uc[c->thread], &s->main);
}

/* The printed text of one part of the launch (a range of blocks). */
typedef struct em__chunk {
    int64_t begin;
    em_sbuf text;
    struct em__chunk *next;
} em__chunk;

typedef struct em__run {
    const em_jit_launch *L;
    int64_t piece;        /* blocks per em_fpe_run call */
    pthread_mutex_t lock; /* guards chunks */
    em__chunk *chunks;    /* parts that printed, in any order */
    atomic_int oob;
    atomic_int divz;   /* an @em.jit integer // or % by zero */
    atomic_int fault;  /* the si_code of the first SIGFPE, 0 if none */
    atomic_int failed; /* a part could not get memory */
} em__run;

/* Record a piece's SIGFPE (the first one wins); later pieces are skipped. */
static void em__set_fault(em__run *r, int code) {
    int none = 0;
    atomic_compare_exchange_strong(&r->fault, &none, code);
}

static bool em__stopped(em__run *r) {
    return atomic_load_explicit(&r->fault, memory_order_relaxed) != 0;
}

/* Fold a context's flags into the launch's. */
static void em__run_flags(em__run *r, const em_jit_ctx *c) {
    if (c->oob) atomic_store(&r->oob, 1);
    if (c->divz) atomic_store(&r->divz, 1);
}

/* Keep a part's output (if any) for the ordered flush at the end. */
static void em__keep_output(em__run *r, int64_t begin, em_sbuf *text) {
    if (!text->len && !text->oom) return;
    em__chunk *c = text->oom ? NULL : malloc(sizeof *c);
    if (!c) {
        em_sbuf_free(text);
        atomic_store(&r->failed, 1);
        return;
    }
    c->begin = begin;
    c->text = *text;
    pthread_mutex_lock(&r->lock);
    c->next = r->chunks;
    r->chunks = c;
    pthread_mutex_unlock(&r->lock);
}

/* Concatenate the chunks in block order into *out (malloc'ed; NULL if none). */
static bool em__gather(em__run *r, char **out, size_t *outlen) {
    em_sbuf all = {0};
    while (r->chunks) {
        em__chunk **min = &r->chunks;
        for (em__chunk **c = &r->chunks; *c; c = &(*c)->next)
            if ((*c)->begin < (*min)->begin) min = c;
        em__chunk *first = *min;
        *min = first->next;
        em_sbuf_printf(&all, "%s", first->text.s);
        em_sbuf_free(&first->text);
        free(first);
    }
    if (all.oom) {
        em_sbuf_free(&all);
        return false;
    }
    *out = all.s;
    *outlen = all.len;
    return true;
}

static void em__ctx_init(em_jit_ctx *c, const em_jit_launch *L, char *shared, em_sbuf *out) {
    memset(c, 0, sizeof *c);
    for (int d = 0; d < 3; d++) c->bdim[d] = L->block[d], c->gdim[d] = L->grid[d];
    c->shared = shared;
    c->shared_dyn = L->shared_dyn;
    c->print = em__jit_print;
    c->sync = em__jit_sync;
    c->out = out;
}

static bool em__sched_init(em__sched *s, const em_jit_launch *L) {
    s->n = (int)(L->block[0] * L->block[1] * L->block[2]);
    size_t page = (size_t)sysconf(_SC_PAGESIZE), stack = ((size_t)64 << 20) / (size_t)s->n;
    if (stack < ((size_t)64 << 10)) stack = (size_t)64 << 10;
    if (stack > ((size_t)1 << 20)) stack = (size_t)1 << 20;
    s->stack = (stack + page - 1) / page * page;
    s->span = s->stack + page;
    s->uc = calloc((size_t)s->n, sizeof *s->uc);
    s->ctx = calloc((size_t)s->n, sizeof *s->ctx);
    s->outs = calloc((size_t)s->n, sizeof *s->outs);
    s->done = calloc((size_t)s->n, 1);
    void *m = mmap(NULL, s->span * (size_t)s->n, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    s->stacks = m == MAP_FAILED ? NULL : m;
    if (!s->uc || !s->ctx || !s->outs || !s->done || !s->stacks) return false;
    /* A guard page below each stack turns an overflow into a fault, not corruption. */
    for (int i = 0; i < s->n; i++) mprotect(s->stacks + s->span * (size_t)i, page, PROT_NONE);
    s->fn = L->thread;
    s->args = L->args;
    return true;
}

static void em__sched_free(em__sched *s) {
    if (s->outs)
        for (int i = 0; i < s->n; i++) em_sbuf_free(&s->outs[i]);
    if (s->stacks) munmap(s->stacks, s->span * (size_t)s->n);
    free(s->uc), free(s->ctx), free(s->outs), free(s->done);
}

/* Gather a finished block's output in thread order and its threads' flags. */
static void em__sched_collect(em__sched *s, em_sbuf *out, em__run *r) {
    for (int i = 0; i < s->n; i++) {
        em__run_flags(r, &s->ctx[i]);
        if (s->outs[i].len) em_sbuf_printf(out, "%s", s->outs[i].s);
        s->outs[i].len = 0;
    }
}

/* Thread i of block blk: its context and a fresh coroutine at the kernel's start.
 * Kept apart from the scheduling loop: getcontext returns twice, which
 * makes the compiler distrust the locals of the function calling it. */
__attribute__((noinline)) static void em__co_init(em__sched *s, const em_jit_ctx *proto,
                                                  int64_t blk, int i) {
    const int64_t *g = proto->gdim, *bd = proto->bdim;
    em_jit_ctx *c = &s->ctx[i];
    *c = *proto;
    c->bid[0] = blk % g[0], c->bid[1] = blk / g[0] % g[1], c->bid[2] = blk / (g[0] * g[1]);
    c->tid[0] = i % bd[0], c->tid[1] = i / bd[0] % bd[1], c->tid[2] = i / (bd[0] * bd[1]);
    c->thread = i;
    c->sched = s;
    c->out = &s->outs[i];
    getcontext(&s->uc[i]);
    s->uc[i].uc_stack.ss_sp = s->stacks + s->span * (size_t)i + (s->span - s->stack);
    s->uc[i].uc_stack.ss_size = s->stack;
    s->uc[i].uc_link = &s->main;
    makecontext(&s->uc[i], em__co_entry, 0);
    s->done[i] = 0;
}

/* Run block `blk` as coroutines, each thread until its next barrier in turn. */
static void em__sched_block(em__sched *s, const em_jit_ctx *proto, int64_t blk) {
    for (int i = 0; i < s->n; i++) em__co_init(s, proto, blk, i);
    em__cur = s;
    for (int live = s->n; live > 0;) {
        live = 0;
        for (int i = 0; i < s->n; i++) {
            if (s->done[i]) continue;
            s->current = i;
            swapcontext(&s->main, &s->uc[i]);
            live += !s->done[i];
        }
    }
}

/* Blocks b0..b1-1 of a syncthreads() kernel (run under em_fpe_run). */
typedef struct em__sync_job {
    em__run *r;
    em__sched *s;
    const em_jit_ctx *proto;
    em_sbuf *out;
    int64_t b0, b1;
} em__sync_job;

static void em__sync_blocks(void *arg) {
    em__sync_job *j = arg;
    for (int64_t blk = j->b0; blk < j->b1 && !em__stopped(j->r); blk++) {
        em__sched_block(j->s, j->proto, blk);
        em__sched_collect(j->s, j->out, j->r);
    }
}

/* A fault in a coroutine jumps back here from the coroutine's stack; the
 * block's other coroutines are dropped with their stacks, never resumed. */
static void em__run_sync(em__run *r, int64_t b0, int64_t b1, char *shared, em_sbuf *out) {
    em__sched s;
    memset(&s, 0, sizeof s);
    if (!em__sched_init(&s, r->L)) {
        atomic_store(&r->failed, 1);
        em__sched_free(&s);
        return;
    }
    em_jit_ctx proto;
    em__ctx_init(&proto, r->L, shared, out);
    em__sync_job j = {r, &s, &proto, out, b0, b1};
    int code = em_fpe_run(em__sync_blocks, &j);
    if (code) em__set_fault(r, code);
    em__sched_free(&s);
}

/* Blocks b0..b1-1 through the kernel's range entry (run under em_fpe_run). */
typedef struct em__range_job {
    const em_jit_launch *L;
    em_jit_ctx *c;
    int64_t b0, b1;
} em__range_job;

static void em__range_blocks(void *arg) {
    const em__range_job *j = arg;
    j->L->range(j->c, j->L->args, j->b0, j->b1);
}

/* Blocks b0..b1-1 in pieces of r->piece, each under its own recovery point. */
static void em__run_range(em__run *r, int64_t b0, int64_t b1, char *shared, em_sbuf *out) {
    em_jit_ctx c;
    em__ctx_init(&c, r->L, shared, out);
    for (int64_t b = b0; b < b1 && !em__stopped(r);) {
        int64_t e = b1 - b > r->piece ? b + r->piece : b1;
        em__range_job j = {r->L, &c, b, e};
        int code = em_fpe_run(em__range_blocks, &j);
        if (code) em__set_fault(r, code);
        b = e;
    }
    em__run_flags(r, &c);
}

static void em__run_part(void *ctx, int64_t b0, int64_t b1, int worker) {
    em__run *r = ctx;
    const em_jit_launch *L = r->L;
    size_t nshared = (size_t)(L->shared_static + L->shared_dyn);
    char *shared = nshared ? aligned_alloc(64, (nshared + 63) / 64 * 64) : NULL;
    if (nshared && !shared) {
        atomic_store(&r->failed, 1);
        return;
    }
    em_sbuf out = {0};
    if (L->thread)
        em__run_sync(r, b0, b1, shared, &out);
    else
        em__run_range(r, b0, b1, shared, &out);
    free(shared);
    em__keep_output(r, b0, &out);
}

em_status em_jit_cpu_launch(const em_jit_launch *L, char **out, size_t *outlen, int *oob) {
    const char *name = L->name ? L->name : "kernel";
    if (L->shared_static < 0 || L->shared_dyn < 0 || L->shared_static > EM_JIT_MAX_SHARED ||
        L->shared_dyn > EM_JIT_MAX_SHARED) /* checked apart first: their sum cannot overflow */
        return em_error(
            EM_ELAUNCH,
            "kernel '%s': %lld + %lld bytes of shared memory per block: each must be 0 to %d", name,
            (long long)L->shared_static, (long long)L->shared_dyn, EM_JIT_MAX_SHARED);
    EM_CHECK(em_jit_check_launch(name, L->grid, L->block, L->shared_static + L->shared_dyn));
    if (!L->range && !L->thread)
        return em_error(EM_EVALUE, "kernel '%s': no compiled entry point", name);
    int64_t nblocks = L->grid[0] * L->grid[1] * L->grid[2];
    int64_t threads = L->block[0] * L->block[1] * L->block[2];
    em__run r = {.L = L, .lock = PTHREAD_MUTEX_INITIALIZER};
    r.piece = threads >= EM_JIT_PIECE_THREADS ? 1 : EM_JIT_PIECE_THREADS / threads;
    atomic_init(&r.oob, 0);
    atomic_init(&r.divz, 0);
    atomic_init(&r.fault, 0);
    atomic_init(&r.failed, 0);
    /* Enough blocks per part to pay for waking a worker. */
    em_parallel_for(nblocks, threads >= 4096 ? 1 : 4096 / threads, em__run_part, &r);
    char *text = NULL;
    size_t len = 0;
    bool gathered = em__gather(&r, &text, &len);
    em_status s = EM_OK;
    if (atomic_load(&r.fault))
        s = em_fpe_error(atomic_load(&r.fault), name);
    else if (atomic_load(&r.divz))
        s = em_error(EM_EZERODIV, "integer division or modulo by zero in kernel '%s'", name);
    else if (atomic_load(&r.failed) || !gathered)
        s = em_error(
            EM_ENOMEM,
            "no memory for the blocks of kernel '%s' (shared memory, stacks or print buffers)",
            name);
    if (s != EM_OK) {
        free(text);
        return s;
    }
    *out = text;
    *outlen = len;
    *oob = atomic_load(&r.oob);
    return EM_OK;
}
