"""What `import minifloat` does to the rest of the process (issue 26).

Each check runs in a fresh interpreter: the snapshot of every loaded NumPy
module's attributes and of NumPy's name table before and after the import,
the opt-in patches and their undoing, the names ml_dtypes holds, dask's
np.nan* dispatch, JAX's string dtypes in both import orders, and a slice of
NumPy's own test files with and without minifloat.
"""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

SNAPSHOT = textwrap.dedent("""
    import json, sys, types
    import numpy as np

    def snapshot():
        modules = {name: {k: id(v) for k, v in vars(m).items()}
                   for name, m in list(sys.modules.items())
                   if isinstance(m, types.ModuleType) and (name == "numpy" or name.startswith("numpy."))}
        names = {str(k): id(v) for k, v in np.sctypeDict.items()}
        return modules, names

    def changes(before, after):
        modules_before, names_before = before
        modules_after, names_after = after
        replaced = sorted(f"{module}.{key}" for module, attrs in modules_before.items()
                          for key, value in attrs.items()
                          if modules_after.get(module, {}).get(key, value) != value)
        added = sorted(f"{module}.{key}" for module, attrs in modules_before.items()
                       for key in modules_after.get(module, {}) if key not in attrs)
        removed = sorted(f"{module}.{key}" for module, attrs in modules_before.items()
                         for key in attrs if key not in modules_after.get(module, attrs))
        rebound = sorted(k for k, v in names_before.items() if names_after.get(k) != v)
        new_names = sorted(k for k in names_after if k not in names_before)
        return dict(replaced=replaced, added=added, removed=removed, rebound=rebound, new_names=new_names)
""")


def run_python(code, env=None):
    done = subprocess.run([sys.executable, "-c", SNAPSHOT + textwrap.dedent(code)], capture_output=True,
                          text=True, env=dict(os.environ, **(env or {})), timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_replaces_only_the_listed_guards():
    """A plain import replaces two attributes of NumPy modules (the guards,
    each where NumPy would crash or return wrong values), adds none, removes
    none, and re-binds no name of NumPy's name table."""
    result = run_python("""
        import numpy.fft, numpy.linalg, numpy.lib
        before = snapshot()
        import minifloat
        print(json.dumps(changes(before, snapshot())))
    """)
    assert result["replaced"] == ["numpy._core.einsumfunc.c_einsum", "numpy.iinfo"]
    assert result["added"] == [] and result["removed"] == []
    assert result["rebound"] == []
    assert "float8_e4m3fn" in result["new_names"] or "ml_dtypes" in sys.modules or _has("ml_dtypes")
    assert "minifloat.float8_e4m3fn" in result["new_names"]


def _has(module):
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def test_patch_numpy_and_unpatch_numpy_restore_everything():
    result = run_python("""
        import minifloat as mf
        before = snapshot()
        mf.patch_numpy()
        patched = changes(before, snapshot())
        mf.patch_numpy()  # idempotent
        assert changes(before, snapshot()) == patched
        mf.unpatch_numpy()
        print(json.dumps(dict(patched=patched, undone=changes(before, snapshot()))))
    """)
    assert "numpy.nansum" in result["patched"]["replaced"]
    assert "numpy._core.arrayprint._get_format_function" in result["patched"]["replaced"]
    assert result["patched"]["rebound"] == [] and result["patched"]["added"] == []
    assert result["undone"] == dict(replaced=[], added=[], removed=[], rebound=[], new_names=[])


def test_patched_functions_look_like_numpys(mf):
    import inspect
    import pickle

    originals = {name: getattr(np, name) for name in ("nansum", "nanmean", "dot", "convolve", "average", "cumsum")}
    mf.patch_numpy()
    try:
        for name, original in originals.items():
            patched = getattr(np, name)
            assert patched is not original
            assert patched.__name__ == original.__name__ and patched.__doc__ == original.__doc__
            assert patched.__module__ == original.__module__
            if name != "dot":  # (a C function without a signature)
                assert inspect.signature(patched) == inspect.signature(original)
            assert pickle.loads(pickle.dumps(patched)) is patched
            assert patched(np.arange(4.0), *((np.arange(4.0),) if name in ("dot", "convolve") else ())) is not None
    finally:
        mf.unpatch_numpy()
    for name, original in originals.items():
        assert getattr(np, name) is original


def test_guards_keep_float64_answers(mf):
    a = np.arange(12.0).reshape(3, 4)
    assert np.einsum("ij,kj->ik", a, a).tolist() == (a @ a.T).tolist()
    assert np.einsum(a, [0, 1], a, [2, 1], [0, 2]).tolist() == (a @ a.T).tolist()
    assert (np.iinfo(np.int8).min, np.iinfo(np.int8).max) == (-128, 127)
    assert (np.iinfo(np.uint64).max, np.iinfo("int32").min) == (2**64 - 1, -2**31)
    assert (np.iinfo(mf.int4).min, np.iinfo(mf.int4).max, np.iinfo(mf.uint2).max) == (-8, 7, 3)
    # NumPy's own behaviour elsewhere: its class name and module, its errors
    from numpy._core import getlimits

    assert (np.iinfo.__name__, np.iinfo.__module__) == (getlimits.iinfo.__name__, getlimits.iinfo.__module__)
    assert isinstance(np.iinfo(np.int8), getlimits.iinfo) and repr(np.iinfo(np.int8)) == repr(getlimits.iinfo(np.int8))
    for bad in (np.zeros(2, np.int8), np.float32, "float64"):
        with pytest.raises(Exception) as ours:
            np.iinfo(bad)
        with pytest.raises(Exception) as numpys:
            getlimits.iinfo(bad)
        assert (type(ours.value), str(ours.value)) == (type(numpys.value), str(numpys.value))
    assert mf.iinfo(np.zeros(2, mf.int4)).min == -8  # (mf.iinfo also takes arrays, as mf.finfo does)


@pytest.mark.parametrize("name", ["float8_e4m3fn", "bfloat16", "float4_e2m1fn"])
def test_einsum_guard_computes_in_float32(mf, name):
    """NumPy's C einsum crashes or returns wrong sums on new-style DTypes;
    the guard multiplies and sums in float32 and rounds once."""
    dt = np.dtype(getattr(mf, name))
    x = np.array([1, 2, 0.5, 3], dtype=dt)
    wide = x.astype(np.float32)
    assert np.einsum("i,i->", x, x) == np.float32(wide @ wide).astype(dt)
    m = np.array([[1, 2], [3, 0.5]], dtype=dt)
    assert np.einsum("ii->", m) == m.astype(np.float32).trace().astype(dt)
    assert np.einsum("ij,jk->ik", m, m).dtype == dt


def test_ml_dtypes_keeps_its_names():
    """With ml_dtypes installed, its names stay its own in either import
    order; mf.claim_dtype_names() is the explicit way to take them."""
    pytest.importorskip("ml_dtypes")
    for first, second in (("ml_dtypes", "minifloat"), ("minifloat", "ml_dtypes")):
        result = run_python(f"""
            import {first}, {second}
            import ml_dtypes, minifloat as mf
            owners = {{n: np.dtype(n).type.__module__.split(".")[0] for n in ("bfloat16", "float8_e4m3fn", "int4")}}
            mf.claim_dtype_names()
            claimed = {{n: np.dtype(n).type.__module__.split(".")[0] for n in ("bfloat16", "float8_e4m3fn", "int4")}}
            print(json.dumps(dict(owners=owners, claimed=claimed)))
        """)
        assert set(result["owners"].values()) == {"ml_dtypes"}, (first, result)
        assert set(result["claimed"].values()) == {"minifloat"}, (first, result)


def test_names_are_minifloats_when_no_one_else_holds_them():
    result = run_python("""
        import minifloat as mf
        print(json.dumps({n: np.dtype(n) == np.dtype(getattr(mf, n)) for n in ("bfloat16", "float8_e4m3fn", "int4")}))
    """, env={"MINIFLOAT_NO_ML_DTYPES": "1"})
    assert all(result.values()), result


def test_dask_nan_functions_dispatch_as_before(mf):
    """np.nansum/np.nanprod on a dask array (float64 data) work with
    minifloat imported, and with its patches."""
    da = pytest.importorskip("dask.array")
    x = da.from_array(np.array([1.0, np.nan, 3.0]), chunks=2)
    for patched in (False, True):
        if patched:
            mf.patch_numpy()
        try:
            assert float(np.nansum(x).compute()) == 4.0
            assert float(np.nanprod(x).compute()) == 3.0
            assert float(np.nanmean(x).compute()) == 2.0
        finally:
            mf.unpatch_numpy()


@pytest.mark.parametrize("order", ["jax first", "minifloat first"])
def test_jax_string_dtypes(order):
    pytest.importorskip("jax")
    imports = "import jax, minifloat" if order == "jax first" else "import minifloat, jax"
    result = run_python(f"""
        {imports}
        import jax.numpy as jnp
        out = [str(jnp.zeros(3, dtype="bfloat16").dtype), str(jnp.zeros(3, dtype="float8_e4m3fn").dtype),
               str(jnp.asarray(np.ones(2, np.float32)).astype("bfloat16").dtype)]
        print(json.dumps(out))
    """)
    assert result == ["bfloat16", "float8_e4m3fn", "bfloat16"]


def test_patch_numpy_statistics_accumulate_like_float16(mf):
    x = np.full(1000, 448, mf.float8_e4m3fn)
    mf.patch_numpy()
    try:
        assert float(np.mean(x)) == 448.0
        assert np.mean(x).dtype == x.dtype
        assert float(np.nanmean(x)) == 448.0
        assert float(np.std(x)) == 0.0
    finally:
        mf.unpatch_numpy()
    # without the patch: NumPy's own rule (the sum in the format overflows),
    # and the README's one-line way to float32 accumulation
    assert float(np.mean(x, dtype=np.float32)) == 448.0


# NumPy's own test files run with minifloat imported (and patched), against
# the same files without it: the same tests pass, but one.
NUMPY_TEST_FILES = ["numpy/_core/tests/test_einsum.py", "numpy/_core/tests/test_getlimits.py",
                    "numpy/lib/tests/test_nanfunctions.py", "numpy/_core/tests/test_arrayprint.py",
                    "numpy/lib/tests/test_function_base.py", "numpy/lib/tests/test_histograms.py",
                    "numpy/_core/tests/test_multiarray.py::TestNewBufferProtocol",
                    "numpy/_core/tests/test_multiarray.py::TestTextSignatures"]
# NumPy's test iterates np.sctypeDict and expects every registered type to
# export a buffer, which no new-style DType can (numpy/numpy#23500): it fails
# for minifloat's own names ("minifloat.float8_e4m3fn"), which the issue keeps,
# and for ml_dtypes' types the same way (minifloat imports ml_dtypes where
# it is installed).
SCTYPEDICT_BUFFER_TEST = "TestNewBufferProtocol::test_roundtrip_single_types"


def _numpy_suite(prelude):
    """(failed test ids, summary line) of NumPy's test files run in a fresh
    interpreter after `prelude`."""
    root = os.path.dirname(os.path.dirname(np.__file__))
    files = [os.path.join(root, f) for f in NUMPY_TEST_FILES if os.path.exists(os.path.join(root, f.split("::")[0]))]
    if not files:
        pytest.skip("this NumPy ships without its test files")
    code = f"{prelude}\nimport sys, pytest\nsys.exit(pytest.main({files!r} + ['-q', '-p', 'no:cacheprovider', '-rf']))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900,
                          cwd=os.path.dirname(root))
    failed = sorted(line.split(" ")[1] for line in done.stdout.splitlines() if line.startswith("FAILED "))
    summaries = [line for line in done.stdout.splitlines() if " passed" in line and " in " in line]
    return failed, summaries[-1] if summaries else done.stdout[-2000:] + done.stderr[-2000:]


def test_numpy_own_tests_unchanged(mf):
    pytest.importorskip("hypothesis")
    plain, plain_summary = _numpy_suite("")
    imported, imported_summary = _numpy_suite("import minifloat")
    patched, patched_summary = _numpy_suite("import minifloat; minifloat.patch_numpy()")
    assert " passed" in plain_summary, plain_summary
    known = [t for t in imported if t.endswith(SCTYPEDICT_BUFFER_TEST)]
    assert [t for t in imported if t not in known] == plain, (plain_summary, imported_summary)
    assert [t for t in patched if t not in known] == plain, (plain_summary, patched_summary)


def test_einsum_guard_dtype_and_out(mf):
    """A minifloat dtype= or out= reaches NumPy's C einsum with no loop for
    it (a segfault, or dtype= silently ignored): the guard computes in
    float32 and rounds once, with NumPy's casting rule."""
    a = np.array([1, 2, 0.5], mf.float8_e4m3fn)
    got = np.einsum("i,i->", a, a, dtype=mf.float8_e4m3fn)
    assert got.dtype == np.dtype(mf.float8_e4m3fn) and float(got) == 5.0  # 5.25 rounds to even
    with pytest.raises(TypeError, match="according to the rule 'safe'"):
        np.einsum("i->i", np.ones(3), dtype=mf.bfloat16)  # as float16: float64 -> bfloat16 is not safe
    got = np.einsum("i->i", np.ones(3), dtype=mf.bfloat16, casting="same_kind")
    assert got.dtype == np.dtype(mf.bfloat16) and got.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(TypeError, match="according to the rule 'safe'"):
        np.einsum("i,i->i", np.ones(3), np.ones(3), out=np.zeros(3, mf.float8_e4m3fn))
    out = np.zeros(3, mf.float8_e4m3fn)
    assert np.einsum("i,i->i", np.full(3, 1.5), np.ones(3), out=out, casting="unsafe") is out
    assert out.tolist() == [1.5, 1.5, 1.5]
    assert np.einsum("i,i->i", a, a, out=np.zeros(3, np.float32)).tolist() == [1.0, 4.0, 0.25]
    assert np.einsum(a, [0], a, [0], []) == np.einsum("i,i->", a, a)
    assert np.einsum("i,i", a, [1.0, 2.0, 3.0]) == 6.5  # float64, NumPy's result type
