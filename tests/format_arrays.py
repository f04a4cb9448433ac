"""Arrays of a format's codes for tests: the dtype by name, every code of a
format as an array of it, and the code bits of such an array."""
import numpy as np

import reference as ref

import minifloat as mf


def dtype_of(name):
    return np.dtype(getattr(mf, name))


def every_code(name):
    """Every code of the format as an array of it (bits checked via views)."""
    return ref.all_codes(name).view(dtype_of(name))


def code_bits(arr):
    return np.asarray(arr).view(np.uint8 if arr.dtype.itemsize == 1 else np.uint16)
