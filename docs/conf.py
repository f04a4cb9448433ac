"""Sphinx configuration of minifloat's documentation.

Build (from the repository root, with the package and the docs extra
installed: ``pip install ".[docs]"``)::

    python -m sphinx -W -c docs -b html . docs/_build/html

The source directory is the repository root, so that the Markdown pages
(the README, docs/*.md, benchmarks/README.md, csrc/README.md; MyST) link to
each other as they do on a repository host; ``include_patterns`` picks
them. The API reference (docs/api/) is written from the docstrings of the
imported package (autodoc + napoleon, NumPy's docstring style).
"""
import minifloat

project = "minifloat"
author = "minifloat developers"
copyright = "minifloat developers"
release = version = minifloat.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "docs/index"
include_patterns = ["README.md", "docs/**", "benchmarks/README.md", "benchmarks/results/latest.md",
                    "benchmarks/results/avx2-only.md", "benchmarks/results/intel-xeon.md",
                    "benchmarks/results/scaling-16core.md", "benchmarks/results/scaling-2core.md", "csrc/README.md"]
exclude_patterns = ["docs/_build"]
# The Markdown pages link to their headings (#setup): MyST makes anchors
# for headings down to this level.
myst_heading_anchors = 4

# NumPy's docstring style; "Warns" and "See Also" as NumPy writes them.
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_param = True
napoleon_use_ivar = True
autodoc_member_order = "bysource"
autodoc_default_options = {"members": False}
# The signatures come from the functions (the stubs are for type checkers).
autodoc_typehints = "none"

html_theme = "alabaster"
html_title = f"minifloat {release}"
