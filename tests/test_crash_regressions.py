"""Regressions from the bad-input corpus: each case once crashed
the interpreter, used freed memory, allocated for a parameter instead of the
data, or gave a result that depended on the kernel set or the data order.

Cases that could crash run in a fresh interpreter (``run``), which reports
the return code and the output; expected values come from the exact
reference (tests/reference.py).
"""
import math
import os
import subprocess
import sys
import textwrap
import time
import warnings
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import reference as R
from kernel_sets import KERNEL_SETS, kernels

NAMES = list(R.FORMATS)
WITH_NAN = [n for n in NAMES if R.FORMATS[n].has_nan]
# formats with more than one NaN code (the others have one or none)
SEVERAL_NANS = [n for n in NAMES if sum(map(R.FORMATS[n].is_nan_code, range(R.FORMATS[n].ncodes))) > 1]
HERE = os.path.dirname(os.path.abspath(__file__))


def run(code, env=None):
    """Run `code` in a fresh interpreter (after the imports of every case);
    returns the completed process (its output as text)."""
    prelude = "import numpy as np, minifloat as mf\n"
    environment = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True,
                          env=environment, cwd=HERE, timeout=300)


def assert_clean(result):
    assert result.returncode == 0, f"rc={result.returncode}\nstdout:{result.stdout}\nstderr:{result.stderr}"


def codes(arr):
    arr = np.asarray(arr)
    return arr.view(np.uint16 if arr.itemsize == 2 else np.uint8)


def runnable_kernel_sets(mf):
    return [s for s in KERNEL_SETS if s == "portable" or s in mf._core._cpu_kernel_sets()]


def tie_above_one(name):
    """1 + half a step: a rounding tie of the format (read after __float__)."""
    return 1 + Fraction(1, 2 ** (R.FORMATS[name].mbits + 1))


# ---- 1. object elements replaced by their own __float__ -------------------

# The debug allocator fills freed memory, so a use after free crashes
# instead of reading stale bytes.
UAF_PRELUDE = """
    from fractions import Fraction
    class Evil:
        def __init__(self, box, value):
            self.box, self.value = box, value
        def __float__(self):
            self.box[0] = 0.0  # drops the last reference to self
            return self.value
    def one(value):
        a = np.empty(1, object)
        a[0] = Evil(a, value)
        return a
    def codes(x):
        x = np.asarray(x)
        return x.view(np.uint16 if x.itemsize == 2 else np.uint8).tolist()
"""


@pytest.mark.parametrize("path", ["cast", "cast_up", "astype", "setitem", "list"])
def test_object_replaced_by_its_own_float(path):
    cases = {name: float(tie_above_one(name)) for name in NAMES}
    body = {
        "cast": "mf.cast(one(v), T)",
        "cast_up": "mf.cast(one(v), T, rounding='up')",
        "astype": "one(v).astype(T)",
        "setitem": "(lambda o: (o.__setitem__(slice(None), one(v)), o)[1])(np.zeros(1, T))",
        "list": "(lambda l: (l.__setitem__(0, Evil(l, v)), np.array(l, dtype=T))[1])([None])",
    }[path]
    result = run(UAF_PRELUDE + f"""
    for name, v in {cases!r}.items():
        T = getattr(mf, name)
        print(name, codes({body}))
    """, env={"PYTHONMALLOC": "debug"})
    assert_clean(result)
    got = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    for name in NAMES:
        value = tie_above_one(name)
        if path == "cast_up":
            expected = [R.encode_code(name, value + Fraction(1, 2 ** 60))]  # above the tie: the upper code
        else:
            expected = [R.encode_code(name, value)]
        assert got[name] == str(expected), name


NUMPY_2_5 = tuple(int(p) for p in np.__version__.split(".")[:2]) >= (2, 5)


@pytest.mark.parametrize("path", ["cast", pytest.param("astype", marks=pytest.mark.xfail(
    NUMPY_2_5, strict=True, reason="NumPy 2.5 converts object arrays to new-style DTypes through its own "
    "per-element loop, which reads freed memory when an element's __float__ resizes the array; "
    "NumPy's own float16 crashes the same way (2.4 and 2.5): a NumPy bug, mf.cast is safe"))])
def test_object_array_resized_by_an_element(path):
    """An element's __float__ empties the object array being converted (its
    data freed): every element was read before, so the result holds the
    values the array had when the conversion began."""
    call = {"cast": "mf.cast(a, mf.float8_e4m3fn)", "astype": "a.astype(mf.float8_e4m3fn)"}[path]
    result = run(UAF_PRELUDE + f"""
    from bad_inputs import MutatesArrayOnFloat  # (the child runs in tests/)
    element = MutatesArrayOnFloat()
    a = np.array([element] + [Fraction(3, 2)] * 1000, dtype=object)
    element.array = a
    try:
        print(sorted(set(codes({call}))))
    except (TypeError, ValueError, RuntimeError) as error:
        print("raised", type(error).__name__)
    """, env={"PYTHONMALLOC": "debug"})
    assert_clean(result)
    out = result.stdout.strip()
    assert out.startswith("raised") or out == str(sorted({R.encode_code("float8_e4m3fn", 1),
                                                            R.encode_code("float8_e4m3fn", Fraction(3, 2))})), out


# ---- 2. void (raw bytes) and structured dtypes ----------------------------

@pytest.mark.parametrize("name", NAMES)
def test_raw_bytes_casts_raise(name):
    result = run(f"""
    T = getattr(mf, {name!r})
    cases = [
        lambda: np.zeros(2, 'V4').astype(T),
        lambda: np.zeros(2, 'V1').astype(T),
        lambda: np.zeros(2, T).astype('V4'),
        lambda: np.zeros(2, T).astype('V1'),
        lambda: np.copyto(np.zeros(2, T), np.zeros(2, 'V4'), casting='unsafe'),
        lambda: np.zeros(2, [('a', 'V4')]).astype(T),
        lambda: np.zeros(2, T).astype([('a', 'V4')]),
        lambda: np.zeros(2, 'i4,f4').astype(T),
    ]
    for case in cases:
        try:
            case()
            print("no error")
        except TypeError as e:
            print("TypeError", e)
    """)
    assert_clean(result)
    lines = result.stdout.splitlines()
    assert len(lines) == 8 and all(line.startswith("TypeError") for line in lines), result.stdout
    assert all("raw bytes" in line for line in lines[:7]), result.stdout
    assert "cast one field" in lines[7]


@pytest.mark.parametrize("name", NAMES)
def test_structured_casts_go_field_by_field(mf, name):
    """As for float16: a value goes into every field, and a structured value
    with one field converts that field (a subarray field: its first element)."""
    T = getattr(mf, name)
    values = [Fraction(3, 2), Fraction(5, 4), Fraction(-1, 2)]
    if name == "float8_e8m0fnu":
        values = [Fraction(2), Fraction(1, 4), Fraction(8)]
    elif not R.FORMATS[name].signed:  # (a negative value is NaN there)
        values = [abs(v) for v in values]
    expected = [R.encode_code(name, v) for v in values]
    x = np.array([float(v) for v in values]).astype(T)
    assert codes(x).tolist() == expected

    s = x.astype([("a", np.float64), ("b", np.int16, (2,)), ("c", T)])
    assert s["a"].tolist() == [float(R.decode(name, c)) for c in expected]
    assert s["b"].tolist() == [[int(R.decode(name, c))] * 2 for c in expected]
    assert codes(s["c"]).tolist() == expected

    for structured in (np.zeros(3, "f8,"), np.zeros(3, [("a", "f8", (2,))]), np.zeros(3, [("a", [("b", "f8")])])):
        flat = structured.view(np.float64).reshape(3, -1)
        flat[:, 0] = [float(v) for v in values]
        assert codes(structured.astype(T)).tolist() == expected


# ---- 3. np.dot: the dot slot, ndarray.dot, linalg.norm and out= -----------

def small_values(name, n):
    """n exactly representable small integers (products and sums exact in float32)."""
    if name == "float8_e8m0fnu":
        return [Fraction(2) ** (k % 4) for k in range(n)]
    return [Fraction((k % 3) - (1 if R.FORMATS[name].signed and k % 2 else 0)) for k in range(n)]


@pytest.mark.parametrize("name", NAMES)
def test_dot_slot_never_reads_its_array_argument(name):
    """NumPy 2.5's np.dot calls dotfunc with arr == NULL (numpy/numpy#30931)."""
    a = [float(v) for v in small_values(name, 7)]
    b = [float(v) for v in reversed(small_values(name, 7))]
    result = run(f"""
    T = getattr(mf, {name!r})
    a, b = np.array({a!r}).astype(T), np.array({b!r}).astype(T)
    print(mf._core._dot_through_slot(a, b), mf._core._dot_through_slot(a[::2], b[::2]))
    """)
    assert_clean(result)
    exact = sum(Fraction(x) * Fraction(y) for x, y in zip(a, b))
    exact_even = sum(Fraction(x) * Fraction(y) for x, y in zip(a[::2], b[::2]))
    assert result.stdout.split() == [str(R.encode_code(name, exact)), str(R.encode_code(name, exact_even))]


def test_dot_slot_hook_validates(mf):
    a = np.zeros(3, mf.float8_e4m3fn)
    with pytest.raises(TypeError, match="two NumPy arrays"):
        mf._core._dot_through_slot(a, [1, 2, 3])
    with pytest.raises(TypeError, match="one minifloat format"):
        mf._core._dot_through_slot(a, np.zeros(3, mf.float8_e5m2))
    with pytest.raises(ValueError, match="one length"):
        mf._core._dot_through_slot(a, a[:2])


@pytest.mark.xfail(np.lib.NumpyVersion(np.__version__) < "2.5.0", strict=True, raises=TypeError,
                   reason="numpy/numpy#30931: ndarray.dot (PyArray_MatrixProduct2) refuses DTypes without a "
                          "legacy type number before NumPy 2.5")
@pytest.mark.parametrize("name", ["float8_e4m3fn", "bfloat16"])
def test_ndarray_dot_method(mf, name):
    values = small_values(name, 9)
    a = np.array([float(v) for v in values]).astype(getattr(mf, name))
    assert codes(a.dot(a)).tolist() == R.encode_code(name, sum(v * v for v in values))


@pytest.mark.usefixtures("patched_numpy")  # mf.patch_numpy()'s wrapper
@pytest.mark.parametrize("name", NAMES)
def test_linalg_norm(mf, name):
    values = small_values(name, 9)
    a = np.array([float(v) for v in values]).astype(getattr(mf, name))
    square_sum = np.float32(sum(v * v for v in values))  # exact
    expected = R.encode_code(name, Fraction(float(np.sqrt(square_sum))))  # float32 sqrt, one rounding
    result = np.linalg.norm(a)
    assert result.dtype == a.dtype
    assert int(codes(result)) == expected


@pytest.mark.usefixtures("patched_numpy")  # mf.patch_numpy()'s wrapper
@pytest.mark.parametrize("name", ["float8_e4m3fn", "float6_e2m3fn", "bfloat16"])
def test_dot_out_must_be_exact_like_numpy(mf, name):
    T = getattr(mf, name)
    a = np.array([0.0, 1.0, 2.0]).astype(T)
    m = np.ones((2, 2)).astype(T)
    message = "output array is not acceptable"
    with pytest.raises(ValueError, match=message):  # NumPy says the same for float64
        np.dot(np.arange(3.0), np.arange(3.0), out=np.empty((), np.int8))
    for x, out in ((a, np.empty((), np.int8)), (a, np.empty((), np.float32)), (a, np.empty((1,), T)),
                   (m, np.empty((2, 4), T)[:, ::2]), (m, np.empty((2, 2), np.float32))):
        with pytest.raises(ValueError, match=message):
            np.dot(x, x, out=out)
    out = np.empty((), T)
    result = np.dot(a, a, out=out)
    assert int(codes(out)) == R.encode_code(name, 5) and int(codes(np.asarray(result))) == int(codes(out))
    with pytest.raises(TypeError, match="according to the rule 'safe'"):
        np.einsum("i,i", a, a, out=np.empty((), np.int8))
    np.einsum("i,i", a, a, out=np.empty((), np.int8), casting="unsafe")


# ---- 4/5. MX block sizes and the private functions' checks ------------------

@pytest.mark.parametrize("fmt", ["mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4_e2m1", "mxint8",
                                 "nvfp4"])
def test_mx_block_size_beyond_the_data(mf, fmt):
    x = np.random.default_rng(3).standard_normal((3, 70)).astype(np.float32)
    # (mf.mx.quantize keeps NVFP4's blocks at 16 values; the private entry
    # point hands the kernel any block size)
    quantize = mf.mx.quantize if fmt != "nvfp4" else \
        lambda *args, **kw: mf.mx._quantize(*args, any_block_size=True, **kw)
    one_block = quantize(x, fmt, block_size=70)
    for block_size in (71, 2**29, 2**31 - 1, 2**62):
        start = time.perf_counter()
        q = quantize(x, fmt, block_size=block_size)
        values = q.dequantize()
        assert time.perf_counter() - start < 2.0  # was seconds and gigabytes for 2**29
        assert q.block_size == block_size and q.scales.shape == (3, 1)
        assert codes(q.data).tolist() == codes(one_block.data).tolist()
        assert codes(q.scales).tolist() == codes(one_block.scales).tolist()
        assert values.tolist() == one_block.dequantize().tolist()
    assert mf.mx.quantize(np.ones((3, 0), np.float32), fmt).dequantize().shape == (3, 0)


@pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                    reason="AddressSanitizer's shadow memory needs more address space than the limit allows")
def test_mx_block_size_under_an_address_space_limit():
    result = run("""
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    x = np.ones((3, 70), np.float32)
    for fmt in ("mxfp8_e4m3", "mxint8", "nvfp4"):
        q = mf.mx._quantize(x, fmt, block_size=2**31 - 1, any_block_size=fmt == "nvfp4")  # (NVFP4: privately)
        print(fmt, q.scales.shape, float(q.dequantize().sum()))
    for block in (2**31 - 1, 2**63 - 1):
        print(mf._core.mx_quantize(x, 0, 8, 448.0, 4, block, "floor")[1].shape,
              mf._core.nvfp4_quantize(x, block, 1.0)[1].shape)
    """)
    assert_clean(result)
    lines = result.stdout.splitlines()
    assert lines[0] == "mxfp8_e4m3 (3, 1) 210.0" and lines[1] == "mxint8 (3, 1) 210.0"
    assert lines[3:] == ["(3, 1) (3, 1)"] * 2


@pytest.mark.parametrize("args, message", [
    ((99, 8, 448.0, 4, 32, "floor"), "element_index must be -1"),
    ((-2, 8, 448.0, 4, 32, "floor"), "element_index must be -1"),
    ((2**31 - 1, 8, 448.0, 4, 32, "floor"), "element_index must be -1"),
    ((11, 8, 448.0, 4, 32, "floor"), "8-bit or narrower"),  # bfloat16's index
    ((0, 8, 0.0, 4, 32, "rceil"), "max_element"),
    ((0, 8, float("nan"), 4, 32, "rceil"), "max_element"),
    ((0, 8, 1e300, 4, 32, "rceil"), "max_element"),
    ((0, 8, 448.0, 0, 32, "even"), "significand_bits"),
    ((0, 8, 448.0, 40, 32, "even"), "significand_bits"),
    ((0, 2**30, 448.0, 4, 32, "floor"), "emax"),
    ((0, 8, 448.0, 4, 0, "floor"), "block_size"),
    ((0, 8, 448.0, 4, -5, "floor"), "block_size"),
    ((0, 8, 448.0, 4, 32, "nearest"), "scale_mode"),
])
def test_private_mx_quantize_validates(args, message):
    result = run(f"""
    try:
        nan = float("nan")
        mf._core.mx_quantize(np.ones((2, 40), np.float32), *{args!r})
        print("no error")
    except ValueError as e:
        print("ValueError", e)
    """)
    assert_clean(result)
    assert result.stdout.startswith("ValueError") and message in result.stdout


def test_private_functions_validate(mf):
    core = mf._core
    x = np.ones((2, 40), np.float32)
    for scale in (0.0, -1.0, float("inf"), 0.1, 1e-300):  # 0.1 is no float32
        with pytest.raises(ValueError, match="tensor_scale"):
            core.nvfp4_quantize(x, 16, scale)
    with pytest.raises(ValueError, match="block_size"):
        core.nvfp4_quantize(x, 0, 1.0)
    for bad in (x.astype(np.float64), x.T, x[:, ::2], x.reshape(-1)):
        with pytest.raises(ValueError, match="C-contiguous native float32 matrix"):
            core.mx_quantize(bad, 0, 8, 448.0, 4, 32, "floor")
    with pytest.raises(TypeError):
        core.mx_quantize([[1.0]], 0, 8, 448.0, 4, 32, "floor")
    with pytest.raises(ValueError, match="unknown minifloat format"):
        core.encode_array(np.ones(3), "float7", False, "nearest_even", None)
    with pytest.raises(TypeError, match="source must be"):
        core.encode_array(np.ones(3, np.int8), "bfloat16", False, "nearest_even", None)
    with pytest.raises(ValueError, match="C-contiguous"):
        core.encode_array(np.ones(6)[::2], "bfloat16", False, "nearest_even", None)
    with pytest.raises(ValueError, match="one uint64 draw per element"):
        core.encode_array(np.ones(3), "bfloat16", False, "stochastic", np.ones(2, np.uint64))
    with pytest.raises(ValueError, match="one uint64 draw per element"):
        core.encode_array(np.ones(3), "bfloat16", False, "stochastic", np.ones(3, np.int64))
    with pytest.raises(TypeError, match="object array"):
        core.encode_objects(np.ones(3), "bfloat16", False, "nearest_even", None)
    with pytest.raises(TypeError, match="DLPack capsule"):
        core.dlpack_import(object())
    with pytest.raises(TypeError, match="minifloat array"):
        core.dlpack_export(np.ones(3), True)
    with pytest.raises(TypeError, match="uint8 bytes"):
        core.dlpack_export(np.ones(3), True, True)
    assert core.format_index("float7") == -1
    with pytest.raises(ValueError, match="unknown minifloat format"):
        core.format_info("float7")
    with pytest.raises(ValueError, match="out of range"):
        core._scalar_from_code("float4_e2m1fn", 16)


# ---- 6. DLPack --------------------------------------------------------------

def test_numpy_from_dlpack_reports_its_own_error():
    result = run("""
    try:
        np.from_dlpack(mf.to_dlpack(np.ones(3, mf.float8_e4m3fn)))
    except Exception as e:
        print(type(e).__name__, e)
    """)
    assert_clean(result)
    # NumPy's own refusal of the float8 type code (it was a SystemError: the
    # capsule's destructor cleared the pending error); NumPy 2.5 raises
    # BufferError where 2.4 raised RuntimeError
    assert result.stdout.startswith(("RuntimeError Unsupported dtype", "BufferError Unsupported dtype")), result.stdout


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "bfloat16"])
def test_negative_strides_export_a_copy(name):
    pytest.importorskip("torch")
    result = run(f"""
    import torch
    T = getattr(mf, {name!r})
    x = np.arange(12.0).reshape(3, 4).astype(T)
    for view in (x[::-1], x[:, ::-2], x[::-1, ::-1].T):
        t = torch.from_dlpack(mf.to_dlpack(view))
        print(mf.from_dlpack(t).view(np.uint8).tolist() == np.ascontiguousarray(view).view(np.uint8).tolist())
    try:
        mf.to_dlpack(x[::-1]).__dlpack__(max_version=(1, 1), copy=False)
    except BufferError as e:
        print("BufferError", e)
    try:
        mf._core.dlpack_export(x[::-1], True)
    except BufferError as e:
        print("BufferError", e)
    print(mf._core.dlpack_export(x[:1][::-1], True) is not None)  # a length-1 axis: any stride
    """)
    assert_clean(result)
    lines = result.stdout.splitlines()
    assert lines[:3] == ["True"] * 3
    assert lines[3].startswith("BufferError") and "negative strides" in lines[3]
    assert lines[4].startswith("BufferError") and "negative strides" in lines[4]
    assert lines[5] == "True"


def test_read_only_exports_only_versioned(mf):
    x = np.ones(3, mf.float8_e4m3fn)
    x.flags.writeable = False
    with pytest.raises(BufferError, match="read-only"):
        mf._core.dlpack_export(x, False)
    assert mf._core.dlpack_export(x, True) is not None


CAPSULE_MAKER = """
    import ctypes
    class DLTensor(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                    ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                    ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                    ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]
    class Managed(ctypes.Structure):
        _fields_ = [("tensor", DLTensor), ("ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]
    new_capsule = ctypes.pythonapi.PyCapsule_New
    new_capsule.restype = ctypes.py_object
    new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    keep = []
    def capsule(code, bits, shape, data=None, lanes=1, ndim=None):
        dims = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        m = Managed()
        m.tensor.data = data
        m.tensor.device_type = 1
        m.tensor.ndim = len(shape) if ndim is None else ndim
        m.tensor.code, m.tensor.bits, m.tensor.lanes = code, bits, lanes
        m.tensor.shape = ctypes.cast(dims, ctypes.POINTER(ctypes.c_int64))
        keep.extend([dims, m])
        return new_capsule(ctypes.addressof(m), b"dltensor", None)
"""


def test_dlpack_import_of_empty_packed_tensors():
    # FP6 (codes 15, 16: 6 bits) and FP4 (17) with no values and no data pointer
    result = run(CAPSULE_MAKER + """
    for code, bits in ((15, 6), (16, 6), (17, 4)):
        for shape in ((0,), (2, 0), (0, 3)):
            a = mf._core.dlpack_import(capsule(code, bits, shape))
            raw, name, values = a
            print(name, len(raw), values)
    """, env={"UBSAN_OPTIONS": "halt_on_error=1"})
    assert_clean(result)
    lines = result.stdout.splitlines()
    assert len(lines) == 9 and all(" 0 " in line for line in lines)


@pytest.mark.parametrize("case, message", [
    ("capsule(10, 8, (3,), ndim=-1)", "dimensions"),
    ("capsule(10, 8, (3,), ndim=100)", "dimensions"),
    ("capsule(10, 8, (-3,))", "negative dimension"),
    ("capsule(10, 8, (3,))", "no data"),
    ("capsule(10, 8, (2**40, 2**40))", "too large"),
    ("capsule(10, 8, (3,), lanes=0)", "0 lanes"),
    ("capsule(15, 6, (3,), lanes=0)", "0 lanes"),
])
def test_dlpack_import_validates(case, message):
    result = run(CAPSULE_MAKER + f"""
    try:
        mf._core.dlpack_import({case})
        print("no error")
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
    """)
    assert_clean(result)
    assert message in result.stdout, result.stdout


# ---- 7. NaN results that do not depend on the kernels or the data order -----

def mixed_nan_data(name, n, seed):
    """Codes of finite values with many NaN codes of both signs mixed in."""
    fmt = R.FORMATS[name]
    everything = np.arange(fmt.ncodes, dtype=fmt.code_dtype)
    decoded = R.decode_array(fmt, everything)
    nan_codes = everything[np.isnan(decoded)]
    finite = everything[np.isfinite(decoded)]
    rng = np.random.default_rng(seed)
    data = rng.choice(finite, n)
    mask = rng.random(n) < 0.5
    data[mask] = rng.choice(nan_codes, int(mask.sum()))
    # at least one NaN of each sign the format has
    data[rng.choice(n, 2, replace=False)] = [nan_codes.min(), nan_codes.max()]
    return data


@pytest.mark.usefixtures("patched_numpy")  # mf.patch_numpy()'s wrapper
@pytest.mark.parametrize("name", WITH_NAN)
def test_sum_and_prod_nan_is_the_canonical_nan_on_every_kernel_set(mf, name):
    T = getattr(mf, name)
    canonical = R.FORMATS[name].nan_code(False)
    for n in (2, 65, 128, 200, 1000, 5000):
        for seed in range(3):
            x = mixed_nan_data(name, n, seed).view(T)
            for kernel_set in runnable_kernel_sets(mf):
                with kernels(mf, kernel_set), np.errstate(all="ignore"):
                    results = [x.sum(), x.prod(), x[::2].sum(), np.add.reduce(x.reshape(-1, 1), axis=0),
                               np.cumsum(x)[-1], np.dot(x, x), x @ x, x.mean()]
                got = {int(codes(r).reshape(-1)[0]) for r in results}
                assert got == {canonical}, (n, seed, kernel_set, got)


@pytest.mark.parametrize("kernel_set", ["avx512", "avx2", "portable"])
def test_sum_nan_rule_in_a_fresh_interpreter(kernel_set):
    """The kernel sets as the environment selects them at load time."""
    env = {"avx512": {}, "avx2": {"MINIFLOAT_DISABLE_AVX512": "1"},
           "portable": {"MINIFLOAT_DISABLE_AVX512": "1", "MINIFLOAT_DISABLE_AVX2": "1"}}[kernel_set]
    data = {name: mixed_nan_data(name, 1000, 1).tolist() for name in SEVERAL_NANS}
    result = run(f"""
    for name, data in {data!r}.items():
        T = getattr(mf, name)
        x = np.array(data, np.uint16 if name == "bfloat16" else np.uint8).view(T)
        with np.errstate(all="ignore"):
            print(name, int(np.asarray(x.sum()).view(np.uint16 if name == "bfloat16" else np.uint8)),
                  int(np.asarray(x.prod()).view(np.uint16 if name == "bfloat16" else np.uint8)))
    """, env=env)
    assert_clean(result)
    for line in result.stdout.splitlines():
        name, total, product = line.split()
        canonical = R.FORMATS[name].nan_code(False)
        assert (int(total), int(product)) == (canonical, canonical), line


@pytest.mark.parametrize("name", SEVERAL_NANS)
def test_fmax_fmin_of_two_nans_is_the_canonical_nan(mf, name):
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    everything = np.arange(fmt.ncodes, dtype=fmt.code_dtype)
    nan_codes = everything[np.isnan(R.decode_array(fmt, everything))]
    rng = np.random.default_rng(0)
    a = rng.choice(nan_codes, 300).view(T)
    b = rng.choice(nan_codes, 300).view(T)
    canonical = fmt.nan_code(False)
    for kernel_set in runnable_kernel_sets(mf):
        with kernels(mf, kernel_set):
            for f in (np.fmax, np.fmin):
                assert set(codes(f(a, b)).tolist()) == {canonical}
                assert set(codes(f(a[::3], b[::3])).tolist()) == {canonical}
                assert set(codes(f(a, b[0])).tolist()) == {canonical}
                for order in range(4):
                    data = rng.permutation(a)
                    assert int(codes(f.reduce(data))) == canonical
                    assert int(codes(f.reduce(data[::2]))) == canonical
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slice
                    assert int(codes(np.nanmax(a) if f is np.fmax else np.nanmin(a))) == canonical


@pytest.mark.parametrize("name", SEVERAL_NANS)
def test_nanmax_skips_signalling_nans_in_any_order(mf, name):
    """bfloat16 0x7F81 is a signalling NaN in float32 too, where NumPy's fmax
    returned NaN or a number depending on its position."""
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    everything = np.arange(fmt.ncodes, dtype=fmt.code_dtype)
    decoded = R.decode_array(fmt, everything)
    nan_codes = everything[np.isnan(decoded)]
    finite = everything[np.isfinite(decoded)]
    rng = np.random.default_rng(1)
    for n in (3, 8, 40, 100):
        data = np.concatenate([rng.choice(finite, n), rng.choice(nan_codes, n)])
        values = R.decode_array(fmt, data)
        finite_values = values[np.isfinite(values)]
        for trial in range(6):
            x = rng.permutation(data).view(T)
            for f, pick in ((np.nanmax, np.max), (np.nanmin, np.min), (np.fmax.reduce, np.max),
                            (np.fmin.reduce, np.min)):
                got = float(np.asarray(f(x)).astype(np.float64))
                assert got == pick(finite_values), (f, n, trial)


# ---- 8. rationals beyond binary64 --------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_huge_rationals_round_like_huge_ints(mf, name):
    T = getattr(mf, name)
    for negative in (False, True):
        sign = -1 if negative else 1
        integer = sign * 10**400
        for value in (Fraction(integer, 3), Fraction(integer), Decimal(integer), Decimal(sign) * Decimal("1e400"),
                      Fraction(sign * 2**1024 - sign, 1)):
            code, flags = R.encode(name, Fraction(value))
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                got = int(codes(np.asarray(T(value))))
                array = mf.cast(np.array([value], object), T)
            assert got == code and int(codes(array)[0]) == code, (value, got, code)
            reported = {("overflow" if "overflow" in str(w.message) else "invalid") for w in caught}
            assert reported == set(flags), (value, reported, flags)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # float8_e8m0fnu: negatives are invalid
                saturated = mf.cast(np.array([value], object), T, saturate=True)
            assert int(codes(saturated)[0]) == R.encode_code(name, Fraction(value), saturate=True)
    for mode in ("toward_zero", "up", "down", "nearest_away"):
        for value in (Fraction(10**400, 3), Fraction(-(10**400), 3)):
            with np.errstate(all="ignore"):
                as_int = mf.cast(np.array([int(value)], object), T, rounding=mode)
                got = mf.cast(np.array([value], object), T, rounding=mode)
            assert codes(got).tolist() == codes(as_int).tolist(), (mode, value)


@pytest.mark.parametrize("name", ["float8_e5m2", "float8_e4m3fn", "bfloat16"])
def test_infinite_decimals_stay_infinite(mf, name):
    T = getattr(mf, name)
    for value in (Decimal("Infinity"), Decimal("-Infinity")):
        expected = R.encode_code(name, float(value))
        with np.errstate(all="ignore"):
            assert int(codes(np.asarray(T(value)))) == expected


def test_tiny_rationals_round_to_zero_exactly(mf):
    for name in ("float8_e5m2", "float4_e2m1fn", "bfloat16"):
        T = getattr(mf, name)
        for value in (Fraction(1, 10**400), Fraction(-1, 10**400)):
            assert int(codes(np.asarray(T(value)))) == R.encode_code(name, value)
            up = mf.cast(np.array([value], object), T, rounding="up")
            # up: the smallest positive value (code 1), or -0 from below
            expected_up = 1 if value > 0 else R.encode_code(name, value)
            assert int(codes(up)[0]) == expected_up
