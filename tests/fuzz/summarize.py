"""Markdown tables from campaign counts (run.py --out), for docs/fuzzing.md:

    python tests/fuzz/summarize.py fuzz_logs/cpu.json fuzz_logs/asan.json ...

Known/new is recomputed against the current expectations file."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from run import known, load_expectations  # noqa: E402

ORDER = ["ok", "crash", "sanitizer", "timeout", "ember_raises", "ember_returns", "wrong_shape",
         "wrong_dtype", "wrong_value", "limit"]


def main(paths):
    runs = [(os.path.basename(p).rsplit(".", 1)[0], json.load(open(p))) for p in paths]
    # known per the runs' devices ("on cuda" lines hold for CUDA runs only)
    pats = [q for dev in sorted({d.get("device", "cpu") for _, d in runs} or {"cpu"})
            for q in load_expectations(os.path.join(HERE, "expectations.txt"), dev)[0]]
    print("| run | cases | seconds | " + " | ".join(ORDER) + " |")
    print("| --- " * (len(ORDER) + 3) + "|")
    for name, d in runs:
        c = d["classes"]
        print("| %s (%s, seed %d, %d thread%s) | %d | %d | %s |" % (
            name, d["device"], d["seed"], d["threads"], "s" if d["threads"] > 1 else "",
            d["cases"], d["seconds"], " | ".join(str(c.get(k, 0)) for k in ORDER)))
    sigs = {}
    for name, d in runs:
        for s, v in d["signatures"].items():
            e = sigs.setdefault(s, {"count": 0, "seed": v["seed"], "runs": []})
            e["count"] += v["count"]
            e["runs"].append(name)
    print()
    print("| signature | cases | known | first seed |")
    print("| --- | --- | --- | --- |")
    for s, v in sorted(sigs.items(), key=lambda kv: (-kv[1]["count"], kv[0])):
        print("| `%s` | %d | %s | %d |" % (s, v["count"], "yes" if known(s, pats) and
                                          s.split(":")[0] not in ("crash", "timeout",
                                                                  "sanitizer") else "**no**",
                                          v["seed"]))


if __name__ == "__main__":
    main(sys.argv[1:])
