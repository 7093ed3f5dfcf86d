"""The names a kernel uses (em.grid, em.threadIdx, em.atomic.add ...).

They are markers: the front end recognises them by identity in the kernel's
source; calling one from ordinary Python raises a TypeError saying where it
belongs.
"""


class Intrinsic:
    __slots__ = ("name", "_attrs")

    def __init__(self, name, **attrs):
        self.name = name
        self._attrs = attrs

    def __getattr__(self, attr):
        try:
            return self._attrs[attr]
        except KeyError:
            raise AttributeError(f"em.{self.name} has no attribute {attr!r}") from None

    def __call__(self, *args, **kwargs):
        raise TypeError(f"em.{self.name} can only be used inside an @em.jit kernel")

    def __repr__(self):
        return f"<ember kernel intrinsic em.{self.name}>"


class _Dim3(Intrinsic):
    """threadIdx, blockIdx, blockDim, gridDim: .x .y .z inside kernels."""
    __slots__ = ()

    def __init__(self, name):
        super().__init__(name, x=Intrinsic(name + ".x"), y=Intrinsic(name + ".y"),
                         z=Intrinsic(name + ".z"))


threadIdx = _Dim3("threadIdx")
blockIdx = _Dim3("blockIdx")
blockDim = _Dim3("blockDim")
gridDim = _Dim3("gridDim")
grid = Intrinsic("grid")
gridsize = Intrinsic("gridsize")
syncthreads = Intrinsic("syncthreads")
shared = Intrinsic("shared", array=Intrinsic("shared.array"))
local = Intrinsic("local", array=Intrinsic("local.array"))
atomic = Intrinsic("atomic", **{op: Intrinsic("atomic." + op)
                                for op in ("add", "sub", "max", "min", "exch", "cas")})

ALL = {"threadIdx": threadIdx, "blockIdx": blockIdx, "blockDim": blockDim, "gridDim": gridDim,
       "grid": grid, "gridsize": gridsize, "syncthreads": syncthreads, "shared": shared,
       "local": local, "atomic": atomic}
