"""@em.jit kernels on OpenCL devices (opencl:0, PoCL's CPU device in CI),
against NumPy models: what only OpenCL has to get right -- __local memory
(static and dynamic, passed to device functions), atomics per dtype in
global and local memory, 2-d and 3-d grids of work-groups, views passed as
(buffer, offset), the device's own work-group limit, and the rendered text
(work-item functions, barriers, address spaces).  The jit tests shared with
the CPU and CUDA (test_jit*.py) run here too through the `device` fixture."""
import numpy as np
import pytest

import ember as em

pytestmark = pytest.mark.skipif(not em.opencl.is_available(), reason="no OpenCL device")

DEV = "opencl:0"


def ocl(x):
    return em.asarray(np.array(x, copy=True), device=DEV)


# -- __local memory ----------------------------------------------------------------------------
@em.jit(device=True)
def tree_sum(s, t):
    """Sums s[0:blockDim.x] into s[0]: a device function taking a __local array."""
    step = em.blockDim.x // 2
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        em.syncthreads()
        step //= 2


@em.jit
def block_sums(a, out):
    s = em.shared.array(256, np.float32)
    t = em.threadIdx.x
    i = em.grid(1)
    s[t] = a[i] if i < a.size else np.float32(0)
    em.syncthreads()
    tree_sum(s, t)
    if t == 0:
        out[em.blockIdx.x] = s[0]


@pytest.mark.parametrize("threads", [64, 256])
def test_local_memory_reduction(rng, threads):
    a = rng.integers(-100, 100, 3000).astype(np.float32)
    blocks = -(-a.size // threads)
    out = em.zeros(blocks, dtype="float32", device=DEV)
    block_sums[blocks, threads](ocl(a), out)
    pad = np.concatenate([a, np.zeros(blocks * threads - a.size, np.float32)])
    np.testing.assert_array_equal(out.get(), pad.reshape(blocks, threads).sum(axis=1))


@em.jit
def dyn_reverse(a, out):
    s = em.shared.array(0, np.int64)
    t = em.threadIdx.x
    base = em.blockIdx.x * em.blockDim.x
    s[t] = a[base + t]
    em.syncthreads()
    out[base + t] = s[s.shape[0] - 1 - t]


def test_dynamic_local_memory_per_group():
    a = np.arange(4 * 32, dtype=np.int64)
    out = em.zeros(a.size, dtype="int64", device=DEV)
    dyn_reverse[4, 32, None, 32 * 8](ocl(a), out)
    np.testing.assert_array_equal(out.get(), a.reshape(4, 32)[:, ::-1].ravel())


@em.jit
def local_histogram(x, bins):
    """Per-group counts in __local memory (local atomics), then one global atomic per bin."""
    s = em.shared.array(16, np.int32)
    t = em.threadIdx.x
    if t < 16:
        s[t] = 0
    em.syncthreads()
    i = em.grid(1)
    if i < x.size:
        em.atomic.add(s, x[i] % 16, 1)
    em.syncthreads()
    if t < 16:
        em.atomic.add(bins, t, s[t])


def test_local_and_global_atomics(rng):
    x = rng.integers(0, 1000, 10000).astype(np.int32)
    bins = em.zeros(16, dtype="int32", device=DEV)
    local_histogram[-(-x.size // 128), 128](ocl(x), bins)
    np.testing.assert_array_equal(bins.get(), np.bincount(x % 16, minlength=16))


# -- atomics on every dtype ----------------------------------------------------------------------
@em.jit
def atomic_ops(x, acc):
    i = em.grid(1)
    if i < x.size:
        em.atomic.add(acc, 0, x[i])
        em.atomic.sub(acc, 1, x[i])
        em.atomic.max(acc, 2, x[i])
        em.atomic.min(acc, 3, x[i])
        em.atomic.exch(acc, 4, x[i])


@pytest.mark.parametrize("dt", ["int32", "int64", "uint32", "uint64", "float32", "float64"])
def test_atomics_each_dtype(rng, dt):
    x = rng.integers(1, 50, 4000).astype(dt)  # small integers: float sums are exact
    start = np.array([0, 10 ** 6, 0, 100, -1], dtype=np.float64).astype(dt)
    acc = ocl(start)
    atomic_ops[-(-x.size // 64), 64](ocl(x), acc)
    got = acc.get()
    assert got[0] == x.sum(dtype=dt)
    assert got[1] == np.array(10 ** 6, dt) - x.sum(dtype=dt)
    assert got[2] == x.max() and got[3] == x.min()
    assert got[4] in set(x.tolist())  # the last exchange wins: one of the values


@em.jit
def atomic_cas_claim(owner, ids):
    """Each work-item tries to claim the slot; only the first cas from 0 succeeds."""
    i = em.grid(1)
    if i < ids.size:
        old = em.atomic.cas(owner, 0, 0, ids[i])
        if old == 0:
            em.atomic.add(owner, 1, 1)


@pytest.mark.parametrize("dt", ["int32", "int64", "uint32", "uint64"])
def test_atomic_cas_each_dtype(dt):
    ids = np.arange(1, 1001, dtype=dt)
    owner = em.zeros(2, dtype=dt, device=DEV)
    atomic_cas_claim[10, 100](owner, ocl(ids))
    got = owner.get()
    assert got[1] == 1 and 1 <= got[0] <= 1000


@em.jit
def float_max_min(x, out):
    i = em.grid(1)
    if i < x.size:
        em.atomic.max(out, 0, x[i])
        em.atomic.min(out, 1, x[i])


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_atomic_float_max_min_compare_exchange(rng, dt):
    x = rng.standard_normal(5000).astype(dt)
    out = ocl(np.array([-np.inf, np.inf], dtype=dt))
    float_max_min[50, 100](ocl(x), out)
    np.testing.assert_array_equal(out.get(), [x.max(), x.min()])


# -- 2-d and 3-d grids -----------------------------------------------------------------------------
@em.jit
def fill3(out):
    i, j, k = em.grid(3)
    ni, nj, nk = em.gridsize(3)
    if i < out.shape[0] and j < out.shape[1] and k < out.shape[2]:
        out[i, j, k] = i * 10000 + j * 100 + k + 0 * (ni + nj + nk)


@em.jit
def transpose2(a, out):
    x, y = em.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[x, y] = a[y, x]


def test_3d_grid():
    out = em.zeros((7, 5, 9), dtype="int64", device=DEV)
    fill3[(3, 2, 3), (4, 4, 4)](out)
    i, j, k = np.indices((7, 5, 9))
    np.testing.assert_array_equal(out.get(), i * 10000 + j * 100 + k)


def test_2d_grid_strided_views(rng):
    """Views at an offset and with strides: each array is (buffer, offset, shape, strides)."""
    base = rng.standard_normal((40, 50)).astype(np.float32)
    a = ocl(base)[3:, 1::2]
    want = base[3:, 1::2].T
    out = em.zeros(want.shape, dtype="float32", device=DEV)
    transpose2[(2, 3), (16, 16)](a, out)
    np.testing.assert_array_equal(out.get(), want)


@em.jit
def scale_into(a, out, f):
    i = em.grid(1)
    if i < out.size and i < a.size:
        out[i] = a[i] * f


def test_view_at_offset_and_host_arrays():
    a = np.arange(100, dtype=np.float64)
    ea = ocl(a)
    out = ocl(np.zeros(100))
    scale_into[2, 64](ea[30:], out[10:], 2.0)  # both views at a byte offset into their buffers
    want = np.zeros(100)
    want[10:80] = a[30:] * 2
    np.testing.assert_array_equal(out.get(), want)
    host = np.zeros(8)
    with em.Device(DEV):
        scale_into[1, 8](np.arange(8.0), host, 3.0)  # NumPy in: copied there and back
    np.testing.assert_array_equal(host, np.arange(8.0) * 3)


# -- limits and errors ---------------------------------------------------------------------
def test_work_group_over_the_device_limit_names_it():
    limit = em.opencl.device_info(DEV)["max_work_group_size"]
    out = em.zeros(1, dtype="int64", device=DEV)
    block = (64, 64, 64)  # 262144 work-items: past every device's limit
    assert 64 ** 3 > limit
    with pytest.raises(em.LaunchError, match=r"work-group of 262144 items exceeds the limit of "
                                             r"\d+ on opencl:0"):
        fill3[1, block](out.reshape(1, 1, 1))
    # the same configuration elsewhere gets the CPU/CUDA limit
    with pytest.raises(em.LaunchError, match="threads per block"):
        fill3[1, block](em.zeros((1, 1, 1), dtype="int64", device="cpu"))


def test_too_many_work_groups_is_a_value_error():
    """A grid within CUDA's limits but past 2^32 - 1 work-groups in all is
    refused before the launch (PoCL's scheduler aborted the process on
    one); the device runs the next launch as before."""
    out = em.zeros((2, 2, 1), dtype="int64", device=DEV)
    with pytest.raises(ValueError, match=r"global size \(2147483647, 65535, 1\) with local "
                                         r"size \(1, 1, 1\) is 140735340806145 work-groups; a "
                                         r"launch on opencl:0 may have at most 4294967295"):
        fill3[(2**31 - 1, 65535, 1), (1, 1, 1)](out)
    fill3[(1, 1, 1), (2, 2, 1)](out)
    i, j, k = np.indices((2, 2, 1))
    np.testing.assert_array_equal(out.get(), i * 10000 + j * 100 + k)


def test_work_group_past_cuda_limit_runs_where_the_device_allows():
    limit = em.opencl.device_info(DEV)["max_work_group_size"]
    if limit < 2048:
        pytest.skip(f"opencl:0 allows {limit} work-items per group")
    out = em.zeros(2048, dtype="float64", device=DEV)
    scale_into[1, 2048](em.ones(2048, dtype="float64", device=DEV), out, 1.5)
    np.testing.assert_array_equal(out.get(), np.full(2048, 1.5))


@em.jit(boundscheck=True)
def oob_write(a, n):
    a[n] = 1


def test_bounds_checking():
    a = em.zeros(4, dtype="int32", device=DEV)
    oob_write[1, 1](a, 3)
    np.testing.assert_array_equal(a.get(), [0, 0, 0, 1])
    b = em.zeros(4, dtype="int32", device=DEV)
    with pytest.raises(IndexError, match="out of bounds"):
        oob_write[1, 1](b, 9)
    np.testing.assert_array_equal(b.get(), [0, 0, 0, 0])  # the store was skipped


def test_devices_must_agree():
    with pytest.raises(ValueError, match="different devices"):
        scale_into[1, 4](em.zeros(4, device=DEV), em.zeros(4, device="cpu"), 1.0)


# -- the rendered text ---------------------------------------------------------------------
def test_rendered_opencl_c():
    a = em.zeros(256, dtype="float32", device=DEV)
    src = block_sums.render(a, a, device="opencl")
    for piece in ("__kernel void em_block_sums(__global char *", "ulong ", "get_local_id(0)",
                  "get_group_id(0)", "get_local_size(0)", "__local em_f32 ",
                  "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
                  "_tree_sum(em_ctx *em_c, __local em_f32 *"):  # a __local parameter
        assert piece in src, piece
    h = local_histogram.render(em.zeros(4, dtype="int32", device=DEV), a.astype("int32"),
                               device="opencl")
    assert "em_atomic_add_int32_l(" in h and "em_atomic_add_int32_g(" in h
    g = fill3.render(em.zeros((1, 1, 1), dtype="int64", device=DEV), device="opencl")
    assert "get_num_groups(2)" in g and "get_local_id(2)" in g


@em.jit
def say(a):
    if em.grid(1) == 0:
        print("v", a[0], 3, True)


def test_print_is_printf(capfd):
    say[1, 2](ocl(np.array([0.25], np.float32)))
    with em.Device(DEV):
        em.synchronize()
    assert capfd.readouterr().out == "v 0.25 3 True\n"
    # OpenCL's %s takes a string literal only (NVIDIA's queue died on a ternary of two): a
    # bool's word is in the format, one printf per value
    src = say.render(ocl(np.zeros(1, np.float32)), device="opencl")
    assert 'printf("v %g %ld True\\n"' in src and 'printf("v %g %ld False\\n"' in src
    assert '? "True"' not in src


@em.jit
def say_two(a):
    if em.grid(1) == 0:
        print("x", a[0] > 1, "y", a[0] < 1, a[0])


def test_print_of_two_bools(capfd):
    for v, want in [(2.0, "x True y False 2\n"), (0.5, "x False y True 0.5\n")]:
        say_two[1, 1](ocl(np.array([v], np.float32)))
        with em.Device(DEV):
            em.synchronize()
        assert capfd.readouterr().out == want


@em.jit
def private_atomic(out):
    p = em.local.array(4, np.int32)
    p[0] = 0
    em.atomic.add(p, 0, 1)
    out[0] = p[0]


def test_atomics_on_private_memory_are_refused():
    with pytest.raises(em.CompileError, match="local \\(private\\) array: OpenCL has atomics on "
                                              "global and shared memory only"):
        private_atomic[1, 1](em.zeros(1, dtype="int32", device=DEV))
    cpu = em.zeros(1, dtype="int32", device="cpu")
    private_atomic[1, 1](cpu)  # the CPU has them
    assert int(cpu.get()[0]) == 1
