"""ember.frame IO and interop against pandas and pyarrow: read_csv and its
keyword arguments, to_csv, Parquet both ways (and a failed write leaving
nothing), Columns <-> Arrow arrays (bitmaps, zero copy on the CPU), the
PyCapsule stream and the interchange protocol."""
import io
import os
import sys

import numpy as np
import pytest

import ember as em

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
import pyarrow.parquet as pq  # noqa: E402

from ember.frame import _arrow  # noqa: E402
from ember.frame._column import Column  # noqa: E402
from ember.frame import _strings  # noqa: E402

CSV = """i,f,s,b,d,n
1,1.5,apple,True,2021-01-02,7
2,,héllo wörld,False,2021-02-03,
3,-2.25,,True,2021-03-04,9
4,1e10,"with,comma",False,2022-12-31,10
5,0.0,日本,True,2023-01-01,
"""


@pytest.fixture
def csv_path(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text(CSV, encoding="utf-8")
    return str(p)


def _eq(df, pdf, **kw):
    pd.testing.assert_frame_equal(df.to_pandas(), pdf, **kw)


@pytest.mark.parametrize("kw", [
    {}, dict(usecols=["s", "i"]), dict(usecols=["f"]), dict(nrows=2), dict(nrows=0),
    dict(na_values=["apple"]), dict(na_values="7"), dict(parse_dates=["d"]),
    dict(dtype={"i": "float64", "n": "float32"}), dict(dtype={"i": np.int32}),
    dict(header=None, skiprows=1), dict(names=list("ABCDEF"), header=0),
    dict(keep_default_na=False, na_values=[""]), dict(usecols=[5, 0, 2]),
    dict(header=None, skiprows=1, dtype={0: "float64"}, usecols=[0, 2]),
    dict(dtype="float64", usecols=["i", "n"]), dict(dtype="str"), dict(skiprows=2, header=None),
])
def test_read_csv_matches_pandas(device, csv_path, kw):
    df = em.read_csv(csv_path, **kw)
    assert str(df.device) == str(device)
    # no rows: pandas makes every column object, ember keeps the types the file's
    # first block infers
    _eq(df, pd.read_csv(csv_path, **kw), check_dtype=kw.get("nrows") != 0)


def test_read_csv_sep_header_names(tmp_path):
    p = tmp_path / "semi.csv"
    p.write_text("x;y\n1;a\n2;b\n3;\n")
    for kw in (dict(sep=";"), dict(sep=";", header=None), dict(sep=";", names=["p", "q"]),
               dict(delimiter=";", names=["p", "q"], header=0)):
        _eq(em.read_csv(str(p), **kw), pd.read_csv(str(p), **kw))


def test_read_csv_file_object_and_category(csv_path):
    with open(csv_path, encoding="utf-8") as f:
        df = em.read_csv(f)
    _eq(df, pd.read_csv(csv_path))
    df = em.read_csv(io.StringIO(CSV), dtype={"s": "category"})
    exp = pd.read_csv(io.StringIO(CSV), dtype={"s": "category"})
    got = df.to_pandas()
    np.testing.assert_array_equal(got["s"].cat.codes, exp["s"].cat.codes)
    assert list(got["s"].cat.categories) == list(exp["s"].cat.categories)


def test_malformed_csv_names_the_line(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text("a,b\n1,2\n3,4,5\n6,7\n")
    with pytest.raises(pd.errors.ParserError) as ours:
        em.read_csv(str(p))
    with pytest.raises(pd.errors.ParserError) as theirs:
        pd.read_csv(str(p))
    assert str(ours.value) == str(theirs.value)  # "... Expected 2 fields in line 3, saw 3"
    assert isinstance(ours.value, ValueError)


def test_empty_and_header_only_csv(tmp_path):
    p = tmp_path / "empty.csv"
    p.write_text("")
    with pytest.raises(pd.errors.EmptyDataError):
        em.read_csv(str(p))
    p.write_text("a,b\n")
    df = em.read_csv(str(p))
    assert df.shape == (0, 2) and df.columns == ["a", "b"]


def test_read_csv_errors(csv_path):
    with pytest.raises(ValueError, match="Usecols"):
        em.read_csv(csv_path, usecols=["nope"])
    with pytest.raises(ValueError, match="one character"):
        em.read_csv(csv_path, sep=r"\s+")
    with pytest.raises(FileNotFoundError):
        em.read_csv(csv_path + ".missing")


def _frame(device):
    pdf = pd.DataFrame({
        "i": np.array([3, -1, 0, 7], dtype=np.int64),
        "u8": np.array([1, 2, 250, 0], dtype=np.uint8),
        "f": [1.0, np.nan, -2.5, 1e-7],
        "f32": np.array([0.1, 2, 3, np.nan], dtype=np.float32),
        "b": [True, False, True, True],
        "s": pd.array(["x", None, "", "é,\"q\""], dtype="str"),
        "t": pd.to_datetime(["2021-01-01", None, "2020-05-06 07:08:09", "1999-12-31"],
                            format="ISO8601"),
    })
    return em.frame.from_pandas(pdf, device), pdf


def test_to_csv_reads_back_as_pandas(device, tmp_path):
    df, pdf = _frame(device)
    p = tmp_path / "out.csv"
    assert df.to_csv(str(p)) is None
    back = pd.read_csv(str(p), index_col=0, parse_dates=["t"])
    exp = pd.read_csv(io.StringIO(pdf.to_csv()), index_col=0, parse_dates=["t"])
    pd.testing.assert_frame_equal(back, exp)
    assert df.to_csv() == pdf.to_csv()  # the same text: quoting, floats, dates
    assert df.to_csv(sep=";", index=False) == pdf.to_csv(sep=";", index=False)
    text = df.to_csv(index=False, columns=["i", "s"], na_rep="NA")
    assert pd.read_csv(io.StringIO(text), keep_default_na=False)["s"].tolist() == \
        ["x", "NA", "", 'é,"q"']


def test_to_csv_text_equals_pandas_for_numbers():
    pdf = pd.DataFrame({"a": [1, 2, 3], "x": [0.5, np.nan, 1.0], "b": [True, False, True],
                        "y": np.array([1.25, 3, 1e20], dtype=np.float64)})
    df = em.frame.from_pandas(pdf)
    assert df.to_csv() == pdf.to_csv()
    assert df.to_csv(index=False, sep="\t") == pdf.to_csv(index=False, sep="\t")
    assert df.head(0).to_csv() == pdf.head(0).to_csv()


def test_parquet_roundtrip(device, tmp_path):
    df, pdf = _frame(device)
    p = str(tmp_path / "x.parquet")
    df.to_parquet(p)
    back = em.read_parquet(p)
    assert str(back.device) == str(device)
    pd.testing.assert_frame_equal(back.to_pandas(), df.to_pandas())
    pd.testing.assert_frame_equal(pd.read_parquet(p), df.to_pandas(), check_dtype=False)
    _eq(em.read_parquet(p, columns=["s", "i"]), df.to_pandas()[["s", "i"]])
    # a parquet file written by pandas, read by ember
    q = str(tmp_path / "pandas.parquet")
    pdf.to_parquet(q)
    pd.testing.assert_frame_equal(em.read_parquet(q).to_pandas(), pd.read_parquet(q),
                                  check_dtype=False)


def test_parquet_keeps_a_named_index(tmp_path):
    pdf = pd.DataFrame({"v": [1.0, 2.0, 3.0]}, index=pd.Index([10, 20, 30], name="key"))
    df = em.frame.from_pandas(pdf)
    p = str(tmp_path / "i.parquet")
    df.to_parquet(p)
    pd.testing.assert_frame_equal(pd.read_parquet(p), pdf)
    pd.testing.assert_frame_equal(em.read_parquet(p).to_pandas(), pdf)


def test_failed_to_parquet_leaves_nothing(tmp_path, monkeypatch):
    df, _ = _frame("cpu")
    target = tmp_path / "keep.parquet"
    target.write_bytes(b"old contents")

    def broken(table, where, **kw):
        with open(where, "wb") as f:
            f.write(b"PAR1 partial")
        raise OSError("disk full")
    monkeypatch.setattr(pq, "write_table", broken)
    with pytest.raises(OSError, match="disk full"):
        df.to_parquet(str(target))
    assert os.listdir(tmp_path) == ["keep.parquet"]
    assert target.read_bytes() == b"old contents"
    new = tmp_path / "new.parquet"
    with pytest.raises(OSError):
        df.to_parquet(str(new))
    assert sorted(os.listdir(tmp_path)) == ["keep.parquet"]


def test_complex_column_refuses_arrow_before_writing(tmp_path):
    df = em.DataFrame({"z": np.array([1 + 2j, 3j])})
    with pytest.raises(TypeError, match="complex"):
        df.to_parquet(str(tmp_path / "z.parquet"))
    assert os.listdir(tmp_path) == []


def test_missing_pyarrow_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ImportError, match="pip install pyarrow"):
        em.read_csv("whatever.csv")
    with pytest.raises(ImportError, match="pyarrow"):
        em.DataFrame({"a": [1]}).to_parquet("x.parquet")


# ---- Arrow interop ----------------------------------------------------------------------

ARROW_CASES = [
    pa.array([1, None, 3], pa.int64()), pa.array([1, 2, 3], pa.int8()),
    pa.array([0.5, None, 2.0]), pa.array([None, 1.5], pa.float32()),
    pa.array([True, None, False, True, True, False, False, True, None]),
    pa.array(["a", None, "héllo", ""]), pa.array(["x", "yy"], pa.large_string()),
    pa.array(["a", "b", None], pa.string_view()), pa.array(["a", "bb", "ccc", "d"]).slice(1, 2),
    pa.array(["x", "y", None, "x"]).dictionary_encode(),
    pa.array([1, None, 3], pa.timestamp("us")), pa.array([5, None], pa.duration("ms")),
    pa.array([0, 19000], pa.date32()), pa.array([], pa.int32()), pa.array([], pa.string()),
    pa.array([1, 2, 3, 4, 5], pa.uint16()).slice(2),
]


@pytest.mark.parametrize("arr", ARROW_CASES, ids=lambda a: str(a.type))
def test_column_arrow_roundtrip(device, arr):
    col = _arrow.column_from_arrow(arr, device)
    assert str(col.device) == str(device) and len(col) == len(arr)
    back = _arrow.column_to_arrow(col)
    exp = arr
    if pa.types.is_string(arr.type) or pa.types.is_string_view(arr.type):
        exp = arr.cast(pa.large_string())
    elif pa.types.is_date(arr.type):
        exp = arr.cast(pa.timestamp("s"))
    elif pa.types.is_dictionary(arr.type):
        exp = arr.cast(pa.dictionary(pa.int32(), pa.large_string()))
    assert back.equals(exp), (back, exp)
    # pandas as the second oracle for what the values mean
    got = pd.Series(col.to_numpy(), dtype=object).tolist()
    want = pd.Series(arr.to_pandas(), dtype=object).tolist()
    if pa.types.is_date(arr.type):  # a Column keeps dates as datetime64[s]
        want = [pd.Timestamp(w) for w in want]
    for g, w in zip(got, want):
        assert (pd.isna(g) and pd.isna(w)) or g == w


def test_validity_bitmap_is_lsb_first():
    mask = np.array([0, 1, 1, 0, 0, 0, 0, 1, 1, 0], bool)  # True = null
    col = Column.from_numpy(np.arange(10, dtype=np.int32), "cpu", mask=mask)
    arr = _arrow.column_to_arrow(col)
    assert arr.null_count == 4
    bits = np.frombuffer(arr.buffers()[0], np.uint8)[:2]
    np.testing.assert_array_equal(bits, np.packbits(~mask, bitorder="little"))
    assert arr.to_pylist() == [None if m else i for i, m in enumerate(mask)]


def test_nan_is_an_arrow_null():
    col = Column.from_numpy(np.array([1.0, np.nan]), "cpu")
    assert _arrow.column_to_arrow(col).to_pylist() == [1.0, None]


def test_zero_copy_on_the_cpu():
    vals = np.arange(1000, dtype=np.float64)
    arr = pa.array(vals)
    col = _arrow.column_from_arrow(arr, "cpu")
    assert np.asarray(col.data).ctypes.data == arr.buffers()[1].address  # Arrow -> Ember
    col = Column.from_numpy(np.arange(100, dtype=np.int64), "cpu")
    out = _arrow.column_to_arrow(col)
    assert out.buffers()[1].address == np.asarray(col.data).ctypes.data  # Ember -> Arrow
    s = _strings.from_values(["ab", "cde"], "cpu")
    out = _arrow.column_to_arrow(s)
    assert out.buffers()[2].address == np.asarray(s.data).ctypes.data
    assert out.buffers()[1].address == np.asarray(s.offsets).ctypes.data


def test_pyarrow_table_and_capsule(device):
    df, _ = _frame(device)
    t = pa.table(df)  # through __arrow_c_stream__
    assert t.column_names == df.columns
    assert t.equals(df.to_arrow())
    pd.testing.assert_frame_equal(t.to_pandas(), df.to_pandas(), check_dtype=False)
    assert pa.schema(df) == t.schema  # __arrow_c_schema__
    back = em.from_arrow(t, device=device)
    pd.testing.assert_frame_equal(back.to_pandas(), df.to_pandas())
    s = pa.table(df["s"])  # a Series as a one-column stream
    assert s.column(0).to_pylist() == ["x", None, "", 'é,"q"']


def test_interchange_protocol(device):
    df, _ = _frame(device)
    got = pd.api.interchange.from_dataframe(df)
    pd.testing.assert_frame_equal(got, df.to_pandas(), check_dtype=False)
    assert df.__dataframe__().num_columns() == len(df.columns)
    from ember.frame._interchange import from_dataframe
    pdf = pd.DataFrame({"a": [1, 2], "s": ["u", None]})
    _eq(from_dataframe(pdf), pdf)


def test_empty_frame_interop(tmp_path):
    df = em.DataFrame({"a": np.zeros(0), "s": _strings.from_values([], "cpu").to_numpy()})
    t = pa.table(df)
    assert t.num_rows == 0 and t.column_names == ["a", "s"]
    p = str(tmp_path / "e.parquet")
    df.to_parquet(p)
    assert len(em.read_parquet(p)) == 0
    assert em.from_arrow(pa.table({})).shape == (0, 0)


def test_io_on_opencl(tmp_path, csv_path):
    if not em.opencl.is_available():
        pytest.skip("no OpenCL platform")
    with em.Device("opencl:0"):
        test_read_csv_matches_pandas("opencl:0", csv_path, {})
        test_parquet_roundtrip("opencl:0", tmp_path)
        test_column_arrow_roundtrip("opencl:0", ARROW_CASES[5])
