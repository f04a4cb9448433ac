"""mf.float_format: formats described by their parameters, made at run time.

A format made here is a NumPy dtype with everything a built-in format has
(kind 'f', a scalar type, np.finfo, casts with every NumPy type and every
other format, ufuncs, sorting, printing, pickling, mf.cast, mf.pack, MX
elements), served by the same table-driven kernels.

The description is canonical: spellings that give the same codes the same
meaning are made one (IEEE infinities next to IEEE NaNs, whichever way they
are asked for), so the same format is always the same dtype object. When
the description is a built-in format's (and no other name is asked for),
the built-in dtype itself is returned: ``float_format(exponent_bits=4,
mantissa_bits=3, bias=7)`` *is* ``np.dtype(mf.float8_e4m3)``.
"""
import re
import threading

import numpy as np

from . import _arguments, _core, _format_registration

__all__ = ["float_format"]

_INFINITIES = (False, True, "max")
_NANS = (False, True, "all_ones", "negative_zero")
_MAX_NAN_CODES = 16  # kMaxListedNans (format_table.h)
_OVERFLOWS = ("inf", "nan", "saturate")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

_lock = threading.Lock()
_made = {}  # (canonical description, name) -> dtype


def _choice(value, choices, what):
    for choice in choices:
        if (_arguments.is_bool(choice) and _arguments.is_bool(value) and bool(value) == choice) or \
                (isinstance(choice, str) and isinstance(value, str) and value == choice):
            return choice
    spelled = ", ".join(repr(c) for c in choices)
    raise ValueError(f"{what} must be one of {spelled}, not {value!r}")


def _nan_codes(value, bits, signed):
    """nan given as codes: (sorted codes, whether the code of -0 is one, how
    many of the largest magnitudes are), or ValueError/TypeError saying why
    the list is not one a format can have."""
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"nan must be one of False, True, 'all_ones', 'negative_zero' or a tuple of codes, "
                        f"not {value!r}")
    codes = []
    for code in value:
        if _arguments.is_bool(code) or not isinstance(code, (int, np.integer)):
            raise TypeError(f"nan: the listed codes are integers, not {code!r}")
        if not 0 <= int(code) < (1 << bits):
            raise ValueError(f"nan: code {int(code):#x} does not fit in {bits} bits")
        codes.append(int(code))
    if not 1 <= len(codes) <= _MAX_NAN_CODES:
        raise ValueError(f"nan: list 1 to {_MAX_NAN_CODES} codes, not {len(codes)}")
    if len(set(codes)) != len(codes):
        raise ValueError(f"nan: a code is listed twice in {tuple(codes)}")
    sign = 1 << (bits - 1) if signed else 0
    magnitude_mask = (1 << (bits - int(signed))) - 1
    at_negative_zero = bool(signed) and sign in codes
    magnitudes = [c & magnitude_mask for c in codes if not (signed and c == sign)]
    nan_from = min(magnitudes) if magnitudes else magnitude_mask + 1
    expected = {m | s for m in range(nan_from, magnitude_mask + 1) for s in ((0, sign) if signed else (0,))}
    if at_negative_zero:
        expected.add(sign)
    if set(codes) != expected:
        raise ValueError("nan: listed NaN codes must be the largest magnitudes, with both signs in a signed format, "
                         "and/or the code of -0 (a NaN amid the values would be a hole no rounding rule skips); "
                         f"{tuple(codes)} is not such a list")
    return tuple(sorted(codes)), at_negative_zero, magnitude_mask + 1 - nan_from


def _default_negative_zero(signed, subnormals, nan_at_negative_zero):
    """negative_zero when not given: the code of -0 is -0 wherever there is
    one (a sign and a zero) that is not the NaN."""
    return bool(signed) and bool(subnormals) and not nan_at_negative_zero


def _canonical(exponent_bits, mantissa_bits, bias, signed, infinities, nan, negative_zero, subnormals, overflow):
    """The checked, canonical description (a tuple in float_format's order),
    or ValueError saying which parameters do not fit together and why."""
    if exponent_bits < 1:
        raise ValueError(f"exponent_bits must be at least 1, not {exponent_bits}")
    if mantissa_bits < 0:
        raise ValueError(f"mantissa_bits must be at least 0, not {mantissa_bits}")
    bits = int(signed) + exponent_bits + mantissa_bits
    if not 2 <= bits <= 16:
        raise ValueError(f"formats have 2 to 16 bits; sign + exponent_bits + mantissa_bits is {bits}")
    if bias is None:
        bias = 2 ** (exponent_bits - 1) - 1  # IEEE's
    nan_at_negative_zero = nan == "negative_zero"
    ieee_nans = (1 << mantissa_bits) - 1  # magnitudes above the all-ones exponent's zero mantissa
    if isinstance(nan, tuple):
        # a list of codes that one of the named kinds spells is spelled that way
        nan, nan_at_negative_zero, top = _nan_codes(nan, bits, signed)
        if top == 0:
            nan = "negative_zero"
        elif top == 1 and not nan_at_negative_zero:
            nan = "all_ones"
        elif top == ieee_nans and not nan_at_negative_zero:
            nan = True
        elif infinities == "max" and top == ieee_nans:
            infinities = True  # below IEEE's NaNs the largest codes are IEEE's infinities
    # Spellings of the same codes, made one.
    if nan == "all_ones" and mantissa_bits == 1:
        nan = True  # the all-ones exponent's one non-zero mantissa is the all-ones magnitude
    if infinities == "max" and nan is True:
        infinities = True  # below IEEE NaNs the largest codes are IEEE's infinities
    if infinities is True and mantissa_bits == 0 and nan in (False, "negative_zero"):
        infinities = "max"  # the all-ones exponent is one code: the largest
    # The facts must fit together.
    if nan is True and mantissa_bits == 0:
        raise ValueError("nan=True (IEEE: the all-ones exponent with a non-zero mantissa) needs mantissa_bits >= 1; "
                         "use nan='all_ones' for the all-ones code")
    if infinities is True and isinstance(nan, tuple):
        if top != ieee_nans:
            raise ValueError("infinities=True (IEEE) reserves the all-ones exponent, whose other codes must then be "
                             "NaN: list them all, or pass infinities='max' for infinities at the largest codes")
    elif infinities is True and nan is not True:
        raise ValueError("infinities=True (IEEE) reserves the all-ones exponent, whose other codes must then be NaN: "
                         "pass nan=True, or infinities='max' for infinities at the largest codes")
    if negative_zero is None:
        negative_zero = _default_negative_zero(signed, subnormals, nan_at_negative_zero)
    if isinstance(nan, tuple) and nan_at_negative_zero:
        if not subnormals:
            raise ValueError("nan lists the code of -0, but without subnormals there is no zero and no code of -0")
        if negative_zero:
            raise ValueError("nan lists the code of -0, which then is no -0: pass negative_zero=False")
    elif nan == "negative_zero":
        if not signed:
            raise ValueError("nan='negative_zero' needs a sign: an unsigned format has no code of -0")
        if not subnormals:
            raise ValueError("nan='negative_zero' needs a zero: without subnormals there is no code of -0")
        if negative_zero:
            raise ValueError("nan='negative_zero' makes the code of -0 the NaN, so the format has no -0: "
                             "pass negative_zero=False")
    elif negative_zero:
        if not signed:
            raise ValueError("an unsigned format has no -0: pass negative_zero=False")
        if not subnormals:
            raise ValueError("subnormals=False leaves no zero (the zero exponent is a normal binade), so no -0: "
                             "pass negative_zero=False")
    elif signed and subnormals:
        raise ValueError("negative_zero=False leaves the code of -0 without a meaning: keep negative_zero=True, "
                         "or make that code the NaN with nan='negative_zero'")
    if not subnormals and nan is False:
        raise ValueError("subnormals=False leaves no zero, so zero inputs need a NaN: pass nan='all_ones' (or True)")
    if overflow is None:
        overflow = _default_overflow(infinities, nan)
    elif overflow == "inf" and infinities is False:
        raise ValueError("overflow='inf' needs infinities (infinities=True or 'max')")
    elif overflow == "nan" and nan is False:
        raise ValueError("overflow='nan' needs a NaN (nan=True, 'all_ones' or 'negative_zero')")
    # Where the values end (the rules of the C++ description).
    magnitude_mask = (1 << (bits - int(signed))) - 1
    all_ones_exponent = ((1 << exponent_bits) - 1) << mantissa_bits
    if isinstance(nan, tuple):
        nan_from = magnitude_mask + 1 - top
    else:
        nan_from = {True: all_ones_exponent + 1, "all_ones": magnitude_mask}.get(nan, magnitude_mask + 1)
    max_magnitude = nan_from - 1 if infinities is False else (
        all_ones_exponent - 1 if infinities is True else nan_from - 2)
    if max_magnitude < (1 if subnormals else 0):
        raise ValueError("these infinities and NaNs leave no positive finite value")
    max_exponent = (max_magnitude >> mantissa_bits) - bias
    min_exponent = (1 - bias - mantissa_bits) if subnormals else -bias
    if max_exponent > 127:
        raise ValueError(f"every value must be a float32 value: the largest is about 2^{max_exponent} "
                         f"(bias >= {bias + max_exponent - 127} keeps it below 2^128)")
    if min_exponent < -149:
        raise ValueError(f"every value must be a float32 value: the smallest is 2^{min_exponent} "
                         f"(bias <= {bias + min_exponent + 149} keeps it at least 2^-149)")
    return (exponent_bits, mantissa_bits, bias, signed, infinities, nan, negative_zero, subnormals, overflow)


def _default_overflow(infinities, nan):
    return "inf" if infinities is not False else ("nan" if nan is not False else "saturate")


_PARAMETERS = ("exponent_bits", "mantissa_bits", "bias", "signed", "infinities", "nan", "negative_zero",
               "subnormals", "overflow")


def _description_of(info):
    return tuple(info[p] for p in _PARAMETERS)


def _generated_name(description):
    """float<bits>_e<E>m<M>, then what differs from IEEE's defaults."""
    e, m, bias, signed, infinities, nan, _negative_zero, subnormals, overflow = description
    parts = [f"float{int(signed) + e + m}_e{e}m{m}"]
    if bias != 2 ** (e - 1) - 1:
        parts.append(f"b{bias}" if bias >= 0 else f"bm{-bias}")
    if not signed:
        parts.append("unsigned")
    if infinities is not True:
        parts.append("noinf" if infinities is False else "maxinf")
    if nan is not True:
        if isinstance(nan, tuple):
            parts.append("nan" + "_".join(format(code, "x") for code in nan))
        else:
            parts.append({False: "nonan", "all_ones": "nanones", "negative_zero": "nannegzero"}[nan])
    if not subnormals:
        parts.append("nosubnormals")
    if overflow != _default_overflow(infinities, nan):
        parts.append({"inf": "ovfinf", "nan": "ovfnan", "saturate": "sat"}[overflow])
    return "_".join(parts)


def _repr_text(description, name, generated):
    e, m, bias, signed, infinities, nan, negative_zero, subnormals, overflow = description
    args = [f"exponent_bits={e}", f"mantissa_bits={m}"]
    if bias != 2 ** (e - 1) - 1:
        args.append(f"bias={bias}")
    sign_code = 1 << (int(signed) + e + m - 1)
    nan_at_negative_zero = nan == "negative_zero" or (isinstance(nan, tuple) and signed and sign_code in nan)
    default_negative_zero = _default_negative_zero(signed, subnormals, nan_at_negative_zero)
    for key, value, default in (("signed", signed, True), ("infinities", infinities, True), ("nan", nan, True),
                                ("negative_zero", negative_zero, default_negative_zero),
                                ("subnormals", subnormals, True)):
        if value != default or type(value) is not type(default):
            args.append(f"{key}={value!r}")
    if overflow != _default_overflow(infinities, nan):
        args.append(f"overflow={overflow!r}")
    if not generated:
        args.append(f"name={name!r}")
    return f"float_format({', '.join(args)})"


_builtin_descriptions = None


def _builtin_with(description, name):
    """The built-in format with this canonical description, or None (a
    built-in row may spell its codes another way: binary8p2ue's largest-code
    infinity next to an all-ones NaN is IEEE's layout of one mantissa bit).
    Where built-ins share a description (binary8p3sf and float8_e5m2fnuz):
    the one called `name`, else the first in the table."""
    global _builtin_descriptions
    if _builtin_descriptions is None:
        _builtin_descriptions = {}
        for builtin in _core.FORMAT_NAMES:
            key = _canonical(*_description_of(_core.format_info(builtin)))
            _builtin_descriptions.setdefault(key, []).append(builtin)
    names = _builtin_descriptions.get(description, [])
    if name in names:
        return name
    return names[0] if names else None


def _check_name_is_free(name):
    """A name NumPy (or another library, such as ml_dtypes) already resolves
    to a dtype would make ``mf.cast(x, "float32")`` round into the new
    format: refused."""
    try:
        taken = np.dtype(name)
    except (TypeError, ValueError):
        return
    owner = taken.type.__module__.split(".")[0]
    raise ValueError(f"name {name!r} is taken: np.dtype({name!r}) is {owner}'s {taken}; choose another name")


def float_format(*, exponent_bits, mantissa_bits, bias=None, signed=True, infinities=True, nan=True,
                 negative_zero=None, subnormals=True, overflow=None, name=None):
    """Make a floating-point format of 2 to 16 bits, as a NumPy dtype.

    The format gets its own scalar type and DType class and works
    everywhere a built-in format does (casts, ufuncs, ``cast``, ``pack``,
    ``mx.quantize``, saving, Zarr). The same parameters return the same
    dtype object; a built-in format's parameters (without another name)
    return the built-in dtype.

    Parameters
    ----------
    exponent_bits, mantissa_bits : int
        The field widths; a sign bit is added when `signed`.
    bias : int, optional
        The exponent bias (default IEEE's, ``2**(exponent_bits - 1) - 1``).
    signed : bool, optional
        Whether the format has a sign bit (default True).
    infinities : bool or "max", optional
        False (none), True (IEEE: all-ones exponent, zero mantissa) or
        "max" (the largest-magnitude codes that are not NaN, as P3109).
    nan : bool, "all_ones", "negative_zero" or tuple of int, optional
        False (none), True (IEEE: all-ones exponent, non-zero mantissa),
        "all_ones" (the all-ones magnitude only, as the fn formats; the
        all-ones code of an unsigned format), "negative_zero" (the code of
        -0 only, as the fnuz formats, which then have no -0), or a
        tuple of codes: the largest magnitudes (both signs, when signed)
        and/or the code of -0, e.g. ``(0x7E, 0x7F, 0xFE, 0xFF)``.
    negative_zero : bool, optional
        Whether the code of -0 is -0 (signed formats with a zero). Default:
        True where the format has that code (a sign and a zero) and `nan`
        does not take it; False otherwise (unsigned formats, no
        subnormals, ``nan="negative_zero"``).
    subnormals : bool, optional
        True (IEEE); False makes the zero exponent a normal binade, leaving
        no zero (as float8_e8m0fnu; needs a NaN).
    overflow : {"inf", "nan", "saturate"}, optional
        What a default cast writes beyond the largest value (default: inf
        where the format has one, else NaN where it has one, else
        saturate).
    name : str, optional
        The dtype's name, an identifier (default: spelled from the
        parameters).

    Returns
    -------
    numpy.dtype
        The format's dtype; ``dtype.type`` is its scalar type.

    Raises
    ------
    TypeError
        If a parameter has the wrong type (a float or bool for a width, a
        non-bool flag, a non-str name).
    ValueError
        If the parameters do not fit together (the message says why), a
        value is not a float32 value, or `name` is taken by another format
        or is a name ``np.dtype`` knows ("float32", "e").

    See Also
    --------
    format_info : the parameters of any format.

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> fp7 = mf.float_format(exponent_bits=3, mantissa_bits=3, infinities=False, nan=False,
    ...                       name="fp7_e3m3")
    >>> fp7
    float_format(exponent_bits=3, mantissa_bits=3, infinities=False, nan=False, name='fp7_e3m3')
    >>> np.array([1.3, 20.0], dtype=fp7).tolist(), float(mf.finfo(fp7).max)
    ([1.25, 20.0], 30.0)
    >>> mf.float_format(exponent_bits=4, mantissa_bits=3, bias=8, infinities=False,
    ...                 nan="negative_zero", negative_zero=False)
    float8_e4m3fnuz
    """
    exponent_bits = _arguments.integer(exponent_bits, "exponent_bits")
    mantissa_bits = _arguments.integer(mantissa_bits, "mantissa_bits")
    if bias is not None:
        bias = _arguments.integer(bias, "bias")
    signed = _arguments.flag(signed, "signed")
    infinities = _choice(infinities, _INFINITIES, "infinities")
    if isinstance(nan, (tuple, list)):
        nan = tuple(nan)  # NaN codes (checked by _canonical)
    elif isinstance(nan, (str, bool, np.bool_)):
        nan = _choice(nan, _NANS, "nan")
    else:
        raise TypeError(f"nan must be one of False, True, 'all_ones', 'negative_zero' or a tuple of codes, "
                        f"not {nan!r}")
    negative_zero = None if negative_zero is None else _arguments.flag(negative_zero, "negative_zero")
    subnormals = _arguments.flag(subnormals, "subnormals")
    if overflow is not None:
        overflow = _choice(overflow, _OVERFLOWS, "overflow")
    if name is not None:
        if not isinstance(name, str):
            raise TypeError(f"name must be a string (an identifier), not {name!r}")
        if not _NAME.match(name):
            raise ValueError(f"name must be an identifier (letters, digits, underscores), not {name!r}")
    description = _canonical(exponent_bits, mantissa_bits, bias, signed, infinities, nan, negative_zero,
                             subnormals, overflow)
    with _lock:
        builtin = _builtin_with(description, name)
        if builtin is not None and name in (None, builtin):
            return np.dtype(getattr(_core, builtin))
        generated = name is None
        final_name = _generated_name(description) if generated else name
        key = (description, final_name)
        made = _made.get(key)
        if made is not None:
            return made
        if final_name in _core.FORMAT_NAMES or any(n == final_name for _, n in _made):
            raise ValueError(f"a minifloat format named {final_name!r} exists already, with other parameters")
        _check_name_is_free(final_name)
        params = dict(zip(_PARAMETERS, description))
        if not generated:
            params["name"] = final_name
        class_name = "".join(part[:1].upper() + part[1:] for part in final_name.split("_")) + "DType"
        e, m, bias_value, signed_value, infinities_value, nan_value, negative_zero_value, subnormals_value, \
            overflow_value = description
        dtype = _core._make_format(
            exponent_bits=e, mantissa_bits=m, bias=bias_value, signed=signed_value,
            infinities={False: "none", True: "ieee", "max": "max"}[infinities_value],
            nan={False: "none", True: "ieee"}.get(nan_value, nan_value),
            negative_zero=negative_zero_value, subnormals=subnormals_value, overflow=overflow_value,
            name=final_name, dtype_class_name=class_name,
            repr_text=_repr_text(description, final_name, generated),
            reduce_value=(_restore, (params,)))
        _format_registration.register_format(dtype.type)
        _made[key] = dtype
        return dtype


def _restore(params):
    """Unpickling: the format with these parameters (made again in a fresh
    interpreter)."""
    return float_format(**params)
