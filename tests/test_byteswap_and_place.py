"""NumPy's legacy copyswap paths: ndarray.byteswap, np.place and friends.

NumPy 2.4 leaves the legacy copyswap/copyswapn functions NULL for new-style
DTypes and still calls them from these paths (a segfault before minifloat
filled them in). A byteswap of a one-byte format is a copy; bfloat16 swaps
its two bytes. The calls run in a subprocess first, so a regression shows as
a failed test, not a dead test run.
"""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import reference as ref

import minifloat as mf
from format_arrays import code_bits, dtype_of, every_code

FORMATS = list(mf.FORMAT_NAMES)


def test_formerly_crashing_calls_run_in_a_fresh_interpreter():
    code = textwrap.dedent("""
        import numpy as np, minifloat as mf
        for name in mf.FORMAT_NAMES:
            a = np.arange(6).astype(np.uint8 if np.dtype(getattr(mf, name)).itemsize == 1
                                    else np.uint16).view(getattr(mf, name))
            a.byteswap()
            a.copy().byteswap(inplace=True)
            a[::2].byteswap()
            np.place(a.copy(), [True, False] * 3, a[:2])
            np.putmask(a.copy(), [True, False] * 3, a[:2])
            np.copyto(a.copy(), a[::-1], where=[True, False] * 3)
            try:
                a[1].byteswap()
            except (TypeError, RuntimeError):
                pass  # scalar byteswap: must not crash; its value is tested in test_scalars
        print("survived")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "survived"


@pytest.mark.parametrize("name", FORMATS)
def test_byteswap(name):
    a = every_code(name)
    bits = code_bits(a)
    expected = bits.byteswap()  # uint8: unchanged; uint16: bytes swapped
    for swapped in (a.byteswap(), a.reshape(-1, 4)[:, ::2].byteswap().ravel()):
        assert swapped.dtype is a.dtype
    assert np.array_equal(code_bits(a.byteswap()), expected)
    strided = a[::3]
    assert np.array_equal(code_bits(strided.byteswap()), expected[::3])
    inplace = a.copy()
    result = inplace.byteswap(inplace=True)
    assert result is inplace
    assert np.array_equal(code_bits(inplace), expected)
    assert np.array_equal(code_bits(a), bits)  # the source is untouched
    twice = a.byteswap().byteswap()
    assert np.array_equal(code_bits(twice), bits)


@pytest.mark.parametrize("name", FORMATS)
def test_place_putmask_copyto(name):
    a = every_code(name)[:10]
    values = every_code(name)[-3:]
    mask = np.array([True, False, True, True, False, False, True, False, True, False])
    expected = code_bits(a).copy()
    cycle = code_bits(values)
    expected[mask] = np.resize(cycle, mask.sum())  # np.place repeats the values
    placed = a.copy()
    np.place(placed, mask, values)
    assert np.array_equal(code_bits(placed), expected)

    expected_putmask = code_bits(a).copy()
    expected_putmask[mask] = np.resize(cycle, a.size)[mask]  # np.putmask indexes them
    putmasked = a.copy()
    np.putmask(putmasked, mask, values)
    assert np.array_equal(code_bits(putmasked), expected_putmask)

    target = a.copy()
    np.copyto(target, a[::-1], where=mask)
    expected_copyto = np.where(mask, code_bits(a)[::-1], code_bits(a))
    assert np.array_equal(code_bits(target), expected_copyto)


@pytest.mark.parametrize("name", FORMATS)
def test_other_copy_paths(name):
    a = every_code(name)[:12]
    bits = code_bits(a)
    assert np.array_equal(code_bits(np.take(a, [3, 1, 4])), bits[[3, 1, 4]])
    assert np.array_equal(code_bits(np.repeat(a[:3], 2)), np.repeat(bits[:3], 2))
    assert np.array_equal(code_bits(np.roll(a, 2)), np.roll(bits, 2))
    assert np.array_equal(code_bits(np.flip(a)), bits[::-1])
    chosen = np.choose([0, 1, 0], [a[:3], a[3:6]])
    assert np.array_equal(code_bits(chosen), np.choose([0, 1, 0], [bits[:3], bits[3:6]]))
    put = a.copy()
    np.put(put, [0, 5], a[-2:])
    expected = bits.copy()
    expected[[0, 5]] = bits[-2:]
    assert np.array_equal(code_bits(put), expected)
    assert np.array_equal(code_bits(np.insert(a, 1, a[-1])), np.insert(bits, 1, bits[-1]))
    assert np.array_equal(code_bits(np.delete(a, [0, 2])), np.delete(bits, [0, 2]))
    assert np.array_equal(code_bits(np.concatenate([a[:2], a[5:7]])), np.concatenate([bits[:2], bits[5:7]]))


@pytest.mark.parametrize("name", ["float8_e4m3fn", "bfloat16", "float4_e2m1fn", "int4", "complex32"])
def test_copies_and_fills_of_any_layout_move_the_codes(name):
    # a[::2].copy(), flips, transposed copies and fills go through the
    # format's copy to itself (fixed-size item copies, a value read once):
    # the same bytes as the same moves on the codes viewed as unsigned ints
    dtype = np.dtype(getattr(mf, name))
    codes_type = {1: np.uint8, 2: np.uint16, 4: np.uint32}[dtype.itemsize]
    rng = np.random.default_rng(3)
    values = rng.standard_normal(6000) * 3
    with np.errstate(over="ignore", invalid="ignore"):  # (int4 and FP4 clip)
        a = (values + 1j * values[::-1] if dtype.kind == "c" else values).astype(dtype)
    codes = a.view(codes_type)
    for move in (lambda x: x[::2].copy(), lambda x: x[::-3].copy(), lambda x: np.flip(x).copy(),
                 lambda x: np.ascontiguousarray(x.reshape(60, 100).T), lambda x: x.reshape(60, 100)[:, ::7].copy()):
        assert move(a).view(codes_type).tobytes() == move(codes).tobytes()
    one = a[5]
    for fill in (lambda x: np.full(1001, one, x.dtype), lambda x: np.full((7, 9), one, x.dtype)[:, ::2]):
        got = fill(a)
        assert (got.view(codes_type) == codes[5]).all() and got.dtype == dtype
    b = a.copy()
    b[::3] = one
    b[1::3].fill(a[7])
    expected = codes.copy()
    expected[::3] = codes[5]
    expected[1::3] = codes[7]
    assert b.view(codes_type).tobytes() == expected.tobytes()
