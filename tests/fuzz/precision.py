"""The ULP bounds of docs/precision.md, as the fuzzer's tolerances.

The table between the doc's `<!-- ulp-table -->` markers is the one source: each row names
functions, dtypes and a bound per device (cpu, cuda, opencl), so the bound the fuzzer
checks is the documented one.  bound(fn, dtype, device) is 0 for a function the table does
not list (an exact operation)."""
import os

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                   "precision.md")
DEVICES = ("cpu", "cuda", "opencl")


def _load(path=DOC):
    table, inside = {}, False
    with open(path) as f:
        for line in f:
            if line.startswith("<!-- ulp-table -->"):
                inside = True
                continue
            if line.startswith("<!-- /ulp-table -->"):
                break
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not inside or len(cells) != 2 + len(DEVICES) or not cells[2][:1].isdigit():
                continue  # the header, its rule, or prose
            bounds = dict(zip(DEVICES, (float(c) for c in cells[2:])))
            for fn in cells[0].split(","):
                for dt in cells[1].split(","):
                    key = (fn.strip(), dt.strip())
                    if key in table:
                        raise ValueError("docs/precision.md lists %s twice" % (key,))
                    table[key] = bounds
    if not table:
        raise ValueError("no ULP table in " + path)
    return table


TABLE = _load()


def bound(fn, dtype, device="cpu"):
    """ULP bound of fn with a result of dtype (a name: 'float32' ...) on device ('cpu',
    'cuda:0', 'opencl:0' ...); 0 where the table has no row (exact)."""
    row = TABLE.get((fn, dtype))
    if row is None:
        return 0
    kind = (device or "cpu").split(":")[0]
    return row.get(kind, row["cpu"])
