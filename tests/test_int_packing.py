"""mf.pack/mf.unpack of the sub-byte integers: a little-endian bitstream,
first value in the lowest bits, checked against a bit-by-bit reference."""
import numpy as np
import pytest

import minifloat as mf

TYPES = {"int1": (1, True), "int2": (2, True), "int4": (4, True),
         "uint1": (1, False), "uint2": (2, False), "uint4": (4, False)}


@pytest.mark.parametrize("name", list(TYPES))
@pytest.mark.parametrize("count", [0, 1, 3, 8, 17, 1000])
def test_pack_reference_and_round_trip(name, count):
    bits, signed = TYPES[name]
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    vals = np.random.default_rng(count).integers(lo, hi + 1, count)
    arr = vals.astype(getattr(mf, name))
    stream = 0
    for i, v in enumerate(vals.tolist()):
        stream |= (v & ((1 << bits) - 1)) << (i * bits)
    nbytes = (count * bits + 7) // 8
    packed = mf.pack(arr)
    assert packed.dtype == np.uint8 and packed.tolist() == list(stream.to_bytes(nbytes, "little"))
    back = mf.unpack(packed, getattr(mf, name), count)
    assert back.dtype == arr.dtype and [int(v) for v in back] == vals.tolist()
    assert back.view(np.uint8).tolist() == arr.view(np.uint8).tolist()


def test_int4_two_per_byte_low_nibble_first():
    assert mf.pack(np.array([1, -2, 7], dtype=mf.int4)).tolist() == [0xE1, 0x07]
    with pytest.raises(ValueError):
        mf.unpack(b"\x00", mf.int4, 3)
    assert mf.unpack(b"\xe1\x07", "int4", (1, 3)).shape == (1, 3)
