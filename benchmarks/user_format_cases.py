"""Benchmark group 17: a format made at run time (mf.float_format) against a
built-in 8-bit format of the same shape.

A user-defined format goes through the same table-driven kernels as the
built-ins, so its float32 casts, arithmetic and comparisons must take at
most 1.5x the built-in's time (issue 16). The user format here is
float8_e4m3fn's layout with bias 9 (no built-in has it): the same work per
element, other constants.
"""
import numpy as np

import minifloat as mf

BUILTIN = "float8_e4m3fn"
USER_PARAMETERS = dict(exponent_bits=4, mantissa_bits=3, bias=9, infinities=False, nan="all_ones")
TARGET = 1 / 1.5


def user_format_cases(add, Ref, data):
    """Adds the group's cases with add(name, factory, *refs); `Ref` and
    `data` are run.py's."""
    user = mf.float_format(**USER_PARAMETERS)
    builtin = np.dtype(getattr(mf, BUILTIN))

    # The same float32 input, scaled into each format's range (by 2^-2, the
    # bias difference: the same significands, the same work per element);
    # both formats' arrays are views of the same bytes (the built-in's codes
    # of that input, which mean the same significands in either format).
    scale = {builtin: np.float32(1.0), user: np.float32(2.0 ** (7 - USER_PARAMETERS["bias"]))}

    def x32(dt):
        return data.x32(BUILTIN) * scale[dt]

    def codes_as(dt, salt=0):
        return data.codes(BUILTIN, salt=salt).view(dt)

    def two(dt):
        return codes_as(dt), codes_as(dt, salt=1)

    operations = [
        ("f32 -> F", lambda dt: (lambda x=x32(dt): (lambda: x.astype(dt)))()),
        ("F -> f32", lambda dt: (lambda a=codes_as(dt): (lambda: a.astype(np.float32)))()),
        ("F + F", lambda dt: (lambda ab=two(dt): (lambda: ab[0] + ab[1]))()),
        ("F * F", lambda dt: (lambda ab=two(dt): (lambda: ab[0] * ab[1]))()),
        ("F < F", lambda dt: (lambda ab=two(dt): (lambda: ab[0] < ab[1]))()),
        ("np.maximum(F, F)", lambda dt: (lambda ab=two(dt): (lambda: np.maximum(ab[0], ab[1])))()),
        ("F.sum()", lambda dt: (lambda a=codes_as(dt): (lambda: a.sum()))()),
    ]
    for name, op in operations:
        def user_factory(op=op):
            return op(user)

        def builtin_factory(op=op):
            return op(builtin)

        add(f"user e4m3 b9: {name}", user_factory, Ref("ref", BUILTIN, builtin_factory, TARGET))
