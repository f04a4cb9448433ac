"""mf.save/mf.load (.npy), mf.savez/mf.savez_compressed (.npz) and
mf.save_safetensors/mf.load_safetensors: every code of every format comes back
bit for bit, NumPy's own loader reads the files as plain codes without pickle,
and the safetensors files are the ones the safetensors package and torch read
and write. The expected bytes (headers, packed FP4/FP6 bit streams) are built
here from Python integers and the published layouts, not by minifloat."""

import ast
import io
import json
import math
import struct
import zipfile

import numpy as np
import pytest

import minifloat as mf
import reference as R

NAMES = mf.FORMAT_NAMES
ALL = pytest.mark.parametrize("name", NAMES)

# The safetensors dtype names (the Dtype enum of huggingface/safetensors 0.8),
# written out again rather than read from minifloat._io: the test checks that table.
ST_NAMES = {
    "float8_e4m3fn": "F8_E4M3",
    "float8_e5m2": "F8_E5M2",
    "float8_e4m3fnuz": "F8_E4M3FNUZ",
    "float8_e5m2fnuz": "F8_E5M2FNUZ",
    "float8_e8m0fnu": "F8_E8M0",
    "float6_e2m3fn": "F6_E2M3",
    "float6_e3m2fn": "F6_E3M2",
    "float4_e2m1fn": "F4",
    "bfloat16": "BF16",
}
NOT_IN_SAFETENSORS = [name for name in NAMES if name not in ST_NAMES]
ST_NUMPY = {
    "BOOL": "?", "U8": "u1", "I8": "i1", "U16": "<u2", "I16": "<i2", "U32": "<u4", "I32": "<i4",
    "U64": "<u8", "I64": "<i8", "F16": "<f2", "F32": "<f4", "F64": "<f8", "C64": "<c8",
}
# minifloat format -> torch dtype name (torch's float4_e2m1fn_x2 holds two values per element).
TORCH_NAMES = {
    "float8_e4m3fn": "float8_e4m3fn",
    "float8_e5m2": "float8_e5m2",
    "float8_e4m3fnuz": "float8_e4m3fnuz",
    "float8_e5m2fnuz": "float8_e5m2fnuz",
    "float8_e8m0fnu": "float8_e8m0fnu",
    "bfloat16": "bfloat16",
    "float4_e2m1fn": "float4_e2m1fn_x2",
}


def fmt(name):
    return R.FORMATS[name]


def every_code(name):
    """All 2**bits codes of the format, in order, as an array of the format."""
    return np.arange(fmt(name).ncodes).astype(fmt(name).code_dtype).view(getattr(mf, name))


def codes_of(arr):
    return arr.view(np.uint16 if arr.dtype.itemsize == 2 else np.uint8)


def assert_same_bits(got, expected):
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    np.testing.assert_array_equal(codes_of(got), codes_of(expected))


def packed_reference(codes, bits):
    """The LSB-first bit stream of `codes` (first value in the lowest bits)."""
    total = 0
    for index, code in enumerate(int(c) for c in np.asarray(codes).reshape(-1)):
        assert 0 <= code < 1 << bits
        total |= code << (bits * index)
    return total.to_bytes(math.ceil(np.asarray(codes).size * bits / 8), "little")


def stored_bytes(name, arr):
    """What a safetensors file holds for a minifloat array, from its codes."""
    codes = codes_of(np.ascontiguousarray(arr)).reshape(-1)
    bits = fmt(name).bits
    if bits < 8:
        return packed_reference(codes, bits)
    return b"".join(int(c).to_bytes(bits // 8, "little") for c in codes)


def npy_parts(raw):
    """(header text, data bytes) of a version-1.0 .npy file, read by hand."""
    assert raw[:8] == b"\x93NUMPY\x01\x00"
    (length,) = struct.unpack("<H", raw[8:10])
    return raw[10:10 + length].decode("latin1"), raw[10 + length:]


def safetensors_parts(raw):
    """(header dict, header length, data bytes) of a safetensors file, read by hand."""
    (length,) = struct.unpack("<Q", raw[:8])
    return json.loads(raw[8:8 + length]), length, raw[8 + length:]


# --------------------------------------------------------------------------
# .npy: every code of every format
# --------------------------------------------------------------------------

@ALL
def test_npy_every_code_round_trips(tmp_path, name):
    arr = every_code(name)
    mf.save(tmp_path / "codes", arr)  # ".npy" appended, as np.save does
    path = tmp_path / "codes.npy"
    assert path.exists() and not (tmp_path / "codes").exists()
    back = mf.load(path)
    assert isinstance(back, np.ndarray) and type(back.dtype) is type(arr.dtype)
    assert_same_bits(back, arr)
    # NumPy alone, refusing pickles, reads the codes as plain unsigned integers.
    plain = np.load(path, allow_pickle=False)
    assert plain.dtype == fmt(name).code_dtype
    np.testing.assert_array_equal(plain, np.arange(fmt(name).ncodes))


@ALL
def test_npy_header_layout(tmp_path, name):
    arr = every_code(name)[:6].reshape(2, 3)
    mf.save(tmp_path / "a.npy", arr)
    raw = (tmp_path / "a.npy").read_bytes()
    header, data = npy_parts(raw)
    assert (10 + len(header)) % 64 == 0  # the data stay 64-byte aligned
    assert header.endswith("\n")
    descr = "<u2" if fmt(name).bits == 16 else "|u1"
    assert ast.literal_eval(header) == {"descr": descr, "fortran_order": False, "shape": (2, 3)}
    assert header.rstrip().endswith(f"# minifloat-dtype: {name}")
    width = fmt(name).code_dtype.itemsize
    assert data == b"".join(c.to_bytes(width, "little") for c in range(6))


@ALL
def test_npy_file_objects(name):
    arr = every_code(name)
    buffer = io.BytesIO()
    buffer.write(b"leading bytes")  # the stream need not start at 0
    start = buffer.tell()
    mf.save(buffer, arr)
    buffer.seek(start)
    assert_same_bits(mf.load(buffer), arr)
    buffer.seek(start)
    np.testing.assert_array_equal(np.load(buffer, allow_pickle=False), codes_of(arr))


def test_bfloat16_every_code_round_trips(tmp_path):
    arr = every_code("bfloat16")
    assert arr.size == 65536
    mf.save(tmp_path / "b.npy", arr)
    assert_same_bits(mf.load(tmp_path / "b.npy"), arr)
    plain = np.load(tmp_path / "b.npy", allow_pickle=False)
    assert plain.dtype == np.uint16
    np.testing.assert_array_equal(plain, np.arange(65536))


SHAPE_FORMATS = ["float8_e4m3fn", "float8_e8m0fnu", "float6_e3m2fn", "float4_e2m1fn", "bfloat16"]


def shaped_inputs(name):
    n = fmt(name).ncodes
    base = np.arange(2 * 3 * 4 * 5) % n
    block = base.astype(fmt(name).code_dtype).view(getattr(mf, name)).reshape(2, 3, 4, 5)
    return {
        "0-d": block[1, 2, 3, 4],
        "0-d array": block[1, 2, 3, 4:5].reshape(()),
        "empty": block[:0, 0, 0, 0],
        "empty 2-D": block[0, :, :0, 0],
        "3-D": block[1],
        "Fortran": np.asfortranarray(block[0]),
        "strided": block[:, ::2, 1::2, ::3],
        "reversed": block[::-1, :, ::-1, 0],
        "transposed 3-D": block[0].transpose(1, 0, 2),
        "4-D": block,
    }


@pytest.mark.parametrize("name", SHAPE_FORMATS)
def test_npy_shapes_and_layouts(tmp_path, name):
    for label, value in shaped_inputs(name).items():
        arr = np.asarray(value)
        path = tmp_path / f"{label}.npy"
        mf.save(path, value)
        back = mf.load(path)
        assert_same_bits(back, arr)
        if label == "Fortran":
            assert back.flags.f_contiguous and not back.flags.c_contiguous
            assert ast.literal_eval(npy_parts(path.read_bytes())[0])["fortran_order"] is True
        np.testing.assert_array_equal(np.load(path, allow_pickle=False), codes_of(arr))


def test_npy_scalar(tmp_path):
    mf.save(tmp_path / "s.npy", mf.float8_e5m2(1.5))
    back = mf.load(tmp_path / "s.npy")
    assert back.shape == () and back.dtype == np.dtype(mf.float8_e5m2)
    assert int(codes_of(back)) == 0x3E  # 1.5 = 0 01111 10


def test_npy_sub_byte_high_bits_are_written_as_zero(tmp_path):
    junk = np.array([0xF3, 0x1F, 0xA0], np.uint8).view(mf.float4_e2m1fn)
    mf.save(tmp_path / "j.npy", junk)
    np.testing.assert_array_equal(np.load(tmp_path / "j.npy", allow_pickle=False), [0x3, 0xF, 0x0])
    np.testing.assert_array_equal(codes_of(mf.load(tmp_path / "j.npy")), [0x3, 0xF, 0x0])


@pytest.mark.parametrize("name", ["float8_e4m3fnuz", "bfloat16", "float6_e2m3fn"])
def test_npy_mmap(tmp_path, name):
    arr = every_code(name).reshape(-1, 4)
    path = tmp_path / "m.npy"
    mf.save(path, arr)
    mapped = mf.load(path, mmap_mode="r")
    assert isinstance(mapped, np.memmap)
    assert_same_bits(np.asarray(mapped), arr)
    assert not mapped.flags.writeable
    del mapped
    # r+ writes through to the file.
    mapped = mf.load(path, mmap_mode="r+")
    mapped[0, 0] = arr[1, 1]
    mapped.flush()
    del mapped
    assert codes_of(mf.load(path))[0, 0] == codes_of(arr)[1, 1]
    # c is copy-on-write: the file keeps its bytes.
    mapped = mf.load(path, mmap_mode="c")
    mapped[0, 1] = arr[1, 1]
    assert codes_of(mapped)[0, 1] == codes_of(arr)[1, 1]
    del mapped
    assert codes_of(mf.load(path))[0, 1] == codes_of(arr)[0, 1]
    # NumPy maps the same file as plain codes.
    np.testing.assert_array_equal(np.load(path, mmap_mode="r")[1], codes_of(arr)[1])


def test_npy_mmap_errors(tmp_path):
    mf.save(tmp_path / "m.npy", every_code("float8_e5m2"))
    with pytest.raises(ValueError, match="mmap_mode"):
        mf.load(tmp_path / "m.npy", mmap_mode="w+")
    with open(tmp_path / "m.npy", "rb") as stream, pytest.raises(ValueError, match="existing file handles"):
        mf.load(stream, mmap_mode="r")  # as np.load: memory maps need a path


# --------------------------------------------------------------------------
# .npy: plain files, dtype=, and NumPy's own behaviour
# --------------------------------------------------------------------------

@pytest.mark.parametrize("value", [np.arange(5.0), np.arange(12, dtype=np.int16).reshape(3, 4),
                                   np.array(["a", "bc"]), np.zeros((2, 0), np.uint8), np.float32(3)])
def test_plain_arrays_pass_through(tmp_path, value):
    mf.save(tmp_path / "mf.npy", value)
    np.save(tmp_path / "np.npy", value, allow_pickle=False)
    assert (tmp_path / "mf.npy").read_bytes() == (tmp_path / "np.npy").read_bytes()
    back = mf.load(tmp_path / "np.npy")
    assert back.dtype == np.asarray(value).dtype
    np.testing.assert_array_equal(back, value)


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float4_e2m1fn", "bfloat16"])
def test_plain_codes_with_dtype(tmp_path, name):
    arr = every_code(name)
    np.save(tmp_path / "codes.npy", codes_of(arr))  # a file minifloat did not write
    assert mf.load(tmp_path / "codes.npy").dtype == fmt(name).code_dtype
    assert_same_bits(mf.load(tmp_path / "codes.npy", dtype=name), arr)
    assert_same_bits(mf.load(tmp_path / "codes.npy", dtype=getattr(mf, name)), arr)
    mapped = mf.load(tmp_path / "codes.npy", dtype=name, mmap_mode="r")
    assert isinstance(mapped, np.memmap)
    assert_same_bits(np.asarray(mapped), arr)


def test_plain_big_endian_codes_with_dtype(tmp_path):
    arr = every_code("bfloat16")
    np.save(tmp_path / "be.npy", codes_of(arr).astype(">u2"))
    assert_same_bits(mf.load(tmp_path / "be.npy", dtype=mf.bfloat16), arr)
    with pytest.raises(ValueError, match="byte-swapped"):
        mf.load(tmp_path / "be.npy", dtype=mf.bfloat16, mmap_mode="r")


def test_dtype_argument_errors(tmp_path):
    np.save(tmp_path / "u16.npy", np.arange(4, dtype=np.uint16))
    np.save(tmp_path / "f32.npy", np.arange(4, dtype=np.float32))
    np.save(tmp_path / "wide.npy", np.array([0, 15, 16], np.uint8))
    with pytest.raises(ValueError, match="uint16 data; float8_e4m3fn needs its codes as uint8"):
        mf.load(tmp_path / "u16.npy", dtype=mf.float8_e4m3fn)
    with pytest.raises(ValueError, match="float32 data"):
        mf.load(tmp_path / "f32.npy", dtype=mf.bfloat16)
    with pytest.raises(ValueError, match="code 0x10.*float4_e2m1fn's 4 bits"):
        mf.load(tmp_path / "wide.npy", dtype=mf.float4_e2m1fn)
    with pytest.raises(TypeError, match="minifloat dtype"):
        mf.load(tmp_path / "u16.npy", dtype=np.float16)
    mf.save(tmp_path / "e5.npy", every_code("float8_e5m2"))
    with pytest.raises(ValueError, match="holds float8_e5m2 codes, not dtype=float8_e4m3fn"):
        mf.load(tmp_path / "e5.npy", dtype=mf.float8_e4m3fn)
    assert_same_bits(mf.load(tmp_path / "e5.npy", dtype="float8_e5m2"), every_code("float8_e5m2"))


def test_np_save_pickles_minifloat_arrays(tmp_path):
    """Why mf.save exists: np.save stores a new-style dtype only by pickle."""
    arr = every_code("float8_e4m3fn")
    with pytest.warns(UserWarning, match="pickle"):
        np.save(tmp_path / "pickled.npy", arr)
    header, _ = npy_parts((tmp_path / "pickled.npy").read_bytes())
    assert ast.literal_eval(header)["descr"] == "|O"
    # allow_pickle=True keeps the dtype (the pickled path) ...
    back = np.load(tmp_path / "pickled.npy", allow_pickle=True)
    assert_same_bits(back, arr)
    # ... and allow_pickle=False refuses the file, as does mf.load.
    with pytest.raises(ValueError, match="allow_pickle=False"):
        np.load(tmp_path / "pickled.npy", allow_pickle=False)
    with pytest.raises(ValueError, match=r"pickled objects.*allow_pickle=True\) reads it"):
        mf.load(tmp_path / "pickled.npy")
    with pytest.warns(UserWarning, match="pickle"), pytest.raises(ValueError, match="allow_pickle=False"):
        np.save(tmp_path / "refused.npy", arr, allow_pickle=False)


def test_numpy_rejects_an_extra_header_key(tmp_path):
    """Why the format's name is a comment and not a header key."""
    text = "{'descr': '|u1', 'fortran_order': False, 'shape': (1,), 'minifloat': 'float8_e4m3fn', }"
    padding = -(10 + len(text) + 1) % 64
    raw = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text) + padding + 1)
    raw += (text + " " * padding + "\n").encode() + b"\x38"
    (tmp_path / "key.npy").write_bytes(raw)
    with pytest.raises(ValueError, match="correct keys"):
        np.load(tmp_path / "key.npy", allow_pickle=False)


# --------------------------------------------------------------------------
# .npy: bad input and damaged files
# --------------------------------------------------------------------------

@pytest.mark.parametrize("value", [[1.0, 2.0], None, "text", 3.5, b"\x00"])
def test_save_needs_an_array(tmp_path, value):
    with pytest.raises(TypeError, match="must be a NumPy array"):
        mf.save(tmp_path / "x.npy", value)
    assert not (tmp_path / "x.npy").exists()  # nothing written before the check


def test_save_refuses_pickle_only_dtypes(tmp_path):
    with pytest.raises(ValueError, match="only pickle can store"):
        mf.save(tmp_path / "o.npy", np.array([1, "a"], dtype=object))
    with pytest.raises(ValueError, match="only pickle can store"):
        mf.save(tmp_path / "s.npy", np.array(["a"], dtype=np.dtypes.StringDType()))
    assert not (tmp_path / "o.npy").exists() and not (tmp_path / "s.npy").exists()


def test_save_and_load_need_a_file():
    with pytest.raises(TypeError, match="path"):
        mf.save(42, every_code("float8_e4m3fn"))
    with pytest.raises(TypeError, match="path"):
        mf.load(42)
    with pytest.raises(TypeError, match="path"):
        mf.load(b"bytes are not a path")


def marked_file(tmp_path, name="float8_e4m3fn"):
    mf.save(tmp_path / "good.npy", every_code(name))
    return (tmp_path / "good.npy").read_bytes()


def test_damaged_npy_files(tmp_path):
    raw = marked_file(tmp_path)
    header_end = 10 + struct.unpack("<H", raw[8:10])[0]
    cases = {
        "empty": (b"", "empty or truncated"),
        "magic only": (raw[:6], "EOF"),
        "cut in the header": (raw[:40], "EOF"),
        "cut in the data": (raw[:header_end + 100], "could only read|EOF"),
        "pickle": (b"\x80\x04\x95" + bytes(20), "pickle"),
        "text": (b"hello, world, not an array", "not a .npy or .npz"),
        "safetensors": (struct.pack("<Q", 2) + b"{}", "load_safetensors"),
    }
    for label, (content, message) in cases.items():
        path = tmp_path / f"{label}.npy"
        path.write_bytes(content)
        with pytest.raises(ValueError, match=message):
            mf.load(path)
        with pytest.raises(ValueError, match=message):
            mf.load(io.BytesIO(content))


def rewrite_header(raw, old, new):
    """The file with `old` replaced by `new` in its header, padding adjusted."""
    (length,) = struct.unpack("<H", raw[8:10])
    header = raw[10:10 + length].decode("latin1")
    assert old in header
    header = header.replace(old, new).rstrip("\n ")
    padding = -(10 + len(header) + 1) % 64
    return raw[:8] + struct.pack("<H", len(header) + padding + 1) + \
        (header + " " * padding + "\n").encode("latin1") + raw[10 + length:]


def test_marker_errors(tmp_path):
    raw = marked_file(tmp_path)
    unknown = rewrite_header(raw, "minifloat-dtype: float8_e4m3fn", "minifloat-dtype: float7_e9m9")
    (tmp_path / "unknown.npy").write_bytes(unknown)
    with pytest.raises(ValueError, match="'float7_e9m9', which this version of minifloat does not have"):
        mf.load(tmp_path / "unknown.npy")
    np.testing.assert_array_equal(np.load(tmp_path / "unknown.npy", allow_pickle=False), np.arange(256))

    mismatch = rewrite_header(raw, "'|u1'", "'|i1'")
    (tmp_path / "mismatch.npy").write_bytes(mismatch)
    with pytest.raises(ValueError, match="says it holds float8_e4m3fn codes, but its data are '\\|i1'"):
        mf.load(tmp_path / "mismatch.npy")

    fp4 = rewrite_header(raw, "float8_e4m3fn", "float4_e2m1fn")
    (tmp_path / "wide.npy").write_bytes(fp4)
    with pytest.raises(ValueError, match="code 0xff.*not a float4_e2m1fn file"):
        mf.load(tmp_path / "wide.npy")

    # A comment that is not the marker leaves the file plain.
    other = rewrite_header(raw, "# minifloat-dtype: float8_e4m3fn", "# written by hand")
    (tmp_path / "other.npy").write_bytes(other)
    assert mf.load(tmp_path / "other.npy").dtype == np.uint8


# --------------------------------------------------------------------------
# .npz
# --------------------------------------------------------------------------

@pytest.mark.parametrize("writer", [mf.savez, mf.savez_compressed])
def test_npz_every_format(tmp_path, writer):
    arrays = {name: every_code(name) for name in NAMES}
    plain = {"ints": np.arange(10), "floats": np.linspace(0, 1, 7).reshape(7, 1),
             "codes": np.arange(256, dtype=np.uint8)}
    writer(tmp_path / "all", every_code("float4_e2m1fn"), **arrays, **plain)
    path = tmp_path / "all.npz"
    with zipfile.ZipFile(path) as archive:
        assert sorted(archive.namelist()) == sorted(f"{k}.npy" for k in [*arrays, *plain, "arr_0"])
        kinds = {info.compress_type for info in archive.infolist()}
        assert kinds == {zipfile.ZIP_DEFLATED if writer is mf.savez_compressed else zipfile.ZIP_STORED}
    with mf.load(path) as loaded:
        assert isinstance(loaded, mf.NpzArchive)
        assert set(loaded) == {*arrays, *plain, "arr_0"} and len(loaded) == len(arrays) + 4
        for name, arr in arrays.items():
            assert_same_bits(loaded[name], arr)
            assert_same_bits(loaded[name + ".npy"], arr)
        assert_same_bits(loaded["arr_0"], every_code("float4_e2m1fn"))
        for name, value in plain.items():
            assert loaded[name].dtype == value.dtype
            np.testing.assert_array_equal(loaded[name], value)
        assert "ints" in loaded and "ints.npy" in loaded and "missing" not in loaded
        with pytest.raises(KeyError):
            loaded["missing"]
    # NumPy opens the archive without pickle and sees the codes.
    with np.load(path, allow_pickle=False) as numpy_view:
        for name in NAMES:
            assert numpy_view[name].dtype == fmt(name).code_dtype
            np.testing.assert_array_equal(numpy_view[name], np.arange(fmt(name).ncodes))


def test_npz_shapes_and_file_objects():
    inputs = shaped_inputs("bfloat16")
    buffer = io.BytesIO()
    mf.savez_compressed(buffer, **inputs)
    buffer.seek(0)
    loaded = mf.load(buffer)
    for label, value in inputs.items():
        assert_same_bits(loaded[label], np.asarray(value))
    assert loaded["Fortran"].flags.f_contiguous
    loaded.close()


def test_npz_archive_dropped_unclosed_closes_its_files(tmp_path):
    """mf.load(...)["a"] without a with-block: the archive closes its files
    when dropped (no ResourceWarning), as NumPy's NpzFile does."""
    import gc
    import sys
    import warnings

    path = tmp_path / "x.npz"
    mf.savez(path, a=np.array([1.0, 2.5], mf.float8_e4m3fn))
    raised = []  # a warning turned error in a finalizer reaches the unraisable hook
    previous_hook = sys.unraisablehook
    sys.unraisablehook = raised.append
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", ResourceWarning)
            values = mf.load(path)["a"]
            gc.collect()
    finally:
        sys.unraisablehook = previous_hook
    assert not raised, [str(r.exc_value) for r in raised]
    assert values.dtype == np.dtype(mf.float8_e4m3fn) and values.tolist() == [1.0, 2.5]


def test_npz_dtype_mapping(tmp_path):
    np.savez(tmp_path / "plain.npz", w=np.arange(256, dtype=np.uint8), s=np.arange(3.0))
    with mf.load(tmp_path / "plain.npz", dtype={"w": "float8_e5m2fnuz"}) as loaded:
        assert_same_bits(loaded["w"], every_code("float8_e5m2fnuz"))
        assert loaded["s"].dtype == np.float64
    with pytest.raises(TypeError, match="dict"):
        mf.load(tmp_path / "plain.npz", dtype=mf.float8_e5m2)
    with pytest.raises(ValueError, match="does not have"):
        mf.load(tmp_path / "plain.npz", dtype={"nope": mf.float8_e5m2})


def test_integer_types_are_refused_with_the_view_to_save(tmp_path):
    """The sub-byte integers have no code in these files; the error says how
    to store them (their bytes are the values) and the way back works."""
    a = np.array([7, -8, 0, -1], dtype=mf.int4)
    with pytest.raises(ValueError, match=r"integer type int4.*arr\.view\(np\.int8\).*\.view\(mf\.int4\)"):
        mf.save(tmp_path / "a.npy", a)
    with pytest.raises(ValueError, match=r"integer type uint2.*arr\.view\(np\.uint8\)"):
        mf.save_safetensors(tmp_path / "a.safetensors", {"u": np.array([3], dtype=mf.uint2)})
    mf.save(tmp_path / "a.npy", a.view(np.int8))
    back = mf.load(tmp_path / "a.npy").view(mf.int4)
    assert back.dtype == np.dtype(mf.int4) and back.tolist() == [7, -8, 0, -1]


def test_npz_errors(tmp_path):
    with pytest.raises(ValueError, match="positional array 0 and the keyword 'arr_0'"):
        mf.savez(tmp_path / "x", every_code("float8_e4m3fn"), arr_0=np.arange(3))
    with pytest.raises(TypeError, match="'b'.*must be a NumPy array"):
        mf.savez(tmp_path / "x", a=np.arange(3), b=[1, 2])
    with pytest.raises(ValueError, match="only pickle"):
        mf.savez_compressed(tmp_path / "x", a=np.array([None]))
    assert not (tmp_path / "x.npz").exists()
    with pytest.raises(TypeError, match="path"):
        mf.savez(3.5, a=np.arange(3))
    # A damaged member fails when it is read.
    mf.savez(tmp_path / "ok", a=every_code("float8_e4m3fn"))
    raw = (tmp_path / "ok.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ValueError, match="damaged .npz archive"):
        mf.load(tmp_path / "cut.npz")
    # A flipped byte in a member's data fails its CRC when the member is read.
    with zipfile.ZipFile(tmp_path / "ok.npz") as archive:
        data_start = archive.getinfo("a.npy").header_offset + 30 + len("a.npy") + 200
    flipped = bytearray(raw)
    flipped[data_start] ^= 0xFF
    (tmp_path / "flipped.npz").write_bytes(bytes(flipped))
    with mf.load(tmp_path / "flipped.npz") as loaded, pytest.raises(ValueError, match="'a' is damaged"):
        loaded["a"]


# --------------------------------------------------------------------------
# safetensors: minifloat's own reader and writer
# --------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(ST_NAMES))
def test_safetensors_every_code(tmp_path, name):
    arr = every_code(name)
    path = tmp_path / "t.safetensors"
    mf.save_safetensors(path, {"codes": arr})
    back = mf.load_safetensors(path)
    assert list(back) == ["codes"]
    assert_same_bits(back["codes"], arr)
    header, length, data = safetensors_parts(path.read_bytes())
    assert length % 8 == 0
    assert header == {"codes": {"dtype": ST_NAMES[name], "shape": [arr.size],
                                "data_offsets": [0, len(data)]}}
    assert data == stored_bytes(name, arr)


@pytest.mark.parametrize("name", list(ST_NAMES))
def test_safetensors_shapes(name):
    # (whole bytes; FP4: an even last axis, as torch reads F4 in pairs along it)
    inputs = {label: value for label, value in shaped_inputs(name).items()
              if np.asarray(value).size * fmt(name).bits % 8 == 0
              and (ST_NAMES[name] != "F4" or np.asarray(value).shape[-1] % 2 == 0)}
    buffer = io.BytesIO()
    mf.save_safetensors(buffer, inputs)
    buffer.seek(0)
    back = mf.load_safetensors(buffer)
    assert set(back) == set(inputs)
    header, _, data = safetensors_parts(buffer.getvalue())
    for label, value in inputs.items():
        arr = np.asarray(value)
        assert_same_bits(back[label], arr)
        begin, end = header[label]["data_offsets"]
        assert header[label]["shape"] == list(arr.shape)
        assert data[begin:end] == stored_bytes(name, arr)


@pytest.mark.parametrize("name", NOT_IN_SAFETENSORS)
def test_safetensors_refuses_unnamed_formats(tmp_path, name):
    with pytest.raises(ValueError, match=f"{name}, which the safetensors format has no dtype for.*"
                                         "float8_e4m3fn, float8_e5m2, float8_e4m3fnuz"):
        mf.save_safetensors(tmp_path / "x.safetensors", {"x": every_code(name)})
    assert not (tmp_path / "x.safetensors").exists()


@pytest.mark.parametrize("st_name, stored", list(ST_NUMPY.items()))
def test_safetensors_numpy_dtypes(tmp_path, st_name, stored):
    values = np.arange(-3, 9).reshape(3, 4) % (2 if st_name == "BOOL" else 100)
    arr = values.astype(np.dtype(stored))
    swapped = arr.astype(arr.dtype.newbyteorder(">")) if arr.dtype.itemsize > 1 else arr
    mf.save_safetensors(tmp_path / "n.safetensors", {"native": arr, "swapped": swapped})
    back = mf.load_safetensors(tmp_path / "n.safetensors")
    for key in ("native", "swapped"):
        assert back[key].dtype == np.dtype(stored).newbyteorder("=")
        np.testing.assert_array_equal(back[key], arr)
    header, _, data = safetensors_parts((tmp_path / "n.safetensors").read_bytes())
    for key in ("native", "swapped"):
        assert header[key]["dtype"] == st_name
        begin, end = header[key]["data_offsets"]
        assert data[begin:end] == arr.astype(np.dtype(stored)).tobytes()


def test_safetensors_metadata_and_order(tmp_path):
    tensors = {"z_fp4": every_code("float4_e2m1fn"), "a_f64": np.arange(3.0),
               "m_bf16": every_code("bfloat16")[:10], "b_e8m0": every_code("float8_e8m0fnu")}
    metadata = {"format": "pt", "note": "ünïcode"}
    mf.save_safetensors(tmp_path / "m.safetensors", tensors, metadata=metadata)
    back, meta = mf.load_safetensors(tmp_path / "m.safetensors", return_metadata=True)
    assert meta == metadata
    for key, value in tensors.items():
        if isinstance(value.dtype, mf.MinifloatDType):
            assert_same_bits(back[key], value)
        else:
            np.testing.assert_array_equal(back[key], value)
    header, _, _ = safetensors_parts((tmp_path / "m.safetensors").read_bytes())
    # Wider types first, so each tensor's data start at a multiple of its size.
    starts = {k: v["data_offsets"][0] for k, v in header.items() if k != "__metadata__"}
    assert sorted(starts, key=starts.get) == ["a_f64", "m_bf16", "b_e8m0", "z_fp4"]
    assert starts["m_bf16"] % 2 == 0
    mf.save_safetensors(tmp_path / "none.safetensors", {"x": np.arange(2.0)})
    assert mf.load_safetensors(tmp_path / "none.safetensors", return_metadata=True)[1] is None
    mf.save_safetensors(tmp_path / "empty.safetensors", {})
    assert mf.load_safetensors(tmp_path / "empty.safetensors") == {}


def test_safetensors_bad_input(tmp_path):
    path = tmp_path / "bad.safetensors"
    fp4 = every_code("float4_e2m1fn")
    fp6 = every_code("float6_e2m3fn")
    cases = [
        ([np.arange(3)], {}, TypeError, "dict of name -> array"),
        ({"x": [1, 2]}, {}, TypeError, "must be a NumPy array"),
        ({1: np.arange(2)}, {}, TypeError, "names must be str"),
        ({"__metadata__": np.arange(2)}, {}, ValueError, "reserved"),
        ({"x": np.arange(2)}, {"metadata": {"k": 1}}, TypeError, "str -> str"),
        ({"x": np.arange(2)}, {"metadata": ["k"]}, TypeError, "str -> str"),
        ({"x": fp4[:3]}, {}, ValueError, "whole bytes"),
        # torch reads F4 as pairs along the last axis and refuses the whole file otherwise
        ({"x": fp4[:6].reshape(2, 3)}, {}, ValueError, "even last axis"),
        ({"x": fp6[:6]}, {}, ValueError, "whole bytes"),
        ({"x": np.arange(3, dtype=np.complex128)}, {}, ValueError, "no dtype"),
        ({"x": np.array(["s"])}, {}, ValueError, "no dtype"),
        ({"x": np.array([1], dtype=object)}, {}, ValueError, "only pickle"),
    ]
    for tensors, kwargs, error, message in cases:
        with pytest.raises(error, match=message):
            mf.save_safetensors(path, tensors, **kwargs)
        assert not path.exists()
    with pytest.raises(TypeError, match="path"):
        mf.save_safetensors(None, {})
    with pytest.raises(TypeError, match="path"):
        mf.load_safetensors(12)


def safetensors_file(header, data, length=None):
    text = json.dumps(header).encode() if not isinstance(header, bytes) else header
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text) if length is None else length) + text + data


def test_safetensors_damaged_files(tmp_path):
    entry = {"dtype": "F8_E4M3", "shape": [4], "data_offsets": [0, 4]}
    good = safetensors_file({"x": entry}, bytes(4))
    assert codes_of(mf.load_safetensors(io.BytesIO(good))["x"]).tolist() == [0, 0, 0, 0]
    cases = {
        "empty": (b"", "8-byte header length"),
        "short": (b"\x01\x02\x03", "8-byte header length"),
        "length beyond the file": (safetensors_file({"x": entry}, bytes(4), length=4096),
                                   "runs beyond the end of the file"),
        "huge length": (struct.pack("<Q", 2**63) + b"{}      ", "beyond the 100000000 bytes"),
        "cut data": (good[:-1], "data section has 3 bytes, but the tensors cover 4"),
        "extra data": (good + b"\x00", "data section has 5 bytes"),
        "not utf-8": (safetensors_file(b'{"\xff": 1}', b""), "not UTF-8"),
        "not json": (safetensors_file(b"{'x': 1}", b""), "not valid JSON"),
        "not an object": (safetensors_file([1, 2], b""), "not a JSON object"),
        "duplicate": (safetensors_file(b'{"x":' + json.dumps(entry).encode() + b',"x":'
                                       + json.dumps(entry).encode() + b"}", bytes(4)), "twice"),
        "unknown dtype": (safetensors_file({"x": {**entry, "dtype": "F8_E3M4"}}, bytes(4)),
                          "dtype 'F8_E3M4'"),
        "missing key": (safetensors_file({"x": {"dtype": "U8", "shape": [4]}}, bytes(4)),
                        "needs dtype, shape and data_offsets"),
        "bad shape": (safetensors_file({"x": {**entry, "shape": [-4]}}, bytes(4)), "shape"),
        "bool shape": (safetensors_file({"x": {**entry, "shape": [True]}}, bytes(1)), "shape"),
        "bad offsets": (safetensors_file({"x": {**entry, "data_offsets": [4, 0]}}, bytes(4)),
                        "data_offsets"),
        "size mismatch": (safetensors_file({"x": {**entry, "shape": [5]}}, bytes(4)),
                          "takes 5 bytes"),
        "hole": (safetensors_file({"x": {**entry, "data_offsets": [1, 5]}}, bytes(5)),
                 "starts at byte 1"),
        "overlap": (safetensors_file({"x": entry, "y": {**entry, "data_offsets": [2, 6]}}, bytes(6)),
                    "holes or overlaps"),
        "half byte": (safetensors_file({"x": {"dtype": "F4", "shape": [3], "data_offsets": [0, 2]}},
                                       bytes(2)), "do not fill whole bytes"),
        "bad metadata": (safetensors_file({"__metadata__": {"k": 3}}, b""), "str to str"),
    }
    for label, (content, message) in cases.items():
        path = tmp_path / "damaged.safetensors"
        path.write_bytes(content)
        with pytest.raises(ValueError, match=message):
            mf.load_safetensors(path)
        with pytest.raises(ValueError, match=message):
            mf.load_safetensors(io.BytesIO(content))


# --------------------------------------------------------------------------
# safetensors: the safetensors package (the reference implementation)
# --------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(ST_NAMES))
def test_reference_reads_minifloat_files(name):
    safetensors = pytest.importorskip("safetensors")
    arr = every_code(name)
    tensors = {"flat": arr, "matrix": arr.reshape(-1, 4)[::-1]}
    buffer = io.BytesIO()
    mf.save_safetensors(buffer, tensors, metadata={"who": "minifloat"})
    parsed = dict(safetensors.deserialize(buffer.getvalue()))  # the Rust core validates the file
    assert set(parsed) == set(tensors)
    for key, value in tensors.items():
        assert parsed[key]["dtype"] == ST_NAMES[name]
        assert list(parsed[key]["shape"]) == list(value.shape)
        assert bytes(parsed[key]["data"]) == stored_bytes(name, value)


# Names the reference's Python writer (safetensors.TensorSpec) accepts, and the
# factor its storage shape has to the file's shape.
SPEC_NAMES = {"float8_e4m3fn": ("float8_e4m3fn", 1), "float8_e5m2": ("float8_e5m2", 1),
              "float8_e4m3fnuz": ("float8_e4m3fnuz", 1), "float8_e5m2fnuz": ("float8_e5m2fnuz", 1),
              "float8_e8m0fnu": ("float8_e8m0fnu", 1), "bfloat16": ("bfloat16", 1),
              "float4_e2m1fn": ("float4_e2m1fn_x2", 2)}


@pytest.mark.parametrize("name", list(SPEC_NAMES))
def test_minifloat_reads_reference_files(tmp_path, name):
    safetensors = pytest.importorskip("safetensors")
    if not hasattr(safetensors, "TensorSpec"):
        pytest.skip("this safetensors has no TensorSpec writer (0.8 and later)")
    arr = every_code(name).reshape(4, -1)
    data = np.frombuffer(stored_bytes(name, arr), np.uint8).copy()
    spec_name, per_element = SPEC_NAMES[name]
    storage_shape = [4, arr.shape[1] // per_element]
    spec = safetensors.TensorSpec(dtype=spec_name, shape=storage_shape,
                                  data_ptr=data.ctypes.data, data_len=data.size)
    safetensors.serialize_file({"w": spec}, str(tmp_path / "ref.safetensors"), {"k": "v"})
    back, meta = mf.load_safetensors(tmp_path / "ref.safetensors", return_metadata=True)
    assert meta == {"k": "v"}
    assert_same_bits(back["w"], arr)


def test_numpy_framework_interop(tmp_path):
    st_numpy = pytest.importorskip("safetensors.numpy")
    tensors = {key: (np.arange(12).reshape(3, 4) % 2).astype(stored) for key, stored in ST_NUMPY.items()}
    st_numpy.save_file(tensors, str(tmp_path / "np.safetensors"))
    back = mf.load_safetensors(tmp_path / "np.safetensors")
    mf.save_safetensors(tmp_path / "mf.safetensors", tensors)
    theirs = st_numpy.load_file(str(tmp_path / "mf.safetensors"))
    for key, value in tensors.items():
        for got in (back[key], theirs[key]):
            assert got.dtype == value.dtype.newbyteorder("=")
            np.testing.assert_array_equal(got, value)


# --------------------------------------------------------------------------
# safetensors: torch
# --------------------------------------------------------------------------

def torch_dtype_or_skip(torch, torch_name):
    dtype = getattr(torch, torch_name, None)
    if dtype is None:
        pytest.skip(f"this torch has no {torch_name}")
    return dtype


def torch_bytes(torch, tensor):
    return tensor.contiguous().view(torch.uint8).numpy().tobytes()


@pytest.mark.parametrize("name", list(TORCH_NAMES))
def test_torch_reads_minifloat_files(tmp_path, name):
    torch = pytest.importorskip("torch")
    st_torch = pytest.importorskip("safetensors.torch")
    torch_dtype = torch_dtype_or_skip(torch, TORCH_NAMES[name])
    arr = every_code(name).reshape(4, -1)
    mf.save_safetensors(tmp_path / "mf.safetensors", {"w": arr})
    tensor = st_torch.load_file(str(tmp_path / "mf.safetensors"))["w"]
    assert tensor.dtype == torch_dtype
    packed = 2 if name == "float4_e2m1fn" else 1  # torch counts FP4 pairs
    assert tuple(tensor.shape) == (4, arr.shape[1] // packed)
    assert torch_bytes(torch, tensor) == stored_bytes(name, arr)


@pytest.mark.parametrize("name", list(TORCH_NAMES))
def test_minifloat_reads_torch_files(tmp_path, name):
    torch = pytest.importorskip("torch")
    st_torch = pytest.importorskip("safetensors.torch")
    torch_dtype = torch_dtype_or_skip(torch, TORCH_NAMES[name])
    arr = every_code(name).reshape(4, -1)
    raw = np.frombuffer(stored_bytes(name, arr), np.uint8).copy()
    tensor = torch.from_numpy(raw).view(torch_dtype).reshape(4, -1)
    st_torch.save_file({"w": tensor, "f": torch.arange(5, dtype=torch.float32)},
                       str(tmp_path / "torch.safetensors"), metadata={"format": "pt"})
    back, meta = mf.load_safetensors(tmp_path / "torch.safetensors", return_metadata=True)
    assert meta == {"format": "pt"}
    assert_same_bits(back["w"], arr)
    np.testing.assert_array_equal(back["f"], np.arange(5, dtype=np.float32))


def test_torch_float4_nibble_order(tmp_path):
    """torch's float4_e2m1fn_x2 holds the first value in the low nibble."""
    torch = pytest.importorskip("torch")
    st_torch = pytest.importorskip("safetensors.torch")
    torch_dtype_or_skip(torch, "float4_e2m1fn_x2")
    mf.save_safetensors(tmp_path / "fp4.safetensors", {"w": every_code("float4_e2m1fn")})
    pairs = st_torch.load_file(str(tmp_path / "fp4.safetensors"))["w"].view(torch.uint8)
    low, high = (pairs & 0xF).tolist(), (pairs >> 4).tolist()
    assert [code for pair in zip(low, high) for code in pair] == list(range(16))


@pytest.mark.parametrize("name", [n for n in TORCH_NAMES if R.FORMATS[n].bits >= 8])
def test_torch_values_match_the_format(tmp_path, name):
    """Each safetensors name means the same format on both sides: torch's
    values of the codes minifloat wrote are the format's exact values."""
    torch = pytest.importorskip("torch")
    st_torch = pytest.importorskip("safetensors.torch")
    torch_dtype_or_skip(torch, TORCH_NAMES[name])
    arr = every_code(name)
    mf.save_safetensors(tmp_path / "v.safetensors", {"w": arr})
    values = st_torch.load_file(str(tmp_path / "v.safetensors"))["w"].double().numpy()
    codes = range(fmt(name).ncodes) if fmt(name).bits == 8 else range(0, 65536, 7)
    for code in codes:
        expected = R.decode_float(fmt(name), code)
        if math.isnan(expected):
            assert math.isnan(values[code]), (name, hex(code))
        else:
            assert values[code] == expected and (math.copysign(1, values[code])
                                                 == math.copysign(1, expected)), (name, hex(code))
