"""The kernel disk cache (src/codegen/diskcache.c) through the CPU JIT (src/jit/cc.c): every
bad entry is detected and rebuilt, never loaded; the user's directories keep their modes;
an unusable directory means compiling in memory with one warning; no temporaries remain.
Each case runs in a child process (a crash or hang there is a failure here, not the end of
the test run)."""
import glob
import os
import stat
import subprocess
import sys

import pytest

import ember as em

E = em._ember
pytestmark = pytest.mark.skipif(not E._cc_available(), reason="no C compiler")
PYPATH = os.path.join(os.path.dirname(__file__), "..", "..", "python")

# Each call of the child loads one kernel and prints what it returns; the
# constant makes distinct sources (distinct cache keys) when needed.
CHILD = """
import ctypes, sys, ember._ember as E
k = int(sys.argv[1])
h = E._cc_load("long em_t_dc(long x) { return x * %d + 1; }\\n" % k, "dc")
f = ctypes.CFUNCTYPE(ctypes.c_long, ctypes.c_long)(E._cc_sym(h, "em_t_dc"))
print(f(10))
"""


def run(cache, k=3, tmpdir=None, user=None, env_extra=None):
    env = dict(os.environ, PYTHONPATH=PYPATH, EMBER_DEBUG="2")
    if cache is not None:
        env["EMBER_CACHE_DIR"] = str(cache)
    if tmpdir is not None:
        env["TMPDIR"] = str(tmpdir)
    env.update(env_extra or {})
    pre = (lambda: os.setuid(user)) if user is not None else None
    p = subprocess.run([sys.executable, "-c", CHILD, str(k)], env=env, capture_output=True,
                       text=True, timeout=60, preexec_fn=pre)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == str(10 * k + 1), p.stderr
    return p.stderr


def entries(d):
    return sorted(glob.glob(os.path.join(str(d), "**", "*.so"), recursive=True))


def fill(cache, k=3):
    err = run(cache, k)
    assert "C kernel cache miss" in err
    (path,) = entries(cache)
    return path


def test_hit_after_miss_and_no_temporaries(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    cache = tmp_path / "c"
    path = fill(cache)
    assert "C kernel cache hit (disk)" in run(cache, tmpdir=tmp)
    assert os.listdir(tmp) == []  # build and load directories are gone
    assert os.listdir(cache) == [os.path.basename(path)]
    assert stat.S_IMODE(os.stat(cache).st_mode) == 0o700  # we created it


@pytest.mark.parametrize("size", ["zero", "header", "1000", "half", "minus1"])
def test_truncated_entry_is_rebuilt(tmp_path, size):
    cache = tmp_path / "c"
    path = fill(cache)
    n = os.path.getsize(path)
    os.truncate(path, {"zero": 0, "header": 24, "1000": 1000, "half": n // 2, "minus1": n - 1}[size])
    assert "C kernel cache miss" in run(cache)
    assert os.path.getsize(path) == n  # rewritten whole
    assert "C kernel cache hit (disk)" in run(cache)


def test_bit_flips_are_rebuilt(tmp_path):
    cache = tmp_path / "c"
    path = fill(cache)
    good = open(path, "rb").read()
    # Header (magic, size, checksum) and payload: ELF header, code, tables, the last byte.
    for pos in [0, 9, 17, 24, 30, 100, len(good) // 3, len(good) // 2, len(good) - 1]:
        for bit in (0, 7):
            bad = bytearray(good)
            bad[pos] ^= 1 << bit
            open(path, "wb").write(bytes(bad))
            assert "C kernel cache miss" in run(cache), (pos, bit)
            assert open(path, "rb").read() == good


def test_appended_bytes_are_rebuilt(tmp_path):
    cache = tmp_path / "c"
    path = fill(cache)
    with open(path, "ab") as f:
        f.write(b"\0")
    assert "C kernel cache miss" in run(cache)


def test_fifo_in_place_of_an_entry(tmp_path):
    cache = tmp_path / "c"
    path = fill(cache)
    os.unlink(path)
    os.mkfifo(path)
    assert "C kernel cache miss" in run(cache)  # no hang (run's timeout), rebuilt
    assert stat.S_ISREG(os.lstat(path).st_mode)


def test_directory_or_link_in_place_of_an_entry(tmp_path):
    cache = tmp_path / "c"
    path = fill(cache)
    good = open(path, "rb").read()
    os.unlink(path)
    os.mkdir(path)
    run(cache)  # cannot be replaced (rename over a directory fails): compiled, still right
    os.rmdir(path)
    other = tmp_path / "elsewhere.so"
    other.write_bytes(good)
    os.symlink(other, path)
    assert "C kernel cache miss" in run(cache)  # links are not followed


def test_valid_entry_under_the_wrong_name(tmp_path):
    cache = tmp_path / "c"
    a = fill(cache, 3)
    run(cache, 5)
    (b,) = [p for p in entries(cache) if p != a]
    open(b, "wb").write(open(a, "rb").read())  # k=3's object as k=5's entry
    assert "C kernel cache miss" in run(cache, 5)  # and run() checked it returns 51
    assert "C kernel cache hit (disk)" in run(cache, 5)


@pytest.mark.parametrize("mode", [0o777, 0o1777, 0o755, 0o750, 0o700])
def test_existing_directory_modes_are_kept(tmp_path, mode):
    cache = tmp_path / "c"
    cache.mkdir()
    os.chmod(cache, mode)
    run(cache)
    assert stat.S_IMODE(os.stat(cache).st_mode) == mode
    (path,) = entries(cache)
    if mode & 0o077:  # shared: our own private subdirectory
        sub = os.path.dirname(path)
        assert os.path.basename(sub) == f"ember-{os.geteuid()}"
        assert stat.S_IMODE(os.stat(sub).st_mode) == 0o700
    else:
        assert os.path.dirname(path) == str(cache)
    assert "C kernel cache hit (disk)" in run(cache)


def test_cache_dir_is_a_regular_file(tmp_path):
    f = tmp_path / "file"
    f.write_text("keep me")
    os.chmod(f, 0o644)
    err = run(f)
    assert err.count("ember: warning: kernel cache") == 1 and "Not a directory" in err
    assert f.read_text() == "keep me" and stat.S_IMODE(os.stat(f).st_mode) == 0o644


def test_unusable_parent_compiles_in_memory(tmp_path):
    f = tmp_path / "file"
    f.write_text("")
    err = run(f / "sub")  # a path through a file: mkdir fails
    assert err.count("ember: warning: kernel cache") == 1
    assert "C kernel cache miss" in err


def test_subdirectory_owned_by_someone_else(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root to chown")
    cache = tmp_path / "c"
    cache.mkdir()
    os.chmod(cache, 0o777)
    sub = cache / f"ember-{os.geteuid()}"
    sub.mkdir(mode=0o700)
    os.chown(sub, 65534, 65534)  # planted by another user
    err = run(cache)
    assert err.count("ember: warning: kernel cache") == 1 and "not a private directory" in err
    assert entries(cache) == []


def test_directory_of_another_user(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root to chown")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    cache = tmp_path / "c"
    cache.mkdir(mode=0o700)
    os.chown(cache, 65534, 65534)
    run(cache, tmpdir=tmp)
    run(cache, tmpdir=tmp)
    (path,) = entries(cache)  # one private subdirectory, reused
    assert os.path.dirname(path) == str(cache / "ember-0")
    assert os.listdir(tmp) == []
    assert os.stat(cache).st_uid == 65534 and stat.S_IMODE(os.stat(cache).st_mode) == 0o700


def test_read_only_directory_compiles_in_memory_and_warns_once(tmp_path):
    # Root writes anywhere, but not in /proc/self/fd: ours, private (0500) and unwritable.
    cache = tmp_path / "c"
    cache.mkdir(mode=0o500)
    if os.geteuid() == 0:
        cache = "/proc/self/fd"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    code = CHILD + "\nh2 = E._cc_load('long em_t_dc2(void) { return 2; }', 'dc2')\n"
    env = dict(os.environ, PYTHONPATH=PYPATH, EMBER_CACHE_DIR=str(cache), TMPDIR=str(tmp),
               EMBER_DEBUG="2")
    p = subprocess.run([sys.executable, "-c", code, "3"], env=env, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "31"
    assert p.stderr.count("ember: warning: kernel cache") == 1, p.stderr
    assert p.stderr.count("C kernel cache miss") == 2
    assert os.listdir(tmp) == []
    if os.geteuid() != 0:
        assert os.listdir(cache) == [] and stat.S_IMODE(os.stat(cache).st_mode) == 0o500
