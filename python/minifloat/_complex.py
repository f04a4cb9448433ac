"""complex32 and bcomplex32: the package's side of the two complex types.

``mf.complex32`` (two float16 parts) and ``mf.bcomplex32`` (two bfloat16
parts) are NumPy dtypes of kind 'c' with the layout of ml_dtypes' and
torch's complex32 (real part first, native byte order); their scalars
subclass ``np.complexfloating``.

``.real`` and ``.imag`` of an array are NumPy's, and NumPy knows only its
own complex types there: ``.real`` returns the complex array itself and
``.imag`` zeros (so do ``np.real``, ``np.imag`` and ``np.angle``, which use
them), on NumPy 2.4 (no hook) and 2.5.5 (numpy/numpy#30984 added internal
real/imag ufuncs; minifloat registers view loops on them, but the attribute
does not use a new-style DType's loops yet). ``mf.patch_numpy()`` makes
np.real/np.imag/np.angle/np.iscomplex/np.isreal/np.real_if_close right for
them, and prints their arrays in complex64's layout. Use ``mf.real(x)`` /
``mf.imag(x)``: views of the parts (float16 for complex32, minifloat's
bfloat16 for bcomplex32) on every NumPy version, taking ml_dtypes'
complex32/bcomplex32 arrays too. ``np.finfo`` fails the same way;
``mf.finfo`` gives the part's limits, as ``np.finfo(np.complex64)`` gives
float32's. Array printing goes through ``.real`` in NumPy and fails with it
(NumPy 2.4) or prints each scalar's str (2.5), unless patched.
"""
import numpy as np

from . import _core

complex32 = _core.complex32
bcomplex32 = _core.bcomplex32
COMPLEX_FORMAT_NAMES = _core.COMPLEX_FORMAT_NAMES

# NumPy >= 2.5 gives .real/.imag through DType loops (numpy/numpy#30984)
PARTS_BY_NUMPY = np.lib.NumpyVersion(np.__version__) >= "2.5.0"


def part_dtype(dtype):
    """float16 for complex32, minifloat's bfloat16 for bcomplex32."""
    return np.dtype(np.float16) if dtype == np.dtype(complex32) else np.dtype(_core.bfloat16)


def own_complex(dtype):
    """minifloat's complex dtype of `dtype` (theirs: ml_dtypes'), or None."""
    if isinstance(dtype, _core.ComplexDType):
        return dtype
    name = getattr(dtype, "name", None)
    if name in COMPLEX_FORMAT_NAMES and dtype.itemsize == 4 and type(dtype.type).__module__ != "numpy":
        import sys

        ml_dtypes = sys.modules.get("ml_dtypes")
        if ml_dtypes is not None and getattr(ml_dtypes, name, None) is dtype.type:
            return np.dtype(getattr(_core, name))
    return None


def _part(x, which, name):
    arr = np.asanyarray(x)
    own = own_complex(arr.dtype)
    if own is None:
        return np.real(arr) if which == 0 else np.imag(arr)
    if arr.dtype != own:
        arr = arr.view(own)  # ml_dtypes' type: the same bits
    # a view of the part: one more axis of the two parts, the last one contiguous
    parts = arr[..., np.newaxis].view(part_dtype(own))
    return parts[..., which]


def real(x):
    """The real part of a complex32 or bcomplex32 array, as a view.

    ``x.real`` and ``np.real(x)`` cannot give it without help: NumPy
    hard-wires the attribute to its own complex types (numpy/numpy#30984,
    gh-1740) and returns the complex array itself. ``mf.patch_numpy()``
    makes ``np.real``, ``np.imag``, ``np.angle``, ``np.iscomplex``,
    ``np.isreal`` and ``np.real_if_close`` go through this function for
    minifloat's complex arrays (the attributes stay NumPy's).

    Parameters
    ----------
    x : array_like
        A complex32 or bcomplex32 array (ml_dtypes' complex32 and bcomplex32
        arrays too); any other input gives ``np.real(x)``.

    Returns
    -------
    ndarray
        float16 parts of a complex32 array, minifloat's bfloat16 parts of a
        bcomplex32 one: a writable view sharing `x`'s memory.

    See Also
    --------
    imag

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> z = np.array([1 + 2j, -0.5j], dtype=mf.complex32)
    >>> mf.real(z)
    array([ 1., -0.], dtype=float16)
    """
    return _part(x, 0, "real")


def imag(x):
    """The imaginary part of a complex32 or bcomplex32 array, as a view.

    ``x.imag`` and ``np.imag(x)`` give zeros for these types (NumPy
    hard-wires the attribute to its own complex types, numpy/numpy#30984,
    gh-1740); under ``mf.patch_numpy()`` ``np.imag`` and the functions built
    on it come here.

    Parameters
    ----------
    x : array_like
        A complex32 or bcomplex32 array (ml_dtypes' too); any other input
        gives ``np.imag(x)``.

    Returns
    -------
    ndarray
        The imaginary parts (float16 or minifloat's bfloat16), a writable
        view sharing `x`'s memory.

    See Also
    --------
    real

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> z = np.array([1 + 2j, -0.5j], dtype=mf.complex32)
    >>> mf.imag(z)
    array([ 2. , -0.5], dtype=float16)
    """
    return _part(x, 1, "imag")
