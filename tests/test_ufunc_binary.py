"""Binary ufuncs (T, T -> T / bool) on every code pair of every format of
8 bits or fewer, and on a large sample plus all specials for bfloat16,
bit-exact against ufunc_reference; FP status flags per element."""

import warnings

import numpy as np
import pytest

import reference as R
import ufunc_reference as U

NAMES = list(U.NAMES)
FORMAT_OPS = U.BINARY_FORMAT_OPS + ["divmod"]
BOOL_OPS = U.COMPARE + U.LOGICAL_BINARY


def operands(mf, name):
    T = getattr(mf, name)
    ca, cb = U.pair_codes(name)
    return T, ca, cb, ca.view(T), cb.view(T)


def call(op, *args, **kw):
    with np.errstate(all="ignore"):
        return getattr(np, op)(*args, **kw)


def check_outputs(name, T, ref, got, operands_codes, ctx=""):
    if not isinstance(got, tuple):
        got = (got,)
    assert len(got) == len(ref.outs)
    nan_results = ref.nan_result or [None] * len(ref.outs)
    for g, e, kind, nr in zip(got, ref.outs, ref.kinds, nan_results):
        if kind == "codes":
            assert g.dtype == np.dtype(T), (ctx, g.dtype)
            gc = U.codes_of(g).reshape(-1)
            ok = U.compare_codes(name, gc, e, nr)
        elif kind == "bool":
            assert g.dtype == np.bool_, (ctx, g.dtype)
            gc = g.reshape(-1)
            ok = gc == e
        else:
            assert g.dtype == np.int32, (ctx, g.dtype)
            gc = g.reshape(-1)
            ok = gc == e
        assert ok.all(), f"{ctx} " + U.mismatch_report(name, ok, e, gc, operands_codes)


@pytest.mark.parametrize("op", FORMAT_OPS)
@pytest.mark.parametrize("name", NAMES)
def test_binary_every_pair(mf, name, op):
    T, ca, cb, a, b = operands(mf, name)
    ref = U.expected_binary(name, op)
    check_outputs(name, T, ref, call(op, a, b), (ca, cb), op)


@pytest.mark.parametrize("op", BOOL_OPS)
@pytest.mark.parametrize("name", NAMES)
def test_comparison_and_logical_every_pair(mf, name, op):
    T, ca, cb, a, b = operands(mf, name)
    ref = U.expected_binary(name, op)
    check_outputs(name, T, ref, call(op, a, b), (ca, cb), op)
    # comparisons and logical ops never raise, NaN operands included
    with np.errstate(all="raise"):
        getattr(np, op)(a, b)


# --------------------------------------------------------------------------
# FP status, per element
# --------------------------------------------------------------------------

CATEGORIES = ("overflow", "invalid", "divide")


ERRSTATE_KEY = {"overflow": "over", "invalid": "invalid", "divide": "divide"}


def _raise_only(cat):
    kw = {k: "ignore" for k in ("over", "invalid", "divide", "under")}
    kw[ERRSTATE_KEY[cat]] = "raise"
    return kw


def check_flags(op, ref, args, sample=6):
    """No flag on the elements the reference calls clean; the reference's
    flag on a sample of each flagged kind."""
    clean = ref.clean()
    idx = np.nonzero(clean)[0]
    if idx.size:
        with np.errstate(over="raise", invalid="raise", divide="raise", under="ignore"):
            try:
                getattr(np, op)(*[x[idx] for x in args])
            except FloatingPointError as e:  # find one culprit for the report
                culprit = None
                for j in idx:
                    try:
                        getattr(np, op)(*[x[j : j + 1] for x in args])
                    except FloatingPointError:
                        culprit = [hex(int(U.codes_of(x[j : j + 1])[0]))
                                   if x.dtype.kind == "V" or x.dtype.kind == "f"
                                   else int(x[j]) for x in args]
                        break
                where = (f"e.g. operands {culprit}" if culprit else
                         "no single element reproduces it (vectorized path only)")
                raise AssertionError(f"{op}: unexpected '{e}' on clean input; {where}")
    for cat in CATEGORIES:
        mask = getattr(ref, cat)
        sel = np.nonzero(mask)[0]
        if not sel.size:
            continue
        pick = sel[np.linspace(0, sel.size - 1, min(sample, sel.size)).astype(int)]
        for j in pick:
            one = [x[j : j + 1] for x in args]
            ops_hex = [hex(int(U.codes_of(o)[0])) if o.dtype.kind != "i" else int(o[0])
                       for o in one]
            with np.errstate(**_raise_only(cat)):
                with pytest.raises(FloatingPointError, match=cat):
                    getattr(np, op)(*one)
            # and no flag beyond the expected ones
            allowed = {c for c in CATEGORIES if getattr(ref, c)[j]}
            if ref.maybe is not None and ref.maybe[j]:
                allowed.add("invalid")
            kw = {ERRSTATE_KEY[c]: ("ignore" if c in allowed else "raise") for c in CATEGORIES}
            with np.errstate(under="ignore", **kw):
                try:
                    getattr(np, op)(*one)
                except FloatingPointError as e:
                    raise AssertionError(f"{op}{tuple(ops_hex)}: expected only {allowed}, "
                                         f"got '{e}'") from None


@pytest.mark.parametrize("op", FORMAT_OPS)
@pytest.mark.parametrize("name", NAMES)
def test_binary_fp_status(mf, name, op):
    T, ca, cb, a, b = operands(mf, name)
    check_flags(op, U.expected_binary(name, op), (a, b))


# --------------------------------------------------------------------------
# Documented examples and edge cases
# --------------------------------------------------------------------------


def arr(mf, name, values):
    return np.array(values, dtype=np.float64).astype(getattr(mf, name))


def bits(x):
    return [int(c) for c in U.codes_of(np.asarray(x)).reshape(-1)]


def test_nextafter_examples(mf):
    e4 = mf.float8_e4m3fn
    one, two = np.array([1.0], e4), np.array([2.0], e4)
    assert np.nextafter(one, two)[0] == 1.125
    assert np.nextafter(one, np.array([0.0], e4))[0] == 0.9375
    assert bits(np.nextafter(one, one)) == bits(one)
    # stepping past the largest finite value overflows, with a warning
    e5 = mf.float8_e5m2
    with pytest.warns(RuntimeWarning, match="overflow"):
        r = np.nextafter(np.array([57344.0], e5), np.array([np.inf], e5))
    assert bits(r) == [0x7C]


def test_nextafter_equal_is_silent(mf):
    e4 = mf.float8_e4m3fn
    mx = np.array([448.0], e4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bits(np.nextafter(mx, mx)) == [0x7E]


IEEE_LIKE = [n for n in NAMES if R.FORMATS[n].has_inf]


@pytest.mark.parametrize("name", IEEE_LIKE)
def test_nextafter_overflow_warns(mf, name):
    # only formats with inf have a value above max to step towards
    f = R.FORMATS[name]
    T = getattr(mf, name)
    for neg in (False, True):
        mx = np.array([f.max_code(neg)], f.code_dtype).view(T)
        y = np.array([f.inf_code(neg)], f.code_dtype).view(T)
        with pytest.warns(RuntimeWarning, match="overflow"):
            r = np.nextafter(mx, y)
        assert bits(r) == [f.inf_code(neg)]
        assert bits(np.nextafter(y, mx)) == bits(mx)


@pytest.mark.parametrize("name", [n for n in NAMES if R.FORMATS[n].has_neg_zero])
def test_max_min_zero_order_and_nan(mf, name):
    f = R.FORMATS[name]
    T = getattr(mf, name)
    pz, nz = np.array([0], f.code_dtype).view(T), np.array([f.sign_bit], f.code_dtype).view(T)
    for op in ("maximum", "minimum", "fmax", "fmin"):
        u = getattr(np, op)
        assert bits(u(pz, nz)) == [0], op
        assert bits(u(nz, pz)) == [f.sign_bit], op
    if f.has_nan:
        nan = np.array([f.nan_code()], f.code_dtype).view(T)
        one = arr(mf, name, [1.0])
        assert np.isnan(np.maximum(one, nan).astype(np.float64)).all()
        assert np.isnan(np.minimum(nan, one).astype(np.float64)).all()
        assert bits(np.fmax(one, nan)) == bits(one)
        assert bits(np.fmin(nan, one)) == bits(one)


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "bfloat16",
                                  "float6_e2m3fn", "float4_e2m1fn"])
def test_python_style_modulo(mf, name):
    a = arr(mf, name, [-1.0, 1.0, -1.0, 1.0, 3.0, -3.0, 0.0, -0.0])
    b = arr(mf, name, [3.0, -3.0, -3.0, 3.0, 2.0, 2.0, -2.0, 2.0])
    fd = np.floor_divide(a, b).astype(np.float64)
    rm = np.remainder(a, b).astype(np.float64)
    exp_fd = [-1.0, -1.0, 0.0, 0.0, 1.0, -2.0, -0.0, -0.0]
    exp_rm = [2.0, -2.0, -1.0, 1.0, 1.0, 1.0, -0.0, 0.0]
    f = R.FORMATS[name]
    exp_fd = R.decode_array(name, R.encode_array(name, np.array(exp_fd))[0])
    exp_rm = R.decode_array(name, R.encode_array(name, np.array(exp_rm))[0])
    np.testing.assert_array_equal(fd, exp_fd)
    np.testing.assert_array_equal(rm, exp_rm)
    if f.has_neg_zero:
        np.testing.assert_array_equal(np.signbit(fd), np.signbit(exp_fd))
        np.testing.assert_array_equal(np.signbit(rm), np.signbit(exp_rm))
    q, r = np.divmod(a, b)
    assert bits(q) == bits(np.floor_divide(a, b)) and bits(r) == bits(np.remainder(a, b))


@pytest.mark.parametrize("name", NAMES)
def test_warnings_follow_numpy(mf, name):
    """add overflowing the format warns 'overflow', 0/0 'invalid', 1/0
    'divide'; np.errstate silences or raises them."""
    f = R.FORMATS[name]
    T = getattr(mf, name)
    mx = np.array([f.max_code()], f.code_dtype).view(T)
    with pytest.warns(RuntimeWarning, match="overflow"):
        np.add(mx, mx)
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError, match="overflow"):
            np.multiply(mx, mx)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        np.add(mx, mx)
    if f.has_zero:
        z, one = arr(mf, name, [0.0]), arr(mf, name, [1.0])
        with pytest.warns(RuntimeWarning, match="invalid"):
            np.divide(z, z)
        with pytest.warns(RuntimeWarning, match="divide"):
            np.divide(one, z)
        with np.errstate(divide="raise", invalid="ignore"):
            with pytest.raises(FloatingPointError, match="divide"):
                np.true_divide(one, z)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("error")
            np.divide(z, z)
            np.divide(one, z)
    # ordinary arithmetic is silent, even when a result underflows
    small = np.array([1], f.code_dtype).view(T)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.add(arr(mf, name, [1.0, 0.5]), arr(mf, name, [0.5, 0.5]))  # values every format holds
        np.multiply(small, small)


# --------------------------------------------------------------------------
# Memory layouts: strided, reversed, unaligned, out=, where=, broadcasting
# --------------------------------------------------------------------------

LAYOUT_OPS = ["add", "subtract", "multiply", "divide", "maximum", "fmin", "power", "arctan2",
              "less", "nextafter", "copysign"]


@pytest.mark.parametrize("name", NAMES)
def test_layouts_match_contiguous(mf, name):
    f = R.FORMATS[name]
    T = getattr(mf, name)
    rng = np.random.default_rng(7)
    n = 1001
    ca = rng.integers(0, f.ncodes, 3 * n).astype(f.code_dtype)
    cb = rng.integers(0, f.ncodes, 3 * n).astype(f.code_dtype)
    a, b = ca.view(T), cb.view(T)
    for op in LAYOUT_OPS:
        u = getattr(np, op)
        with np.errstate(all="ignore"):
            sa, sb = a[::3], b[1::3][::-1]
            ref = u(np.ascontiguousarray(sa), np.ascontiguousarray(sb))
            assert bits(u(sa, sb)) == bits(ref), op
            # out= with a strided destination
            out = np.empty(2 * n, dtype=ref.dtype)[::2]
            u(sa, sb, out=out)
            assert bits(out) == bits(ref), op
            # where=
            mask = rng.integers(0, 2, n).astype(bool)
            out2 = np.zeros(n, dtype=ref.dtype)
            u(sa, sb, out=out2, where=mask)
            exp = np.where(mask, ref, np.zeros(n, dtype=ref.dtype))
            assert bits(out2) == bits(exp), op
            # scalar broadcast (both sides) and 2-D broadcast
            s = a[5:6]
            assert bits(u(sa, s)) == bits(u(sa, np.repeat(s, n))), op
            assert bits(u(s, sb)) == bits(u(np.repeat(s, n), sb)), op
            m2 = u(sa[:20, None], sb[None, :30])
            full = u(np.repeat(sa[:20, None], 30, 1), np.repeat(sb[None, :30], 20, 0))
            assert bits(m2) == bits(full), op
    if f.bits > 8:  # unaligned 2-byte elements
        buf = np.zeros(2 * n + 1, np.uint8)
        ua = np.frombuffer(buf.data, dtype=np.uint16, count=n, offset=1)
        assert not ua.flags.aligned
        buf[1:] = ca[:n].view(np.uint8)
        with np.errstate(all="ignore"):
            assert bits(np.add(ua.view(T), b[:n])) == bits(np.add(a[:n], b[:n]))


def test_pair_kernel_choice_is_reported_and_can_be_set():
    """The kernel serving long 8-bit + - * / is chosen once per process, on
    the first long run (measured, or set by MINIFLOAT_PAIR_KERNEL), and
    mf._core._pair_kernel names it ("" before, and where there is nothing to
    choose between: under MINIFLOAT_DISABLE_AVX512=1, as the sanitizer
    script runs the suite); every choice gives the same bits. In fresh
    processes, so that the choice is not this one's."""
    import os
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import hashlib, numpy as np, minifloat as mf
        mf.set_num_threads(1)  # one run of 2M codes: long enough to ask for the choice
        before = mf._core._pair_kernel()
        codes = np.arange(1 << 21, dtype=np.uint32)
        a = (codes & 0xFF).astype(np.uint8).view(mf.float8_e4m3fn)
        b = ((codes >> 8) & 0xFF).astype(np.uint8).view(mf.float8_e4m3fn)
        with np.errstate(all="ignore"):
            product = np.multiply(a, b)
        print("|".join([before, mf._core._pair_kernel(), mf._core._active_kernels(),
                        hashlib.sha256(product.tobytes()).hexdigest()]))
    """)
    seen = {}
    for setting in (None, "fused", "gathers"):
        env = {k: v for k, v in os.environ.items() if k != "MINIFLOAT_PAIR_KERNEL"}
        if setting is not None:
            env["MINIFLOAT_PAIR_KERNEL"] = setting
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
        assert r.returncode == 0, r.stderr
        before, chosen, active, digest = r.stdout.strip().split("|")
        assert before == ""
        if active != "avx512":
            # the gathers are weighed against the AVX-512 fused kernel only:
            # without it no choice is made (or, asked, it is "computed")
            assert chosen in ("", "computed")
        elif setting == "gathers":
            assert chosen == "gathers"
        elif setting == "fused":
            assert chosen == "computed"
        else:
            assert chosen in ("computed", "gathers")
        seen[setting] = digest
    assert len(set(seen.values())) == 1, seen
