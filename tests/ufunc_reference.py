"""Exact reference for the NumPy math of the minifloat formats.

Like ``reference.py`` this module never imports ``minifloat``.  It builds, for
every ufunc the package implements, the expected result *codes* of an array
of operand codes, from the exact format model in ``reference.py``:

    decode exactly -> compute -> round ONCE (RNE, the format's overflow rules)

How each family is computed, and why it is exact
------------------------------------------------
* Operands are decoded to float64 (exact: every value of every format is a
  float64, ``R.decode_array``).
* ``+ - * /``, ``sqrt``, ``reciprocal``, ``square``: float64 is correctly
  rounded, and rounding a correctly rounded 53-bit result again to p <= 8
  bits is the same as rounding the exact result once, since 53 >= 2p + 2
  (Figueroa, "When is double rounding innocuous?", SIGNUM 1995).  For the
  8-bit formats + - * are even exact in float64.
* ``fmod``, ``copysign``, ``heaviside``, ``rint/floor/ceil/trunc``, ``modf``,
  ``frexp``, ``ldexp`` (with the exponent clamped to +-400, which cannot
  change any rounding), comparisons, selections: exact in float64.
* ``floor_divide``/``remainder``/``divmod``: NumPy's float64 algorithm
  (``npy_divmod``) on the exact operands.  For the 8-bit formats every step
  of it is exact (quotients < 2**35, remainders on a grid of < 2**40 points),
  so the float64 result is exactly floor(a/b) / a - b*floor(a/b); the
  remainder's final ``mod += b`` is an addition (innocuous double rounding).
* Transcendental functions (exp, log, sin, ..., power, arctan2, hypot,
  logaddexp, cbrt, deg2rad, ...): NumPy's float64 result r is used ONLY when
  the rounding of every value in [r (1 - DELTA), r (1 + DELTA)] is the same
  code, i.e. r is provably farther than its error (a few float64 ulps; DELTA
  = 2**-40 is >= 8000 ulps) from every rounding boundary (midpoint, overflow
  threshold) of the format.  Every other element is recomputed with mpmath
  at 400 bits; a result within 2**-350 (relative) of a midpoint is taken as
  that exact midpoint (exact ties do occur: power(1.5, 2), log2(8) in
  float8_e8m0fnu, sqrt of squares, ...), and the tie rule decides.
  float64 results of 0 from finite nonzero operands are also recomputed
  for float8_e8m0fnu, where "tiny positive" (-> 2**-127) and "zero"
  (-> NaN) round differently.
* ``nextafter``/``spacing``: step tables over the format's own codes.

Results that are NaN are compared as "both NaN" (for fnuz the only NaN is
0x80, for fn 0x7F/0xFF, so this pins the bits); fp6/fp4 have no NaN and a
NaN result is stored with the bits of the cast rule (+NaN -> -0, -NaN -> +0);
as IEEE 754 leaves the sign of an invalid operation's NaN unspecified, either
of those two codes is accepted there (see compare_codes).

Flags: ``Ref.overflow/invalid/divide`` say which NumPy warning each element
must raise; ``Ref.clean()`` are the elements that must raise none.  Operands
that are signalling NaNs of the IEEE-like formats may raise 'invalid'.

Each ``expected_*`` function returns a ``Ref``: codes (or bools / ints) and
the floating-point flags NumPy would raise per element.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import mpmath
import numpy as np

import reference as R

NAMES = R.FORMAT_NAMES
EIGHT_BIT = R.EIGHT_BIT  # every format of 8 bits or fewer
DELTA = 2.0**-40
MP_PREC = 400
SNAP = Fraction(1, 2**350)

# --------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------


def fmt(name) -> R.Fmt:
    return R.fmt_of(name)


def decode(name, codes) -> np.ndarray:
    return R.decode_array(name, codes)


def encode(name, x):
    """(codes, flags) of the single RNE rounding of the float64 array x."""
    with np.errstate(all="ignore"):
        return R.encode_array(name, np.asarray(x, dtype=np.float64))


def encode_codes(name, x):
    return encode(name, x)[0]


@lru_cache(maxsize=None)
def nan_table(name) -> np.ndarray:
    """Boolean table: is code c a NaN of the format."""
    t = np.isnan(R._decode_table(name))
    t.setflags(write=False)
    return t


def is_nan_code(name, codes) -> np.ndarray:
    return nan_table(name)[np.asarray(codes).astype(np.int64) & fmt(name).mask]


def is_snan_code(name, codes) -> np.ndarray:
    """Signalling NaN codes of the IEEE-like formats (mantissa MSB clear).
    IEEE 754 lets an operation on them signal 'invalid' (float32, float16
    and bfloat16 arithmetic on x86 do); the format specs for the 8-bit
    formats do not distinguish, so the tests accept either."""
    f = fmt(name)
    c = np.asarray(codes).astype(np.int64)
    if f.nan is not True:  # only IEEE NaNs have a quiet bit
        return np.zeros(c.shape, dtype=bool)
    return is_nan_code(name, c) & ((c & (1 << (f.mbits - 1))) == 0)


def codes_of(arr) -> np.ndarray:
    return R.codes_of(arr)


def code_dtype(name):
    return fmt(name).code_dtype


# --------------------------------------------------------------------------
# Operand sets
# --------------------------------------------------------------------------


def special_codes(name) -> np.ndarray:
    """Codes every test should see: zeros, NaNs (several payloads), infs,
    extremes, one, subnormal edges, both signs."""
    f = fmt(name)
    vals = [0, f.sign_bit, f.max_code(), f.max_code(True), 1, 1 | f.sign_bit]
    one = R.encode_code(f, 1)
    vals += [one, one + 1, max(one - 1, 0), one | f.sign_bit]
    if f.subnormals:
        mn = 1 << f.mbits  # smallest normal
        vals += [mn, mn - 1, mn | f.sign_bit, (mn - 1) | f.sign_bit, mn + 1]
    if f.has_nan:
        vals += [f.nan_code(), f.nan_code(True)]
    if f.has_inf:
        vals += [f.inf_code(), f.inf_code(True)]
        # other NaN payloads: smallest and largest mantissa, both signs
        e = ((1 << f.ebits) - 1) << f.mbits
        vals += [e | 1, e | 1 | f.sign_bit, e | ((1 << f.mbits) - 1),
                 e | ((1 << f.mbits) - 1) | f.sign_bit]
    vals += [f.max_code() - 1, (f.max_code() - 1) | f.sign_bit]
    if f.bits > 8:
        vals += [R.encode_code(f, v) for v in (2.0, 3.0, 0.5, -0.5, 10.0, 1e30, -1e-30,
                                               math.pi, -math.e)]
    out = np.unique(np.array(vals, dtype=np.int64) & f.mask)
    return out.astype(f.code_dtype)


@lru_cache(maxsize=None)
def pair_codes(name, n_random=1 << 18, seed=1234):
    """(a, b) code arrays: every pair for formats of <= 8 bits; for bfloat16
    a random sample of n_random pairs plus every pair of special codes."""
    f = fmt(name)
    if f.bits <= 8:
        c = np.arange(f.ncodes, dtype=f.code_dtype)
        a, b = np.meshgrid(c, c, indexing="ij")
        a, b = a.reshape(-1), b.reshape(-1)
    else:
        rng = np.random.default_rng(seed)
        ra = rng.integers(0, f.ncodes, n_random, dtype=np.int64)
        rb = rng.integers(0, f.ncodes, n_random, dtype=np.int64)
        # pairs of nearby magnitudes exercise cancellation, ties and tight
        # quotients much more than independent random codes do
        near = rng.integers(-300, 301, n_random // 4) + ra[: n_random // 4]
        rb[: n_random // 4] = np.clip(near, 0, f.ncodes - 1) ^ (
            rng.integers(0, 2, n_random // 4) << 15)
        s = special_codes(name).astype(np.int64)
        sa, sb = np.meshgrid(s, s, indexing="ij")
        s2a = np.concatenate([sa.reshape(-1), s, np.full_like(s, 0)])
        s2b = np.concatenate([sb.reshape(-1), np.full_like(s, 0), s])
        a = np.concatenate([s2a, ra]).astype(f.code_dtype)
        b = np.concatenate([s2b, rb]).astype(f.code_dtype)
    a.setflags(write=False)
    b.setflags(write=False)
    return a, b


def unary_codes(name) -> np.ndarray:
    return R.all_codes(name)


def few_bit_codes(name, limit=8.0) -> np.ndarray:
    """Codes of finite values with <= 2 significant bits in [1/limit, limit]
    (both signs): products have <= 4 bits in [2**-6, 2**6], so sums of up to
    2**12 of them are exact in float32 (and in float64) in any order."""
    allc = unary_codes(name)
    v = decode(name, allc)
    ok = np.isfinite(v) & (np.abs(v) <= limit) & (np.abs(v) >= 1 / limit)
    m, _ = np.frexp(np.where(ok, v, 1.0))
    two_bits = np.ldexp(np.abs(m), 2) == np.round(np.ldexp(np.abs(m), 2))
    return allc[ok & two_bits]


# --------------------------------------------------------------------------
# Result container
# --------------------------------------------------------------------------


@dataclass
class Ref:
    """Expected outputs of one ufunc call.

    ``outs``: expected arrays (codes of the format, bools, or int32).
    ``kinds``: per output, "codes" | "bool" | "int".
    ``overflow``/``invalid``/``divide``: per-element flags NumPy should raise.
    ``maybe``: elements where an extra flag is acceptable (an infinite
    intermediate stored in a format without inf also reads as 'invalid').
    """

    outs: list
    kinds: list
    overflow: np.ndarray = None
    invalid: np.ndarray = None
    divide: np.ndarray = None
    maybe: np.ndarray = None
    nan_result: list = None  # per output: the exact result is a NaN
    extra: dict = field(default_factory=dict)

    def clean(self):
        """Elements for which no flag at all may be raised."""
        bad = np.zeros(self.outs[0].shape, dtype=bool)
        for a in (self.overflow, self.invalid, self.divide, self.maybe):
            if a is not None:
                bad |= a
        return ~bad


def compare_codes(name, got, exp, nan_result=None):
    """Boolean array: got matches exp.  NaN results compare as "both NaN".

    fp6/fp4 have no NaN: a NaN result is stored with the cast rule's bits,
    +NaN -> -0 and -NaN -> +0.  IEEE 754 leaves the sign of the NaN made by
    an invalid operation (0/0, log(-1), arcsin(2), ...) unspecified, and
    platforms and libms differ (x86's default NaN is negative, ARM's
    positive), so where the exact result is a NaN (``nan_result``) either
    of those two codes is accepted -- and nothing else.
    """
    got = np.asarray(got).astype(np.int64)
    exp = np.asarray(exp).astype(np.int64)
    ok = got == exp
    f = fmt(name)
    if f.has_nan:
        ok |= is_nan_code(name, got) & is_nan_code(name, exp)
    elif nan_result is not None:
        ok |= np.asarray(nan_result) & ((got == 0) | (got == f.sign_bit))
    return ok


def mismatch_report(name, ok, exp, got, operands, limit=10):
    bad = np.nonzero(~ok)[0]
    rows = []
    for i in bad[:limit]:
        ops = tuple(_fmt_operand(o, i) for o in operands)
        rows.append(f"{ops} expected {_fmt_val(exp[i])} got {_fmt_val(got[i])}")
    return f"{name}: {bad.size} of {ok.size} differ:\n  " + "\n  ".join(rows)


def _fmt_val(v):
    if isinstance(v, (np.bool_, bool)):
        return str(bool(v))
    return hex(int(v))


def _fmt_operand(o, i):
    v = o[i]
    if isinstance(v, (np.floating, float)):
        return repr(float(v))
    return hex(int(v))


# --------------------------------------------------------------------------
# mpmath evaluation near rounding boundaries
# --------------------------------------------------------------------------


def _snap(name, q: Fraction) -> Fraction:
    """q, or the midpoint of the format's grid it is within SNAP of."""
    if q == 0:
        return q
    f = fmt(name)
    a = abs(q)
    e = max(R.floor_log2(a), f.emin)
    quantum = Fraction(2) ** (e - f.mbits)
    y = a / quantum
    h = math.floor(y) + Fraction(1, 2)
    if abs(y - h) <= y * SNAP:
        a = h * quantum
    return a if q > 0 else -a


def encode_mpf(name, v, zero_sign_negative=False) -> int:
    """Code of the single rounding of the real number v (an mpf computed at
    MP_PREC bits), ties snapped (see _snap)."""
    if mpmath.isnan(v):
        raise AssertionError("NaN in mpmath path")
    if mpmath.isinf(v):
        return R.encode_code(name, R.NEG_INF if v < 0 else R.POS_INF)
    if v == 0:
        return R.encode_code(name, -0.0 if zero_sign_negative else 0.0)
    sign, man, exp, bc = v._mpf_
    top = exp + bc
    if top > 1100:
        q = Fraction(2) ** 1100
    elif top < -1100:
        q = Fraction(1, 2**1100)
    else:
        q = Fraction(man) * Fraction(2) ** exp
    q = _snap(name, q)
    return R.encode_code(name, -q if sign else q)


def _mp(x):
    return mpmath.mpf(float(x))


def _mp_power(x, y):
    if x < 0:
        yi = int(y)
        assert yi == y, "negative base with non-integer exponent reached mpmath"
        r = mpmath.power(-x, y)
        return -r if yi % 2 else r
    return mpmath.power(x, y)


def _mp_cbrt(x):
    return -mpmath.cbrt(-x) if x < 0 else mpmath.cbrt(x)


def _mp_logaddexp(a, b):
    m = max(a, b)
    return m + mpmath.log1p(mpmath.exp(-abs(a - b)))


def _mp_logaddexp2(a, b):
    m = max(a, b)
    return m + mpmath.log1p(mpmath.power(2, -abs(a - b))) / mpmath.log(2)


MP_FUNCS = {
    "power": _mp_power,
    "float_power": _mp_power,
    "arctan2": lambda y, x: mpmath.atan2(y, x),
    "hypot": lambda a, b: mpmath.hypot(a, b),
    "logaddexp": _mp_logaddexp,
    "logaddexp2": _mp_logaddexp2,
    "cbrt": _mp_cbrt,
    "exp": mpmath.exp,
    "exp2": lambda x: mpmath.power(2, x),
    "expm1": mpmath.expm1,
    "log": mpmath.log,
    "log2": lambda x: mpmath.log(x, 2),
    "log10": mpmath.log10,
    "log1p": mpmath.log1p,
    "sin": mpmath.sin,
    "cos": mpmath.cos,
    "tan": mpmath.tan,
    "arcsin": mpmath.asin,
    "arccos": mpmath.acos,
    "arctan": mpmath.atan,
    "sinh": mpmath.sinh,
    "cosh": mpmath.cosh,
    "tanh": mpmath.tanh,
    "arcsinh": mpmath.asinh,
    "arccosh": mpmath.acosh,
    "arctanh": mpmath.atanh,
    "deg2rad": lambda x: x * mpmath.pi / 180,
    "radians": lambda x: x * mpmath.pi / 180,
    "rad2deg": lambda x: x * 180 / mpmath.pi,
    "degrees": lambda x: x * 180 / mpmath.pi,
}


def round_transcendental(name, op, r, args):
    """Codes for float64 results r of ``op`` on the float64 operands args,
    recomputing with mpmath where float64 cannot decide (see module doc).
    Returns (codes, encode_flags, number_recomputed)."""
    codes, flags = encode(name, r)
    fin_in = np.ones(r.shape, dtype=bool)
    for a in args:
        fin_in &= np.isfinite(a)
    with np.errstate(all="ignore"):
        d = np.abs(r) * DELTA
        lo = encode_codes(name, r - d)
        hi = encode_codes(name, r + d)
    rf = np.isfinite(r) & (r != 0)
    unsure = rf & ((lo != codes) | (hi != codes))
    if not fmt(name).has_zero:
        unsure |= (r == 0) & fin_in
    idx = np.nonzero(unsure)[0]
    if idx.size:
        assert fin_in[idx].all(), (op, "undecided result with a non-finite operand")
        fn = MP_FUNCS[op]
        codes = codes.copy()
        flags = {k: np.array(fl, copy=True) for k, fl in flags.items()}
        with mpmath.workprec(MP_PREC):
            for i in idx:
                v = fn(*[_mp(a[i]) for a in args])
                if isinstance(v, mpmath.mpc):
                    raise AssertionError((op, [float(a[i]) for a in args], v))
                c = encode_mpf(name, v, zero_sign_negative=bool(np.signbit(r[i])))
                if r[i] != 0 and v != 0:
                    assert (v < 0) == (r[i] < 0), (op, [float(a[i]) for a in args])
                codes[i] = c
                if r[i] == 0:
                    # float64 underflowed: the exact value decides the store
                    # (a tiny positive is 2**-127 in float8_e8m0fnu, no flag)
                    flags["invalid"][i] = v == 0 and not fmt(name).has_zero
    return codes, flags, idx.size


# --------------------------------------------------------------------------
# Flags
# --------------------------------------------------------------------------


def _flags(name, r, args, enc_flags, pole=None, snan=None):
    """Per-element NumPy flags for a float64 result r computed from the
    float64 operands args, then stored (enc_flags) in the format.

    overflow: the format overflows (finite r) or float64 itself overflowed
              from finite operands (not at a pole);
    divide:   an exact infinite result from finite operands (a pole);
    invalid:  NaN from non-NaN operands, or an invalid store (zero into a
              format without zero, a negative value or -inf into an
              unsigned format);
    maybe:    an infinity stored into a format without inf (NaN or max), which
              may additionally read as 'invalid'.
    """
    f = fmt(name)
    fin_in = np.ones(r.shape, dtype=bool)
    nan_in = np.zeros(r.shape, dtype=bool)
    for a in args:
        fin_in &= np.isfinite(a)
        nan_in |= np.isnan(a)
    inf_r = np.isinf(r)
    if pole is None:
        pole = np.zeros(r.shape, dtype=bool)
    divide = inf_r & fin_in & pole
    overflow = (np.isfinite(r) & enc_flags["overflow"]) | (inf_r & fin_in & ~pole)
    invalid = (np.isnan(r) & ~nan_in) | (np.isfinite(r) & enc_flags["invalid"])
    if not f.signed:
        # -inf has no code in an unsigned format: its store is invalid (NaN),
        # as a negative finite value's is (log(0), negative(inf), 0 - inf)
        invalid = invalid | (inf_r & (r < 0))
    maybe = inf_r & (not f.has_inf)
    if snan is not None:
        maybe = maybe | snan
    return overflow, invalid, divide, maybe


# --------------------------------------------------------------------------
# Binary ufuncs
# --------------------------------------------------------------------------

ARITH_BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide",
                "remainder", "mod", "fmod", "copysign", "heaviside"]
TRANSC_BINARY = ["power", "arctan2", "hypot", "logaddexp", "logaddexp2"]
SELECT_BINARY = ["maximum", "minimum", "fmax", "fmin"]
COMPARE = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
LOGICAL_BINARY = ["logical_and", "logical_or", "logical_xor"]
# every binary ufunc returning one value of the format
BINARY_FORMAT_OPS = ARITH_BINARY + TRANSC_BINARY + SELECT_BINARY + ["nextafter"]
ALIASES = {"true_divide": "divide", "mod": "remainder"}


def _f64(op, a, b):
    with np.errstate(all="ignore"):
        return getattr(np, op)(a, b)


def _binary_pole(op, a, b):
    if op in ("divide", "floor_divide"):
        return b == 0
    if op == "power":
        return a == 0
    return None


@lru_cache(maxsize=None)
def expected_binary(name, op) -> Ref:
    """Expected result of ``np.<op>(a, b)`` on pair_codes(name)."""
    a, b = pair_codes(name)
    return expected_binary_on(name, op, a, b)


def expected_binary_on(name, op, ca, cb) -> Ref:
    op = ALIASES.get(op, op)
    f = fmt(name)
    a, b = decode(name, ca), decode(name, cb)
    if op in COMPARE:
        with np.errstate(all="ignore"):
            return Ref([getattr(np, op)(a, b)], ["bool"])
    if op in LOGICAL_BINARY:
        return Ref([getattr(np, op)(a != 0, b != 0)], ["bool"])
    if op in SELECT_BINARY:
        return _expected_select(name, op, ca, cb, a, b)
    if op == "nextafter":
        return _expected_nextafter(name, ca, cb, a, b)
    if op == "divmod":
        q = expected_binary_on(name, "floor_divide", ca, cb)
        m = expected_binary_on(name, "remainder", ca, cb)
        return Ref(q.outs + m.outs, ["codes", "codes"], q.overflow | m.overflow,
                   q.invalid | m.invalid, q.divide | m.divide, q.maybe | m.maybe,
                   nan_result=q.nan_result + m.nan_result)
    r = _f64(op, a, b)
    if op in TRANSC_BINARY:
        codes, flags, n = round_transcendental(name, op, r, (a, b))
    else:
        codes, flags = encode(name, r)
        n = 0
    snan = is_snan_code(name, ca) | is_snan_code(name, cb)
    ov, inv, div, maybe = _flags(name, r, (a, b), flags, _binary_pole(op, a, b), snan)
    ref = Ref([codes], ["codes"], ov, inv, div, maybe, nan_result=[np.isnan(r)])
    ref.extra["mpmath"] = n
    return ref


def _expected_select(name, op, ca, cb, a, b):
    """NumPy's float16 rules: maximum/minimum propagate NaN (the first one);
    fmax/fmin ignore a NaN; equal values (+0/-0) give the FIRST operand."""
    na, nb = np.isnan(a), np.isnan(b)
    with np.errstate(all="ignore"):
        if op == "maximum":
            first = na | (a >= b)
        elif op == "minimum":
            first = na | (a <= b)
        elif op == "fmax":
            first = nb | (a >= b)
        else:
            first = nb | (a <= b)
    out = np.where(first, ca, cb).astype(code_dtype(name))
    z = np.zeros(out.shape, dtype=bool)
    snan = is_snan_code(name, ca) | is_snan_code(name, cb)
    return Ref([out], ["codes"], z, z.copy(), z.copy(), snan)


@lru_cache(maxsize=None)
def step_tables(name):
    """(up, down, up_overflows, down_overflows): the code of the next value
    above / below each code in the format's own value order.

    Zeros: up from +-0 is +min_subnormal, down is -min_subnormal; stepping
    onto zero keeps the sign of the value stepped from (-min_sub up -> -0,
    as NumPy's float16).  Infinities step to +-max.  Stepping past the largest
    finite value gives the format's overflow result (inf, NaN, or max for
    fp6/fp4).  NaN codes map to themselves.
    """
    f = fmt(name)
    codes = np.arange(f.ncodes, dtype=np.int64)
    v = decode(name, codes)
    fin = np.isfinite(v)
    uniq = np.unique(v[fin])  # sorted; 0 appears once (-0.0 == 0.0)
    n = uniq.size
    pos = np.searchsorted(uniq, np.where(fin, v, 0.0))
    up = np.full(f.ncodes, -1, dtype=np.int64)
    down = np.full(f.ncodes, -1, dtype=np.int64)
    up_ov = np.zeros(f.ncodes, dtype=bool)
    down_ov = np.zeros(f.ncodes, dtype=bool)
    iu = pos + 1
    idn = pos - 1
    with np.errstate(all="ignore"):
        vu = uniq[np.clip(iu, 0, n - 1)]
        vd = uniq[np.clip(idn, 0, n - 1)]
    # zero results keep the sign of the value stepped from
    neg = np.signbit(v)
    vu = np.where(vu == 0, np.where(neg, -0.0, 0.0), vu)
    vd = np.where(vd == 0, np.where(neg, -0.0, 0.0), vd)
    cu = encode_codes(name, vu).astype(np.int64)
    cd = encode_codes(name, vd).astype(np.int64)
    up[fin] = cu[fin]
    down[fin] = cd[fin]
    top = fin & (iu >= n)
    bot = fin & (idn < 0)
    up[top] = R.overflow_code(f, False)
    up_ov[top] = True
    if not f.signed:
        down[bot] = codes[bot]  # nothing below the lowest value (never reached by nextafter)
    else:
        down[bot] = R.overflow_code(f, True)
        down_ov[bot] = True
    isn = np.isnan(v)
    up[isn] = codes[isn]
    down[isn] = codes[isn]
    if f.has_inf:
        pinf = f.inf_code()
        up[pinf], down[pinf] = pinf, f.max_code()
        if f.signed:  # (an unsigned format has +inf only)
            ninf = f.inf_code(True)
            up[ninf], down[ninf] = f.max_code(True), ninf
    assert (up >= 0).all() and (down >= 0).all()
    return up, down, up_ov, down_ov


def _expected_nextafter(name, ca, cb, a, b):
    up, down, up_ov, down_ov = step_tables(name)
    ia, ib = ca.astype(np.int64), cb.astype(np.int64)
    nan = np.isnan(a) | np.isnan(b)
    with np.errstate(all="ignore"):
        eq = a == b
        go_up = b > a
    res = np.where(go_up, up[ia], down[ia])
    ov = np.where(go_up, up_ov[ia], down_ov[ia]) & ~eq & ~nan
    res = np.where(eq, ia, res)
    f = fmt(name)
    nan_code = f.nan_code() if f.has_nan else 0
    res = np.where(nan, np.where(np.isnan(a), ia, np.where(np.isnan(b), ib, nan_code)), res)
    z = np.zeros(res.shape, dtype=bool)
    snan = is_snan_code(name, ca) | is_snan_code(name, cb)
    return Ref([res.astype(code_dtype(name))], ["codes"], ov, z, z.copy(),
               (ov & (not f.has_inf)) | snan)


# --------------------------------------------------------------------------
# Unary ufuncs
# --------------------------------------------------------------------------

EXACT_UNARY = ["negative", "positive", "absolute", "fabs", "sign", "reciprocal", "square",
               "sqrt", "conjugate", "rint", "floor", "ceil", "trunc"]
TRANSC_UNARY = ["cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos",
                "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
                "arccosh", "arctanh", "deg2rad", "rad2deg", "degrees", "radians"]
BOOL_UNARY = ["logical_not", "isfinite", "isinf", "isnan", "signbit"]
UNARY_FORMAT_OPS = EXACT_UNARY + TRANSC_UNARY + ["spacing"]


def _unary_pole(op, x):
    if op in ("reciprocal", "log", "log2", "log10"):
        return x == 0
    if op == "log1p":
        return x == -1
    if op == "arctanh":
        return np.abs(x) == 1
    return None


@lru_cache(maxsize=None)
def expected_unary(name, op) -> Ref:
    """Expected result of ``np.<op>(x)`` on every code of the format."""
    c = unary_codes(name)
    x = decode(name, c)
    f = fmt(name)
    sn = is_snan_code(name, c)
    if op in BOOL_UNARY:
        if op == "logical_not":
            return Ref([x == 0], ["bool"])
        return Ref([getattr(np, op)(x)], ["bool"])
    if op == "modf":
        with np.errstate(all="ignore"):
            fr, it = np.modf(x)
        c1, f1 = encode(name, fr)
        c2, f2 = encode(name, it)
        o1, i1, d1, m1 = _flags(name, fr, (x,), f1, snan=sn)
        o2, i2, d2, m2 = _flags(name, it, (x,), f2, snan=sn)
        return Ref([c1, c2], ["codes", "codes"], o1 | o2, i1 | i2, d1 | d2, m1 | m2,
                   nan_result=[np.isnan(fr), np.isnan(it)])
    if op == "frexp":
        m, e = np.frexp(x)
        cm, fl = encode(name, m)
        o, i, d, mb = _flags(name, m, (x,), fl, snan=sn)
        return Ref([cm, e.astype(np.int32)], ["codes", "int"], o, i, d, mb,
                   nan_result=[np.isnan(m), None])
    if op == "spacing":
        up, down, up_ov, down_ov = step_tables(name)
        ic = c.astype(np.int64)
        away_up = ~np.signbit(x)
        nxt = np.where(away_up, up[ic], down[ic])
        ov = np.where(away_up, up_ov[ic], down_ov[ic])
        with np.errstate(all="ignore"):
            r = decode(name, nxt) - x
        codes, fl = encode(name, r)
        o, i, d, mb = _flags(name, r, (x,), fl, snan=sn)
        # spacing(inf) is NaN ('invalid' as float64's); stepping off the top
        # overflows
        # (a NaN that is the overflow result of the step is not 'invalid')
        return Ref([codes], ["codes"], o | ov, i & ~ov, d, mb | (ov & (not f.has_inf)),
                   nan_result=[np.isnan(r)])
    with np.errstate(all="ignore"):
        r = getattr(np, op)(x)
    if op in TRANSC_UNARY:
        codes, fl, n = round_transcendental(name, op, r, (x,))
    else:
        codes, fl = encode(name, r)
        n = 0
    o, i, d, mb = _flags(name, r, (x,), fl, _unary_pole(op, x), sn)
    ref = Ref([codes], ["codes"], o, i, d, mb, nan_result=[np.isnan(r)])
    ref.extra["mpmath"] = n
    return ref


def expected_ldexp(name, ca, n) -> Ref:
    """ldexp(x, n): exact x * 2**n rounded once.  Clamping n to +-400 cannot
    change the result (every format's values lie in [2**-133, 2**128], so
    x * 2**400 overflows all and x * 2**-400 is below half of every smallest
    value) and keeps the float64 product exact."""
    x = decode(name, ca)
    nn = np.clip(np.asarray(n).astype(np.int64), -400, 400)
    r = np.ldexp(x, nn)
    codes, fl = encode(name, r)
    o, i, d, mb = _flags(name, r, (x,), fl, snan=is_snan_code(name, ca))
    return Ref([codes], ["codes"], o, i, d, mb, nan_result=[np.isnan(r)])


def expected_clip(name, cx, clo, chi) -> Ref:
    """np.clip(x, lo, hi) with NumPy's float16 rules: NaN in any operand
    propagates; MAX(x, lo) keeps x when x >= lo, then MIN(m, hi) keeps m
    when m <= hi (so for equal values, e.g. -0 vs +0, x survives)."""
    x, lo, hi = decode(name, cx), decode(name, clo), decode(name, chi)
    with np.errstate(all="ignore"):
        keep_x = np.isnan(x) | (x >= lo)
        m = np.where(keep_x, cx, clo)
        mv = np.where(keep_x, x, lo)
        keep_m = np.isnan(mv) | (mv <= hi)
        out = np.where(keep_m, m, chi)
    return Ref([out.astype(code_dtype(name))], ["codes"])


# --------------------------------------------------------------------------
# Float32-accumulated reductions
# --------------------------------------------------------------------------


def round_f32(name, x32):
    """Codes of the single rounding of float32 values (exact via float64)."""
    return encode_codes(name, np.asarray(x32, dtype=np.float32).astype(np.float64))


def f32_sum_bounds(values64):
    """[lo, hi] enclosing any float32 summation order of the exact values:
    |computed - exact| <= (n-1) * u * sum|x_i| (+ u per rounding slack),
    u = 2**-24 (Higham, Accuracy and Stability, eq. 4.4 with gamma_{n-1})."""
    v = np.asarray(values64, dtype=np.float64)
    exact = math.fsum(v.tolist())
    n = v.size
    u = 2.0**-24
    g = (n * u) / (1 - n * u) if n * u < 1 else math.inf
    err = g * math.fsum(np.abs(v).tolist())
    return exact, exact - err * (1 + 2**-40), exact + err * (1 + 2**-40)


def acceptable_sum_codes(name, values64):
    """Set of codes the float32-accumulated, once-rounded sum may have."""
    exact, lo, hi = f32_sum_bounds(values64)
    c_lo = int(encode_codes(name, np.array([lo]))[0])
    c_hi = int(encode_codes(name, np.array([hi]))[0])
    v_lo, v_hi = decode(name, [c_lo])[0], decode(name, [c_hi])[0]
    f = fmt(name)
    allc = np.arange(f.ncodes)
    vals = decode(name, allc)
    with np.errstate(all="ignore"):
        sel = (vals >= v_lo) & (vals <= v_hi)
    out = set(int(c) for c in allc[sel])
    out |= {c_lo, c_hi}
    return exact, out
