"""em.random's distributions against NumPy's moments: fixed seeds, sample
sizes and tolerances of about five standard errors (a wrong transform or
parameter misses them by far more), plus exact properties (support, dtype,
shape, reproducibility) and NumPy's errors for bad parameters."""
import numpy as np
import pytest

import ember as em

N = 200_000

# name, args, (mean, variance) of the distribution
CASES = [
    ("exponential", (2.0,), (2.0, 4.0)),
    ("standard_exponential", (), (1.0, 1.0)),
    ("gumbel", (1.0, 2.0), (1.0 + 2.0 * np.euler_gamma, np.pi ** 2 / 6 * 4)),
    ("laplace", (1.0, 2.0), (1.0, 8.0)),
    ("logistic", (1.0, 2.0), (1.0, 4.0 * np.pi ** 2 / 3)),
    ("lognormal", (0.0, 0.5), (np.exp(0.125), (np.exp(0.25) - 1) * np.exp(0.25))),
    ("rayleigh", (2.0,), (2.0 * np.sqrt(np.pi / 2), (4 - np.pi) / 2 * 4)),
    ("weibull", (1.5,), (0.9027452929509336, 0.37569028405845)),
    ("pareto", (5.0,), (0.25, 5.0 / (16 * 3))),
    ("power", (2.0,), (2.0 / 3, 2.0 / (9 * 4))),
    ("triangular", (0.0, 1.0, 3.0), (4.0 / 3, (9 + 1 - 3) / 18)),
    ("wald", (2.0, 3.0), (2.0, 8.0 / 3)),
    ("geometric", (0.2,), (5.0, 0.8 / 0.04)),
    ("gamma", (2.0, 3.0), (6.0, 18.0)),
    ("standard_gamma", (2.5,), (2.5, 2.5)),
    ("standard_gamma", (0.3,), (0.3, 0.3)),  # shape < 1: gamma(k + 1) * U ** (1 / k)
    ("beta", (0.5, 0.5), (0.5, 0.125)),
    ("beta", (2.0, 3.0), (0.4, 6 / (25 * 6))),
    ("chisquare", (4.0,), (4.0, 8.0)),
    ("f", (5.0, 10.0), (1.25, 2 * 100 * 13 / (5 * 64 * 6))),
    ("standard_t", (5.0,), (0.0, 5.0 / 3)),
    ("poisson", (3.0,), (3.0, 3.0)),  # inversion (lam < 10)
    ("poisson", (50.0,), (50.0, 50.0)),  # PTRS rejection (lam >= 10)
    ("poisson", (1e4,), (1e4, 1e4)),
    ("binomial", (10, 0.3), (3.0, 2.1)),
    ("negative_binomial", (5, 0.5), (5.0, 10.0)),
    ("hypergeometric", (10, 20, 6), (2.0, 6 * (1 / 3) * (2 / 3) * 24 / 29)),
    ("vonmises", (0.0, 2.0), (0.0, None)),  # mu = 0: the linear mean is mu (no wrap bias)
    ("logseries", (0.5,), (-0.5 / (0.5 * np.log(0.5)), None)),
    ("zipf", (4.0,), (1.1106174, None)),
    ("noncentral_chisquare", (3.0, 2.0), (5.0, 14.0)),  # df > 1
    ("noncentral_chisquare", (0.5, 2.0), (2.5, 9.0)),  # df <= 1: the Poisson mixture
    ("noncentral_chisquare", (3.0, 0.0), (3.0, 6.0)),
    ("noncentral_f", (5.0, 20.0, 3.0), (20 * 8 / (5 * 18), None)),
    ("negative_binomial", (2.5, 0.3), (2.5 * 0.7 / 0.3, 2.5 * 0.7 / 0.09)),
]


@pytest.mark.parametrize("name,args,moments", CASES, ids=[f"{c[0]}{c[1]}" for c in CASES])
def test_moments(device, name, args, moments):
    g = em.random.default_rng(2024)
    x = getattr(g, name)(*args, size=N)
    assert isinstance(x, em.ndarray) and x.shape == (N,)
    want = getattr(np.random.default_rng(7), name)(*args, size=10)
    assert x.dtype == want.dtype, (x.dtype, want.dtype)
    h = x.get().astype(np.float64)
    mean, var = moments
    sd = np.sqrt(var if var is not None else h.var())
    assert abs(h.mean() - mean) < 5 * sd / np.sqrt(N), (h.mean(), mean)
    if var is not None and name not in ("pareto",):  # pareto(5) has a heavy fourth moment
        # the variance's standard error: sqrt((m4 - var^2) / N)
        m4 = np.mean((h - h.mean()) ** 4)
        assert abs(h.var() - var) < 6 * np.sqrt(max(m4 - var ** 2, 1e-12) / N), (h.var(), var)


def test_same_seed_same_numbers_and_array_parameters(device):
    a = em.random.default_rng(5).gumbel(0.0, 1.0, size=100)
    b = em.random.default_rng(5).gumbel(0.0, 1.0, size=100)
    np.testing.assert_array_equal(a.get(), b.get())
    s = em.random.default_rng(5).exponential(em.asarray([1.0, 10.0]), size=(50_000, 2)).get()
    assert abs(s[:, 0].mean() - 1) < 0.03 and abs(s[:, 1].mean() - 10) < 0.3
    t = em.random.default_rng(5).triangular([0.0, 5.0], 6.0, 7.0)
    assert t.shape == (2,)
    p = em.random.default_rng(5).poisson([1.0, 100.0], size=(3, 2))
    assert p.shape == (3, 2) and p.dtype == np.int64


def test_support(device):
    g = em.random.default_rng(9)
    assert float(em.min(g.geometric(0.9, size=10_000))) >= 1
    assert float(em.min(g.geometric(1.0, size=100))) == 1
    w = g.power(0.5, size=10_000).get()
    assert w.min() >= 0 and w.max() <= 1
    t = g.triangular(-1.0, 0.0, 2.0, size=10_000).get()
    assert t.min() >= -1 and t.max() <= 2
    assert float(em.min(g.wald(1.0, 1.0, size=10_000))) > 0
    assert float(em.max(g.weibull(0.0, size=10))) == 0.0


@pytest.mark.parametrize("call,msg", [
    (lambda g: g.exponential(-1.0), "scale < 0"),
    (lambda g: g.laplace(0.0, -2.0), "scale < 0"),
    (lambda g: g.pareto(0.0), "a <= 0"),
    (lambda g: g.triangular(2.0, 1.0, 3.0), "left > mode"),
    (lambda g: g.triangular(1.0, 1.0, 1.0), "left == right"),
    (lambda g: g.wald(0.0, 1.0), "mean <= 0"),
    (lambda g: g.geometric(1.5), "p <= 0, p > 1"),
    (lambda g: g.choice(3, 5, replace=False), "Cannot take a larger sample"),
    (lambda g: g.choice(3, p=[0.5, 0.5]), "a and p must have same size"),
    (lambda g: g.choice(3, p=[0.5, 0.6, -0.1]), "probabilities are not non-negative"),
    (lambda g: g.choice(3, p=[0.5, 0.6, 0.1]), "probabilities do not sum to 1"),
    (lambda g: g.choice(0, 2), "a cannot be empty"),
    (lambda g: g.choice(3, 3, replace=False, p=[0.5, 0.5, 0.0]), "Fewer non-zero entries in p"),
    (lambda g: g.multivariate_normal([0.0], [[1.0, 0.0]]), "cov must be 2 dimensional and square"),
    (lambda g: g.exponential(1.0, size=(3,)) if False else g.exponential([1.0, 2.0], size=3),
     "shape mismatch"),
])
def test_bad_parameters(device, call, msg):
    with pytest.raises(ValueError, match=msg):
        call(em.random.default_rng(0))


def test_choice(device):
    g = em.random.default_rng(11)
    x = g.choice(5, size=100_000, p=[0.1, 0.2, 0.3, 0.4, 0.0]).get()
    freq = np.bincount(x, minlength=5) / x.size
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.3, 0.4, 0.0], atol=0.006)
    u = g.choice(4, size=100_000).get()
    np.testing.assert_allclose(np.bincount(u) / u.size, 0.25, atol=0.006)
    s = g.choice(em.arange(10) * 3, size=10, replace=False).get()
    assert sorted(s.tolist()) == list(range(0, 30, 3))
    # without replacement, with p: the first pick follows p, no repeats
    # (1000 draws, about 3.2 standard errors of the 0.6: 3000 took 47 s on PoCL)
    picks = np.array([g.choice(3, size=2, replace=False, p=[0.6, 0.3, 0.1]).get() for _ in range(1000)])
    assert (picks[:, 0] != picks[:, 1]).all()
    np.testing.assert_allclose(np.bincount(picks[:, 0], minlength=3) / 1000, [0.6, 0.3, 0.1], atol=0.05)
    r = g.choice(em.arange(12).reshape(3, 4), 2, axis=1)
    assert r.shape == (3, 2)
    assert g.choice(5).shape == ()


def test_permutation_shuffle_permuted(device):
    g = em.random.default_rng(3)
    p = g.permutation(10).get()
    assert sorted(p.tolist()) == list(range(10)) and p.tolist() != list(range(10))
    a = em.arange(12).reshape(4, 3)
    q = g.permutation(a).get()
    assert sorted(map(tuple, q.tolist())) == sorted(map(tuple, a.get().tolist()))
    q1 = g.permutation(a, axis=1).get()
    assert (np.sort(q1, axis=1) == a.get()).all()
    x = em.arange(20)
    g.shuffle(x)
    assert sorted(x.tolist()) == list(range(20)) and x.tolist() != list(range(20))
    with pytest.raises(TypeError):
        g.shuffle([1, 2, 3])
    pr = g.permuted(em.arange(20).reshape(2, 10), axis=1).get()
    assert (np.sort(pr, axis=1) == np.arange(20).reshape(2, 10)).all()
    assert not (pr[0] + 10 == pr[1]).all()  # rows shuffled independently
    first = np.array([g.permutation(3).get()[0] for _ in range(3000)])
    np.testing.assert_allclose(np.bincount(first) / 3000, 1 / 3, atol=0.03)


def test_multivariate_normal_and_misc(device):
    g = em.random.default_rng(4)
    cov = np.array([[1.0, 0.5], [0.5, 2.0]])
    x = g.multivariate_normal([1.0, -2.0], cov, size=100_000)
    assert x.shape == (100_000, 2)
    h = x.get()
    np.testing.assert_allclose(h.mean(0), [1.0, -2.0], atol=0.015)
    np.testing.assert_allclose(np.cov(h.T), cov, atol=0.03)
    c = g.multivariate_normal([0.0, 0.0], cov, size=(4, 5), method="cholesky")
    assert c.shape == (4, 5, 2)
    with pytest.warns(RuntimeWarning, match="positive-semidefinite"):
        g.multivariate_normal([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]])
    d = g.dirichlet([1.0, 2.0, 3.0], size=1000).get()
    np.testing.assert_allclose(d.sum(1), 1.0)
    m = g.multinomial(20, [0.2, 0.8], size=50).get()
    assert (m.sum(1) == 20).all()
    assert len(g.bytes(7)) == 7 and isinstance(g.bytes(1), bytes)
    kids = g.spawn(2)
    assert kids[0].random(3).get().tolist() != kids[1].random(3).get().tolist()
    mh = g.multivariate_hypergeometric([3, 4, 5], 6, size=10).get()
    assert (mh.sum(1) == 6).all()
    assert g.standard_cauchy((3, 2)).shape == (3, 2)


def test_legacy_functions(device):
    em.random.seed(1)
    a = em.random.exponential(2.0, size=5)
    em.random.seed(1)
    b = em.random.exponential(2.0, size=5)
    np.testing.assert_array_equal(a.get(), b.get())
    assert em.random.random_integers(3, size=1000).get().min() == 1
    assert em.random.random_integers(3, size=1000).get().max() == 3
    assert em.random.ranf(3).shape == (3,) and em.random.sample(2).shape == (2,)
    assert isinstance(em.random.get_bit_generator(), em.random.Philox)
    bg = em.random.Philox(5)
    em.random.set_bit_generator(bg)
    assert em.random.get_bit_generator() is bg
    x = em.arange(10)
    em.random.shuffle(x)
    assert sorted(x.tolist()) == list(range(10))
    assert em.random.permutation(4).shape == (4,)
    assert em.random.choice(5, 3).shape == (3,)
    assert em.random.poisson(2.0, 4).dtype == np.int64


def test_gamma_family_parameters(device):
    g = em.random.default_rng(21)
    k = em.asarray([0.5, 1.0, 7.0])
    x = g.standard_gamma(k, size=(60_000, 3)).get()
    np.testing.assert_allclose(x.mean(0), [0.5, 1.0, 7.0], rtol=0.03)
    np.testing.assert_allclose(x.var(0), [0.5, 1.0, 7.0], rtol=0.06)
    assert g.standard_gamma(2.0, size=5, dtype=np.float32).dtype == np.float32
    assert float(em.max(g.standard_gamma(0.0, size=10))) == 0.0
    d = g.dirichlet([0.5, 2.0, 3.5], size=40_000).get()
    np.testing.assert_allclose(d.sum(1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(d.mean(0), [0.5 / 6, 2.0 / 6, 3.5 / 6], atol=0.005)
    for call, msg in [(lambda: g.gamma(-1.0), "shape < 0"), (lambda: g.beta(0.0, 1.0), "a <= 0"),
                      (lambda: g.chisquare(0), "df <= 0"), (lambda: g.f(1, 0), "dfden <= 0"),
                      (lambda: g.standard_t(-2), "df <= 0"), (lambda: g.dirichlet([1.0, -1.0]), "alpha < 0")]:
        with pytest.raises(ValueError, match=msg):
            call()


@pytest.mark.parametrize("lam", [4.0, 12.0])
def test_poisson_pmf(device, lam):
    """Frequencies against the exact probabilities, on both algorithms' sides."""
    import math
    k = em.random.default_rng(8).poisson(lam, size=200_000).get()
    freq = np.bincount(k, minlength=40)[:40] / k.size
    pmf = np.array([math.exp(-lam + j * math.log(lam) - math.lgamma(j + 1)) for j in range(40)])
    np.testing.assert_allclose(freq, pmf, atol=0.004)
    z = em.random.default_rng(8).poisson([0.0, 1.0], size=(10, 2)).get()
    assert (z[:, 0] == 0).all() and z.dtype == np.int64
    with pytest.raises(ValueError, match="lam < 0"):
        em.random.default_rng(8).poisson(-1.0)


@pytest.mark.parametrize("mu,kappa", [(0.0, 2.0), (1.0, 0.5), (3.0, 10.0), (0.0, 1e-9), (-2.0, 1e7)])
def test_vonmises_circular_moments(device, mu, kappa):
    """E[cos x], E[sin x] against a large NumPy sample; values in [-pi, pi]."""
    x = em.random.default_rng(13).vonmises(mu, kappa, size=200_000).get()
    y = np.random.default_rng(13).vonmises(mu, kappa, size=400_000)
    assert x.min() >= -np.pi and x.max() <= np.pi
    np.testing.assert_allclose([np.cos(x).mean(), np.sin(x).mean()],
                               [np.cos(y).mean(), np.sin(y).mean()], atol=0.008)


# binomial (one kernel, codegen/rand_dist.h) and the device algorithms of zipf /
# logseries (NumPy's rejection and Kemp methods, run here through the private
# methods on the CPU: the public ones take NumPy's algorithm there): frequencies
# against the exact probabilities.
def _freq(k, n):
    return np.bincount(np.minimum(k, n), minlength=n + 1)[:n] / k.size  # heavy tails clipped


@pytest.mark.parametrize("n,p", [(10, 0.3), (17, 0.5), (100, 0.05), (1000, 0.7)])
def test_binomial_device_algorithm_pmf(n, p):
    import math
    k = em.random.default_rng(21).binomial(n, p, 200_000, device="cpu").get()
    assert k.dtype == np.int64 and k.min() >= 0 and k.max() <= n
    lo = max(0, int(n * p - 6 * math.sqrt(n * p * (1 - p)) - 1))
    j = np.arange(lo, min(n, lo + 60) + 1)
    pmf = np.array([math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                             + i * math.log(p) + (n - i) * math.log1p(-p)) for i in j])
    np.testing.assert_allclose(_freq(k, n + 1)[j], pmf, atol=0.004)
    g = em.random.default_rng(21)
    assert (g.binomial(5, 0.0, 100, device="cpu").get() == 0).all()
    assert (g.binomial(5, 1.0, 100, device="cpu").get() == 5).all()
    assert (g.binomial(0, 0.4, 100, device="cpu").get() == 0).all()
    arr = g.binomial(em.asarray([3, 40]), em.asarray([0.5, 0.25]), (1000, 2), device="cpu").get()
    assert arr.shape == (1000, 2) and arr[:, 0].max() <= 3 and abs(arr[:, 1].mean() - 10) < 0.3


@pytest.mark.parametrize("a", [1.5, 2.0, 4.0])
def test_zipf_device_algorithm_pmf(a):
    k = em.random.default_rng(22)._zipf_dev(a, 200_000, "cpu").get()
    assert k.dtype == np.int64 and k.min() >= 1
    j = np.arange(1, 8)
    zeta = np.sum(np.arange(1, 2_000_000, dtype=np.float64) ** -a) + \
        (2_000_000.0 ** (1 - a)) / (a - 1)  # the tail's integral
    np.testing.assert_allclose(_freq(k, 8)[j], j ** -a / zeta, atol=0.004)


@pytest.mark.parametrize("p", [0.0, 0.2, 0.9, 0.999])
def test_logseries_device_algorithm_pmf(p):
    k = em.random.default_rng(23)._logseries_dev(p, 200_000, "cpu").get()
    assert k.dtype == np.int64 and k.min() >= 1
    j = np.arange(1, 8)
    pmf = np.ones(7) * (j == 1) if p == 0 else -p ** j / (j * np.log1p(-p))
    np.testing.assert_allclose(_freq(k, 8)[j], pmf, atol=0.004)


@pytest.mark.parametrize("call,msg", [
    (lambda g: g.binomial(-1, 0.5, 3, device="cpu"), "n < 0"),
    (lambda g: g.binomial(5, 1.5, 3, device="cpu"), "p < 0, p > 1 or p is NaN"),
    (lambda g: g._zipf_dev(1.0, 3, "cpu"), "a <= 1 or a is NaN"),
    (lambda g: g._logseries_dev(1.0, 3, "cpu"), "p < 0, p >= 1 or p is NaN"),
])
def test_device_algorithms_bad_parameters(call, msg):
    with pytest.raises(ValueError, match=msg):
        call(em.random.default_rng(0))


# ---- gamma / poisson / binomial: one kernel each (codegen/rand_dist.h) ----------
# Goodness of fit against scipy at a fixed seed: a wrong constant in a sampler
# (a boost, a PTRS coefficient, a mirrored p, a splitting step) moves the
# statistic far past these bounds, which a correct sampler meets with p > 1e-4.
@pytest.mark.parametrize("k", [2.5, 0.3, 1e-2, 1.0, 50.0])
def test_gamma_kolmogorov_smirnov(device, k):
    from scipy import stats
    x = em.random.default_rng(31).standard_gamma(k, size=100_000).get()
    assert x.min() >= 0
    assert stats.kstest(x, stats.gamma(k).cdf).pvalue > 1e-4


def _chi2_pvalue(k, pmf_at, lo, hi):
    """Chi-square test of integer samples k on [lo, hi] (the tails pooled)."""
    from scipy import stats
    j = np.arange(lo, hi + 1)
    pmf = pmf_at(j)
    obs = np.array([(k < lo).sum()] + [np.count_nonzero(k == i) for i in j] + [(k > hi).sum()])
    exp = np.concatenate([[pmf_at(np.arange(0, lo)).sum() if lo else 0.0], pmf,
                          [max(1.0 - pmf.sum() - (pmf_at(np.arange(0, lo)).sum() if lo else 0.0),
                               0.0)]]) * k.size
    keep = exp > 5  # the test's validity: pool nothing else, drop empty cells
    return stats.chisquare(obs[keep], exp[keep] * obs[keep].sum() / exp[keep].sum()).pvalue


@pytest.mark.parametrize("lam", [0.5, 4.0, 9.99, 10.0, 40.0, 1e5])
def test_poisson_chi_square(device, lam):
    from scipy import stats
    k = em.random.default_rng(32).poisson(lam, size=100_000).get()
    assert k.dtype == np.int64 and k.min() >= 0
    sd = np.sqrt(lam)
    lo, hi = max(0, int(lam - 5 * sd)), int(lam + 5 * sd) + 2
    assert _chi2_pvalue(k, stats.poisson(lam).pmf, lo, hi) > 1e-4


# n p <= 30: inversion; above it BTPE (every region of its hat); p > 1/2 mirrored
@pytest.mark.parametrize("n,p", [(20, 0.3), (1000, 0.97), (1000, 0.3), (10 ** 6, 0.4),
                                 (7, 0.5), (2 ** 40, 1e-9)])
def test_binomial_chi_square(device, n, p):
    from scipy import stats
    k = em.random.default_rng(33).binomial(n, p, size=100_000).get()
    assert k.dtype == np.int64 and k.min() >= 0 and k.max() <= n
    sd = np.sqrt(n * p * (1 - p))
    lo, hi = max(0, int(n * p - 5 * sd)), min(n, int(n * p + 5 * sd) + 2)
    assert _chi2_pvalue(k, stats.binom(n, p).pmf, lo, hi) > 1e-4


def test_rejection_kernels_reproducible_and_pinned(device):
    """The same seed gives the same stream on every device (values pinned from
    the CPU: the sub-stream layout of rand_dist.h; a device's log/exp may move
    a gamma by ulps); consecutive draws differ; the counter advances by n."""
    g = em.random.default_rng(0)
    np.testing.assert_allclose(g.standard_gamma(2.5, size=3).get(),
                               [2.804641851230486, 2.071899120960399, 1.3509678189858318],
                               rtol=1e-12)
    assert g.bit_generator.counter == 3
    g = em.random.default_rng(0)
    assert g.poisson([3.0, 30.0], size=(2, 2)).get().tolist() == [[4, 30], [3, 33]]
    g = em.random.default_rng(0)
    assert g.binomial([20, 100000], 0.3, size=(2, 2)).get().tolist() == [[7, 29793],
                                                                          [6, 30215]]
    g = em.random.default_rng(4)
    a, b = g.gamma(3.0, size=1000).get(), g.gamma(3.0, size=1000).get()
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(em.random.default_rng(4).gamma(3.0, size=1000).get(), a)


def test_rejection_kernels_edges(device):
    g = em.random.default_rng(35)
    assert g.standard_gamma(2.0, size=0).shape == (0,)
    assert g.poisson(3.0, size=(0, 3)).shape == (0, 3)
    assert (g.standard_gamma(0.0, size=100).get() == 0).all()
    assert (g.poisson(0.0, size=100).get() == 0).all()
    assert (g.binomial(0, 0.5, size=100).get() == 0).all()
    assert (g.binomial(50, 1.0, size=100).get() == 50).all()
    assert (g.binomial(50, 0.0, size=100).get() == 0).all()
    x = g.standard_gamma(1e-3, size=10_000).get()  # most underflow to 0, none negative or NaN
    assert np.isfinite(x).all() and x.min() >= 0
    assert g.standard_gamma(2.0).shape == ()
    # array parameters broadcast against size, read per element
    lam = em.asarray([[1.0], [100.0]])
    k = g.poisson(lam, size=(2, 20_000)).get()
    assert abs(k[0].mean() - 1) < 0.05 and abs(k[1].mean() - 100) < 0.5
    nb = g.binomial(em.asarray([10, 10 ** 5]), em.asarray([[0.2], [0.9]]), size=(2, 2)).get()
    assert nb[:, 0].max() <= 10 and nb[1, 1] > 80_000
    with pytest.raises(ValueError, match="n < 0"):
        g.binomial(-1, 0.5)
    with pytest.raises(ValueError, match="lam value too large"):
        g.poisson(1e19)


def test_permutations_uniform_with_32bit_keys(device):
    """The 24 orders of 4 items from permuted (one row each) are equally likely
    (chi-square at a fixed seed); a large permutation is one; the same seed
    gives the same permutation."""
    from scipy import stats
    import itertools
    rows = em.random.default_rng(41).permuted(
        em.asarray(np.tile(np.arange(4), (48_000, 1))), axis=1).get()
    code = {p: i for i, p in enumerate(itertools.permutations(range(4)))}
    idx = np.array([code[tuple(r)] for r in rows.tolist()])
    assert stats.chisquare(np.bincount(idx, minlength=24)).pvalue > 1e-4
    n = 1 << 18
    p = em.random.default_rng(42).permutation(n).get()
    assert (np.sort(p) == np.arange(n)).all()
    np.testing.assert_array_equal(em.random.default_rng(42).permutation(n).get(), p)
    c = em.random.default_rng(43).choice(10, 10, replace=False).get()
    assert sorted(c.tolist()) == list(range(10))


def test_beta_one_kernel(device):
    """beta draws both gammas inside one kernel (rand_dist.h's em_rs_beta):
    the counter moves by the element count, a seed repeats, the CPU and a
    device agree to the ulps of their logs, parameters broadcast, and the
    values lie in [0, 1] with Beta(2, 5)'s mean."""
    g = em.random.default_rng(3)
    x = g.beta(2.0, 5.0, size=50_000)
    assert g.bit_generator.counter == 50_000 and x.dtype == np.float64
    h = x.get()
    assert h.min() >= 0 and h.max() <= 1 and abs(h.mean() - 2 / 7) < 0.003
    np.testing.assert_array_equal(em.random.default_rng(3).beta(2.0, 5.0, 50_000).get(), h)
    c = em.random.default_rng(3).beta(2.0, 5.0, 50_000, device="cpu").get()
    np.testing.assert_allclose(h, c, rtol=1e-9, atol=1e-12)
    # array parameters (the general path) give the same stream as scalars
    ab = em.random.default_rng(3).beta(em.asarray([2.0]), np.array([5.0]), size=50_000)
    np.testing.assert_array_equal(ab.get(), h)
    y = em.random.default_rng(4).beta([0.5, 50.0], [[0.5], [5.0]], size=(2, 2)).get()
    assert y.shape == (2, 2) and ((y >= 0) & (y <= 1)).all()
    assert em.random.default_rng(4).beta(1.0, 1.0, size=(0, 3)).shape == (0, 3)
    assert em.random.default_rng(4).beta(1.0, 1.0).shape == ()


@pytest.mark.parametrize("call,exc,msg", [
    (lambda g: g.geometric(0.0), ValueError, "p <= 0, p > 1"),
    (lambda g: g.geometric(float("nan")), ValueError, "p <= 0, p > 1"),
    (lambda g: g.geometric(np.float64(1.5), size=3), ValueError, "p <= 0, p > 1"),
    (lambda g: g.exponential(float("nan")), ValueError, "scale < 0"),
    (lambda g: g.exponential(np.float32(-1.0), size=4), ValueError, "scale < 0"),
    (lambda g: g.poisson(-1.0), ValueError, "lam < 0"),
    (lambda g: g.poisson(float("nan"), size=2), ValueError, "lam < 0"),
    (lambda g: g.poisson(2e19, size=2), ValueError, "lam value too large"),
    (lambda g: g.beta(0.0, 1.0, size=2), ValueError, "a <= 0"),
    (lambda g: g.beta(1.0, float("nan")), ValueError, "b <= 0"),
    (lambda g: g.beta(1.0, 1.0, size=-1), ValueError, "negative dimensions"),
    (lambda g: g.geometric(0.5, size=(2, -1)), ValueError, "negative dimensions"),
    (lambda g: g.poisson(1.0, size=1.5), TypeError, "size"),
])
def test_scalar_parameter_paths_validate(device, call, exc, msg):
    """The scalar fast paths (no NumPy broadcasting) keep NumPy's errors."""
    with pytest.raises(exc, match=msg):
        call(em.random.default_rng(0))


def test_scalar_parameter_paths_match_array_paths(device):
    """A Python or NumPy scalar parameter and the same value as an array give
    the same numbers from the same stream position."""
    for name, args in [("poisson", (4.0,)), ("poisson", (40,)), ("exponential", (2.0,)),
                       ("geometric", (0.2,)), ("beta", (2.0, 5.0))]:
        a = getattr(em.random.default_rng(8), name)(*args, size=(3, 1000)).get()
        b = getattr(em.random.default_rng(8), name)(*[np.float64(v) for v in args],
                                                    size=(3, 1000)).get()
        c = getattr(em.random.default_rng(8), name)(*[np.array([v]) for v in args],
                                                    size=(3, 1000)).get()
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, c, rtol=1e-15)
        assert a.shape == (3, 1000)


def test_choice_with_replacement_stream(device):
    """choice(a, k) with replacement draws integers(0, n) (the same stream) and
    gathers a at them: pinned to integers + take, every value from a."""
    a = em.asarray(np.arange(100, 1100, dtype=np.float32))
    got = em.random.default_rng(12).choice(a, 1 << 12)
    idx = em.random.default_rng(12).integers(0, 1000, 1 << 12)
    np.testing.assert_array_equal(got.get(), a.get()[idx.get()])
    assert em.random.default_rng(12).choice(1000, 7).get().tolist() == idx.get()[:7].tolist()
    s = em.random.default_rng(12).choice(a)
    assert s.shape == () and 100 <= float(s) < 1100
    m = em.random.default_rng(12).choice(em.reshape(a, (10, 100)), (2, 3), axis=1)
    assert m.shape == (10, 2, 3)


@pytest.mark.parametrize("call", [
    lambda g, n: g.standard_gamma(2.5, size=n),
    lambda g, n: g.standard_gamma(0.3, size=n),
    lambda g, n: g.beta(0.2, 0.3, size=n),
    lambda g, n: g.beta(2.0, 5.0, size=n),
    lambda g, n: g.poisson(4.0, size=n),
    lambda g, n: g.poisson(40.0, size=n),
    lambda g, n: g.binomial(20, 0.3, size=n),
    lambda g, n: g.binomial(1000, 0.7, size=n),
])
def test_rejection_element_streams_batch_independent(device, call):
    """Element i of a draw is its own sub-stream at counter c + i: drawing 19
    one at a time (each element first in the CPU's 8-lane Philox groups and
    its first blocks made there) gives the same values as one draw of 19
    (elements in every lane, a group cut short), and a large draw (cut
    between threads) agrees with its pieces."""
    g1, g2 = em.random.default_rng(99), em.random.default_rng(99)
    one = np.concatenate([call(g1, 1).get() for _ in range(19)])
    np.testing.assert_array_equal(call(g2, 19).get(), one)
    n = 40_003
    whole = call(em.random.default_rng(5), n).get()
    g = em.random.default_rng(5)
    parts = np.concatenate([call(g, k).get() for k in (3, 8, 4101, n - 4112)])
    np.testing.assert_array_equal(whole, parts)


def test_cpu_simd_math_against_libm():
    """The CPU's AVX2 Box-Muller and gamma/beta first try (backend/cpu/rmath_avx2.h)
    against its libm path (EMBER_RANDOM_LIBM=1, another process): the same
    variates within ulps, every element (shapes >= 1, < 1, per-element shapes,
    a beta, a length that is no multiple of the 8-element groups); the poisson
    and binomial first tries give the same integers (the text's arithmetic; PTRS's
    log test could differ only where it lands within ulps of its bound)."""
    import os
    import subprocess
    import sys
    code = ("import sys, numpy as np, ember as em\n"
            "g = em.random.default_rng(5)\n"
            "k = np.linspace(0.05, 6.0, 20001)\n"
            "out = [g.standard_normal(20001).get(), g.standard_normal(20001, dtype=np.float32)"
            ".get(), g.standard_gamma(2.5, 20001).get(), g.standard_gamma(0.3, 20001).get(),"
            " g.standard_gamma(em.asarray(k)).get(), g.beta(2.0, 5.0, 20001).get(),"
            " g.beta(0.5, 3.0, 20001).get(), g.poisson(40.0, 20001).get(), g.poisson(4.0, 20001).get(),"
            " g.poisson(em.asarray(np.linspace(0.0, 200.0, 20001))).get(),"
            " g.binomial(20, 0.3, 20001).get(), g.binomial(1000, 0.97, 20001).get(),"
            " g.binomial(7, 0.5, 20001).get(), g.binomial(10**6, 1e-5, 20001).get(),"
            " g.binomial(1000, 0.3, 20001).get()]\n"
            "np.savez(sys.argv[1], *out)\n")
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        got = {}
        for libm in ("0", "1"):
            f = os.path.join(d, f"{libm}.npz")
            env = {**os.environ, "EMBER_RANDOM_LIBM": libm, "EMBER_DEVICE": "cpu"}
            subprocess.run([sys.executable, "-c", code, f], env=env, check=True)
            z = np.load(f)
            got[libm] = [z[f"arr_{i}"] for i in range(len(z.files))]
    for i, (a, b) in enumerate(zip(got["0"], got["1"])):
        if a.dtype == np.int64:  # poisson, binomial: the text's arithmetic
            np.testing.assert_array_equal(a, b)
        elif i == 1:  # float32: computed in double where libm's path used float functions
            np.testing.assert_allclose(a, b, rtol=0, atol=4e-6)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-300)
        assert np.isfinite(a).all()


def test_choice_one_kernel_sizes_views_cpu(device):
    """choice with replacement from a 1-d population is one kernel on a device
    (em_random_choice: the index drawn and the element read in one thread): the
    values of integers(0, n) then a take, for 1-, 8- and 16-byte elements (NaN
    and inf copied as bits), from reversed, strided and one-element views, and
    the CPU's values for the seed; the counter moves as the integer fill's."""
    rng = np.random.default_rng(0)
    pops = [rng.standard_normal(75) > 0, rng.standard_normal(75),
            rng.standard_normal(75) + 1j * rng.standard_normal(75)]
    pops[1][[3, 4]] = np.nan, -np.inf
    for h in pops:
        for sl in (slice(None), slice(None, None, -2), slice(10, None, 3), slice(5, 6)):
            hv, pop = h[sl], em.asarray(h)[sl]
            got = em.random.default_rng(5).choice(pop, (3, 41))
            idx = em.random.default_rng(5).integers(0, hv.shape[0], (3, 41)).get()
            assert got.dtype == hv.dtype and got.shape == (3, 41)
            np.testing.assert_array_equal(got.get(), hv[idx])
            cpu = em.random.default_rng(5).choice(em.asarray(hv, device="cpu"), (3, 41))
            np.testing.assert_array_equal(cpu.get(), got.get())
    g = em.random.default_rng(6)
    pop = em.asarray(pops[1])
    assert g.choice(pop, 0).shape == (0,) and g.bit_generator.counter == 0
    assert g.choice(pop, 5).shape == (5,) and g.bit_generator.counter == 3
    s = g.choice(pop)
    assert s.shape == () and g.bit_generator.counter == 4
    with pytest.raises(ValueError, match="a cannot be empty"):
        g.choice(em.asarray(np.zeros(0)), 3)
    for axis in (1, -2):  # NumPy: IndexError (shape[axis]); Ember took axis % ndim
        with pytest.raises(IndexError):
            g.choice(pop, 3, axis=axis)
    assert g.choice(pop, 3, axis=-1).shape == (3,)
    with pytest.raises(TypeError):
        em._ember.random_choice(pops[1], (2,), 0, 0)  # a NumPy population
    for bad in (em.zeros((2, 2)), em.zeros(0)):
        with pytest.raises(ValueError, match="non-empty 1-d population"):
            em._ember.random_choice(bad, (2,), 0, 0)


def test_binomial_stepped_kernel_matches_cpu(device):
    """The device's binomial kernel takes one BTPE proposal a turn
    (render_random.c's em__binom_kernel): per-element parameters mixing the
    zero, inversion, BTPE and mirrored cases, and one n and p for all, give
    the CPU's values for the seed."""
    n = np.tile([0, 5, 20, 1000, 1000, 10 ** 6, 31, 2 ** 40, 60], 457)
    p = np.tile([0.3, 0.0, 0.3, 0.3, 0.97, 0.4, 0.5, 0.2, 1.0], 457)
    a = em.random.default_rng(41).binomial(em.asarray(n), em.asarray(p)).get()
    c = em.random.default_rng(41).binomial(em.asarray(n, device="cpu"),
                                           em.asarray(p, device="cpu")).get()
    np.testing.assert_array_equal(a, c)
    assert (a[n * p == 0] == 0).all() and (a[p == 1.0] == n[p == 1.0]).all()
    for nn, pp in [(1000, 0.3), (1000, 0.7)]:
        np.testing.assert_array_equal(
            em.random.default_rng(42).binomial(nn, pp, 20_001).get(),
            em.random.default_rng(42).binomial(nn, pp, 20_001, device="cpu").get())
