"""Compare two runs of the same benchmark, line by line: for every row whose
label appears in both logs, each numeric cell's new/base ratio.

    python tools/bench_compare.py BASE.log NEW.log [--tol 0.03]

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
    b, n = rows(a.base), rows(a.new)
    print("| row | column | base | new | new/base |")
    print("|---|---|---|---|---|")
    for k, (cols, bv) in b.items():
        if k not in n:
            continue
        label = f"{k[0][:20]}: {k[1]}" if k[0] else k[1]
        for c, x, y in zip(cols, bv, n[k][1]):
            if x is None or y is None or x == 0:
                continue
            r = y / x
            flag = " **" if abs(r - 1) > a.tol else ""
            print(f"| {label} | {c} | {x:g} | {y:g} | {r:.3f}{flag} |")


if __name__ == "__main__":
    main()
