"""Ember's differential fuzzer against NumPy: the campaign runner.

    python tests/fuzz/run.py --cases 2000 --seed 1            a campaign on the CPU
    python tests/fuzz/run.py --device cuda:0 --out gpu.json   the same with CUDA arrays
    python tests/fuzz/run.py --threads 8 ...                  eight cases at once per child
    python tests/fuzz/run.py --case 1000003                   one case: its program and result
    python tests/fuzz/run.py --case 1000003 --shrink          ... and a minimal reproducer

Cases run in child processes (child.py), --batch cases each, --jobs children at a time; a
child that dies is a "crash" (or "sanitizer" when ASan/UBSan reported) of the case it was
running, one that stops reporting for --timeout seconds a "timeout", and the campaign goes on
with a fresh child.  Each failure has a signature "class:operation[:exception]"; those
matching a pattern in the expectations file (--expect, default expectations.txt beside this
file) are known.  With --strict the exit status is 1 on any crash, timeout or sanitizer
report and on any failure whose signature is not known; the first case of each new
signature is printed with its reproducer (shrunk with --shrink).  --out writes the counts
per class and per signature as JSON.  The same seed and options always run the same cases."""
import argparse
import fnmatch
import inspect
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SEED_STRIDE = 1000003  # case seeds of campaign s: s * SEED_STRIDE + i


def load_expectations(path, device="cpu"):
    """Patterns (fnmatch over signatures) and the generator features turned off, from lines
    "PATTERN  # reason" and "disable FEATURE  # reason"; "on KIND PATTERN" holds only
    when the campaign's device is of that kind (cuda: a GPU-only difference)."""
    pats, disabled = [], []
    kind = device.split(":")[0]
    if path and os.path.exists(path):
        for line in open(path):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("disable "):
                disabled.append(line.split()[1])
            elif line.startswith("on "):
                _, k, pat = line.split(None, 2)
                if k == kind:
                    pats.append(pat)
            else:
                pats.append(line)
    return pats, disabled


def known(sig, pats):
    return any(fnmatch.fnmatchcase(sig, p) for p in pats)


def child_env(device, jobs, environ=None):
    """The children's environment for a campaign of jobs children on device."""
    env = dict(os.environ if environ is None else environ)
    # Always named, the CPU too: Ember's default device is the first GPU where one is
    # present, so a "cpu" campaign on a GPU host would otherwise run on cuda:0 (as the
    # first H200 host campaigns did, at a twentieth of the CPU's speed and against the
    # CPU's bounds); the child checks that its arrays are where they should be.
    env["EMBER_DEVICE"] = device
    # jobs children at once: each with its share of the cores (at least 2 workers, so the
    # thread pool's split loops stay exercised), and NumPy's BLAS single-threaded.
    # Unbounded, 16 children on the 16-core GPU host would start 16 workers each.
    share = str(max(2, (os.cpu_count() or 2) // max(1, jobs)))
    env.setdefault("EMBER_NUM_THREADS", share)
    for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(v, "1")
    return env


def child_cmd(args, extra):
    return [sys.executable, os.path.join(HERE, "child.py"), "--device", args.device,
            "--threads", str(args.threads), "--opts", json.dumps(args.opts)] + extra


def run_child(args, extra, timeout):
    """Run one child; returns (results, abnormal) where abnormal is None or (class, seed,
    detail) for the case that was running when the child died or hung."""
    err = tempfile.TemporaryFile()
    p = subprocess.Popen(child_cmd(args, extra), stdout=subprocess.PIPE, stderr=err, text=True,
                         env=args.env)
    lines = queue.Queue()

    def reader():
        for line in p.stdout:
            lines.put(line)
        lines.put(None)
    threading.Thread(target=reader, daemon=True).start()
    results, current, done, abnormal = [], None, False, None
    while True:
        try:
            line = lines.get(timeout=timeout)
        except queue.Empty:
            p.kill()
            abnormal = ("timeout", current, "no result within %d s" % timeout)
            break
        if line is None:
            break
        if line.startswith("S "):
            current = int(line[2:])
        elif line.startswith("R "):
            results.append(json.loads(line[2:]))
            current = None
        elif line.startswith("D"):
            done = True
    rc = p.wait()
    err.seek(0)
    tail = err.read()[-6000:].decode("utf-8", "replace")
    err.close()
    if abnormal is None and (not done or rc != 0):
        cls = "sanitizer" if ("Sanitizer" in tail or "runtime error:" in tail) else "crash"
        why = "signal %d" % -rc if rc < 0 else "exit status %d" % rc
        abnormal = (cls, current, "%s; stderr tail: %s" % (why, tail[-1500:]))
    return results, abnormal


def campaign(args):
    seeds = [args.seed * SEED_STRIDE + i for i in range(args.cases)]
    todo = queue.Queue()
    for k in range(0, len(seeds), args.batch):
        todo.put(seeds[k:k + args.batch])
    results, lock = [], threading.Lock()
    t0 = time.time()

    def worker():
        while True:
            if args.max_seconds and time.time() - t0 > args.max_seconds:
                return  # out of time: the cases run so far are the campaign
            try:
                batch = todo.get_nowait()
            except queue.Empty:
                return
            while batch:
                res, abnormal = run_child(args, ["--seed-list", ",".join(map(str, batch))],
                                          args.timeout)
                ran = {r["seed"] for r in res}
                if abnormal:
                    cls, cur, detail = abnormal
                    if cur is None:  # died between cases: blame the next one
                        cur = next((s for s in batch if s not in ran), batch[-1])
                    res.append({"seed": cur, "cls": cls, "sig": "%s:seed" % cls,
                                "detail": detail, "threads": args.threads})
                    ran.add(cur)
                    if args.threads > 1:  # the whole group of cases was running
                        i = batch.index(cur)
                        ran.update(batch[i:i + args.threads])
                with lock:
                    results.extend(res)
                    if args.out and len(results) // 5000 != (len(results) - len(res)) // 5000:
                        write_counts(args, results, time.time() - t0, {})
                    if args.progress and len(results) // 1000 != (len(results) - len(res)) // 1000:
                        print("  %d cases, %.0f s" % (len(results), time.time() - t0),
                              file=sys.stderr, flush=True)
                batch = [s for s in batch if s not in ran] if abnormal else []
    ws = [threading.Thread(target=worker) for _ in range(args.jobs)]
    for w in ws:
        w.start()
    for w in ws:
        w.join()
    return results, time.time() - t0


def tally(results, pats):
    """Counts per class, and per signature: count, first seed, detail, known."""
    counts, sigs = {}, {}
    for r in results:
        counts[r["cls"]] = counts.get(r["cls"], 0) + 1
        if r["cls"] != "ok":
            s = sigs.setdefault(r["sig"], {"count": 0, "seed": r["seed"], "detail":
                                           r.get("detail", ""), "known": known(r["sig"], pats)})
            s["count"] += 1
            s["seed"] = min(s["seed"], r["seed"])
    return counts, sigs


def write_counts(args, results, secs, pats):
    counts, sigs = tally(results, args.pats)  # pats: args.pats, also mid-campaign
    with open(args.out + ".tmp", "w") as f:
        json.dump({"cases": len(results), "seconds": round(secs, 1), "device": args.device,
                   "seed": args.seed, "threads": args.threads, "classes": counts,
                   "signatures": sigs}, f, indent=1, sort_keys=True)
    os.replace(args.out + ".tmp", args.out)


def program_of(seed, opts):
    from gen import gen_program, to_spec
    return to_spec(gen_program(seed, opts))


def run_spec(args, spec):
    """Run a program spec in a child; its result (crashes included)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(spec, f)
    try:
        res, abnormal = run_child(args, ["--program", f.name], args.timeout)
    finally:
        os.unlink(f.name)
    if abnormal:
        return {"seed": spec["seed"], "cls": abnormal[0], "sig": "%s:seed" % abnormal[0],
                "detail": abnormal[2]}
    return res[0]


def shrink(args, spec, sig):
    """Remove statements while the failure keeps its signature (crashes: its class)."""
    same = (lambda r: r["cls"] == sig.split(":")[0]) if sig.split(":")[1] == "seed" else \
        (lambda r: r.get("sig") == sig)
    stmts = spec["stmts"]
    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(stmts))):
            cand = dict(spec, stmts=stmts[:i] + stmts[i + 1:])
            if cand["stmts"] and same(run_spec(args, cand)):
                stmts = cand["stmts"]
                changed = True
    return dict(spec, stmts=stmts)


def reproducer(spec, res, device):
    """A standalone script: the program on NumPy and on Ember, statement by statement."""
    import numpy as np
    import runtime
    src = inspect.getsource(runtime.R)
    show = res.get("var") or (spec["stmts"][-1][2] if spec["stmts"] else None)
    lines = ["# ember fuzz case %d: %s" % (spec["seed"], res.get("sig", res["cls"])),
             "# %s" % (res.get("detail", "").splitlines() or [""])[0][:200],
             "import numpy as np", "import ember as em", "",
             "_SPECIAL_F = [%s]" % ", ".join(
                 repr(x) if np.isfinite(x) else "float(%r)" % repr(x) for x in runtime._SPECIAL_F),
             "", "", src.rstrip(), "", "",
             "for M in (np, em):"]
    if device != "cpu":
        lines.append("    A = lambda x, M=M: M.asarray(x) if M is np else em.asarray(x, "
                     "device=%r)" % device)
    else:
        lines.append("    A = M.asarray")
    lines.append("    print('--', M.__name__)")
    for i, (text, op, bind) in enumerate(spec["stmts"]):
        lines += ["    try:", "\n".join("        " + ln for ln in text.split("\n")),
                  "        print(%d, %r, repr(%s)[:300])" % (i, op, bind) if bind else
                  "        print(%d, %r, 'ok')" % (i, op),
                  "    except Exception as e:",
                  "        print(%d, %r, 'raises', type(e).__name__, str(e)[:200])" % (i, op)]
    if show:
        lines += ["    print('final', %r, repr(%s)[:500])" % (show, show)]
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cases", type=int, default=1000)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--batch", type=int, default=200)
    p.add_argument("--device", help="cpu, cuda:0 ... (default: $EMBER_DEVICE, else cpu)")
    p.add_argument("--threads", type=int, default=1, help="cases run at once in each child")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds without a result")
    p.add_argument("--expect", default=os.path.join(HERE, "expectations.txt"))
    p.add_argument("--out", help="write counts per class and signature (JSON) here")
    p.add_argument("--strict", action="store_true", help="exit 1 on crashes or new signatures")
    p.add_argument("--case", type=int, help="run this one case seed and print it")
    p.add_argument("--shrink", action="store_true", help="shrink reported failures")
    p.add_argument("--max-len", type=int, default=10, help="statements per program at most")
    p.add_argument("--enable", action="append", default=[],
                   help="turn on a generator feature the expectations file disables")
    p.add_argument("--progress", action="store_true")
    p.add_argument("--max-seconds", type=float, default=0,
                   help="start no new batch after this many seconds (long campaigns)")
    args = p.parse_args()
    args.device = args.device or os.environ.get("EMBER_DEVICE") or "cpu"
    pats, disabled = load_expectations(args.expect, args.device)
    args.pats = pats
    disabled = [d for d in disabled if d not in args.enable]
    # device: the tolerances are docs/precision.md's bounds for it (gen.py)
    args.opts = {"max_len": args.max_len, "device": args.device, **{d: False for d in disabled},
                 **{e: True for e in args.enable}}
    args.env = child_env(args.device, args.jobs)
    if args.case is not None:
        spec = program_of(args.case, args.opts)
        res = run_spec(args, spec)
        if args.shrink and res["cls"] != "ok":
            spec = shrink(args, spec, res.get("sig", res["cls"] + ":seed"))
            res = run_spec(args, spec)
        print(json.dumps(res, indent=1))
        print(reproducer(spec, res, args.device))
        return 0 if res["cls"] == "ok" else 1
    results, secs = campaign(args)
    counts, sigs = tally(results, pats)
    hard = sum(counts.get(c, 0) for c in ("crash", "timeout", "sanitizer"))
    new = {k: v for k, v in sigs.items() if not v["known"] or k.split(":")[0] in (
        "crash", "timeout", "sanitizer")}
    print("fuzz: %d cases in %.0f s on %s (seed %d, threads %d): %s" % (
        len(results), secs, args.device, args.seed, args.threads,
        ", ".join("%s %d" % (c, counts[c]) for c in sorted(counts))))
    for k, v in sorted(sigs.items(), key=lambda kv: -kv[1]["count"]):
        print("  %6d  %-60s %s" % (v["count"], k, "known" if k not in new else "NEW  seed %d: %s"
                                   % (v["seed"], v["detail"].splitlines()[0][:150] if
                                      v["detail"] else "")))
    for k, v in list(new.items())[:args.report_max if hasattr(args, "report_max") else 10]:
        cmd = "python tests/fuzz/run.py --case %d%s%s --shrink" % (
            v["seed"], "" if args.device == "cpu" else " --device " + args.device,
            "".join(" --enable " + e for e in args.enable))
        print("\nNEW %s (%d cases); reproduce: %s" % (k, v["count"], cmd))
        if args.shrink:
            spec = program_of(v["seed"], args.opts)
            res = run_spec(args, spec)
            if res["cls"] != "ok":
                spec = shrink(args, spec, res.get("sig", k))
                res = run_spec(args, spec)
            print(reproducer(spec, res, args.device))
    if args.out:
        write_counts(args, results, secs, pats)
    if args.strict and (hard or new):
        print("fuzz: FAILED: %d crashes/timeouts/sanitizer reports, %d new signatures" % (
            hard, len(new)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
