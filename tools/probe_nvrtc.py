"""Where NVRTC's time goes for Ember's generated kernels: front end (PTX
only) vs ptxas (cubin), the prelude alone, and ptxas -O levels.  Renders the
sources through Ember (EMBER_DEBUG=4 prints them), then compiles each with
libnvrtc through ctypes.  Run on the device machine: python3 tools/probe_nvrtc.py"""
import ctypes
import ctypes.util
import os
import subprocess
import sys
import tempfile
import time

CASES = r"""
import numpy as np, ember as em
x = em.asarray(np.random.random((30, 50)).astype(np.float32))
np.asarray(x * x + x)
np.asarray(em.sum(x, axis=1))
np.asarray(em.var(x, axis=0))
np.asarray(em.sqrt(em.sum(x**2, axis=-1)))
np.asarray(em.argmax(x, axis=1))
"""


def sources():
    env = dict(os.environ, EMBER_DEBUG="4", EMBER_CACHE_DIR=tempfile.mkdtemp(), EMBER_DEVICE="cuda:0")
    err = subprocess.run([sys.executable, "-c", CASES], env=env, capture_output=True, text=True).stderr
    for line in err.splitlines():  # Ember's own timing of the same compiles
        if "compiled in" in line:
            print(line[:150])
    out, parts = [], err.split("ember: kernel '")
    for p in parts[1:]:
        name, _, rest = p.partition("' source:\n")
        if not rest:
            continue
        src = rest.split("\nember: ")[0]
        out.append((name, src))
    return out


def nvrtc():
    for n in ("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"):
        try:
            return ctypes.CDLL(n)
        except OSError:
            pass
    raise SystemExit("no libnvrtc")


def compile_ms(lib, src, opts):
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"k.cu", 0, None, None) == 0
    arr = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    t = time.perf_counter()
    r = lib.nvrtcCompileProgram(prog, len(opts), arr)
    ms = (time.perf_counter() - t) * 1e3
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return ms if r == 0 else float("nan")


def main():
    lib = nvrtc()
    base = ["--fmad=false", "-std=c++17"]
    variants = {
        "cubin": ["--gpu-architecture=sm_90"] + base,
        "ptx only": ["--gpu-architecture=compute_90"] + base,
        "-minimal": ["--gpu-architecture=sm_90", "-minimal"] + base,
        "min Ofast=min": ["--gpu-architecture=sm_90", "-minimal", "--Ofast-compile=min"] + base,
        "min Ofast=mid": ["--gpu-architecture=sm_90", "-minimal", "--Ofast-compile=mid"] + base,
    }
    srcs = sources()
    if srcs:
        name, src = srcs[0]
        cut = src.find("\n// ")
        pre = src[:cut] + '\nextern "C" __global__ void em_kernel(float *p) { p[0] = 1; }\n'
        srcs.insert(0, ("prelude + empty kernel", pre))
    print(f"{'kernel':28s}" + "".join(f"{v:>18s}" for v in variants))
    for name, src in srcs:
        row = [min(compile_ms(lib, src, o) for _ in range(2)) for o in variants.values()]
        print(f"{name[:28]:28s}" + "".join(f"{t:18.1f}" for t in row))


if __name__ == "__main__":
    main()
