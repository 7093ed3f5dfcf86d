"""Data frames: Ember frames on one device beside pandas on the CPU (and
cuDF where it imports).

    python bench/bench_frame.py [--device DEV] [--sizes 1e6,1e7] [--quick]
                                [--repeat R] [--json FILE] [--filter TEXT]

Rows, at 10^6 and 10^7 rows (--quick: 10^5 rows, 3 repeats): read_csv of a
generated file (written once to a temporary directory), a filter by a mask,
assign of a 3-op column expression, sort_values on one and on two keys,
group-by on one int key (sum, mean), on two keys with several aggregations
and on a string key, an inner merge on an int key (the right side 10% of the
left), drop_duplicates, value_counts, str.len and str.contains.

The data: k1 int64 in [0, n/10) (dense), k2 int64 in [0, 100), x and y
float64 (normal, 1% NaN in y), s a string key of 1000 distinct values
("key_0" ...); the merge's right side has n/10 rows, each k1 value once,
with a float column z.  Ember runs on --device (default: cuda:0 where
present, else the CPU); pandas on the CPU.  Times are medians of
synchronised wall time (Ember: Device.synchronize(), which also evaluates
pending arrays; cuDF: cupy's device synchronise) after a warm-up call.  The
table gives milliseconds and pandas' (and cuDF's) time over Ember's
(> 1: Ember is faster); '-' where a library is absent or failed (the error
goes to stderr).  The JSON (bench/plot.py's schema, table "frame") goes to
bench/results/frame.json unless --json says otherwise (--json - : none).
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import ember as em
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
    import ember as em

import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))


def median_ms(fn, sync, repeat):
    fn()  # warm-up: compiles kernels, fills pools
    sync()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def make_data(n, seed=7):
    """The left table (a pandas DataFrame) and the merge's right side."""
    rng = np.random.default_rng(seed)
    nk = max(n // 10, 1)
    y = rng.standard_normal(n)
    y[rng.random(n) < 0.01] = np.nan
    words = np.array([f"key_{i}" for i in range(1000)], dtype=object)
    left = pd.DataFrame({
        "k1": rng.integers(0, nk, n).astype(np.int64),
        "k2": rng.integers(0, 100, n).astype(np.int64),
        "x": rng.standard_normal(n),
        "y": y,
        "s": pd.array(words[rng.integers(0, 1000, n)], dtype="str"),
    })
    right = pd.DataFrame({"k1": rng.permutation(nk).astype(np.int64),
                          "z": rng.standard_normal(nk)})
    return left, right


def write_csv(pdf, path):
    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv
        pacsv.write_csv(pa.Table.from_pandas(pdf, preserve_index=False), path)
    except ImportError:
        pdf.to_csv(path, index=False)


# ---- the rows: name -> fn(lib, df, right, csv path) ---------------------------------------

def _mask(df):
    return df[(df["x"] > 0.5) & (df["k2"] < 50)]


def _assign(df):
    return df.assign(w=(df["x"] * 2.0 + df["y"]) / 3.0)


ROWS = [
    ("read_csv", lambda m, df, r, p: m.read_csv(p)),
    ("filter by a mask", lambda m, df, r, p: _mask(df)),
    ("assign (x*2 + y) / 3", lambda m, df, r, p: _assign(df)),
    ("sort_values x", lambda m, df, r, p: df.sort_values("x")),
    ("sort_values [k2, x]", lambda m, df, r, p: df.sort_values(["k2", "x"])),
    ("groupby k1: x sum", lambda m, df, r, p: df.groupby("k1")["x"].sum()),
    ("groupby k1: x mean", lambda m, df, r, p: df.groupby("k1")["x"].mean()),
    ("groupby [k2, k1]: agg x sum/mean/max, y count/min",
     lambda m, df, r, p: df.groupby(["k2", "k1"]).agg(
         {"x": ["sum", "mean", "max"], "y": ["count", "min"]})),
    ("groupby s (string): x sum", lambda m, df, r, p: df.groupby("s")["x"].sum()),
    ("merge inner on k1 (right 10%)", lambda m, df, r, p: df.merge(r, on="k1", how="inner")),
    ("drop_duplicates [k2, s]", lambda m, df, r, p: df.drop_duplicates(["k2", "s"])),
    ("value_counts k1", lambda m, df, r, p: df["k1"].value_counts()),
    ("str.len", lambda m, df, r, p: df["s"].str.len()),
    ("str.contains '_12'", lambda m, df, r, p: df["s"].str.contains("_12", regex=False)),
]


def _force(obj):
    """Evaluate every pending array of an Ember result (columns and index), so
    a lazy (fused) column is timed with its kernel, not as a promise."""
    from ember.frame import RangeIndex
    cols = list(obj._cols.values()) if hasattr(obj, "_cols") else [obj._col]
    index = getattr(obj, "index", None)
    if index is not None and not isinstance(index, RangeIndex):
        cols += list(index.levels)
    arrs = [a for c in cols for a in (c.data, c.offsets, c.validity)
            if isinstance(a, em.ndarray)]
    if arrs:
        em.eval(*arrs)
    return obj


def libraries(device):
    """name -> (module with read_csv, to_lib(pandas frame), synchronise)."""
    dev = em.Device(device)
    libs = {"ember": (em, lambda pdf: em.DataFrame.from_pandas(pdf, device=device),
                      dev.synchronize),
            "pandas": (pd, lambda pdf: pdf, lambda: None)}
    try:
        import cudf
        import cupy
        libs["cudf"] = (cudf, cudf.from_pandas, cupy.cuda.runtime.deviceSynchronize)
    except Exception:
        pass
    return libs, dev


def read_csv_for(name, device):
    if name == "ember":
        return lambda m, df, r, p: em.read_csv(p, device=device)
    return None


def versions():
    out = [f"Ember {em.__version__}", f"pandas {pd.__version__}", f"NumPy {np.__version__}",
           f"Python {platform.python_version()}"]
    try:
        import pyarrow
        out.append(f"pyarrow {pyarrow.__version__}")
    except ImportError:
        pass
    try:
        import cudf
        out.append(f"cuDF {cudf.__version__}")
    except Exception:
        pass
    return ", ".join(out)


def commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE,
                              capture_output=True, text=True, check=True).stdout.strip()
    except Exception:
        return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default=None, help="Ember's device (default: cuda:0 if any)")
    p.add_argument("--sizes", default="1e6,1e7", help="row counts, comma-separated")
    p.add_argument("--quick", action="store_true", help="10^5 rows, 3 repeats")
    p.add_argument("--repeat", type=int, default=None, help="timed calls per cell (7)")
    p.add_argument("--filter", default=None, help="only rows whose name contains TEXT")
    p.add_argument("--json", default=os.path.join(HERE, "results", "frame.json"),
                   help="where to write the table ('-': nowhere)")
    o = p.parse_args()
    device = o.device or ("cuda:0" if em.cuda.is_available() else "cpu")
    sizes = [10 ** 5] if o.quick else [int(float(s)) for s in o.sizes.split(",")]
    repeat = o.repeat or (3 if o.quick else 7)
    libs, dev = libraries(device)
    names = list(libs)
    others = [n for n in ("pandas", "cudf") if n != "ember"]
    dev_name = device if device == "cpu" else f"{device} ({dev.name})"
    print(f"# bench_frame {time.strftime('%Y-%m-%d %H:%M')}: Ember on {dev_name}, pandas on "
          f"the CPU ({os.cpu_count()} cores), median of {repeat}")
    head = f"{'row':<52}{'rows':>9}" + "".join(f"{n + ' ms':>12}" for n in ["ember"] + others)
    head += "".join(f"{n + '/ember':>14}" for n in others)
    print(head)
    rows = []
    tmp = tempfile.mkdtemp(prefix="bench_frame_")
    try:
        for n in sizes:
            left, right = make_data(n)
            path = os.path.join(tmp, f"frame_{n}.csv")
            write_csv(left, path)
            data = {}
            for name in names:
                mod, put, _ = libs[name]
                try:
                    data[name] = (put(left), put(right))
                except Exception as e:
                    print(f"  {name} n={n}: cannot load: {type(e).__name__}: {e}",
                          file=sys.stderr)
            for row, fn in ROWS:
                if o.filter and o.filter not in row:
                    continue
                ms = {}
                for name in names:
                    if name not in data:
                        continue
                    mod, _, sync = libs[name]
                    df, r = data[name]
                    f = (read_csv_for(name, device) or fn) if row == "read_csv" else fn
                    if name == "ember":
                        f = (lambda g: lambda *a: _force(g(*a)))(f)
                    try:
                        ms[name] = median_ms(lambda: f(mod, df, r, path), sync, repeat)
                    except Exception as e:  # a missing op: say so, go on
                        print(f"  {name} {row} n={n}: {type(e).__name__}: {e}",
                              file=sys.stderr)
                e = ms.get("ember")
                line = f"{row:<52}{n:>9.0e}" + "".join(
                    f"{ms[k]:>12.2f}" if k in ms else f"{'-':>12}" for k in ["ember"] + others)
                line += "".join(f"{ms[k] / e:>14.2f}" if e and k in ms else f"{'-':>14}"
                                for k in others)
                print(line, flush=True)
                rows.append([row, n] + [round(ms[k], 3) if k in ms else None
                                        for k in ["ember"] + others])
            del data
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if o.json != "-":
        cmd = "python bench/bench_frame.py " + " ".join(sys.argv[1:])
        table = {
            "title": "Data frames: Ember beside pandas (and cuDF)",
            "command": cmd.strip(),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "commit": commit(),
            "device": f"Ember on {dev_name}; pandas on the host CPU ({os.cpu_count()} cores)"
                      + ("" if "cudf" in libs else "; cuDF not importable"),
            "versions": versions(),
            "unit": "ms",
            "better": "lower",
            "ratio": "pandas / Ember",
            "columns": ["row", "size", "Ember", "pandas", "cuDF"],
            "rows": rows,
            "notes": [f"Median of {repeat} synchronised calls after a warm-up; the ratio is "
                      "pandas' time over Ember's (> 1: Ember faster). '–': not measured "
                      "(library absent or the row failed)."]
            + (["A --quick run (10^5 rows, 3 repeats): proof that the script runs, not a "
                "measurement."] if o.quick else []),
        }
        os.makedirs(os.path.dirname(os.path.abspath(o.json)), exist_ok=True)
        with open(o.json, "w", encoding="utf-8") as f:
            json.dump(table, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"# wrote {o.json}")


if __name__ == "__main__":
    main()
