"""Expected text of a printed minifloat value, from the exact reference.

Formats of 8 bits or fewer print their exact value, spelled as float32's
shortest repr: every value of such a format is exactly a float32 (checked
here), so ``str(np.float32(v))`` of the exact value is the reference.
bfloat16 prints the shortest decimal that reads back in bfloat16
(``reference.shortest_reprs``), laid out by NumPy's rule for its float16
and float32 scalars with bfloat16's precision: positional from 1e-4 up to
10**precision (precision = floor(mantissa bits * log10(2)) = 2), else
scientific with at least two exponent digits.
"""
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np

import reference as R

_SPECIAL_TEXT = {R.NAN: "nan", R.POS_INF: "inf", R.NEG_INF: "-inf", R.NEG_ZERO: "-0.0"}


def prints_exact_value(name):
    return R.FORMATS[name].bits <= 8


def exact_float32(name, code):
    """The code's value as a float32, checked to be exact (finite values)."""
    v = R.decode(name, code)
    f32 = np.float32(R.decode_float(name, code))
    if isinstance(v, Fraction):
        assert Fraction(*f32.as_integer_ratio()) == v, (name, hex(code))
    return f32


def expected_texts(name, code):
    """Every acceptable str() of the scalar with this code (one, except where
    two shortest decimals of bfloat16 are equally close)."""
    v = R.decode(name, code)
    if isinstance(v, str):
        return [_SPECIAL_TEXT[v]]
    if prints_exact_value(name):
        return [str(exact_float32(name, code))]
    return [numpy_layout(t, R.FORMATS[name].mbits) for t in R.shortest_reprs(name, code, overflow_ok=False)]


def numpy_layout(python_repr, mantissa_bits):
    """A decimal written as Python's repr, laid out as NumPy lays out a
    float scalar whose type carries `mantissa_bits` fraction bits."""
    d = Decimal(python_repr)
    limit = Decimal(10) ** math.floor(mantissa_bits * math.log10(2))
    if d == 0 or Decimal("1e-4") <= abs(d) < limit:
        return python_repr  # positional in Python's repr too
    sign, digits, _ = d.normalize().as_tuple()
    text = "".join(map(str, digits))
    exponent = d.adjusted()
    mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
    return ("-" if sign else "") + mantissa + "e" + ("-" if exponent < 0 else "+") + f"{abs(exponent):02d}"


def float32_values(name, codes):
    """The codes' exact values as a float32 array (NaN signs kept)."""
    return np.array([exact_float32(name, int(c)) for c in codes], dtype=np.float32)
