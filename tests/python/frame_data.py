"""Random frames for the ember.frame tests (pandas is the oracle)."""
import numpy as np

SIZES = [0, 1, 7, 200]


def make_pdf(rng, n, nulls=True):
    """A pandas frame of several dtypes: int keys with duplicates, string keys
    with nulls, ints, floats with NaN, float32, bools and strings."""
    import pandas as pd
    words = np.array(["apple", "pear", "fig", "kiwi", "", "plum"], dtype=object)
    s = words[rng.integers(0, len(words), n)].copy()
    k2 = words[rng.integers(0, 3, n)].copy()
    f = rng.normal(size=n).round(3)
    if nulls and n:
        s[rng.random(n) < 0.2] = None
        k2[rng.random(n) < 0.15] = None
        f[rng.random(n) < 0.25] = np.nan
    return pd.DataFrame({
        "k1": rng.integers(0, 4, n).astype(np.int64),
        "k2": pd.Series(k2, dtype="str"),
        "i": rng.integers(-50, 50, n).astype(np.int64),
        "i32": rng.integers(-5, 5, n).astype(np.int32),
        "f": f,
        "f32": rng.normal(size=n).astype(np.float32),
        "b": rng.random(n) < 0.5,
        "s": pd.Series(s, dtype="str"),
    })
