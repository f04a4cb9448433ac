"""8-bit comparisons, selections and arithmetic with a scalar operand (x > 0,
np.maximum(x, 0), x * 2.0), selection reductions (x.max(), np.fmin.reduce(x), np.argmax) and clip
with scalar or array bounds run as byte-table lookups and scans. Checked
against the element-by-element loop (reached here through stride-2 views)
over every code pair, and the reductions against a sequential fold of the
exact values."""
import math
import warnings

import numpy as np
import pytest

import reference as R

EIGHT_BIT = [n for n in R.FORMATS if R.FORMATS[n].bits <= 8]
COMPARISONS = (np.less, np.less_equal, np.equal, np.not_equal, np.greater, np.greater_equal)
SELECTIONS = (np.maximum, np.minimum, np.fmax, np.fmin)
ROW_LENGTH = 1500  # above kBroadcastRowMinimum (byte_broadcast.h), not a multiple of a vector


def spread(x):
    """x as a stride-2 view (the element-by-element loop)."""
    return np.repeat(x, 2)[::2]


def codes_of(a):
    return np.asarray(a).view(np.uint8).tolist()


@pytest.mark.parametrize("name", EIGHT_BIT)
def test_with_scalar_every_pair(mf, name):
    T = getattr(mf, name)
    # every code, several vector steps and a tail; long enough for the row
    # lookups (shorter calls take the element loop)
    x = np.resize(R.all_codes(name), ROW_LENGTH).view(T)
    xs = spread(x)
    with np.errstate(all="ignore"):
        for c in R.all_codes(name).view(T):
            scalar = np.full(1, c, dtype=T)  # broadcast: stride 0
            for op in COMPARISONS:
                assert op(x, scalar).tolist() == op(xs, scalar).tolist(), (op.__name__, hex(c.view(np.uint8)))
                assert op(scalar, x).tolist() == op(scalar, xs).tolist(), (op.__name__, hex(c.view(np.uint8)))
            for op in SELECTIONS:
                assert codes_of(op(x, scalar)) == codes_of(op(xs, scalar)), op.__name__
                assert codes_of(op(scalar, x)) == codes_of(op(scalar, xs)), op.__name__


ARITHMETIC = (np.add, np.subtract, np.multiply, np.divide, np.floor_divide, np.remainder, np.fmod,
              np.power, np.copysign, np.arctan2, np.hypot, np.logaddexp, np.logaddexp2,
              np.heaviside)
NEW_ROW_LENGTH = 65536 + 77  # kNewRowMinimum (ufunc_loops.cpp) and a tail


def codes_and_warnings(f):
    """The result's bytes and the set of NumPy warnings f raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(all="warn"):
            result = f()
    return np.asarray(result).view(np.uint8), sorted({str(w.message) for w in caught})


@pytest.mark.parametrize("name", EIGHT_BIT)
def test_arithmetic_with_scalar_every_pair(mf, name):
    """x op c and c op x for every code c, as lookups in c's row: a row made
    alone (a short call where the pair table would otherwise be made, or a
    long one), then reused by a short call. Every value against the element
    loop over the format's codes (a stride-2 view), warnings included."""
    T = getattr(mf, name)
    codes = R.all_codes(name).view(T)
    codes_spread = spread(codes)
    short = np.resize(codes, ROW_LENGTH)
    long = np.resize(codes, NEW_ROW_LENGTH)
    for op in ARITHMETIC:
        for c in codes:
            scalar = np.full(1, c, dtype=T)  # broadcast: stride 0
            for order in ((lambda v: op(v, scalar)), (lambda v: op(scalar, v))):
                expected, expected_warnings = codes_and_warnings(lambda: order(codes_spread))
                where = (op.__name__, hex(int(c.view(np.uint8))))
                for x in (short, long, short):
                    got, got_warnings = codes_and_warnings(lambda: order(x))
                    assert np.array_equal(got, np.resize(expected, len(x))), where
                    assert got_warnings == expected_warnings, where


def fold(name, op, codes):
    """op applied left to right on exact values (NaN and tie rules of
    np.maximum/minimum/fmax/fmin: ties keep the first operand)."""
    def value(c):
        return R.decode_float(name, c)

    acc = codes[0]
    for c in codes[1:]:
        a, b = value(acc), value(c)
        a_nan, b_nan = math.isnan(a), math.isnan(b)
        if op in ("maximum", "minimum"):
            keep = a_nan or (not b_nan and (a >= b if op == "maximum" else a <= b))
        else:
            keep = b_nan or (not a_nan and (a >= b if op == "fmax" else a <= b))
        acc = acc if keep else c
    return acc


def first_extreme(values, pick):
    """np.argmax/np.argmin on floats: the first NaN, else the first
    position of the largest/smallest value (-0 and +0 tie)."""
    for i, v in enumerate(values):
        if math.isnan(v):
            return i
    target = pick(values)
    return next(i for i, v in enumerate(values) if v == target)


@pytest.mark.parametrize("name", EIGHT_BIT)
def test_selection_reductions(mf, name):
    T = getattr(mf, name)
    rng = np.random.default_rng(R.FORMATS[name].bits * 7 + len(name))
    codes = R.all_codes(name)
    nan_codes = [int(c) for c in codes if math.isnan(R.decode_float(name, c))]
    zeros = [int(c) for c in codes if R.decode_float(name, c) == 0]
    for length in (1, 2, 63, 4097, 9000):
        for variant in ("random", "nan_late", "nan_first_chunk", "zeros"):
            x = rng.choice(codes, length).astype(np.uint8)
            if variant == "nan_late" and nan_codes:
                x[length * 3 // 4:] = rng.choice(nan_codes, length - length * 3 // 4)
            if variant == "nan_first_chunk" and nan_codes:
                x[length // 3] = nan_codes[-1]
            if variant == "zeros" and zeros:
                x[:] = rng.choice(zeros, length)
            arr = x.view(T)
            for op, ufunc in (("maximum", np.maximum), ("minimum", np.minimum), ("fmax", np.fmax),
                              ("fmin", np.fmin)):
                with np.errstate(all="ignore"):
                    got = ufunc.reduce(arr)
                assert codes_of(np.asarray(got, dtype=T).reshape(1))[0] == fold(name, op, x.tolist()), \
                    (op, variant, length)
            with np.errstate(all="ignore"):
                assert codes_of(np.asarray(arr.max(), dtype=T).reshape(1))[0] == fold(name, "maximum", x.tolist())
            values = [R.decode_float(name, c) for c in x.tolist()]
            assert np.argmax(arr) == first_extreme(values, max), (variant, length)
            assert np.argmin(arr) == first_extreme(values, min), (variant, length)


@pytest.mark.parametrize("name", EIGHT_BIT)
def test_clip_scalar_and_array_bounds(mf, name):
    T = getattr(mf, name)
    codes = R.all_codes(name)
    x = np.resize(codes, ROW_LENGTH).view(T)
    xs = spread(x)
    rng = np.random.default_rng(11)
    with np.errstate(all="ignore"):
        for lo, hi in rng.choice(codes, (40, 2)).astype(np.uint8):
            low, high = np.full(1, lo, np.uint8).view(T), np.full(1, hi, np.uint8).view(T)
            assert codes_of(np.clip(x, low, high)) == codes_of(np.clip(xs, low, high)), (hex(lo), hex(hi))
        lows = rng.choice(codes, x.size).astype(np.uint8).view(T)
        highs = rng.choice(codes, x.size).astype(np.uint8).view(T)
        assert codes_of(np.clip(x, lows, highs)) == codes_of(np.clip(xs, spread(lows), spread(highs)))
        assert codes_of(np.clip(x, lows, high)) == codes_of(np.clip(xs, spread(lows), high))
