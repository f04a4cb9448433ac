"""Benchmark group 12: the sub-byte integers (issue 19) against NumPy's int8
doing the same operation on the same bytes (target: within 1.5x)."""
import numpy as np

GROUP = 12
WITHIN_1_5X = 1 / 1.5  # ref ms / minifloat ms


def _codes(n, lo, hi, salt):
    return np.random.default_rng(1900 + salt).integers(lo, hi + 1, n).astype(np.int8)


def add_int_cases(add, Ref, mf_dtype, n, ml_dtype=None):
    """Appends the cases through `add(name, mf_factory, *refs)`."""
    ops = {
        "astype(float32)": lambda x, y: (lambda: x.astype(np.float32)),
        "astype(int32)": lambda x, y: (lambda: x.astype(np.int32)),
        "add": lambda x, y: (lambda: x + y),
        "multiply": lambda x, y: (lambda: x * y),
        "floor_divide": lambda x, y: (lambda: x // y),
        "less": lambda x, y: (lambda: x < y),
        "maximum": lambda x, y: (lambda: np.maximum(x, y)),
        "negative": lambda x, y: (lambda: np.negative(x)),
        "sum": lambda x, y: (lambda: np.sum(x)),  # int64 accumulator for both
        "max": lambda x, y: (lambda: np.max(x)),
        "== 3 (a Python int)": lambda x, y: (lambda: x == 3),
        "* 2 (a Python int)": lambda x, y: (lambda: x * 2),
    }
    for name in ("int4", "uint4"):
        lo, hi = (-8, 7) if name == "int4" else (0, 15)
        for opname, op in ops.items():
            def mine(name=name, op=op, lo=lo, hi=hi):
                a, b = _codes(n, lo, hi, 0), _codes(n, max(lo, 1), hi, 1)
                return op(a.view(mf_dtype(name)), b.view(mf_dtype(name)))

            def numpy_int8(op=op, lo=lo, hi=hi, name=name):
                a, b = _codes(n, lo, hi, 0), _codes(n, max(lo, 1), hi, 1)
                t = np.int8 if name == "int4" else np.uint8
                return op(a.view(t), b.view(t))

            add(f"{name} {opname}", mine,
                Ref("ref", "np int8/uint8", numpy_int8, WITHIN_1_5X))

        def from_float32(name=name, lo=lo, hi=hi):
            x = _codes(n, lo, hi, 2).astype(np.float32) + np.float32(0.25)
            return lambda: x.astype(mf_dtype(name))

        def float32_to_int8(lo=lo, hi=hi):
            x = _codes(n, lo, hi, 2).astype(np.float32) + np.float32(0.25)
            return lambda: x.astype(np.int8)

        add(f"float32 -> {name}", from_float32,
            Ref("ref", "np f32->int8", float32_to_int8, WITHIN_1_5X))

        def from_int32(name=name, lo=lo, hi=hi):
            x = _codes(n, lo, hi, 3).astype(np.int32)
            return lambda: x.astype(mf_dtype(name))

        def int32_to_int8(lo=lo, hi=hi):
            x = _codes(n, lo, hi, 3).astype(np.int32)
            return lambda: x.astype(np.int8)

        add(f"int32 -> {name}", from_int32,
            Ref("ref", "np i32->int8", int32_to_int8, WITHIN_1_5X))

        # packed two per byte, and back: against NumPy packing the same
        # bytes' nibbles itself (low nibble first)
        def pack(name=name, lo=lo, hi=hi):
            a = _codes(n, lo, hi, 4).view(mf_dtype(name))
            return lambda: _mf().pack(a)

        def numpy_pack(lo=lo, hi=hi):
            a = _codes(n, lo, hi, 4).view(np.uint8)
            return lambda: (a[0::2] & np.uint8(15)) | (a[1::2] << np.uint8(4))

        def unpack(name=name, lo=lo, hi=hi):
            packed = _mf().pack(_codes(n, lo, hi, 4).view(mf_dtype(name)))
            return lambda: _mf().unpack(packed, mf_dtype(name), n)

        def numpy_unpack(lo=lo, hi=hi):
            packed = _mf().pack(_codes(n, lo, hi, 4).view(mf_dtype(name)))
            out = np.empty(n, np.uint8)

            def run():
                out[0::2] = packed & np.uint8(15)
                out[1::2] = packed >> np.uint8(4)
                return out
            return run

        add(f"mf.pack {name}", pack, Ref("ref", "np nibbles", numpy_pack, WITHIN_1_5X))
        add(f"mf.unpack {name}", unpack, Ref("ref", "np nibbles", numpy_unpack, WITHIN_1_5X))


def _mf():
    import minifloat

    return minifloat
