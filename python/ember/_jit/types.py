"""Types of the kernel language: NumPy scalar dtypes by name, arrays, tuples.

Scalars are NumPy dtype names ('bool', 'int8' ... 'uint64', 'float32',
'float64').  float16 and complex values are not part of the kernel language
(a clear TypeError at the call says so).  Python literals are *weak* (NEP 50):
``x * 2`` keeps x's dtype, as in NumPy 2.
"""
import numpy as np

SCALARS = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float32", "float64")
SIGNED = frozenset(("int8", "int16", "int32", "int64"))
UNSIGNED = frozenset(("uint8", "uint16", "uint32", "uint64"))
INTS = SIGNED | UNSIGNED
FLOATS = frozenset(("float32", "float64"))
NUMERIC = INTS | FLOATS
BITS = {"bool": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint8": 8, "uint16": 16,
        "uint32": 32, "uint64": 64, "float32": 32, "float64": 64}
ITEMSIZE = {t: BITS[t] // 8 for t in SCALARS}
# The C spelling (both dialects typedef these in their prelude).
CTYPE = {"bool": "em_b", "int8": "em_i8", "int16": "em_i16", "int32": "em_i32", "int64": "em_i64",
         "uint8": "em_u8", "uint16": "em_u16", "uint32": "em_u32", "uint64": "em_u64",
         "float32": "em_f32", "float64": "em_f64"}


class ArrayT:
    """An array: dtype, ndim; kind 'param' (pointer, shape, strides passed in),
    'shared'/'local' (compile-time shape, C order) or 'dynshared' (1-d, size
    from the launch)."""
    __slots__ = ("dtype", "ndim", "kind", "shape", "layout", "space")

    def __init__(self, dtype, ndim, kind="param", shape=None, layout="A", space="global"):
        self.dtype, self.ndim, self.kind, self.shape = dtype, ndim, kind, shape
        # 'C': C-contiguous, strides follow from the shape (the innermost is 1,
        # which lets the C compiler vectorise); 'A': any strides.
        self.layout = layout
        # Where a 'param' array lives: 'global' (a kernel argument), 'local' (a
        # shared array passed to a device function), 'private' (a local one).
        # Only OpenCL C spells it (its pointers name their address space).
        self.space = space

    def key(self):
        return ("A", self.dtype, self.ndim, self.kind, self.shape, self.layout, self.space)

    def __eq__(self, other):
        return isinstance(other, ArrayT) and self.key() == other.key()

    def __hash__(self):
        return hash(self.key())

    def __repr__(self):
        return (f"array({self.dtype}, {self.ndim}d, {self.layout}"
                f"{', ' + self.kind if self.kind != 'param' else ''}"
                f"{', ' + self.space if self.space != 'global' else ''})")

    def as_param(self):
        space = ("local" if self.kind in ("shared", "dynshared") else
                 "private" if self.kind == "local" else self.space)
        return ArrayT(self.dtype, self.ndim, space=space)


def is_array(t):
    return isinstance(t, ArrayT)


_promote_cache = {}


def promote(a, b, weak_a=False, weak_b=False):
    """The result dtype of a binary arithmetic op on a and b (NumPy 2 rules,
    Python literals weak; bool arithmetic as Python: True + True == 2)."""
    key = (a, b, weak_a, weak_b)
    r = _promote_cache.get(key)
    if r is None:
        da = (True if a == "bool" else 0 if a in INTS else 0.0) if weak_a else np.dtype(a)
        db = (True if b == "bool" else 0 if b in INTS else 0.0) if weak_b else np.dtype(b)
        if weak_a and weak_b:
            r = "float64" if "float64" in (a, b) or "float32" in (a, b) else "int64"
        else:
            r = np.result_type(da, db).name
        _promote_cache[key] = r
    return r


def unify(a, b):
    """The type a local takes when assigned values of types a and b."""
    if a == b:
        return a
    if is_array(a) or is_array(b):
        return None
    return np.promote_types(a, b).name


def dtype_name(obj):
    """The kernel-language name of a dtype-like object, or None."""
    try:
        name = np.dtype(obj).name
    except TypeError:
        return None
    return name if name in SCALARS else None
