"""minifloat as a drop-in for ml_dtypes 0.6: every public name of ml_dtypes
has a counterpart of the same name in minifloat, and the README's "Coming
from ml_dtypes" table lists each of them."""

import os
import re

import numpy as np
import pytest

import minifloat as mf

# ml_dtypes 0.6.0's public names (dir(ml_dtypes) without underscores),
# written out so the test needs no ml_dtypes
ML_DTYPES_0_6 = ["bcomplex32", "bfloat16", "complex32", "finfo", "float4_e2m1fn", "float6_e2m3fn",
                 "float6_e3m2fn", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
                 "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "iinfo", "imag",
                 "int1", "int2", "int4", "real", "uint1", "uint2", "uint4"]

README = os.path.join(os.path.dirname(__file__), os.pardir, "README.md")


@pytest.mark.parametrize("name", ML_DTYPES_0_6)
def test_every_ml_dtypes_name_imports_from_minifloat(name):
    namespace = {}
    exec(f"from minifloat import {name}", namespace)
    obj = namespace[name]
    assert obj is getattr(mf, name)
    # functions are in minifloat.__all__, the scalar types in minifloat.dtypes.__all__ (so
    # help(minifloat) reaches the functions first, as numpy.dtypes keeps the DType classes)
    assert name in mf.__all__ or name in mf.dtypes.__all__
    if isinstance(obj, type):  # a scalar type: a NumPy dtype of the same name and width
        assert np.dtype(obj).name == name
        kind = {"bfloat16": "f", "complex32": "c", "bcomplex32": "c"}.get(name, name[0] if name[0] in "iu" else "f")
        assert np.dtype(obj).kind == kind
    else:
        assert callable(obj)


def test_the_list_matches_installed_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    if ml_dtypes.__version__.split(".")[:2] != ["0", "6"]:
        pytest.skip(f"the list is ml_dtypes 0.6's; installed: {ml_dtypes.__version__}")
    assert sorted(n for n in dir(ml_dtypes) if not n.startswith("_")) == sorted(ML_DTYPES_0_6)


def test_readme_lists_every_name():
    if not os.path.exists(README):
        pytest.skip("README.md not found next to the tests")
    with open(README, encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## Coming from ml_dtypes"):]
    section = section[:section.index("\n## ", 1)]
    listed = set(re.findall(r"`([a-z0-9_]+)`", section))
    assert not set(ML_DTYPES_0_6) - listed, sorted(set(ML_DTYPES_0_6) - listed)
