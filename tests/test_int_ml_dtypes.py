"""The sub-byte integers with ml_dtypes' int1/int2/int4/uint1/uint2/uint4:
astype both ways (the same value for the same type, NumPy's wraparound for
another width), mf.to_ml_dtypes / mf.from_ml_dtypes. ml_dtypes stores only
a signed type's low bits (int4 -1 is 0x0F), minifloat the whole sign-extended
byte (0xFF); the reference below is written in Python ints."""
import numpy as np
import pytest

import minifloat as mf

ml_dtypes = pytest.importorskip("ml_dtypes")

TYPES = {"int1": (1, True), "int2": (2, True), "int4": (4, True),
         "uint1": (1, False), "uint2": (2, False), "uint4": (4, False)}
NAMES = [n for n in TYPES if hasattr(ml_dtypes, n)]


def wrap(v, name):
    bits, signed = TYPES[name]
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >= 1 << (bits - 1) else v


def values(name):
    bits, signed = TYPES[name]
    return list(range(-(1 << (bits - 1)), 1 << (bits - 1))) if signed else list(range(1 << bits))


def ml_bytes(vals, name):
    return [v & ((1 << TYPES[name][0]) - 1) for v in vals]


def mf_bytes(vals):
    return [v & 0xFF for v in vals]


def ml_array(vals, name):
    """An ml_dtypes array built from its bytes (independent of the casts)."""
    return np.array(ml_bytes(vals, name), dtype=np.uint8).view(getattr(ml_dtypes, name))


@pytest.mark.parametrize("source", NAMES)
@pytest.mark.parametrize("target", NAMES)
def test_astype_both_ways(source, target):
    vals = values(source)
    expected = [wrap(v, target) for v in vals]
    ours = np.array(vals, dtype=getattr(mf, source))
    got = ours.astype(getattr(ml_dtypes, target))
    assert got.dtype == np.dtype(getattr(ml_dtypes, target))
    assert got.view(np.uint8).tolist() == ml_bytes(expected, target)
    got = ml_array(vals, source).astype(getattr(mf, target))
    assert got.dtype == np.dtype(getattr(mf, target))
    assert got.view(np.uint8).tolist() == mf_bytes(expected)
    assert [int(v) for v in got] == expected
    # strided, and ml_dtypes bytes with junk in the high bits (which it ignores)
    raw = np.arange(256, dtype=np.uint8)
    got = raw.view(getattr(ml_dtypes, source))[::3].astype(getattr(mf, target))
    assert [int(v) for v in got] == [wrap(wrap(b, source), target) for b in range(0, 256, 3)]


@pytest.mark.parametrize("name", NAMES)
def test_casting_levels(name):
    ml = getattr(ml_dtypes, name)
    ours = getattr(mf, name)
    signed = TYPES[name][1]
    for a, b in ((ours, ml), (ml, ours)):
        assert np.can_cast(a, b, "safe")
        assert np.can_cast(a, b, "equiv") == (not signed)  # unsigned: the same bits
    for other in NAMES:
        bits, other_signed = TYPES[other]
        lo, hi = min(values(name)), max(values(name))
        holds = min(values(other)) <= lo and max(values(other)) >= hi
        assert np.can_cast(ours, getattr(ml_dtypes, other), "safe") == holds
        assert np.can_cast(getattr(ml_dtypes, other), ours, "same_kind")


@pytest.mark.parametrize("name", NAMES)
def test_to_and_from_ml_dtypes(name):
    vals = values(name) * 3
    ours = np.array(vals, dtype=getattr(mf, name))
    ml = mf.to_ml_dtypes(ours)
    assert ml.dtype == np.dtype(getattr(ml_dtypes, name))
    assert ml.view(np.uint8).tolist() == ml_bytes(vals, name)
    back = mf.from_ml_dtypes(ml)
    assert back.dtype == np.dtype(getattr(mf, name)) and back.view(np.uint8).tolist() == mf_bytes(vals)
    unsigned = not TYPES[name][1]
    assert np.shares_memory(ml, ours) == unsigned and np.shares_memory(back, ml) == unsigned
    scalar = mf.from_ml_dtypes(ml[1])
    assert type(scalar) is getattr(mf, name) and int(scalar) == vals[1]
    assert int(mf.to_ml_dtypes(ours[1])) == vals[1]
    junk = np.arange(256, dtype=np.uint8).view(getattr(ml_dtypes, name))
    if unsigned:  # a view would read the high bits ml_dtypes ignores
        with pytest.raises(ValueError, match="astype"):
            mf.from_ml_dtypes(junk)
    else:  # the copy sign-extends the low bits, as ml_dtypes reads them
        assert [int(v) for v in mf.from_ml_dtypes(junk)] == [wrap(b, name) for b in range(256)]
    assert [int(v) for v in junk.astype(getattr(mf, name))] == [wrap(b, name) for b in range(256)]
    with pytest.raises(TypeError, match="already minifloat"):
        mf.from_ml_dtypes(ours)
    plain = np.arange(3, dtype=np.int8)  # NumPy's own type: the same in both libraries
    assert mf.to_ml_dtypes(plain) is plain


def test_ml_dtypes_names_stay_minifloat():
    # importing ml_dtypes registers the same names; minifloat keeps them
    mf.claim_int_dtype_names()
    assert np.dtype("int4") == np.dtype(mf.int4)
