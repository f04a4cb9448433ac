"""Array printing for the formats.

NumPy prints a subclass of np.floating with its float formatter, which
(a) spells each value as the shortest *float64* decimal (bfloat16's 0.1
prints as 0.10009766) and (b) switches to scientific notation from
10**finfo.precision up, which is 1 for float8_e4m3fn (eps = 0.125), so
``[1, 2, 0.5]`` printed as ``[1.e+00 2.e+00 5.e-01]``.

Here each value is spelled as its scalar repr (the shortest decimal that
reads back to the same code, as NumPy does for float16), laid out the way
NumPy lays out float16 arrays: aligned decimal points, scientific notation
when the largest magnitude is >= 1e8 or, unless ``suppress``, the smallest
is < 1e-4 or the spread is > 1000. ``floatmode`` 'unique' and 'maxprec'
(the default) use these digits ('maxprec' rounds to ``precision`` digits
where the shortest needs more); 'fixed' and 'maxprec_equal' print the exact
values with NumPy's own formatter. A user ``formatter`` for floats wins.
"""
from decimal import Decimal

import numpy as np
from numpy._core import arrayprint

from ._core import MinifloatDType

_USER_FLOAT_KEYS = ("all", "float", "float_kind")


def _digits(text):
    """Decimal text -> (negative, significant digits, exponent of the first)."""
    sign, digit_tuple, exponent = Decimal(text).as_tuple()
    all_digits = "".join(map(str, digit_tuple))
    if all_digits.strip("0") == "":
        return bool(sign), "0", 0
    return bool(sign), all_digits.rstrip("0"), exponent + len(all_digits) - 1


def _positional_parts(negative, digits, first):
    """(sign, integer part, fraction part) of digits * 10**(first - len + 1)."""
    if first >= 0:
        integer = (digits + "0" * max(0, first + 1 - len(digits)))[: first + 1]
        fraction = digits[first + 1 :]
    else:
        integer = "0"
        fraction = "0" * (-first - 1) + digits
    return ("-" if negative else ""), integer, fraction


class _MinifloatFormat:
    def __init__(self, data, precision, floatmode, suppress, sign, nanstr, infstr):
        self.sign = sign
        self.nanstr = nanstr
        self.infstr = infstr
        self.cap = None if floatmode == "unique" else precision
        finite = data[np.isfinite(data)]
        values = finite.astype(np.float64)
        magnitudes = np.abs(values[values != 0])
        self.exp_format = False
        if magnitudes.size:
            largest, smallest = magnitudes.max(), magnitudes.min()
            self.exp_format = bool(
                largest >= 1e8 or (not suppress and (smallest < 1e-4 or largest / smallest > 1e3))
            )
        self.pad_left = self.pad_right = 0
        self.exp_size = 2
        for text, value in zip(finite.astype(str).ravel().tolist(), values.ravel().tolist()):
            head, fraction, exponent = self._parts(text, value)
            self.pad_left = max(self.pad_left, len(head))
            self.pad_right = max(self.pad_right, len(fraction))
            if exponent is not None:
                self.exp_size = max(self.exp_size, len(str(abs(exponent))))
        if finite.size != data.size:
            # room for nan/inf (and a sign before inf) left of the point
            infinities = np.asarray(data[np.isinf(data)], dtype=np.float64)
            signed_inf = self.sign != "-" or bool((infinities < 0).any())
            offset = self._right_width() + 1
            self.pad_left = max(self.pad_left, len(nanstr) - offset, len(infstr) + signed_inf - offset)

    def _right_width(self):
        """Characters right of the decimal point."""
        return self.pad_right + (self.exp_size + 2 if self.exp_format else 0)

    def _sign(self, negative):
        if negative:
            return "-"
        return "+" if self.sign == "+" else (" " if self.sign == " " else "")

    def _parts(self, text, value):
        """(sign + integer part, fraction part, exponent or None)."""
        negative, digits, first = _digits(text)
        if self.exp_format:
            if self.cap is not None and len(digits) - 1 > self.cap:
                negative, digits, first = _digits(f"{value:.{self.cap}e}")
            return self._sign(negative) + digits[0], digits[1:], first
        _, integer, fraction = _positional_parts(negative, digits, first)
        if self.cap is not None and len(fraction) > self.cap:
            negative, digits, first = _digits(f"{value:.{self.cap}f}")
            _, integer, fraction = _positional_parts(negative, digits, first)
        return self._sign(negative) + integer, fraction, None

    def __call__(self, x):
        value = float(x)
        if not np.isfinite(value):
            if np.isnan(value):
                text = ("+" if self.sign == "+" else "") + self.nanstr
            else:
                text = ("-" if value < 0 else ("+" if self.sign == "+" else "")) + self.infstr
            return text.rjust(self.pad_left + 1 + self._right_width())
        head, fraction, exponent = self._parts(str(x), value)
        if exponent is None:
            return head.rjust(self.pad_left) + "." + fraction.ljust(self.pad_right)
        mark = "+" if exponent >= 0 else "-"
        return (head.rjust(self.pad_left) + "." + fraction.ljust(self.pad_right, "0")
                + "e" + mark + str(abs(exponent)).zfill(self.exp_size))


class _ExactValueFormat:
    """NumPy's float formatter over the exact (float64) values."""

    def __init__(self, data, options):
        self.inner = arrayprint.FloatingFormat(
            data.astype(np.float64), options["precision"], options["floatmode"],
            options["suppress"], options["sign"], legacy=options["legacy"])

    def __call__(self, x):
        return self.inner(np.float64(float(x)))


def _format_function_wrapper(original):
    def _get_format_function(data, **options):
        formatter = options.get("formatter") or {}
        if isinstance(data.dtype, MinifloatDType) and not any(k in formatter for k in _USER_FLOAT_KEYS):
            with np.errstate(all="ignore"):
                if options.get("floatmode") in ("fixed", "maxprec_equal"):
                    return _ExactValueFormat(data, options)
                return _MinifloatFormat(data, options.get("precision", 8), options.get("floatmode", "maxprec"),
                                        options.get("suppress", False), options.get("sign", "-"),
                                        options.get("nanstr", "nan"), options.get("infstr", "inf"))
        return original(data, **options)

    _get_format_function.__wrapped_by_minifloat__ = True
    return _get_format_function


def install():
    current = arrayprint._get_format_function
    if not getattr(current, "__wrapped_by_minifloat__", False):
        arrayprint._get_format_function = _format_function_wrapper(current)
