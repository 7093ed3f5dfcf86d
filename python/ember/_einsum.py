"""einsum on CUDA: each pair of operands becomes one batched cuBLAS gemm.

The plan is NumPy's own reduction of a two-operand contraction: labels only
one operand needs are summed out first; the rest are batch labels (in both
operands and the output), left and right free labels (one operand and the
output) and contracted labels (both operands, not the output).  Each operand
is permuted to (batch, free, contracted) and reshaped to a stack of
matrices, the product runs in cuBLAS, and the result is reshaped and
permuted to the output order.  More than two operands contract left to right.
What the plan does not cover -- an ellipsis, a repeated label within one
operand (a diagonal), labels whose sizes differ between operands (size-1
broadcasting), integer or bool dtypes -- returns None, and the caller runs
NumPy's einsum on the host."""

_LETTERS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _parse(subscripts, nops):
    """(input label strings, output label string), or None if unsupported."""
    if not isinstance(subscripts, str) or "." in subscripts:
        return None
    s = subscripts.replace(" ", "")
    if "->" in s:
        ins, out = s.split("->", 1)
    else:
        ins = s
        counts = {}
        for c in ins.replace(",", ""):
            counts[c] = counts.get(c, 0) + 1
        out = "".join(sorted(c for c, k in counts.items() if k == 1))
    ins = ins.split(",")
    if len(ins) != nops or any(set(t) - _LETTERS for t in ins + [out]):
        return None
    if any(len(set(t)) != len(t) for t in ins + [out]) or set(out) - set("".join(ins)):
        return None
    return ins, out


def _sum_out(x, labels, keep):
    """x with the axes whose labels are not in keep summed away."""
    axes = tuple(i for i, c in enumerate(labels) if c not in keep)
    if not axes:
        return x, labels
    from ._reductions import sum as _sum
    return _sum(x, axis=axes), "".join(c for c in labels if c in keep)


def _pair(a, la, b, lb, lo):
    """The contraction of a (labels la) and b (lb) with output labels lo, or None."""
    from ._manipulation import permute_dims
    from .linalg import _cuda_matmul
    a, la = _sum_out(a, la, set(lb) | set(lo))
    b, lb = _sum_out(b, lb, set(la) | set(lo))
    size = {}
    for x, lab in ((a, la), (b, lb)):
        for c, n in zip(lab, x.shape):
            if size.setdefault(c, n) != n:
                return None  # size-1 broadcasting: NumPy's path
    batch = [c for c in lo if c in la and c in lb]
    left = [c for c in lo if c in la and c not in lb]
    right = [c for c in lo if c in lb and c not in la]
    con = [c for c in la if c in lb and c not in lo]

    def prod(cs):
        n = 1
        for c in cs:
            n *= size[c]
        return n
    a3 = permute_dims(a, [la.index(c) for c in batch + left + con]).reshape(
        (prod(batch), prod(left), prod(con)))
    b3 = permute_dims(b, [lb.index(c) for c in batch + con + right]).reshape(
        (prod(batch), prod(con), prod(right)))
    r = _cuda_matmul(a3, b3)
    if r is None:
        return None
    order = batch + left + right
    r = r.reshape(tuple(size[c] for c in order))
    return permute_dims(r, [order.index(c) for c in lo])


def cuda_einsum(subscripts, operands):
    """einsum of CUDA ember arrays on the device, or None for NumPy's path."""
    parsed = _parse(subscripts, len(operands))
    if parsed is None or not operands:
        return None
    ins, out = parsed
    if any(len(t) != x.ndim for t, x in zip(ins, operands)):
        return None  # NumPy raises the right error
    from ._dtypes import result_type
    if result_type(*operands).char not in "efdFD":
        return None
    if len(operands) == 1:
        from ._manipulation import permute_dims
        x, lab = _sum_out(operands[0], ins[0], set(out))
        return permute_dims(x, [lab.index(c) for c in out])
    x, lx = operands[0], ins[0]
    for k in range(1, len(operands)):
        later = set("".join(ins[k + 1:])) | set(out)
        ly = ins[k]
        # Keep what later operands or the output need, in a stable order.
        lo = "".join(dict.fromkeys(c for c in lx + ly if c in later))
        x = _pair(x, lx, operands[k], ly, lo)
        if x is None:
            return None
        lx = lo
    from ._manipulation import permute_dims
    return permute_dims(x, [lx.index(c) for c in out])
