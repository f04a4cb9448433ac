"""Sub-byte integer types (issue 19): int1, int2, int4, uint1, uint2, uint4.

One value per byte with signed codes sign-extended, as ml_dtypes stores
them, so ``x.view(np.int8)`` of an int4 array is the int8 array of the
same values. Kind 'i'/'u'; scalars subclass ``np.signedinteger`` /
``np.unsignedinteger``.
"""
import numpy as _np

from . import _arguments, _core, _packing

INT_FORMAT_NAMES = _core.INT_FORMAT_NAMES
int1 = _core.int1
int2 = _core.int2
int4 = _core.int4
uint1 = _core.uint1
uint2 = _core.uint2
uint4 = _core.uint4

_BITS = {"int1": 1, "int2": 2, "int4": 4, "uint1": 1, "uint2": 2, "uint4": 4}
_original_iinfo = _np.iinfo


_original_iinfo_init = _original_iinfo.__init__
_INT_DTYPE_CLASSES = frozenset(type(_np.dtype(getattr(_core, name))) for name in INT_FORMAT_NAMES)


class _numpy_iinfo(_original_iinfo):
    """What ``np.iinfo`` is once minifloat is imported (_guards.py): NumPy's
    class, whose width comes from the itemsize (a whole byte here), with the
    sub-byte widths corrected. NumPy's min/max follow from ``bits`` and
    cache under ``key`` ("i4"), which no NumPy type shares, so setting the
    two is the whole change; every other type is NumPy's own object, at
    almost NumPy's speed (one call and one comparison more)."""

    def __init__(self, int_type):
        _original_iinfo_init(self, int_type)
        if self.bits == 8 and type(self.dtype) in _INT_DTYPE_CLASSES:
            self.bits = _BITS[self.dtype.name]
            self.key = f"{self.kind}{self.bits}"


# it stands in NumPy's namespace as NumPy's class does
_numpy_iinfo.__name__ = _numpy_iinfo.__qualname__ = "iinfo"
_numpy_iinfo.__module__ = _original_iinfo.__module__
_numpy_iinfo.__doc__ = _original_iinfo.__doc__


class iinfo(_numpy_iinfo):
    """Machine limits of an integer type: ``np.iinfo`` with the sub-byte
    widths right (int4: -8..7), which also takes an array or a scalar (whose
    dtype it describes, as ml_dtypes' iinfo and mf.finfo do) and reads a
    name as minifloat's type ("int4" is ml_dtypes' in NumPy's name table
    where ml_dtypes is installed)."""

    def __init__(self, int_type):
        if isinstance(int_type, (_np.ndarray, _np.generic)):
            int_type = int_type.dtype
        elif isinstance(int_type, str) and int_type.removeprefix("minifloat.") in _BITS:
            int_type = getattr(_core, int_type.removeprefix("minifloat."))
        super().__init__(int_type)


def claim_int_dtype_names():
    """Make ``np.dtype("int4")`` (and the other names) mean minifloat's types
    for the whole process, also where ml_dtypes holds the same names (see
    mf.claim_dtype_names, which claims these too)."""
    for name in INT_FORMAT_NAMES:
        _np.sctypeDict[name] = getattr(_core, name)


def _register():
    for name in INT_FORMAT_NAMES:
        scalar_type = getattr(_core, name)
        dtype = _np.dtype(scalar_type)
        # each name only where no one else (ml_dtypes) holds it
        for spelling in (name, dtype.str, dtype.char):  # "int4", "minifloat.int4"
            _np.sctypeDict.setdefault(spelling, scalar_type)


_register()


def _int_bits(dtype):
    from ._dtype_arguments import own_dtype_named

    own = own_dtype_named(dtype)
    try:
        dt = own if own is not None else _np.dtype(dtype)
    except TypeError:  # not a dtype: the float unpacker says so
        return None, None
    if not isinstance(dt, _core.IntegerDType):
        return dt, None
    return dt, _BITS[dt.name]


def pack(arr):
    """mf.pack, also for the integer types: a little-endian bitstream, first
    value in the lowest bits (two int4 per byte low nibble first, four int2,
    eight int1); the float formats go to the float packer."""
    dt = getattr(arr, "dtype", None)
    if not isinstance(dt, _core.IntegerDType):
        return _packing.pack(arr)
    bits = _BITS[dt.name]
    codes = _np.ascontiguousarray(arr).reshape(-1).view(_np.uint8) & _np.uint8((1 << bits) - 1)
    planes = (codes[:, None] >> _np.arange(bits, dtype=_np.uint8)) & 1
    return _np.packbits(planes.reshape(-1), bitorder="little")


def unpack(buf, dtype, shape):
    """mf.unpack, also for the integer types (the inverse of pack)."""
    dt, bits = _int_bits(dtype)
    if bits is None:
        return _packing.unpack(buf, dtype, shape)
    shape = _arguments.shape(shape)
    data = _packing._as_bytes(buf)
    count = int(_np.prod(shape, dtype=_np.int64))
    need = _packing.packed_size(count, bits)
    if data.size != need:
        raise ValueError(f"mf.unpack: {count} {dt.name} values take {need} bytes, got {data.size}")
    planes = _np.unpackbits(data, bitorder="little")[: count * bits].reshape(count, bits)
    codes = (planes.astype(_np.uint8) << _np.arange(bits, dtype=_np.uint8)).sum(axis=1, dtype=_np.uint8)
    if dt.kind == "i":  # sign-extend to the whole byte, as the dtype stores it
        shift = 8 - bits
        codes = ((codes << shift).view(_np.int8) >> shift).view(_np.uint8)
    return codes.view(dt).reshape(shape)
