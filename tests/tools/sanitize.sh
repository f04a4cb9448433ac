#!/usr/bin/env bash
# Builds minifloat with AddressSanitizer and UndefinedBehaviorSanitizer into a
# directory of its own (the normal build and install are not touched), runs
# the tests under it with each kernel set the CPU has (avx512, avx2,
# portable) and the thread pool splitting arrays from 256 values on, then a
# LeakSanitizer pass over every public entry point
# (tests/tools/leak_driver.py). Exits non-zero on any sanitizer report, test
# failure or leak through minifloat's code.
#
#   tests/tools/sanitize.sh                 # subset of the suite per kernel set + leak pass
#   tests/tools/sanitize.sh --full          # the whole suite per kernel set
#   tests/tools/sanitize.sh --kernels portable --no-leaks -- tests/test_mx.py -k nvfp4
#
# Options:
#   --full               the whole suite (default: the subset, see SUBSET below)
#   --tests "FILES"      these test files instead of the subset
#   --kernels "SETS"     kernel sets to run (default: "avx512 avx2 portable"; sets the CPU lacks are skipped)
#   --no-suite           skip the test runs
#   --no-leaks           skip the leak pass
#   --keep-known         also run the suite's tests that crash for a known reason (see KNOWN_CRASHES)
#   --leak-iterations N  passes of the leak driver over the entry points (default 2)
#   -- ARGS              further pytest arguments
# Environment:
#   MINIFLOAT_SANITIZE_DIR   where the copy, build and logs live (default ${TMPDIR:-/tmp}/minifloat-sanitize-$UID);
#                            the build is kept and redone only when csrc/ or the flags change
#   MINIFLOAT_SANITIZE_OPT   optimization flags of the sanitized build (default "-O1 -fno-wrapv": Python's
#                            -fwrapv would hide signed overflow from UBSan)
#   MINIFLOAT_SANITIZE_JOBS  parallel compile jobs (default 2)
#   MINIFLOAT_SANITIZE_SOURCE  the tree to build and test (default: the one holding this script)
set -uo pipefail

ROOT=${MINIFLOAT_SANITIZE_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
WORK=${MINIFLOAT_SANITIZE_DIR:-${TMPDIR:-/tmp}/minifloat-sanitize-$(id -u)}
OPT=${MINIFLOAT_SANITIZE_OPT:--O1 -fno-wrapv}
JOBS=${MINIFLOAT_SANITIZE_JOBS:-2}
# the interpreter itself, not a launcher script (a pyenv shim run under
# LeakSanitizer fails on the shell's own leaks)
PYTHON=$("${PYTHON:-python}" -c 'import sys; print(sys.executable)')
SAN_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"

# The representative subset (about 1,900 of the suite's 7,300 tests): every
# hand-written kernel against the portable ones over every code pair and
# rounding boundary (test_kernel_paths), long streaming loops, reductions,
# ordering, linear algebra, packing, MX, DLPack, scalars, threads, and the
# bad-input and layout batteries (random layouts of every cast, ufunc and
# reduction). --full adds the per-format exact-reference sweeps of casts and
# ufuncs, which run the same kernels on contiguous data.
SUBSET="tests/test_kernel_paths.py tests/test_memory_streams.py tests/test_reductions.py
tests/test_broadcast_and_reduce.py tests/test_ordering.py tests/test_linalg.py tests/test_packing.py tests/test_mx.py
tests/test_dlpack.py tests/test_scalars.py tests/test_printing.py tests/test_threads.py tests/test_bad_inputs.py
tests/test_layouts_property.py"

# Tests of the suite that end the process under the sanitizers for a known
# reason (a UBSan abort stops the whole pytest run), as a pytest -k
# expression; none today (--keep-known is kept for when one appears).
KNOWN_CRASHES=""

TESTS=$SUBSET
KERNELS="avx512 avx2 portable"
RUN_SUITE=1
RUN_LEAKS=1
LEAK_ITERATIONS=2
PYTEST_EXTRA=()
while [ $# -gt 0 ]; do
    case "$1" in
        --full) TESTS="tests" ;;
        --tests) TESTS=$2; shift ;;
        --kernels) KERNELS=$2; shift ;;
        --no-suite) RUN_SUITE=0 ;;
        --no-leaks) RUN_LEAKS=0 ;;
        --keep-known) KNOWN_CRASHES="" ;;
        --leak-iterations) LEAK_ITERATIONS=$2; shift ;;
        --) shift; PYTEST_EXTRA=("$@"); break ;;
        -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "sanitize.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

SRC=$WORK/src
LOGS=$WORK/logs
mkdir -p "$SRC/python" "$WORK/temp" "$WORK/lib" "$LOGS"
rm -rf "${LOGS:?}"/* "$WORK"/tests-*.log "$WORK"/leaks.log "$WORK"/leaks-minifloat.txt

# ---- copy the tree (mtimes kept, so an unchanged csrc/ is not rebuilt) ----
find "$SRC" -mindepth 1 -maxdepth 1 ! -name python -exec rm -rf {} +
find "$SRC/python" -type f ! -name '*.so' -delete
if ! (cd "$ROOT" && tar -cf - --exclude='*.so' --exclude=__pycache__ --exclude=.hypothesis \
        setup.py pyproject.toml README.md csrc python tests) | tar -C "$SRC" -xf -; then
    echo "sanitize: could not copy the tree from $ROOT" >&2
    exit 2
fi

STAMP="$SAN_FLAGS $OPT $(gcc --version | head -1)"
if [ "$(cat "$WORK/flags" 2>/dev/null)" != "$STAMP" ]; then
    rm -rf "$WORK/temp"  # objects of other flags
    echo "$STAMP" > "$WORK/flags"
fi
# The module is always linked again (cheap; the objects are kept): a kept
# module could miss sources that were added or moved since it was linked.
rm -f "$SRC"/python/minifloat/_core*.so "$WORK"/lib/minifloat/_core*.so

# ---- build tools: setup.py imports pybind11 (and setuptools); where the
# calling environment lacks them, they are installed into a folder of the
# sanitizer's own, put on the build's path only ----
BUILD_PATH=""
if ! "$PYTHON" -c "import pybind11, setuptools" > /dev/null 2>&1; then
    TOOLS=$WORK/build-tools
    if ! PYTHONPATH=$TOOLS "$PYTHON" -c "import pybind11, setuptools" > /dev/null 2>&1; then
        echo "sanitize: installing the build requirements (pybind11, setuptools) into $TOOLS"
        if ! "$PYTHON" -m pip install --quiet --target "$TOOLS" "pybind11>=2.12" "setuptools>=77" > "$WORK/build-tools.log" 2>&1; then
            tail -5 "$WORK/build-tools.log"
            echo "sanitize: could not install pybind11 and setuptools for the build (log: $WORK/build-tools.log);" \
                 "install them into this environment, or set PYTHON to an interpreter that has them" >&2
            exit 2
        fi
    fi
    BUILD_PATH=$TOOLS
fi

# ---- build ----
start=$(date +%s)
echo "sanitize: building in $SRC ($SAN_FLAGS $OPT)"
if ! (cd "$SRC" && CC=gcc CXX=g++ CPPFLAGS="$SAN_FLAGS" MINIFLOAT_EXTRA_COMPILE_ARGS="$OPT" \
        PYTHONPATH="$BUILD_PATH" NPY_NUM_BUILD_JOBS=$JOBS "$PYTHON" setup.py build_ext --inplace --build-temp "$WORK/temp" --build-lib "$WORK/lib" \
        > "$WORK/build.log" 2>&1); then
    tail -30 "$WORK/build.log"
    echo "sanitize: build failed (log: $WORK/build.log)"
    exit 2
fi
SO=$(ls "$SRC"/python/minifloat/_core*.so)
if ! ldd "$SO" | grep libasan > /dev/null; then
    echo "sanitize: $SO is not linked with libasan: the flags did not reach the build" >&2
    exit 2
fi
echo "sanitize: build ready in $(( $(date +%s) - start )) s"

# libstdc++ is preloaded too: Python does not link it, and ASAN's __cxa_throw
# interceptor must find the real one when the runtime starts (otherwise the
# first C++ exception ends the process with "CHECK failed ... real___cxa_throw").
ASAN_RT="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so)"
# Python's small-object allocator hides overruns from ASAN: plain malloc.
# allocator_may_return_null: a huge request is a MemoryError, as without ASAN.
export PYTHONPATH=$SRC/python
export PYTHONMALLOC=malloc
export MINIFLOAT_BAD_INPUT_TIMEOUT=${MINIFLOAT_BAD_INPUT_TIMEOUT:-600}
# Threads on: arrays from 256 values on are split over the worker pool
# (python/minifloat/_threads.py), so the suite's small arrays run on it too.
export MINIFLOAT_NUM_THREADS=${MINIFLOAT_NUM_THREADS:-2}
export MINIFLOAT_THREAD_MIN_CHUNK=${MINIFLOAT_THREAD_MIN_CHUNK:-256}
ASAN_BASE="halt_on_error=1:abort_on_error=0:allocator_may_return_null=1:detect_odr_violation=0"
ASAN_COMMON="$ASAN_BASE:log_path=$LOGS/asan"
# UBSan (with ASan, GCC 12) writes to stderr whatever log_path says: pytest
# runs with --capture=sys so that C-level stderr reaches the test logs, which
# are searched for reports below.
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
SANITIZER_LINES="runtime error:|ERROR: AddressSanitizer|ERROR: LeakSanitizer|AddressSanitizer: CHECK failed"

status=0
failures=()


if [ $RUN_SUITE = 1 ]; then
    for set in $KERNELS; do
        case $set in
            avx512) env_set=() ;;
            avx2) env_set=(MINIFLOAT_DISABLE_AVX512=1) ;;
            portable) env_set=(MINIFLOAT_DISABLE_AVX512=1 MINIFLOAT_DISABLE_AVX2=1) ;;
            *) echo "sanitize: unknown kernel set $set" >&2; exit 2 ;;
        esac
        # which set the module picks under these variables; a probe that
        # fails (a sanitizer report at import) is a failure, not a CPU
        # without the set
        probe=$(cd "$SRC" && env "${env_set[@]}" ASAN_OPTIONS="detect_leaks=0:$ASAN_COMMON" "LD_PRELOAD=$ASAN_RT" \
                "$PYTHON" -c "import minifloat._core as c; print('active kernels:', c._active_kernels())" 2>&1)
        prc=$?
        active=$(echo "$probe" | sed -n 's/^active kernels: //p' | tail -1)
        if [ $prc != 0 ] || [ -z "$active" ]; then
            echo "sanitize: kernel set $set: importing minifloat failed (exit $prc):"
            echo "$probe" | tail -5
            echo "$probe" > "$WORK/tests-$set.log"
            status=1
            failures+=("import with kernel set $set (exit $prc, log $WORK/tests-$set.log)")
            continue
        fi
        if [ "$active" != "$set" ]; then
            echo "sanitize: kernel set $set: not available on this CPU (active: $active), skipped"
            continue
        fi
        echo "sanitize: tests with kernel set $set: $(echo $TESTS | wc -w) file(s)"
        t0=$(date +%s)
        deselect=()
        [ -n "$KNOWN_CRASHES" ] && deselect=(-k "not ($KNOWN_CRASHES)")
        # shellcheck disable=SC2086
        (cd "$SRC" && env "${env_set[@]}" ASAN_OPTIONS="detect_leaks=0:$ASAN_COMMON" "LD_PRELOAD=$ASAN_RT" \
            "$PYTHON" -m pytest -v --capture=sys -p no:cacheprovider "${deselect[@]}" $TESTS "${PYTEST_EXTRA[@]}") \
            > "$WORK/tests-$set.log" 2>&1
        rc=$?
        echo "sanitize: kernel set $set: $(tail -1 "$WORK/tests-$set.log") ($(( $(date +%s) - t0 )) s, log $WORK/tests-$set.log)"
        if [ $rc != 0 ]; then
            status=1
            failures+=("tests with kernel set $set (exit $rc)")
            grep -E "^(FAILED|ERROR)" "$WORK/tests-$set.log" | head -20
        fi
    done
fi

if [ $RUN_LEAKS = 1 ]; then
    echo "sanitize: leak pass ($LEAK_ITERATIONS iterations over the entry points)"
    t0=$(date +%s)
    mkdir -p "$LOGS/leaks"
    # exitcode 23: the exit of LeakSanitizer finding (Python's own) leaks, told apart from a failure
    (cd "$SRC" && env ASAN_OPTIONS="detect_leaks=1:exitcode=23:$ASAN_BASE:log_path=$LOGS/leaks/lsan" \
        "LD_PRELOAD=$ASAN_RT" "$PYTHON" tests/tools/leak_driver.py --iterations "$LEAK_ITERATIONS") \
        > "$WORK/leaks.log" 2>&1
    rc=$?
    tail -5 "$WORK/leaks.log"
    # LeakSanitizer reports what Python itself never frees too: keep the
    # leaks whose allocation stack passes through minifloat's code.
    "$PYTHON" "$ROOT/tests/tools/leak_driver.py" --filter "$LOGS"/leaks/lsan.* > "$WORK/leaks-minifloat.txt"
    frc=$?
    cat "$WORK/leaks-minifloat.txt"
    echo "sanitize: leak pass done in $(( $(date +%s) - t0 )) s"
    if [ $frc != 0 ]; then status=1; failures+=("leaks through minifloat (see $WORK/leaks-minifloat.txt)"); fi
    if [ $rc != 0 ] && [ $rc != 23 ]; then status=1; failures+=("leak driver exit $rc (log $WORK/leaks.log)"); fi
fi

# ---- sanitizer reports (from every process, test children included) ----
for log in "$WORK"/tests-*.log "$WORK"/leaks.log; do
    [ -f "$log" ] || continue
    if grep -qE "$SANITIZER_LINES" "$log"; then
        status=1
        echo "sanitize: sanitizer output in $log:"
        grep -nE "$SANITIZER_LINES" "$log" | sort -t: -k2 -u | head -30 | cut -c1-300
        failures+=("sanitizer output in $log")
    fi
done
# (files holding only "failed to allocate" warnings are the MemoryError cases)
reports=$(grep -lE "ERROR: AddressSanitizer|ERROR: LeakSanitizer|AddressSanitizer: CHECK failed" "$LOGS"/asan.* 2>/dev/null)
if [ -n "$reports" ]; then
    status=1
    echo "sanitize: $(echo "$reports" | wc -l) sanitizer report(s):"
    for r in $reports; do
        echo "==== $r"
        grep -m1 -E "ERROR: AddressSanitizer|runtime error|ERROR: LeakSanitizer|CHECK failed|SUMMARY" "$r" | cut -c1-300
        grep -m8 -E "^    #[0-9]+ " "$r" | cut -c1-200
    done
    failures+=("$(echo "$reports" | wc -l) sanitizer report(s) in $LOGS")
fi

if [ $status = 0 ]; then
    echo "sanitize: clean"
else
    echo "sanitize: FAILED:"
    printf '  - %s\n' "${failures[@]}"
fi
exit $status
