"""Compare runs of the same benchmark on two trees, line by line: for every
row whose label appears in both, each numeric cell's new/base ratio.

    python tools/bench_compare.py BASE.log NEW.log [--tol 0.03]
    python tools/bench_compare.py BASE1.log,BASE2.log NEW1.log,NEW2.log

With several logs a side (tools/gpu_compare.sh runs base, new, new, base:
a drift of the machine over the call, such as a host whose memory
bandwidth or huge pages change between processes, then weighs on both
sides alike), a cell is the mean of its runs, and the "spread" column is
the largest difference between two runs of the same tree over their mean:
a ratio within the spread is not a change of the code.

Rows are the tables the benchmarks print (a label, then numbers); the column
names come from the last header line above a row.  Flags a cell whose ratio
moved more than --tol in either direction (the reader knows whether the row
is a time or a rate).  Prints a Markdown table."""
import argparse
import re

NUM = re.compile(r"^-?\d+(\.\d+)?$")


def rows(path):
    """{(section, label): (columns, values)}: a table row is a 24-character
    label and 14-character cells; any other line names the section."""
    out, head, section = {}, [], ""
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if not line.strip():
            continue
        toks = line.split()
        if line.startswith(("cpu ", "gpu ")) and len(toks) >= 3 and NUM.match(toks[-1]):
            out[(toks[0], " ".join(toks[1:-1]))] = (["value"], [float(toks[-1])])
            continue
        label = line[:24].strip()
        cells = [line[i:i + 14].strip() for i in range(24, len(line), 14)]
        if not label and cells and not any(NUM.match(c) for c in cells):
            head = cells  # column names
            continue
        if not cells or line.startswith("  "):  # a title, or the ratio lines under a table
            if not line.startswith("  "):
                section = line.strip()
            continue
        vals = [float(c) if NUM.match(c) else None for c in cells]
        if all(v is None for v in vals):
            section = line.strip()  # a title that reached past column 24
            continue
        out[(section, label)] = (head or [str(i) for i in range(len(cells))], vals)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--tol", type=float, default=0.03)
    a = ap.parse_args()
    bs = [rows(p) for p in a.base.split(",")]
    ns = [rows(p) for p in a.new.split(",")]
    print("| row | column | base | new | new/base | spread |")
    print("|---|---|---|---|---|---|")
    for k, (cols, _) in bs[0].items():
        if not all(k in r for r in bs + ns):
            continue
        label = f"{k[0][:20]}: {k[1]}" if k[0] else k[1]
        for j, c in enumerate(cols):
            xs = [r[k][1][j] if j < len(r[k][1]) else None for r in bs]
            ys = [r[k][1][j] if j < len(r[k][1]) else None for r in ns]
            if None in xs or None in ys or 0 in xs:
                continue
            x, y = sum(xs) / len(xs), sum(ys) / len(ys)
            r = y / x
            spread = max((max(v) - min(v)) / (sum(v) / len(v)) if sum(v) else 0 for v in (xs, ys))
            flag = " **" if abs(r - 1) > a.tol and abs(r - 1) > spread else ""
            print(f"| {label} | {c} | {x:g} | {y:g} | {r:.3f}{flag} | {spread:.3f} |")


if __name__ == "__main__":
    main()
