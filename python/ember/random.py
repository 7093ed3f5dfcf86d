"""em.random: a counter-based Philox4x32-10 generator.

A stream is fixed by a 64-bit key (the seed) and a 64-bit counter: element i
of a draw depends only on (key, counter, i), never on the device, the number
of threads or how the work was split, so the same seed gives the same
numbers on the CPU and on every GPU (``include/ember/ember.h`` defines the
layout).  Each draw advances the counter past the blocks it used, so draws
never overlap.

``size=None`` returns a 0-d ember array (CuPy's behaviour), not a Python
scalar.  Normals use Box-Muller rather than NumPy's ziggurat, and integers
use ``low + floor(bits64 * range / 2**64)`` (bias at most ``range / 2**64``),
so the values differ from NumPy's for the same seed; the distributions match.
"""
import operator as _operator
import os as _os
import threading as _threading

import numpy as _np

from . import _device, _ember

__all__ = [
    "Philox", "Generator", "default_rng", "seed", "get_state", "set_state",
    "random", "random_sample", "rand", "randn", "uniform", "normal", "standard_normal",
    "randint", "integers", "random_integers", "ranf", "sample", "get_bit_generator",
    "set_bit_generator",
]

_U64 = 1 << 64


def _check_seed(seed):
    if seed is None:
        return int.from_bytes(_os.urandom(8), "little")
    try:
        seed = _operator.index(seed)
    except TypeError:
        raise TypeError(f"seed must be an int or None, not {type(seed).__name__}") from None
    if not 0 <= seed < _U64:
        raise ValueError(f"seed must be between 0 and 2**64 - 1, got {seed}")
    return seed


def _shape_of(size):
    """size=None -> (); an int -> (n,); a sequence of ints -> a tuple."""
    if size is None:
        return ()
    if type(size) is int:  # the common case, kept cheap
        shape = (size,)
    elif isinstance(size, _np.integer):
        shape = (int(size),)
    else:
        try:
            shape = tuple(_operator.index(s) for s in size)
        except TypeError:
            raise TypeError(f"size must be None, an int or a tuple of ints, not {size!r}") from None
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed (size={shape})")
    return shape


_FLOATS = {_np.dtype("float32"), _np.dtype("float64")}


def _float_dtype(dtype, what):
    dt = _np.dtype(dtype)
    if dt not in _FLOATS:
        raise TypeError(f"Unsupported dtype {dt!r} for {what} (use float32 or float64)")
    return dt


def _is_array(x):
    return isinstance(x, (_ember.ndarray, _np.ndarray)) or hasattr(x, "__len__")


class Philox:
    """The bit generator: a 64-bit ``key`` and the 64-bit ``counter`` of the
    next unused Philox block.  ``state`` is a dict like NumPy's."""

    def __init__(self, seed=None, *, counter=0):
        self.key = _check_seed(seed)
        self.counter = _operator.index(counter) % _U64
        self._lock = _threading.Lock()

    @property
    def state(self):
        return {"bit_generator": "Philox", "state": {"key": self.key, "counter": self.counter}}

    @state.setter
    def state(self, value):
        if not isinstance(value, dict) or value.get("bit_generator") != "Philox":
            raise ValueError("state must be a dict from Philox.state")
        st = value["state"]
        with self._lock:
            self.key, self.counter = _check_seed(st["key"]), _operator.index(st["counter"]) % _U64

    def advance(self, delta):
        """Skip delta Philox blocks (each 4 32-bit or 2 64-bit values)."""
        with self._lock:
            self.counter = (self.counter + _operator.index(delta)) % _U64
        return self

    def _fill(self, kind, shape, dtype, device, low=0, range_=0, post=None, pa=0.0, pb=0.0):
        # post: a transform applied as the values are stored (em_random_fill_post).
        auto = False
        if device is not None or _device._auto_used:
            from ._creation import _auto, _is_auto
            auto = _is_auto(device)  # draws for device="auto" are auto arrays
            if auto:  # larger than every GPU: made on the devices when used
                from .auto import _generated, _place
                with self._lock:
                    g = _generated.random(self, kind, shape, dtype, low, range_, post, pa, pb)
                if g is not None:
                    return g
                # else where the draw is cheapest (a GPU's Philox beats the host's)
                placed = _place.creation(kind, shape, dtype, post)
                if placed is not None:
                    try:
                        return _auto(self._draw(kind, shape, dtype, placed, low, range_, post,
                                                pa, pb))
                    except _ember.OutOfMemoryError:
                        pass  # the GPU filled up since it was priced: the host, as before
        arr = self._draw(kind, shape, dtype, device, low, range_, post, pa, pb)
        return _auto(arr) if auto else arr

    def _draw(self, kind, shape, dtype, device, low, range_, post, pa, pb):
        # The lock makes concurrent draws from threads take disjoint blocks;
        # the counter moves only when the fill succeeds.
        with self._lock:
            arr, self.counter = _ember.random_fill(kind, shape, dtype, self.key, self.counter,
                                                   device, low, range_, post, pa, pb)
        return arr

    def __repr__(self):
        return f"Philox(key={self.key}, counter={self.counter})"


from ._distributions import Distributions as _Distributions, LEGACY as _LEGACY  # noqa: E402
from ._distributions import legacy_function as _legacy_function  # noqa: E402


class Generator(_Distributions):
    """NumPy's ``Generator`` interface over a :class:`Philox` stream."""

    def __init__(self, bit_generator=None):
        if not isinstance(bit_generator, Philox):
            bit_generator = Philox(bit_generator)
        self.bit_generator = bit_generator

    def __repr__(self):
        return f"Generator({self.bit_generator!r})"

    def random(self, size=None, dtype=_np.float64, *, device=None):
        """Uniform floats in [0, 1): float64 from 53 bits, float32 from 24."""
        dt = _float_dtype(dtype, "random")
        return self.bit_generator._fill("uniform", _shape_of(size), dt, device)

    def standard_normal(self, size=None, dtype=_np.float64, *, device=None):
        """N(0, 1) samples (Box-Muller on pairs of uniforms)."""
        dt = _float_dtype(dtype, "standard_normal")
        return self.bit_generator._fill("normal", _shape_of(size), dt, device)

    def uniform(self, low=0.0, high=1.0, size=None, *, device=None):
        """low + (high - low) * U[0, 1); low and high may be arrays (broadcast)."""
        span = _sub(high, low) if _is_array(low) or _is_array(high) else high - low
        return self._affine("uniform", low, span, size, device)

    def normal(self, loc=0.0, scale=1.0, size=None, *, device=None):
        """loc + scale * N(0, 1); scale must be non-negative."""
        if _real_scalar(scale):  # the common call: no NumPy array on the way
            if scale < 0:
                raise ValueError("scale < 0")
        elif _np.any(_np.asarray(_host(scale)) < 0):
            raise ValueError("scale < 0")
        return self._affine("normal", loc, scale, size, device)

    def _affine(self, kind, shift, mult, size, device):
        if size is None:
            size = _np.broadcast_shapes(_shape_of_param(shift), _shape_of_param(mult))
        if _real_scalar(shift) and _real_scalar(mult) and _kernel_device(device):
            # one pass: base * mult + shift as the values are stored (the CPU keeps
            # the elementwise chain: its vectorised loops are the stream there)
            return self.bit_generator._fill(kind, _shape_of(size), _np.float64, device,
                                            post="affine", pa=float(mult), pb=float(shift))
        base = self.bit_generator._fill(kind, _shape_of(size), _np.float64, device)
        out = base * mult + shift
        if out.shape != base.shape:
            raise ValueError(
                f"parameters of shape {out.shape} do not broadcast to size {base.shape}")
        return out.astype(_np.float64, copy=False)

    def integers(self, low, high=None, size=None, dtype=_np.int64, endpoint=False, *, device=None):
        """Integers in [low, high) ([low, high] with endpoint=True); with one
        argument, [0, low)."""
        if high is None:
            low, high = 0, low
        dt = _np.dtype(dtype)
        if dt.kind not in "biu":
            raise TypeError(f"Unsupported dtype {dt!r} for integers")
        lo, hi = _int_bound(low, "low"), _int_bound(high, "high") + (1 if endpoint else 0)
        if lo >= hi:
            raise ValueError("low > high" if endpoint else "low >= high")
        info = (0, 1) if dt.kind == "b" else (int(_np.iinfo(dt).min), int(_np.iinfo(dt).max))
        if lo < info[0]:
            raise ValueError(f"low is out of bounds for {dt.name}")
        if hi - 1 > info[1]:
            raise ValueError(f"high is out of bounds for {dt.name}")
        return self.bit_generator._fill("integers", _shape_of(size), dt, device, lo, hi - lo)


def _int_bound(x, name):
    if _is_array(x):
        raise TypeError(f"{name} must be an int; array bounds are not supported yet")
    try:
        return _operator.index(x)
    except TypeError:
        if isinstance(x, float) and x.is_integer():
            return int(x)
        raise TypeError(f"{name} must be an int, not {type(x).__name__}") from None


def _host(x):
    return x.get() if isinstance(x, _ember.ndarray) else x


def _real_scalar(x):
    """A real Python or NumPy number (a parameter a fill's transform can take)."""
    return isinstance(x, (int, float, _np.integer, _np.floating)) and not isinstance(x, bool)


def _kernel_device(device):
    """Whether draws for device run Ember's kernels (not the CPU's loops)."""
    if device is None:
        return _ember._get_device()[0] != "cpu"
    # auto draws are born on the host, as the CPU's (bit for bit)
    return not str(device).startswith(("cpu", "auto"))


def _shape_of_param(x):
    return x.shape if isinstance(x, _ember.ndarray) else _np.shape(x)


def _sub(a, b):
    from ._creation import asarray
    return asarray(a) - b


def default_rng(seed=None):
    """A new Generator; seed is None (fresh entropy), an int in [0, 2**64),
    a Philox or a Generator (returned as is)."""
    if isinstance(seed, Generator):
        return seed
    return Generator(seed if isinstance(seed, Philox) else Philox(seed))


# ---- the module-level functions use one global generator ------------------

_global = Generator(Philox())


def seed(seed=None):
    """Reset the global generator to key ``seed`` and counter 0."""
    _global.bit_generator.state = {"bit_generator": "Philox",
                                   "state": {"key": _check_seed(seed), "counter": 0}}


def get_state():
    """The global generator's state (to restore with :func:`set_state`)."""
    return _global.bit_generator.state


def set_state(state):
    """Restore the global generator's state from :func:`get_state`."""
    _global.bit_generator.state = state


def random(size=None, dtype=_np.float64, *, device=None):
    """Uniform floats in [0, 1) from the global generator."""
    return _global.random(size, dtype, device=device)


random_sample = random


def rand(*shape, device=None):
    """Uniform float64 in [0, 1) of the given shape (no arguments: 0-d)."""
    return _global.random(shape, device=device)


def randn(*shape, device=None):
    """Standard normal float64 of the given shape (no arguments: 0-d)."""
    return _global.standard_normal(shape, device=device)


def standard_normal(size=None, dtype=_np.float64, *, device=None):
    """N(0, 1) samples from the global generator (``Generator.standard_normal``)."""
    return _global.standard_normal(size, dtype, device=device)


def uniform(low=0.0, high=1.0, size=None, *, device=None):
    """Uniform samples in [low, high) from the global generator (``Generator.uniform``)."""
    return _global.uniform(low, high, size, device=device)


def normal(loc=0.0, scale=1.0, size=None, *, device=None):
    """``loc + scale * N(0, 1)`` from the global generator (``Generator.normal``)."""
    return _global.normal(loc, scale, size, device=device)


def randint(low, high=None, size=None, dtype=_np.int64, *, device=None):
    """Integers in [low, high) (one argument: [0, low)), NumPy's legacy spelling."""
    if high is None and _int_bound(low, "low") <= 0:
        raise ValueError("high <= 0")
    return _global.integers(low, high, size, dtype, device=device)


def integers(low, high=None, size=None, dtype=_np.int64, endpoint=False, *, device=None):
    """Integers in [low, high) from the global generator (``Generator.integers``)."""
    return _global.integers(low, high, size, dtype, endpoint, device=device)


def random_integers(low, high=None, size=None, *, device=None):
    """Integers in [low, high] (one argument: [1, low]); NumPy's deprecated spelling."""
    if high is None:
        low, high = 1, low
    return _global.integers(low, high, size, endpoint=True, device=device)


ranf = sample = random


def get_bit_generator():
    """The global generator's bit generator (a Philox)."""
    return _global.bit_generator


def set_bit_generator(bitgen):
    """Make bitgen (a Philox) the global generator's bit generator."""
    if not isinstance(bitgen, Philox):
        raise TypeError("set_bit_generator expects an ember.random.Philox")
    _global.bit_generator = bitgen


for _name in _LEGACY:
    globals()[_name] = _legacy_function(lambda: _global, _name)
    __all__.append(_name)
