"""The data-frame benchmark as issue 17 states it: a taxi-like table beside
pandas and Polars.

    python bench/bench_frame_taxi.py [--device DEV] [--rows 1e7] [--repeat R]
                                     [--libs ember,pandas,polars] [--json FILE]

The table (generated with vectorised NumPy, written to CSV once by pyarrow):
``vendor`` int64 of 100 distinct values, ``zone`` int64 of 10^5 distinct
values, four float64 columns (``fare``, ``tip``, ``dist``, ``secs``, two
decimals as a meter prints them), one string column ``pay`` (6 values); the
dimension table has 10^5 rows, each ``zone`` once, with a float ``rate`` and
an int ``borough``.

Steps: read the CSV, filter (fare > 10 and vendor < 50), group-by on one key
(zone: fare sum), on two keys (vendor, zone: fare sum and mean, tip max, dist
count, secs min), the inner join to the dimension table on zone, sort by two
keys (vendor, fare).  Ember runs on --device (default cuda:0 where present,
else the CPU), pandas and Polars on the host (Polars with its own threads).

Times: the median of synchronised wall time after one warm-up call (Ember:
Device.synchronize() after evaluating every pending column); a call that
takes more than --slow seconds is timed once more and not repeated, so a
10^7-row run of pandas fits in a few minutes.  pandas' group-by sorts the
groups; Polars' does not (``maintain_order=False``, its default), Ember's
sorts like pandas.  --json FILE writes the table in bench/plot.py's schema
(nothing by default: a file in bench/results/ needs its place in RESULTS.md,
bench/plot.py --check says).
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_frame import _force, commit, em, pd  # noqa: E402  (also puts python/ on the path)

PAY = np.array(["card", "cash", "no charge", "dispute", "unknown", "voided trip"])


def make_tables(n, seed=17):
    """The taxi table and the dimension table as pyarrow Tables (vectorised:
    10^7 rows in about a second)."""
    import pyarrow as pa
    rng = np.random.default_rng(seed)
    nz = 100_000

    def money(x):
        return np.round(x, 2)

    cols = {
        "vendor": rng.integers(0, 100, n, dtype=np.int64),
        "zone": rng.integers(0, nz, n, dtype=np.int64),
        "fare": money(rng.gamma(2.0, 7.5, n)),
        "tip": money(rng.exponential(2.0, n)),
        "dist": money(rng.gamma(1.5, 2.0, n)),
        "secs": money(rng.gamma(3.0, 300.0, n)),
    }
    codes = rng.integers(0, len(PAY), n).astype(np.int32)
    pay = pa.DictionaryArray.from_arrays(pa.array(codes), pa.array(PAY)).cast(pa.string())
    taxi = pa.table({**{k: pa.array(v) for k, v in cols.items()}, "pay": pay})
    dim = pa.table({"zone": pa.array(rng.permutation(nz).astype(np.int64)),
                    "rate": pa.array(money(rng.uniform(0.5, 3.0, nz))),
                    "borough": pa.array(rng.integers(0, 6, nz, dtype=np.int64))})
    return taxi, dim


# ---- each library's steps: name -> fn(frame, dim, csv path) ---------------------------------

def pandas_steps():
    return {
        "read_csv": lambda df, dim, p: pd.read_csv(p),
        "filter": lambda df, dim, p: df[(df["fare"] > 10.0) & (df["vendor"] < 50)],
        "groupby 1 key: sum": lambda df, dim, p: df.groupby("zone")["fare"].sum(),
        "groupby 2 keys: 5 aggs": lambda df, dim, p: df.groupby(["vendor", "zone"]).agg(
            fare_sum=("fare", "sum"), fare_mean=("fare", "mean"), tip_max=("tip", "max"),
            dist_n=("dist", "count"), secs_min=("secs", "min")),
        "join to dimension": lambda df, dim, p: df.merge(dim, on="zone", how="inner"),
        "sort 2 keys": lambda df, dim, p: df.sort_values(["vendor", "fare"]),
    }


def ember_steps(device):
    steps = pandas_steps()
    steps["read_csv"] = lambda df, dim, p: em.read_csv(p, device=device)
    return {k: (lambda f: lambda *a: _force(f(*a)))(f) for k, f in steps.items()}


def polars_steps():
    import polars as pl
    return {
        "read_csv": lambda df, dim, p: pl.read_csv(p),
        "filter": lambda df, dim, p: df.filter((pl.col("fare") > 10.0) & (pl.col("vendor") < 50)),
        "groupby 1 key: sum": lambda df, dim, p: df.group_by("zone").agg(pl.col("fare").sum()),
        "groupby 2 keys: 5 aggs": lambda df, dim, p: df.group_by(["vendor", "zone"]).agg(
            pl.col("fare").sum().alias("fare_sum"), pl.col("fare").mean().alias("fare_mean"),
            pl.col("tip").max().alias("tip_max"), pl.col("dist").count().alias("dist_n"),
            pl.col("secs").min().alias("secs_min")),
        "join to dimension": lambda df, dim, p: df.join(dim, on="zone", how="inner"),
        "sort 2 keys": lambda df, dim, p: df.sort(["vendor", "fare"], maintain_order=True),
    }


def timed(fn, sync, repeat, slow):
    """Median ms of synchronised calls after a warm-up; one timed call only
    when a call takes more than `slow` seconds."""
    t = time.perf_counter()
    fn()
    sync()
    first = time.perf_counter() - t
    times = []
    for _ in range(1 if first > slow else repeat):
        t = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default=None)
    p.add_argument("--rows", default="1e7")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--slow", type=float, default=1.0,
                   help="seconds above which a call is timed once (default 1)")
    p.add_argument("--libs", default="ember,pandas,polars")
    p.add_argument("--steps", default=None, help="only steps whose name contains TEXT")
    p.add_argument("--json", default="-", help="write the table here (default: nowhere)")
    o = p.parse_args()
    import pyarrow.csv as pacsv
    device = o.device or ("cuda:0" if em.cuda.is_available() else "cpu")
    dev = em.Device(device)
    n = int(float(o.rows))
    libs = o.libs.split(",")
    t0 = time.perf_counter()
    taxi, dim = make_tables(n)
    tmp = tempfile.mkdtemp(prefix="bench_taxi_")
    path = os.path.join(tmp, "taxi.csv")
    pacsv.write_csv(taxi, path)
    print(f"# generated {n:.0e} rows and wrote {os.path.getsize(path) / 1e6:.0f} MB of CSV "
          f"in {time.perf_counter() - t0:.1f} s", flush=True)
    runners = {}
    if "ember" in libs:
        runners["ember"] = (em.DataFrame.from_arrow(taxi, device=device)
                            if hasattr(em.DataFrame, "from_arrow")
                            else em.from_arrow(taxi, device=device),
                            em.from_arrow(dim, device=device), ember_steps(device),
                            dev.synchronize)
    if "pandas" in libs:
        runners["pandas"] = (taxi.to_pandas(), dim.to_pandas(), pandas_steps(), lambda: None)
    if "polars" in libs:
        try:
            import polars as pl
            runners["polars"] = (pl.from_arrow(taxi), pl.from_arrow(dim), polars_steps(),
                                 lambda: None)
        except ImportError as e:
            print(f"  polars: {e}", file=sys.stderr)
    names = list(runners)
    others = [k for k in names if k != "ember"]
    dev_name = device if device == "cpu" else f"{device} ({dev.name})"
    print(f"# bench_frame_taxi {time.strftime('%Y-%m-%d %H:%M')}: {n:.0e} rows, Ember on "
          f"{dev_name}, pandas and Polars on the host ({os.cpu_count()} cores)")
    print(f"{'step':<26}" + "".join(f"{k + ' ms':>13}" for k in names)
          + "".join(f"{k + '/ember':>15}" for k in others if "ember" in names), flush=True)
    rows = []
    try:
        for step in pandas_steps():
            if o.steps and o.steps not in step:
                continue
            ms = {}
            for k in names:
                df, dm, steps, sync = runners[k]
                try:
                    ms[k] = timed(lambda: steps[step](df, dm, path), sync, o.repeat, o.slow)
                except Exception as e:  # a failing step: say so, go on
                    print(f"  {k} {step}: {type(e).__name__}: {e}", file=sys.stderr)
            e = ms.get("ember")
            print(f"{step:<26}" + "".join(f"{ms[k]:>13.2f}" if k in ms else f"{'-':>13}"
                                          for k in names)
                  + "".join(f"{ms[k] / e:>15.2f}" if e and k in ms else f"{'-':>15}"
                            for k in others if "ember" in names), flush=True)
            rows.append([step, n] + [round(ms[k], 3) if k in ms else None
                                     for k in ("ember", "pandas", "polars")])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if o.json != "-":
        vers = [f"Ember {em.__version__}", f"pandas {pd.__version__}",
                f"NumPy {np.__version__}", f"Python {platform.python_version()}"]
        if "polars" in runners:
            import polars as pl
            vers.append(f"Polars {pl.__version__}")
        table = {"title": "Data frames, the taxi benchmark: Ember beside pandas and Polars",
                 "command": "python bench/bench_frame_taxi.py " + " ".join(sys.argv[1:]),
                 "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                 "commit": commit(), "versions": ", ".join(vers),
                 "device": f"Ember on {dev_name}; pandas and Polars on the host CPU "
                           f"({os.cpu_count()} cores)",
                 "unit": "ms", "better": "lower", "ratio": "pandas / Ember",
                 "columns": ["step", "rows", "Ember", "pandas", "Polars"], "rows": rows,
                 "notes": [f"Median of {o.repeat} synchronised calls after a warm-up (one "
                           f"call where a call takes over {o.slow} s). pandas and Ember "
                           "sort the groups; Polars does not."]}
        os.makedirs(os.path.dirname(os.path.abspath(o.json)), exist_ok=True)
        with open(o.json, "w", encoding="utf-8") as f:
            json.dump(table, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"# wrote {o.json}")


if __name__ == "__main__":
    main()
