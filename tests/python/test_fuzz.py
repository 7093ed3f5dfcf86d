"""The differential fuzzer (tests/fuzz/): the harness catches what it claims to, and a short
seeded campaign has no crash and no failure outside tests/fuzz/expectations.txt.

Under the sanitizer build (tools/dev.sh asan) the campaign is smaller; the children inherit
LD_PRELOAD and the sanitizer options, so an ASan or UBSan report in any case fails it."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
FUZZ = os.path.join(ROOT, "tests", "fuzz")
sys.path.insert(0, FUZZ)

import ember as em  # noqa: E402
from execute import compare, run_ember  # noqa: E402
from gen import Var, gen_program, replay, to_spec  # noqa: E402

SANITIZED = "build-asan" in em._ember.__file__
# cases in the campaign: about a minute on two cores, a few under ASan
CASES = 300 if SANITIZED else 1500
THREADED = 80 if SANITIZED else 400


def test_programs_are_reproducible():
    a, b = gen_program(12345), gen_program(12345)
    assert a.source() == b.source() and len(a.stmts) >= 2
    assert gen_program(12346).source() != a.source()
    spec = to_spec(a)
    assert replay(spec).source() == a.source()


def test_compare_classes():
    import numpy as np
    exact, loose = Var(), Var(k=1e-6)
    x = np.array([1.0, 2.0, np.nan])
    assert compare(em, x, em.asarray(x), exact) is None
    assert compare(em, x, em.asarray(x + [0, 1e-9, 0]), exact)[0] == "wrong_value"
    assert compare(em, x, em.asarray(x + [0, 1e-9, 0]), loose) is None
    assert compare(em, x, em.asarray(x[:2]), exact)[0] == "wrong_shape"
    assert compare(em, x, em.asarray(x.astype(np.float32)), exact)[0] == "wrong_dtype"
    assert compare(em, np.float64(2), em.asarray(2.0), exact) is None  # scalar vs 0-d
    assert compare(em, 3, 3, exact) is None and compare(em, 3, 4, exact)[0] == "wrong_value"
    assert compare(em, (x, x), [em.asarray(x)], exact)[0] == "wrong_shape"


def test_complex_parts_held_to_the_magnitude():
    # docs/precision.md: complex results componentwise, relative to the value's magnitude
    import numpy as np
    from execute import _eq_value
    x = np.array([2 + 1e-17j, 1e-20 + 3j, np.nan + 1j, np.inf + 0j], np.complex128)
    near = x + np.array([0, 1e-21, 0, 0]) + 1j * np.array([4e-16, 0, 0, 0])
    assert _eq_value(x, near, 1e-15, 0.0, False)
    assert not _eq_value(x, x + 1j * np.array([1e-13, 0, 0, 0]), 1e-15, 0.0, False)
    # non-finite parts exactly: NaN where NumPy has NaN, the same infinity
    assert not _eq_value(x, x + np.array([0, 0, 0, 1j]), 1e-15, 0.0, False)
    assert not _eq_value(x, np.where(np.isnan(x.real), 0j, x), 1e-15, 0.0, False)


def test_reduction_tolerances():
    import numpy as np
    from gen import Gen, _out_of_normal_range, _run_leaves_normal_range, _var_tolerance
    # var/mean/std of integers are float results: n ULPs of float64 for the sum's order
    # (the H200's var of 1401 bools had 4 ULP, the table's alone)
    g = Gen(1, {"max_len": 10})
    g.ns["v0"] = np.arange(1401 * 3, dtype=np.int16).reshape(1401, 3) % 2 == 0
    g.n = 1
    v = g.emit("v0.var(axis=0, ddof=1)", "reduce.var", ["v0"], fn="var", reduce_n=4203)
    assert g.prog.vars[v].k >= 4203 * np.finfo(np.float64).eps
    # a variance's error from the mean's is (n eps m)^2: beyond the sums' n*m for float16
    # of magnitude 1000; the widened atol covers the worst mean error
    n, m, eps = 100, 1000.0, float(np.finfo(np.float16).eps)
    var = Var(k=(n + 4) * eps, scale=n * m)
    worst = 6 * (n * eps * m) ** 2
    assert var.k * var.scale < worst
    _var_tolerance(var, n, m, eps)
    assert var.k * var.scale >= worst
    # products that leave the normal range depend on the order of the partial products
    assert _out_of_normal_range(np.full(4, 1e200), np.cumprod(np.full(4, 1e200)))
    assert _out_of_normal_range(np.full(3, 1e-150), np.cumprod(np.full(3, 1e-150)))
    assert not _out_of_normal_range(np.array([2.0, 0.0]), np.cumprod([2.0, 0.0]))
    assert not _out_of_normal_range(np.array([1 + 1j, 3j]), np.array([1 + 1j, -3 + 3j]))
    # a run of later elements past the range, after a zero: the device's tile gives
    # 0 * inf = nan where NumPy keeps 0 (the H100 campaign's seed 17009438)
    x = np.array([3.0, 0.0] + [1e200] * 4)
    assert not _out_of_normal_range(x, np.cumprod(x))
    assert _run_leaves_normal_range(x)
    assert _run_leaves_normal_range(np.array([0.0, 1e-200, 1e-200, 5.0]))
    assert not _run_leaves_normal_range(np.array([1e200, 1e-200] * 50 + [0.0, 7.0]))
    assert gen_program(17009438, {"device": "opencl:0", "algos": False}).vars["v4"].fragile


def test_integer_weight_sums_past_their_dtype_are_not_compared():
    import numpy as np
    from gen import _int_sum_overflows
    # NumPy casts a histogram's float64 weight sums into the weights' dtype: undefined past
    # its range for the dtypes Ember does not convert as NumPy's x86 loops (seed 63003449)
    assert _int_sum_overflows(np.array([2**32 - 1, 1], np.uint32))
    assert _int_sum_overflows(np.array([-2**63, -1], np.int64))
    assert not _int_sum_overflows(np.array([2**31, 2**31 - 2], np.uint32))
    assert not _int_sum_overflows(np.array([127, 127], np.int8))  # NumPy's, through int32
    assert not _int_sum_overflows(np.array([1e300, 1e300]))
    assert gen_program(63003449).vars["v14"].fragile


def test_nan_sign_unspecified_on_devices():
    # copysign(7, fmod(0.5, 0.0)): x86's NaN is negative, CUDA's positive (H200 seed 2022764);
    # on the CPU too, as NumPy's own loops differ by CPU (test_fuzzer_nan_sign_rule)
    assert gen_program(2022764, {"device": "cuda:0", "algos": False}).vars["v5"].fragile
    assert gen_program(2022764, {"device": "cpu", "algos": False}).vars["v5"].fragile


def _spec(lines, var_names):
    return {"seed": 0, "stmts": [[t, "test", b] for t, b in lines],
            "vars": {v: [0.0, 0.0, False, False] for v in var_names}}


def test_precision_table(tmp_path):
    """The fuzzer's tolerances are docs/precision.md's table: every transcendental has a
    bound for each real or complex dtype on each device, exact ops have none, and the
    device picks the column."""
    import precision
    for fn in ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
               "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
               "arctanh", "cbrt", "arctan2", "hypot", "logaddexp", "logaddexp2", "power",
               "float_power"]:
        for dt in ["float16", "float32", "float64"]:
            for dev in ["cpu", "cuda:0", "opencl:0"]:
                assert 1 <= precision.bound(fn, dt, dev) <= 16, (fn, dt, dev)
    for fn in ["exp", "sin", "tanh", "arcsinh", "log", "sign"]:
        for dt in ["complex64", "complex128"]:
            assert precision.bound(fn, dt, "cpu") >= 4
            assert precision.bound(fn, dt, "cuda:0") >= precision.bound(fn, dt, "cpu")
    assert precision.bound("add", "float32") == 0 and precision.bound("sqrt", "float64") == 0
    assert precision.bound("sign", "float64") == 0  # real sign is exact
    assert precision.bound("power", "float32", "opencl:0") == 16  # OpenCL's pow: 16 ulp
    bad = tmp_path / "p.md"
    bad.write_text("<!-- ulp-table -->\n| exp, exp | float32 | 1 | 2 | 3 |\n<!-- /ulp-table -->\n")
    with pytest.raises(ValueError, match="twice"):
        precision._load(str(bad))


def test_run_ember_classes():
    ok = replay(_spec([("v0 = A(R(1, (3,), 'int32'))", "v0"), ("v1 = v0 + 1", "v1")],
                      ["v0", "v1"]))
    assert run_ember(em, ok, "cpu")["cls"] == "ok"
    # Ember raises where NumPy works: a name only the NumPy namespace... both lack; use a
    # statement whose outcome differs by module
    r = run_ember(em, replay(_spec([("v0 = M.lib.stride_tricks", "v0")], ["v0"])), "cpu")
    assert r["cls"] == "ember_raises" and r["sig"] == "ember_raises:test:AttributeError"
    r = run_ember(em, replay(_spec([("v0 = M.asnumpy", "v0")], [])), "cpu")
    assert r["cls"] == "ember_returns" and r["sig"] == "ember_returns:test:AttributeError"
    r = run_ember(em, replay(_spec([("v0 = A(R(1, (3,), 'int32'))", "v0"),
                                    ("v1 = v0 + (1 if M is np else 2)", "v1")],
                                   ["v0", "v1"])), "cpu")
    assert r["cls"] == "wrong_value" and r["var"] == "v1"


# the children import the same ember as this process (the sanitizer build's, under ASan)
ENV = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(em.__file__))))


def _run(args, timeout=900):
    env = ENV
    return subprocess.run([sys.executable, os.path.join(FUZZ, "run.py")] + args, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_crashes_and_hangs_are_counted_and_shrunk(tmp_path):
    # A program that kills its process, one that hangs: both classified, the run goes on.
    sys.path.insert(0, FUZZ)
    import run as fuzz_run
    args = type("A", (), {"device": "cpu", "threads": 1, "opts": {}, "timeout": 10,
                          "env": dict(ENV, EMBER_DEVICE="cpu")})()  # as device says
    crash = _spec([("v0 = A(R(1, (3,), 'int32'))", "v0"),
                   ("v1 = v0 * 2", "v1"),
                   # SIGKILL: not a signal ASan could catch and report
                   ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", None)], ["v0"])
    r = fuzz_run.run_spec(args, crash)
    assert r["cls"] == "crash" and "signal 9" in r["detail"]
    small = fuzz_run.shrink(args, crash, "crash:seed")
    assert [s[0] for s in small["stmts"]] == [crash["stmts"][2][0]]
    args.timeout = 3
    hang = _spec([("import time; time.sleep(60)", None)], [])
    assert fuzz_run.run_spec(args, hang)["cls"] == "timeout"
    src = fuzz_run.reproducer(crash, r, "cpu")
    assert "import ember as em" in src and "def R(" in src
    compile(src, "repro", "exec")


def test_child_env_names_the_device():
    # Ember's default device is the first GPU where there is one: a CPU campaign must say
    # EMBER_DEVICE=cpu, or on a GPU host it measures CUDA against the CPU's bounds.
    sys.path.insert(0, FUZZ)
    import run as fuzz_run
    env = fuzz_run.child_env("cpu", 15, {"EMBER_DEVICE": "cuda:0", "PATH": "/bin"})
    assert env["EMBER_DEVICE"] == "cpu" and env["PATH"] == "/bin"
    assert int(env["EMBER_NUM_THREADS"]) >= 2 and env["OPENBLAS_NUM_THREADS"] == "1"
    assert fuzz_run.child_env("cuda:0", 4, {})["EMBER_DEVICE"] == "cuda:0"
    # a CPU child checks where its arrays go (it exits when they would not be on the CPU)
    p = subprocess.run([sys.executable, os.path.join(FUZZ, "child.py"), "--seed-list", "1"],
                       env=dict(ENV, EMBER_DEVICE="cpu"), capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0 and p.stdout.splitlines()[-1] == "D", p.stderr[-2000:]


@pytest.mark.parametrize("threads,cases,seed", [(1, CASES, 20), (8, THREADED, 21)])
def test_short_campaign(tmp_path, threads, cases, seed):
    out = tmp_path / "counts.json"
    p = _run(["--cases", str(cases), "--seed", str(seed), "--jobs", str(min(2, os.cpu_count())),
              "--batch", "100", "--threads", str(threads), "--strict", "--out", str(out),
              "--timeout", "300" if SANITIZED else "120"])
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-3000:]
    counts = json.loads(out.read_text())
    assert counts["cases"] == cases
    assert counts["classes"].get("ok", 0) > cases * 0.8
    for c in ("crash", "timeout", "sanitizer"):
        assert counts["classes"].get(c, 0) == 0
