"""scikit-learn's array-API dispatch on Ember arrays, against its NumPy path.

SciPy reads SCIPY_ARRAY_API when it is first imported, and the test session
imports it early (through dask.array), so the fits run in a fresh
interpreter (`_fit_all`, printed as JSON) on the device under test."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import ember as em

pytest.importorskip("sklearn")
array_api_compat = pytest.importorskip("array_api_compat")

ESTIMATORS = ["pca", "ridge", "lda"]
FITTED = {
    "pca": ["mean_", "components_", "explained_variance_", "explained_variance_ratio_",
            "singular_values_", "noise_variance_"],
    "ridge": ["coef_", "intercept_"],
    "lda": ["classes_", "priors_", "means_", "xbar_", "scalings_", "coef_", "intercept_",
            "explained_variance_ratio_"],
}


def _estimator(name):
    from sklearn.decomposition import PCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import Ridge
    return {"pca": lambda: PCA(n_components=3, svd_solver="full"),
            "ridge": lambda: Ridge(alpha=0.5, solver="svd"),
            "lda": lambda: LinearDiscriminantAnalysis(solver="svd")}[name]()


def _fit_all():
    """Fit each estimator on NumPy and on Ember inputs; report types and the
    largest differences of every fitted attribute and of the outputs."""
    import sklearn
    rng = np.random.default_rng(0)
    X = rng.standard_normal((80, 6))
    y = X @ rng.standard_normal(6) + 0.1 * rng.standard_normal(80)
    classes = (X[:, 0] > 0).astype(np.int64) + (X[:, 1] > 0.5)
    report = {}
    for name in ESTIMATORS:
        target = classes if name == "lda" else y
        ref = _estimator(name).fit(X, target)
        with sklearn.config_context(array_api_dispatch=True):
            est = _estimator(name).fit(em.asarray(X), em.asarray(target))
            out = est.transform(em.asarray(X)) if name != "ridge" else est.predict(em.asarray(X))
        want_out = ref.transform(X) if name != "ridge" else ref.predict(X)
        r = {"out_type": f"{type(out).__module__}.{type(out).__name__}",
             "out": _diff(out, want_out)}
        for attr in FITTED[name]:
            got = getattr(est, attr)
            r[attr] = (type(got).__module__.split(".")[0], _diff(got, getattr(ref, attr)))
        report[name] = r
    print(json.dumps(report))


def _diff(got, want):
    g = got.get() if isinstance(got, em.ndarray) else np.asarray(got)
    want = np.asarray(want)
    if g.shape != want.shape:
        return f"shape {g.shape} != {want.shape}"
    return float(np.max(np.abs(g.astype(np.float64) - want), initial=0.0))


@pytest.fixture(scope="module")
def report():
    here = os.path.dirname(__file__)
    env = dict(os.environ, SCIPY_ARRAY_API="1",
               PYTHONPATH=os.pathsep.join([here] + [p for p in sys.path if p]))
    devices = [d for d in ("cpu", "cuda:0") if d == "cpu" or em.cuda.is_available()]
    out = {}
    for dev in devices:
        env["EMBER_DEVICE"] = dev
        r = subprocess.run([sys.executable, "-c", "import test_sklearn; test_sklearn._fit_all()"],
                           env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-3000:]
        out[dev] = json.loads(r.stdout.strip().splitlines()[-1])
    return out


def test_array_namespace_is_ember(device):
    x = em.ones(3)
    assert array_api_compat.array_namespace(x) is em
    assert array_api_compat.is_array_api_obj(x)
    assert array_api_compat.array_namespace(x, em.zeros(2)) is em


@pytest.mark.parametrize("name", ESTIMATORS)
def test_estimator_matches_numpy(report, name):
    for dev, rep in report.items():
        r = rep[name]
        assert r["out_type"] == "ember.ndarray", (dev, r)
        assert r["out"] < 1e-8, (dev, name, r)
        for attr in FITTED[name]:
            lib, diff = r[attr]
            assert lib == "ember", (dev, attr, r[attr])  # fitted on Ember, kept as Ember
            assert diff < 1e-8, (dev, name, attr, diff)
