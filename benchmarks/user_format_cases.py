"""Benchmark group 17: a format made at run time (mf.float_format) against a
built-in 8-bit format of the same shape.

A user-defined format goes through the same table-driven kernels as the
built-ins, so its float32 casts, arithmetic and comparisons must take at
most 1.5x the built-in's time (issue 16). The first user format is
float8_e4m3fn's layout with bias 9 (no built-in has it): the same work per
element, other constants. The others have layouts no original built-in has
(unsigned, no mantissa bit, a list of NaN codes, no zero), each on data in
its own range, against float8_e4m3fn on its own.
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
    other_layout_cases(add, Ref, data, builtin)


# Layouts beyond the sign-magnitude kernels' (they have AVX-512 encoders of
# their own, and comparisons by key lookups where no byte rule fits).
OTHER_LAYOUTS = {
    "unsigned e5m3": dict(exponent_bits=5, mantissa_bits=3, signed=False, infinities="max", nan="all_ones",
                          negative_zero=False),
    "e7m0": dict(exponent_bits=7, mantissa_bits=0, infinities=False, nan="negative_zero", negative_zero=False),
    "e4m3 NaN list": dict(exponent_bits=4, mantissa_bits=3, infinities=False, nan=(0x7E, 0x7F, 0xFE, 0xFF)),
    "e4m3 no zero": dict(exponent_bits=4, mantissa_bits=3, infinities=False, nan="all_ones", subnormals=False,
                         negative_zero=False),
}


def other_layout_cases(add, Ref, data, builtin):
    rng = np.random.default_rng(16)
    z = rng.standard_normal(data.n, dtype=np.float32)
    builtin_x = data.x32(BUILTIN)
    builtin_codes = (data.codes(BUILTIN).view(builtin), data.codes(BUILTIN, salt=1).view(builtin))
    builtin_operations = {
        "f32 -> F": lambda: builtin_x.astype(builtin),
        "F -> f32": lambda: builtin_codes[0].astype(np.float32),
        "F + F": lambda: builtin_codes[0] + builtin_codes[1],
        "F < F": lambda: builtin_codes[0] < builtin_codes[1],
        "np.maximum(F, F)": lambda: np.maximum(builtin_codes[0], builtin_codes[1]),
    }
    for label, parameters in OTHER_LAYOUTS.items():
        user = mf.float_format(**parameters)
        # |z| for unsigned formats (negative values would be invalid, NaN)
        x = (z if parameters.get("signed", True) else np.abs(z)) * np.float32(float(np.finfo(user).max) / 4)
        with np.errstate(all="ignore"):
            codes = (x.astype(user), x[::-1].copy().astype(user))
        user_operations = {
            "f32 -> F": lambda x=x, user=user: x.astype(user),
            "F -> f32": lambda codes=codes: codes[0].astype(np.float32),
            "F + F": lambda codes=codes: codes[0] + codes[1],
            "F < F": lambda codes=codes: codes[0] < codes[1],
            "np.maximum(F, F)": lambda codes=codes: np.maximum(codes[0], codes[1]),
        }
        for name, run in user_operations.items():
            add(f"user {label}: {name}", lambda run=run: run,
                Ref("ref", BUILTIN, lambda name=name: builtin_operations[name], TARGET))
