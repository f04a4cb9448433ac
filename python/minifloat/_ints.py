"""Sub-byte integer types (issue 19): int1, int2, int4, uint1, uint2, uint4.

One value per byte with signed codes sign-extended, as ml_dtypes stores
them, so ``x.view(np.int8)`` of an int4 array is the int8 array of the
same values. Kind 'i'/'u'; scalars subclass ``np.signedinteger`` /
``np.unsignedinteger``.
"""
import numpy as _np

from . import _arguments, _core, _packing
from ._ml_dtypes import from_ml_dtypes, minifloat_dtype_of, ml_dtypes_int_type

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


class _IntegerInfo(_numpy_iinfo):
    """What mf.iinfo returns: np.iinfo with the sub-byte widths right."""

    def __init__(self, int_type):
        if isinstance(int_type, (_np.ndarray, _np.generic)):
            int_type = int_type.dtype
        int_type = minifloat_dtype_of(int_type) or int_type  # ml_dtypes' int4: minifloat's
        if isinstance(int_type, str) and int_type.removeprefix("minifloat.") in _BITS:
            int_type = getattr(_core, int_type.removeprefix("minifloat."))
        super().__init__(int_type)


_IntegerInfo.__name__ = _IntegerInfo.__qualname__ = "iinfo"  # its repr: iinfo(min=-8, max=7, dtype=int4)


def iinfo(int_type):
    """Machine limits of an integer type, the sub-byte ones included.

    ``np.iinfo`` with the widths of int1/int2/int4/uint1/uint2/uint4 right
    (NumPy would read their one-byte storage as 8 bits). Like ``mf.finfo``
    it also takes an array or a scalar, whose dtype it describes, reads
    a name as minifloat's type ("int4" is ml_dtypes' in NumPy's name table
    where ml_dtypes is installed) and ml_dtypes' types as minifloat's.

    Parameters
    ----------
    int_type : integer type, dtype, str, ndarray or scalar
        ``mf.int4``, ``np.dtype(mf.int4)``, ``"int4"``,
        ``"minifloat.int4"``, an array or scalar of the type, or any of
        NumPy's integer types.

    Returns
    -------
    np.iinfo
        With ``bits``, ``min``, ``max``, ``dtype`` and ``kind``.

    Raises
    ------
    ValueError
        If `int_type` is not an integer type (as ``np.iinfo`` says).

    See Also
    --------
    finfo : the limits of a float format.

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> mf.iinfo(mf.int4)
    iinfo(min=-8, max=7, dtype=int4)
    >>> mf.iinfo("uint2").max, mf.iinfo(np.zeros(3, mf.int2)).bits
    (3, 2)
    >>> mf.iinfo(np.int16).max
    32767
    """
    return _IntegerInfo(int_type)


def claim_int_dtype_names():
    """Make the bare integer names (``np.dtype("int4")``) minifloat's types.

    For the whole process, also where ml_dtypes holds the same names (see
    ``mf.claim_dtype_names``, which claims these too). ``"minifloat.int4"``
    and the types themselves (``mf.int4``) are never ambiguous.

    Returns
    -------
    None

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> mf.claim_int_dtype_names()
    >>> np.dtype("int4") == np.dtype(mf.int4)
    True
    """
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
    """Pack an array's values densely: each value takes exactly its width.

    One little-endian bitstream of the codes in C order, the first value in
    the lowest bits: two FP4 or int4 values per byte (the first in the low
    nibble, the ONNX and torch ``float4_e2m1fn_x2`` layout), four FP6 values
    per three bytes (v0 | v1 << 6 | v2 << 12 | v3 << 18), four int2/uint2,
    eight int1/uint1. A partial last byte is padded with zero bits. 8- and
    16-bit formats pack to their raw little-endian bytes.

    Parameters
    ----------
    arr : ndarray
        An array of a minifloat float format or sub-byte integer type, any
        shape and memory layout (ml_dtypes' arrays of the formats and types
        minifloat has too: the same values).

    Returns
    -------
    ndarray
        The packed bytes, 1-D ``uint8`` (``ceil(arr.size * bits / 8)`` of
        them); ``unpack`` with the dtype and shape gives the array back.

    Raises
    ------
    TypeError
        If `arr` is not an array of a minifloat dtype.

    See Also
    --------
    unpack, cast : ``cast(x, dtype, packed=True)`` casts and packs in one pass.

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> mf.pack(np.array([-8, -1, 0, 7], dtype=mf.int4))
    array([248, 112], dtype=uint8)
    >>> x = np.array([0.5, -1.0, 6.0], dtype=mf.float4_e2m1fn)
    >>> mf.pack(x)
    array([161,   7], dtype=uint8)
    """
    dt = getattr(arr, "dtype", None)
    if dt is not None and ml_dtypes_int_type(dt) is not None:
        arr = from_ml_dtypes(arr)  # (ml_dtypes keeps a signed type's low bits: a sign-extended copy)
        dt = arr.dtype
    if not isinstance(dt, _core.IntegerDType):
        return _packing.pack(arr)
    # the codes' bytes (sign-extended) to the C++ packer, which keeps each
    # one's low `bits` bits (a NumPy bit-plane version was 190x FP4's pack)
    return _core.pack_codes(_np.ascontiguousarray(arr).reshape(-1).view(_np.uint8), _BITS[dt.name])


def unpack(buf, dtype, shape):
    """Read values packed by ``pack`` into a new array.

    Parameters
    ----------
    buf : bytes, bytearray, memoryview or ndarray
        The packed bytes (a 1-D ``uint8`` array or a bytes-like object),
        exactly as many as ``pack`` writes for `shape`'s number of values.
    dtype : minifloat dtype, scalar type or name
        The format the bytes hold (``mf.float4_e2m1fn``, ``"int4"``, ...).
    shape : int or tuple of ints
        The shape of the result.

    Returns
    -------
    ndarray
        A new C-ordered array of `dtype` and `shape`.

    Raises
    ------
    TypeError
        If `dtype` is not a minifloat dtype, or `buf` is not bytes or uint8.
    ValueError
        If `buf` does not hold exactly the bytes `shape`'s values take, or
        `shape` is not a shape.

    See Also
    --------
    pack

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> mf.unpack(np.array([248, 112], dtype=np.uint8), mf.int4, 4)
    array([-8, -1,  0,  7], dtype=int4)
    >>> mf.unpack(bytes([161, 7]), "float4_e2m1fn", (3,)).tolist()
    [0.5, -1.0, 6.0]
    """
    dt, bits = _int_bits(dtype)
    if bits is None:
        return _packing.unpack(buf, dtype, shape)
    shape = _arguments.shape(shape)
    data = _packing._as_bytes(buf)
    count = int(_np.prod(shape, dtype=_np.int64))
    need = _packing.packed_size(count, bits)
    if data.size != need:
        raise ValueError(f"mf.unpack: {count} {dt.name} values take {need} bytes, got {data.size}")
    codes = _core.unpack_codes(_np.ascontiguousarray(data), count, bits)
    if dt.kind == "i":  # sign-extend to the whole byte, as the dtype stores it: (c ^ m) - m
        sign = 1 << (bits - 1)
        codes ^= _np.uint8(sign)
        signed = codes.view(_np.int8)
        signed -= _np.int8(sign)
    return codes.view(dt).reshape(shape)
