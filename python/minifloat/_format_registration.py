"""The package's part of a format's registration: the names NumPy's
dtype() takes for it and the np.finfo fields only the format knows. Run for
the built-in formats at import (__init__.py) and for each format
mf.float_format makes (_user_formats.py)."""
import math
import sys

import numpy as np

from . import _core


def register_name(name, scalar_type):
    """Put `name` in NumPy's name table unless someone else holds it."""
    np.sctypeDict.setdefault(name, scalar_type)


def register_unambiguous_names(scalar_type):
    """Spellings of a format that only minifloat registers (each only where
    no one else holds it).

    ``dtype.str`` is ``"minifloat.<name>"`` so that anything rebuilding a dtype
    from ``.str``/``.descr`` (structured dtypes, ``np.save`` headers of
    structured arrays, dask.distributed) gets the format back; NumPy prints a
    structured dtype's minifloat field as ``'<DType class name><bits>'``,
    registered too so that ``eval(repr(structured_dtype))`` works.
    ``dtype.char`` is registered too (np.vectorize calls
    np.dtype(x.dtype.char)), except "_", which every format of
    mf.float_format shares.
    """
    dtype = np.dtype(scalar_type)
    register_name(dtype.str, scalar_type)
    if dtype.char != "_":
        register_name(dtype.char, scalar_type)
    structured_spelling = f"{type(dtype).__name__}{dtype.itemsize * 8}"
    register_name(structured_spelling, scalar_type)
    if dtype.itemsize > 1:  # NumPy writes the native byte order before it
        register_name(("<" if sys.byteorder == "little" else ">") + structured_spelling, scalar_type)


def register_format(scalar_type):
    """The package's part of a format's registration (built-in formats at
    import, formats of mf.float_format when they are made)."""
    register_unambiguous_names(scalar_type)
    # np.finfo caches one object per dtype; some fields need the format
    # itself: the real width (storage is a whole byte for FP6/FP4), the
    # exponent width (NumPy infers it from the exponent range, which
    # formats without inf stretch by one), epsneg (NumPy derives it as
    # eps/2, which FP4 cannot hold) and resolution (NumPy computes
    # 10**-precision in the format, where float8_e8m0fnu has no zero
    # for the exponent 0).
    info = np.finfo(scalar_type)
    row = _core.format_info(np.dtype(scalar_type).name)
    info.bits = row["bits"]
    info.nexp = info.iexp = row["exponent_bits"]
    with np.errstate(all="ignore"):  # formats made at run time may lack 1 or 10**-precision
        # In Python floats (exact here), not in the format: arithmetic on a
        # format's scalars builds its operation tables, which import would
        # then pay for every format.
        # the value below 1 is the code below 1's (positive values are
        # ordered by code); without a 1, as formats of mf.float_format may
        # be: the first positive one of eps and the smallest value, so that
        # NumPy's log2(epsneg) holds
        dtype = np.dtype(scalar_type)
        one = np.array([1.0], dtype)
        codes = one.view(f"u{dtype.itemsize}")
        below_one = float((codes - 1).view(dtype)[0]) if float(one[0]) == 1.0 and codes[0] > 0 else math.nan
        candidates = (1.0 - below_one, float(info.eps), float(info.smallest_subnormal), float(info.smallest_normal))
        info.epsneg = scalar_type(next(c for c in candidates if 0.0 < c < math.inf))
        info.resolution = scalar_type(10.0 ** -info.precision)
        # machep and negep are the exponents of eps and epsneg, 2^-M and
        # below: NumPy takes log2 of the values, which a format whose values
        # all lie below 1 (or above) cannot hold (inf or 0)
        info.machep = -row["mantissa_bits"]
        info.negep = int(math.log2(float(info.epsneg)))
        if not row["signed"]:
            # str(info) checks whether min is -max by negating min, which
            # for a format without negatives (float8_e8m0fnu) is NaN with an
            # "invalid" warning; the text is made once and kept by finfo, so
            # make it quietly now.
            str(info)
