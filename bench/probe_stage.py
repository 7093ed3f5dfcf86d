"""The out-of-core stream's host side on one GPU and on all of them (issue
18's two-GPU target: both >= 1.8x one), every staging variant in one
process (the knobs are read at each copy):

  shared   the team's four 8 MiB pinned buffers (EMBER_STAGE_BUF_KIB=0), the
           default before session 17
  lanes    each staging thread its own EMBER_STAGE_NBUF buffers of
           EMBER_STAGE_BUF_KIB, filled with plain or streaming stores
           (EMBER_STAGE_NT), EMBER_STAGE_THREADS lanes a device; their DMAs
           on the default stream or a stream a lane (EMBER_STAGE_LANE_STREAMS)
  pinned   a source in pinned memory (em.cuda.pinned_empty): never staged

The sweep streams an --sweep-gib slice (one run each); the best lanes
configurations and the shared buffers then stream the whole --gib array
(best of --reps); then the pinned source of --gib (--pinned-gib where the
host refuses that much).  Each configuration first sends 64 MiB of random
bytes to every GPU at once and reads them back (a wrong byte is reported).
JSON with every rate (GB/s) to --json; a summary on stdout.

    python bench/probe_stage.py --json $OUT/stage.json      # the GPU machine
    python bench/probe_stage.py --gib 0.05 --sweep-gib 0.02  # a smoke run (fake driver)
"""
import argparse
import json
import os
import sys
import threading
import time

import numpy as np

import ember as em
from ember.auto import _stream

KNOBS = ("EMBER_STAGE_BUF_KIB", "EMBER_STAGE_NT", "EMBER_STAGE_THREADS", "EMBER_STAGE_NBUF",
         "EMBER_STAGE_LANE_STREAMS")
T0 = time.perf_counter()


def log(*a):
    print(f"[{time.perf_counter() - T0:6.1f} s]", *a, file=sys.stderr, flush=True)


def setenv(cfg):
    for k in KNOBS:
        os.environ.pop(k, None)
    os.environ.update(cfg)


def name(cfg):
    kib = cfg.get("EMBER_STAGE_BUF_KIB", "default")
    s = "shared" if kib == "0" else f"lanes{kib}k"
    s += "_nt" if cfg.get("EMBER_STAGE_NT") == "1" else ""
    s += f"_t{cfg.get('EMBER_STAGE_THREADS', 'all')}"
    s += f"_b{cfg['EMBER_STAGE_NBUF']}" if "EMBER_STAGE_NBUF" in cfg else ""
    return s + ("_streams" if cfg.get("EMBER_STAGE_LANE_STREAMS") == "1" else "")


def stream_rate(x, devs, reps):
    p = _stream.plan(x, force=tuple(devs))
    best, val = float("inf"), None
    for _ in range(reps):
        t0 = time.perf_counter()
        val = float(_stream.run("sum", x, p))
        best = min(best, time.perf_counter() - t0)
    return x.nbytes / best / 1e9, val


def check(gpus, rng):
    """64 MiB of random bytes to every GPU at once (each from its own
    thread, at an odd offset), read back: the number of wrong copies."""
    src = rng.integers(0, 255, (64 << 20) + 4099, dtype=np.uint8)
    bad, err = [], []

    def one(k, dev):
        h = src[k + 1:]
        try:
            if not np.array_equal(em.asarray(h, device=dev).get(), h):
                bad.append(dev)
        except Exception as e:  # noqa: BLE001  (raised in the caller)
            err.append(e)
    ts = [threading.Thread(target=one, args=(k, d)) for k, d in enumerate(gpus)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if err:
        raise err[0]
    return len(bad)


def at_once(gpus, src, reps=3):
    """GB/s of src copied to every GPU at once, each from its own thread."""
    best = float("inf")
    for _ in range(reps):
        go = threading.Barrier(len(gpus))

        def copy(dev):
            go.wait()
            em.asarray(src, device=dev)
            em.Device(dev).synchronize()
        ts = [threading.Thread(target=copy, args=(d,)) for d in gpus]
        t0 = time.perf_counter()
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        best = min(best, time.perf_counter() - t0)
    return len(gpus) * src.nbytes / best / 1e9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gib", type=float, default=24)
    ap.add_argument("--sweep-gib", type=float, default=8)
    ap.add_argument("--pinned-gib", type=float, default=16,
                    help="the pinned source's size where --gib of pinned memory is refused")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--top", type=int, default=4, help="lanes configurations re-run on --gib")
    ap.add_argument("--budget", type=float, default=150, help="seconds; later steps are skipped")
    ap.add_argument("--kib", default="256,512,1024,2048")
    ap.add_argument("--threads", default="4,8,16")
    ap.add_argument("--focus", help="configurations 'K=V,K=V;K=V;...' ('' is the default) "
                    "streamed on --gib in --rounds interleaved rounds; nothing else runs")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json")
    a = ap.parse_args()
    gpus = [f"cuda:{d.id}" for d in em.devices() if d.kind == "cuda"]
    sets = [gpus[:1]] + ([gpus] if len(gpus) > 1 else [])
    out = {"gpus": gpus, "gib": a.gib, "sweep_gib": a.sweep_gib, "sweep": {}, "full": {},
           "pinned": {}, "wrong_copies": {}}
    rng = np.random.default_rng(1)

    def save():  # after each step: a run cut by its time limit still reports
        if a.json:
            with open(a.json, "w") as f:
                json.dump(out, f, indent=1)
    n = int(a.gib * (1 << 30)) // 4
    host = np.ones(n, dtype=np.float32)
    log(f"{a.gib} GiB pageable source made; GPUs {gpus}")
    x = em.asarray(host, device="auto", copy=False)
    xs = em.asarray(host[:int(a.sweep_gib * (1 << 30)) // 4], device="auto", copy=False)
    if a.focus is not None:
        return focus(a, gpus, sets, x, out, rng, save)
    shared = [{"EMBER_STAGE_BUF_KIB": "0", "EMBER_STAGE_THREADS": t, "EMBER_STAGE_NT": nt}
              for t in ("16", "8") for nt in ("0", "1")]
    lanes = [{"EMBER_STAGE_BUF_KIB": k, "EMBER_STAGE_THREADS": t, "EMBER_STAGE_NT": nt}
             for k in a.kib.split(",") for nt in ("0", "1") for t in a.threads.split(",")]
    # warm-up: the model calibrated, the kernels built, both devices' buffers
    setenv(shared[0])
    for devs in sets:
        stream_rate(xs, devs, 1)
    log("warm")

    def run(cfg, arr, reps, into):
        setenv(cfg)
        key = name(cfg)
        r = into.setdefault(key, {})
        try:  # one variant's failure is reported, the others still run
            out["wrong_copies"][key] = check(gpus, rng)
            for devs in sets:
                r[f"{len(devs)}gpu"], val = stream_rate(arr, devs, reps)
                r[f"{len(devs)}gpu_value_ok"] = val == float(arr.size)
        except Exception as e:  # noqa: BLE001
            out.setdefault("errors", {})[key] = f"{type(e).__name__}: {str(e)[:300]}"
            log(f"{key}: {out['errors'][key]}")
            into.pop(key)
            return
        if len(sets) > 1:
            r["ratio"] = r[f"{len(gpus)}gpu"] / r["1gpu"]
        log(f"{key}: " + ", ".join(f"{k} {v:.2f}" for k, v in r.items()
                                   if not k.endswith("_ok")) +
            f"; wrong copies {out['wrong_copies'][key]}")

    for cfg in shared + lanes:
        if time.perf_counter() - T0 > a.budget * 0.45:
            log("sweep cut for time")
            break
        run(cfg, xs, 1, out["sweep"])
    save()
    multi = f"{len(gpus)}gpu"
    swept = {name(c): c for c in lanes if name(c) in out["sweep"]}
    top = sorted(swept, key=lambda k: -out["sweep"][k][multi])[:a.top]
    for cfg in [shared[0]] + [swept[k] for k in top]:
        if time.perf_counter() - T0 > a.budget * 0.7:
            log("full runs cut for time")
            break
        run(cfg, x, a.reps, out["full"])
    if top:  # buffers per lane and a stream a lane, for the best two
        for extra in ({"EMBER_STAGE_LANE_STREAMS": "1"}, {"EMBER_STAGE_NBUF": "8"},
                      {"EMBER_STAGE_NBUF": "2"}):
            for k in top[:2]:
                if time.perf_counter() - T0 > a.budget * 0.75:
                    break
                run(dict(swept[k], **extra), xs, 1, out["sweep"])
    save()
    setenv({})
    del x, xs
    out["default"] = name({})
    # the pinned source: never staged
    pin = None
    for gib in (a.gib, a.pinned_gib):
        try:
            pin = em.cuda.pinned_empty(int(gib * (1 << 30)) // 4, "float32")
            out["pinned"]["GiB"] = gib
            break
        except Exception as e:  # noqa: BLE001  (the host's limit on pinned memory)
            out["pinned"][f"refused_{gib}"] = f"{type(e).__name__}: {str(e)[:200]}"
    if pin is not None:
        pin[...] = 1
        log(f"{out['pinned']['GiB']} GiB pinned source made")
        xp = em.asarray(pin, device="auto", copy=False)
        c0 = em._ember._cuda_copy_stats()
        for devs in sets:
            out["pinned"][f"{len(devs)}gpu"], val = stream_rate(xp, devs, max(a.reps, 3))
            out["pinned"][f"{len(devs)}gpu_value_ok"] = val == float(xp.size)
        c1 = em._ember._cuda_copy_stats()
        out["pinned"]["staged_copies"] = c1["staged"] - c0["staged"]
        out["pinned"]["unstaged_dma_copies"] = c1["known"] - c0["known"]
        if len(sets) > 1:
            out["pinned"]["ratio"] = out["pinned"][multi] / out["pinned"]["1gpu"]
        log("pinned: " + json.dumps(out["pinned"]))
        save()
        p = _stream.plan(xp)
        out["pinned"]["auto_plan"] = repr(p)
        out["pinned"]["auto_plan_pageable"] = repr(_stream.plan(em.asarray(
            host[:xp.size], device="auto", copy=False)))
        one = pin[:1 << 28]
        out["pinned"]["h2d_1GiB_1gpu"] = at_once(gpus[:1], one)
        if len(gpus) > 1:
            out["pinned"][f"h2d_1GiB_{multi}_at_once"] = at_once(gpus, one)
        log("pinned: " + json.dumps(out["pinned"]))
    save()
    # the summary
    print(f"# stream of {a.gib} GiB (GB/s; one GPU / {len(gpus)} / ratio):")
    for key, r in sorted(out["full"].items(), key=lambda kv: -kv[1].get(multi, 0)):
        print(f"#   {key:24s} {r['1gpu']:6.1f} {r.get(multi, 0):6.1f} {r.get('ratio', 0):5.2f}")
    print(f"# sweep on {a.sweep_gib} GiB, best {min(8, len(out['sweep']))} by {multi}:")
    for key, r in sorted(out["sweep"].items(), key=lambda kv: -kv[1].get(multi, 0))[:8]:
        print(f"#   {key:24s} {r['1gpu']:6.1f} {r.get(multi, 0):6.1f} {r.get('ratio', 0):5.2f}")
    pn = out["pinned"]
    if "1gpu" in pn:
        print(f"# pinned {pn['GiB']} GiB: {pn['1gpu']:.1f} / {pn.get(multi, 0):.1f} "
              f"ratio {pn.get('ratio', 0):.2f}; staged {pn['staged_copies']}, "
              f"unstaged {pn['unstaged_dma_copies']}; {pn['auto_plan']}")
    print(f"# wrong copies: {sum(out['wrong_copies'].values())}; failed variants: "
          f"{sorted(out.get('errors', {}))}")


def focus(a, gpus, sets, x, out, rng, save):
    """Each configuration streams the whole array on one GPU and on all, in
    --rounds rounds that visit every configuration in turn, so a drift of
    the host's rate hits them alike; the ratio of each round's best rates."""
    cfgs = [dict(kv.split("=", 1) for kv in c.split(",") if kv) for c in a.focus.split(";")]
    multi = f"{len(gpus)}gpu"
    setenv({})
    for devs in sets:  # warm-up: calibration, kernels, buffers
        stream_rate(x[:1 << 28], devs, 1)
    out["focus"] = {}
    for rnd in range(a.rounds):
        for cfg in cfgs:
            setenv(cfg)
            key = ",".join(f"{k[12:]}={v}" for k, v in cfg.items()) or "default"
            r = out["focus"].setdefault(key, {"1gpu": [], multi: [], "ratio": []})
            out["wrong_copies"][key] = out["wrong_copies"].get(key, 0) + check(gpus, rng)
            for devs in sets:
                rate, val = stream_rate(x, devs, a.reps)
                r[f"{len(devs)}gpu"].append(rate)
                r["value_ok"] = r.get("value_ok", True) and val == float(x.size)
            if len(sets) > 1:
                r["ratio"].append(r[multi][-1] / r["1gpu"][-1])
            log(f"round {rnd} {key}: {r['1gpu'][-1]:.1f} / {r[multi][-1]:.1f}"
                + (f" = {r['ratio'][-1]:.3f}" if r["ratio"] else ""))
            save()
    setenv({})
    print(f"# stream of {a.gib} GiB, {a.rounds} interleaved rounds, best of {a.reps} each "
          f"(GB/s one GPU / {len(gpus)}: ratio per round):")
    for key, r in out["focus"].items():
        print(f"#   {key:40s} " + "  ".join(
            f"{o:.1f}/{m:.1f}={q:.2f}" for o, m, q in zip(r["1gpu"], r[multi], r["ratio"]))
            + f"  value_ok {r['value_ok']}")
    print(f"# wrong copies: {sum(out['wrong_copies'].values())}")


if __name__ == "__main__":
    main()
