"""The Array API inspection namespace (__array_namespace_info__)."""
import numpy as np
import pytest

import ember as em


@pytest.fixture
def info():
    return em.__array_namespace_info__()


def test_namespace(info):
    x = em.zeros(2)
    assert x.__array_namespace__() is em
    assert em.__array_api_version__ == "2025.12"
    with pytest.raises(ValueError, match="unsupported Array API version '1999.01'"):
        x.__array_namespace__(api_version="1999.01")


def test_capabilities(info):
    assert info.capabilities() == {"boolean indexing": True, "data-dependent shapes": True,
                                   "max dimensions": 32}


def test_default_device_follows_current(info, device):
    assert info.default_device() == device == em.get_device()
    assert info.devices() == tuple(em.devices())
    assert isinstance(info.devices(), tuple)  # the Array API asks for a tuple


def test_default_dtypes(info, device):
    d = info.default_dtypes(device=device)
    assert d == {"real floating": np.float64, "complex floating": np.complex128,
                 "integral": np.int64, "indexing": np.int64}
    assert em.zeros(1).dtype == d["real floating"]
    assert info.default_dtypes() == d


def test_dtypes(info):
    all_ = info.dtypes()
    assert list(all_) == ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                          "uint64", "float32", "float64", "complex64", "complex128"]
    assert all(all_[k] == np.dtype(k) for k in all_)
    assert list(info.dtypes(kind="real floating")) == ["float32", "float64"]
    assert list(info.dtypes(kind="unsigned integer")) == ["uint8", "uint16", "uint32", "uint64"]
    assert list(info.dtypes(kind=("bool", "complex floating"))) == ["bool", "complex64",
                                                                   "complex128"]
    assert len(info.dtypes(kind="numeric")) == 12
    assert list(info.dtypes(kind=("integral", "signed integer"))) == list(
        info.dtypes(kind="integral"))
    assert info.dtypes(device="cpu") == all_


def test_bad_arguments(info):
    with pytest.raises(ValueError, match="unknown dtype kind 'strings'"):
        info.dtypes(kind="strings")
    with pytest.raises(em.DeviceError, match="cuda:99"):
        info.dtypes(device="cuda:99")
    with pytest.raises(em.DeviceError, match="cuda:99"):
        info.default_dtypes(device="cuda:99")
    assert info.capabilities()["max dimensions"] == 32
