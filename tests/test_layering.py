"""The layering of csrc/ and python/minifloat/ holds (csrc/README.md).

C++: the folders of csrc/ are layers in the order below; a file may use its
own layer or an earlier one, never a later one. Checked three ways:

- every ``#include`` (setup.py puts every folder on the include path, so a
  quoted include names a file alone and is resolved here to its folder;
  Python's, NumPy's and pybind11's headers belong to the numpy layer, the
  first that talks to Python);
- the headers of ``format/`` and ``kernels/`` compile with nothing but their
  own and earlier folders on the include path, without Python's or NumPy's
  headers (needs a C++ compiler, else skipped);
- no object file calls a function (or reads a variable) defined in a later
  layer (needs this Python's build objects and ``nm``, else skipped): a
  declaration moved down with its definition left behind is a hidden edge.

Python: the modules of the package import each other without a cycle, every
import counted (those inside functions too: deferring an import hides a
cycle, it does not remove it), and none imports the package itself: the
package (``__init__``) is the top, it imports its modules, not the reverse.
"""
import ast
import glob
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSRC = os.path.join(ROOT, "csrc")
PACKAGE = os.path.join(ROOT, "python", "minifloat")

# csrc/'s layers, first to last (csrc/README.md); subfolders belong to their
# top folder's layer (kernels/avx2 is kernels, numpy/integers is numpy).
LAYERS = ("format", "kernels", "numpy", "blocks", "interop", "module")
# Headers from outside csrc/ and the first layer allowed to include them.
EXTERNAL_LAYER = {"Python.h": "numpy", "numpy/": "numpy", "pybind11/": "numpy"}

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^">]+)[">]', re.M)


def _rel(path):
    return os.path.relpath(path, ROOT).replace(os.sep, "/")


def _layer(path):
    return os.path.relpath(path, CSRC).split(os.sep)[0]


def _sources(*endings):
    return sorted(p for e in endings for p in glob.glob(os.path.join(CSRC, "**", "*" + e), recursive=True))


def _files_by_name():
    by_name = {}
    for path in _sources(".h", ".cpp"):
        by_name.setdefault(os.path.basename(path), []).append(path)
    return by_name


def test_every_folder_is_a_layer_and_the_readme_lists_them_in_order():
    folders = sorted(d for d in os.listdir(CSRC) if os.path.isdir(os.path.join(CSRC, d)))
    assert sorted(LAYERS) == folders, "a folder of csrc/ that is not a layer (or a layer without its folder)"
    with open(os.path.join(CSRC, "README.md"), encoding="utf-8") as fh:
        readme = fh.read()
    rows = re.findall(r"^\| `(\w+)/`", readme, re.M)
    assert [row for row in rows if row in LAYERS] == list(LAYERS), "csrc/README.md's table: one row per layer, in order"


def test_header_names_are_unique():
    # Every folder is on the include path: two headers of one name would
    # make an include mean whichever folder comes first.
    clashes = {name: [_rel(p) for p in paths] for name, paths in _files_by_name().items()
               if name.endswith(".h") and len(paths) > 1}
    assert not clashes


def test_includes_follow_the_layers():
    by_name = _files_by_name()
    against, unknown = [], []
    for path in _sources(".h", ".cpp"):
        mine = LAYERS.index(_layer(path))
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        for kind, name in INCLUDE.findall(text):
            if kind == '"':
                targets = by_name.get(os.path.basename(name))
                if not targets:
                    unknown.append(f"{_rel(path)}: #include \"{name}\" names no file of csrc/")
                    continue
                theirs, shown = _layer(targets[0]), _rel(targets[0])
            else:
                theirs = next((layer for prefix, layer in EXTERNAL_LAYER.items() if name.startswith(prefix)), None)
                if theirs is None:
                    continue  # the standard library, compiler intrinsics
                shown = f"<{name}>"
            if LAYERS.index(theirs) > mine:
                against.append(f"{_rel(path)} ({_layer(path)}) includes {shown} ({theirs})")
    assert not unknown, "\n".join(unknown)
    assert not against, "includes against the layer order " + " -> ".join(LAYERS) + ":\n" + "\n".join(against)


def _compiler():
    for name in (os.environ.get("CXX"), "c++", "g++", "clang++"):
        if name and shutil.which(name.split()[0]):
            return name.split()
    return None


def _syntax_check(compiler, path, folders):
    command = [*compiler, "-std=c++17", "-fsyntax-only", "-x", "c++", "-Werror=switch",
               *(f"-I{folder}" for folder in folders), path]
    done = subprocess.run(command, capture_output=True, text=True)
    return None if done.returncode == 0 else f"{_rel(path)}:\n{done.stderr.strip()[:1500]}"


@pytest.mark.parametrize("layer", ["format", "kernels"])
def test_lower_layers_compile_without_python_or_numpy(layer):
    """Each header of format/ (and kernels/) compiles alone with only its
    own and earlier layers' folders on the include path: no Python.h, no
    NumPy, no later layer, even through another header. (Their sources
    include only such headers: test_includes_follow_the_layers.)"""
    compiler = _compiler()
    if compiler is None:
        pytest.skip("no C++ compiler")
    if sys.platform == "win32" or "cl" in os.path.basename(compiler[0]).lower().split("."):
        pytest.skip("the check speaks GCC/Clang's options")
    allowed = LAYERS[:LAYERS.index(layer) + 1]
    folders = sorted({os.path.dirname(p) for p in _sources(".h", ".cpp") if _layer(p) in allowed})
    files = [p for p in _sources(".h") if _layer(p) == layer]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        failures = [f for f in pool.map(lambda p: _syntax_check(compiler, p, folders), files) if f]
    assert not failures, f"{layer}/ needs what it may not use:\n" + "\n\n".join(failures)


def _build_objects():
    """This Python's build objects of csrc/, each newer than its source."""
    tag = f"cpython-{sys.version_info.major}{sys.version_info.minor}"
    objects = {}
    for obj in glob.glob(os.path.join(ROOT, "build", f"temp.*{tag}*", "csrc", "**", "*.o"), recursive=True):
        relative = obj.split(os.sep + "csrc" + os.sep, 1)[1]
        source = os.path.join(CSRC, relative[:-2] + ".cpp")
        if os.path.exists(source) and os.path.getmtime(obj) >= os.path.getmtime(source):
            objects[obj] = source
    return objects


def _symbols(obj):
    """(defined, undefined) external symbol names of an object file."""
    listing = subprocess.run(["nm", "-g", "-P", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBR":  # strong definitions (inline functions and templates are weak: W, V, u)
            defined.add(name)
    return defined, undefined


def test_no_object_uses_a_later_layer():
    if shutil.which("nm") is None or sys.platform in ("win32", "darwin"):
        pytest.skip("needs GNU/LLVM nm and ELF objects")
    objects = _build_objects()
    if len(objects) < len(_sources(".cpp")):
        pytest.skip("no up-to-date build objects for this Python (python setup.py build_ext --inplace)")
    symbols = {obj: _symbols(obj) for obj in objects}
    defined_in = {}
    for obj, (defined, _) in symbols.items():
        for name in defined:
            defined_in.setdefault(name, objects[obj])
    against = []
    for obj, (_, undefined) in symbols.items():
        source = objects[obj]
        for name in sorted(undefined):
            owner = defined_in.get(name)
            if owner is not None and LAYERS.index(_layer(owner)) > LAYERS.index(_layer(source)):
                demangled = subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip() \
                    if shutil.which("c++filt") else name
                against.append(f"{_rel(source)} ({_layer(source)}) uses {demangled} "
                               f"of {_rel(owner)} ({_layer(owner)})")
    assert not against, "calls against the layer order " + " -> ".join(LAYERS) + ":\n" + "\n".join(against)


# ---- Python -----------------------------------------------------------------

def _python_modules():
    return {os.path.splitext(os.path.basename(p))[0]: p for p in glob.glob(os.path.join(PACKAGE, "*.py"))}


# The compiled extension: a module the others import, importing none of them.
COMPILED = {"_core"}


def _imported_modules(node, modules):
    """The package modules one import statement names ("__init__": the
    package itself, for a name it defines)."""
    if isinstance(node, ast.Import):
        return [a.name.split(".")[1] if "." in a.name else "__init__"
                for a in node.names if a.name == "minifloat" or a.name.startswith("minifloat.")]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level == 1 or (node.level == 0 and (node.module or "").split(".")[0] == "minifloat"):
        module = node.module if node.level == 1 else ".".join((node.module or "").split(".")[1:])
        if module:
            return [module.split(".")[0]]
        # `from . import x`: module x, or a name the package defines
        return [a.name if a.name in modules or a.name in COMPILED else "__init__" for a in node.names]
    return []


def _python_import_edges():
    modules = _python_modules()
    edges = {}
    for module, path in modules.items():
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), path)
        for node in ast.walk(tree):
            for target in _imported_modules(node, modules):
                if target != module and (target in modules or target == "__init__"):
                    edges.setdefault(module, {}).setdefault(target, node.lineno)
    return edges


def test_no_module_imports_the_package():
    edges = _python_import_edges()
    upward = [f"python/minifloat/{module}.py:{targets['__init__']} imports the package (minifloat/__init__.py)"
              for module, targets in sorted(edges.items()) if module != "__init__" and "__init__" in targets]
    assert not upward, "the package imports its modules, not the reverse:\n" + "\n".join(upward)


def test_no_python_import_cycle():
    edges = _python_import_edges()
    cycles, state = [], {}

    def visit(module, stack):
        state[module] = "open"
        stack.append(module)
        for target in sorted(edges.get(module, {})):
            if state.get(target) == "open":
                cycle = stack[stack.index(target):] + [target]
                cycles.append(" -> ".join(f"{a}.py:{edges[a][b]}" for a, b in zip(cycle, cycle[1:])) + f" -> {target}")
            elif target not in state:
                visit(target, stack)
        stack.pop()
        state[module] = "done"

    for module in sorted(edges):
        if module not in state:
            visit(module, [])
    assert not cycles, "import cycles among python/minifloat's modules:\n" + "\n".join(cycles)
