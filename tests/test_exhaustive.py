"""Every float32 bit pattern into every format, against the vectorized
reference.  Very slow (about 2**32 casts per format): deselected by default,
run with ``python -m pytest tests -m exhaustive``."""

import numpy as np
import pytest

import reference as R

CHUNK = 1 << 24


def _sweep(T, name, start=0, stop=1 << 32):
    mismatches = []
    with np.errstate(all="ignore"):
        for lo in range(start, stop, CHUNK):
            bits = np.arange(lo, min(lo + CHUNK, stop), dtype=np.uint64).astype(np.uint32)
            x = bits.view(np.float32)
            got = R.codes_of(x.astype(T))
            exp = R.encode_array(name, x)[0]
            bad = np.nonzero(got != exp)[0]
            if bad.size:
                mismatches.append(
                    (hex(lo), int(bad.size),
                     [(hex(int(bits[i])), hex(int(exp[i])), hex(int(got[i]))) for i in bad[:4]])
                )
                if len(mismatches) > 10:
                    break
    return mismatches


@pytest.mark.exhaustive
@pytest.mark.parametrize("name", R.FORMAT_NAMES)
def test_every_float32_bit_pattern(mf, name):
    T = getattr(mf, name)
    mismatches = _sweep(T, name)
    assert not mismatches, (name, mismatches)
