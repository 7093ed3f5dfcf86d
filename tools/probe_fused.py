import time, numpy as np, ember as em
x = em.asarray(np.random.random((300, 500)).astype(np.float32))
for i in range(3):
    t=time.perf_counter(); r = em.sqrt(em.sum(x**2, axis=-1)); np.asarray(r); print("call", i, (time.perf_counter()-t)*1e3, "ms", flush=True)
for i in range(2):
    t=time.perf_counter(); r = em.sum(x**2, axis=-1); np.asarray(r); print("sum only", i, (time.perf_counter()-t)*1e3, "ms", flush=True)
for i in range(2):
    t=time.perf_counter(); r = em.sum(x*x, axis=-1); np.asarray(r); print("x*x", i, (time.perf_counter()-t)*1e3, "ms", flush=True)
