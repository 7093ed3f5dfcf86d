"""The distributions of em.random.Generator beyond uniform, normal and
integers (mixed into Generator; the module-level legacy functions call the
global generator's).

Where a closed form turns uniforms or normals into the distribution, the
draw is elementwise Ember arithmetic on the device stream (exponential,
gumbel, laplace, logistic, lognormal, rayleigh, weibull, pareto, power,
standard_cauchy, triangular, wald, geometric, multivariate_normal), and so
are choice, permutation, permuted and shuffle (sorting random keys; choice
without replacement and with p draws Efraimidis-Spirakis keys).  Gamma,
poisson and binomial are one kernel each (codegen/rand_dist.h: every
element runs its rejection loop on its own Philox sub-stream; Marsaglia-Tsang,
inversion below lam = 10 and NumPy's PTRS, NumPy's inversion/BTPE), and
beta, chisquare, f, standard_t, dirichlet, negative_binomial and the
noncentral forms are built on them as NumPy builds them.  zipf, logseries
and vonmises reject in rounds of array operations on a device.  multinomial
is a binomial draw per category, hypergeometric NumPy's urn and HRUA
methods as array operations, multivariate_hypergeometric one
hypergeometric draw a color.  The CPU's zipf and logseries draw from a
NumPy Philox seeded from this stream (reproducible for a seed)."""
import math as _math
import operator as _operator

import numpy as _np

import ember as em

from . import _device as _devmod
from . import _ember
from . import _host as _hostmod


def _is_em(x):
    return isinstance(x, _ember.ndarray)


def _is_auto_array(x):
    from ._creation import _is_auto
    return _is_auto(x.device)


def _hv(x):
    """A parameter's values on the host (to validate them; parameters are small)."""
    return x.get() if _is_em(x) else _np.asarray(x)


def _shape(size):
    if size is None:
        return None
    if isinstance(size, (int, _np.integer)):
        return (int(size),)
    return tuple(_operator.index(s) for s in size)


def _pshape(*params):
    return _np.broadcast_shapes(*[p.shape if _is_em(p) else _np.shape(p) for p in params])


def _current_device():
    kind, id_ = _ember._get_device()
    return f"{kind}:{id_}"


def _dev(device):
    return str(device) if device is not None else _current_device()


def _param(x, device):
    """A parameter as a float64 ember array on device, or a Python float."""
    if _is_em(x):
        return x.astype(_np.float64)
    if _np.ndim(x) == 0:
        return float(_np.asarray(x))
    return em.asarray(_np.asarray(x, dtype=_np.float64), device=device)


def _real(x):
    """x as a Python float where it is a real scalar (a Python or NumPy int or
    float, not a bool or an array), else None: the common call (one scalar
    parameter) then skips NumPy's broadcasting and reductions, which cost
    more host time than a 2**24-element draw takes on a GPU."""
    t = type(x)
    if t is float or t is int or isinstance(x, (_np.floating, _np.integer)):
        return float(x)
    return None


def _fast(self, device):
    """Whether a draw for device may take a one-kernel fill (random._fill's
    transforms): a device that runs Ember's kernels, and a Philox stream."""
    from .random import _kernel_device
    return hasattr(self, "bit_generator") and _kernel_device(device)


# Scalar parameters of the rejection kernels, kept on their device: a float
# parameter was a host-to-device copy of 8 bytes per draw (a sync where the
# copy is pageable).  Keyed by (device, value); small and bounded.
_SCALARS = {}


def _scalar_param(x, dev):
    key = (dev, x)
    v = _SCALARS.get(key)
    if v is None:
        if len(_SCALARS) >= 256:
            _SCALARS.clear()
        v = em.reshape(em.asarray(_np.asarray([x], dtype=_np.float64), device=dev), (1,))
        _SCALARS[key] = v
    return v


_I64 = _np.dtype(_np.int64)


def _check(cond, msg):
    if not bool(_np.all(cond)):
        raise ValueError(msg)


class Distributions:
    """Mixin: the distribution methods of Generator."""

    # ---- helpers ---------------------------------------------------------------
    def _out_shape(self, size, *params):
        shape = _shape(size)
        pshape = _pshape(*params)
        if shape is None:
            return pshape
        if any(d < 0 for d in shape):
            raise ValueError(f"negative dimensions are not allowed (size={shape})")
        try:
            if _np.broadcast_shapes(shape, pshape) != shape:
                raise ValueError
        except ValueError:
            raise ValueError(f"shape mismatch: objects cannot be broadcast to a single shape "
                             f"(size {shape}, parameters {pshape})") from None
        return shape

    def _u(self, shape, device, dtype=_np.float64):
        return self.random(shape, dtype, device=device)

    def _e(self, shape, device, dtype=_np.float64, scale=1.0):
        """Standard exponentials -log(1 - U), U in [0, 1) (1 - U is exact: the
        value of -log1p(-U) at log's cost), times scale (a float)."""
        from .random import _float_dtype, _kernel_device, _shape_of
        if _kernel_device(device) and hasattr(self, "bit_generator"):
            # one pass: the transform as the uniforms are stored
            return self.bit_generator._fill("uniform", _shape_of(shape),
                                            _float_dtype(dtype, "random"), device,
                                            post="exponential", pa=float(scale))
        e = -em.log(1.0 - self._u(shape, device, dtype))
        return e if scale == 1.0 else e * scale

    def _host_draw(self, name, np_method, *args, size=None, device=None, **kwargs):
        """NumPy's method on a host Philox seeded from this stream."""
        dev = _dev(device)
        _hostmod.warn_fallback(name, dev)
        seed = int(self.integers(0, 2 ** 63 - 1, device="cpu").item())
        g = _np.random.Generator(_np.random.Philox(seed))
        hargs = [_hv(a) if _is_em(a) else a for a in args]
        hkw = {k: (_hv(v) if _is_em(v) else v) for k, v in kwargs.items()}
        r = getattr(g, np_method)(*hargs, size=size, **hkw)
        return em.asarray(_np.asarray(r), device=dev)

    # ---- closed forms on the device stream ------------------------------------
    def standard_exponential(self, size=None, dtype=_np.float64, method="zig", out=None, *,
                             device=None):
        """Exp(1) samples (inverse transform of the uniform stream)."""
        r = self._e(_shape(size) or (), device, dtype)
        return _store(r, out)

    def exponential(self, scale=1.0, size=None, *, device=None):
        """Exponential samples with mean scale."""
        sf = _real(scale)
        if sf is not None and _fast(self, device):  # one kernel, no NumPy on the way
            if not sf >= 0:
                raise ValueError("scale < 0")
            from .random import _shape_of
            return self.bit_generator._fill("uniform", _shape_of(size), _np.dtype(_np.float64),
                                            device, post="exponential", pa=sf)
        _check(_hv(scale) >= 0, "scale < 0")
        s = _param(scale, device)
        if isinstance(s, float):
            return self._e(self._out_shape(size, scale), device, scale=s)
        return self._e(self._out_shape(size, scale), device) * s

    def gumbel(self, loc=0.0, scale=1.0, size=None, *, device=None):
        """Gumbel (extreme value) samples: loc - scale * log(E)."""
        _check(_hv(scale) >= 0, "scale < 0")
        e = self._e(self._out_shape(size, loc, scale), device)
        return _param(loc, device) - _param(scale, device) * em.log(e)

    def laplace(self, loc=0.0, scale=1.0, size=None, *, device=None):
        """Laplace (double exponential) samples."""
        _check(_hv(scale) >= 0, "scale < 0")
        u = self._u(self._out_shape(size, loc, scale), device)
        loc, scale = _param(loc, device), _param(scale, device)
        return em.where(u >= 0.5, loc - scale * em.log(2.0 - u - u), loc + scale * em.log(u + u))

    def logistic(self, loc=0.0, scale=1.0, size=None, *, device=None):
        """Logistic samples: loc + scale * log(U / (1 - U))."""
        _check(_hv(scale) >= 0, "scale < 0")
        u = self._u(self._out_shape(size, loc, scale), device)
        return _param(loc, device) + _param(scale, device) * em.log(u / (1.0 - u))

    def lognormal(self, mean=0.0, sigma=1.0, size=None, *, device=None):
        """exp of normal(mean, sigma) samples."""
        _check(_hv(sigma) >= 0, "sigma < 0")
        z = self.standard_normal(self._out_shape(size, mean, sigma), device=device)
        return em.exp(_param(mean, device) + _param(sigma, device) * z)

    def rayleigh(self, scale=1.0, size=None, *, device=None):
        """Rayleigh samples: scale * sqrt(2 E)."""
        _check(_hv(scale) >= 0, "scale < 0")
        return _param(scale, device) * em.sqrt(2.0 * self._e(self._out_shape(size, scale),
                                                             device))

    def weibull(self, a, size=None, *, device=None):
        """Weibull samples: E ** (1 / a) (0 where a == 0)."""
        _check(_hv(a) >= 0, "a < 0")
        e = self._e(self._out_shape(size, a), device)
        ap = _param(a, device)
        with _np.errstate(divide="ignore"):
            r = em.power(e, 1.0 / ap) if _is_em(ap) or ap != 0 else em.zeros(e.shape)
        return em.where(ap == 0, 0.0, r) if _is_em(ap) else r

    def pareto(self, a, size=None, *, device=None):
        """Pareto II (Lomax) samples: expm1(E / a)."""
        _check(_hv(a) > 0, "a <= 0")
        return em.expm1(self._e(self._out_shape(size, a), device) / _param(a, device))

    def power(self, a, size=None, *, device=None):
        """Power-function samples on [0, 1]: (1 - exp(-E)) ** (1 / a)."""
        _check(_hv(a) > 0, "a <= 0")
        e = self._e(self._out_shape(size, a), device)
        return em.power(-em.expm1(-e), 1.0 / _param(a, device))

    def standard_cauchy(self, size=None, *, device=None):
        """Cauchy samples: a ratio of two normals."""
        shape = _shape(size) or ()
        return self.standard_normal(shape, device=device) / \
            self.standard_normal(shape, device=device)

    def triangular(self, left, mode, right, size=None, *, device=None):
        """Triangular samples on [left, right] peaking at mode (inverse transform)."""
        lh, mh, rh = _hv(left), _hv(mode), _hv(right)
        _check(lh <= mh, "left > mode")
        _check(mh <= rh, "mode > right")
        _check(lh < rh, "left == right")
        u = self._u(self._out_shape(size, left, mode, right), device)
        lo, mo, hi = _param(left, device), _param(mode, device), _param(right, device)
        base, lb, rb = hi - lo, mo - lo, hi - mo
        fc = lb / base
        return em.where(u <= fc, lo + em.sqrt(u * base * lb), hi - em.sqrt((1.0 - u) * base * rb))

    def wald(self, mean, scale, size=None, *, device=None):
        """Inverse Gaussian samples (Michael, Schucany and Haas)."""
        _check(_hv(mean) > 0, "mean <= 0")
        _check(_hv(scale) > 0, "scale <= 0")
        shape = self._out_shape(size, mean, scale)
        mu, lam = _param(mean, device), _param(scale, device)
        n = self.standard_normal(shape, device=device)
        y = mu * n * n
        x = mu + (mu / (2.0 * lam)) * (y - em.sqrt(4.0 * lam * y + y * y))
        u = self._u(shape, device)
        return em.where(u <= mu / (mu + x), x, mu * mu / x)

    def geometric(self, p, size=None, *, device=None):
        """Trials to the first success (>= 1, int64).  A scalar p is one pass
        on every device: max(ceil(log1p(-U) / log1p(-p)), 1) of the float64
        uniforms U, so the CPU, CUDA and OpenCL give the same numbers; an
        array of p is the same formula elementwise on the same uniforms."""
        pf = _real(p)
        if pf is None:
            ph = _hv(p)
            _check((ph > 0) & (ph <= 1), "p <= 0, p > 1 or p contains NaNs")
            pp = _param(p, device)
            if isinstance(pp, float):  # a 0-d array or a sequence's scalar
                pf, size = pp, self._out_shape(size, p)
        elif not 0 < pf <= 1:
            raise ValueError("p <= 0, p > 1 or p contains NaNs")
        if pf is not None:
            if hasattr(self, "bit_generator"):  # one kernel, no NumPy on the way
                from .random import _shape_of
                lp = _math.log1p(-pf) if pf < 1 else -_math.inf
                return self.bit_generator._fill("uniform", _shape_of(size), _np.dtype(_np.int64),
                                                device, post="geometric", pa=lp)
            pp = pf
        shape = self._out_shape(size, p)
        if hasattr(self, "bit_generator"):  # the scalar path's stream and formula, elementwise
            u = self._u(shape, device)
            lpp = em.log1p(-(pp if _is_em(pp) else em.asarray(pp, device=u.device)))
            k = em.ceil(em.log1p(-u) / lpp)
            return em.maximum(k, 1.0).astype(_np.int64)
        e = self._e(shape, device)
        with _np.errstate(divide="ignore"):
            k = em.ceil(-e / em.log1p(-em.asarray(pp, device=e.device) if not _is_em(pp)
                                              else -pp))
        return em.maximum(k, 1.0).astype(_np.int64)

    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8, *,
                            method="svd", device=None):
        """mean + z @ A with A A^T = cov (A from the parameters on the host; the
        samples are a device matmul)."""
        m = _np.asarray(_hv(mean), dtype=_np.float64)
        c = _np.asarray(_hv(cov), dtype=_np.float64)
        if m.ndim != 1:
            raise ValueError("mean must be 1 dimensional")
        if c.ndim != 2 or c.shape[0] != c.shape[1]:
            raise ValueError("cov must be 2 dimensional and square")
        if m.shape[0] != c.shape[0]:
            raise ValueError("mean and cov must have same length")
        if check_valid not in ("warn", "raise", "ignore"):
            raise ValueError("check_valid must equal 'warn', 'raise', or 'ignore'")
        if method == "cholesky":
            A = _np.linalg.cholesky(c).T
        else:
            if method == "eigh":
                s, u = _np.linalg.eigh(c)
                vh = u.T
            else:
                u, s, vh = _np.linalg.svd(c)
            if check_valid != "ignore" and method == "svd":
                psd = _np.allclose(_np.dot(vh.T * s, vh), c, rtol=tol, atol=tol)
                if not psd:
                    if check_valid == "warn":
                        import warnings
                        warnings.warn("covariance is not symmetric positive-semidefinite.",
                                      RuntimeWarning, stacklevel=2)
                    else:
                        raise ValueError("covariance is not symmetric positive-semidefinite.")
            A = _np.sqrt(_np.abs(s))[:, None] * vh
        shape = (_shape(size) or ()) + m.shape
        z = self.standard_normal(shape, device=device)
        dev = z.device
        return em.matmul(z, em.asarray(A, device=dev)) + em.asarray(m, device=dev)

    # ---- sampling and shuffling -------------------------------------------------
    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True, *,
               device=None):
        """Samples from a (an int n means arange(n)), with or without replacement,
        uniform or with probabilities p."""
        if (replace and p is None and device is None and type(axis) is int and axis == 0
                and _is_em(a) and a.ndim == 1 and a.shape[0] and not _devmod._auto_used):
            # the common call, kept short (its Python was most of a 2^16 draw
            # on a GPU): em_random_choice's one kernel, no Device objects made
            from .random import _shape_of
            bg = self.bit_generator
            shape = _shape_of(size)
            with bg._lock:
                out, bg.counter = _ember.random_choice(a, shape, bg.key, bg.counter)
            return out
        own = device is None  # the draw on pop's device (else the fill then a take)
        if _is_em(a) or _np.ndim(a) > 0:
            own = own or not _is_em(a)
            pop = a if _is_em(a) else em.asarray(a, device=device)
            if pop.ndim == 0:
                raise ValueError("a must be a sequence or an integer, not a 0-d array")
            axis = _operator.index(axis)
            if not -pop.ndim <= axis < pop.ndim:  # NumPy's IndexError (its shape[axis])
                raise IndexError(f"axis {axis} is out of bounds for array of dimension "
                                 f"{pop.ndim}")
            axis %= pop.ndim
            n = pop.shape[axis]
            device = device or pop.device
        else:
            pop = None
            n = _operator.index(a)
            if n < 0:
                raise ValueError("a must be a positive integer unless no samples are taken")
        shape = _shape(size)
        k = 1 if shape is None else _math.prod(shape)
        if n == 0 and k:
            raise ValueError("a cannot be empty unless no samples are taken")
        if p is not None:
            ph = _np.asarray(_hv(p), dtype=_np.float64)
            if ph.ndim != 1:
                raise ValueError("p must be 1-dimensional")
            if ph.shape[0] != n:
                raise ValueError("a and p must have same size")
            if _np.any(ph < 0) or _np.any(_np.isnan(ph)):
                raise ValueError("probabilities are not non-negative")
            if abs(ph.sum() - 1.0) > _np.sqrt(_np.finfo(_np.float64).eps):
                raise ValueError("probabilities do not sum to 1")
        if replace:
            if p is None and pop is not None and pop.ndim == 1 and n and own and \
                    not _is_auto_array(pop):
                # one kernel (em_random_choice): the fill's indices used as drawn
                from .random import _shape_of
                bg = self.bit_generator
                with bg._lock:
                    out, bg.counter = _ember.random_choice(pop, _shape_of(shape), bg.key,
                                                           bg.counter)
                return out
            if p is None:  # the integer fill itself (integers() validates dtype and bounds)
                from .random import _shape_of
                idx = self.bit_generator._fill("integers", _shape_of(shape), _I64, device, 0,
                                               max(n, 1))
            else:
                cdf = em.cumsum(em.asarray(ph, device=device))
                cdf = cdf / cdf[-1]
                u = self.random(shape, device=device)
                idx = em.minimum(em.searchsorted(cdf, u, side="right"), n - 1)
        else:
            if k > n:
                raise ValueError("Cannot take a larger sample than population when "
                                 "replace is False")
            if p is None:
                keys = self._keys((n,), device)
            else:
                if _np.count_nonzero(ph) < k:
                    raise ValueError("Fewer non-zero entries in p than size")
                # Efraimidis-Spirakis: the k largest U ** (1/p) (as logs)
                u = self.random((n,), device=device)
                with _np.errstate(divide="ignore"):
                    keys = -(em.log(u) / em.asarray(ph, device=device))
                keys = em.where(em.asarray(ph == 0, device=device), em.asarray(_np.inf), keys)
            idx = em.argsort(keys)[:k]
            if not shuffle and p is None:
                idx = em.sort(idx)
            idx = em.reshape(idx, shape if shape is not None else ())
        if pop is None:
            return idx
        if shape is None:
            return em.take(pop, idx, axis=axis)
        return em.take(pop, idx, axis=axis)

    def _keys(self, shape, device):
        """Random sort keys: 32-bit words, so a radix argsort makes 4 passes
        where float64 keys made 8.  Equal keys (each pair with probability
        2**-32) keep their index order in the stable sort: a bias of that
        order per pair, the price of the halved sort."""
        return self.bit_generator._fill("bits", tuple(shape), _np.uint32, device)

    def permutation(self, x, axis=0, *, device=None):
        """A permuted range (x an int) or a shuffled copy of x along axis
        (an argsort of random 32-bit keys)."""
        if not _is_em(x) and _np.ndim(x) == 0:
            n = _operator.index(x)
            return em.argsort(self._keys((n,), device))
        arr = x if _is_em(x) else em.asarray(x, device=device)
        if arr.ndim == 0:
            raise _np.exceptions.AxisError("x must be an integer or at least 1-dimensional")
        axis = _operator.index(axis)
        if not -arr.ndim <= axis < arr.ndim:
            raise _np.exceptions.AxisError(axis, arr.ndim)
        perm = em.argsort(self._keys((arr.shape[axis],), arr.device))
        return em.take(arr, perm, axis=axis)

    def shuffle(self, x, axis=0):
        """Shuffle an ember array in place along axis."""
        if not _is_em(x):
            raise TypeError("shuffle() expects an ember.ndarray (shuffle a list with "
                            "random.shuffle or a NumPy array with numpy's Generator)")
        if x.ndim == 0:
            raise TypeError("shuffle() does not take a 0-d array")
        x[...] = self.permutation(x, axis)

    def permuted(self, x, *, axis=None, out=None):
        """x with each slice along axis shuffled independently (all of it when None)."""
        arr = x if _is_em(x) else em.asarray(x)
        if axis is None:
            flat = em.ravel(arr)
            r = em.reshape(em.take(flat, em.argsort(self._keys(flat.shape, arr.device))),
                           arr.shape)
        else:
            axis = _operator.index(axis)
            if not -arr.ndim <= axis < arr.ndim:
                raise _np.exceptions.AxisError(axis, arr.ndim)
            keys = self._keys(arr.shape, arr.device)
            r = em.take_along_axis(arr, em.argsort(keys, axis=axis), axis=axis)
        return _store(r, out)

    def bytes(self, length):
        """length random bytes."""
        return self.integers(0, 256, (length,), dtype=_np.uint8, device="cpu").get().tobytes()

    def spawn(self, n_children):
        """n independent Generators keyed from this stream."""
        keys = self.integers(0, 2 ** 63 - 1, (n_children,), device="cpu").get()
        return [type(self)(int(k)) for k in keys]

    # ---- the gamma family: Marsaglia-Tsang rejection on the device ----------------
    def _dist(self, kind, shape, device, *params):
        """One kernel draws every element (codegen/rand_dist.h): kind "gamma"
        or "beta" (float64), "poisson" or "binomial" (int64) with the parameters
        broadcast to shape; each element runs its rejection loop on its own
        Philox sub-stream, so there are no rounds, compaction or syncs."""
        shape = tuple(shape)
        if device is None:
            em_params = [x for x in params if _is_em(x)]
            device = em_params[0].device if em_params else _current_device()
        dev = str(device)
        n = _math.prod(shape)
        ps = []
        for x in params:
            xf = _real(x)
            if xf is not None and not dev.startswith("auto"):
                ps.append(_scalar_param(xf, dev))
                continue
            v = x.astype(_np.float64) if _is_em(x) else \
                em.asarray(_np.asarray(x, dtype=_np.float64), device=dev)
            if v.size == 1:
                v = em.reshape(em.ascontiguousarray(v), (1,))
            else:  # one value per element, in C order
                v = em.ravel(em.ascontiguousarray(em.broadcast_to(v, shape)))
            ps.append(v)
        if n == 0:
            return em.zeros(shape, dtype=_np.float64 if kind in ("gamma", "beta") else _np.int64,
                            device=dev)
        bg = self.bit_generator
        with bg._lock:
            r, bg.counter = _ember.random_dist(kind, shape, bg.key, bg.counter, *ps)
        return r

    def _gamma(self, k, shape, device):
        """Standard gamma variates of shape k (>= 0, broadcast to shape):
        Marsaglia and Tsang's method inside one kernel; shapes below 1 draw
        gamma(k + 1) * U ** (1 / k)."""
        return self._dist("gamma", shape, device, k)

    def standard_gamma(self, shape, size=None, dtype=_np.float64, out=None, *, device=None):
        """Gamma(shape, 1) variates (on the device: see _gamma)."""
        _check(_hv(shape) >= 0, "shape < 0")
        r = self._gamma(shape, self._out_shape(size, shape), device)
        if _np.dtype(dtype) != _np.float64:
            r = r.astype(dtype)
        return _store(r, out)

    def gamma(self, shape, scale=1.0, size=None, *, device=None):
        """Gamma(shape, scale) variates."""
        _check(_hv(shape) >= 0, "shape < 0")
        _check(_hv(scale) >= 0, "scale < 0")
        g = self._gamma(shape, self._out_shape(size, shape, scale), device)
        return g * _param(scale, device)

    def beta(self, a, b, size=None, *, device=None):
        """Beta(a, b) variates: X / (X + Y) of gamma variates, both drawn in one
        kernel (codegen/rand_dist.h's em_rs_beta) from each element's stream."""
        af, bf = _real(a), _real(b)
        if af is not None and bf is not None:  # the common call: no NumPy on the way
            if not af > 0:
                raise ValueError("a <= 0")
            if not bf > 0:
                raise ValueError("b <= 0")
            from .random import _shape_of
            return self._dist("beta", _shape_of(size), device, af, bf)
        _check(_hv(a) > 0, "a <= 0")
        _check(_hv(b) > 0, "b <= 0")
        return self._dist("beta", self._out_shape(size, a, b), device, a, b)

    def chisquare(self, df, size=None, *, device=None):
        """Chi-square variates: 2 * gamma(df / 2)."""
        _check(_hv(df) > 0, "df <= 0")
        return 2.0 * self._gamma(_half(df), self._out_shape(size, df), device)

    def f(self, dfnum, dfden, size=None, *, device=None):
        """F variates: a ratio of chi-squares over their degrees of freedom."""
        _check(_hv(dfnum) > 0, "dfnum <= 0")
        _check(_hv(dfden) > 0, "dfden <= 0")
        shape = self._out_shape(size, dfnum, dfden)
        num = 2.0 * self._gamma(_half(dfnum), shape, device) / _param(dfnum, device)
        den = 2.0 * self._gamma(_half(dfden), shape, device) / _param(dfden, device)
        return num / den

    def standard_t(self, df, size=None, *, device=None):
        """Student's t variates: N / sqrt(chi2(df) / df)."""
        _check(_hv(df) > 0, "df <= 0")
        shape = self._out_shape(size, df)
        z = self.standard_normal(shape, device=device)
        g = self._gamma(_half(df), shape, device)
        return em.sqrt(_param(df, device) / 2.0) * z / em.sqrt(g)

    def dirichlet(self, alpha, size=None, *, device=None):
        """Dirichlet variates: gamma(alpha_i) normalised to sum 1 (last axis)."""
        al = _np.asarray(_hv(alpha), dtype=_np.float64)
        if al.ndim != 1:
            raise ValueError("object too deep for desired array" if al.ndim > 1 else
                             "object of too small depth for desired array")
        if _np.any(al < 0) or _np.any(_np.isnan(al)):
            raise ValueError("alpha < 0")
        shape = (_shape(size) or ()) + al.shape
        g = self._gamma(em.asarray(al, device=device), shape, device)
        return g / em.sum(g, axis=-1, keepdims=True)

    def negative_binomial(self, n, p, size=None, *, device=None):
        """Failures before n successes (int64): poisson(gamma(n, (1 - p) / p)), as NumPy."""
        nh, ph = _hv(n), _hv(p)
        _check(nh > 0, "n <= 0")
        _check((ph > 0) & (ph <= 1), "p < 0, p > 1 or p is NaN")
        shape = self._out_shape(size, n, p)
        pp = _param(p, device)
        y = self._gamma(n, shape, device) * ((1.0 - pp) / pp)
        return self.poisson(y, device=device)

    def noncentral_chisquare(self, df, nonc, size=None, *, device=None):
        """Noncentral chi-square variates (NumPy's construction from chi-square,
        normal and Poisson variates)."""
        _check(_hv(df) > 0, "df <= 0")
        _check(_hv(nonc) >= 0, "nonc < 0")
        shape = self._out_shape(size, df, nonc)
        d = em.broadcast_to(em.asarray(_param(df, device), dtype=_np.float64), shape)
        lam = em.broadcast_to(em.asarray(_param(nonc, device), dtype=_np.float64), shape)
        # df > 1: chi2(df - 1) + (Z + sqrt(nonc))**2
        big = 2.0 * self._gamma(em.maximum(d - 1.0, 0.0) / 2.0, shape, device)
        z = self.standard_normal(shape, device=device) + em.sqrt(lam)
        big = big + z * z
        # df <= 1: chi2(df + 2 * poisson(nonc / 2))
        i = self.poisson(lam / 2.0, device=device).astype(_np.float64)
        small = 2.0 * self._gamma((d + 2.0 * i) / 2.0, shape, device)
        return em.where(lam == 0, 2.0 * self._gamma(d / 2.0, shape, device),
                        em.where(d > 1, big, small))

    def noncentral_f(self, dfnum, dfden, nonc, size=None, *, device=None):
        """Noncentral F variates: a noncentral chi-square over a chi-square."""
        _check(_hv(dfnum) > 0, "dfnum <= 0")
        _check(_hv(dfden) > 0, "dfden <= 0")
        _check(_hv(nonc) >= 0, "nonc < 0")
        shape = self._out_shape(size, dfnum, dfden, nonc)
        t = self.noncentral_chisquare(dfnum, nonc, shape, device=device) * _param(dfden, device)
        return t / (2.0 * self._gamma(_half(dfden), shape, device) * _param(dfnum, device))

    def vonmises(self, mu, kappa, size=None, *, device=None):
        """von Mises variates on [-pi, pi]: Best and Fisher's rejection (NumPy's
        variant), every element at once, the rejected redrawing."""
        _check(_hv(kappa) >= 0, "kappa < 0")
        shape = self._out_shape(size, mu, kappa)
        n = int(_np.prod(shape, dtype=_np.int64))
        m = em.ravel(em.broadcast_to(em.asarray(_param(mu, device), dtype=_np.float64), shape))
        k = em.ravel(em.broadcast_to(em.asarray(_param(kappa, device), dtype=_np.float64),
                                     shape))
        kk = em.maximum(k, 1e-300)
        r = 1.0 + em.sqrt(1.0 + 4.0 * kk * kk)
        rho = (r - em.sqrt(2.0 * r)) / (2.0 * kk)
        s = em.where(kk < 1e-5, 1.0 / kk + kk, (1.0 + rho * rho) / (2.0 * rho))
        w = em.zeros((n,), device=device)
        pend = em.flatnonzero((k >= 1e-8) & (k <= 1e6))
        while pend.shape[0]:
            sp, kp = em.take(s, pend), em.take(kk, pend)
            z = em.cos(_np.pi * self.random(pend.shape, device=device))
            wp = (1.0 + sp * z) / (sp + z)
            y = kp * (sp - wp)
            v = self.random(pend.shape, device=device)
            with _np.errstate(all="ignore"):
                ok = (y * (2.0 - y) - v >= 0) | (em.log(y / v) + 1.0 - y >= 0)
            if bool(em.any(ok)):
                em.put(w, pend[ok], wp[ok])
            pend = pend[~ok]
        u = self.random((n,), device=device)
        ang = em.arccos(em.clip(w, -1.0, 1.0))
        ang = em.where(u < 0.5, -ang, ang) + m
        # kappa ~ 0: uniform; huge kappa: a wrapped normal (as NumPy)
        ang = em.where(k < 1e-8, _np.pi * (2.0 * self.random((n,), device=device) - 1.0), ang)
        ang = em.where(k > 1e6, m + em.sqrt(1.0 / kk) * self.standard_normal((n,), device=device),
                       ang)
        neg = ang < 0
        mod = em.fmod(em.abs(ang) + _np.pi, 2.0 * _np.pi) - _np.pi
        return em.reshape(em.where(neg, -mod, mod), shape)

    # ---- on the host (rejection sampling, series) --------------------------------
    def poisson(self, lam=1.0, size=None, *, device=None):
        """Poisson variates (int64) in one kernel: inversion of one uniform for
        lam < 10 (NumPy multiplies lam + 1 uniforms), Hormann's PTRS rejection
        above (NumPy's)."""
        lf = _real(lam)
        if lf is not None:
            if not lf >= 0:
                raise ValueError("lam < 0")
            if not lf <= 9.223372006484771e18:
                raise ValueError("lam value too large")
            from .random import _shape_of
            return self._dist("poisson", _shape_of(size), device, lf)
        lh = _hv(lam)
        _check(lh >= 0, "lam < 0")
        _check(lh <= 9.223372006484771e18, "lam value too large")
        return self._dist("poisson", self._out_shape(size, lam), device, lam)

    def _flat_param(self, x, shape, device, dtype=_np.float64):
        """A parameter broadcast to shape, flattened, as dtype on device."""
        v = x.astype(dtype) if _is_em(x) else em.asarray(_np.asarray(x).astype(dtype),
                                                          device=_dev(device))
        return em.ravel(em.broadcast_to(v, shape))

    def binomial(self, n, p, size=None, *, device=None):
        """Binomial variates (int64) in one kernel (codegen/rand_dist.h): NumPy's
        inversion while n * min(p, 1 - p) <= 30, its BTPE above."""
        nf, pf = _real(n), _real(p)
        if nf is not None and pf is not None:  # the common call: no NumPy on the way
            if not nf >= 0:
                raise ValueError("n < 0")
            if not 0 <= pf <= 1:
                raise ValueError("p < 0, p > 1 or p is NaN")
            from .random import _shape_of
            return self._dist("binomial", _shape_of(size), device, nf, pf)
        nh, ph = _hv(n), _hv(p)
        _check(nh >= 0, "n < 0")
        _check((ph >= 0) & (ph <= 1), "p < 0, p > 1 or p is NaN")
        # n travels as float64 (exact below 2**53) and is truncated, as astype(int64)
        return self._dist("binomial", self._out_shape(size, n, p), device, n, p)

    def hypergeometric(self, ngood, nbad, nsample, size=None, *, device=None):
        """Good items among nsample drawn without replacement (int64), NumPy's
        two methods on the device, every element at once: below 10 draws
        (or within 10 of all) the urn one draw a step (at most 9 steps),
        else Stadlober's ratio-of-uniforms (HRUA) in rounds, the rejected
        elements drawing again."""
        gh, bh, sh = (_np.asarray(_hv(v)).astype(_np.int64) for v in (ngood, nbad, nsample))
        _check((gh < 10 ** 9) & (bh < 10 ** 9),
               "both ngood and nbad must be less than 1000000000")
        _check(gh + bh >= sh, "ngood + nbad < nsample")  # NumPy's order of checks
        _check(gh >= 0, "ngood < 0")
        _check(bh >= 0, "nbad < 0")
        _check(sh >= 0, "nsample < 0")
        shape = self._out_shape(size, gh, bh, sh)
        return self._hyp_draw(ngood, nbad, nsample, shape, device)

    def _hyp_draw(self, ngood, nbad, nsample, shape, device):
        """hypergeometric's draw of shape, the parameters already checked
        (scalars or arrays on the device: nothing is read back)."""
        m = int(_np.prod(shape, dtype=_np.int64))
        dev = _dev(device)
        good, bad, samp = (em.floor(self._flat_param(v, shape, device))
                           for v in (ngood, nbad, nsample))
        total = good + bad
        hrua = (samp >= 10.0) & (samp <= total - 10.0)
        out = em.zeros((m,), dtype=_np.float64, device=dev)
        urn = em.nonzero(~hrua)[0]
        if urn.shape[0]:
            em.put(out, urn, self._hyp_urn(em.take(good, urn), em.take(total, urn),
                                           em.take(samp, urn), device))
        rat = em.nonzero(hrua)[0]
        if rat.shape[0]:
            em.put(out, rat, self._hyp_hrua(em.take(good, rat), em.take(bad, rat),
                                            em.take(samp, rat), device))
        return em.reshape(out.astype(_np.int64), shape)

    def _hyp_urn(self, good, total, samp, device):
        """NumPy's hypergeometric_sample: the smaller of the sample and its
        complement drawn one item a step (fewer than 10 steps here)."""
        k = good.shape[0]
        flip = samp > em.floor(total / 2.0)
        left = em.where(flip, total - samp, samp)
        rtot, rgood = total, good
        for _ in range(9):
            act = (left > 0.0) & (rgood > 0.0) & (rtot > rgood)
            rtot = rtot - act
            pick = em.floor(self.random((k,), device=device) * (rtot + 1.0)) < rgood
            rgood = rgood - (act & pick)
            left = left - act
        rgood = em.where(rtot == rgood, rgood - left, rgood)  # only good ones were left
        return em.where(flip, rgood, good - rgood)

    def _hyp_hrua(self, good, bad, samp, device):
        """NumPy's hypergeometric_hrua (Stadlober 1989), element for element."""
        d1, d2 = 1.7155277699214135, 0.8989161620588988
        pop = good + bad
        cs = em.minimum(samp, pop - samp)
        mn, mx = em.minimum(good, bad), em.maximum(good, bad)
        p, q = mn / pop, mx / pop
        a = cs * p + 0.5
        c = em.sqrt((pop - cs) * cs * p * q / (pop - 1.0) + 0.5)
        h = d1 * c + d2
        mode = em.floor((cs + 1.0) * (mn + 1.0) / (pop + 2.0))
        lf = _logfactorial
        g = lf(mode) + lf(mn - mode) + lf(cs - mode) + lf(mx - cs + mode)
        b = em.minimum(em.minimum(cs, mn) + 1.0, em.floor(a + 16.0 * c))
        k = good.shape[0]
        res = em.zeros((k,), dtype=_np.float64, device=_dev(device))
        pend = em.arange(k, device=_dev(device))
        while pend.shape[0]:
            n = pend.shape[0]
            u = self.random((n,), device=device)
            v = self.random((n,), device=device)
            ap, hp, bp = em.take(a, pend), em.take(h, pend), em.take(b, pend)
            mnp, csp, mxp = em.take(mn, pend), em.take(cs, pend), em.take(mx, pend)
            with _np.errstate(all="ignore"):
                x = ap + hp * (v - 0.5) / u
                ok = (x >= 0.0) & (x < bp)
                kk = em.where(ok, em.floor(x), 0.0)
                t = em.take(g, pend) - (lf(kk) + lf(mnp - kk) + lf(csp - kk) +
                                        lf(mxp - csp + kk))
                acc = ok & ((u * (4.0 - u) - 3.0 <= t) |
                            ((u * (u - t) < 1.0) & (2.0 * em.log(u) <= t)))
            if bool(em.any(acc)):
                em.put(res, pend[acc], kk[acc])
            pend = pend[~acc]
        res = em.where(good > bad, cs - res, res)
        return em.where(cs < samp, good - res, res)

    def zipf(self, a, size=None, *, device=None):
        if _dev(device).startswith("cpu"):  # NumPy's algorithm, no copy on the CPU
            return self._host_draw("random.zipf", "zipf", a, size=size, device=device)
        return self._zipf_dev(a, size, device)

    def _zipf_dev(self, a, size, device):
        """Zipf variates (int64) on the device: NumPy's rejection method (Devroye),
        every element drawing at once and the rejected ones again."""
        ah = _hv(a)
        _check(ah > 1, "a <= 1 or a is NaN")
        shape = self._out_shape(size, a)
        m = int(_np.prod(shape, dtype=_np.int64))
        am1 = self._flat_param(a, shape, device) - 1.0
        b = em.power(2.0, am1)
        out = em.zeros((m,), dtype=_np.int64, device=_dev(device))
        pend = em.arange(m, device=_dev(device))
        while pend.shape[0]:
            k = pend.shape[0]
            e, bb = em.take(am1, pend), em.take(b, pend)
            u = 1.0 - self.random((k,), device=device)
            v = self.random((k,), device=device)
            with _np.errstate(all="ignore"):
                x = em.floor(em.power(u, -1.0 / e))
                t = em.power(1.0 + 1.0 / x, e)
                ok = (x >= 1.0) & (x <= 9.223372036854775807e18) & \
                    (v * x * (t - 1.0) / (bb - 1.0) <= t / bb)
            if bool(em.any(ok)):
                em.put(out, pend[ok], x[ok].astype(_np.int64))
            pend = pend[~ok]
        return em.reshape(out, shape)

    def logseries(self, p, size=None, *, device=None):
        if _dev(device).startswith("cpu"):  # NumPy's algorithm, no copy on the CPU
            return self._host_draw("random.logseries", "logseries", p, size=size, device=device)
        return self._logseries_dev(p, size, device)

    def _logseries_dev(self, p, size, device):
        """Logarithmic-series variates (int64) on the device: NumPy's (Kemp's)
        method; a draw with V <= q**2 whose value comes out below 1 draws again."""
        ph = _hv(p)
        _check((ph >= 0) & (ph < 1), "p < 0, p >= 1 or p is NaN")
        shape = self._out_shape(size, p)
        m = int(_np.prod(shape, dtype=_np.int64))
        pp = self._flat_param(p, shape, device)
        out = em.ones((m,), dtype=_np.int64, device=_dev(device))
        pend = em.arange(m, device=_dev(device))
        while pend.shape[0]:
            k = pend.shape[0]
            pk = em.take(pp, pend)
            v = self.random((k,), device=device)
            u = self.random((k,), device=device)
            with _np.errstate(all="ignore"):
                q = -em.expm1(em.log1p(-pk) * u)
                r = em.floor(1.0 + em.log(v) / em.log(q))
            tail = (v < pk) & (v <= q * q)
            retry = tail & ((r < 1.0) | (v == 0.0))
            val = em.where(v >= pk, 1.0, em.where(tail, r, em.where(v >= q, 1.0, 2.0)))
            done = ~retry
            if bool(em.any(done)):
                em.put(out, pend[done], val[done].astype(_np.int64))
            pend = pend[retry]
        return em.reshape(out, shape)

    def multinomial(self, n, pvals, size=None, *, device=None):
        """Multinomial counts (int64, last axis the categories), NumPy's way:
        one binomial kernel per category but the last, each drawing from the
        trials left with p_j over the probability left; the last category
        takes what remains.  Built on binomial, so a seed gives the same
        values on every device."""
        nh = _np.asarray(_hv(n))
        ph = _np.asarray(_hv(pvals), dtype=_np.float64)
        if ph.ndim == 0 or ph.shape[-1] == 0:
            raise ValueError("pvals must have at least 1 dimension and the last dimension "
                             "of pvals must be greater than 0.")
        _check(nh >= 0, "n < 0")
        _check((ph >= 0) & (ph <= 1), "pvals < 0, pvals > 1 or pvals contains NaNs")
        _check(ph[..., :-1].sum(axis=-1) <= 1.0 + 1e-12, "sum(pvals[:-1]) > 1.0")
        k = ph.shape[-1]
        shape = self._out_shape(size, nh, ph[..., 0])
        dev = _dev(device)
        pv = _hv(pvals) if not _is_em(pvals) else pvals
        pv = em.broadcast_to(em.asarray(pv, dtype=_np.float64, device=dev), shape + (k,))
        left = em.broadcast_to(em.asarray(_param(n, dev), device=dev).astype(_np.int64), shape)
        left_p = em.ones(shape, dtype=_np.float64, device=dev)
        cols = []
        for j in range(k - 1):
            pj = pv[..., j]
            # p_j over the probability left, capped at 1 (rounding), 0 where
            # nothing is left to draw from
            q = em.where(left_p > 0, em.minimum(pj / em.maximum(left_p, 1e-300), 1.0), 0.0)
            x = self._dist("binomial", shape, dev, left, q)  # validated above
            cols.append(x)
            left = left - x
            left_p = left_p - pj
        cols.append(left)
        return em.stack(cols, axis=-1)

    def multivariate_hypergeometric(self, colors, nsample, size=None, method="marginals", *,
                                    device=None):
        """Counts of each color among nsample drawn without replacement (int64,
        last axis the colors), NumPy's marginals method on the device: one
        hypergeometric draw a color (that color against the ones after it)
        from what is left of the sample.  method="count" draws the same
        distribution the same way.  NumPy checks the arguments (a draw of
        size 0: its messages, nothing drawn)."""
        ch = _np.asarray(_hv(colors))
        _np.random.default_rng(0).multivariate_hypergeometric(ch, nsample, size=0,
                                                              method=method)
        ch = ch.astype(_np.int64)
        shape = _shape(size) or ()
        if any(d < 0 for d in shape):
            raise ValueError(f"negative dimensions are not allowed (size={shape})")
        dev = _dev(device)
        left = em.full(shape, int(nsample), dtype=_np.int64, device=dev)
        rest = int(ch.sum())
        cols = []
        for c in ch[:-1]:
            rest -= int(c)
            x = self._hyp_draw(int(c), rest, left, shape, device)
            cols.append(x)
            left = left - x
        if len(ch):
            cols.append(left)  # the last color takes what is left
        if not cols:
            return em.zeros(shape + (0,), dtype=_np.int64, device=dev)
        return em.stack(cols, axis=-1)


_LOGFACT = {}


def _logfactorial(k):
    """log(k!) of a float64 array of whole numbers >= 0, as NumPy's
    logfactorial: a table below 126, Stirling's series above."""
    dev = str(k.device)
    tab = _LOGFACT.get(dev)
    if tab is None:
        tab = _LOGFACT[dev] = em.asarray(
            _np.array([_math.lgamma(i + 1.0) for i in range(126)]), device=dev)
    small = em.take(tab, em.clip(k, 0.0, 125.0).astype(_np.int64))
    kb = em.maximum(k, 1.0)
    big = (kb + 0.5) * em.log(kb) - kb + (0.9189385332046727 +
                                          (1.0 / kb) * (1.0 / 12.0 - 1.0 / (360.0 * kb * kb)))
    return em.where(k < 126.0, small, big)


def _half(x):
    return _hv(x) / 2.0 if not _is_em(x) else x.astype(_np.float64) / 2.0


def _store(r, out):
    if out is None:
        return r
    out[...] = r
    return out


# Module-level (legacy) functions: the global generator's methods.
LEGACY = ("standard_exponential", "exponential", "gumbel", "laplace", "logistic", "lognormal",
          "rayleigh", "weibull", "pareto", "power", "standard_cauchy", "triangular", "wald",
          "geometric", "multivariate_normal", "choice", "permutation", "shuffle", "bytes",
          "standard_gamma", "gamma", "beta", "chisquare", "noncentral_chisquare", "f",
          "noncentral_f", "standard_t", "vonmises", "poisson", "binomial", "negative_binomial",
          "hypergeometric", "zipf", "logseries", "dirichlet", "multinomial")


def legacy_function(get_global, name):
    def fn(*args, **kwargs):
        return getattr(get_global(), name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = getattr(Distributions, name).__doc__
    return fn



