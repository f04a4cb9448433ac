"""Zero-copy exchange with torch (and any DLPack producer/consumer).

DLPack 1.1 has type codes for the OCP/ml_dtypes formats (float8 variants,
the packed float6/float4 types and bfloat16), matched by their fields (any
format with those values exports under that code); the other formats
(P3109's, most of mf.float_format's) have none and raise BufferError. 8- and 16-bit formats move
without copying in both directions. Packed FP4/FP6 tensors (torch's
float4_e2m1fn_x2, two values per byte) are unpacked into a new array on
import; float4_e2m1fn arrays export packed (a copy) as float4_e2m1fn_x2.
complex32 moves as DLPack's kDLComplex with 32 bits (torch.complex32),
without copying; bcomplex32 has no DLPack type and raises BufferError.

Arrays move to and from ml_dtypes or JAX as the same bits, e.g.
``arr.view(np.uint8).view(ml_dtypes.float8_e4m3fn)`` and
``ml_array.view(np.uint8).view(mf.float8_e4m3fn)`` (bfloat16: uint16).
"""
import numpy as np

from . import _arguments, _core
from ._core import ComplexDType, MinifloatDType
from ._ml_dtypes import as_minifloat_array
from ._packing import unpack

_CPU = 1  # kDLCPU


def from_dlpack(obj):
    """Import a tensor through DLPack as a minifloat array sharing its memory.

    The DLPack type codes of bfloat16 and the OCP/ml_dtypes float8, float6
    and float4 formats become minifloat's formats (NumPy's own
    ``np.from_dlpack`` refuses them); packed float4_e2m1fn_x2 pairs come
    back as an unpacked (copied) float4_e2m1fn array.

    Parameters
    ----------
    obj : object with ``__dlpack__``
        A CPU tensor: torch, JAX, CuPy-on-host, ``to_dlpack``'s result...

    Returns
    -------
    ndarray
        An array of the matching minifloat format (or NumPy dtype) sharing
        `obj`'s memory, except for packed FP4 pairs.

    Raises
    ------
    TypeError
        If `obj` does not export DLPack.
    BufferError
        If `obj` lives on another device than the CPU.

    See Also
    --------
    to_dlpack

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> x = np.array([1.0, 2.5], dtype=mf.float8_e5m2)
    >>> y = mf.from_dlpack(mf.to_dlpack(x))  # torch.from_dlpack takes the export too
    >>> y.dtype, np.shares_memory(x, y)
    (float8_e5m2, True)
    """
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
    """What mf.to_dlpack returns: an object torch.from_dlpack can consume
    (NumPy's from_dlpack refuses the float8/bfloat16 type codes)."""

    def __init__(self, array, packed_fp4_pairs=False, copied=False):
        self._array = array
        self._packed = packed_fp4_pairs
        self._copied = copied  # the export is a copy, not the caller's memory

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        copy = _arguments.optional_flag(copy, "copy")
        if max_version is not None:
            max_version = _pair(max_version, "max_version", "(major, minor)")
        if dl_device is not None and _pair(dl_device, "dl_device", "(device type, device id)")[0] != _CPU:
            raise BufferError("minifloat arrays live on the CPU")
        if copy is False and self._copied:
            raise BufferError("this array exports only as a copy (copy=False was asked): "
                              + self._copied)
        if copy:
            self._array = self._array.copy()
        versioned = max_version is not None and max_version[0] >= 1
        return _core.dlpack_export(self._array, versioned, self._packed)

    def __dlpack_device__(self):
        return (_CPU, 0)


def _pair(value, name, what):
    """A DLPack pair of integers (a version, a device)."""
    try:
        first, second = value
        return _arguments.integer(first, name), _arguments.integer(second, name)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a {what} tuple of integers, not {_arguments.shown(value)}") from None


def to_dlpack(arr):
    """Export a minifloat array through DLPack (for ``torch.from_dlpack``).

    8- and 16-bit formats share the array's memory. Two layouts DLPack
    consumers cannot take are exported as a C-contiguous copy instead
    (writes through the consumer then do not reach `arr`, and
    ``__dlpack__(copy=False)`` raises BufferError): negative strides (torch
    aborts on them) and strides that are not whole elements.
    float4_e2m1fn with an even last axis exports packed in pairs
    (float4_e2m1fn_x2, always a copy). A read-only array exports only to
    DLPack 1.x consumers, which are told it is read-only (older ones get
    BufferError, as from NumPy).

    Parameters
    ----------
    arr : ndarray
        An array of a minifloat format that DLPack 1.1 names (bfloat16, the
        OCP/ml_dtypes float8, float6 and float4 formats), or of complex32
        (kDLComplex, 32 bits: torch.complex32).

    Returns
    -------
    object
        An object with ``__dlpack__`` and ``__dlpack_device__``, for any
        DLPack consumer (NumPy's ``np.from_dlpack`` refuses these type
        codes; ``from_dlpack`` takes them).

    Raises
    ------
    TypeError
        If `arr` is not a minifloat array, or is FP6 (no unpacked DLPack
        type).
    BufferError
        If the format has no DLPack type code (the P3109 formats, formats
        of ``float_format``, bcomplex32).
    ValueError
        If a float4_e2m1fn array's last axis is odd.

    See Also
    --------
    from_dlpack

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> export = mf.to_dlpack(np.array([0.5, 1.0, 1.5, 2.0], dtype=mf.float8_e4m3fn))
    >>> export.__dlpack_device__()  # (kDLCPU, 0)
    (1, 0)
    >>> mf.from_dlpack(export).tolist()
    [0.5, 1.0, 1.5, 2.0]
    """
    if isinstance(getattr(arr, "dtype", None), ComplexDType):
        # complex32 is kDLComplex/32 (torch.complex32); bcomplex32 has no
        # DLPack type: the export raises BufferError saying so
        if any(stride < 0 and length > 1 for stride, length in zip(arr.strides, arr.shape)) or any(
                stride % arr.itemsize for stride in arr.strides):
            return DLPackExport(np.ascontiguousarray(arr), copied="DLPack cannot describe these strides")
        return DLPackExport(arr)
    if isinstance(arr, np.ndarray):
        arr = as_minifloat_array(arr)  # ml_dtypes' arrays: minifloat's of the same format
    if isinstance(getattr(arr, "dtype", None), _core.IntegerDType):
        stored = "np.int8" if arr.dtype.kind == "i" else "np.uint8"
        raise TypeError(f"mf.to_dlpack: {arr.dtype.name} has no DLPack type (consumers such as torch have no "
                        f"sub-byte integers); export arr.view({stored}), whose bytes are the values")
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
        return DLPackExport(np.ascontiguousarray(pairs), packed_fp4_pairs=True,
                            copied=f"{arr.dtype.name} exports packed in pairs")
    if type_code[1] < 8:  # float6
        raise TypeError(f"{arr.dtype.name} has no unpacked DLPack type; use mf.pack for its bytes")
    negative = any(stride < 0 and length > 1 for stride, length in zip(arr.strides, arr.shape))
    if negative or any(stride % arr.itemsize for stride in arr.strides):
        reason = "negative strides" if negative else "strides that are not whole elements"
        return DLPackExport(np.ascontiguousarray(arr), copied=f"DLPack cannot describe {reason}")
    return DLPackExport(arr)
