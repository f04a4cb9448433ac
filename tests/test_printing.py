"""Printing: scalars, arrays and np.finfo show exact values for formats of 8
bits or fewer (float32's shortest repr of the value, laid out as NumPy lays
out float32 arrays, under every print option), the shortest round-trip
decimal for bfloat16 (laid out as NumPy lays out float16 arrays); repr
always reads back to the same bits."""
import itertools
import re
import warnings
import zlib

import numpy as np
import pytest

import printing_reference as P
import reference as R

# What this file checks is mf.patch_numpy()'s wrappers (a plain import
# changes no NumPy function: test_good_neighbour.py).
pytestmark = pytest.mark.usefixtures("patched_numpy")

NAMES = list(R.FORMATS)
EXACT_NAMES = [n for n in NAMES if P.prints_exact_value(n)]

# Every print option NumPy has for floats, each value of each.
FLOATMODES = ["maxprec", "unique", "fixed", "maxprec_equal"]
PRECISIONS = [0, 1, 3, 8]
SUPPRESS = [False, True]
SIGNS = ["-", "+", " "]
LEGACY = [False, "1.13", "1.21", "1.25", "2.1", "2.2"]


@pytest.fixture(autouse=True)
def _default_printoptions():
    with np.printoptions():  # restores whatever a test changes
        yield


def _namespace(mf):
    ns = {name: getattr(mf, name) for name in NAMES}
    ns.update(array=np.array, nan=np.nan, inf=np.inf)
    return ns


def _text_or_error(f):
    try:
        return f()
    except Exception as e:  # NumPy itself refuses some option mixes: so must we
        return f"{type(e).__name__}: {e}"


def _sample_arrays(name, T, count):
    """Small random arrays of codes (every code appears in some)."""
    f = R.FORMATS[name]
    codes = R.all_codes(name)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    arrays = [codes[:0], codes[:1]] + [rng.choice(codes, int(k)) for k in rng.integers(1, 6, count)]
    return [(a.astype(f.code_dtype).view(T), P.float32_values(name, a)) for a in arrays]


def _whole_format(name, T):
    """Every code, and every finite code, as arrays."""
    f = R.FORMATS[name]
    codes = R.all_codes(name)
    finite = codes[np.isfinite(R.decode_array(name, codes))]
    return [(a.view(T), P.float32_values(name, a)) for a in (codes, finite) if a.dtype == f.code_dtype]


def _check_against_float32(name, samples, options):
    floatmode, precision, suppress, sign, legacy = options
    with np.printoptions(threshold=1 << 20, floatmode=floatmode, precision=precision, suppress=suppress,
                         sign=sign, legacy=legacy):
        for arr, f32 in samples:
            got = _text_or_error(lambda: np.array2string(arr))
            exp = _text_or_error(lambda: np.array2string(f32))
            assert got == exp, (name, options, got, exp)
            if arr.size <= 5:
                assert _text_or_error(lambda: str(arr)) == _text_or_error(lambda: str(f32))
                with np.printoptions(linewidth=1000):  # the dtype names differ in length
                    exp_repr = _text_or_error(lambda: repr(f32)).replace("float32", name)
                    assert _text_or_error(lambda: repr(arr)) == exp_repr, (name, options)


@pytest.mark.parametrize("name", EXACT_NAMES)
def test_exact_value_arrays_print_as_float32(mf, name):
    """array2string, str and repr equal NumPy's float32 printing of the
    exact values: small arrays under every combination of floatmode,
    precision, suppress, sign and legacy (1.21 to 2.2 share one rule for
    floats: 2.1 stands for them), every code at once under most."""
    T = getattr(mf, name)
    small = _sample_arrays(name, T, 12)
    whole = _whole_format(name, T)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for options in itertools.product(FLOATMODES, PRECISIONS, SUPPRESS, SIGNS, ["False", "1.13", "2.1"]):
            options = options[:4] + ((False if options[4] == "False" else options[4]),)
            _check_against_float32(name, small, options)
        for options in itertools.product(FLOATMODES, [3, 8], SUPPRESS, ["-"], [False, "1.13", "2.1"]):
            _check_against_float32(name, whole, options)
        for legacy in LEGACY:  # every legacy value once
            _check_against_float32(name, small[:4] + whole[:1], ("maxprec", 8, False, "-", legacy))


@pytest.mark.parametrize("name", EXACT_NAMES)
def test_exact_value_zero_dimensional_and_keywords(mf, name):
    """0-d arrays and array2string's own keywords, against float32."""
    T = getattr(mf, name)
    f = R.FORMATS[name]
    codes = R.all_codes(name)
    for c in codes[:: max(1, len(codes) // 32)]:
        x = np.array(c, f.code_dtype).view(T)
        x32 = P.float32_values(name, [c])[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            assert repr(x) == repr(np.array(x32)).replace("float32", name)
            assert str(x) == str(np.array(x32))
    arr = codes[:40].view(T)
    f32 = P.float32_values(name, codes[:40])
    for kw in (dict(precision=2), dict(floatmode="fixed", precision=4), dict(suppress_small=True),
               dict(sign="+"), dict(separator=", ", prefix="x("), dict(max_line_width=30)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            assert np.array2string(arr, **kw) == np.array2string(f32, **kw), kw


def test_issue_examples(mf):
    """The values FP8 users look at, not the shortest decimal of 3 mantissa
    bits (which printed 448, 192, 0.1 as 4.5e+02, 2.0e+02, 1.0e-01)."""
    e4 = mf.float8_e4m3fn
    x = np.array([448, 192, 0.1], e4)
    assert repr(x) == repr(x.astype(np.float32)).replace("float32", "float8_e4m3fn")
    assert repr(x) == "array([4.480000e+02, 1.920000e+02, 1.015625e-01], dtype=float8_e4m3fn)"
    total = np.array([100, 92], e4).sum()  # 192 exactly
    assert float(total) == 192 and str(total) == repr(total) == "192.0"
    assert repr(np.array(192, e4)) == "array(192., dtype=float8_e4m3fn)"
    assert str(np.array([1, 2, 0.5], e4)) == "[1.  2.  0.5]"
    assert repr(np.array([1.0, 2.0**127], mf.float8_e8m0fnu)) == \
        "array([1.0000000e+00, 1.7014118e+38], dtype=float8_e8m0fnu)"
    with np.errstate(all="ignore"):
        y = np.array([np.nan, -np.inf, 1.5], np.float64).astype(mf.float8_e5m2)
    assert str(y) == str(y.astype(np.float32)) == "[ nan -inf  1.5]"
    assert str(np.array([[1, 2], [3, 4]], mf.float4_e2m1fn)) == "[[1. 2.]\n [3. 4.]]"


# --------------------------------------------------------------------------
# bfloat16: shortest round-trip digits, laid out like float16
# --------------------------------------------------------------------------


def _bfloat16_codes_shared_with_float16(mf):
    """bfloat16 codes whose value is a float16 value with the same shortest
    decimal in both formats (checked against the exact reference)."""
    codes = R.all_codes("bfloat16")
    values = R.decode_array("bfloat16", codes)
    with np.errstate(all="ignore"):
        same = (values.astype(np.float16).astype(np.float64) == values) | np.isnan(values)
    rng = np.random.default_rng(2)
    keep = []
    for c in rng.choice(codes[same], 1500, replace=False):  # the reference is slow: a sample
        texts = P.expected_texts("bfloat16", int(c))
        h = np.float16(R.decode_float("bfloat16", int(c)))
        if len(texts) == 1 and texts[0] == str(h):
            keep.append(c)
    return np.array(keep, np.uint16)


def test_bfloat16_prints_like_float16(mf):
    """Where the values and their shortest decimals agree, bfloat16 arrays
    print as float16 arrays do under every print option (magnitudes below
    100: the scientific cutoff is 10**finfo.precision, 100 for bfloat16 and
    1000 for float16, as NumPy's rule gives for each)."""
    codes = _bfloat16_codes_shared_with_float16(mf)
    assert len(codes) > 500
    rng = np.random.default_rng(3)
    arrays = []
    while len(arrays) < 30:
        pick = rng.choice(codes, int(rng.integers(1, 6)))
        v = np.abs(R.decode_array("bfloat16", pick))
        if np.all(~np.isfinite(v) | (v < 100)):
            arrays.append(pick)
    for floatmode, precision, suppress, sign, legacy in itertools.product(
            FLOATMODES, PRECISIONS, SUPPRESS, SIGNS, [False, "1.13", "2.1"]):
        with np.printoptions(floatmode=floatmode, precision=precision, suppress=suppress, sign=sign,
                             legacy=legacy):
            for pick in arrays:
                xb = pick.view(mf.bfloat16)
                xh = R.decode_array("bfloat16", pick).astype(np.float16)
                got = _text_or_error(lambda: np.array2string(xb))
                exp = _text_or_error(lambda: np.array2string(xh))
                assert got == exp, (floatmode, precision, suppress, sign, legacy, got, exp)


def test_layout_matches_float16(mf):
    for values in ([1, 2, 0.5], [0.5, -3.5, 4], [1e-5, 1.5], [0.25, 1024.0], [-0.0, 0.0], []):
        x16 = np.array(values, np.float16)
        xb = np.array(values, mf.bfloat16)
        assert str(xb) == str(x16), values
        assert repr(xb) == repr(x16).replace("float16", "bfloat16"), values


def test_bfloat16_printoptions(mf):
    x = np.array([0.1, 1, 3.14159], mf.bfloat16)  # 0.10009765625, 1, 3.140625
    assert repr(x) == "array([0.1 , 1.  , 3.14], dtype=bfloat16)"
    with np.printoptions(precision=1):
        assert str(x) == "[0.1 1.  3.1]"
    with np.printoptions(sign="+"):
        assert str(x) == "[+0.1  +1.   +3.14]"
    with np.printoptions(floatmode="fixed", precision=3):
        assert str(x) == "[0.100 1.000 3.141]"  # the exact values, rounded
    with np.printoptions(floatmode="maxprec_equal"):
        assert str(x) == "[0.10 1.00 3.14]"  # extra digits are the exact value's
    with np.printoptions(suppress=True):
        assert str(np.array([1e-5, 1.5], mf.bfloat16)) == "[0.00001 1.5    ]"
    with np.printoptions(formatter={"float_kind": lambda v: "X"}):
        assert str(x) == "[X X X]"


# --------------------------------------------------------------------------
# repr reads back
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_repr_of_every_code_reads_back(mf, name):
    """eval(repr(arr)) gives the same codes for every code of every format
    (bfloat16: all 65536; NaNs read back as NaN), in one array and one at a
    time."""
    f = R.FORMATS[name]
    T = getattr(mf, name)
    codes = R.all_codes(name)
    nan = np.isnan(R.decode_array(name, codes))
    arr = codes.view(T)
    with np.printoptions(threshold=1 << 20):
        text = repr(arr)
    with np.errstate(invalid="ignore"):
        back = eval(text, _namespace(mf))
    assert back.dtype == np.dtype(T)
    got = back.view(f.code_dtype)
    np.testing.assert_array_equal(got[~nan], codes[~nan])
    assert np.isnan(R.decode_array(name, got[nan])).all()
    step = 1 if f.bits <= 8 else 257
    for c in codes[::step]:
        one = np.array([c], f.code_dtype).view(T)
        with np.errstate(invalid="ignore"):
            again = eval(repr(one), _namespace(mf)).view(f.code_dtype)[0]
        if nan[c]:
            assert np.isnan(R.decode_float(name, int(again)))
        else:
            assert again == c, (name, hex(int(c)), repr(one))


def test_printing_raises_no_warnings(mf):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in NAMES:
            T = getattr(mf, name)
            f = R.FORMATS[name]
            repr(R.all_codes(name).view(T))
            repr(np.array([f.max_code()], f.code_dtype).view(T))
            str(np.finfo(T)), repr(np.finfo(T))


# --------------------------------------------------------------------------
# np.finfo prints the values the same way
# --------------------------------------------------------------------------


def _finfo_fields(text):
    return dict(re.findall(r"(\w+) =\s+(\S+)", text))


@pytest.mark.parametrize("name", NAMES)
def test_finfo_prints_values(mf, name):
    T = getattr(mf, name)
    info = np.finfo(T)
    exp = R.finfo_expected(name)

    def text_of(q):
        return P.expected_texts(name, R.encode(name, q)[0])

    fields = _finfo_fields(str(info))
    for key in ("max", "eps", "epsneg", "tiny", "smallest_normal", "smallest_subnormal"):
        assert fields[key] in text_of(exp[key]), (name, key, fields[key])
        assert str(getattr(info, key)) in text_of(exp[key])
    if exp["min"] == -exp["max"]:
        assert fields["min"] == "-max"
    else:
        assert fields["min"] in text_of(exp["min"])
    r = repr(info)
    assert f"max={fields['max']}," in r and f"dtype={name})" in r
    assert f"min={str(info.min)}," in r and str(info.min) in text_of(exp["min"])
    if P.prints_exact_value(name):  # the exact value, as float32 prints it
        assert fields["max"] == str(np.float32(exp["max"]))
        assert fields["eps"] == str(np.float32(exp["eps"]))


def test_finfo_examples(mf):
    info = np.finfo(mf.float8_e4m3fn)
    assert str(info.max) == "448.0" and str(info.eps) == "0.125"
    assert "max =        448.0" in str(info)
    assert str(np.finfo(mf.float8_e8m0fnu).max) == str(np.float32(2.0**127)) == "1.7014118e+38"
