"""Array printing: values spelled as their shortest round-trip decimals and
laid out the way NumPy lays out float16 arrays."""
import numpy as np
import pytest

import reference as R

NAMES = list(R.FORMATS)


@pytest.fixture(autouse=True)
def _default_printoptions():
    with np.printoptions():  # restores whatever a test changes
        yield


def _namespace(mf):
    ns = {name: getattr(mf, name) for name in NAMES}
    ns.update(array=np.array, nan=np.nan, inf=np.inf)
    return ns


@pytest.mark.parametrize("name", NAMES)
def test_repr_of_every_code_reads_back(mf, name):
    """repr(array) of every code evaluates back to the same codes (NaNs to
    NaNs), in both positional and scientific layouts."""
    f = R.FORMATS[name]
    T = getattr(mf, name)
    codes = R.all_codes(name)
    values = R.decode_array(name, codes)
    finite = np.isfinite(values)
    arr = codes[finite].view(T)
    with np.printoptions(threshold=1 << 20):
        text = repr(arr)
    back = eval(text, _namespace(mf))
    assert back.dtype == np.dtype(T)
    np.testing.assert_array_equal(back.view(f.code_dtype), arr.view(f.code_dtype))
    # one element at a time: positional layout for most
    for c in codes[finite][:: max(1, int(finite.sum()) // 64)]:
        one = np.array([c], f.code_dtype).view(T)
        again = eval(repr(one), _namespace(mf))
        assert again.view(f.code_dtype)[0] == c, (name, hex(int(c)), repr(one))


def test_layout_matches_float16(mf):
    """Same spelling as NumPy's float16 wherever the values are equal and
    both shortest decimals agree."""
    for values in ([1, 2, 0.5], [0.5, -3.5, 4], [1e-5, 1.5], [0.25, 1024.0], [-0.0, 0.0], []):
        x16 = np.array(values, np.float16)
        xb = np.array(values, mf.bfloat16)
        assert str(xb) == str(x16), values
        assert repr(xb) == repr(x16).replace("float16", "bfloat16"), values


def test_examples(mf):
    assert str(np.array([1, 2, 0.5], mf.float8_e4m3fn)) == "[1.  2.  0.5]"
    assert repr(np.array([0.1, 1, 3.14159], mf.bfloat16)) == "array([0.1 , 1.  , 3.14], dtype=bfloat16)"
    assert repr(np.array([1.0, 2.0**127], mf.float8_e8m0fnu)) == "array([1.e+00, 2.e+38], dtype=float8_e8m0fnu)"
    with np.errstate(all="ignore"):
        x = np.array([np.nan, -np.inf, 1.5], np.float64).astype(mf.float8_e5m2)
    assert str(x) == "[ nan -inf  1.5]"
    assert repr(np.array(3.0, mf.float8_e5m2)) == "array(3., dtype=float8_e5m2)"
    assert str(np.array([[1, 2], [3, 4]], mf.float4_e2m1fn)) == "[[1. 2.]\n [3. 4.]]"


def test_printoptions_are_honoured(mf):
    x = np.array([0.1, 1, 3.14159], mf.bfloat16)
    with np.printoptions(precision=1):
        assert str(x) == "[0.1 1.  3.1]"
    with np.printoptions(sign="+"):
        assert str(x) == "[+0.1  +1.   +3.14]"
    with np.printoptions(floatmode="fixed", precision=3):
        assert str(x) == "[0.100 1.000 3.141]"  # the exact values, fixed digits
    with np.printoptions(suppress=True):
        assert str(np.array([1e-5, 1.5], mf.bfloat16)) == "[0.00001 1.5    ]"
    with np.printoptions(formatter={"float_kind": lambda v: "X"}):
        assert str(x) == "[X X X]"


def test_printing_raises_no_warnings(mf):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in NAMES:
            T = getattr(mf, name)
            f = R.FORMATS[name]
            repr(R.all_codes(name).view(T))
            repr(np.array([f.max_code()], f.code_dtype).view(T))
