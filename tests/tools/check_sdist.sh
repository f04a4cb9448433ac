#!/usr/bin/env bash
# The sdist is complete: build it, install it with its test extra in a fresh
# virtual environment (compiling the extension), then, from the unpacked
# sdist, run what the README's two commands run: the tests and a short
# benchmark, both against the installed package.
#
#   tests/tools/check_sdist.sh [WORKDIR]
#
# PYTHON picks the interpreter (default python3); PYTEST_ARGS narrows the test
# run (e.g. PYTEST_ARGS="-x tests/test_casts.py"). Needs PyPI (pip) and a C++
# compiler; about 10 minutes on two idle cores. tests/test_packaging.py runs it
# under `pytest -m packaging`.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-$(mktemp -d "${TMPDIR:-/tmp}/minifloat-sdist.XXXXXX")}"
python="$(command -v "${PYTHON:-python3}")"  # absolute: PATH changes below
mkdir -p "$work"
echo "== work directory: $work"

"$python" -m venv "$work/tools"
"$work/tools/bin/python" -m pip install -q build

echo "== building the sdist"
rm -rf "$work/dist"
(cd "$root" && "$work/tools/bin/python" -m build --sdist --outdir "$work/dist" .) > "$work/sdist.log" 2>&1 \
    || { cat "$work/sdist.log"; exit 1; }
sdist="$(ls "$work"/dist/minifloat-*.tar.gz)"
echo "sdist: $(basename "$sdist"), $(stat -c %s "$sdist") bytes"

echo "== contents"
tar -tzf "$sdist" | sed 's|^[^/]*/||' | sort > "$work/sdist-files.txt"
for needed in README.md LICENSE pyproject.toml setup.py MANIFEST.in .ci/run \
              csrc/format/format_table.h csrc/module/module.cpp csrc/README.md python/minifloat/__init__.py python/minifloat/py.typed \
              tests/conftest.py tests/reference.py tests/ufunc_reference.py tests/test_casts.py \
              tests/tools/check_sdist.sh benchmarks/run.py benchmarks/memory_floor.c benchmarks/README.md; do
    grep -qx "$needed" "$work/sdist-files.txt" || { echo "the sdist lacks $needed"; exit 1; }
done
if grep -E '\.(so|pyd|pyc|o)$|__pycache__|^benchmarks/results|^build/' "$work/sdist-files.txt"; then
    echo "the sdist holds build output (above)"; exit 1
fi
echo "$(wc -l < "$work/sdist-files.txt") files, $(grep -c '^csrc/' "$work/sdist-files.txt") in csrc/," \
     "$(grep -c '^tests/' "$work/sdist-files.txt") in tests/, $(grep -c '^benchmarks/' "$work/sdist-files.txt") in benchmarks/"

echo "== installing it in a fresh virtual environment: pip install -v 'sdist[test]'"
rm -rf "$work/venv"
"$python" -m venv "$work/venv"
venv_python="$work/venv/bin/python"
"$venv_python" -m pip install -q --upgrade pip
start=$(date +%s)
"$venv_python" -m pip install -v "$sdist[test]" > "$work/install.log" 2>&1 || { tail -50 "$work/install.log"; exit 1; }
echo "built and installed in $(( $(date +%s) - start )) s; progress lines:"
{ grep -E '^ *(minifloat:|\[[0-9]+/[0-9]+\] compiling)' "$work/install.log" || true; } | sed -n '1,3p;$p'
grep -qE '^ *\[1/[0-9]+\] compiling csrc/' "$work/install.log" || { echo "no per-file progress in the build"; exit 1; }
if grep -iE 'SetuptoolsDeprecationWarning|_DeprecatedInstaller|License classifiers are deprecated|deprecated.*(license|setup\.py)' \
        "$work/install.log"; then
    echo "the build warns of deprecations (above)"; exit 1
fi

echo "== from the unpacked sdist: the tests"
rm -rf "$work/src" && mkdir -p "$work/src"
tar -xzf "$sdist" -C "$work/src"
src="$(ls -d "$work"/src/minifloat-*)"
cd "$src"
"$venv_python" - <<'EOF'
import sys
import minifloat
assert minifloat.__file__.startswith(sys.prefix), f"imported {minifloat.__file__}, not the installed package"
print("minifloat", minifloat.__version__, "from", minifloat.__file__, "kernels:", minifloat._core._active_kernels())
EOF
# shellcheck disable=SC2086
"$venv_python" -m pytest -q -p no:cacheprovider ${PYTEST_ARGS:-} > "$work/pytest.log" 2>&1 \
    || { tail -40 "$work/pytest.log"; exit 1; }
tail -1 "$work/pytest.log"

echo "== from the unpacked sdist: a short benchmark (the bench extra's packages, then benchmarks/run.py)"
"$venv_python" -m pip install -q "ml_dtypes>=0.5" "matplotlib>=3.7"
"$venv_python" benchmarks/run.py --n 65536 --repeat 1 --no-torch --out "$work/bench.md" --chart "$work/bench.png" \
    > "$work/bench.log" 2>&1 || { tail -30 "$work/bench.log"; exit 1; }
grep -E '^VERDICT' "$work/bench.log"
test -s "$work/bench.md" && test -s "$work/bench.png"
echo "== sdist check passed"
