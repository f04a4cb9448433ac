"""Formats made at run time (mf.float_format), against the exact reference.

The tests are parameterized over the format description, not over names:
every combination of the description's fields (signedness, infinities,
NaN encoding, -0, subnormals, overflow) is tried for a few widths and
biases; the combinations the reference calls invalid must raise ValueError,
every valid one must give a dtype whose every code decodes exactly and whose
every value, midpoint and midpoint neighbour rounds correctly in every
rounding mode (both saturation settings, float32 and float64 sources).
Descriptions with the same meaning must give the same dtype object, and a
built-in format's description the built-in dtype. A larger sweep runs with
``-m exhaustive``.
"""

import json
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cast_mode_reference as I
import reference as R
import ufunc_reference as U

DETERMINISTIC = I.DETERMINISTIC

# (exponent_bits, mantissa_bits, bias or None for IEEE's): 8-, 4- and 3-bit
# codes, a shifted bias, and exponent-only formats (signed and unsigned).
# (1, 6): one exponent bit, so with IEEE specials every finite value is
# subnormal; (7, 1, 136): normals from 2^-135, below float32's
SHAPES = [(4, 3, None), (5, 2, None), (3, 4, 10), (2, 1, None), (8, 0, 127), (7, 0, None), (1, 6, None),
          (7, 1, 136)]
EXHAUSTIVE_SHAPES = [(6, 1, None), (2, 3, None), (4, 3, 9), (1, 2, None), (1, 1, None),
                     (2, 5, 3), (3, 2, 2), (5, 10, None), (8, 7, 120), (4, 11, 5)]
# A few 16-bit formats in the default run (every code of them is 65536).
WIDE = [
    dict(exponent_bits=5, mantissa_bits=10, bias=14, infinities=False, nan="all_ones"),
    dict(exponent_bits=6, mantissa_bits=9, infinities="max", nan="negative_zero", negative_zero=False),
    dict(exponent_bits=8, mantissa_bits=8, signed=False, infinities=True, nan=True, negative_zero=False),
]


def distinct_formats(shapes):
    """(params, Fmt) for the first spelling of each distinct format."""
    seen = {}
    for params, f in R.parameter_sweep(shapes):
        if isinstance(f, R.Fmt):
            seen.setdefault(R.meaning(f), (params, f))
    return list(seen.values())


def label(params):
    keys = ("exponent_bits", "mantissa_bits", "bias", "signed", "infinities", "nan", "negative_zero",
            "subnormals", "overflow")
    return "-".join(str(params.get(k)) for k in keys)


# NaN as a list of codes (R.nan_code_lists: valid and invalid lists) on an
# 8-bit and a 4-bit shape, every other field swept as above.
LIST_SHAPES = [(4, 3, None), (2, 1, None)]


def distinct_list_formats(shapes):
    """As distinct_formats, for the NaN lists, leaving out the meanings a
    named kind also has (the main sweep has those)."""
    named = {R.meaning(f) for _, f in distinct_formats(shapes)}
    seen = {}
    for params, f in R.parameter_sweep(shapes, nan_lists=True):
        if isinstance(f, R.Fmt) and R.meaning(f) not in named:
            seen.setdefault(R.meaning(f), (params, f))
    return list(seen.values())


SWEEP = distinct_formats(SHAPES) + distinct_list_formats(LIST_SHAPES) + [(p, R.describe(**p)) for p in WIDE]
# Every built-in format by its description (float_format gives the built-in
# dtype itself), through the same exact checks.
BUILTIN_SWEEP = [(R.FORMATS[n].params(), R.FORMATS[n]) for n in R.FORMAT_NAMES]
EXHAUSTIVE_SWEEP = distinct_formats(EXHAUSTIVE_SHAPES)


def codes_view(f, arr):
    return np.asarray(arr).view(f.code_dtype)


def all_values(dt, f):
    return np.arange(f.ncodes, dtype=np.int64).astype(f.code_dtype).view(dt)


def same_value(got, exp):
    """Same value and sign (NaN matches NaN of the same sign bit)."""
    got = np.asarray(got, dtype=np.float64)
    exp = np.asarray(exp, dtype=np.float64)
    both_nan = np.isnan(got) & np.isnan(exp)
    return (both_nan | (got == exp)) & (np.signbit(got) == np.signbit(exp))


def check_format(mf, params, f):
    dt = mf.float_format(**params)
    assert np.dtype(dt).kind == "f" and dt.itemsize == (1 if f.bits <= 8 else 2)
    # every code decodes exactly (NaN with its code's sign)
    with np.errstate(invalid="ignore"):
        got = all_values(dt, f).astype(np.float64)
    ok = same_value(got, R.decode_array(f, np.arange(f.ncodes)))
    assert ok.all(), (label(params), np.nonzero(~ok)[0][:8])
    # every value, midpoint and neighbour, in every mode
    for source in (np.float64, np.float32):
        x, expected, _ = R.boundary_cases(f, source)
        if f.bits > 8:  # a sample keeps 16-bit formats quick
            x = x[:: max(1, x.size // 20000)]
            expected = R.encode_array(f, x)[0]
        with np.errstate(all="ignore"):
            default = codes_view(f, x.astype(dt))
        bad = np.nonzero(default != expected)[0]
        assert bad.size == 0, (label(params), source.__name__, [(x[i], expected[i], default[i]) for i in bad[:5]])
        for mode in DETERMINISTIC:
            for saturate in (False, True):
                exp, _ = I.cast_array(f, x, mode, saturate=saturate)
                with np.errstate(all="ignore"):
                    got = codes_view(f, mf.cast(x, dt, rounding=mode, saturate=saturate))
                bad = np.nonzero(got != exp)[0]
                assert bad.size == 0, (label(params), source.__name__, mode, saturate,
                                       [(x[i], exp[i], got[i]) for i in bad[:5]])
    return dt


@pytest.mark.parametrize("params, f", SWEEP, ids=[label(p) for p, _ in SWEEP])
def test_sweep_decodes_and_rounds_exactly(mf, params, f):
    check_format(mf, params, f)


@pytest.mark.parametrize("params, f", BUILTIN_SWEEP, ids=[f.name for _, f in BUILTIN_SWEEP])
def test_builtin_formats_decode_and_round_exactly(mf, params, f):
    """Named, a built-in's description is that built-in (also where two
    built-ins have the same codes)."""
    assert check_format(mf, dict(params, name=f.name), f) is np.dtype(getattr(mf, f.name))


@pytest.mark.exhaustive
@pytest.mark.parametrize("params, f", EXHAUSTIVE_SWEEP, ids=[label(p) for p, _ in EXHAUSTIVE_SWEEP])
def test_larger_sweep_decodes_and_rounds_exactly(mf, params, f):
    check_format(mf, params, f)


def test_sweep_is_large_enough():
    assert len(SWEEP) >= 200


def test_vectorized_mode_reference_matches_fractions():
    """The vectorized rounding reference (used above) against the Fraction
    one, on every layout the sweep has."""
    rng = np.random.default_rng(16)
    for params, f in SWEEP[::7]:
        x, _, _ = R.boundary_cases(f, np.float64)
        x = np.concatenate([rng.choice(x, min(x.size, 60), replace=False), R.special_inputs()])
        for mode in DETERMINISTIC:
            for saturate in (False, True):
                codes, over = I.cast_array(f, x, mode, saturate=saturate)
                for i, v in enumerate(x):
                    assert (codes[i], over[i]) == I.cast_exact(f, v, mode, saturate), (label(params), v, mode)


def check_spellings(mf, sweep, first):
    """ValueError where the reference finds no format, else the dtype of the
    first spelling with that meaning (kept in `first`); returns how many
    valid spellings there were."""
    valid = 0
    for params, f in sweep:
        if isinstance(f, ValueError):
            with pytest.raises(ValueError):
                mf.float_format(**params)
            continue
        dt = mf.float_format(**params)
        assert first.setdefault(R.meaning(f), dt) is dt, params
        valid += 1
    return valid


def test_invalid_descriptions_raise_and_spellings_share_a_dtype(mf):
    """Every combination of the fields: ValueError where the reference finds
    no format, else the dtype of the first spelling with that meaning."""
    check_spellings(mf, R.parameter_sweep(SHAPES), {})


def test_nan_lists_raise_or_share_a_dtype_with_every_spelling(mf):
    """NaN given as a list of codes: invalid lists raise ValueError, valid
    ones give the dtype of every other spelling of the same codes (a list of
    the all-ones codes is nan='all_ones', of the code of -0 'negative_zero')."""
    first = {}
    for params, f in R.parameter_sweep(SHAPES):
        if isinstance(f, R.Fmt):
            first.setdefault(R.meaning(f), mf.float_format(**params))
    lists = check_spellings(mf, R.parameter_sweep(LIST_SHAPES, nan_lists=True), first)
    assert lists >= 50
    listed = mf.float_format(exponent_bits=4, mantissa_bits=3, infinities=False, nan=[0xFF, 0x7F, 0x7E, 0xFE])
    info = mf.format_info(listed)
    assert info["nan"] == (0x7E, 0x7F, 0xFE, 0xFF) and float(np.finfo(listed).max) == 416.0  # 0x7D: 1.625 * 2**8
    assert listed is mf.float_format(exponent_bits=4, mantissa_bits=3, infinities=False, nan=info["nan"])
    assert mf.float_format(exponent_bits=4, mantissa_bits=3, bias=7, infinities=False, nan=(0x7F, 0xFF)) \
        is np.dtype(mf.float8_e4m3fn)
    assert mf.float_format(exponent_bits=4, mantissa_bits=3, bias=8, infinities=False, nan=(0x80,),
                           negative_zero=False) is np.dtype(mf.float8_e4m3fnuz)


@pytest.mark.parametrize("name", R.FORMAT_NAMES)
def test_builtin_descriptions_give_the_builtin_dtype(mf, name):
    """The built-in dtype itself; where two built-ins have the same codes
    (binary8p3sf is float8_e5m2fnuz, binary8p4sf float8_e4m3fnuz), the first
    of the table."""
    meaning = R.meaning(R.FORMATS[name])
    first = next(n for n in R.FORMAT_NAMES if R.meaning(R.FORMATS[n]) == meaning)
    dt = mf.float_format(**R.FORMATS[name].params())
    assert dt is np.dtype(getattr(mf, first))


def test_same_parameters_same_dtype_and_the_e4m3_example(mf):
    e4m3 = mf.float_format(exponent_bits=4, mantissa_bits=3, bias=7)
    assert e4m3 is np.dtype(mf.float8_e4m3)  # documented: the built-in dtype itself
    a = mf.float_format(exponent_bits=4, mantissa_bits=3, bias=9, infinities=False, nan="all_ones")
    assert a is mf.float_format(exponent_bits=4, mantissa_bits=3, bias=9, infinities=False, nan="all_ones",
                                overflow="nan")
    named = mf.float_format(exponent_bits=4, mantissa_bits=3, bias=9, infinities=False, nan="all_ones",
                            name="my_e4m3")
    assert named is not a and named.name == "my_e4m3"
    assert (all_values(named, R.describe(exponent_bits=4, mantissa_bits=3, bias=9, infinities=False,
                                         nan="all_ones")).view(np.uint8) == np.arange(256)).all()
    with np.errstate(invalid="ignore"):
        assert same_value(np.arange(256, dtype=np.uint8).view(named).astype(np.float64),
                          np.arange(256, dtype=np.uint8).view(a).astype(np.float64)).all()
    with pytest.raises(ValueError, match="exists already"):
        mf.float_format(exponent_bits=5, mantissa_bits=2, name="my_e4m3")
    with pytest.raises(ValueError, match="exists already"):
        mf.float_format(exponent_bits=5, mantissa_bits=2, bias=3, name="float8_e4m3fn")
    # names NumPy resolves already (mf.cast(x, "float32") would round into the format)
    for taken in ("float32", "int8", "e", "bool", "complex64"):
        with pytest.raises(ValueError, match=f"name '{taken}' is taken: np.dtype\\('{taken}'\\) is numpy's"):
            mf.float_format(exponent_bits=3, mantissa_bits=3, name=taken)
        assert not isinstance(np.dtype(taken), mf.MinifloatDType)



def test_negative_zero_defaults_to_what_the_format_has(mf):
    """Not given, negative_zero is True where a sign and a zero make a code of
    -0 that the NaN does not take, else False (an unsigned format needed
    negative_zero=False spelled out)."""
    u = mf.float_format(exponent_bits=4, mantissa_bits=3, signed=False)
    assert u is mf.float_format(exponent_bits=4, mantissa_bits=3, signed=False, negative_zero=False)
    assert "negative_zero" not in repr(u)
    assert mf.float_format(exponent_bits=4, mantissa_bits=3, bias=8, infinities=False,
                           nan="negative_zero") is np.dtype(mf.float8_e4m3fnuz)
    listed = mf.float_format(exponent_bits=4, mantissa_bits=3, infinities=False, nan=(0x7F, 0xFF, 0x80))
    assert listed is mf.float_format(exponent_bits=4, mantissa_bits=3, infinities=False, nan=(0x7F, 0xFF, 0x80),
                                     negative_zero=False)
    assert "negative_zero" not in repr(listed)
    no_zero = mf.float_format(exponent_bits=3, mantissa_bits=2, infinities=False, subnormals=False, nan="all_ones")
    assert mf.format_info(no_zero.name)["has_zero"] is False and "negative_zero" not in repr(no_zero)
    assert mf.float_format(exponent_bits=4, mantissa_bits=3, infinities=False, nan="all_ones") is \
        np.dtype(mf.float8_e4m3fn)


@pytest.mark.parametrize("params, message", [
    (dict(exponent_bits=4, mantissa_bits=3, infinities=False, nan="negative_zero", negative_zero=True),
     "negative_zero=False"),
    (dict(exponent_bits=4, mantissa_bits=3, signed=False, negative_zero=True), "unsigned"),
    (dict(exponent_bits=4, mantissa_bits=3, nan=False), "nan=True"),
    (dict(exponent_bits=4, mantissa_bits=3, infinities=False, nan=False, overflow="inf"), "needs infinities"),
    (dict(exponent_bits=4, mantissa_bits=3, infinities=False, nan=False, overflow="nan"), "needs a NaN"),
    (dict(exponent_bits=8, mantissa_bits=0, signed=False, negative_zero=False, subnormals=False,
          infinities=False, nan=False), "need a NaN"),
    (dict(exponent_bits=4, mantissa_bits=3, negative_zero=False), "without a meaning"),
    (dict(exponent_bits=10, mantissa_bits=7), "2 to 16 bits"),
    (dict(exponent_bits=4, mantissa_bits=3, bias=-200), "float32"),
    (dict(exponent_bits=4, mantissa_bits=3, bias=200), "float32"),
    (dict(exponent_bits=0, mantissa_bits=3), "exponent_bits"),
    (dict(exponent_bits=4, mantissa_bits=3, infinities="yes"), "infinities"),
    (dict(exponent_bits=4, mantissa_bits=3, overflow="clamp"), "overflow"),
    (dict(exponent_bits=4, mantissa_bits=3, name="not a name"), "identifier"),
    (dict(exponent_bits=4, mantissa_bits=3, infinities=False, nan=(0x7F,)), "both signs"),
    (dict(exponent_bits=4, mantissa_bits=3, infinities=False, nan=(0x7F, 0xFF, 0x7D, 0xFD)), "hole"),
    (dict(exponent_bits=4, mantissa_bits=3, infinities=False, nan=(0x7F, 0xFF, 0x7F)), "twice"),
    (dict(exponent_bits=4, mantissa_bits=3, infinities=False, nan=(0x100,)), "does not fit"),
    (dict(exponent_bits=4, mantissa_bits=3, infinities=False, nan=(0x7F, 0xFF, 0x80), negative_zero=True),
     "negative_zero=False"),
    (dict(exponent_bits=4, mantissa_bits=3, nan=(0x7F, 0xFF, 0x7E, 0xFE)), "list them all"),
    (dict(exponent_bits=4, mantissa_bits=3, infinities=False, nan=()), "1 to 16"),
])
def test_impossible_combinations_say_why(mf, params, message):
    with pytest.raises(ValueError, match=message):
        mf.float_format(**params)


def test_wrong_types_raise_type_error(mf):
    with pytest.raises(TypeError):
        mf.float_format(exponent_bits=4.0, mantissa_bits=3)
    with pytest.raises(TypeError):
        mf.float_format(exponent_bits=4, mantissa_bits=3, signed="yes")
    with pytest.raises(TypeError):
        mf.float_format(4, 3)
    with pytest.raises(TypeError):
        mf.float_format(exponent_bits=4, mantissa_bits=3, infinities=False, nan=(127.0, 255))
    with pytest.raises(TypeError):
        mf.float_format(exponent_bits=4, mantissa_bits=3, infinities=False, nan={0x7F, 0xFF})


# --------------------------------------------------------------------------
# A user format has everything a built-in has
# --------------------------------------------------------------------------

SAMPLES = {
    "e4m3_b9_fn": dict(exponent_bits=4, mantissa_bits=3, bias=9, infinities=False, nan="all_ones"),
    "e5m2_p3109like": dict(exponent_bits=5, mantissa_bits=2, bias=15, infinities="max", nan="negative_zero",
                           negative_zero=False),
    "u_e4m4": dict(exponent_bits=4, mantissa_bits=4, signed=False, infinities="max", nan="all_ones",
                   negative_zero=False),
    "e5m2_no_subnormals": dict(exponent_bits=5, mantissa_bits=2, nan="all_ones", infinities=False,
                               subnormals=False, negative_zero=False),
    "e3m2_b2_sat": dict(exponent_bits=3, mantissa_bits=2, bias=2, overflow="saturate"),
    "e2m1_b0": dict(exponent_bits=2, mantissa_bits=1, bias=0, infinities=False, nan=False),
    # NaN as a list: the two largest magnitudes and the code of -0, infinities below them
    "e4m3_listed_nans": dict(exponent_bits=4, mantissa_bits=3, infinities="max", nan=(0x7E, 0x7F, 0x80, 0xFE, 0xFF),
                             negative_zero=False),
    "e6m9": dict(exponent_bits=6, mantissa_bits=9, bias=30),
}
SAMPLE_IDS = list(SAMPLES)


@pytest.fixture(params=SAMPLE_IDS)
def sample(request, mf):
    params = SAMPLES[request.param]
    return mf.float_format(**params), R.describe(**params)


def test_finfo(mf, sample):
    dt, f = sample
    fi = np.finfo(dt)
    exp = R.finfo_expected(f)
    for key in ("max", "min", "smallest_normal", "smallest_subnormal", "eps"):
        assert float(getattr(fi, key)) == float(exp[key]), key
    assert fi.bits == f.bits and fi.nmant == f.mbits and fi.nexp == f.ebits
    assert fi.dtype == dt


def test_casts_with_every_builtin_format(mf, sample):
    dt, f = sample
    codes = np.arange(f.ncodes, dtype=np.int64)
    if f.bits > 8:
        codes = codes[::97]
    src = codes.astype(f.code_dtype).view(dt)
    for name in R.FORMAT_NAMES:
        g = R.FORMATS[name]
        with np.errstate(all="ignore"):
            got = codes_view(g, src.astype(getattr(mf, name)))
        exp = [R.convert(f, g, int(c))[0] for c in codes]
        assert (got == np.array(exp)).all(), name
        back_codes = np.arange(g.ncodes, dtype=np.int64)[:: 1 if g.bits <= 8 else 61]
        with np.errstate(all="ignore"):
            got = codes_view(f, back_codes.astype(g.code_dtype).view(getattr(mf, name)).astype(dt))
        exp = [R.convert(g, f, int(c))[0] for c in back_codes]
        assert (got == np.array(exp)).all(), name


def test_casts_with_numpy_types_and_safety(mf, sample):
    dt, f = sample
    with np.errstate(all="ignore"):
        for t in (np.int8, np.uint8, np.int16, np.int64, np.float16, np.float32, np.float64, np.bool_):
            x = np.array([0, 1, 2, 3, 100, 127], dtype=t)
            got = codes_view(f, x.astype(dt))
            exp = [R.encode(f, int(v) if t is not np.bool_ else bool(v))[0] for v in x]
            assert got.tolist() == exp, t
        vals = all_values(dt, f)[: min(f.ncodes, 4096)]
        assert same_value(vals.astype(np.float32), R.decode_array(f, np.arange(vals.size))).all()
    assert np.can_cast(dt, np.float32) and not np.can_cast(np.float32, dt)
    assert np.result_type(dt, np.float64) == np.float64


def test_arithmetic_comparisons_and_sorting(mf, sample):
    dt, f = sample
    if f.bits > 8:
        return  # the 8-bit table checks below cover every pair; 16-bit: see the sweep casts
    a, b = U.pair_codes(f)
    x, y = a.view(dt), b.view(dt)
    for op in ("add", "subtract", "multiply", "divide", "maximum", "minimum"):
        with np.errstate(all="ignore"):
            got = codes_view(f, getattr(np, op)(x, y))
        ref = U.expected_binary_on(f, op, a, b)
        ok = U.compare_codes(f, got, ref.outs[0], ref.nan_result[0] if ref.nan_result else None)
        assert ok.all(), (op, U.mismatch_report(f, ok, ref.outs[0], got, [a, b]))
    for op in ("less", "equal", "greater_equal"):
        with np.errstate(all="ignore"):
            got = getattr(np, op)(x, y)
        exp = getattr(np, op)(R.decode_array(f, a), R.decode_array(f, b))
        assert (got == exp).all(), op
    codes = np.arange(f.ncodes, dtype=np.uint8)
    values = R.decode_array(f, codes)
    order = np.argsort(codes.view(dt), kind="stable")
    ranked = values[order]
    finite_part = ranked[~np.isnan(ranked)]
    assert (np.diff(finite_part) >= 0).all() and np.isnan(ranked[finite_part.size:]).all()
    finite_codes = codes[np.isfinite(values)][::5]
    with np.errstate(all="ignore"):
        total = np.add.reduce(finite_codes.view(dt))
    _, acceptable = U.acceptable_sum_codes(f, R.decode_array(f, finite_codes))
    assert int(codes_view(f, np.array([total], dt))[0]) in acceptable


def test_printing_and_repr_round_trip(mf, sample):
    dt, f = sample
    assert eval(repr(dt), {"float_format": mf.float_format}) is dt
    codes = np.arange(0, f.ncodes, max(1, f.ncodes // 200), dtype=np.int64).astype(f.code_dtype)
    x = codes.view(dt)
    text = repr(x)
    assert "float_format(" in text
    for c in codes:
        s = x[int(np.nonzero(codes == c)[0][0])]
        v = R.decode(f, int(c))
        if v == R.NAN:
            continue
        with np.errstate(all="ignore"):
            back = dt.type(repr(s))
        assert codes_view(f, np.array([back], dt))[0] == c or (v in (0, R.NEG_ZERO)), (c, repr(s))


def test_pickle_in_this_and_a_fresh_interpreter(mf, sample):
    dt, f = sample
    x = np.arange(min(f.ncodes, 256), dtype=np.int64).astype(f.code_dtype).view(dt)
    assert pickle.loads(pickle.dumps(dt)) is dt
    back = pickle.loads(pickle.dumps(x))
    assert back.dtype is dt and (codes_view(f, back) == codes_view(f, x)).all()
    scalar = x[3]
    assert pickle.loads(pickle.dumps(scalar)).dtype is dt
    payload = pickle.dumps((x, dt, scalar))
    script = textwrap.dedent("""
        import json, pickle, sys
        import numpy as np
        x, dt, scalar = pickle.loads(sys.stdin.buffer.read())
        assert x.dtype is dt and scalar.dtype is dt
        print(json.dumps([dt.name, x.view(np.uint8 if dt.itemsize == 1 else np.uint16).tolist(), repr(dt)]))
    """)
    out = subprocess.run([sys.executable, "-c", script], input=payload, capture_output=True, check=True)
    name, codes, text = json.loads(out.stdout)
    assert name == dt.name and codes == codes_view(f, x).tolist() and text == repr(dt)


@pytest.mark.parametrize("bits", range(2, 9))
def test_pack_every_width(mf, bits):
    m = (bits - 1) // 2
    params = dict(exponent_bits=bits - 1 - m, mantissa_bits=m, infinities=False, nan=False)
    dt, f = mf.float_format(**params), R.describe(**params)
    assert f.bits == bits
    rng = np.random.default_rng(bits)
    for n in (0, 1, 2, 3, 7, 8, 9, 31, 100):
        codes = rng.integers(0, f.ncodes, n).astype(np.uint8)
        packed = mf.pack(codes.view(dt))
        assert bytes(packed) == I.pack_codes(codes, f.bits)
        back = mf.unpack(packed, dt, n)
        assert (back.view(np.uint8) == codes).all()


def test_mx_quantize_with_a_user_element_format(mf):
    params = SAMPLES["e5m2_p3109like"]
    dt, f = mf.float_format(**params), R.describe(**params)
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((3, 70)) * 8).astype(np.float32)
    x[1, 40] = np.nan
    q = mf.mx.quantize(x, dt)
    assert q.data.dtype is dt and q.scales.dtype == np.dtype(mf.float8_e8m0fnu)
    emax = R.floor_log2(R.finfo_expected(f)["max"])
    for r in range(3):
        for b in range(3):
            block = x[r, 32 * b: 32 * (b + 1)]
            scale = int(q.scales.view(np.uint8)[r, b])
            elements = codes_view(f, q.data[r, 32 * b: 32 * (b + 1)])
            if not np.isfinite(block).all():
                assert scale == 0xFF and (elements == f.nan_code()).all()
                continue
            amax = max(abs(R.Fraction(float(v))) for v in block)
            e = min(max(R.floor_log2(amax) - emax, -127), 127)
            assert scale == e + 127
            exp = [R.encode(f, R.Fraction(float(v)) / R.Fraction(2) ** e, saturate=True)[0] for v in block]
            assert elements.tolist() == exp
    with pytest.raises(ValueError, match="MX element"):
        mf.mx.quantize(x, mf.float_format(**SAMPLES["u_e4m4"]))


def test_dlpack_codes_follow_the_fields(mf):
    e4m3fn_alike = mf.float_format(exponent_bits=4, mantissa_bits=3, infinities=False, nan="all_ones",
                                   name="my_e4m3fn")
    x = np.arange(256, dtype=np.uint8).view(e4m3fn_alike)
    y = mf.from_dlpack(mf.to_dlpack(x))
    assert y.dtype == np.dtype(mf.float8_e4m3fn) and (y.view(np.uint8) == np.arange(256)).all()
    for dt in (mf.float_format(**SAMPLES["e4m3_b9_fn"]), mf.float_format(**SAMPLES["e5m2_p3109like"])):
        with pytest.raises(BufferError, match="no DLPack type code"):
            mf.to_dlpack(np.zeros(4, dt))


def test_creation_from_threads_gives_one_dtype(mf):
    import threading

    params = dict(exponent_bits=3, mantissa_bits=3, bias=5, infinities=False, nan="all_ones")
    results = []
    threads = [threading.Thread(target=lambda: results.append(mf.float_format(**params))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 8 and all(r is results[0] for r in results)


# Every ufunc minifloat has, on a format made at run time, against the exact
# reference (8-bit samples: every code; binary ops: every code against the
# special codes and a spread of others, both orders).
EIGHT_BIT_SAMPLES = ["e4m3_b9_fn", "e5m2_p3109like", "u_e4m4", "e5m2_no_subnormals", "e2m1_b0", "e4m3_listed_nans"]


@pytest.mark.parametrize("op", U.UNARY_FORMAT_OPS + U.BOOL_UNARY)
@pytest.mark.parametrize("sample_id", EIGHT_BIT_SAMPLES)
def test_every_unary_ufunc(mf, sample_id, op):
    from test_ufunc_binary import check_outputs

    params = SAMPLES[sample_id]
    dt, f = mf.float_format(**params), R.describe(**params)
    c = U.unary_codes(f)
    with np.errstate(all="ignore"):
        got = getattr(np, op)(c.view(dt))
    check_outputs(f, dt, U.expected_unary(f, op), got, (c,), f"{sample_id} {op}")


@pytest.mark.parametrize("op", U.BINARY_FORMAT_OPS + U.COMPARE + U.LOGICAL_BINARY)
@pytest.mark.parametrize("sample_id", EIGHT_BIT_SAMPLES)
def test_every_binary_ufunc(mf, sample_id, op):
    from test_ufunc_binary import check_outputs

    params = SAMPLES[sample_id]
    dt, f = mf.float_format(**params), R.describe(**params)
    every = np.arange(f.ncodes, dtype=np.int64)
    others = np.unique(np.concatenate([U.special_codes(f).astype(np.int64), every[::9]]))
    a = np.concatenate([np.repeat(every, others.size), np.tile(others, every.size)]).astype(f.code_dtype)
    b = np.concatenate([np.tile(others, every.size), np.repeat(every, others.size)]).astype(f.code_dtype)
    with np.errstate(all="ignore"):
        got = getattr(np, op)(a.view(dt), b.view(dt))
    check_outputs(f, dt, U.expected_binary_on(f, op, a, b), got, (a, b), f"{sample_id} {op}")


@pytest.mark.parametrize("params", [
    dict(exponent_bits=7, mantissa_bits=1, bias=136, signed=False, infinities=True, nan=True, negative_zero=False),
    dict(exponent_bits=2, mantissa_bits=5, bias=-20, subnormals=False, infinities=False, nan="all_ones",
         negative_zero=False),
])
def test_formats_without_one_are_made_with_finfo(mf, params):
    """Formats whose values all lie below 1 (or above) cannot hold eps = 2^-M
    (NumPy's finfo took log2 of it and raised OverflowError, leaving the
    format half made): finfo gives machep = -M, and the format works."""
    dt = mf.float_format(**params)
    assert mf.float_format(**params) is dt  # made once, found again
    info = np.finfo(dt)
    assert info.machep == -params["mantissa_bits"]
    assert info.negep == int(np.log2(float(info.epsneg)))
    assert "Machine parameters" in str(info)
    x = np.array([float(info.smallest_normal), float(info.max)])
    assert (x.astype(dt).astype(np.float64) == x).all()
