"""A format survives every path that rebuilds a dtype from text or bytes.

``dtype.str``, ``dtype.char`` and structured ``.descr`` read back to the same
dtype (never to NumPy's raw-bytes ``|V1``); pickles, ``np.save``/``np.load``
files, structured dtypes and dask.distributed's process boundary keep the
format and every code bit for bit.
"""
import io
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

import reference as ref

import minifloat as mf
from format_arrays import code_bits, dtype_of, every_code

FORMATS = list(mf.FORMAT_NAMES)


@pytest.mark.parametrize("name", FORMATS)
def test_str_char_and_name_read_back(name):
    dt = dtype_of(name)
    assert dt.str == f"minifloat.{name}"
    assert np.dtype(dt.str) is dt
    assert np.dtype(dt.char) is dt
    assert np.dtype(name) is dt
    assert dt.kind == "f"


def test_type_chars_are_unique_and_mean_no_numpy_type():
    chars = [dtype_of(name).char for name in FORMATS]
    assert len(set(chars)) == len(chars)
    numpy_chars = set("".join(np.typecodes.values())) | set("?bBhHiIlLqQnNpPefdgFDGSUVOMmcaT")
    assert not set(chars) & numpy_chars


def test_str_without_minifloat_raises_instead_of_bytes():
    # A process that never imported minifloat cannot read the spelling: it
    # must refuse, not fall back to raw bytes.
    code = ("import numpy as np\n"
            "try:\n    np.dtype('minifloat.float8_e4m3fn')\n"
            "except TypeError as e:\n    print('refused', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("refused")


@pytest.mark.parametrize("name", FORMATS)
def test_structured_dtype_descr_and_repr_read_back(name):
    dt = dtype_of(name)
    structured = np.dtype([("x", dt), ("y", np.float32), ("z", dt, (2,))])
    assert structured.descr[0] == ("x", dt.str)
    assert np.dtype(structured.descr) == structured
    assert np.dtype(structured.descr)["x"] is dt
    rebuilt = eval(repr(structured), {"dtype": np.dtype})
    assert rebuilt == structured and rebuilt["x"] is dt


@pytest.mark.parametrize("name", FORMATS)
def test_structured_array_saves_and_loads_without_pickle(name, tmp_path):
    dt = dtype_of(name)
    codes = every_code(name)
    arr = np.zeros(codes.size, [("v", dt), ("i", np.int32)])
    arr["v"] = codes
    arr["i"] = np.arange(codes.size)
    path = tmp_path / "structured.npy"
    np.save(path, arr)
    back = np.load(path, allow_pickle=False)
    assert back.dtype == arr.dtype and back.dtype["v"] is dt
    assert np.array_equal(back.view(np.uint8), arr.view(np.uint8))


@pytest.mark.parametrize("name", FORMATS)
def test_plain_array_np_save_pickles_and_loads_back(name, tmp_path):
    # np.save writes new-style dtypes as a pickle (numpy.lib.format warns
    # about it): np.load(allow_pickle=True) restores the format exactly, and
    # allow_pickle=False refuses; mf.save is the pickle-free way.
    arr = every_code(name).reshape(-1, 4)
    path = tmp_path / "plain.npy"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        np.save(path, arr)
    back = np.load(path, allow_pickle=True)
    assert back.dtype is arr.dtype
    assert np.array_equal(code_bits(back), code_bits(arr))
    with pytest.raises(ValueError):
        np.load(path, allow_pickle=False)


@pytest.mark.parametrize("name", FORMATS)
def test_pickle_keeps_format_and_bits(name):
    dt = dtype_of(name)
    codes = every_code(name)
    for obj in (dt, codes, codes[::3], codes.reshape(-1, 2).T):
        back = pickle.loads(pickle.dumps(obj))
        if isinstance(obj, np.dtype):
            assert back is dt
        else:
            assert back.dtype is dt and np.array_equal(code_bits(back), code_bits(obj))
    structured = np.zeros(3, [("v", dt)])
    structured["v"] = codes[:3]
    back = pickle.loads(pickle.dumps(structured))
    assert back.dtype["v"] is dt and np.array_equal(back.view(np.uint8), structured.view(np.uint8))


@pytest.mark.parametrize("name", FORMATS)
def test_npz_of_structured_arrays(name):
    dt = dtype_of(name)
    arr = np.zeros(4, [("v", dt)])
    arr["v"] = every_code(name)[:4]
    buffer = io.BytesIO()
    np.savez(buffer, a=arr)
    buffer.seek(0)
    back = np.load(buffer, allow_pickle=False)["a"]
    assert back.dtype["v"] is dt and np.array_equal(back.view(np.uint8), arr.view(np.uint8))


@pytest.mark.parametrize("name", FORMATS)
def test_newbyteorder(name):
    dt = dtype_of(name)
    for order in ("=", "|", "N", "I", "<" if sys.byteorder == "little" else ">"):
        assert dt.newbyteorder(order) is dt
    if dt.itemsize == 1:  # no byte order, as for np.uint8
        for order in ("S", "<", ">", "B", "L"):
            assert dt.newbyteorder(order) is dt
        assert dt.newbyteorder() is dt
        arr = every_code(name)
        assert np.array_equal(code_bits(arr.view(dt.newbyteorder())), code_bits(arr))
    else:
        with pytest.raises(TypeError, match="byteswap"):
            dt.newbyteorder("S")
    with pytest.raises(ValueError):
        dt.newbyteorder("Q")


# --------------------------------------------------------------------------
# dask.distributed: arrays cross process boundaries through dtype.str
# --------------------------------------------------------------------------


def _roundtrip(x):
    return x


def _double(x):
    return x * 2


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def _patch_numpy():
    import minifloat

    minifloat.patch_numpy()


@pytest.mark.usefixtures("patched_numpy")
def test_dask_distributed_processes_keep_the_format(dask_client):
    """(dask's reductions pass dtype= instances, which NumPy's ufuncs refuse
    for new-style DTypes: mf.patch_numpy() in the client and the workers.)"""
    da = pytest.importorskip("dask.array")
    dask_client.run(_patch_numpy)
    for name in FORMATS:
        dt = dtype_of(name)
        codes = every_code(name)
        back = dask_client.submit(_roundtrip, codes, pure=False).result()
        assert back.dtype is dt, name
        assert np.array_equal(code_bits(back), code_bits(codes)), name
        structured = np.zeros(4, [("v", dt)])
        structured["v"] = codes[:4]
        back = dask_client.submit(_roundtrip, structured, pure=False).result()
        assert back.dtype["v"] is dt, name
        # computed on the worker, in the format
        values = np.array([0.5, 1, 1.5, 2] * 8, np.float32).astype(dt)
        doubled = da.from_array(values, chunks=8).map_blocks(_double).compute()
        assert doubled.dtype is dt, name
        assert np.array_equal(code_bits(doubled), code_bits(values * 2)), name
        total = da.from_array(values, chunks=8).sum().compute()
        partial_sums = np.array([values[i:i + 8].sum() for i in range(0, values.size, 8)])
        assert total.dtype is dt, name
        assert np.array_equal(code_bits(np.asarray(total)), code_bits(np.asarray(partial_sums.sum()))), name
