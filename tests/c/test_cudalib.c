/* cuFFT and cuSOLVER bindings (src/backend/cudalib/) without a GPU:
 * - the symbol lists resolve against the real libraries when the CUDA
 *   toolkit is installed (em_cudalib_probe binds a scratch table);
 * - a missing library (EMBER_LIBCUFFT / EMBER_LIBCUSOLVER naming a path
 *   that does not exist) is reported as unavailable, and a call on a CUDA
 *   array (the fake driver of test_cuda_fake.c) returns EM_EDEVICE saying
 *   so, which is what sends Python to the host path;
 * - bad arguments are refused before any library is touched. */
#include "backend/cudalib/cudalib.h"
#include "ctest.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

static const em_device gpu = {EM_CUDA, 0};
static bool have_fake;

static void probe(int which, const char *const *paths) {
    int found = 0;
    for (int i = 0; paths[i]; i++) {
        if (access(paths[i], R_OK) != 0) continue;
        found++;
        CHECK(em_cudalib_probe(which, paths[i]) == EM_OK);
    }
    if (!found) printf("  (no %s installed: symbol lists not checked)\n", paths[0]);
}

static void test_symbols_resolve(void) {
    const char *fft[] = {"/usr/local/cuda/lib64/libcufft.so.12",
                         "/usr/local/cuda-13.0/lib64/libcufft.so.12",
                         "/usr/local/cuda-12/lib64/libcufft.so.11", NULL};
    const char *sol[] = {"/usr/local/cuda/lib64/libcusolver.so.12",
                         "/usr/local/cuda-13.0/lib64/libcusolver.so.12",
                         "/usr/local/cuda-12/lib64/libcusolver.so.11", NULL};
    const char *blas[] = {"/usr/local/cuda/lib64/libcublas.so.13",
                          "/usr/local/cuda-13.0/lib64/libcublas.so.13",
                          "/usr/local/cuda-12/lib64/libcublas.so.12", NULL};
    probe(EM_CUDALIB_CUFFT, fft);
    probe(EM_CUDALIB_CUSOLVER, sol);
    probe(EM_CUDALIB_CUBLAS, blas);
    /* A library without the symbols: the message names the first missing one. */
    CHECK(em_cudalib_probe(EM_CUDALIB_CUFFT, "libm.so.6") == EM_EDEVICE);
    CHECK(strstr(em_last_error(), "symbol cufftGetVersion missing") != NULL);
    CHECK(em_cudalib_probe(EM_CUDALIB_CUSOLVER, "/nonexistent/libcusolver.so") == EM_EDEVICE);
    CHECK(strstr(em_last_error(), "could not load /nonexistent/libcusolver.so") != NULL);
}

static void test_missing_library(void) {
    CHECK(!em_cudalib_available(EM_CUDALIB_CUFFT));
    CHECK(!em_cudalib_available(EM_CUDALIB_CUSOLVER));
    if (!have_fake) return;
    int64_t sh[2] = {4, 8};
    em_array x = {0}, out = {0}, lu = {0}, ip = {0}, info = {0};
    CHECK(em_array_empty(&x, EM_COMPLEX64, 2, sh, gpu) == EM_OK);
    CHECK(em_cuda_fft(&x, 1, EM_FFT_FORWARD, 0, &out) == EM_EDEVICE);
    CHECK(strstr(em_last_error(), "cuFFT is unavailable: could not load "
                                  "EMBER_LIBCUFFT=/nonexistent/libcufft.so.12") != NULL);
    int64_t sq[3] = {2, 3, 3};
    em_array a = {0};
    CHECK(em_array_empty(&a, EM_FLOAT64, 3, sq, gpu) == EM_OK);
    CHECK(em_cuda_getrf(&a, &lu, &ip, &info) == EM_EDEVICE);
    CHECK(strstr(em_last_error(), "cuSOLVER is unavailable") != NULL);
    CHECK(lu.buf == NULL && ip.buf == NULL && info.buf == NULL); /* nothing leaks out */
    em_array_release(&a);
    em_array_release(&x);
}

static void test_bad_arguments(void) {
    int64_t sh[2] = {4, 8};
    em_array cpu = {0}, out = {0}, w = {0}, v = {0}, info = {0};
    CHECK(em_array_empty(&cpu, EM_COMPLEX64, 2, sh, (em_device){EM_CPU, 0}) == EM_OK);
    CHECK(em_cuda_fft(&cpu, 1, EM_FFT_FORWARD, 0, &out) == EM_EDEVICE);
    CHECK(em_cuda_syevd(&cpu, true, false, &w, &v, &info) == EM_EDEVICE);
    em_array_release(&cpu);
    if (!have_fake) return;
    em_array r = {0}, z = {0}, i64 = {0};
    CHECK(em_array_empty(&r, EM_FLOAT32, 2, sh, gpu) == EM_OK);
    CHECK(em_cuda_fft(&r, 1, EM_FFT_FORWARD, 0, &out) == EM_ETYPE); /* C2C wants complex */
    CHECK(strstr(em_last_error(), "complex64 or complex128 input, got float32") != NULL);
    CHECK(em_cuda_fft(&r, 3, EM_FFT_R2C, 0, &out) == EM_EVALUE); /* rank > ndim */
    CHECK(em_cuda_fft(&r, 1, 7, 0, &out) == EM_EVALUE);
    int64_t e[2] = {4, 0};
    CHECK(em_array_empty(&z, EM_FLOAT32, 2, e, gpu) == EM_OK);
    CHECK(em_cuda_fft(&z, 1, EM_FFT_R2C, 0, &out) == EM_EVALUE);
    CHECK(strstr(em_last_error(), "Invalid number of FFT data points (0) specified.") != NULL);
    em_array c = {0};
    int64_t c5[2] = {4, 5};
    CHECK(em_array_empty(&c, EM_COMPLEX128, 2, c5, gpu) == EM_OK);
    CHECK(em_cuda_fft(&c, 1, EM_FFT_C2R, 10, &out) == EM_EVALUE); /* 10 real points: 6 inputs */
    CHECK(strstr(em_last_error(), "takes 6 complex inputs, got 5") != NULL);
    /* cuSOLVER: square matrices, float/complex dtypes, ndim >= 2. */
    CHECK(em_cuda_syevd(&r, true, false, &w, &v, &info) == EM_EVALUE);
    CHECK(strstr(em_last_error(), "must be square") != NULL);
    CHECK(em_array_empty(&i64, EM_INT64, 2, sh, gpu) == EM_OK);
    CHECK(em_cuda_geqrf(&i64, &out, &w, &info) == EM_ETYPE);
    em_array s = {0}, u = {0}, vt = {0};
    em_array wide = {0};
    int64_t w84[2] = {8, 4};
    CHECK(em_array_empty(&wide, EM_FLOAT32, 2, w84, gpu) == EM_OK);
    CHECK(em_cuda_gesvd(&wide, 1, &s, &u, &vt, &info) == EM_EVALUE); /* 4 x 8 col-major: m < n */
    em_array_release(&wide);
    CHECK(strstr(em_last_error(), "m >= n") != NULL);
    CHECK(out.buf == NULL && w.buf == NULL && s.buf == NULL && info.buf == NULL);
    em_array_release(&r), em_array_release(&z), em_array_release(&c), em_array_release(&i64);
}

static bool load_fake(const char *dir) {
    char src[4096], lib[600], cmd[5000];
    const char *f = __FILE__, *slash = strrchr(f, '/');
    snprintf(src, sizeof src, "%.*s/fake_libcuda.c", (int)(slash ? slash - f : 1), slash ? f : ".");
    snprintf(lib, sizeof lib, "%s/libfakecuda.so", dir);
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -O1 -o %s %s", lib, src);
    if (system(cmd) != 0) return false;
    setenv("EMBER_LIBCUDA", lib, 1);
    return true;
}

int main(void) {
    char dir[] = "/tmp/ember_cudalib_XXXXXX", cmd[200];
    if (!mkdtemp(dir)) return 1;
    setenv("EMBER_CACHE_DIR", dir, 1);
    setenv("EMBER_LIBCUFFT", "/nonexistent/libcufft.so.12", 1);
    setenv("EMBER_LIBCUSOLVER", "/nonexistent/libcusolver.so.12", 1);
    have_fake = load_fake(dir);
    if (!have_fake) printf("  (no cc: the fake driver's checks are skipped)\n");
    RUN(test_symbols_resolve);
    RUN(test_missing_library);
    RUN(test_bad_arguments);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return ctest_summary();
}
