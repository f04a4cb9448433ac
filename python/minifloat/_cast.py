"""mf.cast: conversion into a format with a chosen rounding and overflow policy."""
import functools

import numpy as np

from . import _arguments, _core
from ._core import MinifloatDType
from ._dtype_arguments import minifloat_dtype
from ._ml_dtypes import as_minifloat_array
from ._packing import pack

ROUNDINGS = ("nearest_even", "nearest_away", "toward_zero", "up", "down", "stochastic", "nearest")


def _exact_source(arr):
    """An array the C++ encoder takes, holding exactly the values of `arr`."""
    arr = as_minifloat_array(arr)  # ml_dtypes codes are the same format's codes
    dtype = arr.dtype
    if isinstance(dtype, MinifloatDType):
        return arr.astype(np.float32)  # every format is a subset of float32 (a new array anyway)
    kind = dtype.kind
    if kind == "b":
        return arr.astype(np.float32)
    if kind in "iu":
        if dtype.itemsize <= 2:
            return arr.astype(np.float32)
        if dtype.itemsize == 4:
            return arr.astype(np.float64)
        wide = arr.astype(np.int64 if kind == "i" else np.uint64)
        # Up to 2^53 in magnitude the float64 kernels are exact and fast.
        if wide.size == 0 or int(np.max(np.abs(wide.astype(np.float64)))) <= 2**53:
            return wide.astype(np.float64)
        return wide
    if kind == "f":
        if dtype.itemsize <= 4:
            return arr.astype(np.float32, copy=False)
        if dtype.itemsize == 8:
            return arr.astype(np.float64, copy=False)
        if np.finfo(dtype).nmant <= 52:  # platforms where longdouble is double
            return arr.astype(np.float64)
        return arr.astype(np.longdouble, copy=False)
    if kind == "O":
        # Object arrays of real numbers (Python ints of any size, Fractions,
        # Decimals, NumPy scalars) convert exactly; the encoder rejects text,
        # complex numbers and None element by element.
        return arr
    raise TypeError(f"mf.cast needs real numbers, not {dtype}")


def cast(x, dtype, *, saturate=False, rounding="nearest_even", rng=None, packed=False):
    """Round `x` once into a minifloat format, with a chosen rounding and overflow.

    ``x.astype(dtype)`` rounds to nearest even with the format's own
    overflow; ``cast`` chooses both, draws stochastic rounding's random bits
    reproducibly, and can write the packed bytes directly. Every source
    value is read exactly (float64, Python ints of any size, Fractions...)
    and rounded once.

    Parameters
    ----------
    x : array_like or scalar
        Real numbers: a NumPy array of any real dtype (minifloat and
        ml_dtypes formats included), a Python or NumPy scalar, or a
        sequence of them.
    dtype : minifloat dtype, scalar type or name
        The target format (``mf.float8_e4m3fn``, ``"float4_e2m1fn"``, a
        dtype of ``float_format``).
    saturate : bool, optional
        True: +-inf and values beyond the largest finite value become +-max
        (ONNX Cast ``saturate=1``); NaN stays NaN where the format has one.
        False (default): the format's own overflow (inf, NaN or max).
    rounding : {"nearest_even", "nearest_away", "toward_zero", "up", "down", "stochastic", "nearest"}, optional
        "nearest_even" (default, the bits ``astype`` gives), "nearest_away",
        "toward_zero", "up" (toward +inf), "down" (toward -inf) or
        "stochastic" (unbiased to within 2**-32: rounds away from zero with
        probability floor(f * 2**32) / 2**32, f the exact distance to the
        smaller-magnitude neighbour over the gap; the exact rule is below).
        "nearest" is an alias of "nearest_even". For float8_e8m0fnu the
        nearest modes round ties up and "up"/"down" are the ceiling/floor
        power of two (ONNX Cast ``round_mode``).
    rng : numpy.random.Generator, int or None, optional
        Stochastic rounding's source of randomness: a Generator (advanced
        by exactly one draw), a seed, or None for fresh entropy. Ignored by
        the other roundings.
    packed : bool, optional
        True: return the rounded codes as the bytes ``pack`` writes (1-D
        uint8, C order) instead of an array of the format; float32 and
        float64 sources are rounded and packed in one pass.

    Returns
    -------
    ndarray or scalar
        An array of `dtype` with `x`'s shape (a scalar of the format when
        `x` is a scalar), or with ``packed=True`` the packed bytes.

    Raises
    ------
    TypeError
        If `dtype` is not a minifloat format, `x` holds no real numbers, or
        `saturate`/`packed` is not a bool.
    ValueError
        If `rounding` is not one of the names above.

    Warns
    -----
    RuntimeWarning
        "overflow encountered in cast" when a finite value becomes inf or
        NaN (saturate=False), under ``np.errstate`` as NumPy's casts.

    See Also
    --------
    pack : pack an array already in the format.

    Notes
    -----
    Stochastic rounding's random bits: one ``rng.bit_generator.random_raw()``
    value is the key K (the caller's generator advances by exactly that one
    draw; an empty array draws nothing), and the bits come from ARS-5, the
    AES-round counter generator of Salmon et al. ("Parallel random numbers:
    as easy as 1, 2, 3", SC'11; Intel MKL's ARS5)::

        k_0 = (K, 0)  as the (low, high) 64-bit halves of a 128-bit key
        k_r = k_0 + r * (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)
              (each half mod 2**64; r = 1..5)
        B_j = AESENCLAST(AESENC(AESENC(AESENC(AESENC(j ^ k_0, k_1), k_2),
                                       k_3), k_4), k_5)

    with j the 128-bit counter, AESENC one AES encryption round of FIPS-197
    (SubBytes, ShiftRows, MixColumns, then the xor of the round key),
    AESENCLAST the same without MixColumns, and the 16-byte AES state the
    128-bit value's little-endian bytes (the x86 AES-NI convention). Element
    i of `x` in C order takes the 32-bit draw d_i = bits 32*(i % 4) ..
    32*(i % 4) + 31 of B_{i // 4}, and rounds to the larger-magnitude
    neighbour iff d_i < floor(f_i * 2**32). Every element consumes its draw,
    NaN and exact values too; exact values never move.

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> x = np.array([0.3, 500.0, -1e9])
    >>> mf.cast(x, mf.float8_e4m3fn, saturate=True).tolist()
    [0.3125, 448.0, -448.0]
    >>> with np.errstate(over="ignore"):  # float8_e4m3fn overflows to NaN
    ...     mf.cast(x, mf.float8_e4m3fn).tolist()
    [0.3125, nan, nan]
    >>> float(mf.cast(0.3, mf.float8_e4m3fn, rounding="toward_zero"))
    0.28125
    >>> mf.cast([1.1] * 4, mf.float8_e4m3fn, rounding="stochastic", rng=0).tolist()
    [1.125, 1.125, 1.125, 1.0]
    >>> mf.cast([0.5, -1.0, 6.0], mf.float4_e2m1fn, packed=True)
    array([161,   7], dtype=uint8)
    """
    target = minifloat_dtype(dtype, "mf.cast",
                             integer_hint="x.astype(mf.{name}) casts into it, truncating as NumPy's casts into int8 do")
    saturate = _arguments.flag(saturate, "saturate")
    packed = _arguments.flag(packed, "packed")
    rounding = _arguments.choice(rounding, ROUNDINGS, "rounding")
    if isinstance(x, np.ndarray):
        arr, scalar = x, False
    elif isinstance(x, int) and not isinstance(x, bool):
        arr, scalar = np.array([x], dtype=object).reshape(()), True  # any size, exactly
    else:
        arr = np.asarray(x)
        scalar = arr.ndim == 0
    # C order and aligned, as the kernels read it (np.frombuffer at an odd
    # offset is not); keeps 0-d arrays 0-d
    source = np.require(np.asarray(_exact_source(arr)), requirements=["C", "A"])
    if packed:
        return _cast_packed(source, target, saturate, rounding, rng)
    random = None
    if rounding == "stochastic":
        key = _stochastic_key(rng, source.size)
        if key is not None and source.dtype.char in "fd":
            result = _core.encode_stochastic(source, target.name, saturate, key)
            return result[()] if scalar else result
        random = _core.stochastic_draws(0 if key is None else key, source.size)
    encode = _core.encode_objects if source.dtype.kind == "O" else _core.encode_array
    result = encode(source, target.name, saturate, rounding, random)
    return result[()] if scalar else result


def _cast_packed(source, target, saturate, rounding, rng):
    """cast(..., packed=True): float32/float64 sources are rounded and packed
    chunk by chunk in C++; others are cast, then packed."""
    if source.dtype.char in "fd":
        key = _stochastic_key(rng, source.size) if rounding == "stochastic" else None
        return _core.encode_packed(source, target.name, saturate, rounding, 0 if key is None else key)
    return pack(np.asarray(cast(source, target, saturate=saturate, rounding=rounding, rng=rng)))


def _stochastic_key(rng, size):
    """The 64-bit key of stochastic rounding's counter generator: one
    ``random_raw`` draw of `rng` (a Generator, or a seed for
    ``np.random.default_rng``); None for an empty array, which draws nothing."""
    if _arguments.is_bool(rng):  # (default_rng would take it as the seed 0 or 1)
        raise TypeError(f"rng must be a numpy.random.Generator, a seed or None, not {rng!r}")
    if isinstance(rng, (int, np.integer)):
        return None if size == 0 else _seed_key(int(rng))
    generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    if size == 0:
        return None
    return int(generator.bit_generator.random_raw())


@functools.lru_cache(maxsize=256)
def _seed_key(seed):
    """The key a fresh ``np.random.default_rng(seed)`` gives: remembered, as
    building the generator costs some 10 us, more than casting a small array."""
    return int(np.random.default_rng(seed).bit_generator.random_raw())
