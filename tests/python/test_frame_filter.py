"""Boolean filtering of frames against pandas, and the string gather behind it
(ember.frame._strgather: the kept rows' offsets by a scan of their lengths,
then one copy per row, on every backend): nulls in every kind of column
(validity, NaN, NaT, null strings and categories), empty, all-true and
all-false masks, masks as Series / Ember / NumPy arrays and through loc,
filters of filtered frames (a non-range index) and of strided RangeIndexes."""
import numpy as np
import pytest

pd = pytest.importorskip("pandas")
import pandas.testing as tm  # noqa: E402

import ember as em  # noqa: E402
from ember.frame import _strgather  # noqa: E402
from frame_data import make_pdf  # noqa: E402

WORDS = ["", "a", "héllo", "日本語", "abcdefghijklmnopqrstuvwxyz" * 3, "x\x00y", "card"]


def _pdf(rng, n):
    pdf = make_pdf(rng, n)
    t = pd.to_datetime(rng.integers(0, 10 ** 9, n), unit="s")
    t = t.where(rng.random(n) > 0.2)  # NaT
    pdf["t"] = t
    pdf["d"] = pd.to_timedelta(rng.integers(-100, 100, n), unit="ms")
    cat = np.array(["lo", "mid", "hi", None], dtype=object)[rng.integers(0, 4, n)]
    pdf["c"] = pd.Categorical(cat, categories=["lo", "mid", "hi"])
    w = np.array(WORDS, dtype=object)[rng.integers(0, len(WORDS), n)]
    w[rng.random(n) < 0.1] = None
    pdf["w"] = pd.Series(w, dtype="str")
    return pdf


@pytest.mark.parametrize("n", [0, 1, 7, 200])
@pytest.mark.parametrize("keep", ["random", "all", "none", "first", "last"])
def test_filter_matches_pandas(device, rng, n, keep):
    pdf = _pdf(rng, n)
    df = em.DataFrame.from_pandas(pdf, device)
    m = {"random": rng.random(n) < 0.4, "all": np.ones(n, bool), "none": np.zeros(n, bool),
         "first": np.arange(n) == 0, "last": np.arange(n) == n - 1}[keep]
    want = pdf[m]
    tm.assert_frame_equal(df[m].to_pandas(), want)
    tm.assert_frame_equal(df[em.asarray(m, device=device)].to_pandas(), want)
    tm.assert_frame_equal(df.loc[m].to_pandas(), want)
    sm = em.Series(m, device=device)
    tm.assert_frame_equal(df[sm].to_pandas(), want)
    for c in pdf.columns:  # a Series filtered by a mask
        tm.assert_series_equal(df[c][sm].to_pandas(), pdf[c][m])


def test_filter_expression_mask_with_nulls(device, rng):
    pdf = _pdf(rng, 300)
    df = em.DataFrame.from_pandas(pdf, device)
    # comparisons with a null are False: the null rows of f drop out as in pandas
    got = df[(df["f"] > 0) & (df["k1"] < 3)].to_pandas()
    tm.assert_frame_equal(got, pdf[(pdf["f"] > 0) & (pdf["k1"] < 3)])
    got = df[df["w"].str.startswith("a", na=False)].to_pandas()
    tm.assert_frame_equal(got, pdf[pdf["w"].str.startswith("a", na=False)])


def test_filter_twice_and_strided_index(device, rng):
    pdf = _pdf(rng, 120)
    df = em.DataFrame.from_pandas(pdf, device)
    m1, m2 = rng.random(120) < 0.6, None
    a, pa_ = df[m1], pdf[m1]
    m2 = rng.random(len(pa_)) < 0.5
    tm.assert_frame_equal(a[m2].to_pandas(), pa_[m2])        # an Index of labels
    s, ps = df.iloc[3::4], pdf.iloc[3::4]                     # RangeIndex(3, 120, 4)
    m3 = rng.random(len(ps)) < 0.5
    tm.assert_frame_equal(s[m3].to_pandas(), ps[m3])
    r, pr = df.iloc[::-3], pdf.iloc[::-3]                     # a negative step
    m4 = rng.random(len(pr)) < 0.5
    tm.assert_frame_equal(r[m4].to_pandas(), pr[m4])


def test_filter_errors(device, rng):
    pdf = _pdf(rng, 10)
    df = em.DataFrame.from_pandas(pdf, device)
    with pytest.raises(IndexError, match="wrong length"):
        df[np.ones(9, bool)]
    with pytest.raises(ValueError, match="wrong length"):
        df[em.Series(np.ones(11, bool), device=device)]


def _encode(vals):
    enc = [v.encode() for v in vals]
    offs = np.zeros(len(enc) + 1, np.int64)
    np.cumsum([len(b) for b in enc], out=offs[1:])
    return enc, offs, np.frombuffer(b"".join(enc), np.uint8).copy()


@pytest.mark.parametrize("case", ["sorted", "repeats", "reversed", "empty_rows", "none"])
def test_string_gather_kernels(device, rng, case):
    n = 257
    vals = [WORDS[i] for i in rng.integers(0, len(WORDS), n)]
    if case == "empty_rows":
        vals = [""] * n
    enc, offs, raw = _encode(vals)
    idx = {"sorted": np.flatnonzero(rng.random(n) < 0.5),
           "repeats": rng.integers(0, n, 3 * n),
           "reversed": np.arange(n)[::-1].copy(),
           "empty_rows": np.arange(0, n, 2),
           "none": np.zeros(0, np.int64)}[case].astype(np.int64)
    got = _strgather.take(em.asarray(offs, device=device), em.asarray(raw, device=device),
                          em.asarray(idx, device=device))
    assert got is not None  # the kernels build on every device the tests run on
    o, b = (em.asnumpy(a) for a in got)
    want = [enc[i] for i in idx]
    np.testing.assert_array_equal(o, np.concatenate([[0], np.cumsum([len(w) for w in want])])
                                  .astype(np.int64))
    assert b.dtype == np.uint8 and b.tobytes() == b"".join(want)


def test_string_gather_offsets_not_from_zero(device):
    # offsets that start inside the byte buffer (a slice of a larger column)
    enc, offs, raw = _encode(["zz", "ab", "", "cde", "f"])
    sub = em.asarray(offs, device=device)[1:]
    got = _strgather.take(sub, em.asarray(raw, device=device),
                          em.asarray(np.array([3, 0, 2, 2], np.int64), device=device))
    o, b = (em.asnumpy(a) for a in got)
    np.testing.assert_array_equal(o, [0, 1, 3, 6, 9])
    assert b.tobytes() == b"fabcdecde"


@pytest.mark.parametrize("path", ["arrow", "portable"])
def test_filter_without_the_kernels(device, rng, monkeypatch, path):
    """No C compiler on the CPU (the kernels cannot be built): Arrow's take on
    the CPU, else the portable gather (each byte's row by a scan) give the same."""
    from ember.frame import _column
    monkeypatch.setattr(_strgather, "_broken", {"cpu", "cuda", "opencl"})
    if path == "portable":
        monkeypatch.setattr(_column, "_take_strings_host", lambda *a: None)
    pdf = _pdf(rng, 150)
    df = em.DataFrame.from_pandas(pdf, device)
    m = rng.random(150) < 0.5
    tm.assert_frame_equal(df[m].to_pandas(), pdf[m])
    tm.assert_frame_equal(df[np.zeros(150, bool)].to_pandas(), pdf[np.zeros(150, bool)])
    pos = rng.integers(0, 150, 40)
    tm.assert_frame_equal(df.iloc[pos].to_pandas(), pdf.iloc[pos])
