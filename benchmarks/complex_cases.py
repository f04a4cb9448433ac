"""Benchmark group 20: complex32 (two float16 parts) beside ml_dtypes'
complex32 (issue 27; target: 10x ml_dtypes where the memory floor allows).

The casts, + and * move many bytes for little arithmetic, so each has a
floor beside it, the least time any kernel needs for its bytes: for the
casts NumPy's own cast of the same parts' bytes between uint16 and uint32
(a plain widening or narrowing into a new array of the same size as the
case's, 16 MB <-> 32 MB); for + and * NumPy's uint16 + of the parts (two
16 MB operands, a new 16 MB result). One core of the 16-core Intel Xeon
VM moves about 8 GB/s, where ml_dtypes' 29 ms leaves 10x no room."""
import numpy as np

GROUP = 20
TARGET = 10.0  # ml_dtypes ms / minifloat ms


def _values(n, salt):
    rng = np.random.default_rng(2700 + salt)
    return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)


def complex_cases(add, Ref, n):
    """Appends the cases through `add(name, mf_factory, *refs)`."""
    import minifloat as mf

    try:
        import ml_dtypes
    except ImportError:
        ml_dtypes = None

    def on(dtype, op):
        def make():
            a = _values(n, 0).astype(np.complex128).astype(dtype)
            b = _values(n, 1).astype(np.complex128).astype(dtype)
            x = _values(n, 0)
            return op(a, b, x, dtype)
        return make

    ops = {
        "complex64 -> complex32": lambda a, b, x, t: (lambda: x.astype(t)),
        "complex32 -> complex64": lambda a, b, x, t: (lambda: a.astype(np.complex64)),
        "complex32 a + b": lambda a, b, x, t: (lambda: a + b),
        "complex32 a * b": lambda a, b, x, t: (lambda: a * b),
        "complex32 np.abs(a)": lambda a, b, x, t: (lambda: np.abs(a)),
        "complex32 a.sum()": lambda a, b, x, t: (lambda: a.sum()),
    }
    def parts_widened():
        parts = _values(n, 0).astype(mf.complex32).view(np.uint16)
        return lambda: parts.astype(np.uint32)

    def parts_narrowed():
        parts = _values(n, 0).view(np.uint32)
        return lambda: parts.astype(np.uint16)

    def parts_added():
        a = _values(n, 0).astype(mf.complex32).view(np.uint16)
        b = _values(n, 1).astype(mf.complex32).view(np.uint16)
        return lambda: a + b

    pair_floor = Ref("ref", "np u16 + of the parts", parts_added, None, floor=True)
    floors = {
        "complex32 -> complex64": Ref("ref", "np u16->u32 of the parts", parts_widened, None, floor=True),
        "complex64 -> complex32": Ref("ref", "np u32->u16 of the parts", parts_narrowed, None, floor=True),
        "complex32 a + b": pair_floor,
        "complex32 a * b": pair_floor,
    }
    for label, op in ops.items():
        refs = [Ref("ml", "ml_dtypes", on(ml_dtypes.complex32, op), TARGET)] if ml_dtypes is not None else []
        if label in floors:
            refs.append(floors[label])
        add(label, on(mf.complex32, op), *refs)


def groups(Group, Ref):
    return [Group(GROUP, "complex32", "vs ml_dtypes >= 10x",
                  lambda add, data, torch: complex_cases(add, Ref, data.n))]
