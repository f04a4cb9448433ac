"""Array printing for the formats: NumPy's float layout, the scalars' digits.

NumPy prints any np.floating subclass with its float formatter, which takes
each value's digits from Dragon4 on the value as a float64 (bfloat16's 0.1
would print as 0.10009766) and picks scientific notation from
10**finfo(dtype).precision up (float8_e4m3fn's precision is 1, so 448, 192
and 0.1015625 printed as 4.5e+02, 2.0e+02, 1.0e-01).

The formatter here follows the same layout rules as NumPy's float formatter
(positional or scientific, floatmode, precision, suppress, sign, legacy,
nanstr/infstr) but takes each value's shortest digits from the scalar's
str(), the text C++ makes for str/repr and astype(str): one source of
digits. Where precision cuts digits off, or an equal-width layout adds some,
the exact value is rounded half to even, as Dragon4 does.

Formats of 8 bits or fewer print their exact values: every such value is a
float32, their str() is float32's shortest repr, and the layout thresholds
are float32's, so an array prints exactly as NumPy prints the same values
in float32. bfloat16 prints the shortest decimal that reads back in bfloat16,
with its own finfo, as NumPy prints float16.

A user ``formatter`` for floats wins, as it does for NumPy's types.
"""
import math
from decimal import ROUND_HALF_EVEN, Context, Decimal

import numpy as np

from . import _core
from ._core import MinifloatDType


# Exact arithmetic on decimal expansions of binary64 values (the exact value
# of 2^-133 has 94 significant digits; 2^128 has 39).
_EXACT = Context(prec=1000, Emax=10_000, Emin=-10_000)


def _prints_exact_value(dtype):
    """Formats of 8 bits or fewer print exact values (see the C++ scalar_repr_text)."""
    return _core.format_info(dtype.name)["bits"] <= 8


def _magnitudes(x):
    """(|shortest decimal|, |exact value|, sign bit) of a finite scalar."""
    exact = Decimal(float(x))
    shortest = Decimal(str(x))
    return abs(shortest).normalize(_EXACT), abs(exact), exact.is_signed()


def _split_positional(dec):
    integer, _, fraction = format(dec, "f").partition(".")
    return integer, fraction


def _round_fraction(exact, digits):
    """exact rounded half to even to `digits` fractional digits."""
    return exact.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_EVEN, context=_EXACT)


def _round_significant(exact, digits):
    """exact rounded half to even to `digits` significant digits."""
    return Context(prec=digits, rounding=ROUND_HALF_EVEN, Emax=10_000, Emin=-10_000).plus(exact)


def _trim(fraction, trim, min_digits):
    if trim == "k":
        return fraction.ljust(min_digits or 0, "0")
    return fraction.rstrip("0")


def _join(head, fraction, trim):
    if fraction:
        return head + "." + fraction
    return head + {"-": "", "0": ".0"}.get(trim, ".")


def _sign_text(negative, sign):
    return "-" if negative else ("+" if sign else "")


def positional(x, precision=None, unique=True, trim=".", sign=False, pad_left=None, pad_right=None,
               min_digits=None):
    """Dragon4's positional layout (fractional precision) of a finite scalar."""
    shortest, exact, negative = _magnitudes(x)
    if not unique:
        if precision is None:
            raise TypeError("in non-unique mode `precision` must be supplied")
        integer, fraction = _split_positional(_round_fraction(exact, precision))
    else:
        integer, fraction = _split_positional(shortest)
        if precision is not None and len(fraction) > precision:
            rounded = _round_fraction(exact, precision)
            integer, fraction = _split_positional(rounded)
            if rounded > exact:  # a carry: the digits it zeroed are not printed
                fraction = fraction.rstrip("0")
        elif min_digits is not None and len(fraction) < min_digits:
            integer, fraction = _split_positional(_round_fraction(exact, min_digits))
    fraction = _trim(fraction, trim, min_digits if unique else None)
    head = _sign_text(negative, sign) + integer
    if pad_left is not None:
        head = head.rjust(pad_left)
    if pad_right is not None:
        fraction = fraction.ljust(pad_right)
    return _join(head, fraction, trim)


def scientific(x, precision=None, unique=True, trim=".", sign=False, pad_left=None, exp_digits=None,
               min_digits=None):
    """Dragon4's scientific layout of a finite scalar."""
    shortest, exact, negative = _magnitudes(x)
    if not unique:
        if precision is None:
            raise TypeError("in non-unique mode `precision` must be supplied")
        value = _round_significant(exact, precision + 1)
    else:
        value = shortest
        after_first = len(shortest.as_tuple().digits) - 1
        if precision is not None and after_first > precision:
            value = _round_significant(exact, precision + 1)
            if value > exact:  # a carry: the digits it zeroed are not printed
                value = value.normalize(_EXACT)
        elif min_digits is not None and after_first < min_digits:
            value = _round_significant(exact, min_digits + 1)
    digits = "".join(map(str, value.as_tuple().digits))
    exponent = value.adjusted() if value else 0
    fraction = digits[1:]
    if not unique:
        fraction = fraction.ljust(precision, "0")
    fraction = _trim(fraction, trim, min_digits if unique else None)
    head = _sign_text(negative, sign) + digits[0]
    if pad_left is not None:
        head = head.rjust(pad_left)
    width = max(2, exp_digits if exp_digits is not None else -1)
    mark = "-" if exponent < 0 else "+"
    return _join(head, fraction, trim) + "e" + mark + str(abs(exponent)).zfill(width)


class MinifloatFormat:
    """Formats the elements of one array (NumPy's FloatingFormat rules)."""

    def __init__(self, data, precision, floatmode, suppress, sign="-", legacy=None, nanstr="nan",
                 infstr="inf"):
        if isinstance(sign, bool):
            sign = "+" if sign else "-"
        legacy = legacy if legacy is not None else math.inf
        if legacy <= 113 and data.shape != () and sign == "-":
            sign = " "  # 1.13 left a space for the sign of every element
        self._legacy = legacy
        self.floatmode = floatmode
        self.precision = None if floatmode == "unique" else precision
        if self.precision is not None and self.precision < 0:
            raise ValueError(f"precision must be >= 0, got {self.precision}")
        self.suppress_small = suppress
        self.sign = sign
        self.nanstr = nanstr
        self.infstr = infstr
        self.exp_format = False
        # The layout thresholds come from the type whose digits are printed:
        # float32 for the exact-value formats, the format itself otherwise.
        self._exact_values = _prints_exact_value(data.dtype)
        self._fill(data)

    def _choose_notation(self, data):
        layout_values = data.astype(np.float32) if self._exact_values else data
        finite = layout_values[np.isfinite(layout_values)]
        magnitudes = np.absolute(finite[finite != 0])
        if magnitudes.size == 0:
            return False
        largest, smallest = np.max(magnitudes), np.min(magnitudes)
        if self._legacy <= 202:
            largest_positional = 1.0e8
        else:
            largest_positional = 10.0 ** min(8, np.finfo(layout_values.dtype).precision)
        with np.errstate(over="ignore"):
            return bool(largest >= largest_positional or (
                not self.suppress_small and (smallest < 0.0001 or largest / smallest > 1000.0)))

    def _fill(self, data):
        with np.errstate(all="ignore"):
            finite = data[np.isfinite(data)]
            self.exp_format = self._choose_notation(data)
        elements = list(finite.ravel())
        if not elements:
            self.pad_left = self.pad_right = 0
            self.trim = "."
            self.exp_size = -1
            self.unique = True
            self.min_digits = None
        elif self.exp_format:
            trim, unique = ".", True
            if self.floatmode == "fixed" or self._legacy <= 113:
                trim, unique = "k", False
            texts = [scientific(x, precision=self.precision, unique=unique, trim=trim, sign=self.sign == "+")
                     for x in elements]
            mantissas = [t.partition("e")[0] for t in texts]
            self.exp_size = max(len(t.partition("e")[2]) for t in texts) - 1
            self.trim = "k"
            self.precision = max(len(m.split(".")[1]) for m in mantissas)
            self.min_digits = self.precision
            self.unique = unique
            self.pad_left = 3 if self._legacy <= 113 else max(len(m.split(".")[0]) for m in mantissas)
            self.pad_right = self.exp_size + 2 + self.precision
        else:
            trim, unique = ".", True
            if self.floatmode == "fixed":
                trim, unique = "k", False
            texts = [positional(x, precision=self.precision, unique=unique, trim=trim, sign=self.sign == "+")
                     for x in elements]
            heads = [t.split(".")[0] for t in texts]
            if self._legacy <= 113:
                self.pad_left = 1 + max(len(h.lstrip("-+")) for h in heads)
            else:
                self.pad_left = max(len(h) for h in heads)
            self.pad_right = max(len(t.split(".")[1]) for t in texts)
            self.exp_size = -1
            self.unique = unique
            if self.floatmode in ("fixed", "maxprec_equal"):
                self.precision = self.min_digits = self.pad_right
                self.trim = "k"
            else:
                self.trim = "."
                self.min_digits = 0
        with np.errstate(all="ignore"):
            if self._legacy > 113 and self.sign == " " and not np.signbit(finite).any():
                self.pad_left += 1  # room for the space sign
            if data.size != finite.size:
                negative_inf = self.sign != "-" or bool((data[np.isinf(data)] < 0).any())
                right = self.pad_right + 1  # the point
                self.pad_left = max(self.pad_left, len(self.nanstr) - right,
                                    len(self.infstr) + negative_inf - right)

    def __call__(self, x):
        value = float(x)
        if not math.isfinite(value):
            if math.isnan(value):
                text = ("+" if self.sign == "+" else "") + self.nanstr
            else:
                text = ("-" if value < 0 else ("+" if self.sign == "+" else "")) + self.infstr
            return text.rjust(self.pad_left + self.pad_right + 1)
        if self.exp_format:
            return scientific(x, precision=self.precision, min_digits=self.min_digits, unique=self.unique,
                              trim=self.trim, sign=self.sign == "+", pad_left=self.pad_left,
                              exp_digits=self.exp_size)
        return positional(x, precision=self.precision, min_digits=self.min_digits, unique=self.unique,
                          trim=self.trim, sign=self.sign == "+", pad_left=self.pad_left,
                          pad_right=self.pad_right)


def _part_of(x, which):
    """The real (0) or imaginary (1) part of a complex32/bcomplex32 scalar or array."""
    from ._complex import imag, real

    part = real(x) if which == 0 else imag(x)
    return part[()] if isinstance(x, np.generic) else part


class ComplexPartsFormat:
    """complex32/bcomplex32 elements in complex64's layout: the real parts of
    the whole array laid out by their own float formatter, the imaginary
    parts by another that always shows the sign, and "j" written right after
    the imaginary digits (before their padding). Each part's formatter is
    the one its type prints with: NumPy's for float16, MinifloatFormat for
    bfloat16, so the digits are each part's shortest round trip."""

    def __init__(self, data, part_format, options):
        legacy = options.get("legacy")
        legacy = legacy if legacy is not None else math.inf
        sign = options.get("sign", "-")
        if isinstance(sign, bool):
            sign = "+" if sign else "-"
        floatmode = options["floatmode"]
        # NumPy 1.13's layout padded the real parts alike and not the imaginary ones
        real_mode, imag_mode = ("maxprec_equal", "maxprec") if legacy <= 113 else (floatmode, floatmode)
        self._real = part_format(_part_of(data, 0), dict(options, floatmode=real_mode, sign=sign))
        self._imag = part_format(_part_of(data, 1), dict(options, floatmode=imag_mode, sign="+"))

    def __call__(self, x):
        real_text = self._real(_part_of(x, 0))
        imag_text = self._imag(_part_of(x, 1))
        digits = imag_text.rstrip()
        return real_text + digits + "j" + imag_text[len(digits):]


def format_function_wrapper(original):
    """arrayprint._get_format_function that picks MinifloatFormat for the
    formats (installed by mf.patch_numpy(): NumPy has no per-dtype printing
    hook, and without it NumPy's float formatter prints them)."""
    def part_format(part, options):
        options = dict(options, formatter=None)  # a float formatter is not a complex one
        if isinstance(part.dtype, MinifloatDType):
            return _format_of(part, options)
        return original(part, **options)

    def _format_of(data, options):
        return MinifloatFormat(data, options["precision"], options["floatmode"], options["suppress"],
                               options["sign"], legacy=options["legacy"],
                               nanstr=options.get("nanstr", "nan"), infstr=options.get("infstr", "inf"))

    def _get_format_function(data, **options):
        formatter = options.get("formatter") or {}
        if isinstance(data.dtype, _core.ComplexDType):
            # complex64's layout (NumPy 2.4's own printer fails on these
            # dtypes, NumPy 2.5's prints each scalar's str); a user's complex
            # formatter wins, as for complex64
            user = next((formatter[k] for k in ("complexfloat", "complex_kind", "all")
                         if formatter.get(k) is not None), None)
            return user if user is not None else ComplexPartsFormat(data, part_format, options)
        if not isinstance(data.dtype, MinifloatDType):
            return original(data, **options)
        # a user's float formatter wins, as for NumPy's floats (its keys in
        # NumPy's order of precedence; NumPy >= 2.5 would otherwise print
        # non-NumPy dtypes with str() before it looks at them)
        user = next((formatter[k] for k in ("float", "float_kind", "all") if formatter.get(k) is not None), None)
        if user is not None:
            return user
        return _format_of(data, options)

    return _get_format_function
