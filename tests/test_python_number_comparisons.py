"""Comparisons with Python numbers behave as NumPy's float16 does.

A Python number is weak (NEP 50): it is rounded into the format of the array
or scalar it is compared with. float16 rounds a number beyond its range to an
infinity; a format without infinities (float8_e4m3fn, the fnuz formats,
float6, float4) compares such a number as that infinity too, instead of its
overflow result (NaN would make `a < 1000` False; the largest value would make
`a == 1000` True). Infinities and NaN compare as themselves in every format.
The reference is exact: tests/reference.py rounds the number, Python floats
compare the values.
"""
import math
import operator
import warnings
from fractions import Fraction

import numpy as np
import pytest

import reference as ref
from format_arrays import every_code

import minifloat as mf

SIGNED_FORMATS = [name for name in mf.FORMAT_NAMES if ref.fmt_of(name).signed]

OPERATORS = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]
UFUNCS = {operator.eq: np.equal, operator.ne: np.not_equal, operator.lt: np.less, operator.le: np.less_equal,
          operator.gt: np.greater, operator.ge: np.greater_equal}


def extremes(name):
    """The largest finite value and the smallest positive one (exact)."""
    finite = [v for v, _ in ref.finite_values(name) if v > 0]
    return float(max(finite)), float(min(finite))


def numbers(name):
    """Python numbers around and beyond the format's range."""
    largest, smallest = extremes(name)
    return [math.inf, -math.inf, math.nan, 1e300, -1e300, largest, -largest, largest * 1.0625, largest * 2,
            -largest * 2, largest * 4, 0.1, 1.0, -0.0, 0.0, smallest / 2, smallest * 0.75, 2.5, -3.0,
            1, -1, 0, 3, 1000, -1000, 10**6, -10**15, True]


def weak_value(name, number):
    """The number as the comparison sees it (module docstring)."""
    if isinstance(number, float) and not math.isfinite(number):
        return number
    code, flags = ref.encode(name, Fraction(number))
    fmt = ref.fmt_of(name)
    if ref.OVERFLOW in flags and not fmt.has_inf:
        return -math.inf if number < 0 else math.inf
    return ref.decode_float(name, code)


def overflows(name, number):
    if isinstance(number, float) and not math.isfinite(number):
        return False
    return ref.OVERFLOW in ref.encode(name, Fraction(number))[1]


@pytest.mark.parametrize("name", SIGNED_FORMATS)
def test_arrays_against_python_numbers(name):
    codes = every_code(name)
    values = [ref.decode_float(name, int(c)) for c in ref.all_codes(name)]
    for number in numbers(name):
        theirs = weak_value(name, number)
        for op in OPERATORS:
            expected = np.array([op(v, theirs) for v in values])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                got = op(codes, number)
                got_reversed = UFUNCS[op](number, codes)
            expected_reversed = np.array([op(theirs, v) for v in values])
            assert got.dtype == np.bool_
            np.testing.assert_array_equal(got, expected, err_msg=f"{name} {op.__name__} {number!r}")
            np.testing.assert_array_equal(got_reversed, expected_reversed,
                                          err_msg=f"{name} {number!r} {op.__name__} array")


@pytest.mark.parametrize("name", SIGNED_FORMATS)
def test_scalars_against_python_numbers(name):
    T = getattr(mf, name)
    all_codes = ref.all_codes(name)
    sample = all_codes[:: max(1, ref.fmt_of(name).ncodes // 64)]
    scalars = [(sample[i:i + 1].view(np.dtype(T))[0], ref.decode_float(name, int(c))) for i, c in enumerate(sample)]
    for number in numbers(name):
        theirs = weak_value(name, number)
        for x, mine in scalars:
            for op in OPERATORS:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    got = op(x, number)
                assert isinstance(got, np.bool_)
                assert bool(got) == op(mine, theirs), (name, mine, op.__name__, number)


@pytest.mark.parametrize("name", SIGNED_FORMATS)
def test_warnings_as_float16(name):
    """A finite number that overflows the format warns (as float16's cast of it
    does, and errstate can raise it); inf, NaN and numbers in range do not."""
    a = np.array([1.0, -1.5], getattr(mf, name))  # (binary8p7se ends below 2)
    x = a[0]
    big = extremes(name)[0] * 4
    assert overflows(name, big)
    for operand in (a, x):
        with pytest.warns(RuntimeWarning, match="overflow"):
            assert bool(np.all(operand < big))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert bool(np.all(operand < math.inf))
            assert not bool(np.any(operand == math.nan))
            assert bool(np.all(operand > -math.inf))
            assert bool(np.all(operand < 1.75 if operand is x else operand[:1] < 1.75))
        with np.errstate(over="raise"), pytest.raises(FloatingPointError):
            operand < big


def test_float16_agrees():
    """The same numbers against float16 itself, NumPy's own rule: the
    reference above reproduces it."""
    codes = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    finite = codes[np.isfinite(codes)][::97]
    for number in [math.inf, -math.inf, math.nan, 1e300, -1e300, 70000.0, 65504.0, 0.1, 1, -1000]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            theirs = float(np.float16(number))
        for op in OPERATORS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                got = op(finite, number)
            np.testing.assert_array_equal(got, np.array([op(float(v), theirs) for v in finite]))


def test_strided_and_numpy_scalars():
    """Strided arrays take the same rule; NumPy scalars are strong (compared
    in their own type, exactly)."""
    a = np.array([1.0, 448.0, -448.0, 2.0], mf.float8_e4m3fn)[::2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_array_equal(a < 1000, [True, True])
        np.testing.assert_array_equal(a == 1000, [False, False])
    np.testing.assert_array_equal(a < np.float64(1000), [True, True])
    np.testing.assert_array_equal(a == np.float32(448.0), [False, False])
    np.testing.assert_array_equal(a == np.float64(1.0), [True, False])


def test_python_ints_beyond_int64():
    """Scalars compare any Python int exactly. Arrays of the formats without
    infinities take Python ints through NumPy's conversion for loops
    registered on its abstract Python-int DType, which stops at int64
    (OverflowError, a clear error rather than a wrong answer); formats with
    infinities (and float16) round such an int to an infinity."""
    x = mf.float8_e4m3fn(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert x < 10**400 and x > -10**400 and x != 2**64
        a = np.array([1.0], mf.float8_e5m2)
        assert bool((a < 2**64)[0])
    with pytest.raises(OverflowError):
        np.array([1.0], mf.float8_e4m3fn) < 2**64
