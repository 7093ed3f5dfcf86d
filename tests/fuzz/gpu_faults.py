"""GPU-only fault cases for the fuzzer: each runs in its own child process and must end in a
clean Python exception (or a correct result), never a crash or a hang, and leave the process
working: after the fault the CPU and the GPU compute correctly ("cpu_after", "device_after":
a fault inside a kernel makes the CUDA context sticky; Ember resets the device at its next
use, src/backend/cuda/reset.c), and an array made on the device before the fault either
still reads correctly or raises Ember's DeviceError "the array's memory was lost ..."
("old_array_after"), never a wrong value.  Where the driver keeps the sticky error for the
process (NVIDIA's does: the reset fails), a faulting kernel's case passes with the device
"dead": every later use of it raises the one DeviceError "... unusable for the rest of this
process ... restart the process", twice the same, and the CPU keeps working.

    python tests/fuzz/gpu_faults.py [--device cuda:0] [--out faults.json]

Cases:
  oob_mid_fusion    a raw kernel writing far out of bounds while a fused chain is pending
  trap_mid_fusion   a raw kernel that traps (__trap) with a pending chain
  oob_then_reduce   the fault, then a fused reduction
  oom_mid_chain     the pool's limit set just above the inputs, then a long fused chain
  oom_reduce        the limit hit by a fused reduction's temporaries
  corrupt_cubin     every cached cubin bit-flipped / truncated / swapped / a FIFO: rebuilt
Each result: {"case", "outcome": ok | raised | crash | timeout, "error", "cpu_after",
"device_after", "old_array_after"}; the exit status is 1 when a case crashed, hung, left the
CPU or the GPU broken, or an old array read back wrong."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap

PRELUDE = """
import json, sys, numpy as np, ember as em
DEV = sys.argv[1]
res = {"outcome": "ok", "error": None}
OLD = []  # an array made on the device before the fault: np.arange(n) as float32
def keep():
    with em.Device(DEV):
        OLD.append(em.asarray(np.arange(100, dtype=np.float32)))
def check_after():
    a = np.arange(1000, dtype=np.float32)
    with em.Device("cpu"):
        res["cpu_after"] = bool(np.allclose(em.asnumpy(em.asarray(a) * 2 + 1), a * 2 + 1))
    try:
        with em.Device(DEV):
            x = em.asarray(a)
            res["device_after"] = bool(np.allclose(em.asnumpy(em.sqrt(x * 2 + 1).sum()),
                                                   np.sqrt(a * 2 + 1).sum(), rtol=1e-4))
    except Exception as e:
        res["device_after"] = "%s: %s" % (type(e).__name__, str(e)[:200])
        if isinstance(e, em.DeviceError) and "unusable for the rest of this process" in str(e):
            try:  # dead: the same one error again, no other
                with em.Device(DEV):
                    em.asnumpy(em.asarray(a) + 1)
            except em.DeviceError as e2:
                same = str(e2) == str(e)
                res["device_after"] = "dead" if same else "dead, then: " + str(e2)[:200]
    for old in OLD:
        try:
            good = np.array_equal(em.asnumpy(old), np.arange(old.size, dtype=np.float32))
            res["old_array_after"] = "ok" if good else "WRONG"
        except em.DeviceError as e:
            res["old_array_after"] = ("lost" if "memory was lost" in str(e) else
                                      "dead" if "unusable for the rest" in str(e) else
                                      "DeviceError: " + str(e)[:120])
        except Exception as e:
            res["old_array_after"] = "%s: %s" % (type(e).__name__, str(e)[:120])
def fault(body):
    try:
        body()
    except Exception as e:
        res["outcome"] = "raised"
        res["error"] = "%s: %s" % (type(e).__name__, str(e)[:300])
"""

OOB = r'''
extern "C" __global__ void oob(float *p, long long off) {
    if (threadIdx.x == 0) p[off] = 1.0f;
}
'''
TRAP = r'''
extern "C" __global__ void trap(float *p) { if (threadIdx.x == 0) __trap(); p[0] = 1.0f; }
'''

CASES = {
    "oob_mid_fusion": """
def body():
    with em.Device(DEV):
        x = em.asarray(np.arange(4096, dtype=np.float32))
        y = em.sin(x) * 2 + em.cos(x)          # pending: not evaluated yet
        k = em.RawKernel(%r, "oob")
        k((1,), (32,), (x, np.int64(1 << 40)))
        z = (y + 1).sum()
        em.asnumpy(z)
        em.synchronize()
keep()
fault(body)
check_after()
""" % OOB,
    "trap_mid_fusion": """
def body():
    with em.Device(DEV):
        x = em.asarray(np.arange(4096, dtype=np.float32))
        y = x * 3 - 1
        em.RawKernel(%r, "trap")((1,), (32,), (x,))
        em.asnumpy(y)
        em.synchronize()
keep()
fault(body)
check_after()
""" % TRAP,
    "oob_then_reduce": """
def body():
    with em.Device(DEV):
        x = em.asarray(np.ones((512, 512), dtype=np.float32))
        em.RawKernel(%r, "oob")((1,), (32,), (x, np.int64(-(1 << 40))))
        em.asnumpy((x * x + 1).sum(axis=0))
keep()
fault(body)
check_after()
""" % OOB,
    "oom_mid_chain": """
def body():
    pool = em.get_default_memory_pool()
    with em.Device(DEV):
        x = em.asarray(np.ones(1 << 20, dtype=np.float32))
        em.synchronize()
        pool.set_limit(size=pool.total_bytes() + (1 << 20))
        try:
            y = x
            for i in range(40):                 # temporaries past the limit
                y = em.where(y > 2, y, y * 0.5) + em.exp(y) - i
            ys = [y + k for k in range(8)]
            em.asnumpy(sum(ys))
        finally:
            pool.set_limit(size=0)
fault(body)
check_after()
""",
    "oom_reduce": """
def body():
    pool = em.get_default_memory_pool()
    with em.Device(DEV):
        x = em.asarray(np.ones((2048, 2048), dtype=np.float32))
        em.synchronize()
        pool.set_limit(size=pool.total_bytes() + 4096)
        try:
            parts = [(x * k + 1).sum(axis=1) for k in range(16)]
            em.asnumpy(parts[-1])
        finally:
            pool.set_limit(size=0)
fault(body)
check_after()
""",
}

# corrupt_cubin: three processes sharing one cache directory.
FILL = PRELUDE + """
with em.Device(DEV):
    x = em.asarray(np.arange(1000, dtype=np.float64))
    em.asnumpy(em.tanh(x * 0.001) + em.log1p(x))
    em.asnumpy((x * 3).sum())
check_after()
print(json.dumps(res))
"""


def run(code, device, env=None, timeout=300):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(code)
    try:
        p = subprocess.run([sys.executable, f.name, device], capture_output=True, text=True,
                           timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"outcome": "timeout"}
    finally:
        os.unlink(f.name)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        return {"outcome": "crash", "error": "exit %d: %s" % (p.returncode, p.stderr[-800:])}
    return json.loads(lines[-1])


def corrupt_cubin(device):
    d = tempfile.mkdtemp(prefix="ember-fault-cache-")
    env = dict(os.environ, EMBER_CACHE_DIR=d)
    first = run(FILL, device, env)
    if first.get("outcome") != "ok":
        return first
    out = {"outcome": "ok", "error": None, "variants": {}}
    for how in ("bitflip", "truncate", "swap", "fifo"):
        files = sorted(os.path.join(r, n) for r, _, ns in os.walk(d) for n in ns)
        if not files:
            return {"outcome": "crash", "error": "no cache entries were written in " + d}
        for i, path in enumerate(files):
            data = open(path, "rb").read()
            if how == "bitflip":
                b = bytearray(data)
                b[len(b) // 2] ^= 0x40
                open(path, "wb").write(bytes(b))
            elif how == "truncate":
                open(path, "wb").write(data[:len(data) // 2])
            elif how == "swap":  # a valid entry under another entry's name
                open(path, "wb").write(open(files[(i + 1) % len(files)], "rb").read()
                                       if len(files) > 1 else data[:100])
            else:
                os.unlink(path)
                os.mkfifo(path)
        r = run(FILL, device, env, timeout=120)
        out["variants"][how] = r
        if r.get("outcome") != "ok" or not r.get("device_after"):
            out["outcome"] = r.get("outcome", "crash") if r.get("outcome") != "ok" else "wrong"
            out["error"] = "%s: %s" % (how, r.get("error"))
        for path in files:  # fresh, valid entries for the next variant
            if os.path.exists(path) and not os.path.isfile(path):
                os.unlink(path)
        run(FILL, device, env)
    subprocess.run(["rm", "-rf", d])
    out["cpu_after"] = all(v.get("cpu_after") for v in out["variants"].values())
    out["device_after"] = all(v.get("device_after") is True for v in out["variants"].values())
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--out")
    a = p.parse_args()
    results = {}
    for name, body in CASES.items():
        results[name] = run(PRELUDE + textwrap.dedent(body) + "\nprint(json.dumps(res))\n",
                            a.device)
    results["corrupt_cubin"] = corrupt_cubin(a.device)
    bad = 0
    for name, r in results.items():
        # a faulting kernel may leave the device dead for the process (NVIDIA's sticky errors)
        dead = ("dead",) if name.startswith(("oob", "trap")) else ()
        ok = (r.get("outcome") in ("ok", "raised") and r.get("cpu_after") is True and
              (r.get("device_after") is True or r.get("device_after") in dead) and
              r.get("old_array_after") in (None, "ok", "lost") + dead)
        bad += not ok
        print("%-16s %-8s cpu_after=%s device_after=%s old_array_after=%s %s" % (
            name, r.get("outcome"), r.get("cpu_after"), r.get("device_after"),
            r.get("old_array_after"),
            (r.get("error") or "")[:160]))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
