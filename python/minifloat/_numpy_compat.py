"""The opt-in: ``mf.patch_numpy()`` makes NumPy's Python-level functions
treat minifloat arrays as NumPy treats float16, ``mf.unpatch_numpy()`` undoes it.

``import minifloat`` changes none of this (see _guards.py for the only two
attributes it replaces, where NumPy would crash or return wrong values).
Without the patches, NumPy's functions behave for minifloat arrays as NumPy
defines them for a non-float16 float: ``np.mean`` sums in the format itself
(pass ``dtype=np.float32``), ``np.nan*`` fill NaN with values some formats
cannot hold (float8_e4m3fn has no inf, float8_e8m0fnu no zero), and NumPy's
C implementations of ``np.dot``/``inner``/``vdot`` (before NumPy 2.5),
``convolve`` and ``correlate`` refuse DTypes without a legacy type number.

With the patches, each wrapper acts only when an operand is a minifloat
array, scalar or dtype (a check in C, see csrc/numpy/function_guard.cpp): it
computes in float32 (products and sums accumulated in float32, one rounding
at the end, as the ufunc loops do); every other call reaches NumPy's
original function directly, its ``__array_function__`` dispatch included.
Not covered: ``ndarray.mean/var/std`` if they were first called before the
patch (NumPy caches the implementation on first use).
"""
import functools
import operator

import numpy as np
from numpy._core import _methods, fromnumeric, multiarray, numeric, umath

from numpy.lib import _nanfunctions_impl

from . import _core
from ._core import MinifloatDType
from ._guards import _OWN_DTYPES, _any_minifloat, _finish, _is_complex, _is_int_type, _is_minifloat, _widen

_ORIGINALS = {}  # (module, name) -> NumPy's function, while patched


def _float32_copy(arr):
    """`arr` in float32 (exact), its NaNs quiet: a signalling NaN (bfloat16
    0x7F81) stays signalling in float32, and NumPy's float32 fmax/fmin then
    return NaN or a number depending on where it sits in the data."""
    x = arr.astype(np.float32)
    bits = x.view(np.uint32)
    signalling = (bits & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    signalling &= (bits & np.uint32(0x00400000)) == 0
    if signalling.any():
        bits |= np.where(signalling, np.uint32(0x00400000), np.uint32(0))
    return x


_DOT_OUT_ERROR = ("output array is not acceptable (must have the right datatype, number of dimensions, "
                  "and be a C-Array)")


def _int_product_operands(a, b):
    """Operands of dot/inner/vdot/convolve with sub-byte integers: two of
    them multiply and sum exactly in int32, as matmul does; with any other
    type they are the int8/uint8 of the same values, and NumPy promotes."""
    if _is_int_type(a) and _is_int_type(b):
        return np.asarray(a).astype(np.int32), np.asarray(b).astype(np.int32)
    return _widen(a), _widen(b)


def _product_wrapper(original):
    """dot, inner, vdot: minifloat operands are multiplied in float32."""

    @functools.wraps(original)
    def product(a, b, *args, **kwargs):
        if _is_complex(a) or _is_complex(b):
            return _complex_product(original, a, b, args, kwargs)
        if not (_is_minifloat(a) or _is_minifloat(b)):
            if _is_int_type(a) or _is_int_type(b):
                return original(*_int_product_operands(a, b), *args, **kwargs)
            return original(a, b, *args, **kwargs)
        a = np.asarray(a)
        b = np.asarray(b)
        out = kwargs.pop("out", args[0] if args else None)
        result_dtype = np.result_type(a, b)
        compute_dtype = np.float32 if isinstance(result_dtype, MinifloatDType) else result_dtype
        result = np.asarray(original(a.astype(compute_dtype), b.astype(compute_dtype)))
        if out is None:
            return _finish(result, result_dtype, None)
        # np.dot's rule: out must be exactly what it would return (NumPy
        # raises the same ValueError for float64), never a cast
        if (not isinstance(out, np.ndarray) or out.dtype != result_dtype or out.shape != result.shape
                or not out.flags.c_contiguous):
            raise ValueError(_DOT_OUT_ERROR)
        _finish(result, result_dtype, out)
        return out[()] if out.ndim == 0 else out

    return product


def _complex_product(original, a, b, args, kwargs):
    """dot/inner/vdot with a complex32/bcomplex32 operand: the operands as
    the result type, then complex64 (exact), NumPy's complex64 function (vdot
    conjugates its first argument there), the result rounded once. Before
    NumPy 2.5 NumPy's C functions refuse these DTypes; from 2.5 np.vdot
    reaches the DType's dotfunc, which cannot know it should conjugate
    (numpy/numpy#31574), so only this wrapper gives vdot's answer."""
    a = np.asarray(a)
    b = np.asarray(b)
    out = kwargs.pop("out", args[0] if args else None)
    result_dtype = np.result_type(a, b)
    own = isinstance(result_dtype, _core.ComplexDType)
    compute = np.dtype(np.complex64) if own else result_dtype
    result = np.asarray(original(a.astype(result_dtype).astype(compute), b.astype(result_dtype).astype(compute)))
    if out is not None:
        if (not isinstance(out, np.ndarray) or out.dtype != result_dtype or out.shape != result.shape
                or not out.flags.c_contiguous):
            raise ValueError(_DOT_OUT_ERROR)
        np.copyto(out, result, casting="unsafe")
        return out[()] if out.ndim == 0 else out
    rounded = result.astype(result_dtype)
    return rounded[()] if rounded.ndim == 0 else rounded


def _part_wrapper(which):
    """np.real / np.imag: complex32/bcomplex32 parts through mf.real/mf.imag
    (views), since NumPy's functions read the .real/.imag attributes, which
    NumPy hard-wires to its own complex types (numpy/numpy#30984, gh-1740)."""

    def make(original):
        @functools.wraps(original)
        def part(val):
            if not _is_complex(val):
                return original(val)
            from ._complex import imag, real

            result = real(val) if which == 0 else imag(val)
            return result[()] if isinstance(val, np.generic) else result

        return part

    return make


def _angle_wrapper(original):
    """np.angle: arctan2 of the parts in the part type (float16 for complex32,
    bfloat16 for bcomplex32), as NumPy's angle of complex64 is float32."""

    @functools.wraps(original)
    def angle(z, deg=False):
        if not _is_complex(z):
            return original(z, deg)
        from ._complex import imag, real

        arr = np.asanyarray(z)
        result = np.arctan2(imag(arr), real(arr))
        if deg:
            result = result * (180 / np.pi)  # a weak Python float, as NumPy's angle multiplies
        return result[()] if result.ndim == 0 else result

    return angle


def _imag_test_wrapper(compare):
    """The wrapper maker of np.iscomplex (``compare``: operator.ne) or
    np.isreal (operator.eq): the imaginary part (mf.imag) compared with 0."""

    def make(original):
        @functools.wraps(original)
        def test(x):
            if not _is_complex(x):
                return original(x)
            from ._complex import imag

            result = np.asarray(compare(imag(np.asanyarray(x)), 0))
            return result[()] if result.ndim == 0 else result

        return test

    return make


def _real_if_close_wrapper(original):
    """np.real_if_close: the real part (mf.real, a view) when every imaginary
    part is below tol (in units of the part type's eps when tol > 1)."""

    @functools.wraps(original)
    def real_if_close(a, tol=100):
        if not _is_complex(a):
            return original(a, tol)
        from ._complex import imag, part_dtype, real

        arr = np.asanyarray(a)
        if tol > 1:
            tol = float(np.finfo(part_dtype(arr.dtype)).eps) * tol  # float16 or minifloat's bfloat16
        if np.all(np.abs(imag(arr).astype(np.float32)) < tol):
            return real(arr)
        return arr

    return real_if_close


def _statistic_wrapper(original):
    """_mean/_var/_std: accumulate in float32, round the statistic once."""

    @functools.wraps(original)
    def statistic(a, axis=None, dtype=None, out=None, *args, **kwargs):
        if dtype is not None or not _is_minifloat(a):
            return original(a, axis, _ufunc_dtype(dtype), out, *args, **kwargs)
        result = original(a, axis, np.float32, None, *args, **kwargs)
        return _finish(result, np.asanyarray(a).dtype, out)

    return statistic


_NAN_VALUE_FUNCTIONS = ("nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
                        "nancumsum", "nancumprod", "nanmedian", "nanpercentile", "nanquantile")
_NAN_INDEX_FUNCTIONS = ("nanargmax", "nanargmin")


def _nan_function_wrapper(original, returns_values):
    """np.nan* on a float32 copy (exact), values rounded once back."""

    @functools.wraps(original)
    def nan_function(a, *args, **kwargs):
        if not _is_minifloat(a) or kwargs.get("dtype") is not None or kwargs.get("out") is not None:
            return original(a, *args, **kwargs)
        arr = np.asanyarray(a)
        result = original(_float32_copy(arr), *args, **kwargs)
        return _finish(result, arr.dtype, None) if returns_values else result

    return nan_function




def _ufunc_dtype(dtype):
    """The DType class for a minifloat dtype instance, anything else as given.

    NumPy refuses instances of new-style DTypes in a ufunc's ``dtype=`` (by
    design since NumPy 1.21, numpy/numpy#22540) while accepting their class;
    the formats have one instance per class, so the class means the same.
    NumPy's reductions pass the caller's ``dtype=`` through unchanged, which
    is how ``np.sum(x, dtype=x.dtype)`` (dask does exactly this) failed.
    """
    if isinstance(dtype, str) and dtype.startswith(("float", "bfloat", "int", "uint", "minifloat.")):
        try:
            resolved = np.dtype(dtype)
        except TypeError:
            return dtype
        dtype = resolved if isinstance(resolved, _OWN_DTYPES) else dtype
    if isinstance(dtype, _OWN_DTYPES):
        return type(dtype)
    if isinstance(dtype, type) and issubclass(dtype, (_core.floating, _core.signedinteger, _core.unsignedinteger)):
        return type(np.dtype(dtype))
    return dtype


def _reduction_wrapper(original):
    """fromnumeric._wrapreduction: a minifloat ``dtype=`` as its DType class."""

    @functools.wraps(original)
    def wrapreduction(obj, ufunc, method, axis, dtype, out, **kwargs):
        return original(obj, ufunc, method, axis, _ufunc_dtype(dtype), out, **kwargs)

    return wrapreduction


def _method_reduction_wrapper(original):
    """_methods._sum/_prod (ndarray.sum, ndarray.prod): the same."""

    @functools.wraps(original)
    def method_reduction(a, axis=None, dtype=None, *args, **kwargs):
        return original(a, axis, _ufunc_dtype(dtype), *args, **kwargs)

    return method_reduction


def _accumulation_wrapper(ufunc):
    """cumsum/cumprod with a minifloat ``dtype=``: the ufunc's accumulate,
    which takes the DType class (ndarray.cumsum only knows type numbers)."""

    def make(original):
        @functools.wraps(original)
        def accumulation(a, axis=None, dtype=None, out=None):
            if not isinstance(_ufunc_dtype(dtype), type) or dtype is None or \
                    not issubclass(_ufunc_dtype(dtype), _OWN_DTYPES):
                return original(a, axis=axis, dtype=dtype, out=out)
            arr = np.asanyarray(a)
            if axis is None:
                arr, axis = arr.ravel(), 0
            return ufunc.accumulate(arr, axis=axis, dtype=_ufunc_dtype(dtype), out=out)

        return accumulation

    return make


def _float32_operands_wrapper(original):
    """convolve/correlate: NumPy's C code takes legacy dtypes only; minifloat
    operands are widened exactly to float32, the products summed in float32
    and the result rounded once, as np.dot does here."""

    @functools.wraps(original)
    def float32_operands(a, v, *args, **kwargs):
        if not (_is_minifloat(np.asanyarray(a)) or _is_minifloat(np.asanyarray(v))):
            if _is_int_type(a) or _is_int_type(v):
                return original(*_int_product_operands(a, v), *args, **kwargs)
            return original(a, v, *args, **kwargs)  # (np.polymul passes poly1d objects)
        a, v = np.asarray(a), np.asarray(v)
        result_dtype = np.result_type(a, v)
        compute = np.float32 if isinstance(result_dtype, MinifloatDType) else result_dtype
        result = original(a.astype(compute), v.astype(compute), *args, **kwargs)
        return _finish(result, result_dtype, None)

    return float32_operands


def _norm_wrapper(original):
    """np.linalg.norm: computed on the exact float32 values (its C paths,
    ndarray.dot among them, take legacy dtypes only), rounded once into the
    format as float16's norm returns float16."""

    @functools.wraps(original)
    def norm(x, *args, **kwargs):
        if not _is_minifloat(x):
            return original(x, *args, **kwargs)
        arr = np.asarray(x)
        return _finish(original(_float32_copy(arr), *args, **kwargs), arr.dtype, None)

    return norm


def _histogram_wrapper(original):
    """np.histogram & co.: minifloat samples (and weights, range) are binned
    as their exact float32 values. In the format itself the edges could not
    be distinct (8 bits hold few values between min and max), so NumPy would
    refuse ("Too many bins for data range"); the edges come back as float32.
    """

    @functools.wraps(original)
    def histogram(a, *args, **kwargs):
        weights = kwargs.get("weights")
        own = (_is_minifloat(a) or _is_minifloat(weights) or _is_int_type(a) or _is_int_type(weights)
               or (isinstance(a, (list, tuple)) and any(_is_minifloat(x) or _is_int_type(x) for x in a)))
        if not own:
            return original(a, *args, **kwargs)
        if isinstance(a, (list, tuple)):  # histogramdd's sequence of samples
            a = type(a)(_widen(x) for x in a)
        else:
            a = _widen(a)
        if weights is not None:
            kwargs["weights"] = _widen(weights)
        # range=(lo, hi) from a.min()/a.max() holds minifloat scalars, which
        # NumPy's bin arithmetic would pass to ufuncs as dtype= instances
        if "range" in kwargs:
            kwargs["range"] = _widen_scalars(kwargs["range"])
        if len(args) >= 2:
            args = (args[0], _widen_scalars(args[1]), *args[2:])
        return original(a, *args, **kwargs)

    return histogram


def _widen_scalars(value):
    """Minifloat scalars in `value` (a number or nested sequence) as Python
    floats (exact); everything else unchanged."""
    if isinstance(value, (list, tuple)):
        return type(value)(_widen_scalars(v) for v in value)
    if isinstance(getattr(value, "dtype", None), MinifloatDType) and np.ndim(value) == 0:
        return float(value)
    return value


def _average_wrapper(original):
    """np.average with weights multiplies through a ufunc ``dtype=`` that
    NumPy refuses for new-style DTypes: minifloat operands are averaged as
    their exact float32 values and the result rounded once into the dtype
    NumPy would have returned (the format, as float16's average stays
    float16)."""

    @functools.wraps(original)
    def average(a, axis=None, weights=None, returned=False, *, keepdims=np._NoValue):
        if not (_is_minifloat(np.asanyarray(a)) or
                (weights is not None and _is_minifloat(np.asanyarray(weights)))):
            return original(a, axis, weights, returned, keepdims=keepdims)
        a = np.asanyarray(a)
        dtypes = [a.dtype] + ([np.asanyarray(weights).dtype] if weights is not None else [])
        if any(np.issubdtype(d, np.integer) or d == np.bool_ for d in dtypes):
            dtypes.append(np.dtype(np.float64))
        result_dtype = np.result_type(*dtypes)
        widened = original(_widen(a), axis, None if weights is None else _widen(np.asanyarray(weights)),
                           returned, keepdims=keepdims)
        if returned:
            value, total = widened
            return _finish(value, result_dtype, None), _finish(total, result_dtype, None)
        return _finish(widened, result_dtype, None)

    return average


def _common_type_wrapper(original):
    """np.common_type: NumPy knows only its own float types' precisions; with
    a minifloat array the answer is the scalar type of the common dtype
    (integers count as float64, as NumPy's does)."""

    @functools.wraps(original)
    def common_type(*arrays):
        if not _any_minifloat(arrays):
            return original(*arrays)
        dtypes = []
        for arr in arrays:
            dtype = np.asanyarray(arr).dtype
            if np.issubdtype(dtype, np.integer) or dtype == np.bool_:
                dtype = np.dtype(np.float64)
            elif not (isinstance(dtype, MinifloatDType) or np.issubdtype(dtype, np.inexact)):
                return original(*arrays)  # NumPy's own error for non-numeric input
            dtypes.append(dtype)
        return np.result_type(*dtypes).type

    return common_type


def _raw_fft_wrapper(original):
    """np.fft: minifloat input is transformed as its exact float32 values.
    (The ufuncs alone would do for the forward transforms, but the inverse
    ones compute their 1/n factor in the input's real dtype, through a
    ufunc ``dtype=`` NumPy refuses for new-style DTypes.)"""

    @functools.wraps(original)
    def raw_fft(a, *args, **kwargs):
        if _is_complex(a):
            # complex32/bcomplex32: the transform of the exact complex64
            # values, rounded once per part (NumPy's inverse transforms build
            # their 1/n factor from a.real.dtype, which is the complex dtype
            # itself here, numpy/numpy#30984, and refuse it as a ufunc dtype=)
            out = kwargs.pop("out", None)
            if len(args) > 5:
                out, args = args[5], args[:5]
            result = original(np.asarray(a).astype(np.complex64), *args, **kwargs)
            if out is not None:
                np.copyto(out, result, casting="same_kind")
                return out
            return result.astype(a.dtype)
        return original(_widen(a), *args, **kwargs)

    return raw_fft


def _frompyfunc_wrapper(original):
    """np.frompyfunc: the new ufunc (object loops only) gets minifloat inputs
    as Python objects, the way NumPy hands it float16 inputs."""

    @functools.wraps(original)
    def frompyfunc(func, /, nin, nout, **kwargs):
        ufunc = original(func, nin, nout, **kwargs)
        if ufunc.nin > 0:
            _core._add_fallback_promoters(ufunc, np.dtypes.ObjectDType)
        return ufunc

    return frompyfunc


def _is_patched(function):
    return hasattr(function, "__minifloat_handler__")


def _guarded(original, make_wrapper):
    """`make_wrapper(original)` behind a C-level check: calls without a
    minifloat operand go straight to `original` (its dispatch included)."""
    wrapper = make_wrapper(original)

    def handler(_original, *args, **kwargs):
        return wrapper(*args, **kwargs)

    return _core._function_guard(original, handler)


def _marked(wrapper):
    """A Python-level wrapper, marked as minifloat's (see _is_patched), with
    the original's text signature where it has one (functools.wraps copies
    the rest)."""
    wrapper.__minifloat_handler__ = wrapper
    text_signature = getattr(wrapper.__wrapped__, "__text_signature__", None)
    if text_signature is not None:
        wrapper.__text_signature__ = text_signature
    return wrapper


def _replace(module, name, make_wrapper, guard=True):
    _replace_everywhere(name, (module,), make_wrapper, guard)


def unpatch_numpy():
    """Undo patch_numpy(): every patched NumPy attribute is the original again."""
    while _ORIGINALS:
        (module, name), original = _ORIGINALS.popitem()
        setattr(module, name, original)


def patch_numpy():
    """Opt in: make NumPy's Python-level functions treat minifloat arrays as
    NumPy treats float16 (idempotent; undone by unpatch_numpy()).

    With it, ``np.mean``/``var``/``std`` and the ``np.nan*`` family accumulate
    in float32 and round once; ``np.dot``/``inner``/``vdot`` (NumPy < 2.5),
    ``convolve``, ``correlate``, ``linalg.norm``, ``histogram*``,
    ``average``, ``common_type``, ``fft`` and ``frompyfunc`` ufuncs take
    minifloat arrays; a minifloat ``dtype=`` works in ``np.sum``/``prod``/
    ``cumsum``/``cumprod``; arrays print each value's shortest digits.
    For complex32/bcomplex32: ``np.real``/``imag`` (through mf.real/mf.imag),
    ``np.angle``, ``iscomplex``, ``isreal``, ``real_if_close``, ``np.dot``/
    ``inner``/``vdot`` (vdot conjugating) in complex64 rounded once, the
    inverse FFTs, and printing in complex64's layout.
    Every patched function calls NumPy's original at C speed for any call
    without a minifloat operand, keeps its name, docstring, signature and
    ``__array_function__`` dispatch. NumPy offers no hook for these (see the
    README's known limitations for the upstream issues).
    """
    for name in ("dot", "inner", "vdot"):
        _replace_everywhere(name, (multiarray, numeric, np), _product_wrapper)
    for names, returns_values in ((_NAN_VALUE_FUNCTIONS, True), (_NAN_INDEX_FUNCTIONS, False)):
        for name in names:
            _replace_everywhere(name, (_nanfunctions_impl, np),
                                lambda original, r=returns_values: _nan_function_wrapper(original, r))
    for name in ("_mean", "_var", "_std"):
        _replace(_methods, name, _statistic_wrapper)
    for name in ("_sum", "_prod"):  # (_amax/_amin take no dtype)
        _replace(_methods, name, _method_reduction_wrapper)
    _replace(fromnumeric, "_wrapreduction", _reduction_wrapper)
    for name, ufunc in (("cumsum", np.add), ("cumprod", np.multiply)):
        _replace_everywhere(name, (fromnumeric, np), _accumulation_wrapper(ufunc))
    for name in ("convolve", "correlate"):
        _replace_everywhere(name, (numeric, np), _float32_operands_wrapper)
    from numpy.linalg import _linalg
    _replace_everywhere("norm", (_linalg, np.linalg), _norm_wrapper)
    if not _is_patched(_linalg.dot):
        _ORIGINALS.setdefault((_linalg, "dot"), _linalg.dot)
        _linalg.dot = np.dot  # multi_dot's products: the wrapper above
    from numpy.lib import _function_base_impl, _histograms_impl, _twodim_base_impl
    for name in ("histogram", "histogram_bin_edges", "histogramdd"):
        _replace_everywhere(name, (_histograms_impl, _function_base_impl, _twodim_base_impl, np),
                            _histogram_wrapper)
    _replace_everywhere("frompyfunc", (umath, _function_base_impl, np), _frompyfunc_wrapper, guard=False)
    from numpy.fft import _pocketfft
    _replace(_pocketfft, "_raw_fft", _raw_fft_wrapper)
    _replace_everywhere("average", (_function_base_impl, np), _average_wrapper)
    from numpy.lib import _type_check_impl
    _replace_everywhere("common_type", (_type_check_impl, np), _common_type_wrapper)
    for name, make in (("real", _part_wrapper(0)), ("imag", _part_wrapper(1)), ("iscomplex", _imag_test_wrapper(operator.ne)),
                       ("isreal", _imag_test_wrapper(operator.eq)), ("real_if_close", _real_if_close_wrapper)):
        _replace_everywhere(name, (_type_check_impl, np), make)
    _replace_everywhere("angle", (_function_base_impl, np), _angle_wrapper)
    from numpy._core import arrayprint

    from . import _printing
    _replace(arrayprint, "_get_format_function", _printing.format_function_wrapper)


def _replace_everywhere(name, modules, make_wrapper, guard=True):
    """One wrapper for every module that holds (a reference to) `name`
    (`guard`: behind the C-level check; else the Python wrapper itself, for
    a function whose arguments are never arrays, such as frompyfunc)."""
    wrapper = None
    for module in modules:
        current = getattr(module, name, None)
        if current is None or _is_patched(current):
            continue
        if wrapper is None:
            wrapper = _guarded(current, make_wrapper) if guard else _marked(make_wrapper(current))
        _ORIGINALS.setdefault((module, name), current)
        setattr(module, name, wrapper)
