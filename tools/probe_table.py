"""Tables from tools/probe_gpu_rows.py / probe_cpu_rows.py JSON lines (each
process's one line, several trees' processes in one file): one
column per tag (tree) in order of first appearance, each cell the best of
the tag's runs (smallest time; largest for /s rows) with every run after it;
a last column per tag after the first: its best over the first tag's best.
  python3 tools/probe_table.py FILE.jsonl [...]"""
import json
import sys


def main():
    for path in sys.argv[1:]:
        runs = {}
        try:
            lines = open(path).read().splitlines()
        except OSError as e:
            print(f"{path}: {e}")
            continue
        for ln in lines:
            try:
                d = json.loads(ln)
            except ValueError:
                continue
            runs.setdefault(d["tag"], []).append(d)
        tags = list(runs)
        if not tags:
            continue
        keys = []
        for t in tags:
            for d in runs[t]:
                keys += [k for k in d["rows"] if k not in keys]
        print(f"\n== {path}: best of each tag's runs (then every run); ratio to {tags[0]}")
        print(f"{'row':34s}" + "".join(f"{t:>26s}" for t in tags))
        for k in keys:
            up = "/s" in k
            cells, bests = [], []
            for t in tags:
                vs = [d["rows"][k] for d in runs[t] if k in d["rows"]]
                if not vs:
                    cells.append(f"{'-':>26s}")
                    bests.append(None)
                    continue
                b = max(vs) if up else min(vs)
                bests.append(b)
                every = "/".join(f"{v:.3g}" for v in vs)
                cells.append(f"{b:9.3f} ({every})"[:25].rjust(26))
            ratio = ""
            if bests[0]:
                ratio = "  " + " ".join(f"{b / bests[0]:.3f}" if b else "-" for b in bests[1:])
            print(f"{k:34s}" + "".join(cells) + ratio)
        for t in tags:
            for d in runs[t]:
                if d.get("notes"):
                    print(f"  {t}: {json.dumps(d['notes'])[:300]}")


if __name__ == "__main__":
    main()
