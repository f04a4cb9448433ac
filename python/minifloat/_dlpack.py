"""Zero-copy exchange with torch (and any DLPack producer/consumer).

DLPack 1.1 has type codes for the OCP/ml_dtypes formats (float8 variants,
the packed float6/float4 types and bfloat16), matched by their fields (any
format with those values exports under that code); the other formats
(P3109's, most of mf.float_format's) have none and raise BufferError. 8- and 16-bit formats move
without copying in both directions. Packed FP4/FP6 tensors (torch's
float4_e2m1fn_x2, two values per byte) are unpacked into a new array on
import; float4_e2m1fn arrays export packed (a copy) as float4_e2m1fn_x2.

Arrays move to and from ml_dtypes or JAX as the same bits, e.g.
``arr.view(np.uint8).view(ml_dtypes.float8_e4m3fn)`` and
``ml_array.view(np.uint8).view(mf.float8_e4m3fn)`` (bfloat16: uint16).
"""
import numpy as np

from . import _core
from ._core import MinifloatDType
from ._packing import unpack

_CPU = 1  # kDLCPU


def from_dlpack(obj):
    """A minifloat array sharing memory with `obj` (anything with ``__dlpack__``)."""
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(f"{type(obj).__name__} does not export DLPack (__dlpack__)")
    if hasattr(obj, "__dlpack_device__"):
        device = obj.__dlpack_device__()
        if int(device[0]) != _CPU:
            raise BufferError(f"only CPU tensors can be imported, not device {device}")
    try:
        capsule = obj.__dlpack__(max_version=(1, 1))
    except TypeError:
        capsule = obj.__dlpack__()
    result = _core.dlpack_import(capsule)
    if isinstance(result, tuple):  # packed FP4/FP6: bytes, format, shape of the values
        raw, name, shape = result
        return unpack(raw, name, shape)
    return result


class DLPackExport:
    """What mf.to_dlpack returns: an object torch.from_dlpack (or np.from_dlpack
    for plain types) can consume."""

    def __init__(self, array, packed_fp4_pairs=False):
        self._array = array
        self._packed = packed_fp4_pairs

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if dl_device is not None and int(dl_device[0]) != _CPU:
            raise BufferError("minifloat arrays live on the CPU")
        if copy:
            self._array = self._array.copy()
        versioned = max_version is not None and max_version[0] >= 1
        return _core.dlpack_export(self._array, versioned, self._packed)

    def __dlpack_device__(self):
        return (_CPU, 0)


def to_dlpack(arr):
    """Export a minifloat array through DLPack without copying (8/16-bit
    formats); float4_e2m1fn with an even last axis exports packed in pairs."""
    if not isinstance(getattr(arr, "dtype", None), MinifloatDType):
        raise TypeError(f"mf.to_dlpack needs a minifloat array, not {getattr(arr, 'dtype', type(arr))}")
    type_code = _core.dlpack_type_code(arr.dtype.name)  # by the format's fields
    if type_code is None:
        raise BufferError(f"{arr.dtype.name} has no DLPack type code (DLPack 1.1 defines bfloat16 and the "
                          "OCP/ml_dtypes float8, float6 and float4 formats); copy it into a standard type, "
                          f"e.g. arr.astype(np.float32), or share its codes as arr.view(np.uint{8 * arr.itemsize})")
    if type_code[1] == 4:  # float4_e2m1fn's values
        if arr.ndim == 0 or arr.shape[-1] % 2:
            raise ValueError(f"{arr.dtype.name} exports as pairs (float4_e2m1fn_x2): the last axis must be even")
        codes = np.ascontiguousarray(arr).view(np.uint8) & np.uint8(0x0F)
        pairs = codes[..., 0::2] | (codes[..., 1::2] << 4)
        return DLPackExport(np.ascontiguousarray(pairs), packed_fp4_pairs=True)
    if type_code[1] < 8:  # float6
        raise TypeError(f"{arr.dtype.name} has no unpacked DLPack type; use mf.pack for its bytes")
    if any(stride % arr.itemsize for stride in arr.strides):
        arr = np.ascontiguousarray(arr)
    return DLPackExport(arr)
