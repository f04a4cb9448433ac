"""The API reference's ground truth: every public name's docstring.

Runs every docstring example of the imported package (the installed one in
CI, not the source tree) with the standard library's doctest, and checks
that every public name is documented in NumPy's style and listed in the
API reference (docs/api/*.rst). The public names are the ``__all__`` of
minifloat and of its public submodules; a name there must exist, and a
public attribute of the package must be listed in one of them.
"""
import doctest
import importlib
import importlib.util
import inspect
import pathlib
import re

import pytest

mf = pytest.importorskip("minifloat")

API_DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs" / "api"
SUBMODULES = ("dtypes", "mx", "quant", "zarr")
# Where an example needs an optional package: (the module or object's
# qualified name) prefix -> the package. Their examples run where it is
# installed.
NEEDS = {"minifloat.zarr": "zarr", "minifloat._zarr": "zarr", "minifloat.to_ml_dtypes": "ml_dtypes",
         "minifloat.from_ml_dtypes": "ml_dtypes"}
NEEDS_DASK = ("to_zarr", "mx_to_zarr", "mx_from_zarr")
# Functions that return nothing (no Returns section needed, as NumPy writes
# procedures' docstrings; they still need their other sections).
# Attributes of minifloat outside every __all__, each for a reason:
NOT_IN_ALL = {
    # what mf.load returns for an .npz (documented with load in the API
    # reference): in minifloat.__all__, help(minifloat) would print its
    # inherited Mapping methods before the first function
    "NpzArchive",
}


def _public_modules():
    """minifloat and its public submodules (mf.zarr where zarr is installed)."""
    modules = {"minifloat": mf}
    for name in SUBMODULES:
        if name == "zarr" and importlib.util.find_spec("zarr") is None:
            continue
        modules[f"minifloat.{name}"] = getattr(mf, name)
    return modules


def _public_objects():
    """(qualified name, object) of every name in a public module's __all__."""
    for module_name, module in _public_modules().items():
        for name in module.__all__:
            yield f"{module_name}.{name}", getattr(module, name)


def _routines():
    """(qualified name, function) of every public function, method and property."""
    seen = set()
    for qualified, obj in _public_objects():
        if inspect.isfunction(obj) and id(obj) not in seen:
            seen.add(id(obj))
            yield qualified, obj
        elif inspect.isclass(obj) and obj.__module__.startswith("minifloat.") and id(obj) not in seen:
            seen.add(id(obj))
            for name, member in vars(obj).items():
                if name.startswith("_"):
                    continue
                if isinstance(member, (classmethod, staticmethod)):
                    member = member.__func__
                if inspect.isfunction(member) or isinstance(member, property):
                    yield f"{qualified}.{name}", member


def test_all_names_exist_and_are_unique():
    for module_name, module in _public_modules().items():
        assert len(set(module.__all__)) == len(module.__all__), module_name
        missing = [name for name in module.__all__ if not hasattr(module, name)]
        assert not missing, f"{module_name}.__all__ names what it lacks: {missing}"
        assert not [name for name in module.__all__ if name.startswith("_")], module_name


def test_every_public_attribute_is_listed():
    """dir(mf)'s public names are the API: each in the __all__ of minifloat or
    a public submodule (the types: minifloat.dtypes)."""
    listed = set(mf.__all__)
    for module in _public_modules().values():
        listed |= set(module.__all__)
    public = {name for name in dir(mf) if not name.startswith("_")}
    assert public - listed == NOT_IN_ALL
    # and the submodules export only their API (no json, math, np, numbers)
    for module_name, module in _public_modules().items():
        if module is not mf:
            assert sorted(n for n in dir(module) if not n.startswith("_")) == sorted(module.__all__), module_name


def test_types_live_in_dtypes():
    """The scalar types are mf's attributes and mf.dtypes'; the DType classes
    mf.dtypes' (mf.<Name>DType, the name NumPy prints, still resolves)."""
    import numpy as np

    for name in (*mf.FORMAT_NAMES, *mf.INT_FORMAT_NAMES):
        scalar_type = getattr(mf, name)
        assert getattr(mf.dtypes, name) is scalar_type
        dtype_class = type(np.dtype(scalar_type))
        assert getattr(mf.dtypes, dtype_class.__name__) is dtype_class
        assert name in mf.dtypes.__all__ and dtype_class.__name__ in mf.dtypes.__all__
        assert dtype_class.__name__ not in dir(mf)
        assert getattr(mf, dtype_class.__name__) is dtype_class
    assert mf.floating is mf.dtypes.floating and mf.MinifloatDType is mf.dtypes.MinifloatDType


def test_dtypes_table_names_every_built_in_type():
    """The table in mf.dtypes' docstring (what help() and the reference show)
    names every built-in type; the P3109 family by its pattern."""
    doc = mf.dtypes.__doc__
    for name in (*mf.FORMAT_NAMES, *mf.INT_FORMAT_NAMES):
        if not name.startswith("binary8p"):
            assert re.search(rf"\b{name}\b", doc), name
    assert "binary8p{P}{s,u}{e,f}" in doc


def test_help_reaches_the_functions_early():
    """help(minifloat) opens with the module docstring that maps the API and
    reaches the functions within two screens (classes in __all__ would put
    hundreds of inherited methods first)."""
    import pydoc

    text = pydoc.render_doc(mf, renderer=pydoc.plaintext).splitlines()
    functions = text.index("FUNCTIONS")
    assert functions < 120, f"FUNCTIONS starts at line {functions + 1}"
    description = "\n".join(text[:functions])
    for name in ("cast", "mx", "quant", "save", "load", "zarr", "dtypes", "float_format", "pack"):
        assert re.search(rf"\b{name}\b", description), name
    assert "CLASSES" not in text


def _needs(qualified):
    for prefix, package in NEEDS.items():
        if qualified == prefix or qualified.startswith(prefix + "."):
            return package
    return None


def _python_defined(obj):
    """Functions and classes written in Python (the C types' slot wrappers
    carry no examples of ours)."""
    return inspect.isfunction(obj) or (inspect.isclass(obj) and obj.__module__.startswith("minifloat."))


def _doctests():
    tests = {}
    module_finder = doctest.DocTestFinder(recurse=False, exclude_empty=True)
    for module_name, module in _public_modules().items():
        for test in module_finder.find(module, module_name):
            tests.setdefault(test.name, test)
    finder = doctest.DocTestFinder(exclude_empty=True)
    for qualified, obj in _public_objects():
        if _python_defined(obj):
            # module=False: objects defined in the private modules (mf.cast
            # lives in minifloat._cast) are found too
            for test in finder.find(obj, qualified, module=False):
                if test.examples:
                    tests.setdefault(test.name, test)
    return sorted(tests.values(), key=lambda t: t.name)


def test_there_are_examples():
    names = {t.name for t in _doctests()}
    assert len(names) >= 50
    assert {"minifloat.cast", "minifloat.mx.quantize", "minifloat.quant.quantize", "minifloat.dtypes"} <= names


@pytest.mark.parametrize("test", _doctests(), ids=lambda t: t.name)
def test_docstring_examples(test):
    package = _needs(test.name)
    if package is not None:
        pytest.importorskip(package)
    if test.name.rsplit(".", 1)[-1] in NEEDS_DASK:
        pytest.importorskip("dask")
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    output = []
    try:
        runner.run(test, out=output.append, clear_globs=True)
    finally:
        mf.unpatch_numpy()  # whatever an example left
    assert runner.failures == 0, "".join(output)


def _sections(doc):
    return set(re.findall(r"^\s*(\w[\w ]*)\n\s*-{3,}\s*$", doc or "", re.MULTILINE))


@pytest.mark.parametrize("qualified,routine", list(_routines()), ids=lambda x: x if isinstance(x, str) else "")
def test_routines_are_documented(qualified, routine):
    """Every public function and method: a summary line, Parameters where it
    takes any, Returns, and an Examples section for the module-level
    functions (NumPy's docstring style)."""
    doc = inspect.getdoc(routine)
    assert doc and doc.strip(), f"{qualified} has no docstring"
    if isinstance(routine, property):
        return
    sections = _sections(doc)
    parameters = [p for p in inspect.signature(routine).parameters.values() if p.name not in ("self", "cls")]
    if parameters:
        assert "Parameters" in sections, f"{qualified}: no Parameters section"
    assert "Returns" in sections, f"{qualified}: no Returns section"
    if not qualified.startswith("minifloat.quant.ScaledScheme."):  # (the scheme interface: see quantize)
        assert "Examples" in sections, f"{qualified}: no Examples section"


def test_classes_are_documented():
    for qualified, obj in _public_objects():
        if inspect.isclass(obj) and obj.__module__.startswith("minifloat."):
            sections = _sections(inspect.getdoc(obj))
            assert "Examples" in sections, f"{qualified}: no Examples section"


def test_reference_lists_every_public_name():
    """docs/api/<module>.rst names each name of the module's __all__ (one
    directive line each); the types by the table in mf.dtypes' docstring."""
    if not API_DOCS.is_dir():
        pytest.skip("docs/ is not next to the tests (an installed test tree)")
    for module_name, module in _public_modules().items():
        page = (API_DOCS / f"{module_name.removeprefix('minifloat.')}.rst").read_text()
        for name in module.__all__:
            if module is mf and name in SUBMODULES:
                assert f"   {name}\n" in (API_DOCS / "index.rst").read_text(), name
                continue
            if module_name == "minifloat.dtypes" and not name.endswith(("floating", "integer", "MinifloatDType",
                                                                        "IntegerDType")):
                continue  # the types: the module docstring's table
            pattern = rf"^\.\. (auto)?(function|class|data)::\s+{re.escape(name)}\s*$"
            assert re.search(pattern, page, re.MULTILINE), f"{module_name}.{name} is not in {page[:0]}docs/api"
