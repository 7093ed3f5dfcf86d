"""device="auto" against fixed placements (issue 18): the issue's mixed
suite run all-CPU, all-GPU (cuda:0) and auto, with every input starting in
host (NumPy) memory, so a placement pays for the moves it makes: every
column's timed function starts from the same NumPy array and calls
em.asarray(numpy, device=...) itself (all-GPU copies it to the card inside
the clock; nothing is on a device before it starts).

Two finishing points, each the same for every column: "the result
available" (computed and synchronised, left where its placement put it: on
cuda:0 for all-GPU, on the host for all-CPU, wherever auto ran it; the
issue's table) and "result in NumPy" (its values copied into a NumPy array
as well: what a user of NumPy data reads back; the rows whose result is a
Python float or a .get() already end there).

  small      1,000 small ops on a 10^3-element array (x = x * a + b), then its sum
  seed004    sqrt(sum(x**2, axis=-1)) over (1000, 100, 1000) float64 (seed 004)
  chain8     an 8-op elementwise chain on 2^26 float32, evaluated
  matmul     4096 x 4096 float32
  sort       2^24 float32
  ooc        sum over a host array of OOC_GIB GiB (24) with the GPU pools limited to
             LIMIT_GIB (8; set_limit): all-GPU cannot hold it (OOM); auto streams it
  ooc_1gpu   (two GPUs or more) ooc by auto with cuda:0 its only GPU: the
             several-GPU speed-up is ooc_1gpu / ooc where auto streams ooc
  stream     (auto only; a default row with two GPUs or more) ooc forced through the GPUs (_stream.plan(force=...): on a host
             whose CPU outruns the bus auto rightly keeps ooc there, so this row
             is what measures the streaming): GB/s through cuda:0 alone and
             through every GPU, per chunk size, against the h2d bandwidths
             measured in the same process on 1 GiB (pageable: Ember's staged
             copy; pinned) and the model's (32 MiB)
  generated  em.random.random(n, device=...).sum() of GEN_GIB GiB (100): no host
             data for auto (its chunks are made on the GPUs); all-GPU does not fit,
             all-CPU is skipped (the host would hold it all)

Each (workload, placement) runs in its own process under a timeout
(--row-timeout, default 90 s), so one that hangs, crashes or runs out of
memory costs its own cell only (null in the JSON, with the reason); a cell is
the best of REPS runs after a warm-up (kernels compiled, the cost model
loaded), every device synchronised before the clock stops; a cell shorter
than 15 ms runs more often (up to 20, 0.3 s in all): best-of-2 of a 3 ms
row moved 10-40 % between runs.  On the GPU
machine (about 4 minutes on an H100 host with 128 GiB):

    python bench/bench_auto.py [--json PATH]     # the issue's sizes
    python bench/bench_auto.py --small           # a quick run (CPU-only: cpu and auto)

The table gives, per workload, auto / the better fixed placement (target
<= 1.10) and the total (target < 1); the ooc line the streamed rate against
the measured host-to-device bandwidths (target >= 70 %); with two GPUs the
speed-up over one (target >= 1.8).  Each auto cell also reports its
decisions (em.auto.explain over one more run: how many of each kind went
where, and the first of each in full) and where a run like the timed ones
left its result (explain() turns the extension's own answers off, so the
two can differ: session 12's chain8 said cuda:0 and ran on the CPU);
`--rows a,b` runs only those rows.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

import ember as em


def _sync():
    for d in em.devices():
        d.synchronize()


def best(fn, reps, budget=0.0):
    """The best of reps synchronised runs after a warm-up; with budget (s),
    at least as many runs as fill it (up to 20): best-of-2 of a 3 ms row
    moved 10-40 % between runs."""
    t0 = time.perf_counter()
    fn()
    _sync()
    warm = time.perf_counter() - t0
    if budget:
        reps = max(reps, min(20, int(budget / max(warm, 1e-6))))
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        _sync()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def workloads(scale):
    rng = np.random.default_rng(0)
    s = lambda n: max(int(n * scale), 16)  # noqa: E731
    small = rng.random(1000).astype(np.float32)
    seed = np.ones((s(1000), 100, 1000)) if scale < 1 else np.ones((1000, 100, 1000))
    chain = rng.random(s(1 << 26), dtype=np.float32)
    m = max(int(4096 * scale ** 0.5), 64)
    ma, mb = rng.random((m, m), dtype=np.float32), rng.random((m, m), dtype=np.float32)
    keys = rng.random(s(1 << 24), dtype=np.float32)

    def w_small(dev):
        x = em.asarray(small, device=dev)
        for _ in range(1000):
            x = x * 0.999 + 0.001
        return float(x.sum())

    def w_seed(dev):
        x = em.asarray(seed, device=dev)
        return em.sqrt(em.sum(x ** 2, axis=-1)).get()

    def w_chain(dev):
        x = em.asarray(chain, device=dev)
        y = em.sqrt(em.abs(em.sin(x) * 2.0 + em.cos(x) * x - 0.5) + 1.0) / (x + 1.0)
        return em.eval(y)

    def w_matmul(dev):
        return em.asarray(ma, device=dev) @ em.asarray(mb, device=dev)

    def w_sort(dev):
        return em.sort(em.asarray(keys, device=dev))

    return {"small": w_small, "seed004": w_seed, "chain8": w_chain, "matmul": w_matmul,
            "sort": w_sort}


def _limit_pools(limit):
    for d in em.devices():
        if d.kind == "cuda":
            with d:
                pool = em.get_default_memory_pool()
                pool.free_all_blocks()
                pool.set_limit(size=limit)


def extra(a):
    """The out-of-core and device-generated workloads: name -> fn(mode)."""
    small = a.small
    ooc_bytes = int(a.ooc_gib * (1 << 30))
    limit = int(a.limit_gib * (1 << 30))
    gen_n = int(a.gen_gib * (1 << 30)) // 8

    def w_ooc(mode):
        host = _ooc_host(ooc_bytes)
        _limit_pools(limit)
        dev = "auto" if mode == "auto1" else mode
        if mode == "auto1":  # cuda:0 the only GPU auto may use
            m = em.auto.model()
            em.auto.set_model({d: c.as_dict() for d, c in m.costs.items()
                               if d in ("cpu", "cuda:0")})
        return lambda: float(em.asarray(host, device=dev,
                                        copy=False if dev == "auto" else None).sum())

    def w_gen(mode):
        if mode == "cpu" and not small:
            raise _Skip("the host would hold all of it")
        return lambda: float(em.random.random(gen_n, device=mode).sum())

    def w_stream(mode):
        if mode != "auto":
            raise _Skip("auto only")

    return {"ooc": w_ooc, "stream": w_stream, "generated": w_gen}


def _stream_row(a, nbytes, limit):
    """The streamed reduction forced through cuda:0 and through every GPU,
    per chunk size; its GB/s against h2d measured here on 1 GiB.  Returns
    (seconds of the default plan on cuda:0, a dict of rates)."""
    from ember.auto import _stream
    host = _ooc_host(nbytes)
    _limit_pools(limit)
    x = em.asarray(host, device="auto", copy=False)
    ngpu = sum(1 for d in em.devices() if d.kind == "cuda")
    gpus = [f"cuda:{i}" for i in range(ngpu)][:a.gpus or None]
    info = {"GB": nbytes / 1e9}
    n = min(1 << 28, host.size)  # 1 GiB of float32
    pin = em.cuda.pinned_empty((n,), "float32")
    pin[...] = 1
    with em.Device("cuda:0"):
        info["h2d_pageable_1GiB"] = 4 * n / best(lambda: em.asarray(host[:n], device="cuda:0"), 3)
        info["h2d_pinned_1GiB"] = 4 * n / best(lambda: em.asarray(pin, device="cuda:0"), 3)
    if len(gpus) > 1:  # the ceilings of several GPUs' streams: every bus at once
        try:
            info.update(_concurrent_h2d(gpus, host[:n], pin))
        except Exception as e:  # noqa: BLE001  (the stream's own rows still count)
            info["at_once_error"] = f"{type(e).__name__}: {str(e)[:200]}"
    del pin
    m = em.auto.model().costs.get("cuda:0")
    info["model_h2d"], info["model_h2d_pinned"] = m.h2d, m.h2d_pinned
    t_default = None
    sets = [gpus[:1]] + ([gpus] if len(gpus) > 1 else [])
    for devs in sets:
        for chunk in [None] + [int(c * (1 << 20)) for c in a.chunks_mib]:
            p = _stream.plan(x, chunk_bytes=chunk, force=tuple(devs))
            key = f"{len(devs)}gpu_chunk{(p.chunk * 4) >> 20}MiB"
            if key in info:
                continue  # a size asked for that is the default's: measured already
            t = best(lambda: float(_stream.run("sum", x, p)), 2)
            info[key] = nbytes / t / 1e9
            if chunk is None and len(devs) == 1:
                t_default = t
            print(f"# stream {key}: {nbytes / t / 1e9:.1f} GB/s ({p.nchunks} chunks)",
                  file=sys.stderr, flush=True)
    info["value_ok"] = float(_stream.run("sum", x, p)) == float(host.size)
    if a.stage_variants:
        _stage_variants(a, x, host[:n], sets, nbytes, info)
    return t_default, info


# The staging's knobs (codegen/run_copy.c), read at each copy: the team's
# shared 8 MiB buffers, with plain or streaming stores (EMBER_STAGE_NT), and
# lanes of small buffers a thread (EMBER_STAGE_BUF_KIB).  bench/probe_stage.py
# sweeps them all.  Session 16's registration variants lost on both hosts and
# are gone.
STAGE_VARIANTS = {"shared": {"EMBER_STAGE_BUF_KIB": "0"},
                  "shared_nt": {"EMBER_STAGE_BUF_KIB": "0", "EMBER_STAGE_NT": "1"},
                  "lanes512k": {"EMBER_STAGE_BUF_KIB": "512"},
                  "lanes2m": {"EMBER_STAGE_BUF_KIB": "2048"}}


def _stage_variants(a, x, h1, sets, nbytes, info):
    """The stream's default plan and a 1 GiB pageable h2d per staging variant,
    in this process (the knobs are read at each copy)."""
    from ember.auto import _stream
    keys = sorted({k for env in STAGE_VARIANTS.values() for k in env})
    saved = {k: os.environ.get(k) for k in keys}
    try:
        for vname, env in STAGE_VARIANTS.items():
            for k in keys:
                os.environ.pop(k, None)
            os.environ.update(env)
            with em.Device("cuda:0"):
                info[f"h2d_pageable_1GiB_{vname}"] = h1.nbytes / best(
                    lambda: em.asarray(h1, device="cuda:0"), 3)
            for devs in sets:
                p = _stream.plan(x, force=tuple(devs))
                t = best(lambda: float(_stream.run("sum", x, p)), 2)
                info[f"{len(devs)}gpu_{vname}"] = nbytes / t / 1e9
                print(f"# stream {len(devs)}gpu {vname}: {nbytes / t / 1e9:.1f} GB/s",
                      file=sys.stderr, flush=True)
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None)
            if v is not None:
                os.environ[k] = v


def _concurrent_h2d(gpus, h, pin):
    """GB/s of 1 GiB copied to every GPU at once, each from its own thread
    (3 rounds, the best): from the pageable array (Ember's staged copies, a
    team per device) and from pinned memory (one pinned source for all:
    the DMAs only read it).  What the stream through them all can reach."""
    import threading
    out = {}
    for kind, src in (("pageable", h), ("pinned", pin)):
        best_t = float("inf")
        for _ in range(3):
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
            best_t = min(best_t, time.perf_counter() - t0)
        out[f"h2d_{kind}_1GiB_{len(gpus)}gpu_at_once"] = len(gpus) * src.nbytes / best_t
    return out


_HOST = {}


def _ooc_host(nbytes):
    if nbytes not in _HOST:
        _HOST[nbytes] = np.ones(nbytes // 4, dtype=np.float32)
    return _HOST[nbytes]


class _Skip(Exception):
    pass


def one(a):
    """Run workload a.one on a.mode in this process; print one JSON line."""
    scale = 0.01 if a.small else a.scale
    out = {"t": None}
    try:
        if a.one == "stream":
            extra(a)["stream"](a.mode)  # raises _Skip off auto
            out["t"], out["info"] = _stream_row(a, int(a.ooc_gib * (1 << 30)),
                                                int(a.limit_gib * (1 << 30)))
        elif a.one in ("ooc", "generated"):
            run = extra(a)[a.one](a.mode)
            reps = 1
        else:
            fn = workloads(scale)[a.one]
            run = (lambda: fn(a.mode))
            reps = a.reps
        if a.one != "stream":
            out["t"] = best(run, reps, 0.3)
            if a.one in ("chain8", "matmul", "sort"):  # results that stay on a device
                out["t_home"] = best(lambda: _home(run()), reps, 0.3)
            if a.mode.startswith("auto"):
                out["result_on"] = _result_on(run)
                out["decisions"] = _decisions(run)
    except _Skip as e:
        out["err"] = "skipped: " + str(e)
    except em.OutOfMemoryError as e:
        out["err"] = "OOM: " + str(e).splitlines()[0][:200]
    except Exception as e:  # noqa: BLE001  (a cell's failure is its own)
        out["err"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
    print("RESULT " + json.dumps(out), flush=True)


def _home(r):
    """The result's values in a NumPy array (the one finishing point common
    to every column: the CPU's results are there already)."""
    return np.asarray(r) if isinstance(r, em.ndarray) else r


def _result_on(run):
    """Where a run placed as the timed ones were (no explain(), which turns
    the extension's own answers off) left its result: the device the work
    really ran on, which the decisions below may not show."""
    r = run()
    return str(r.device.current) if isinstance(r, em.ndarray) else None


def _decisions(run):
    """What auto decided in one more run: {"kind -> device": count} and the
    first decision of each in full."""
    _, ps = em.auto.explain(run)
    seen, first = {}, {}
    for p in ps:
        where = getattr(p, "chosen", None) or ", ".join(getattr(p, "devices", ()))
        k = f"{getattr(p, 'kind', type(p).__name__)} -> {where}"
        seen[k] = seen.get(k, 0) + 1
        first.setdefault(k, repr(p)[:400])
    return {"counts": seen, "first": first}


def cell(a, name, mode):
    import subprocess
    cmd = [sys.executable, os.path.abspath(__file__), "--one", name, "--mode", mode,
           "--scale", str(a.scale), "--reps", str(a.reps), "--ooc-gib", str(a.ooc_gib),
           "--limit-gib", str(a.limit_gib), "--gen-gib", str(a.gen_gib),
           "--gpus", str(a.gpus), "--chunks-mib", ",".join(map(str, a.chunks_mib))] + \
        (["--small"] if a.small else []) + (["--stage-variants"] if a.stage_variants else [])
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=a.row_timeout)
    except subprocess.TimeoutExpired:
        return {"t": None, "err": f"timeout after {a.row_timeout} s"}
    for line in reversed(r.stdout.splitlines()):
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    tail = (r.stderr.strip().splitlines() or ["no output"])[-1][:200]
    return {"t": None, "err": f"exit {r.returncode}: {tail}"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--small", action="store_true",
                    help="a quick run: sizes scaled by 0.01, ooc 0.25 GiB (limit 1/16), "
                         "generated 0.5 GiB")
    ap.add_argument("--ooc-gib", type=float, default=24.0)
    ap.add_argument("--limit-gib", type=float, default=8.0)
    ap.add_argument("--gen-gib", type=float, default=100.0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--row-timeout", type=float, default=90.0)
    ap.add_argument("--json")
    ap.add_argument("--rows", help="comma-separated rows to run (default: all)")
    ap.add_argument("--gpus", type=int, default=0,
                    help="the stream row: use the first N GPUs (0: all)")
    ap.add_argument("--chunks-mib", default="256,1024",
                    help="the stream row: chunk sizes tried beside the default")
    ap.add_argument("--stage-variants", action="store_true",
                    help="the stream row: also each staging variant (STAGE_VARIANTS: "
                         "shared buffers, streaming stores, lanes) at the default chunk")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--mode", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.small and a.ooc_gib == 24.0:
        a.ooc_gib, a.limit_gib, a.gen_gib = 0.25, 1 / 16, 0.5
    a.chunks_mib = [float(c) for c in str(a.chunks_mib).split(",") if c]
    if a.one:
        return one(a)
    gpu = em.cuda.is_available()
    ngpu = sum(1 for d in em.devices() if d.kind == "cuda") if gpu else 0
    modes = ["cpu", "cuda:0", "auto"] if gpu else ["cpu", "auto"]
    t0 = time.perf_counter()
    model = em.auto.model()  # loaded from the disk cache, or measured now (then cached)
    how = "cached" if time.perf_counter() - t0 < 0.5 else "measured now"
    print(f"# cost model: {how} (measuring took {model.seconds or 0:.2f} s)")
    for dev, c in model.costs.items():
        print(f"#   {dev}: {c.as_dict()}")
    names = list(workloads(0.0001)) + ["ooc", "generated"]
    if ngpu > 1:  # the several-GPU target is the forced stream's (auto keeps ooc on a fast host)
        names.append("stream")
    if a.rows:
        names = [n for n in a.rows.split(",") if n in names + ["stream"]]  # in that order
    rows, errors, decisions, infos, result_on = {}, {}, {}, {}, {}
    home = {}  # the same, with the result's values brought into NumPy
    start = time.perf_counter()
    for name in names:
        rows[name] = {}
        for mode in (["auto"] if name == "stream" else modes):
            c = cell(a, name, mode)
            rows[name][mode] = c["t"]
            home.setdefault(name, {})[mode] = c.get("t_home", c["t"])
            if c.get("err"):
                errors[f"{name}/{mode}"] = c["err"]
            if c.get("decisions"):
                decisions[name] = c["decisions"]
            if c.get("result_on"):
                result_on[name] = c["result_on"]
            if c.get("info"):
                infos[name] = c["info"]
        print(name, {k: (None if v is None else round(v, 5)) for k, v in rows[name].items()},
              flush=True)
        if name in result_on:
            print(f"#   auto's timed run left its result on {result_on[name]}")
        if name in decisions:
            print(f"#   auto decided: {decisions[name]['counts']}")
            for v in decisions[name]["first"].values():
                print(f"#     {v}")
        if name in infos:
            print(f"#   {json.dumps(infos[name])}", flush=True)
    if ngpu >= 2:
        c = cell(a, "ooc", "auto1")
        rows["ooc_1gpu"] = {"auto": c["t"]}
        if c.get("err"):
            errors["ooc_1gpu/auto"] = c["err"]
    summary = {}
    ooc_t = rows.get("ooc", {}).get("auto")  # --rows may leave it out
    if gpu and ooc_t:
        rate = a.ooc_gib * (1 << 30) / ooc_t
        g = model.costs.get("cuda:0")
        summary["ooc_rate"] = rate
        # Streamed only if auto chose to (a Plan); else it ran on the CPU, whose
        # rate says nothing of the bus: the stream row measures streaming.
        streamed = any(k.startswith("Plan") for k in decisions.get("ooc", {}).get("counts", {}))
        summary["ooc_streamed"] = streamed
        if not streamed:
            print(f"# ooc: auto kept the sum on the CPU, {rate / 1e9:.1f} GB/s (the bus: "
                  f"{(g.h2d or 0) / 1e9:.1f} GB/s pageable); the stream row measures streaming")
        else:
            for k in ("h2d", "h2d_pinned"):
                if g is not None and getattr(g, k):
                    summary[f"ooc_vs_{k}"] = rate / getattr(g, k)
            print(f"# ooc streamed at {rate / 1e9:.1f} GB/s = "
                  + ", ".join(f"{summary[f'ooc_vs_{k}'] * 100:.0f} % of measured {k}"
                              for k in ("h2d", "h2d_pinned") if f"ooc_vs_{k}" in summary)
                  + " (target >= 70 %)")
    if rows.get("ooc_1gpu", {}).get("auto") and ooc_t and summary.get("ooc_streamed"):
        summary["multi_gpu_speedup"] = rows["ooc_1gpu"]["auto"] / ooc_t
        print(f"# ooc on {ngpu} GPUs: {summary['multi_gpu_speedup']:.2f}x one GPU "
              "(target >= 1.8)")
    elif rows.get("ooc_1gpu", {}).get("auto") and ooc_t:
        # Session 22 printed "0.82x one GPU" here: both runs were the CPU's.
        print(f"# ooc: auto kept the sum on the CPU with one GPU and with {ngpu}, so their "
              "ratio says nothing of the GPUs: the stream row's is the two-GPU measure")
    st = infos.get("stream")
    if st:
        for k, v in st.items():
            if k.endswith("MiB"):
                for bus in ("h2d_pageable_1GiB", "h2d_pinned_1GiB", "model_h2d"):
                    if st.get(bus):
                        summary[f"stream_{k}_vs_{bus}"] = v * 1e9 / st[bus]
        print("# stream (GB/s, % of h2d pageable / pinned measured on 1 GiB): " + ", ".join(
            f"{k} {v:.1f} ({v * 1e9 / st['h2d_pageable_1GiB'] * 100:.0f} % / "
            f"{v * 1e9 / st['h2d_pinned_1GiB'] * 100:.0f} %)"
            for k, v in st.items() if k.endswith("MiB")))
        one_gpu = max((v for k, v in st.items() if k.startswith("1gpu")), default=None)
        all_gpu = max((v for k, v in st.items() if k.startswith(f"{ngpu}gpu")), default=None)
        if ngpu > 1 and one_gpu and all_gpu:
            summary["stream_multi_gpu_speedup"] = all_gpu / one_gpu
            print(f"# stream on {ngpu} GPUs: {all_gpu / one_gpu:.2f}x one GPU, each at its "
                  "best setting (target >= 1.8)")
        for k, v in st.items():
            if k.endswith("at_once"):
                print(f"# {k}: {v / 1e9:.1f} GB/s in all (one GPU: "
                      f"{st.get(k.split('_1GiB')[0] + '_1GiB', 0) / 1e9:.1f})")
        for vname in STAGE_VARIANTS:
            v1, vn = st.get(f"1gpu_{vname}"), st.get(f"{ngpu}gpu_{vname}")
            if v1:
                print(f"# staging {vname}: h2d 1 GiB "
                      f"{st.get(f'h2d_pageable_1GiB_{vname}', 0) / 1e9:.1f} GB/s, stream 1 GPU "
                      f"{v1:.1f} GB/s" + (f", {ngpu} GPUs {vn:.1f} GB/s = {vn / v1:.2f}x"
                                          if vn and ngpu > 1 else ""))
    # the rows where every mode runs
    suite = [n for n in names if n not in ("ooc", "generated", "stream")]
    total = {m: sum(rows[n][m] for n in suite if rows[n].get(m) is not None) for m in modes}
    total_home = {m: sum(home[n][m] for n in suite if home[n].get(m) is not None)
                  for m in modes}
    tot = "total (first five)"
    ratios, ratios_home = {}, {}

    def ratio(r):
        fixed = [r[m] for m in modes if m != "auto" and r.get(m) is not None]
        return r["auto"] / min(fixed) if fixed and r.get("auto") else None

    # Two finishing points, the same for every column: the result available
    # where its placement left it (synchronised), and its values in NumPy.
    print("\n| workload | " + " | ".join(modes) + " | auto / best fixed | "
          + " | ".join(f"{m}, result in NumPy" for m in modes) + " | auto / best fixed |")
    print("| --- " * (2 * len(modes) + 3) + "|")
    for name, r, h in ([(n, rows[n], home[n]) for n in names if n in home]
                       + [(tot, total, total_home)]):
        for dst, rr in ((ratios, r), (ratios_home, h)):
            if ratio(rr) is not None:
                dst[name] = ratio(rr)
        cells = ["-" if r.get(m) is None else f"{r[m] * 1e3:.1f} ms" for m in modes]
        hcells = ["-" if h.get(m) is None else f"{h[m] * 1e3:.1f} ms" for m in modes]
        print(f"| {name} | " + " | ".join(cells) + " | "
              + (f"{ratios[name]:.2f}" if name in ratios else "") + " | "
              + " | ".join(hcells) + " | "
              + (f"{ratios_home[name]:.2f}" if name in ratios_home else "") + " |")
    for k, v in errors.items():
        print(f"# {k}: {v}")
    print(f"# {time.perf_counter() - start:.0f} s")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"device": em.Device("cuda:0").name if gpu else "cpu", "gpus": ngpu,
                       "date": time.strftime("%Y-%m-%d"), "rows": rows, "errors": errors,
                       "ratios": ratios, "rows_result_in_numpy": home,
                       "ratios_result_in_numpy": ratios_home, "summary": summary, "model": model.as_dict(),
                       "decisions": decisions, "result_on": result_on,
                       "stream": infos.get("stream"),
                       "args": vars(a)}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
