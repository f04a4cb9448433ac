"""Saving and loading minifloat arrays without pickle: .npy, .npz and safetensors.

Why ``np.save`` cannot do it
----------------------------
minifloat's dtypes are NumPy "new-style" (non-legacy) DTypes. The .npy header
describes the data by ``descr``, a string ``np.dtype()`` parses, and NumPy
has no such string for a non-legacy dtype: ``numpy.lib.format.dtype_to_descr``
writes ``'|O'`` and ``write_array`` pickles the whole array (with the warning
"Custom dtypes are saved as python objects using the pickle protocol").
``np.load(..., allow_pickle=False)`` then refuses the file ("Object arrays
cannot be loaded when allow_pickle=False"), and loading it with
``allow_pickle=True`` runs whatever code the pickle names. Two ways around it
inside NumPy's format do not work either:

* an extra header key (``'minifloat': ...``): NumPy's reader
  (``_read_array_header`` in ``numpy/lib/_format_impl.py``) rejects any
  header whose keys are not exactly ``descr``, ``fortran_order``, ``shape``;
* the format's name as ``descr`` (``'float8_e4m3fn'``): ``np.dtype`` resolves
  it only while minifloat is imported, and to ml_dtypes' type of the same
  name when ml_dtypes was imported last, so the file's meaning would depend
  on the reader's imports.

The .npy layout used here
-------------------------
``mf.save`` writes an ordinary .npy file (version 1.0) whose data are the
element codes as plain unsigned integers: ``'|u1'`` for the 8-bit and
sub-byte formats (one value per byte, in the low bits; the bits above the
format's width are written as zero) and ``'<u2'`` for bfloat16. The format's
name is a Python comment after the header dictionary, inside the space
padding NumPy already puts there to align the data to 64 bytes::

    {'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), } # minifloat-dtype: float8_e4m3fn

NumPy reads the header with ``ast.literal_eval``, which skips comments, so
``np.load(f, allow_pickle=False)`` (with or without ``mmap_mode``, with or
without minifloat imported) returns the codes as a uint8/uint16 array, while
``mf.load`` finds the comment (with Python's tokenizer, so text inside a
string never counts) and views the codes as the format, bit for bit. The
comment sits where NumPy's own writer puts spaces, so the data offset stays a
multiple of 64. complex32/bcomplex32 arrays are stored as their part codes,
``'<u2'`` with one more trailing axis of length 2 (real part first, always in
C order), so ``np.load`` gives the (real, imag) float16/bfloat16 codes of
each element and ``mf.load`` views them as the complex type again. A file
without the comment loads as NumPy loads it;
``dtype=`` reinterprets its unsigned codes.

``mf.savez``/``mf.savez_compressed`` write a zip of such members, named like
``np.savez`` names them; plain NumPy arrays in the archive are written by
NumPy's own writer (``allow_pickle=False``). ``mf.load`` of an .npz returns a
lazy mapping (``NpzArchive``) that restores each member's format on access.

safetensors
-----------
``mf.save_safetensors``/``mf.load_safetensors`` implement the format
directly: an 8-byte little-endian header length N, N bytes of JSON (padded
with spaces to a multiple of 8) mapping each tensor name to ``dtype``,
``shape`` and ``data_offsets`` (begin, end within the data section), plus an
optional ``__metadata__`` of str -> str, then the little-endian data, tensors
back to back with no holes. Names follow the ``Dtype`` enum of the reference
implementation (huggingface/safetensors 0.8):

=================  ===========  =================  ============
minifloat          safetensors  minifloat          safetensors
=================  ===========  =================  ============
float8_e4m3fn      F8_E4M3      float8_e8m0fnu     F8_E8M0
float8_e5m2        F8_E5M2      float6_e2m3fn      F6_E2M3
float8_e4m3fnuz    F8_E4M3FNUZ  float6_e3m2fn      F6_E3M2
float8_e5m2fnuz    F8_E5M2FNUZ  float4_e2m1fn      F4
bfloat16           BF16
=================  ===========  =================  ============

F8_E4M3 is the finite ("fn") format, as in torch's and the reference's own
mapping, so minifloat's IEEE-like ``float8_e4m3``, ``float8_e3m4`` and
``float8_e4m3b11fnuz``, which the format has no name for, are refused with
an error naming the formats that can be saved rather than written under a
name that means something else. NumPy's bool, int8..int64, uint8..uint64,
float16/32/64 and complex64 pass through (BOOL, I8.., U8.., F16, F32, F64,
C64).

F4 and F6 tensors are stored packed and their ``shape`` counts values, not
bytes (the reference rejects a tensor whose values do not fill whole bytes,
so FP4 needs an even count and FP6 a multiple of four). The packing is
``mf.pack``'s: one little-endian bit stream, first value in the lowest bits,
which for F4 is torch's ``float4_e2m1fn_x2`` layout (first value in the low
nibble; torch's shape counts bytes, so its last dimension is half the file's).
The safetensors specification does not prescribe a bit order for F6.
"""
import ast
import io
import json
import math
import os
import re
import struct
import sys
import tokenize
import zipfile
from collections.abc import Mapping

import numpy as np

from . import _core
from ._dtype_arguments import minifloat_dtype
from ._core import COMPLEX_FORMAT_NAMES, FORMAT_NAMES, ComplexDType, MinifloatDType
from ._ml_dtypes import as_minifloat_array
from ._packing import pack, unpack

__all__ = ["NpzArchive", "load", "load_safetensors", "save", "save_safetensors", "savez", "savez_compressed"]

_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")  # a local file header; an empty archive
_NPY_ALIGN = 64  # NumPy aligns the data of a .npy file to 64 bytes
_NPY_MAX_HEADER = 10000  # np.load's default max_header_size: longer headers are not parsed
_MARKER = re.compile(r"#\s*minifloat-dtype:\s*(\S+)\s*")
_MMAP_MODES = (None, "r", "r+", "c")


# --------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------

def _is_path(file):
    return isinstance(file, (str, os.PathLike))


def _bits(dtype):
    if isinstance(dtype, ComplexDType):
        return 16  # per part
    return np.finfo(dtype).bits  # (registration sets it: _format_registration.py)


def _code_type(dtype):
    """The unsigned integer type holding one code of a minifloat format (one
    part's code for the complex types)."""
    return np.dtype(np.uint16) if dtype.itemsize in (2, 4) else np.dtype(np.uint8)


def _as_array(obj, what):
    """`obj` as an array that can be written without pickle, or a clear
    error. An ml_dtypes array is written as minifloat's of the same format
    (the same codes; ``mf.to_ml_dtypes`` views the loaded array back)."""
    if isinstance(obj, np.ndarray):
        arr = obj
    elif isinstance(obj, np.generic):
        arr = np.asarray(obj)
    else:
        hint = "np.asarray(...)"
        if hasattr(obj, "__dlpack__"):  # torch, JAX, CuPy: their float8/bfloat16 types are no NumPy type
            hint += " (a tensor of a float8, bfloat16 or float4 type: mf.from_dlpack(...))"
        raise TypeError(f"{what} must be a NumPy array, not {type(obj).__name__}; convert it with {hint} first")
    arr = as_minifloat_array(arr)
    dtype = arr.dtype
    if isinstance(dtype, (MinifloatDType, ComplexDType)):
        return arr
    if dtype.hasobject:
        raise ValueError(f"{what} has dtype {dtype}, which only pickle can store; "
                         "minifloat's files never contain pickles")
    if isinstance(dtype, _core.IntegerDType):
        stored = "np.int8" if dtype.kind == "i" else "np.uint8"
        raise ValueError(f"{what} has minifloat's integer type {dtype.name}, which these files store only by "
                         f"pickle; save arr.view({stored}) (its bytes are the values) and view the loaded array "
                         f"with .view(mf.{dtype.name})")
    if not getattr(type(dtype), "_legacy", True):
        raise ValueError(f"{what} has dtype {dtype}, a NumPy dtype these files store only by pickle")
    return arr


def _file_codes(arr):
    """The codes of a minifloat array as the file stores them: u1/<u2, the
    bits above the format's width zero, in the array's own memory order."""
    dtype = arr.dtype
    if isinstance(dtype, ComplexDType):
        # (real, imag) part codes on one more axis, in C order
        codes = np.ascontiguousarray(arr)[..., np.newaxis].view(np.uint16)
        return codes.astype("<u2") if sys.byteorder != "little" else codes
    codes = arr.view(_code_type(dtype))
    bits = _bits(dtype)
    if bits < 8:
        codes = codes & np.uint8((1 << bits) - 1)
    if dtype.itemsize == 2 and sys.byteorder != "little":
        codes = codes.astype("<u2")
    return codes


def _write_contiguous(fp, data):
    """Write the bytes of a C-contiguous array."""
    if not data.size:
        return
    if isinstance(fp, (io.FileIO, io.BufferedWriter, io.BufferedRandom)):
        data.tofile(fp)  # a real file: NumPy writes it directly, as np.save does
    else:
        fp.write(memoryview(data.reshape(-1).view(np.uint8)))


def _read_exact(fp, nbytes, what):
    """`nbytes` bytes from `fp` as a new uint8 array, or ValueError if the file ends first."""
    out = np.empty(nbytes, np.uint8)
    view = memoryview(out)
    done = 0
    while done < nbytes:
        if hasattr(fp, "readinto"):
            got = fp.readinto(view[done:])
        else:
            chunk = fp.read(nbytes - done)
            got = len(chunk)
            view[done:done + got] = chunk
        if not got:
            raise ValueError(f"the file ends inside {what}: {nbytes} bytes expected, "
                             f"{done} found (truncated file?)")
        done += got
    return out


class _Opened:
    """A context giving a binary file object: `file` itself (left open) or the
    path opened in `mode` (closed on exit)."""

    def __init__(self, file, mode, what):
        if _is_path(file):
            self._own = open(os.fspath(file), mode)
            self.fp = self._own
        else:
            needed = ("write",) if "w" in mode else ("read", "seek")
            if not all(hasattr(file, attr) for attr in needed):
                raise TypeError(f"{what} needs a path (str or os.PathLike) or a binary file "
                                f"object with {' and '.join(needed)}, not {type(file).__name__}")
            self._own = None
            self.fp = file

    def __enter__(self):
        return self.fp

    def __exit__(self, *exc):
        if self._own is not None:
            self._own.close()


# --------------------------------------------------------------------------
# .npy
# --------------------------------------------------------------------------

def _npy_header(descr, fortran_order, shape, format_name):
    """The magic string, header length and header of a .npy file whose
    dictionary is followed by the minifloat-dtype comment."""
    text = (f"{{'descr': {descr!r}, 'fortran_order': {fortran_order!r}, "
            f"'shape': {tuple(int(n) for n in shape)!r}, }} # minifloat-dtype: {format_name}")
    for version, length_format in (((1, 0), "<H"), ((2, 0), "<I")):
        prefix = len(_NPY_MAGIC) + 2 + struct.calcsize(length_format)
        padding = -(prefix + len(text) + 1) % _NPY_ALIGN
        length = len(text) + padding + 1
        if length < 1 << (8 * struct.calcsize(length_format)):
            return (_NPY_MAGIC + bytes(version) + struct.pack(length_format, length)
                    + (text + " " * padding + "\n").encode("latin1"))
    raise ValueError(f"a .npy header for shape {shape} would be too long")


def _write_npy(fp, arr):
    """Write `arr` (already checked by _as_array) as a .npy file."""
    if not isinstance(arr.dtype, (MinifloatDType, ComplexDType)):
        np.lib.format.write_array(fp, arr, allow_pickle=False)
        return
    codes = _file_codes(arr)
    fortran = bool(codes.flags.f_contiguous and not codes.flags.c_contiguous)
    fp.write(_npy_header(codes.dtype.str, fortran, codes.shape, arr.dtype.name))
    # Fortran order is written as the C-ordered transpose, as np.save does.
    _write_contiguous(fp, codes.T if fortran else np.ascontiguousarray(codes))


def _marker_of(header_text):
    """The format named by a minifloat-dtype comment in a .npy header, or None."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(header_text).readline))
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    for token in tokens:
        if token.type == tokenize.COMMENT:
            found = _MARKER.fullmatch(token.string)
            if found:
                return found.group(1)
    return None


def _peek_npy(fp):
    """(descr, format name or None) from the header of the .npy stream at
    fp's position, which is restored. Anything unusual gives (None, None) and
    is left to NumPy's reader, which reports it."""
    start = fp.tell()
    try:
        prefix = fp.read(len(_NPY_MAGIC) + 2)
        if len(prefix) < len(_NPY_MAGIC) + 2 or not prefix.startswith(_NPY_MAGIC):
            return None, None
        major = prefix[len(_NPY_MAGIC)]
        if major not in (1, 2, 3):
            return None, None
        length_format = "<H" if major == 1 else "<I"
        raw = fp.read(struct.calcsize(length_format))
        if len(raw) < struct.calcsize(length_format):
            return None, None
        (length,) = struct.unpack(length_format, raw)
        if length > _NPY_MAX_HEADER:
            return None, None
        header = fp.read(length)
        try:
            text = header.decode("utf8" if major == 3 else "latin1")
            fields = ast.literal_eval(text)
        except (UnicodeDecodeError, SyntaxError, ValueError, MemoryError, RecursionError):
            return None, None
        descr = fields.get("descr") if isinstance(fields, dict) else None
        return descr, _marker_of(text)
    finally:
        fp.seek(start)


def _format_named(name, where):
    if name in COMPLEX_FORMAT_NAMES:
        return np.dtype(getattr(_core, name))
    dtype = _core._format_dtype(name)  # built-in, or made by mf.float_format in this process
    if dtype is None:
        raise ValueError(f"{where} was written for the minifloat format {name!r}, which this "
                         f"version of minifloat does not have (it has {', '.join(FORMAT_NAMES)}; "
                         "a format of mf.float_format must be made again, with the same parameters "
                         "and name, before loading); np.load(..., allow_pickle=False) reads its codes")
    return dtype


def _view_codes(codes, dtype, where, check_codes):
    """The codes of an array read from a file viewed as minifloat `dtype`."""
    code_type = _code_type(dtype)
    if codes.dtype.kind == "V" and codes.dtype.names is None and codes.dtype.itemsize == code_type.itemsize:
        codes = codes.view(code_type)  # np.save of an ml_dtypes array writes its codes as void ("|V1")
    if codes.dtype.kind != "u" or codes.dtype.itemsize != code_type.itemsize:
        raise ValueError(f"{where} holds {codes.dtype} data; {dtype.name} needs its codes as "
                         f"{code_type} (one per element)")
    if not codes.dtype.isnative:
        if isinstance(codes, np.memmap):
            raise ValueError(f"{where} holds byte-swapped codes ({codes.dtype.str}), which cannot "
                             f"be memory-mapped as {dtype.name}; load it without mmap_mode")
        codes = codes.astype(codes.dtype.newbyteorder("="))
    if isinstance(dtype, ComplexDType):
        if codes.ndim == 0 or codes.shape[-1] != 2:
            raise ValueError(f"{where} holds codes of shape {codes.shape}; {dtype.name} needs its "
                             "(real, imag) part codes on a last axis of length 2")
        if not codes.flags.c_contiguous:
            codes = np.ascontiguousarray(codes)
        return codes.view(dtype)[..., 0]
    bits = _bits(dtype)
    if check_codes and bits < 8 and codes.size:
        top = int(codes.max())
        if top >> bits:
            raise ValueError(f"{where} holds the code {top:#x}, which does not fit in "
                             f"{dtype.name}'s {bits} bits: not a {dtype.name} file")
    return codes.view(dtype)


def _restore(codes, descr, marker, dtype, where, check_codes):
    """What mf.load returns for an array NumPy read from a .npy stream."""
    target = None
    if marker is not None:
        target = _format_named(marker, where)
        if dtype is not None and dtype != target:
            raise ValueError(f"{where} holds {target.name} codes, not dtype={dtype.name}")
        if descr != _code_type(target).newbyteorder("<").str:
            raise ValueError(f"{where} says it holds {target.name} codes, but its data are "
                             f"{descr!r} (corrupt file?)")
    elif dtype is not None:
        target = dtype
    if target is None:
        return codes
    if not isinstance(codes, np.ndarray):
        raise ValueError(f"{where} holds {type(codes).__name__}, not an array of codes")
    return _view_codes(codes, target, where, check_codes)


def save(file, arr):
    """Save an array to a .npy file without pickle.

    A minifloat array is stored as its element codes (uint8, or uint16 for
    bfloat16) with the format's name in a header comment:
    ``np.load(file, allow_pickle=False)`` reads the codes, ``load`` the
    array, bit for bit. Other arrays are written as
    ``np.save(file, arr, allow_pickle=False)`` writes them.

    Parameters
    ----------
    file : str, os.PathLike or binary file object
        Where to write; ".npy" is appended to a path without it, as
        ``np.save`` does.
    arr : ndarray or NumPy scalar
        A minifloat float array (an ml_dtypes array is saved as minifloat's
        of the same format: the same codes), or any array NumPy saves
        without pickle.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        If `arr` is not a NumPy array or scalar, or `file` is neither a
        path nor a binary file.
    ValueError
        If `arr`'s dtype can only be stored by pickle (object arrays, and
        the dtypes of NumPy's DType API, the sub-byte integers among them:
        ``arr.view(np.int8)`` saves their values).

    See Also
    --------
    load, savez

    Examples
    --------
    >>> import io, numpy as np, minifloat as mf
    >>> f = io.BytesIO()
    >>> mf.save(f, np.array([0.5, 1.5, -2.0], dtype=mf.float8_e4m3fn))
    >>> _ = f.seek(0)
    >>> mf.load(f).tolist()
    [0.5, 1.5, -2.0]
    >>> _ = f.seek(0)
    >>> np.load(f, allow_pickle=False)  # what NumPy alone reads: the codes
    array([ 48,  60, 192], dtype=uint8)
    """
    arr = _as_array(arr, "mf.save's array")
    if _is_path(file):
        file = os.fspath(file)
        if not file.endswith(".npy"):
            file += ".npy"
    with _Opened(file, "wb", "mf.save") as fp:
        _write_npy(fp, arr)


def _sniff(fp, where):
    """'npy' or 'npz' for the stream at fp's position (restored)."""
    start = fp.tell()
    head = fp.read(16)
    fp.seek(start)
    if head.startswith(_NPY_MAGIC):
        return "npy"
    if head.startswith(_ZIP_MAGICS):
        return "npz"
    if len(head) < len(_NPY_MAGIC):
        raise ValueError(f"{where} is empty or truncated ({len(head)} bytes): not a .npy or .npz file")
    if head[:1] == b"\x80":
        raise ValueError(f"{where} looks like a pickle; mf.load never unpickles (np.load with "
                         "allow_pickle=True does, for files you trust)")
    if head[8:9] == b"{":
        raise ValueError(f"{where} is not a .npy or .npz file; if it is a safetensors file, "
                         "read it with mf.load_safetensors")
    raise ValueError(f"{where} is not a .npy or .npz file (it starts with {head[:8]!r})")


def load(file, mmap_mode=None, *, dtype=None):
    """Load an array from a .npy file, or the arrays of an .npz archive.

    Arrays written by ``save``/``savez`` come back with their minifloat
    dtype, bit for bit; other arrays come back as
    ``np.load(file, allow_pickle=False)`` gives them. Nothing is ever
    unpickled.

    Parameters
    ----------
    file : str, os.PathLike or binary file object
        A .npy file or an .npz archive.
    mmap_mode : {None, "r", "r+", "c"}, optional
        As for ``np.load`` (a .npy path only).
    dtype : minifloat dtype or dict, optional
        A minifloat dtype whose codes a plain .npy file holds (an unsigned
        integer array of the format's item size, or the void array
        ``np.save`` writes for an ml_dtypes array); for an .npz archive, a
        dict ``{name: dtype}``. A file that names its format must name this
        one.

    Returns
    -------
    ndarray or NpzArchive
        The array; for an .npz archive an ``NpzArchive``, a read-only
        mapping that reads each array when it is looked up (close it, or use
        ``with``, when done).

    Raises
    ------
    ValueError
        If the file is neither .npy nor .npz, is damaged, holds pickles, or
        names another format than `dtype`.
    TypeError
        If `dtype` is not a minifloat dtype (or dict of them).

    See Also
    --------
    save, savez

    Examples
    --------
    >>> import io, numpy as np, minifloat as mf
    >>> f = io.BytesIO()
    >>> mf.savez(f, w=np.array([0.5, 1.5], dtype=mf.float8_e4m3fn), b=np.arange(3))
    >>> _ = f.seek(0)
    >>> with mf.load(f) as archive:
    ...     print(sorted(archive), archive["w"].dtype, archive["b"])
    ['b', 'w'] float8_e4m3fn [0 1 2]
    """
    if mmap_mode not in _MMAP_MODES:
        raise ValueError(f"mmap_mode must be one of {_MMAP_MODES}, not {mmap_mode!r}")
    where = repr(os.fspath(file)) if _is_path(file) else "the file"
    with _Opened(file, "rb", "mf.load") as fp:
        kind = _sniff(fp, where)
        descr, marker = _peek_npy(fp) if kind == "npy" else (None, None)
    if kind == "npz":
        if dtype is not None and not isinstance(dtype, Mapping):
            raise TypeError("for an .npz archive, dtype must be a dict {name: minifloat dtype}")
        dtypes = {str(name): minifloat_dtype(value, "mf.load")
                  for name, value in (dtype or {}).items()}
        # The archive opens the path itself so that a damaged one does not
        # leave it open (np.load does when zipfile refuses the file).
        own = open(os.fspath(file), "rb") if _is_path(file) else None
        try:
            npz = np.load(file if own is None else own, allow_pickle=False)
        except zipfile.BadZipFile as error:
            if own is not None:
                own.close()
            raise ValueError(f"{where} is a damaged .npz archive ({error})") from None
        except BaseException:
            if own is not None:
                own.close()
            raise
        return NpzArchive(npz, dtypes, own)
    if dtype is not None:
        dtype = minifloat_dtype(dtype, "mf.load")
    if descr == "|O":
        raise ValueError(f"{where} holds pickled objects (np.save writes a minifloat array so), which mf.load "
                         "never unpickles: for a file you trust, np.load(..., allow_pickle=True) reads it, "
                         "and mf.save writes it again without pickle")
    codes = np.load(file, mmap_mode=mmap_mode, allow_pickle=False)
    # A memory map is not scanned: the high bits of a sub-byte code are
    # ignored by every operation anyway.
    return _restore(codes, descr, marker, dtype, where, check_codes=mmap_mode is None)


# --------------------------------------------------------------------------
# .npz
# --------------------------------------------------------------------------

class NpzArchive(Mapping):
    """The arrays of an .npz archive, as ``load`` returns them.

    A read-only mapping ``{name: array}`` that reads each array when it is
    looked up, with the minifloat dtypes recorded by ``savez`` restored. It
    wraps NumPy's NpzFile (``npz``); ``files`` lists the names. Close it
    (or use ``with``) when done.

    Parameters
    ----------
    npz : numpy.lib.npyio.NpzFile
        The open archive (``load`` opens it).
    dtypes : dict, optional
        ``{name: dtype}`` for members holding plain codes.
    own : file object, optional
        A file ``load`` opened, closed with the archive.

    Examples
    --------
    >>> import io, numpy as np, minifloat as mf
    >>> f = io.BytesIO()
    >>> mf.savez(f, np.array([1.0, 2.0], dtype=mf.bfloat16))
    >>> _ = f.seek(0)
    >>> archive = mf.load(f)
    >>> archive.files, archive["arr_0"].tolist()
    (['arr_0'], [1.0, 2.0])
    >>> archive.close()
    """

    def __init__(self, npz, dtypes=None, own=None):
        self.npz = npz
        self._own = own
        self.files = list(npz.files)
        self._dtypes = dict(dtypes or {})
        unknown = sorted(set(self._dtypes) - set(self.files))
        if unknown:
            self.close()
            raise ValueError(f"dtype names arrays the archive does not have: {unknown} "
                             f"(it has {self.files})")

    def _member(self, key):
        names = self.npz.zip.namelist()
        if key in names:
            return key
        return key + ".npy"

    def __getitem__(self, key):
        name = key[:-4] if key not in self.files and key.endswith(".npy") else key
        try:
            value = self.npz[key]  # NumPy's reader: KeyError for a missing name
            if not isinstance(value, np.ndarray):
                return value  # a member that is not a .npy file: its bytes, as NpzFile gives them
            with self.npz.zip.open(self._member(key)) as stream:
                descr, marker = _peek_npy(stream)
        except zipfile.BadZipFile as error:
            raise ValueError(f"archive member {name!r} is damaged ({error})") from None
        return _restore(value, descr, marker, self._dtypes.get(name),
                        f"archive member {name!r}", check_codes=True)

    def __iter__(self):
        return iter(self.files)

    def __len__(self):
        return len(self.files)

    def __contains__(self, key):
        return key in self.files or key in self.npz.zip.namelist()

    def close(self):
        self.npz.close()
        if self._own is not None:
            self._own.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        # an archive dropped without close() closes its files, as NumPy's
        # NpzFile does (else Python warns of an unclosed file)
        try:
            self.close()
        except Exception:  # a half-made archive, or interpreter shutdown
            pass

    def __repr__(self):
        return f"<minifloat NpzArchive of {self.files}>"


def _savez(file, args, kwds, compress, what):
    arrays = {}
    for name, value in kwds.items():
        arrays[name] = value
    for index, value in enumerate(args):
        name = f"arr_{index}"
        if name in arrays:
            raise ValueError(f"{what}: the positional array {index} and the keyword {name!r} "
                             f"would both be stored as {name!r}")
        arrays[name] = value
    checked = {name: _as_array(value, f"{what}'s array {name!r}") for name, value in arrays.items()}
    if _is_path(file):
        file = os.fspath(file)
        if not file.endswith(".npz"):
            file += ".npz"
    elif not hasattr(file, "write"):
        raise TypeError(f"{what} needs a path (str or os.PathLike) or a binary file object, "
                        f"not {type(file).__name__}")
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(file, mode="w", compression=method, allowZip64=True) as archive:
        for name, arr in checked.items():
            with archive.open(name + ".npy", mode="w", force_zip64=True) as member:
                _write_npy(member, arr)


def save_with_meta(file, kind, version_key, version, meta, arrays):
    """An .npz of `arrays` plus ``meta``: a JSON string holding `meta` and
    ``{version_key: version}``; the file format of ``kind.save`` (MXArray,
    QuantizedArray), read back by ``load_with_meta``."""
    try:
        text = json.dumps({version_key: version, **meta}, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{kind}.save: its metadata {meta!r} are not JSON values ({error})") from None
    _savez(file, (), {"meta": np.array(text), **arrays}, False, f"{kind}.save")


def load_with_meta(file, a_kind, version_key, version, required, optional=()):
    """The arrays (`required` and those of `optional` present) and the
    decoded ``meta`` of a file ``save_with_meta`` wrote, its version
    checked; a file that is not one raises ValueError saying it is not
    `a_kind` ("an MXArray") file."""
    kind = a_kind.split(" ", 1)[1]
    with load(file) as archive:
        missing = (set(required) | {"meta"}) - set(archive.files)
        if missing:
            raise ValueError(f"not {a_kind} file: no {', '.join(sorted(missing))} in it")
        arrays = {name: archive[name] for name in (*required, *optional) if name in archive}
        meta_text = archive["meta"]
    try:
        meta = json.loads(str(meta_text))
        found = meta[version_key]
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"not {a_kind} file: bad metadata ({error})") from error
    if found != version:
        raise ValueError(f"{kind} file version {found} is not supported (this is {version})")
    return arrays, meta


def savez(file, *args, **kwds):
    """Save several arrays in an uncompressed .npz archive without pickle.

    Arrays are named as ``np.savez`` names them (keywords, then ``arr_0``,
    ``arr_1``... for positional ones); minifloat arrays are stored as by
    ``save``, so ``np.load(file, allow_pickle=False)`` opens the archive
    and ``load(file)`` restores their dtypes.

    Parameters
    ----------
    file : str, os.PathLike or binary file object
        Where to write; ".npz" is appended to a path without it.
    *args : ndarray or NumPy scalar
        Arrays stored as ``arr_0``, ``arr_1``, ...
    **kwds : ndarray or NumPy scalar
        Arrays stored under their keyword.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        If an array is not a NumPy array or scalar, or `file` is neither a
        path nor a binary file.
    ValueError
        If two arrays get the same name, or an array's dtype can only be
        stored by pickle (see ``save``).

    See Also
    --------
    savez_compressed, load

    Examples
    --------
    >>> import io, numpy as np, minifloat as mf
    >>> f = io.BytesIO()
    >>> mf.savez(f, np.zeros(2, mf.float4_e2m1fn), scale=np.float32(0.5))
    >>> _ = f.seek(0)
    >>> sorted(mf.load(f))
    ['arr_0', 'scale']
    """
    _savez(file, args, kwds, False, "mf.savez")


def savez_compressed(file, *args, **kwds):
    """Save several arrays in a deflate-compressed .npz archive without pickle.

    As ``savez``, with each member compressed.

    Parameters
    ----------
    file : str, os.PathLike or binary file object
        Where to write; ".npz" is appended to a path without it.
    *args : ndarray or NumPy scalar
        Arrays stored as ``arr_0``, ``arr_1``, ...
    **kwds : ndarray or NumPy scalar
        Arrays stored under their keyword.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        If an array is not a NumPy array or scalar, or `file` is neither a
        path nor a binary file.
    ValueError
        If two arrays get the same name, or an array's dtype can only be
        stored by pickle (see ``save``).

    See Also
    --------
    savez, load

    Examples
    --------
    >>> import io, numpy as np, minifloat as mf
    >>> f = io.BytesIO()
    >>> mf.savez_compressed(f, w=np.zeros(1000, mf.float8_e5m2))
    >>> f.tell() < 1000
    True
    >>> _ = f.seek(0)
    >>> mf.load(f)["w"].dtype
    float8_e5m2
    """
    _savez(file, args, kwds, True, "mf.savez_compressed")


# --------------------------------------------------------------------------
# safetensors
# --------------------------------------------------------------------------

# minifloat format -> safetensors dtype name (the reference's Dtype enum).
_SAFETENSORS_NAME = {
    "float8_e4m3fn": "F8_E4M3",
    "float8_e5m2": "F8_E5M2",
    "float8_e4m3fnuz": "F8_E4M3FNUZ",
    "float8_e5m2fnuz": "F8_E5M2FNUZ",
    "float8_e8m0fnu": "F8_E8M0",
    "float6_e2m3fn": "F6_E2M3",
    "float6_e3m2fn": "F6_E3M2",
    "float4_e2m1fn": "F4",
    "bfloat16": "BF16",
}
# safetensors dtype name -> NumPy dtype (as stored: little-endian).
_SAFETENSORS_NUMPY = {
    "BOOL": np.dtype("?"),
    "U8": np.dtype("u1"), "I8": np.dtype("i1"),
    "U16": np.dtype("<u2"), "I16": np.dtype("<i2"),
    "U32": np.dtype("<u4"), "I32": np.dtype("<i4"),
    "U64": np.dtype("<u8"), "I64": np.dtype("<i8"),
    "F16": np.dtype("<f2"), "F32": np.dtype("<f4"), "F64": np.dtype("<f8"),
    "C64": np.dtype("<c8"),
}
_NUMPY_SAFETENSORS = {dtype.newbyteorder("="): name for name, dtype in _SAFETENSORS_NUMPY.items()}
_SAFETENSORS_FORMAT = {st_name: name for name, st_name in _SAFETENSORS_NAME.items()}
_SAFETENSORS_MAX_HEADER = 100_000_000  # the reference refuses longer headers
_METADATA_KEY = "__metadata__"


def _safetensors_format(name):
    return np.dtype(getattr(_core, name))


def _safetensors_layout(dtype, what):
    """(safetensors dtype name, bits per element) of an array's dtype."""
    if isinstance(dtype, MinifloatDType):
        name = _SAFETENSORS_NAME.get(dtype.name)
        if name is None:
            raise ValueError(f"{what} is {dtype.name}, which the safetensors format has no dtype "
                             f"for; it can store {', '.join(_SAFETENSORS_NAME)} (and NumPy's "
                             "bool, integer, float16/32/64 and complex64 arrays)")
        return name, _bits(dtype)
    name = _NUMPY_SAFETENSORS.get(dtype.newbyteorder("="))
    if name is None:
        raise ValueError(f"{what} has dtype {dtype}, which the safetensors format has no dtype "
                         "for; it stores bool, int8..int64, uint8..uint64, float16/32/64, "
                         f"complex64 and the minifloat formats {', '.join(_SAFETENSORS_NAME)}")
    return name, dtype.itemsize * 8


def _safetensors_bytes(arr):
    """The little-endian data of an array as safetensors stores it (C order)."""
    dtype = arr.dtype
    if isinstance(dtype, MinifloatDType):
        if _bits(dtype) < 8:
            return pack(arr)
        codes = np.ascontiguousarray(arr).view(_code_type(dtype))
        return codes.astype(codes.dtype.newbyteorder("<"), copy=False)
    return np.ascontiguousarray(arr, dtype=dtype.newbyteorder("<") if dtype.itemsize > 1 else dtype)


def save_safetensors(file, tensors, metadata=None):
    """Write a dict of arrays to a safetensors file.

    Parameters
    ----------
    file : str, os.PathLike or binary file object
        Where to write.
    tensors : dict of str to ndarray
        Minifloat arrays of the formats safetensors names (F8_E4M3,
        F8_E5M2, F8_E4M3FNUZ, F8_E5M2FNUZ, F8_E8M0, F6_E2M3, F6_E3M2, F4,
        BF16) and NumPy bool, integer, float16/32/64 and complex64 arrays.
        FP4/FP6 tensors are stored packed, so their sizes must fill whole
        bytes (FP4: an even number of values, FP6: a multiple of four);
        an FP4 tensor's last axis must be even (torch reads F4 as
        float4_e2m1fn_x2, two values a byte along it). ml_dtypes' arrays
        are stored as minifloat's of the same format.
    metadata : dict of str to str, optional
        Stored as the header's ``__metadata__``.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        If `tensors` is not a dict of arrays, an array's type has no
        safetensors name, or `metadata` is not a dict of str to str.
    ValueError
        If an FP4/FP6 tensor does not fill whole bytes, an FP4 tensor's
        last axis is odd, or a name is ``__metadata__``.

    See Also
    --------
    load_safetensors

    Examples
    --------
    >>> import io, numpy as np, minifloat as mf
    >>> f = io.BytesIO()
    >>> mf.save_safetensors(f, {"w": np.array([0.5, -2.0], dtype=mf.float8_e4m3fn)},
    ...                     metadata={"format": "pt"})
    >>> _ = f.seek(0)
    >>> tensors, metadata = mf.load_safetensors(f, return_metadata=True)
    >>> tensors["w"].tolist(), metadata
    ([0.5, -2.0], {'format': 'pt'})
    """
    if not isinstance(tensors, Mapping):
        raise TypeError(f"mf.save_safetensors needs a dict of name -> array, "
                        f"not {type(tensors).__name__}")
    if metadata is not None:
        if not isinstance(metadata, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise TypeError("safetensors metadata must be a dict of str -> str")
        metadata = dict(metadata)
    entries = []
    for name, value in tensors.items():
        if not isinstance(name, str):
            raise TypeError(f"tensor names must be str, not {type(name).__name__} ({name!r})")
        if name == _METADATA_KEY:
            raise ValueError(f"{_METADATA_KEY!r} is reserved for the metadata; "
                             "pass metadata=... instead")
        what = f"tensor {name!r}"
        arr = _as_array(value, what)
        st_name, bits = _safetensors_layout(arr.dtype, what)
        if arr.size * bits % 8:
            raise ValueError(f"{what} has {arr.size} {arr.dtype.name} values ({arr.size * bits} "
                             "bits): safetensors stores packed FP4/FP6 tensors only in whole "
                             "bytes (FP4: an even count, FP6: a multiple of 4)")
        if st_name == "F4" and arr.shape[-1] % 2:
            # torch reads F4 as float4_e2m1fn_x2, two values a byte along the last axis,
            # and refuses the whole file otherwise
            raise ValueError(f"{what} has shape {arr.shape}: an F4 tensor needs an even last axis "
                             "(torch reads it as float4_e2m1fn_x2, two values a byte along that axis, "
                             "and refuses the whole file otherwise); pad the last axis or reshape")
        entries.append((name, arr, st_name, bits))
    # Wider types first (then by name), so that every tensor's data start at a
    # multiple of its item size (the reference writer sorts by dtype for this).
    entries.sort(key=lambda entry: (-entry[3], entry[0]))
    header = {}
    if metadata is not None:
        header[_METADATA_KEY] = metadata
    offset = 0
    for name, arr, st_name, bits in entries:
        nbytes = arr.size * bits // 8
        header[name] = {"dtype": st_name, "shape": [int(n) for n in arr.shape],
                        "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with _Opened(file, "wb", "mf.save_safetensors") as fp:
        fp.write(struct.pack("<Q", len(text)))
        fp.write(text)
        for _, arr, _, _ in entries:
            _write_contiguous(fp, _safetensors_bytes(arr))


def _unique_keys(pairs):
    result = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"the safetensors header names {key!r} twice")
        result[key] = value
    return result


def _is_count(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _parse_safetensors_header(text, data_size, where):
    """[(name, dtype name, shape, begin, end)] in header order, and the metadata."""
    try:
        header = json.loads(text.decode("utf-8"), object_pairs_hook=_unique_keys)
    except UnicodeDecodeError as error:
        raise ValueError(f"{where}: the safetensors header is not UTF-8 ({error})") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{where}: the safetensors header is not valid JSON ({error})") from None
    if not isinstance(header, dict):
        raise ValueError(f"{where}: the safetensors header is not a JSON object")
    metadata = header.pop(_METADATA_KEY, None)
    if metadata is not None and not (isinstance(metadata, dict) and all(
            isinstance(v, str) for v in metadata.values())):
        raise ValueError(f"{where}: {_METADATA_KEY} must map str to str")
    known = [*_SAFETENSORS_NUMPY, *_SAFETENSORS_FORMAT]
    tensors = []
    for name, info in header.items():
        what = f"{where}: tensor {name!r}"
        if not isinstance(info, dict) or not {"dtype", "shape", "data_offsets"} <= info.keys():
            raise ValueError(f"{what} needs dtype, shape and data_offsets")
        st_name, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
        if st_name not in known:
            raise ValueError(f"{what} has the dtype {st_name!r}, which minifloat does not read "
                             f"(it reads {', '.join(known)})")
        if not isinstance(shape, list) or not all(_is_count(n) for n in shape):
            raise ValueError(f"{what} has the shape {shape!r}, not a list of sizes")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(map(_is_count, offsets))
                and offsets[0] <= offsets[1]):
            raise ValueError(f"{what} has the data_offsets {offsets!r}, not [begin, end]")
        if st_name in _SAFETENSORS_NUMPY:
            bits = _SAFETENSORS_NUMPY[st_name].itemsize * 8
        else:
            bits = _bits(_safetensors_format(_SAFETENSORS_FORMAT[st_name]))
        count_bits = math.prod(shape) * bits
        if count_bits % 8:
            raise ValueError(f"{what}: {math.prod(shape)} {st_name} values do not fill whole bytes")
        if offsets[1] - offsets[0] != count_bits // 8:
            raise ValueError(f"{what}: shape {shape} of {st_name} takes {count_bits // 8} bytes, "
                             f"but data_offsets {offsets} span {offsets[1] - offsets[0]}")
        tensors.append((name, st_name, tuple(shape), offsets[0], offsets[1]))
    covered = 0
    for name, _, _, begin, end in sorted(tensors, key=lambda t: (t[3], t[4])):
        if begin != covered:
            raise ValueError(f"{where}: tensor {name!r} starts at byte {begin} of the data, but the "
                             f"tensors before it end at {covered} (holes or overlaps)")
        covered = end
    if covered != data_size:
        raise ValueError(f"{where}: the data section has {data_size} bytes, but the tensors "
                         f"cover {covered} (truncated or corrupt file?)")
    return tensors, metadata


def load_safetensors(file, *, return_metadata=False):
    """Read a safetensors file into a dict of NumPy arrays.

    F8_E4M3, F8_E5M2, F8_E4M3FNUZ, F8_E5M2FNUZ, F8_E8M0, F6_E2M3, F6_E3M2,
    F4 and BF16 tensors come back as minifloat arrays, the others as
    NumPy's own types. The file is checked as the reference reader checks
    it (header length, JSON, offsets covering the data without holes).

    Parameters
    ----------
    file : str, os.PathLike or binary file object
        The safetensors file.
    return_metadata : bool, optional
        Also return the header's ``__metadata__``.

    Returns
    -------
    dict of str to ndarray, or (dict, dict or None)
        The tensors; with ``return_metadata=True`` ``(tensors, metadata)``,
        metadata being the ``__metadata__`` dict or None.

    Raises
    ------
    ValueError
        If the file is not a valid safetensors file (the message says
        where).

    See Also
    --------
    save_safetensors

    Examples
    --------
    >>> import io, numpy as np, minifloat as mf
    >>> f = io.BytesIO()
    >>> mf.save_safetensors(f, {"w": np.array([1.0, 3.0], dtype=mf.bfloat16)})
    >>> _ = f.seek(0)
    >>> mf.load_safetensors(f)["w"].dtype
    bfloat16
    """
    where = repr(os.fspath(file)) if _is_path(file) else "the file"
    with _Opened(file, "rb", "mf.load_safetensors") as fp:
        start = fp.tell()
        size = fp.seek(0, io.SEEK_END) - start
        fp.seek(start)
        if size < 8:
            raise ValueError(f"{where} has {size} bytes: a safetensors file starts with an 8-byte "
                             "header length")
        (length,) = struct.unpack("<Q", fp.read(8))
        if length > _SAFETENSORS_MAX_HEADER:
            raise ValueError(f"{where}: the safetensors header length {length} is beyond the "
                             f"{_SAFETENSORS_MAX_HEADER} bytes readers accept (not a safetensors file?)")
        if 8 + length > size:
            raise ValueError(f"{where}: the safetensors header length {length} runs beyond the end "
                             f"of the file ({size} bytes; truncated file?)")
        text = fp.read(length)
        entries, metadata = _parse_safetensors_header(text, size - 8 - length, where)
        data_start = start + 8 + length
        tensors = {}
        for name, st_name, shape, begin, end in entries:
            fp.seek(data_start + begin)
            raw = _read_exact(fp, end - begin, f"tensor {name!r}")
            if st_name in _SAFETENSORS_NUMPY:
                stored = _SAFETENSORS_NUMPY[st_name]
                arr = raw.view(stored).astype(stored.newbyteorder("="), copy=False)
            else:
                dtype = _safetensors_format(_SAFETENSORS_FORMAT[st_name])
                if _bits(dtype) < 8:
                    arr = unpack(raw, dtype, shape)
                else:
                    codes = raw.view(_code_type(dtype).newbyteorder("<"))
                    arr = codes.astype(codes.dtype.newbyteorder("="), copy=False).view(dtype)
            tensors[name] = arr.reshape(shape)
    return (tensors, metadata) if return_metadata else tensors
