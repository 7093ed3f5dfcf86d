"""Every seed example in examples/ runs to completion on the default device
(the CPU in CI; cuda:0 under tools/gpu_tests.sh) and prints what shows it
worked.  Each runs in its own process, as a user would run it."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")

# example -> lines its output must contain
EXPECT = {
    "seed000_gpu_packages.py": ["multiply_them: max |dest - a*b| = 0.0",
                                "increment_by_one: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]",
                                "norm of [1, 2, 3]: 3.741657386773941"],
    "seed000_opencl.py": ["multiply_them: max |dest - a*b| = 0.0", "sum: equal to NumPy's a + b: True",
                          "equal: True", "OpenCL device: opencl:"],
    "seed001_thread_indices.py": ["threadIdx: 0", "threadIdx: 3", "blockIdx: 1", "blockDim: 4", "gridDim: 2",
                                  "LaunchError: kernel 'gpu': grid dimension x = 1125899906842624 is out of "
                                  "range", "gpu[2**30, 1]: Running Success!", "gpu[2**30, 1024]: Running Success!"],
    "seed001_vector_add.py": ["The error between ember and numpy is:  0.0", "The time cost of ember"],
    "seed002_smoothing.py": ["@em.jit loop (CPU):   equal=True", "equal=True", "em.grid(2) kernel"],
    "seed002_dask_svd.py": ["singular values match NumPy: True", "u * s @ v reconstructs a: True"],
    "seed003_arrays_on_gpu.py": ["a + b = [5 7 9]", "back on the host: [5 7 9]"],
    "seed004_norm_and_timing.py": ["Numpy:  7.0710678118654755", "Ember:  7.071067811865475",
                                   "results equal: True"],
}


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_example_runs(name):
    # Ember first, then whatever the caller had (carried wheels such as Dask).
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.join(ROOT, "python")] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", name)], capture_output=True,
                       text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    if "skipped" in r.stdout and "not installed" in r.stdout:
        pytest.skip(r.stdout.strip())
    for line in EXPECT[name]:
        assert line in r.stdout, f"{line!r} not in the output of {name}:\n{r.stdout}"
    for bad in ("equal=False", "equal: False", "NumPy: False", "reconstructs a: False"):
        assert bad not in r.stdout, r.stdout


def test_every_example_is_tested():
    names = {f for f in os.listdir(os.path.join(ROOT, "examples")) if f.endswith(".py")}
    assert names <= set(EXPECT), sorted(names - set(EXPECT))



def test_demo_finds_the_checkouts_examples():
    from ember import demo
    assert os.path.samefile(demo._examples_dir(), os.path.join(ROOT, "examples"))


def test_demo_prefers_the_examples_shipped_in_the_package(tmp_path):
    """An installed package (a wheel) has them in ember/examples."""
    from ember import demo
    pkg = tmp_path / "site-packages" / "ember"
    (pkg / "examples").mkdir(parents=True)
    assert demo._examples_dir(str(pkg)) is None  # no seed*.py there, no checkout above
    (pkg / "examples" / "seed999_x.py").write_text("print('x')\n")
    assert demo._examples_dir(str(pkg)) == str(pkg / "examples")


def test_demo_rejects_unknown_arguments():
    r = subprocess.run([sys.executable, "-m", "ember.demo", "--bogus"], capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")),
                       timeout=120)
    assert r.returncode != 0 and "usage: python -m ember.demo [--quick]" in r.stderr, r.stderr
