"""Device strings of ember.frame (_strings.py) against pandas: building, the
dictionary codes the table core sorts/groups/merges on, .str methods,
categoricals; nulls, empty strings, non-ASCII UTF-8, empty columns."""
import warnings

import numpy as np
import pytest

import ember as em
from ember.frame import _strings as S
from ember.frame._column import Column

pd = pytest.importorskip("pandas")

VALS = ["b", "a", None, "", "héllo", "a\x00", "abcdefghijk", "abcdefghij", "b", "Bé", "a",
        "日本語", "ÀÉÎ", "abcdefghijklmnopq", "abcdefghijklmnopr", "zz", None, "AbC"]
ASCII = ["Foo", "bar", None, "", "BAZ qux", "foo", "a-b.c", "xfoox"]


def _col(vals, device):
    return S.from_values(vals, device)


def _pd(vals):
    return pd.Series(vals, dtype=object)


def _same(col, expect):
    got = col.to_numpy()
    exp = np.asarray(expect, dtype=object)
    assert len(got) == len(exp)
    for g, e in zip(got, exp):
        if e is None or (isinstance(e, float) and e != e):
            assert g is None or (isinstance(g, float) and g != g), (got, exp)
        else:
            assert g == e, (got, exp)


@pytest.mark.parametrize("vals", [VALS, ASCII, [], [None], [""], ["x"] * 5])
def test_roundtrip(device, vals):
    c = _col(vals, device)
    assert c.kind == "string" and len(c) == len(vals)
    assert str(c.device) == str(device)
    _same(c, vals)
    assert c.offsets.dtype == np.int64 and c.data.dtype == np.uint8


def test_from_numpy_str_and_bad_values(device):
    _same(_col(np.array(["ab", "c"]), device), ["ab", "c"])
    _same(_col(np.array(["x", np.nan, None], dtype=object), device), ["x", None, None])
    with pytest.raises(TypeError, match="str values"):
        _col(["a", 3], device)


@pytest.mark.parametrize("vals", [VALS, ASCII, [], [None, None], ["same"] * 4])
def test_codes_match_pandas_factorize(device, vals):
    c = _col(vals, device)
    codes, cats = S.encode(c)
    # the oracle is Python's own (code-point order is UTF-8 byte order): pandas 3.0.6's
    # factorize, on the GPU machine, gave '' and '\x00' one code
    exp_uniq = sorted({v for v in vals if v is not None})
    exp_codes = np.array([-1 if v is None else exp_uniq.index(v) for v in vals], dtype=np.int64)
    np.testing.assert_array_equal(em.asnumpy(codes), exp_codes.astype(np.int32))
    assert codes.dtype == np.int32
    _same(cats, list(exp_uniq))


def test_codes_long_shared_prefixes(device, rng):
    # many strings agreeing on their first 8 and 16 bytes: the later words decide
    base = ["prefix__", "prefix__prefix__"]
    vals = [base[i % 2] + "".join(rng.choice(list("ab\x00é"), rng.integers(0, 4)))
            for i in range(300)]
    codes, cats = S.encode(_col(vals, device))
    # the oracle is Python's own (code-point order is UTF-8 byte order): pandas 3.0.6's
    # factorize, on the GPU machine, gave '' and '\x00' one code
    exp_uniq = sorted({v for v in vals if v is not None})
    exp_codes = np.array([-1 if v is None else exp_uniq.index(v) for v in vals], dtype=np.int64)
    np.testing.assert_array_equal(em.asnumpy(codes), exp_codes)
    _same(cats, list(exp_uniq))


def test_encode_many_agrees_across_columns(device):
    left, right = ["x", "y", None, "é"], ["é", "z", "x"]
    (cl, cr), cats = S.encode_many([_col(left, device), _col(right, device)])
    _same(cats, ["x", "y", "z", "é"])
    np.testing.assert_array_equal(em.asnumpy(cl), [0, 1, -1, 3])
    np.testing.assert_array_equal(em.asnumpy(cr), [3, 2, 0])


def test_len_counts_characters(device):
    got = S.StringMethods(_col(VALS, device)).len()
    exp = _pd(VALS).str.len()
    np.testing.assert_array_equal(got.to_numpy(), exp.to_numpy(dtype=float))
    assert S.StringMethods(_col([], device)).len().to_numpy().shape == (0,)


@pytest.mark.parametrize("meth", ["lower", "upper"])
@pytest.mark.parametrize("vals", [ASCII, VALS])
def test_case(device, meth, vals):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", em.HostFallbackWarning)
        got = getattr(S.StringMethods(_col(vals, device)), meth)()
    _same(got, list(getattr(_pd(vals).str, meth)()))


def _pred(col, name, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", em.HostFallbackWarning)
        return getattr(S.StringMethods(col), name)(*args, **kw).to_numpy()


def _oracle(vals, name, *args, **kw):
    s = pd.Series(vals, dtype="str")
    return getattr(s.str, name)(*args, **kw).to_numpy(dtype=bool)


@pytest.mark.parametrize("pat", ["a", "b", "", "é", "abcdefghij", "foo", "zzz", "\x00", "AbC"])
@pytest.mark.parametrize("name", ["contains", "startswith", "endswith"])
def test_predicates(device, name, pat):
    for vals in (VALS, ASCII):
        c = _col(vals, device)
        np.testing.assert_array_equal(_pred(c, name, pat), _oracle(vals, name, pat))


def test_affix_tuple_and_na(device):
    c = _col(ASCII, device)
    np.testing.assert_array_equal(_pred(c, "startswith", ("F", "b")),
                                  _oracle(ASCII, "startswith", ("F", "b")))
    got = _pred(c, "endswith", "o", na=True)
    assert got[2]  # the null row takes na
    with pytest.raises(TypeError):
        S.StringMethods(c).startswith(3)


@pytest.mark.parametrize("kw", [dict(pat="FOO", case=False), dict(pat="a.b", regex=False),
                                dict(pat="a.b"), dict(pat="^f|z$"), dict(pat="É", case=False)])
def test_contains_regex_and_case(device, kw):
    for vals in (VALS, ASCII):
        got = _pred(_col(vals, device), "contains", **kw)
        np.testing.assert_array_equal(got, _oracle(vals, "contains", **kw))


def test_regex_warns_on_a_device():
    if not em.opencl.is_available():
        pytest.skip("needs a non-CPU device (PoCL) to see the host fallback warning")
    from ember import _host
    _host._warned.discard("str.contains")
    c = _col(ASCII, "opencl:0")
    with pytest.warns(em.HostFallbackWarning, match="str.contains"):
        S.StringMethods(c).contains("^f")
    with warnings.catch_warnings():  # a literal pattern stays on the device
        warnings.simplefilter("error", em.HostFallbackWarning)
        _host._warned.discard("str.contains")
        S.StringMethods(c).contains("oo")


def test_str_accessor_rejects_other_kinds(device):
    with pytest.raises(AttributeError, match=".str accessor"):
        S.StringMethods(Column.from_numpy(np.arange(3), device))


@pytest.mark.parametrize("vals", [VALS, ASCII, [], [None]])
def test_category_of_strings(device, vals):
    cat = S.to_category(_col(vals, device))
    exp = _pd(vals).astype("category")
    assert cat.kind == "category"
    np.testing.assert_array_equal(em.asnumpy(cat.data), exp.cat.codes.to_numpy())
    assert cat.data.dtype == exp.cat.codes.dtype
    _same(cat.categories, list(exp.cat.categories))


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.uint8])
def test_category_of_numbers(device, dtype, rng):
    vals = rng.integers(0, 20, 50).astype(dtype)
    mask = None
    if dtype == np.float64:
        vals[::7] = np.nan
    else:
        mask = np.zeros(50, bool)
        mask[::5] = True
    col = Column.from_numpy(vals, device, mask=mask)
    cat = S.to_category(col)
    ser = pd.Series(vals)
    if mask is not None:
        ser = ser.astype(object).where(~mask, None)
    exp = ser.astype("category")
    np.testing.assert_array_equal(em.asnumpy(cat.data), exp.cat.codes.to_numpy())
    np.testing.assert_array_equal(em.asnumpy(cat.categories.data),
                                  np.asarray(exp.cat.categories, dtype=dtype))


def test_many_categories_use_wider_codes(device):
    vals = [f"v{i:04d}" for i in range(300)]
    cat = S.to_category(_col(vals, device))
    assert cat.data.dtype == np.int16
    np.testing.assert_array_equal(em.asnumpy(cat.data), np.arange(300))


def test_strings_on_opencl():
    """The same device code on OpenCL (PoCL), one pass over every operation
    (the module's `device` tests skip OpenCL by conftest's default)."""
    if not em.opencl.is_available():
        pytest.skip("no OpenCL platform")
    with em.Device("opencl:0"):
        test_codes_match_pandas_factorize("opencl:0", VALS)
        test_len_counts_characters("opencl:0")
        test_case("opencl:0", "upper", ASCII)
        for name in ("contains", "startswith", "endswith"):
            test_predicates("opencl:0", name, "b")
        test_category_of_strings("opencl:0", VALS)


@pytest.mark.parametrize("vals", [VALS, ASCII, []])
def test_sort_key_orders_as_python(device, vals):
    key = em.asnumpy(S.sort_key(_col(vals, device)))
    assert key.dtype == np.int64
    present = [(v, k) for v, k in zip(vals, key) if v is not None]
    assert all(k == -1 for v, k in zip(vals, key) if v is None)
    for (a, ka) in present:
        for (b, kb) in present:
            assert (ka < kb) == (a < b) and (ka == kb) == (a == b)


@pytest.mark.parametrize("value", ["a", "", "héllo", "b", "abcdefghij", "nope", "a\x00"])
def test_eq_scalar_matches_pandas(device, value):
    c = _col(VALS, device)
    s = pd.Series(VALS, dtype="str")
    np.testing.assert_array_equal(S.eq_scalar(c, value).to_numpy(), (s == value).to_numpy())
    np.testing.assert_array_equal(S.eq_scalar(c, value, negate=True).to_numpy(),
                                  (s != value).to_numpy())


from hypothesis import given, settings, strategies as st  # noqa: E402

_TEXT = st.text(alphabet=st.sampled_from(list("ab\x00zé日\U0001F600 ")), max_size=19)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.none(), _TEXT), max_size=40), st.text(max_size=3))
def test_hypothesis_codes_and_predicates(vals, pat):
    """Random strings (NUL, 2-, 3- and 4-byte UTF-8, shared prefixes across the
    8-byte words): codes as pandas' sorted factorize, len/contains/startswith/
    endswith as pandas."""
    c = _col(vals, "cpu")
    codes, cats = S.encode(c)
    # the oracle is Python's own (code-point order is UTF-8 byte order): pandas 3.0.6's
    # factorize, on the GPU machine, gave '' and '\x00' one code
    exp_uniq = sorted({v for v in vals if v is not None})
    exp_codes = np.array([-1 if v is None else exp_uniq.index(v) for v in vals], dtype=np.int64)
    np.testing.assert_array_equal(em.asnumpy(codes), exp_codes)
    _same(cats, list(exp_uniq))
    m = S.StringMethods(c)
    s = pd.Series(vals, dtype="str")
    np.testing.assert_array_equal(m.len().to_numpy(), s.str.len().to_numpy(dtype=float))
    for name in ("startswith", "endswith"):
        np.testing.assert_array_equal(getattr(m, name)(pat).to_numpy(),
                                      getattr(s.str, name)(pat).to_numpy(dtype=bool))
    np.testing.assert_array_equal(m.contains(pat, regex=False).to_numpy(),
                                  s.str.contains(pat, regex=False).to_numpy(dtype=bool))


@pytest.mark.parametrize("host", [True, False])
def test_take_strings_both_paths(device, rng, monkeypatch, host):
    """The string gather: Arrow's take on the CPU and the portable byte-wise
    gather (rows found by counting row ends, _dense.owners) give the same rows,
    with empty strings (several row ends on one byte), repeats and nulls."""
    from ember.frame import _column
    if not host:
        monkeypatch.setattr(_column, "_take_strings_host", lambda *a: None)
    words = np.array(["", "a", "", "bcd", "é€", "", "xyz0"], dtype=object)
    vals = words[rng.integers(0, len(words), 300)]
    vals[::13] = None
    s = pd.Series(vals, dtype="str")
    idx = np.concatenate([rng.integers(0, 300, 500), [0, 299, 299]])
    got = em.Series(s, device=device).iloc[em.asarray(idx, device=device)].to_pandas()
    pd.testing.assert_series_equal(got.reset_index(drop=True),
                                   s.iloc[idx].reset_index(drop=True))
    empty = em.Series(pd.Series(["", ""], dtype="str"), device=device)
    assert empty.iloc[em.asarray([1, 0, 1], device=device)].to_pandas().tolist() == ["", "", ""]


@pytest.mark.parametrize("arrow", [True, False])
def test_large_string_columns(device, rng, monkeypatch, arrow):
    """Above 4096 rows the CPU takes Arrow's kernels (dictionary codes for sort,
    group-by and drop_duplicates; len, contains, startswith, endswith), the
    device formulation otherwise: both equal pandas, with nulls, empty strings
    and non-ASCII text."""
    from ember.frame import _strings
    if not arrow:
        monkeypatch.setattr(_strings, "_arrow_host", lambda *a, **k: None)
    n = 6000
    words = np.array(["", "b", "ab", "abc", "é", "éa", "z€", "a\u00e9b", "zz", "Ab"],
                     dtype=object)
    vals = words[rng.integers(0, len(words), n)]
    vals[rng.random(n) < 0.05] = None
    pdf = pd.DataFrame({"s": pd.Series(vals, dtype="str"), "x": rng.normal(size=n),
                        "k": rng.integers(0, 3, n)})
    df = em.DataFrame.from_pandas(pdf, device)
    tm = pd.testing
    tm.assert_frame_equal(df.sort_values(["s", "k"]).to_pandas(),
                          pdf.sort_values(["s", "k"], kind="stable"))
    tm.assert_frame_equal(df.groupby("s").agg({"x": ["sum", "count"]}).to_pandas(),
                          pdf.groupby("s").agg({"x": ["sum", "count"]}))
    tm.assert_frame_equal(df.drop_duplicates(["k", "s"]).to_pandas(),
                          pdf.drop_duplicates(["k", "s"]))
    s, ps = df["s"], pdf["s"]
    tm.assert_series_equal(s.str.len().to_pandas(), ps.str.len())
    for pat in ["a", "é", "ab", "zz€", ""]:
        tm.assert_series_equal(s.str.contains(pat, regex=False).to_pandas(),
                               ps.str.contains(pat, regex=False))
        tm.assert_series_equal(s.str.startswith(pat).to_pandas(), ps.str.startswith(pat))
        tm.assert_series_equal(s.str.endswith(pat).to_pandas(), ps.str.endswith(pat))
