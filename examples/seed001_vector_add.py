"""Seed 001, second part: the vector add kernel b[idx] += a[idx] on 2**20
float32 elements, checked against NumPy and timed the way the article does
(100 rounds, the first one a warm-up), but with the device synchronised
before the clock stops -- without that, a GPU timing only measures the
launch -- and each side's median round printed (warm against warm)."""
import time

import numpy as np

import ember as em


@em.jit
def gpu(a, b, DATA_LENGHTH):
    idx = em.threadIdx.x + em.blockIdx.x * em.blockDim.x
    if idx < DATA_LENGHTH:
        b[idx] += a[idx]


if __name__ == "__main__":
    np.random.seed(1)
    DATA_EXP_LENGTH = 20
    DATA_DIMENSION = 2**DATA_EXP_LENGTH
    rounds = 100 if em.get_device().kind == "cuda" else 10
    np_times = []
    em_times = []
    dev = em.get_device()
    threads = 256
    blocks = (DATA_DIMENSION + threads - 1) // threads
    for i in range(rounds):
        a = np.random.randn(DATA_DIMENSION).astype(np.float32)
        b = np.random.randn(DATA_DIMENSION).astype(np.float32)
        a_dev = em.array(a)    # copies, as cuda.to_device does (em.asarray would share
        b_dev = em.array(b)    # b's memory on the CPU, and the kernel would change b)
        dev.synchronize()
        time0 = time.perf_counter()
        gpu[blocks, threads](a_dev, b_dev, DATA_DIMENSION)
        dev.synchronize()
        time1 = time.perf_counter()
        c = b_dev.get()
        time2 = time.perf_counter()
        d = np.add(a, b)
        time3 = time.perf_counter()
        if i == 0:
            print("The error between ember and numpy is: ", float(np.abs(c - d).sum()))
            continue
        np_times.append(time3 - time2)
        em_times.append(time1 - time0)

    def median_ms(times):
        return sorted(times)[len(times) // 2] * 1e3

    print(f"The time cost of ember ({dev}) is: {median_ms(em_times):.3f} ms per round "
          f"(the kernel b += a; median of {rounds - 1} warm rounds)")
    print(f"The time cost of numpy is: {median_ms(np_times):.3f} ms per round "
          f"(np.add(a, b) into a new array; median of {rounds - 1} rounds)")
