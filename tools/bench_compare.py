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
    out, head = {}, []
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if not line.strip():
            continue
        label, rest = line[:24].strip(), line[24:].split()
        if len(line) > 24 and line[:24].strip() == "" and rest and not any(NUM.match(t) for t in rest):
            head = rest  # a header line: column names
            continue
        toks = line.split()
        if line.startswith(("cpu ", "gpu ")) and len(toks) == 3 and NUM.match(toks[2]):
            out[f"{toks[0]} {toks[1]}"] = (["value"], [float(toks[2])])
            continue
        if label and rest and all(NUM.match(t) or t == "-" for t in rest):
            out[label] = (head or [str(i) for i in range(len(rest))],
                          [float(t) if NUM.match(t) else None for t in rest])
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
        for c, x, y in zip(cols, bv, n[k][1]):
            if x is None or y is None or x == 0:
                continue
            r = y / x
            flag = " **" if abs(r - 1) > a.tol else ""
            print(f"| {k} | {c} | {x:g} | {y:g} | {r:.3f}{flag} |")


if __name__ == "__main__":
    main()
