"""Every ```python block of the README runs as written (in a temporary
directory; a block that imports an optional library is skipped without it)."""
import os
import re
import warnings

import pytest

README = os.path.join(os.path.dirname(__file__), os.pardir, "README.md")
OPTIONAL = ("torch", "jax", "onnx", "safetensors", "dask", "pandas", "matplotlib", "ml_dtypes", "zarr", "tensorstore")


def python_blocks():
    if not os.path.exists(README):
        return []
    with open(README, encoding="utf-8") as f:
        text = f.read()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


BLOCKS = python_blocks()


@pytest.mark.skipif(not BLOCKS, reason="README.md not found next to the tests")
@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_block_runs(index, tmp_path, monkeypatch):
    block = BLOCKS[index]
    for module in OPTIONAL:
        if re.search(rf"^\s*import {module}\b|^\s*from {module}\b", block, flags=re.M):
            pytest.importorskip(module)
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(block, f"README block {index}", "exec"), {"__name__": "__readme__"})
