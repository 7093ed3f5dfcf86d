"""GPU checks of the interop seams (run by hand on a CUDA machine):
CuPy / PyTorch / Numba exchange through DLPack and the CUDA array interface,
pickling of device arrays.  Prints one line per check; exits 1 on a failure."""
import pickle
import sys
import traceback

import numpy as np

import ember as em

results = []


def check(name):
    def deco(fn):
        try:
            fn()
            results.append((name, "ok", ""))
        except Exception as exc:  # report and go on
            results.append((name, "FAIL", f"{type(exc).__name__}: {exc}"))
            traceback.print_exc()
        return fn
    return deco


def _x():
    return em.asarray(np.arange(12, dtype=np.float32).reshape(3, 4), device="cuda:0")


@check("dlpack device")
def _():
    assert _x().__dlpack_device__() == (2, 0)


@check("cupy.from_dlpack(ember) zero-copy")
def _():
    import cupy
    x = _x()
    c = cupy.from_dlpack(x)
    assert c.data.ptr == x._ptr, (c.data.ptr, x._ptr)
    assert (cupy.asnumpy(c) == x.get()).all()


@check("em.from_dlpack(cupy) zero-copy")
def _():
    import cupy
    c = cupy.arange(10, dtype=cupy.float64)
    y = em.from_dlpack(c)
    assert y._ptr == c.data.ptr and y.device == em.Device("cuda:0")
    assert (y.get() == np.arange(10.0)).all()


@check("torch.from_dlpack(ember) / em.from_dlpack(torch) zero-copy")
def _():
    import torch
    x = _x()
    t = torch.from_dlpack(x)
    assert t.data_ptr() == x._ptr and t.is_cuda
    u = torch.arange(6, device="cuda", dtype=torch.int32)
    y = em.from_dlpack(u)
    assert y._ptr == u.data_ptr() and y.get().tolist() == list(range(6))


@check("__cuda_array_interface__ -> cupy / numba")
def _():
    import cupy
    x = _x()
    cai = x.__cuda_array_interface__
    assert cai["version"] == 3 and cai["data"][0] == x._ptr
    c = cupy.asarray(x)
    assert c.data.ptr == x._ptr
    from numba import cuda
    d = cuda.as_cuda_array(x)
    assert d.__cuda_array_interface__["data"][0] == x._ptr
    assert (d.copy_to_host() == x.get()).all()


@check("em.asarray(cupy) via __cuda_array_interface__")
def _():
    import cupy
    c = cupy.arange(5, dtype=cupy.int64) * 3
    y = em.asarray(c)
    assert y._ptr == c.data.ptr and y.device == em.Device("cuda:0")
    assert y.get().tolist() == [0, 3, 6, 9, 12]


@check("np.from_dlpack(cuda array, device='cpu') copies to host")
def _():
    x = _x()
    h = np.from_dlpack(x, device="cpu")
    assert (h == x.get()).all()


@check("pickle CUDA array -> CUDA; policy cpu -> CPU")
def _():
    x = _x()
    y = pickle.loads(pickle.dumps(x, protocol=5))
    assert y.device == em.Device("cuda:0") and (y.get() == x.get()).all()
    em.set_unpickle_device("cpu")
    z = pickle.loads(pickle.dumps(x))
    em.set_unpickle_device(None)
    assert z.device == em.Device("cpu")


for name, status, msg in results:
    print(f"{status:4} {name} {msg}")
sys.exit(any(s != "ok" for _, s, _ in results))
