"""What a fuzz program sees besides the module under test: deterministic data (R) and the
namespace builder.  A reproducer prints this file's R so it runs on its own.

A program is a list of statements over a module named M (numpy or ember) and numpy as np;
its inputs come from R(seed, shape, dtype, special), the same arrays for both modules."""
import numpy as np

# Values that break naive code: signed zeros, infinities, NaN, the extremes of each type.
_SPECIAL_F = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-300, -1e300, 0.5, -2.5, 65504.0]


def R(seed, shape, dtype, special=False):
    """The input array for (seed, shape, dtype): small values, and with special=True some
    of the dtype's edge values (NaN, inf, -0.0, integer extremes)."""
    rs = np.random.RandomState(seed)
    dt = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if dt.kind == "b":
        a = rs.randint(0, 2, n).astype(dt)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = max(int(info.min), -20), min(int(info.max), 20)
        a = rs.randint(lo, hi + 1, n).astype(dt)
        if special and n:
            k = rs.randint(0, n, max(1, n // 4))
            a[k] = rs.choice(np.array([info.min, info.max, 0, 1], dtype=dt), len(k))
    else:
        re = np.round(rs.standard_normal(n) * 4, 2)
        if dt.kind == "c":
            a = (re + 1j * np.round(rs.standard_normal(n) * 4, 2)).astype(dt)
        else:
            a = re.astype(dt)
        if special and n:
            k = rs.randint(0, n, max(1, n // 4))
            with np.errstate(all="ignore"):
                a[k] = np.array(rs.choice(_SPECIAL_F, len(k))).astype(dt)
    return a.reshape(shape)


def namespace(module, asarray):
    """The globals a program runs in: M, np, R and A (input to the module's array)."""
    return {"M": module, "np": np, "R": R, "A": asarray}
