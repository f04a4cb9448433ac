"""Packed storage: FP4 and FP6 values stored densely, bit after bit.

Arrays of the sub-byte formats hold one value per byte (low bits); pack()
writes the codes as one little-endian bitstream, each value taking exactly
its width, first value in the lowest bits:

* float4_e2m1fn: two values per byte, the first in the LOW nibble (the ONNX
  and torch float4_e2m1fn_x2 layout).
* float6 formats: four values per three bytes; values v0..v3 form the
  24-bit little-endian word v0 | v1 << 6 | v2 << 12 | v3 << 18.

A partial last byte (group) is padded with zero bits, and unpack ignores the
padding. 8- and 16-bit formats pack to their raw (little-endian) bytes.
"""
import math

import numpy as np

from . import _arguments, _core
from ._dtype_arguments import minifloat_dtype
from ._ml_dtypes import as_minifloat_array
from ._core import MinifloatDType


def _format_of(dtype, what):
    resolved = minifloat_dtype(dtype, what)
    # the width as registration put it in np.finfo (cached by NumPy; format_info
    # builds a dict of every property, 1.6 us a call)
    return resolved, np.finfo(resolved).bits


def packed_size(count, bits):
    """The number of bytes `count` values of `bits` bits take when packed.

    Parameters
    ----------
    count : int
        The number of values.
    bits : int
        Each value's width.

    Returns
    -------
    int
        ``ceil(count * bits / 8)``: what ``mf.pack`` writes.

    Examples
    --------
    >>> import minifloat as mf
    >>> mf.mx.packed_size(33, 4), mf.mx.packed_size(4, 6)
    (17, 3)
    """
    return math.ceil(count * bits / 8)


def pack(arr):
    """The values of a minifloat array (C order) as packed bytes (1-D uint8)."""
    if isinstance(arr, np.ndarray):
        arr = as_minifloat_array(arr)  # ml_dtypes' codes are the same format's codes
    if not isinstance(getattr(arr, "dtype", None), MinifloatDType):
        raise TypeError(f"mf.pack needs a minifloat array, not {type(arr).__name__} "
                        f"of {getattr(arr, 'dtype', None)}")
    dtype, bits = _format_of(arr.dtype, "mf.pack")
    contiguous = np.ascontiguousarray(arr)
    if dtype.itemsize == 2:
        words = contiguous.view(np.uint16).reshape(-1)
        if np.little_endian:
            return words.view(np.uint8).copy()
        return words.astype("<u2").view(np.uint8)
    return _core.pack_codes(contiguous.view(np.uint8), bits)


def _as_bytes(buf):
    if isinstance(buf, (bytes, bytearray, memoryview)):
        return np.frombuffer(buf, dtype=np.uint8)
    data = np.asarray(buf)
    if data.dtype != np.uint8:
        raise TypeError(f"mf.unpack needs bytes or a uint8 array, not {data.dtype}")
    if data.ndim != 1:
        raise ValueError(f"mf.unpack needs a 1-D buffer, not shape {data.shape}")
    return data


def unpack(buf, dtype, shape):
    """A new array of `dtype` and `shape` from bytes written by pack()."""
    dtype, bits = _format_of(dtype, "mf.unpack")
    shape = _arguments.shape(shape)
    count = math.prod(shape)
    data = _as_bytes(buf)
    expected = count * dtype.itemsize if bits >= 8 else packed_size(count, bits)
    if data.size != expected:
        raise ValueError(f"{count} values of {dtype.name} take {expected} bytes packed, "
                         f"but the buffer has {data.size}")
    if dtype.itemsize == 2:
        if np.little_endian:
            return data.copy().view(dtype).reshape(shape)
        return data.view("<u2").astype(np.uint16).view(dtype).reshape(shape)
    if bits == 8:
        return data.copy().view(dtype).reshape(shape)
    return _core.unpack_codes(np.ascontiguousarray(data), count, bits).view(dtype).reshape(shape)
