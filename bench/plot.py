"""The results page from its data: bench/results/*.json -> the tables of
bench/RESULTS.md and the plots in bench/plots/.

Each file in bench/results/ is one benchmark's latest run: title, command,
date, device, versions, the commit that recorded it, columns and rows (a value
is a number, a [low, high] range, a string, or null for "not measured").
RESULTS.md holds each table between `<!-- table: NAME -->` and
`<!-- /table: NAME -->`; everything outside the markers is prose kept as is.

    python bench/plot.py              rewrite the tables in RESULTS.md and the PNGs
    python bench/plot.py --check      exit 1 if RESULTS.md's tables are not the JSON's
    python bench/plot.py --no-plots   tables only (no matplotlib needed)
    python bench/plot.py --import-run FILE
                                      make results/cpu_numpy.json from the JSON that
                                      `python bench/run.py --json FILE` wrote, then
                                      rewrite as above

To replace one table: rerun its command (bench/README.md), put the numbers in
its JSON file (date, device and versions too), run this script, commit all three.
"""
import argparse
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS_DIR = os.path.join(HERE, "results")
PAGE = os.path.join(HERE, "RESULTS.md")
PLOTS = os.path.join(HERE, "plots")
TIME_UNITS = {"s": 1.0, "ms": 1e-3, "µs": 1e-6}


def load():
    tables = {}
    for path in sorted(glob.glob(os.path.join(RESULTS_DIR, "*.json"))):
        with open(path, encoding="utf-8") as f:
            tables[os.path.splitext(os.path.basename(path))[0]] = json.load(f)
    return tables


# ---- the tables -------------------------------------------------------------

def fmt_num(v):
    if isinstance(v, int):
        return str(v)
    return f"{v:.4g}" if abs(v) < 1e4 else f"{v:.0f}"


def fmt_time(seconds):
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale or unit == "µs":
            return f"{seconds / scale:.4g} {unit}"


def fmt(v, time_unit=None):
    if isinstance(v, int) and v >= 10 ** 4 and v == 10 ** (len(str(v)) - 1):
        return f"1e{len(str(v)) - 1}"  # sizes: 1e6, not 1000000
    if v is None:
        return "–"
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        return "–".join(fmt(x, time_unit) for x in v)
    if time_unit:
        return fmt_time(v * TIME_UNITS[time_unit])
    return fmt_num(v)


def mid(v):
    """A number for plots and ratios: the midpoint of a range."""
    if isinstance(v, list):
        return (v[0] + v[1]) / 2
    return v if isinstance(v, (int, float)) else None


def render(t):
    """One table as Markdown: its header lines, the table, its notes."""
    out = [f"Date: {t['date']} · Device: {t['device']} · Versions: {t['versions']}  ",
           f"Command: `{t['command']}` · Recorded in commit {t['commit']}", ""]
    cols = list(t["columns"])
    ratio = t.get("ratio")
    time_unit = t["unit"] if t.get("unit") in TIME_UNITS and "unit" not in cols else None
    if ratio:
        cols.append(ratio)
    if t.get("unit") and "unit" not in cols and not time_unit:
        cols = [cols[0]] + [f"{c} ({t['unit']})" for c in cols[1:]]
    out.append("| " + " | ".join(cols) + " |")
    out.append("|" + "---|" * len(cols))
    for row in t["rows"]:
        cells = []
        for i, v in enumerate(row):
            is_value = isinstance(v, (int, float, list)) and t["columns"][i] not in ("size",)
            cells.append(fmt(v, time_unit if is_value else None))
        if ratio:
            num, den = (t["columns"].index(c.strip()) for c in ratio.split("/"))
            a, b = mid(row[num]), mid(row[den])
            cells.append(f"**{a / b:.2f}**" if a and b else "–")
        out.append("| " + " | ".join(cells) + " |")
    if t.get("notes"):
        out.append("")
        out.extend(f"- {n}" for n in t["notes"])
    return "\n".join(out)


MARK = re.compile(r"(<!-- table: (\w+) -->\n)(.*?)(<!-- /table: \2 -->)", re.S)


def rewrite(page, tables):
    seen = set()

    def sub(m):
        name = m.group(2)
        if name not in tables:
            sys.exit(f"RESULTS.md names a table '{name}' with no bench/results/{name}.json")
        seen.add(name)
        return m.group(1) + render(tables[name]) + "\n" + m.group(4)

    new = MARK.sub(sub, page)
    missing = set(tables) - seen
    if missing:
        sys.exit(f"tables with no place in RESULTS.md: {', '.join(sorted(missing))} "
                 "(add <!-- table: NAME --><!-- /table: NAME --> where each belongs)")
    return new


# ---- importing bench/run.py's JSON -----------------------------------------

def import_run(path):
    with open(path, encoding="utf-8") as f:
        run = json.load(f)
    pairs = {}
    for r in run["records"]:
        if r["seconds"] is None:
            continue
        key = (r["group"], r["case"], r["size"], r["dtype"] or "")
        pairs.setdefault(key, {})[r["lib"]] = r["seconds"] * 1e6
    rows = [[g, c, s, d, round(v["numpy"], 2), round(v["ember"], 2)]
            for (g, c, s, d), v in pairs.items() if "numpy" in v and "ember" in v]
    dst = os.path.join(RESULTS_DIR, "cpu_numpy.json")
    with open(dst, encoding="utf-8") as f:
        old = json.load(f)
    old.update(rows=rows, date=run.get("date", old["date"]), commit="(fill in)",
               notes=["Imported from bench/run.py --json; check the device and versions lines."])
    if "numpy" in run:
        old["versions"] = re.sub(r"NumPy [\d.]+", f"NumPy {run['numpy']}", old["versions"])
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(old, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {dst}: {len(rows)} rows; fill in its commit, device and versions")


# ---- the plots --------------------------------------------------------------

COLORS = {"Ember": "#d9480f", "NumPy": "#4c6ef5", "CuPy": "#37b24d", "PyTorch": "#ae3ec9",
          "JAX jit": "#1c7ed6"}


def plot_cpu(tables, plt):
    fusion, ops = tables["cpu_fusion"], tables["cpu_numpy"]
    labels, ratios, colors = [], [], []
    for row in fusion["rows"]:
        name = "seed 004" if "seed 004" in row[0] else row[0].split(",")[0]
        labels.append(f"fused: {name}, {row[0].split()[-1]}")
        ratios.append(row[2] / row[1])
        colors.append(COLORS["Ember"])
    for g, case, size, dtype, np_us, em_us in ops["rows"]:
        if size == 10 ** 7 and dtype in ("float32",) or (g == "indexing" and size == 10 ** 7):
            labels.append(f"{case} ({dtype or 'cast'}, 1e7)")
            ratios.append(np_us / em_us)
            colors.append("#868e96")
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(labels) + 1.4))
    y = range(len(labels))[::-1]
    ax.barh(list(y), ratios, color=colors)
    ax.axvline(1.0, color="black", lw=0.8)
    ax.set_yticks(list(y), labels, fontsize=8)
    ax.set_xlabel("NumPy time / Ember time  (> 1: Ember faster)")
    for yi, r in zip(y, ratios):
        ax.text(r + 0.05, yi, f"{r:.1f}×", va="center", fontsize=7)
    ax.set_title(f"Ember vs NumPy on the CPU: 2-core VM, {fusion['date'][:10]}\n"
                 "(orange: fused expressions; grey: single operations, 1e7 elements)", fontsize=9)
    fig.tight_layout()
    return fig


def grouped(ax, rows, libs, cols, value_col_of, title, ylabel, log=False):
    import numpy as np
    n = len(libs)
    width = 0.8 / n
    for k, lib in enumerate(libs):
        xs, hs = [], []
        for i, row in enumerate(rows):
            v = mid(row[value_col_of(lib)])
            if v is None:
                ax.text(i + (k - (n - 1) / 2) * width, 0, f" {lib}: not recorded", ha="center",
                        va="bottom", fontsize=6, rotation=90)
                continue
            xs.append(i + (k - (n - 1) / 2) * width)
            hs.append(v)
        ax.bar(xs, hs, width, label=lib, color=COLORS.get(lib))
    ax.set_xticks(np.arange(len(rows)), [cols(r) for r in rows], fontsize=7)
    ax.set_title(title, fontsize=9)
    ax.set_ylabel(ylabel, fontsize=8)
    if log:
        ax.set_yscale("log")


def plot_gpu(tables, plt):
    fus, std, small = tables["gpu_fusion"], tables["gpu_bench"], tables["gpu_small_ops"]
    fig, axes = plt.subplots(1, 4, figsize=(17, 4.4))

    libs = ["Ember", "CuPy", "PyTorch", "JAX jit"]
    rows = [r for r in fus["rows"] if r[1] == "ms"]
    short = {0: "seed 004\nfloat32", 1: "seed 004\nfloat64", 2: "8-op chain\n2^24 float32"}
    grouped(axes[0], rows, libs, lambda r: short[fus["rows"].index(r)],
            lambda lib: fus["columns"].index(lib),
            "Fused expressions (lower is better)", "ms")

    libs3 = ["Ember", "CuPy", "PyTorch"]
    names = {"`a + b`, 2^26 float32": "a + b", "`sum`, 2^28 float32": "sum",
             "device-to-device copy, 2^26 float32": "copy",
             "host -> device, pageable, 256 MiB": "host→device\npageable",
             "device -> host, pageable, 256 MiB": "device→host\npageable",
             "host <-> device, pinned, 256 MiB": "pinned\n(either way)"}
    gb = [r for r in std["rows"] if r[1] == "GB/s"]
    dev = [r for r in gb if "host" not in r[0]]
    host = [r for r in gb if "host" in r[0]]
    for ax, rows_, title in ((axes[1], dev, "Device memory bandwidth (higher is better)"),
                             (axes[2], host, "Host <-> device copies (higher is better)")):
        grouped(ax, rows_, libs3, lambda r: names.get(r[0], r[0]), lambda lib: std["columns"].index(lib),
                title, "GB/s")

    srows = [r for r in small["rows"] if r[3] is not None]
    grouped(axes[3], srows, libs3, lambda r: r[0].replace("`", "").split(" / ")[0],
            lambda lib: small["columns"].index(lib),
            "Host time per small op, 1000 float32\n(lower is better)", "µs")
    axes[0].legend(fontsize=8)
    axes[1].legend(fontsize=8)
    fig.suptitle(f"Ember vs CuPy, PyTorch and JAX on an NVIDIA H100 ({fus['date'][:10]} – "
                 f"{std['date'][:10]})", fontsize=11)
    fig.tight_layout()
    return fig


def plots(tables):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(PLOTS, exist_ok=True)
    for name, make in (("cpu_vs_numpy", plot_cpu), ("h100_vs_others", plot_gpu)):
        fig = make(tables, plt)
        path = os.path.join(PLOTS, name + ".png")
        # No timestamp in the file: the same data gives the same bytes.
        fig.savefig(path, dpi=80, metadata={"Software": None})
        plt.close(fig)
        print("wrote", os.path.relpath(path))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--import-run", metavar="FILE")
    a = ap.parse_args(argv)
    if a.import_run:
        import_run(a.import_run)
    tables = load()
    with open(PAGE, encoding="utf-8") as f:
        page = f.read()
    new = rewrite(page, tables)
    if a.check:
        if new != page:
            sys.exit("bench/RESULTS.md is not what bench/results/*.json give: run python bench/plot.py")
        print("bench/RESULTS.md matches bench/results/*.json")
        return
    if new != page:
        with open(PAGE, "w", encoding="utf-8") as f:
            f.write(new)
        print("wrote bench/RESULTS.md")
    if not a.no_plots:
        plots(tables)


if __name__ == "__main__":
    main()
