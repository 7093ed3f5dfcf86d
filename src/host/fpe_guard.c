/* Recovering from SIGFPE in compiled user code (see fpe_guard.h). */

/* _FORTIFY_SOURCE turns siglongjmp into __longjmp_chk, which aborts on a
 * jump from a coroutine's stack to a lower address on the thread's stack:
 * that jump is intended here (fpe_guard.h), so this file is not fortified. */
#undef _FORTIFY_SOURCE
#include "host/fpe_guard.h"
#include "core/core.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

/* A recovery point: where a fault on this thread returns to. */
typedef struct em__fpe_point {
    sigjmp_buf jb;
    volatile int code; /* set by the handler before it jumps */
} em__fpe_point;

/* The innermost em_fpe_run on each thread (NULL outside any), as a
 * pthread key rather than _Thread_local: the handler may run on a thread
 * that never used it, where a dlopen'ed library's TLS block would be
 * allocated (malloc, not async-signal-safe) on first access; an unset key
 * is read as NULL without allocating. */
static pthread_key_t em__fpe_here;

static pthread_once_t em__fpe_once = PTHREAD_ONCE_INIT;
static bool em__fpe_ready;            /* the key exists and the handler is installed */
static struct sigaction em__fpe_prev; /* the disposition before ours */

/* A SIGFPE not ours to recover: what would have happened without Ember.
 * A CPU fault (si_code > 0) returns to the faulting instruction, which
 * faults again under the restored default action and ends the process. */
static void em__fpe_chain(int sig, siginfo_t *si, void *uc) {
    const struct sigaction *o = &em__fpe_prev;
    bool cpu = si && si->si_code > 0;
    if ((o->sa_flags & SA_SIGINFO) && o->sa_sigaction) {
        o->sa_sigaction(sig, si, uc);
        return;
    }
    if (o->sa_handler != SIG_DFL && o->sa_handler != SIG_IGN) {
        o->sa_handler(sig);
        return;
    }
    if (o->sa_handler == SIG_IGN && !cpu) return; /* an ignored kill(): still ignored */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    if (!cpu) raise(sig);
}

static void em__fpe_handler(int sig, siginfo_t *si, void *uc) {
    em__fpe_point *p = pthread_getspecific(em__fpe_here);
    if (p && si && si->si_code > 0) { /* raised by the CPU inside em_fpe_run */
        p->code = si->si_code;
        siglongjmp(p->jb, 1);
    }
    em__fpe_chain(sig, si, uc);
}

/* SA_NODEFER: SIGFPE stays unblocked in the handler, so leaving it by
 * siglongjmp (which need not save or restore the mask, a system call)
 * leaves the thread's mask as it was. */
static void em__fpe_install(void) {
    if (pthread_key_create(&em__fpe_here, NULL) != 0) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = em__fpe_handler;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    em__fpe_ready = sigaction(SIGFPE, &sa, &em__fpe_prev) == 0;
}

int em_fpe_run(em_fpe_fn fn, void *arg) {
    pthread_once(&em__fpe_once, em__fpe_install);
    if (!em__fpe_ready) { /* no key or no handler: run unguarded, as before */
        fn(arg);
        return 0;
    }
    em__fpe_point pt;
    void *outer =
        pthread_getspecific(em__fpe_here); /* not changed after sigsetjmp: kept across the jump */
    pt.code = 0;
    if (sigsetjmp(pt.jb, 0) == 0) {
        pthread_setspecific(em__fpe_here, &pt);
        fn(arg);
    }
    pthread_setspecific(em__fpe_here, outer);
    return pt.code;
}

em_status em_fpe_error(int code, const char *kernel) {
    const char *k = kernel ? kernel : "kernel";
    if (code == FPE_INTDIV || code == FPE_INTOVF)
        return em_error(
            EM_EZERODIV,
            "integer division or modulo by zero (or INT_MIN / -1) in kernel '%s': the CPU raised "
            "SIGFPE and the launch was stopped (its outputs are partly written)",
            k);
    return em_error(
        EM_EZERODIV,
        "floating-point exception (SIGFPE, si_code %d: the kernel enabled FP traps) in kernel '%s': "
        "the launch was stopped (its outputs are partly written)",
        code, k);
}
