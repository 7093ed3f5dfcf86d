"""Raw CUDA C kernels on the CPU device: the C subset of CUDA compiled with
the system C compiler, checked against NumPy."""
import numpy as np
import pytest

import ember as em

pytestmark = pytest.mark.skipif(not em._ember._cc_available(), reason="no C compiler")

SRC = r'''
extern "C" __global__ void multiply_them(float *dest, float *a, float *b)
{
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
}

extern "C" {
__global__ void block_sum(const float *x, float *out, int n) {
    __shared__ float s[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

__global__ void histogram(const int *x, unsigned int *bins, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[x[i]], 1u);
}

__global__ void grid2d(double *out, int rows, int cols, double scale) {
    int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows && c < cols) out[r * cols + c] = scale * r + c + sqrt(4.0);
}

__global__ void reverse_dyn(const int *x, int *y, int n) {
    extern __shared__ int tmp[];
    int t = threadIdx.x;
    tmp[t] = x[t];
    __syncthreads();
    y[t] = tmp[n - 1 - t];
}

__global__ void hello(void) {
    printf("block %d thread %d\n", blockIdx.x, threadIdx.x);
}
}
'''


@pytest.fixture
def mod():
    with em.Device("cpu"):
        yield em.RawModule(code=SRC)


def test_multiply_them_seed000(mod):
    with em.Device("cpu"):
        f = mod.get_function("multiply_them")
        rng = np.random.default_rng(0)
        a, b = rng.standard_normal(400).astype(np.float32), rng.standard_normal(400).astype(np.float32)
        dest = em.zeros(400, dtype=em.float32)
        f((1,), (400,), (dest, em.asarray(a), em.asarray(b)))
        np.testing.assert_array_equal(dest.get(), a * b)


def test_shared_memory_barriers_and_float_atomics(mod):
    with em.Device("cpu"):
        x = np.random.default_rng(1).random(10_000).astype(np.float32)
        out = em.zeros(1, dtype=em.float32)
        mod.get_function("block_sum")(((10_000 + 127) // 128,), (128,), (em.asarray(x), out, np.int32(10_000)))
        np.testing.assert_allclose(out.get()[0], x.astype(np.float64).sum(), rtol=1e-5)


def test_integer_atomics_under_contention(mod):
    with em.Device("cpu"):
        x = np.random.default_rng(2).integers(0, 8, 100_000).astype(np.int32)
        bins = em.zeros(8, dtype=em.uint32)
        mod.get_function("histogram")((400,), (256,), (em.asarray(x), bins, x.size))
        np.testing.assert_array_equal(bins.get(), np.bincount(x, minlength=8))


def test_2d_grid_and_scalar_conversions(mod):
    with em.Device("cpu"):
        out = em.zeros((37, 50))
        mod.get_function("grid2d")((4, 3), (16, 16), (out, np.int32(37), 50, 0.5))
        r, c = np.mgrid[:37, :50]
        np.testing.assert_array_equal(out.get(), 0.5 * r + c + 2.0)


def test_dynamic_shared_memory(mod):
    with em.Device("cpu"):
        x = em.arange(64, dtype=em.int32)
        y = em.zeros(64, dtype=em.int32)
        mod.get_function("reverse_dyn")((1,), (64,), (x, y, np.int32(64)), shared_mem=64 * 4)
        np.testing.assert_array_equal(y.get(), np.arange(64)[::-1])


def test_printf_in_block_thread_order(mod, capfd):
    with em.Device("cpu"):
        mod.get_function("hello")((2,), (3,), ())
    out = capfd.readouterr().out.splitlines()
    assert out == [f"block {b} thread {t}" for b in range(2) for t in range(3)]


def test_errors(mod):
    with em.Device("cpu"):
        f = mod.get_function("multiply_them")
        with pytest.raises(em.LaunchError, match="1024"):
            f((1,), (2048,), (em.zeros(4, dtype=em.float32),) * 3)
        with pytest.raises(TypeError, match="argument 2 has unsupported type 'str'"):
            f((1,), (4,), (em.zeros(4, dtype=em.float32), em.zeros(4, dtype=em.float32), "x"))
        bad = em.RawKernel("template <typename T> __global__ void k(T *x) { x[0] = 1; }", "k")
        with pytest.raises(em.CompileError, match="compiled as C11"):
            bad((1,), (1,), (em.zeros(1),))
        # the process keeps working
        dest = em.zeros(4, dtype=em.float32)
        f((1,), (4,), (dest, em.ones(4, dtype=em.float32), em.full(4, 3.0, dtype=em.float32)))
        assert dest.get().tolist() == [3.0] * 4
