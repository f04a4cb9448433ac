"""Exact reference for rounding modes (``mf.cast``), bit packing
(``mf.pack`` / ``mf.unpack``) and block scaling (``mf.mx``).

Like ``reference.py`` this module never imports ``minifloat``.  It is written
from the specification of those features; the format facts come from the
format descriptions of ``reference.py`` (every rule below reads their
fields).

Layers
------
* ``cast_exact``: one value, exact (``fractions.Fraction``), every rounding
  mode.  Slow and plainly correct.
* ``cast_array``: the same rule vectorized over a float16/32/64 array.  Every
  float64 step is exact (same argument as ``reference.encode_array``; the
  extra steps are ``floor`` and a subtraction of the integer part, both exact
  on a float64 below 2**53).  The tests cross-check it against ``cast_exact``.
* ``pack_codes`` / ``unpack_codes``: the byte layouts, written bit by bit.
* ``mx_quantize``: OCP MX / NVFP4 block quantization on Fractions.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

import reference as R

MODES = ("nearest_even", "nearest_away", "toward_zero", "up", "down", "stochastic")
DETERMINISTIC = MODES[:-1]
ALIASES = {"nearest": "nearest_even"}
TWO64 = 1 << 64
_2 = Fraction(2)


def canon_mode(rounding: str) -> str:
    return ALIASES.get(rounding, rounding)


# --------------------------------------------------------------------------
# Rounding modes, exact scalar layer
# --------------------------------------------------------------------------


def stochastic_threshold(frac: Fraction) -> int:
    """floor(f * 2**64): a draw below it rounds away from zero."""
    return math.floor(frac * TWO64)


def rounds_toward_zero(rounding: str, neg: bool) -> bool:
    """Does this directed mode round a value of this sign toward zero?"""
    return rounding == "toward_zero" or (rounding == "down" and not neg) or (
        rounding == "up" and neg
    )


def _away(rounding, frac, neg, lo_is_odd, draw):
    """Decide between the lower (False) and upper (True) magnitude
    neighbour; frac in (0, 1) is the exact position inside the gap and
    lo_is_odd the parity of the lower neighbour's significand (ties go to
    the even one: with a 1-bit significand, to the larger power of two)."""
    half = Fraction(1, 2)
    if rounding == "nearest_even":
        return frac > half or (frac == half and lo_is_odd)
    if rounding == "nearest_away":
        return frac >= half
    if rounding == "toward_zero":
        return False
    if rounding == "up":
        return not neg
    if rounding == "down":
        return neg
    if rounding == "stochastic":
        if draw is None:
            raise ValueError("stochastic rounding needs a draw")
        return int(draw) < stochastic_threshold(frac)
    raise ValueError(rounding)


def magnitude_neighbours(fmt, q: Fraction):
    """(mag_lo, frac, significand_lo) for q > 0: the magnitude field of the
    lower neighbour on the format's grid with an unbounded exponent, the
    exact fraction of the gap to the upper neighbour (whose magnitude field
    is mag_lo + 1) and the lower neighbour's integer significand. Without
    subnormals: q >= 2**emin only (below it every mode gives the smallest
    value)."""
    fmt = R.fmt_of(fmt)
    M = fmt.mbits
    if not fmt.subnormals:
        e = R.floor_log2(q)
        assert e >= fmt.emin
        y = q / _2 ** (e - M)
        lo = math.floor(y)
        return (e - fmt.emin) * (1 << M) + lo - (1 << M), y - lo, lo
    e = max(R.floor_log2(q), fmt.emin)
    y = q / _2 ** (e - M)
    lo = math.floor(y)
    return (e - fmt.emin) * (1 << M) + lo, y - lo, lo


def cast_exact(fmt, value, rounding="nearest_even", saturate=False, draw=None):
    """Round ``value`` once into ``fmt`` with the given rounding mode.

    Returns ``(code, overflow)``; ``overflow`` is the IEEE condition (the
    result rounded with an unbounded exponent exceeds max in magnitude), i.e.
    whether the FP overflow flag is raised when ``saturate`` is False.
    ``value``: anything ``reference._classify`` accepts (Fraction, int, float,
    numpy scalars including longdouble, the NaN/inf markers).
    """
    fmt = R.fmt_of(fmt)
    rounding = canon_mode(rounding)
    if rounding not in MODES:
        raise ValueError(rounding)
    kind, neg, q = R._classify(value)

    if kind == "nan":
        return R.encode(fmt, R.NEG_NAN if neg else R.NAN)[0], False

    def rounded(q):
        """(magnitude code, rounded away from the lower neighbour)."""
        if not fmt.subnormals and q < _2**fmt.emin:
            return 0  # below the smallest value of a format without zero: it
        mag_lo, frac, lo = magnitude_neighbours(fmt, q)
        return mag_lo + (frac != 0 and _away(rounding, frac, neg, lo & 1, draw))

    if neg and not fmt.signed:  # no negative values: invalid unless it rounds to zero
        if kind == "finite" and fmt.has_zero and (q == 0 or rounded(q) == 0):
            return 0, False
        return fmt.invalid_code, False
    if kind == "finite" and q == 0 and not fmt.has_zero:
        return fmt.invalid_code, False
    if kind == "inf":
        if saturate:
            return fmt.max_code(neg), False
        return R.encode(fmt, R.NEG_INF if neg else R.POS_INF)[0], False

    if q == 0:
        return fmt.zero_code(neg), False
    mag = rounded(q)
    if mag > fmt.max_mag_code:
        if saturate or rounds_toward_zero(rounding, neg):
            return fmt.max_code(neg), True
        return fmt.overflow_code(neg), True
    if mag == 0 and fmt.has_zero:
        return fmt.zero_code(neg), False
    return mag | (fmt.sign_bit if neg else 0), False


# --------------------------------------------------------------------------
# Rounding modes, vectorized layer (float16/32/64 sources)
# --------------------------------------------------------------------------


def _threshold_u64(frac):
    """floor(frac * 2**64) as uint64, exactly, for a float64 array frac in
    [0, 1): split at 2**32 so no float->uint64 conversion above 2**53."""
    a = np.ldexp(frac, 32)
    hi = np.floor(a)
    lo = np.floor(np.ldexp(a - hi, 32))  # a - hi exact (drops integer bits)
    return (hi.astype(np.uint64) << np.uint64(32)) | lo.astype(np.uint64)


def cast_array(fmt, x, rounding="nearest_even", saturate=False, draws=None):
    """Vectorized ``cast_exact`` for a float16/float32/float64 array.

    Returns ``(codes, overflow)`` with the shape of x.  ``draws`` (uint64,
    one per element in C order) is needed for "stochastic".
    """
    fmt = R.fmt_of(fmt)
    rounding = canon_mode(rounding)
    if rounding not in MODES:
        raise ValueError(rounding)
    x = np.asarray(x)
    if x.dtype not in (np.float16, np.float32, np.float64):
        raise TypeError(x.dtype)
    shape = x.shape
    x = x.reshape(-1)
    neg = np.signbit(x)
    with np.errstate(invalid="ignore"):
        a = np.abs(x.astype(np.float64))
    isnan = np.isnan(a)
    isinf = np.isinf(a)
    fin = ~(isnan | isinf)
    a = np.where(fin, a, 1.0)  # placeholder for specials (masked below)
    zero = fin & (a == 0.0)
    a = np.where(zero, 1.0, a)
    _, ex = np.frexp(a)
    e = ex.astype(np.int64) - 1  # floor(log2(a)) exactly
    M = fmt.mbits
    if fmt.subnormals:
        below = np.zeros(x.shape, bool)
        ep = np.maximum(e, fmt.emin)
        y = np.ldexp(a, M - ep)  # exact (see reference.encode_array step 4)
        lo = np.floor(y)
        mag_lo = (ep - fmt.emin) * (1 << M) + lo.astype(np.int64)
    else:
        below = e < fmt.emin  # below the smallest value: it, in every mode
        k = np.where(below, fmt.emin, e)
        y = np.ldexp(a, M - k)  # exact: power-of-two scaling to [2**M, 2**(M+1))
        lo = np.floor(y)
        mag_lo = (k - fmt.emin) * (1 << M) + lo.astype(np.int64) - (1 << M)
    frac = y - lo  # exact: y < 2**17, the integer part is removed
    inexact = (frac != 0) & ~below
    if rounding == "nearest_even":
        away = (frac > 0.5) | ((frac == 0.5) & (lo.astype(np.int64) & 1 == 1))
    elif rounding == "nearest_away":
        away = frac >= 0.5
    elif rounding == "toward_zero":
        away = np.zeros(x.shape, bool)
    elif rounding == "up":
        away = ~neg
    elif rounding == "down":
        away = neg.copy()
    else:
        if draws is None:
            raise ValueError("stochastic rounding needs draws")
        draws = np.asarray(draws, dtype=np.uint64).reshape(-1)
        assert draws.shape == x.shape
        away = draws < _threshold_u64(frac)
    mag = np.where(below, 0, mag_lo + (inexact & away))
    if rounding == "toward_zero":
        tz = np.ones(x.shape, bool)
    elif rounding == "down":
        tz = ~neg
    elif rounding == "up":
        tz = neg.copy()
    else:
        tz = np.zeros(x.shape, bool)

    # values the format has no code for (NaN inputs are set last)
    bad = np.zeros(x.shape, bool)
    if not fmt.signed:
        bad |= neg & (isinf | (fin & (~zero & ((mag != 0) | (not fmt.has_zero)))))
        bad |= neg & zero & (not fmt.has_zero)
    if not fmt.has_zero:
        bad |= zero
    over = fin & ~zero & (mag > fmt.max_mag_code) & ~bad

    sbit = np.where(neg, fmt.sign_bit, 0)
    codes = np.minimum(mag, fmt.max_mag_code) | sbit
    if fmt.has_zero:
        zero_code = sbit if fmt.has_neg_zero else np.zeros_like(sbit)
        codes = np.where(fin & (zero | (mag == 0)), zero_code, codes)
    sat_code = fmt.max_mag_code | sbit
    default_over = np.where(neg, fmt.overflow_code(True), fmt.overflow_code(False))
    codes = np.where(over, np.where(saturate | tz, sat_code, default_over), codes)
    # infinities: exact, never "overflow"; saturate gives +-max
    if saturate:
        inf_code = sat_code
    else:
        inf_code = np.where(neg, R.encode(fmt, R.NEG_INF)[0], R.encode(fmt, R.POS_INF)[0])
    codes = np.where(isinf, inf_code, codes)
    codes = np.where(bad, fmt.invalid_code, codes)
    # NaN: as the default cast, in every mode
    nan_code = np.where(neg, R.encode(fmt, R.NEG_NAN)[0], R.encode(fmt, R.NAN)[0])
    codes = np.where(isnan, nan_code, codes)
    return codes.astype(fmt.code_dtype).reshape(shape), over.reshape(shape)


# --------------------------------------------------------------------------
# Packing
# --------------------------------------------------------------------------


def packed_size(bits: int, n: int) -> int:
    return (bits * n + 7) // 8


def pack_codes(codes, bits: int) -> bytes:
    """Little bit-endian stream: element i occupies bits [i*bits, (i+1)*bits)
    of the little-endian integer formed by the bytes (the DLPack rule; for
    fp4 the first value is the low nibble, for fp6 the 24-bit word
    v0 | v1<<6 | v2<<12 | v3<<18 stored low byte first).  For 8/16-bit
    formats this is the raw little-endian bytes."""
    codes = [int(c) & ((1 << bits) - 1) for c in np.asarray(codes).reshape(-1)]
    acc = 0
    for i, c in enumerate(codes):
        acc |= c << (i * bits)
    return acc.to_bytes(packed_size(bits, len(codes)), "little")


def unpack_codes(buf: bytes, bits: int, n: int):
    acc = int.from_bytes(bytes(buf), "little")
    m = (1 << bits) - 1
    return [(acc >> (i * bits)) & m for i in range(n)]


# --------------------------------------------------------------------------
# Microscaling (OCP MX v1.0 section 6.3) and NVFP4
# --------------------------------------------------------------------------

#: fmt -> (element format name or "int8", emax_elem, max element, significand bits)
MX_FORMATS = {
    "mxfp8_e4m3": ("float8_e4m3fn", 8, Fraction(448), 4),
    "mxfp8_e5m2": ("float8_e5m2", 15, Fraction(57344), 3),
    "mxfp6_e3m2": ("float6_e3m2fn", 4, Fraction(28), 3),
    "mxfp6_e2m3": ("float6_e2m3fn", 2, Fraction(15, 2), 4),
    "mxfp4_e2m1": ("float4_e2m1fn", 2, Fraction(6), 2),
    "mxint8": ("int8", 0, Fraction(127, 64), 7),
}
ALL_FMTS = tuple(MX_FORMATS) + ("nvfp4",)
SCALE_MODES = ("floor", "ceil", "even", "rceil")
#: marker in mx_quantize()["data"]: "a zero of either sign" (nvfp4 blocks
#: whose scale decodes to 0: the sign of those zeros is not specified)
ANY_ZERO = -1000
#: element NaN code for NaN/inf blocks (0 where the element type has no NaN)
MX_NAN_ELEM = {
    "mxfp8_e4m3": 0x7F,
    "mxfp8_e5m2": 0x7E,
    "mxfp6_e3m2": 0,
    "mxfp6_e2m3": 0,
    "mxfp4_e2m1": 0,
    "mxint8": 0,
}
NV_MAX_ELEM = Fraction(6)
NV_MAX_SCALE = Fraction(448)


def _check_table():
    for name, (elem, emax, mx, p) in MX_FORMATS.items():
        assert R.floor_log2(mx) == emax, name
        if elem != "int8":
            f = R.FORMATS[elem]
            assert R.finfo_expected(elem)["max"] == mx, name
            assert p == f.mbits + 1, name


_check_table()


def frac_of(v) -> Fraction:
    return Fraction(*v.as_integer_ratio())


def ceil_log2(q: Fraction) -> int:
    k = R.floor_log2(q)
    return k if q == _2**k else k + 1


def round_to_bits(q: Fraction, p: int) -> Fraction:
    """q > 0 rounded to nearest even with p significant bits (no exponent
    limits)."""
    k = R.floor_log2(q)
    unit = _2 ** (k - p + 1)
    return R.round_half_even(q / unit) * unit


def round_to_float32(q: Fraction) -> Fraction:
    """q >= 0 rounded to nearest even into float32 (finite range only)."""
    if q == 0:
        return Fraction(0)
    k = max(R.floor_log2(q), -126)
    unit = _2 ** (k - 23)
    r = R.round_half_even(q / unit) * unit
    assert r <= frac_of(np.finfo(np.float32).max)
    return r


def shared_exponent(amax: Fraction, emax: int, max_elem: Fraction, p: int, mode: str) -> int:
    """Unclamped shared exponent E for a block with 0 < amax < inf."""
    if mode == "floor":
        return R.floor_log2(amax) - emax
    if mode == "ceil":
        return ceil_log2(amax) - emax
    if mode == "even":
        return R.floor_log2(round_to_bits(amax, p)) - emax
    if mode == "rceil":
        return ceil_log2(amax / max_elem)
    raise ValueError(mode)


def _zero_elem(elem, v):
    neg = bool(np.signbit(v))
    if elem == "int8":
        return 0
    return R.FORMATS[elem].zero_code(neg)


def mx_block(fmt: str, vals, scale_mode: str = "floor"):
    """One MX block.  vals: float32 values.  Returns (elem codes / int8
    values, scale code, dequantized values as Fraction or nan)."""
    elem, emax, max_elem, p = MX_FORMATS[fmt]
    vals = [np.float32(v) for v in vals]
    if any(not np.isfinite(v) for v in vals):
        return [MX_NAN_ELEM[fmt]] * len(vals), 0xFF, [math.nan] * len(vals)
    amax = max(abs(frac_of(v)) for v in vals)
    if amax == 0:
        return [_zero_elem(elem, v) for v in vals], 0x00, [Fraction(0)] * len(vals)
    E = shared_exponent(amax, emax, max_elem, p, scale_mode)
    E = min(max(E, -127), 127)
    X = _2**E
    out, deq = [], []
    for v in vals:
        q = frac_of(v) / X
        if elem == "int8":
            P = min(max(R.round_half_even(q * 64), -127), 127)
            out.append(P)
            deq.append(Fraction(P, 64) * X)
            continue
        if q == 0:
            code = _zero_elem(elem, v)
        else:
            code = R.encode(elem, q, saturate=True)[0]
        out.append(code)
        d = R.decode(elem, code)
        deq.append(Fraction(0) if d == R.NEG_ZERO else d * X)
    return out, E + 127, deq


def nv_tensor_scale(x32, tensor_scale):
    """(t as Fraction, value expected in .tensor_scale)."""
    if tensor_scale is None:
        return Fraction(1), None
    if isinstance(tensor_scale, str):
        assert tensor_scale == "auto"
        finite = (v for v in np.asarray(x32).reshape(-1) if np.isfinite(v))  # NaN/inf blocks: NaN scale
        amax = max((abs(frac_of(v)) for v in finite), default=Fraction(0))
        if amax == 0:
            return Fraction(1), 1.0
        t = round_to_float32(amax / (NV_MAX_ELEM * NV_MAX_SCALE))
        return t, float(t)
    t = frac_of(np.float32(tensor_scale))
    return t, float(t)


def nv_block(vals, t: Fraction):
    """One NVFP4 block (float32 values) with tensor scale t."""
    vals = [np.float32(v) for v in vals]
    if any(not np.isfinite(v) for v in vals):
        return [0] * len(vals), 0x7F, [math.nan] * len(vals)
    amax = max(abs(frac_of(v)) for v in vals)
    s_code = R.encode("float8_e4m3fn", amax / (NV_MAX_ELEM * t), saturate=True)[0]
    s = R.decode("float8_e4m3fn", s_code)
    assert isinstance(s, Fraction) and s >= 0
    out, deq = [], []
    for v in vals:
        if s == 0:
            out.append(None)  # "0": the sign of that zero is not specified
            deq.append(Fraction(0))
            continue
        q = frac_of(v) / (s * t)
        code = _zero_elem("float4_e2m1fn", v) if q == 0 else R.encode(
            "float4_e2m1fn", q, saturate=True)[0]
        out.append(code)
        d = R.decode("float4_e2m1fn", code)
        deq.append(Fraction(0) if d == R.NEG_ZERO else d * s * t)
    return out, s_code, deq


def mx_quantize(x, fmt, axis=-1, block_size=None, scale_mode="floor", tensor_scale=None):
    """Reference quantization.  Returns a dict with
    data (int64 codes / int8 values, x's shape; ANY_ZERO where +0 or -0),
    scales (int64 codes), deq (float64, exact), tensor_scale, axis, block_size.
    """
    with np.errstate(over="ignore"):
        x32 = np.asarray(x).astype(np.float32)  # round to nearest even
    if x32.ndim == 0:
        raise ValueError("needs at least one dimension")
    ax = axis % x32.ndim
    if block_size is None:
        block_size = 16 if fmt == "nvfp4" else 32
    moved = np.moveaxis(x32, ax, -1)
    n = moved.shape[-1]
    nb = -(-n // block_size)
    lead = moved.shape[:-1]
    data = np.zeros(moved.shape, dtype=np.int64)
    deq = np.zeros(moved.shape, dtype=np.float64)
    scales = np.zeros(lead + (nb,), dtype=np.int64)
    if fmt == "nvfp4":
        t, t_attr = nv_tensor_scale(x32, tensor_scale)
    else:
        t_attr = None
    for idx in np.ndindex(*lead):
        row = moved[idx]
        for b in range(nb):
            sl = slice(b * block_size, min((b + 1) * block_size, n))
            if fmt == "nvfp4":
                codes, sc, dq = nv_block(row[sl], t)
                codes = [ANY_ZERO if c is None else c for c in codes]
            else:
                codes, sc, dq = mx_block(fmt, row[sl], scale_mode)
            data[idx + (sl,)] = codes
            deq[idx + (sl,)] = [float(d) for d in dq]
            scales[idx + (b,)] = sc
    return dict(
        data=np.moveaxis(data, -1, ax),
        scales=np.moveaxis(scales, -1, ax),
        deq=np.moveaxis(deq, -1, ax),
        tensor_scale=t_attr,
        axis=ax,
        block_size=block_size,
    )


# Stochastic rounding's draws (the rule mf.cast documents), written out here
# independently: the key K is one random_raw() value of the generator; the
# generator is ARS-5 (Salmon et al., SC'11): block B_j = five AES rounds
# (FIPS-197; the last without MixColumns) of the 128-bit counter j xored
# with k_0, round r adding key k_r, where k_r = (K + r * WEYL_LOW,
# r * WEYL_HIGH) as (low, high) 64-bit halves mod 2**64. Element i's 32-bit
# draw is word i % 4 (little-endian) of B_{i // 4}; element i rounds away
# from zero iff draw < floor(f * 2**32). The AES round is built from its
# definition below, vectorized over blocks with NumPy.
ARS_ROUNDS = 5
WEYL_LOW, WEYL_HIGH = 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B
MASK64 = (1 << 64) - 1


def _xtime(a):
    """a * x in GF(2**8) mod x**8 + x**4 + x**3 + x + 1 (ints or uint8 arrays)."""
    return ((a << 1) ^ np.where(a & 0x80, 0x1B, 0)) & 0xFF


def _gf_mul(a, b):
    p = 0
    for _ in range(8):
        if b & 1:
            p ^= a
        a, b = int(_xtime(a)), b >> 1
    return p


def _make_sbox():
    """SubBytes: the inverse in GF(2**8) (0 -> 0), then the affine map."""
    inverse = [0] * 256
    for x in range(1, 256):
        inverse[x] = next(y for y in range(1, 256) if _gf_mul(x, y) == 1)
    rot = lambda b, s: ((b << s) | (b >> (8 - s))) & 0xFF  # noqa: E731
    return np.array([b ^ rot(b, 1) ^ rot(b, 2) ^ rot(b, 3) ^ rot(b, 4) ^ 0x63 for b in inverse], np.uint8)


SBOX = _make_sbox()
# state byte r + 4c is row r, column c; ShiftRows moves row r left by r:
# new[r + 4c] = old[r + 4((c + r) % 4)]
SHIFT_ROWS = np.array([r + 4 * ((c + r) % 4) for c in range(4) for r in range(4)])


def aes_round(state, round_key, last=False):
    """One AES encryption round on (n, 16) uint8 states: SubBytes,
    ShiftRows, MixColumns (unless last), AddRoundKey (16 key bytes)."""
    s = SBOX[state][:, SHIFT_ROWS].astype(np.int64)
    if not last:
        cols = s.reshape(-1, 4, 4)  # [block, column, row]
        a0, a1, a2, a3 = (cols[:, :, r] for r in range(4))
        t = a0 ^ a1 ^ a2 ^ a3  # b_r = a_r ^ t ^ xtime(a_r ^ a_{r+1})
        mixed = [a ^ t ^ _xtime(a ^ b) for a, b in ((a0, a1), (a1, a2), (a2, a3), (a3, a0))]
        s = np.stack(mixed, axis=-1).reshape(-1, 16)
    return (s ^ round_key).astype(np.uint8)


def _le_bytes(low, high):
    return np.frombuffer((low | (high << 64)).to_bytes(16, "little"), np.uint8).astype(np.int64)


def ars5_blocks(key, first_block, count):
    """B_first .. B_{first+count-1} of ARS-5 with the 64-bit key, (count, 16) uint8."""
    keys = [_le_bytes((key + r * WEYL_LOW) & MASK64, (r * WEYL_HIGH) & MASK64) for r in range(ARS_ROUNDS + 1)]
    j = np.arange(first_block, first_block + count, dtype=np.uint64)
    counters = np.zeros((count, 16), np.uint8)
    counters[:, :8] = j.astype("<u8").view(np.uint8).reshape(count, 8)
    state = (counters ^ keys[0]).astype(np.uint8)
    for r in range(1, ARS_ROUNDS + 1):
        state = aes_round(state, keys[r], last=r == ARS_ROUNDS)
    return state


def draws32_from_key(key, n, first=0):
    """The 32-bit draws d_first .. d_{first+n-1} of the key (uint64 array)."""
    if n == 0:
        return np.zeros(0, np.uint64)
    b0 = first // 4
    blocks = ars5_blocks(key, b0, (first + n + 3) // 4 - b0)
    words = np.ascontiguousarray(blocks).view("<u4").reshape(-1).astype(np.uint64)
    return words[first - 4 * b0:first - 4 * b0 + n]


def draws32_for(seed, n):
    """The 32-bit draws d_0 .. d_{n-1} of mf.cast(..., rng=seed)."""
    return draws32_from_key(int(np.random.default_rng(seed).bit_generator.random_raw()), n)


def draws_for(seed, n):
    """The draws in the reference's 64-bit form (up iff draw < floor(f * 2**64)):
    d * 2**32 + 2**32 - 1 is below floor(f * 2**64) exactly when
    d < floor(f * 2**32)."""
    return (draws32_for(seed, n) << np.uint64(32)) | np.uint64(0xFFFFFFFF)
