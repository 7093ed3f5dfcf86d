"""Files, buffers and text: save/load/savez/savez_compressed (NumPy's .npy
and .npz formats), savetxt/loadtxt/genfromtxt/fromregex, fromfile/tofile,
frombuffer/fromstring/fromiter.

The bytes live on the host, so a device array is copied there to be written
and a loaded one is copied to the current device: that is the work itself,
not a missing kernel, so these do not warn."""
import numpy as _np

from . import _ember
from ._hostcall import host_only as _host_only, to_host as _to_host, to_device as _to_device
from ._methods import attach as _attach

__all__ = ["save", "load", "savez", "savez_compressed", "savetxt", "loadtxt", "genfromtxt",
           "fromregex", "fromfile", "frombuffer", "fromstring", "fromiter"]


def _device():
    kind, id_ = _ember._get_device()
    return f"{kind}:{id_}"


def save(file, arr, allow_pickle=True, fix_imports=None):
    """Write arr to a .npy file (NumPy's format: NumPy reads it back)."""
    _np.save(file, _to_host(arr), allow_pickle=allow_pickle)


def savez(file, *args, allow_pickle=True, **kwds):
    """Write several arrays to an uncompressed .npz archive."""
    _np.savez(file, *_to_host(args), allow_pickle=allow_pickle, **_to_host(kwds))


def savez_compressed(file, *args, allow_pickle=True, **kwds):
    """Write several arrays to a compressed .npz archive."""
    _np.savez_compressed(file, *_to_host(args), allow_pickle=allow_pickle, **_to_host(kwds))


class NpzFile:
    """A loaded .npz archive whose members come back as ember arrays (on the
    device current at load time), read when first asked for."""

    def __init__(self, npz, device):
        self._npz, self._device = npz, device
        self.files = npz.files

    def __getitem__(self, key):
        return _to_device(self._npz[key], self._device)

    def __contains__(self, key):
        return key in self._npz

    def __iter__(self):
        return iter(self.files)

    def __len__(self):
        return len(self.files)

    def keys(self):
        return self._npz.keys()

    def values(self):
        return [self[k] for k in self.files]

    def items(self):
        return [(k, self[k]) for k in self.files]

    def get(self, key, default=None):
        return self[key] if key in self else default

    def close(self):
        self._npz.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<ember NpzFile {self.files!r}>"


def load(file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding="ASCII", *,
         max_header_size=10000):
    """Read a .npy file (an ember array on the current device) or a .npz
    archive (a mapping of them)."""
    r = _np.load(file, mmap_mode=mmap_mode, allow_pickle=allow_pickle, fix_imports=fix_imports,
                 encoding=encoding, max_header_size=max_header_size)
    dev = _device()
    if isinstance(r, _np.lib.npyio.NpzFile):
        return NpzFile(r, dev)
    if mmap_mode is not None and isinstance(r, _np.ndarray):
        r = _np.array(r)  # an ember array owns its memory
    return _to_device(r, dev)


def savetxt(fname, X, *args, **kwargs):
    """Write a 1-d or 2-d array to a text file (NumPy's formats)."""
    _np.savetxt(fname, _to_host(X), *args, **kwargs)


def loadtxt(fname, *args, **kwargs):
    """Read a text file into an ember array (NumPy's parser)."""
    return _host_only(_np.loadtxt, fname, *args, **kwargs)


def genfromtxt(fname, *args, **kwargs):
    """Read a text file with missing values into an ember array (NumPy's parser)."""
    return _host_only(_np.genfromtxt, fname, *args, **kwargs)


def fromregex(file, regexp, dtype, encoding=None):
    """Read the regular expression's groups of a text file (NumPy's parser)."""
    return _host_only(_np.fromregex, file, regexp, dtype, encoding)


def fromfile(file, dtype=float, count=-1, sep="", offset=0, *, like=None):
    """Read raw (or sep-separated text) values of dtype from a file."""
    return _host_only(_np.fromfile, file, dtype, count, sep, offset)


def frombuffer(buffer, dtype=float, count=-1, offset=0, *, like=None):
    """An ember array of the values in a bytes-like object (a copy)."""
    return _host_only(_np.frombuffer, buffer, dtype, count, offset)


def fromstring(string, dtype=float, count=-1, *, sep, like=None):
    """Values of dtype parsed from a sep-separated string."""
    return _host_only(_np.fromstring, string, dtype, count, sep=sep)


def fromiter(iter, dtype, count=-1, *, like=None):
    """An ember array of the values an iterable yields."""
    return _host_only(_np.fromiter, iter, dtype, count)


def _tofile(self, fid, sep="", format="%s"):
    """Write the array to a file as raw bytes (or sep-separated text)."""
    _np.asarray(_to_host(self)).tofile(fid, sep, format)


_attach("tofile", _tofile)
