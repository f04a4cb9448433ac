"""DLPack interop: mf.from_dlpack / mf.to_dlpack.

Three kinds of partner:
* a minimal producer written here with ctypes (no torch needed): versioned
  and legacy capsules, every DLPack 1.1 minifloat type code, packed FP6/FP4,
  byte offsets, NULL strides, deleter bookkeeping, rejected type codes;
* torch (skipped when absent): every torch float8 dtype, bfloat16 and
  float4_e2m1fn_x2 in both directions;
* ml_dtypes (skipped when absent): moving arrays by reinterpreting bits.
"""

import ctypes
import gc

import numpy as np
import pytest

import cast_mode_reference as I
import reference as R

NAMES = R.FORMAT_NAMES
# DLPack 1.1's type codes for minifloat formats (dlpack.h), each with the
# values it denotes; a format exports under a code when its description has
# those values (whatever its name), formats without one raise BufferError.
_DLPACK_TYPES = [
    (4, 16, R.Fmt("kDLBfloat", 8, 7, 127)),
    (7, 8, R.Fmt("kDLFloat8_e3m4", 3, 4, 3)),
    (8, 8, R.Fmt("kDLFloat8_e4m3", 4, 3, 7)),
    (9, 8, R.Fmt("kDLFloat8_e4m3b11fnuz", 4, 3, 11, infinities=False, nan="negative_zero", neg_zero=False)),
    (10, 8, R.Fmt("kDLFloat8_e4m3fn", 4, 3, 7, infinities=False, nan="all_ones")),
    (11, 8, R.Fmt("kDLFloat8_e4m3fnuz", 4, 3, 8, infinities=False, nan="negative_zero", neg_zero=False)),
    (12, 8, R.Fmt("kDLFloat8_e5m2", 5, 2, 15)),
    (13, 8, R.Fmt("kDLFloat8_e5m2fnuz", 5, 2, 16, infinities=False, nan="negative_zero", neg_zero=False)),
    (14, 8, R.Fmt("kDLFloat8_e8m0fnu", 8, 0, 127, signed=False, infinities=False, nan="all_ones",
                  neg_zero=False, subnormals=False)),
    (15, 6, R.Fmt("kDLFloat6_e2m3fn", 2, 3, 1, infinities=False, nan=False)),
    (16, 6, R.Fmt("kDLFloat6_e3m2fn", 3, 2, 3, infinities=False, nan=False)),
    (17, 4, R.Fmt("kDLFloat4_e2m1fn", 2, 1, 1, infinities=False, nan=False)),
]


def _values(f):
    return R.meaning(f)[:6] + R.meaning(f)[7:]  # all but the overflow policy


def type_code_of(f):
    """(code, bits) DLPack gives the values of format f, or None."""
    return next(((code, bits) for code, bits, g in _DLPACK_TYPES if _values(g) == _values(R.fmt_of(f))), None)


TYPE_CODES = {n: type_code_of(n) for n in NAMES if type_code_of(n) is not None}
WITHOUT_CODE = [n for n in NAMES if n not in TYPE_CODES]
# the first format with the values of each code (what an import gives)
IMPORTED_AS = {code: next(n for n in NAMES if TYPE_CODES.get(n, (None,))[0] == code) for code, _, _ in _DLPACK_TYPES}
BYTE_FORMATS = [n for n in TYPE_CODES if R.FORMATS[n].bits in (8, 16)]
KDLCPU = 1


# --------------------------------------------------------------------------
# DLPack structures (dlpack.h, ABI 1.x)
# --------------------------------------------------------------------------


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


_py = ctypes.PyDLL(None)  # private handle: argtypes here do not leak into ctypes.pythonapi
_capsule_new = _py.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
_capsule_get = _py.PyCapsule_GetPointer
_capsule_get.restype = ctypes.c_void_p
_capsule_get.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_name = _py.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]
_NAME_V = ctypes.create_string_buffer(b"dltensor_versioned")
_NAME_L = ctypes.create_string_buffer(b"dltensor")
_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def capsule_info(cap):
    """Parse a (versioned or legacy) DLPack capsule without consuming it."""
    name = _capsule_name(cap)
    versioned = name == b"dltensor_versioned"
    assert name in (b"dltensor_versioned", b"dltensor"), name
    p = _capsule_get(cap, name)
    m = (DLManagedTensorVersioned if versioned else DLManagedTensor).from_address(p)
    t = m.dl_tensor
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = tuple(t.strides[i] for i in range(t.ndim)) if t.strides else None
    out = dict(code=t.dtype.code, bits=t.dtype.bits, lanes=t.dtype.lanes, shape=shape,
               strides=strides, device=(t.device.device_type, t.device.device_id),
               data=t.data, byte_offset=t.byte_offset, versioned=versioned)
    if versioned:
        out["version"] = (m.version.major, m.version.minor)
        out["flags"] = m.flags
    return out


class Producer:
    """A minimal DLPack producer over a uint8 buffer it keeps alive.

    ``__dlpack__`` follows the Python array API protocol: a versioned capsule
    when the consumer passes max_version >= (1, 0), a legacy one otherwise.
    The deleter counts its calls."""

    def __init__(self, storage, shape, code, bits, lanes=1, strides="C", byte_offset=0,
                 device=(KDLCPU, 0), version=(1, 1), flags=0):
        self.storage = np.ascontiguousarray(storage).view(np.uint8).reshape(-1)
        self.shape = tuple(shape)
        if strides == "C":
            st, acc = [], 1
            for s in reversed(self.shape):
                st.append(acc)
                acc *= s
            strides = tuple(reversed(st))
        self.strides = strides
        self.code, self.bits, self.lanes = code, bits, lanes
        self.byte_offset = byte_offset
        self.device = device
        self.version = version
        self.flags = flags
        self.deleted = 0
        self.calls = []
        self.capsules = []
        self._keep = []
        self._cb = _DELETER(self._on_delete)

    def _on_delete(self, _ptr):
        self.deleted += 1

    def _make(self, versioned):
        nd = len(self.shape)
        shp = (ctypes.c_int64 * max(nd, 1))(*self.shape)
        std = (ctypes.c_int64 * max(nd, 1))(*(self.strides or ()))
        m = DLManagedTensorVersioned() if versioned else DLManagedTensor()
        t = m.dl_tensor
        t.data = self.storage.ctypes.data if self.storage.size else None
        t.device = DLDevice(*self.device)
        t.ndim = nd
        t.dtype = DLDataType(self.code, self.bits, self.lanes)
        t.shape = ctypes.cast(shp, ctypes.POINTER(ctypes.c_int64))
        if self.strides is not None and nd:
            t.strides = ctypes.cast(std, ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = self.byte_offset
        m.deleter = ctypes.cast(self._cb, ctypes.c_void_p).value
        if versioned:
            m.version = DLPackVersion(*self.version)
            m.flags = self.flags
        self._keep.append((m, shp, std))
        cap = _capsule_new(ctypes.addressof(m), ctypes.addressof(_NAME_V if versioned else _NAME_L),
                           None)
        self.capsules.append(cap)
        return cap

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.calls.append(max_version)
        if max_version is not None and max_version[0] >= 1:
            return self._make(True)
        return self._make(False)


class LegacyProducer(Producer):
    """An old producer: __dlpack__ takes no max_version (a consumer must
    retry without it on TypeError) and returns legacy capsules."""

    def __dlpack__(self, stream=None):
        self.calls.append(None)
        return self._make(False)


def codes_of(a):
    return R.codes_of(np.asarray(a))


def from_codes(mf, name, codes):
    fmt = R.FORMATS[name]
    return np.asarray(codes, dtype=np.int64).astype(fmt.code_dtype).view(getattr(mf, name))


def collect(done=None):
    """Run the garbage collector unless `done()` already holds (a full
    collection is slow once torch is loaded)."""
    if done is None or not done():
        gc.collect()


# --------------------------------------------------------------------------
# from_dlpack with the ctypes producer
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", BYTE_FORMATS)
@pytest.mark.parametrize("kind", [Producer, LegacyProducer])
def test_from_dlpack_every_type_code_shares_memory(mf, name, kind):
    code, bits = TYPE_CODES[name]
    c = R.all_codes(name)
    prod = kind(c, c.shape, code, bits)
    a = mf.from_dlpack(prod)
    assert isinstance(a, np.ndarray)
    assert a.dtype == np.dtype(getattr(mf, IMPORTED_AS[code]))
    assert a.shape == c.shape
    assert (codes_of(a) == c).all()
    assert a.ctypes.data == prod.storage.ctypes.data  # shared, not copied
    if kind is Producer:
        assert prod.calls and prod.calls[0] is not None and prod.calls[0][0] >= 1
        assert _capsule_name(prod.capsules[-1]) == b"used_dltensor_versioned"
    else:
        assert _capsule_name(prod.capsules[-1]) == b"used_dltensor"
    # writes go both ways
    a.view(c.dtype)[3] = 0x11
    assert prod.storage.view(c.dtype)[3] == 0x11
    prod.storage.view(c.dtype)[4] = 0x22
    assert codes_of(a)[4] == 0x22
    # the deleter runs once, when the last view is gone
    b = a[1:]
    del a
    collect(lambda: prod.deleted)
    assert prod.deleted == 0
    assert codes_of(b)[3] == 0x22
    del b
    collect(lambda: prod.deleted)
    assert prod.deleted == 1


@pytest.mark.parametrize("name", ["float8_e4m3", "float8_e3m4", "float8_e4m3b11fnuz", "bfloat16"])
def test_from_dlpack_strides_offset_and_null_strides(mf, name):
    code, bits = TYPE_CODES[name]
    item = bits // 8
    c = R.all_codes(name)[:240]
    # 2-D strided view: shape (5, 4), strides (12, 3) elements, offset 2 elements
    prod = Producer(c, (5, 4), code, bits, strides=(12, 3), byte_offset=2 * item)
    a = mf.from_dlpack(prod)
    exp = np.lib.stride_tricks.as_strided(c[2:], (5, 4), (12 * item, 3 * item))
    assert a.shape == (5, 4)
    assert (codes_of(a) == exp).all()
    assert a.strides == (12 * item, 3 * item)
    assert a.ctypes.data == prod.storage.ctypes.data + 2 * item
    # legacy capsule with NULL strides (compact row-major, DLPack < 1.2)
    prod2 = LegacyProducer(c[:24], (2, 3, 4), code, bits, strides=None)
    b = mf.from_dlpack(prod2)
    assert b.shape == (2, 3, 4) and (codes_of(b) == c[:24].reshape(2, 3, 4)).all()
    assert b.ctypes.data == prod2.storage.ctypes.data
    # 0-d and zero-size
    z = mf.from_dlpack(Producer(c[7:8], (), code, bits))
    assert z.shape == () and codes_of(z).reshape(()) == c[7]
    e = mf.from_dlpack(Producer(c[:0], (0, 3), code, bits))
    assert e.shape == (0, 3) and e.dtype == np.dtype(getattr(mf, name))


@pytest.mark.parametrize("name", ["float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"])
@pytest.mark.parametrize("shape", [(1,), (4,), (5,), (7,), (2, 3), (3, 5), (0,)])
@pytest.mark.parametrize("kind", [Producer, LegacyProducer])
def test_from_dlpack_packed_subbyte(mf, name, shape, kind):
    """Packed FP6/FP4 (bits 6 / 4, lanes 1): element i in bits
    [i*bits, (i+1)*bits) of the little-endian byte stream; comes back
    unpacked, as a copy."""
    code, bits = TYPE_CODES[name]
    n = int(np.prod(shape))
    rng = np.random.default_rng(n * 31 + bits)
    c = rng.integers(0, 1 << bits, n)
    raw = np.frombuffer(I.pack_codes(c, bits), np.uint8).copy()
    prod = kind(raw, shape, code, bits)
    a = mf.from_dlpack(prod)
    assert a.dtype == np.dtype(getattr(mf, name)) and a.shape == shape
    assert (codes_of(a).reshape(-1) == c).all()
    if n:
        raw[:] = 0xFF  # a copy: the producer's bytes no longer matter
        assert (codes_of(a).reshape(-1) == c).all()
    del a
    collect(lambda: prod.deleted)
    assert prod.deleted == 1


@pytest.mark.parametrize("shape", [(3,), (2, 3), (1,), (0,)])
def test_from_dlpack_fp4_x2_lanes(mf, shape):
    """bits 4, lanes 2 (torch's float4_e2m1fn_x2): each element is a byte of
    two values, low nibble first; shape (..., n) comes back as (..., 2n)."""
    n = int(np.prod(shape))
    raw = np.random.default_rng(n).integers(0, 256, n).astype(np.uint8)
    a = mf.from_dlpack(Producer(raw, shape, 17, 4, lanes=2))
    assert a.dtype == np.dtype(mf.float4_e2m1fn)
    assert a.shape == shape[:-1] + (2 * shape[-1],)
    exp = np.stack([raw & 0xF, raw >> 4], axis=-1).reshape(a.shape)
    assert (codes_of(a) == exp).all()


@pytest.mark.parametrize(
    "code,bits,lanes",
    [(2, 32, 1), (2, 16, 1), (0, 8, 1), (1, 8, 1), (5, 64, 1), (6, 8, 1), (18, 8, 1),
     (3, 64, 1), (200, 8, 1)],
)
def test_from_dlpack_other_type_codes_are_type_errors(mf, code, bits, lanes):
    raw = np.zeros(64, np.uint8)
    n = 64 * 8 // (bits * lanes)
    prod = Producer(raw, (n,), code, bits, lanes=lanes)
    with pytest.raises(TypeError):
        mf.from_dlpack(prod)


@pytest.mark.parametrize("code,bits", [(10, 16), (4, 8), (15, 8), (17, 8), (14, 16)])
def test_from_dlpack_unexpected_bits_are_rejected(mf, code, bits):
    """A known minifloat type code with the wrong bit width must not be
    imported (dlpack.h: the consumer must stop importing)."""
    raw = np.zeros(64, np.uint8)
    prod = Producer(raw, (64 * 8 // bits,), code, bits)
    with pytest.raises((TypeError, ValueError, BufferError)):
        mf.from_dlpack(prod)


def test_from_dlpack_non_cpu_is_rejected(mf):
    raw = np.zeros(8, np.uint8)
    prod = Producer(raw, (8,), 10, 8, device=(2, 0))  # kDLCUDA
    with pytest.raises((BufferError, ValueError, TypeError, RuntimeError)):
        mf.from_dlpack(prod)


def test_from_dlpack_numpy_float_array_is_type_error(mf):
    with pytest.raises(TypeError):
        mf.from_dlpack(np.zeros(3, np.float32))
    with pytest.raises(TypeError):
        mf.from_dlpack(np.zeros(3, np.uint8))


# --------------------------------------------------------------------------
# to_dlpack (inspected with ctypes, consumed by mf itself)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", BYTE_FORMATS)
def test_to_dlpack_capsule_fields(mf, name):
    code, bits = TYPE_CODES[name]
    a = from_codes(mf, name, R.all_codes(name)[:24]).reshape(4, 6)
    obj = mf.to_dlpack(a)
    dev = obj.__dlpack_device__()
    assert tuple(int(v) for v in dev) == (KDLCPU, 0)
    for kw in (dict(max_version=(1, 1)), dict(max_version=(1, 0)), {}):
        info = capsule_info(obj.__dlpack__(**kw))
        assert (info["code"], info["bits"], info["lanes"]) == (code, bits, 1)
        assert info["shape"] == (4, 6)
        assert info["strides"] in ((6, 1), None)
        assert info["data"] + info["byte_offset"] == a.ctypes.data  # zero copy
        assert info["device"] == (KDLCPU, 0)
        if info["versioned"]:
            assert info["version"][0] == 1
            assert not info["flags"] & 2  # not a copy
    v = a[:, ::2]
    info = capsule_info(mf.to_dlpack(v).__dlpack__(max_version=(1, 1)))
    assert info["shape"] == (4, 3) and info["strides"] == (6, 2)
    assert info["data"] + info["byte_offset"] == v.ctypes.data


def test_to_dlpack_fp4_capsule_fields(mf):
    c = np.arange(12) % 16
    a = from_codes(mf, "float4_e2m1fn", c).reshape(2, 6)
    info = capsule_info(mf.to_dlpack(a).__dlpack__(max_version=(1, 1)))
    assert (info["code"], info["bits"], info["lanes"]) == (17, 4, 2)
    assert info["shape"] == (2, 3)
    nbytes = 6
    buf = (ctypes.c_uint8 * nbytes).from_address(info["data"] + info["byte_offset"])
    assert bytes(buf) == I.pack_codes(c, 4)


@pytest.mark.parametrize("name", ["float6_e2m3fn", "float6_e3m2fn"])
def test_to_dlpack_fp6_is_type_error(mf, name):
    a = from_codes(mf, name, np.arange(8))
    with pytest.raises(TypeError):
        mf.to_dlpack(a)


@pytest.mark.parametrize("name", ["int4", "uint2", "int1"])
def test_to_dlpack_of_an_integer_type_says_what_to_export(mf, name):
    a = np.zeros(4, getattr(mf, name))
    view = "np.int8" if not name.startswith("u") else "np.uint8"
    with pytest.raises(TypeError, match=rf"{name} has no DLPack type.*arr\.view\({view}\)"):
        mf.to_dlpack(a)


@pytest.mark.parametrize("name", WITHOUT_CODE)
def test_to_dlpack_of_a_format_without_a_type_code_is_a_buffer_error(mf, name):
    a = from_codes(mf, name, np.arange(8))
    with pytest.raises(BufferError, match="no DLPack type code"):
        mf.to_dlpack(a)


@pytest.mark.parametrize("name", BYTE_FORMATS)
def test_mf_round_trip_shares_memory(mf, name):
    a = from_codes(mf, name, R.all_codes(name))
    b = mf.from_dlpack(mf.to_dlpack(a))
    assert b.dtype == np.dtype(getattr(mf, IMPORTED_AS[TYPE_CODES[name][0]])) and b.shape == a.shape
    assert b.ctypes.data == a.ctypes.data
    assert (codes_of(b) == codes_of(a)).all()
    t = a.reshape(-1, 16).T
    bt = mf.from_dlpack(mf.to_dlpack(t))
    assert bt.shape == t.shape and (codes_of(bt) == codes_of(t)).all()
    assert bt.ctypes.data == t.ctypes.data
    del a, t
    collect()
    assert (codes_of(b) == R.all_codes(name)).all()  # b keeps the memory alive


def test_mf_round_trip_fp4(mf):
    c = np.random.default_rng(4).integers(0, 16, 24)
    a = from_codes(mf, "float4_e2m1fn", c).reshape(3, 8)
    b = mf.from_dlpack(mf.to_dlpack(a))
    assert b.dtype == a.dtype and b.shape == (3, 8)
    assert (codes_of(b) == codes_of(a)).all()


# --------------------------------------------------------------------------
# torch
# --------------------------------------------------------------------------

TORCH_NAMES = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
               "float8_e8m0fnu", "bfloat16"]


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def tdtype(torch, name):
    t = getattr(torch, name, None)
    if t is None:
        pytest.skip(f"torch has no {name}")
    return t


def torch_codes_tensor(torch, name, codes):
    """A torch tensor of dtype `name` holding `codes` (uint8 / uint16)."""
    codes = np.ascontiguousarray(codes)
    if codes.dtype == np.uint16:
        return torch.from_numpy(codes.view(np.int16).copy()).view(tdtype(torch, name))
    return torch.from_numpy(codes.copy()).view(tdtype(torch, name))


def torch_bits(torch, t):
    """Codes of a torch tensor (any strides) as a numpy array."""
    if t.element_size() == 2:
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.view(torch.uint8).numpy()


@pytest.mark.parametrize("name", TORCH_NAMES)
def test_torch_to_minifloat_every_code(mf, torch, name):
    c = R.all_codes(name)
    t = torch_codes_tensor(torch, name, c)
    a = mf.from_dlpack(t)
    assert isinstance(a, np.ndarray) and a.dtype == np.dtype(getattr(mf, name))
    assert a.shape == tuple(t.shape)
    assert (codes_of(a) == c).all()
    assert a.ctypes.data == t.data_ptr()
    # mutate one side, see the other
    a.view(c.dtype)[5] = 0x11
    assert torch_bits(torch, t)[5] == 0x11
    t.view(torch.uint8)[6] = 0x22
    assert codes_of(a).view(np.uint8)[6] == 0x22


@pytest.mark.parametrize("name", TORCH_NAMES)
def test_minifloat_to_torch_every_code(mf, torch, name):
    c = R.all_codes(name)
    a = from_codes(mf, name, c)
    t = torch.from_dlpack(mf.to_dlpack(a))
    assert t.dtype == tdtype(torch, name)
    assert tuple(t.shape) == a.shape
    assert (torch_bits(torch, t) == c).all()
    assert t.data_ptr() == a.ctypes.data
    a.view(c.dtype)[7] = 0x33
    assert torch_bits(torch, t)[7] == 0x33
    t.view(torch.uint8)[8] = 0x44
    assert codes_of(a).view(np.uint8)[8] == 0x44


@pytest.mark.parametrize("name", TORCH_NAMES)
def test_torch_values_agree(mf, torch, name):
    """Same bits mean the same values: torch's float32 decoding equals
    minifloat's (NaN where either is NaN)."""
    c = R.all_codes(name)
    t = torch_codes_tensor(torch, name, c)
    a = mf.from_dlpack(t)
    with np.errstate(all="ignore"):
        tv = t.float().numpy().astype(np.float64)
        av = a.astype(np.float64)
    rv = R.decode_array(name, c)
    nan = np.isnan(rv)
    assert (np.isnan(av) == nan).all() and (np.isnan(tv) == nan).all()
    assert (av[~nan] == rv[~nan]).all() and (tv[~nan] == rv[~nan]).all()


@pytest.mark.parametrize("name", TORCH_NAMES)
def test_torch_non_contiguous_both_ways(mf, torch, name):
    c = R.all_codes(name)[:240]
    base = torch_codes_tensor(torch, name, c).reshape(12, 20)
    item = base.element_size()
    for t in (base[::2], base[:, 1::3], base.T, base[2:9:3, ::4].T, base[:, 5]):
        a = mf.from_dlpack(t)
        assert a.shape == tuple(t.shape)
        assert (codes_of(a) == torch_bits(torch, t)).all()
        assert a.ctypes.data == t.data_ptr()
        assert a.strides == tuple(s * item for s in t.stride())
    arr = from_codes(mf, name, c).reshape(12, 20)
    for v in (arr[::2], arr[:, 1::3], arr.T, arr[2:9:3, ::4].T, arr[:, 5]):
        t = torch.from_dlpack(mf.to_dlpack(v))
        assert tuple(t.shape) == v.shape
        assert (torch_bits(torch, t) == codes_of(v)).all()
        assert t.data_ptr() == v.ctypes.data
        assert tuple(s * item for s in t.stride()) == v.strides


@pytest.mark.parametrize("name", TORCH_NAMES)
def test_torch_zero_size_and_zero_d(mf, torch, name):
    T = getattr(mf, name)
    td = tdtype(torch, name)
    for shape in ((0,), (3, 0), (0, 2, 5)):
        a = mf.from_dlpack(torch.empty(shape, dtype=td))
        assert a.shape == shape and a.dtype == np.dtype(T)
        t = torch.from_dlpack(mf.to_dlpack(np.zeros(shape, T)))
        assert tuple(t.shape) == shape and t.dtype == td
    code = 0x38 if R.FORMATS[name].bits == 8 else 0x3F80
    c = np.array([code], R.FORMATS[name].code_dtype)
    t0 = torch_codes_tensor(torch, name, c).reshape(())
    a0 = mf.from_dlpack(t0)
    assert a0.shape == () and int(codes_of(a0).reshape(())) == code
    z = from_codes(mf, name, c).reshape(())
    t = torch.from_dlpack(mf.to_dlpack(z))
    assert tuple(t.shape) == () and int(torch_bits(torch, t.reshape(1))[0]) == code


@pytest.mark.parametrize("name", TORCH_NAMES)
def test_torch_lifetime(mf, torch, name):
    c = R.all_codes(name)
    t = torch_codes_tensor(torch, name, c)
    a = mf.from_dlpack(t)
    del t
    junk = [torch.full((257,), 7, dtype=torch.uint8) for _ in range(50)]
    assert (codes_of(a) == c).all()
    arr = from_codes(mf, name, c)
    obj = mf.to_dlpack(arr)
    t2 = torch.from_dlpack(obj)
    del arr, obj
    junk += [np.full(257, 9, np.uint8) for _ in range(50)]
    assert (torch_bits(torch, t2) == c).all()
    del junk


def _x2(torch, raw):
    return torch.from_numpy(np.ascontiguousarray(raw, np.uint8).copy()).view(
        tdtype(torch, "float4_e2m1fn_x2"))


def test_torch_fp4_x2_to_minifloat(mf, torch):
    t = _x2(torch, [0x21, 0x43, 0xF8])
    a = mf.from_dlpack(t)
    assert a.dtype == np.dtype(mf.float4_e2m1fn) and a.shape == (6,)
    assert codes_of(a).tolist() == [0x1, 0x2, 0x3, 0x4, 0x8, 0xF]
    t.view(torch.uint8)[0] = 0x77  # a copy: later writes do not show
    assert codes_of(a).tolist()[:2] == [0x1, 0x2]
    raw = np.random.default_rng(2).integers(0, 256, (4, 5)).astype(np.uint8)
    a2 = mf.from_dlpack(_x2(torch, raw))
    assert a2.shape == (4, 10)
    assert (codes_of(a2) == np.stack([raw & 0xF, raw >> 4], -1).reshape(4, 10)).all()
    # every byte value
    allb = np.arange(256, dtype=np.uint8)
    a3 = mf.from_dlpack(_x2(torch, allb))
    assert (codes_of(a3)[0::2] == allb & 0xF).all() and (codes_of(a3)[1::2] == allb >> 4).all()


def test_torch_checkpoint_tensors_into_mx_from_parts(mf, torch):
    """MXArray.from_parts takes the tensors safetensors.torch loads from an
    NVFP4 checkpoint (float4_e2m1fn_x2 weights, float8_e4m3fn scales), as the
    same bytes given as uint8 arrays."""
    if not hasattr(torch, "float4_e2m1fn_x2"):
        pytest.skip("torch has no float4_e2m1fn_x2")
    raw = np.random.default_rng(3).integers(0, 256, (4, 8)).astype(np.uint8)
    scale_codes = np.random.default_rng(4).integers(0x20, 0x50, (4, 1)).astype(np.uint8)
    weight = torch.from_numpy(raw.copy()).view(torch.float4_e2m1fn_x2)
    scale = torch.from_numpy(scale_codes.copy()).view(torch.float8_e4m3fn)
    q = mf.mx.MXArray.from_parts(weight, scale, "nvfp4", packed=True)
    expected = mf.mx.MXArray.from_parts(raw, scale_codes, "nvfp4", packed=True)
    assert q.shape == expected.shape == (4, 16)
    assert q.data.tobytes() == expected.data.tobytes() and q.scales.tobytes() == expected.scales.tobytes()
    with pytest.raises(ValueError, match="does not match"):
        mf.mx.MXArray.from_parts(weight, scale, "nvfp4", packed=True, shape=(4, 8))


def test_torch_tensors_in_savers_get_a_dlpack_hint(mf, torch, tmp_path):
    with pytest.raises(TypeError, match=r"mf\.from_dlpack"):
        mf.save_safetensors(tmp_path / "t.safetensors", {"w": torch.ones(3, dtype=torch.bfloat16)})


def test_torch_fp4_x2_non_contiguous(mf, torch):
    raw = np.random.default_rng(3).integers(0, 256, (4, 6)).astype(np.uint8)
    t = _x2(torch, raw)
    for tv, rv in ((t[::2], raw[::2]), (t[:, 1::2], raw[:, 1::2]), (t.T, raw.T)):
        a = mf.from_dlpack(tv)
        exp = np.stack([rv & 0xF, rv >> 4], -1).reshape(rv.shape[:-1] + (2 * rv.shape[-1],))
        assert a.shape == exp.shape and (codes_of(a) == exp).all()


def test_minifloat_fp4_to_torch_x2(mf, torch):
    c = np.random.default_rng(5).integers(0, 16, (3, 8))
    a = from_codes(mf, "float4_e2m1fn", c.reshape(-1)).reshape(3, 8)
    t = torch.from_dlpack(mf.to_dlpack(a))
    assert t.dtype == tdtype(torch, "float4_e2m1fn_x2")
    assert tuple(t.shape) == (3, 4)
    exp = (c[:, 0::2] | (c[:, 1::2] << 4)).astype(np.uint8)
    assert (t.view(torch.uint8).numpy() == exp).all()
    back = mf.from_dlpack(t)
    assert back.shape == (3, 8) and (codes_of(back) == c).all()
    # 1-D, and values from an ordinary cast
    v = np.array([0.5, -6.0, 1.5, 0.0]).astype(mf.float4_e2m1fn)
    t1 = torch.from_dlpack(mf.to_dlpack(v))
    assert t1.view(torch.uint8).numpy().tolist() == [0xF1, 0x03]


def test_torch_legacy_and_versioned_capsules(mf, torch):
    """from_dlpack accepts a producer that only speaks the legacy protocol
    and one that hands out versioned capsules."""
    c = R.all_codes("float8_e5m2")
    t = torch_codes_tensor(torch, "float8_e5m2", c)
    seen = []

    class Legacy:
        def __dlpack__(self, stream=None):
            seen.append("legacy")
            return torch.utils.dlpack.to_dlpack(t)

        def __dlpack_device__(self):
            return t.__dlpack_device__()

    class Versioned:
        def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
            seen.append(max_version)
            return t.__dlpack__(max_version=max_version) if max_version else t.__dlpack__()

        def __dlpack_device__(self):
            return t.__dlpack_device__()

    a = mf.from_dlpack(Legacy())
    b = mf.from_dlpack(Versioned())
    for x in (a, b):
        assert x.dtype == np.dtype(mf.float8_e5m2)
        assert (codes_of(x) == c).all() and x.ctypes.data == t.data_ptr()
    assert "legacy" in seen
    assert any(isinstance(s, tuple) and s[0] >= 1 for s in seen)


def test_torch_other_dtypes_are_type_errors(mf, torch):
    for dt in (torch.float32, torch.float16, torch.int8, torch.uint8, torch.bool,
               torch.complex64):
        with pytest.raises(TypeError):
            mf.from_dlpack(torch.zeros(4, dtype=dt))


# --------------------------------------------------------------------------
# ml_dtypes: arrays move by reinterpreting the bits
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_ml_dtypes_bit_reinterpretation(mf, name):
    md = pytest.importorskip("ml_dtypes")
    MT = getattr(md, name, None)
    if MT is None:
        pytest.skip(f"ml_dtypes has no {name}")
    fmt = R.FORMATS[name]
    view_t = np.uint16 if fmt.bits == 16 else np.uint8
    c = R.all_codes(name)
    a = c.view(getattr(mf, name))
    # minifloat -> ml_dtypes: same bytes, no copy needed
    m = a.view(view_t).view(MT)
    assert m.dtype == np.dtype(MT) and np.shares_memory(m, a)
    # ml_dtypes -> minifloat
    back = m.view(view_t).view(getattr(mf, name))
    assert back.dtype == np.dtype(getattr(mf, name))
    assert (codes_of(back) == c).all()
    # and the bits mean the same values on both sides
    with np.errstate(all="ignore"):
        mv = m.astype(np.float32).astype(np.float64)
        av = a.astype(np.float32).astype(np.float64)
    nan = np.isnan(mv)
    assert (np.isnan(av) == nan).all()
    assert (av[~nan] == mv[~nan]).all()
    assert (np.signbit(av[~nan]) == np.signbit(mv[~nan])).all()
