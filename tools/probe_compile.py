"""First-call (compile) time of new reduction and elementwise kernels, with an
empty disk cache: python3 tools/probe_compile.py  (set EMBER_CACHE_DIR to a fresh dir).
Ends with the process's page faults and CPU time since ember was imported:
a machine's first process compiles several times slower in user CPU time
(bench/RESULTS.md, sixth session)."""
import resource
import time

import numpy as np

import ember as em

_r0 = resource.getrusage(resource.RUSAGE_SELF)

x = em.asarray(np.random.random((300, 500)).astype(np.float32))
em.cuda.synchronize() if hasattr(em.cuda, "synchronize") else None


def first(label, fn):
    t = time.perf_counter()
    r = fn()
    np.asarray(r)
    t1 = time.perf_counter()
    np.asarray(fn())
    t2 = time.perf_counter()
    print(f"{label:32s} first {1e3 * (t1 - t):7.1f} ms   again {1e3 * (t2 - t1):6.2f} ms")


first("sum f32 axis=1", lambda: em.sum(x, axis=1))
first("sum f32 all", lambda: em.sum(x))
first("var f32 axis=0", lambda: em.var(x, axis=0))
first("argmax f32 axis=1", lambda: em.argmax(x, axis=1))
xc = x.astype(em.complex128)
first("sum c128 axis=1", lambda: em.sum(xc, axis=1))
first("sqrt(sum(x**2)) fused", lambda: em.sqrt(em.sum(x**2, axis=-1)))
first("a*b+c f32", lambda: x * x + x)
first("a*b+c f64", lambda: xc.real * 2.0 + 1.0)

_r1 = resource.getrusage(resource.RUSAGE_SELF)
print(f"since import: minor faults {_r1.ru_minflt - _r0.ru_minflt}, major {_r1.ru_majflt - _r0.ru_majflt}, "
      f"user {_r1.ru_utime - _r0.ru_utime:.2f} s, sys {_r1.ru_stime - _r0.ru_stime:.2f} s")
