"""How many threads minifloat's bulk operations use.

Casts (``astype`` of contiguous data, every ``mf.cast`` mode, stochastic
rounding included), element-wise ufuncs, ``mf.pack``/``mf.unpack``,
``mf.mx.quantize``/``dequantize``, ``mf.mx.matmul`` and the decoding and
rounding around ``matmul`` split large arrays over a pool of worker threads
(csrc/kernels/thread_pool.h). The result is bit-identical for every thread
count: the work is element-wise, and stochastic rounding's draws are tied to
element positions. Reductions (``sum``, ``prod``, ``cumsum``) stay on one
thread: their float32 accumulation order would change with a split.

The thread count is process-wide:

- ``MINIFLOAT_NUM_THREADS`` (a positive integer), read at import;
- else the CPUs this process may use: its affinity mask
  (``os.sched_getaffinity``), capped by the cgroup's CPU quota (v2
  ``cpu.max``, v1 ``cpu.cfs_quota_us``/``cpu.cfs_period_us``), rounded up;
- ``mf.set_num_threads(n)``, ``mf.get_num_threads()``, and the context
  manager ``with mf.num_threads(n): ...`` (restores the previous count);
- ``threadpoolctl``: ``threadpool_limits(1)`` limits minifloat too (its
  user_api is ``"minifloat"``), once minifloat is imported.

No oversubscription: one pool serves every calling thread. A call uses at
most ``get_num_threads()`` minus the number of other threads running large
minifloat work at that moment; a call that finds the pool busy, and a call
from inside a worker, run on the calling thread alone. So under dask's
threaded scheduler or a user's ``ThreadPoolExecutor`` with as many threads
as cores, minifloat adds no threads of its own.

After ``os.fork()`` the child makes a fresh pool at its first large call,
with the parent's count; a ``spawn`` or ``forkserver`` child imports
minifloat afresh and takes the default (set ``MINIFLOAT_NUM_THREADS`` in
the environment, or call ``set_num_threads`` in the pool's initializer, so
that N processes do not use N times the cores). At interpreter exit the
workers are joined.
"""

import atexit
import contextlib
import importlib.metadata
import importlib.util
import math
import os
import sys
import warnings

from . import _core

__all__ = ["get_num_threads", "set_num_threads", "num_threads", "usable_cpu_count"]


def _cgroup_v2_limit(path):
    """CPUs allowed by cpu.max in the cgroup v2 folder `path` and its parents."""
    best = None
    while True:
        try:
            with open(os.path.join(path, "cpu.max")) as fh:
                quota, period = fh.read().split()[:2]
            if quota != "max" and int(period) > 0:
                cpus = max(1, math.ceil(int(quota) / int(period)))
                best = cpus if best is None else min(best, cpus)
        except (OSError, ValueError):
            pass
        parent = os.path.dirname(path)
        if parent == path or not parent.startswith("/sys/fs/cgroup"):
            return best
        path = parent


def _cgroup_cpu_limit():
    """The CPU quota of this process's cgroup as a CPU count, or None."""
    try:
        with open("/proc/self/cgroup") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":  # v2: "0::/path"
            limit = _cgroup_v2_limit("/sys/fs/cgroup" + path.rstrip("/"))
            if limit is not None:
                return limit
        elif "cpu" in controllers.split(","):  # v1
            for root in (f"/sys/fs/cgroup/{controllers}", "/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu"):
                for folder in (root + path.rstrip("/"), root):
                    try:
                        with open(os.path.join(folder, "cpu.cfs_quota_us")) as fh:
                            quota = int(fh.read())
                        with open(os.path.join(folder, "cpu.cfs_period_us")) as fh:
                            period = int(fh.read())
                    except (OSError, ValueError):
                        continue
                    if quota > 0 and period > 0:
                        return max(1, math.ceil(quota / period))
    return None


def usable_cpu_count():
    """The CPUs this process may run on: its affinity mask, capped by its cgroup's CPU quota."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 1
    limit = _cgroup_cpu_limit()
    if limit is not None:
        count = min(count, limit)
    return max(1, count)


def _check_count(n, what):
    if isinstance(n, bool) or type(n).__name__ == "bool":  # (True has __index__: 1 thread; np.bool too)
        raise TypeError(f"{what} must be an integer, not {n!r}")
    if not isinstance(n, int):
        try:
            n = n.__index__()
        except AttributeError:
            raise TypeError(f"{what} must be an integer, not {type(n).__name__}") from None
    if n < 1:
        raise ValueError(f"{what} must be at least 1, not {n}")
    if n > _core._MAX_THREADS:  # (a pool that large only waits)
        raise ValueError(f"{what} must be at most {_core._MAX_THREADS}, not {n}")
    return n


def get_num_threads():
    """The number of threads minifloat's bulk operations use (process-wide).

    The default is the CPUs this process may use (its affinity mask, capped
    by its cgroup's CPU quota), or ``MINIFLOAT_NUM_THREADS`` when set at
    import.

    Returns
    -------
    int
        The thread count, at least 1.

    See Also
    --------
    set_num_threads, num_threads

    Examples
    --------
    >>> import minifloat as mf
    >>> mf.get_num_threads() >= 1
    True
    """
    return _core._get_num_threads()


def set_num_threads(n):
    """Use `n` threads for minifloat's bulk operations from now on (process-wide).

    Casts, ``mf.cast`` (stochastic rounding too), element-wise ufuncs,
    MX/NVFP4 quantize, dequantize and matmul, ``mf.quant`` and packing split
    large arrays over the threads. Results do not depend on the count: every
    thread count gives the same bits.

    Parameters
    ----------
    n : int
        The thread count, at least 1.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        If `n` is not an integer (floats and bools included).
    ValueError
        If `n` is below 1 or above 1024.

    See Also
    --------
    get_num_threads, num_threads

    Examples
    --------
    >>> import minifloat as mf
    >>> previous = mf.get_num_threads()
    >>> mf.set_num_threads(1)
    >>> mf.get_num_threads()
    1
    >>> mf.set_num_threads(previous)
    """
    _core._set_num_threads(_check_count(n, "the thread count"))


@contextlib.contextmanager
def num_threads(n):
    """A context manager: the block runs with `n` threads, then the previous count returns.

    The count is process-wide, as threadpoolctl's limits are: other threads
    see it while the block runs, and blocks entered by several threads at
    once restore in the order they leave (one that leaves last restores the
    count it found, which another block may have set): set the count from
    one thread.

    Parameters
    ----------
    n : int
        The thread count inside the block, at least 1.

    Returns
    -------
    context manager
        Yields `n`.

    Raises
    ------
    TypeError
        If `n` is not an integer.
    ValueError
        If `n` is below 1 or above 1024.

    See Also
    --------
    set_num_threads, get_num_threads

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> with mf.num_threads(1):
    ...     mf.get_num_threads()
    1
    """
    n = _check_count(n, "the thread count")
    previous = get_num_threads()
    set_num_threads(n)
    try:
        yield n
    finally:
        set_num_threads(previous)


def _initial_count():
    value = os.environ.get("MINIFLOAT_NUM_THREADS", "").strip()
    if value:
        try:
            n = int(value)
            if 1 <= n <= _core._MAX_THREADS:
                return n
        except ValueError:
            pass
        warnings.warn(f"MINIFLOAT_NUM_THREADS must be an integer from 1 to {_core._MAX_THREADS}, not {value!r}: "
                      "using the CPUs this process may use", RuntimeWarning, stacklevel=3)
    return usable_cpu_count()


_registered = False


def register_threadpoolctl():
    """Registers minifloat's controller with threadpoolctl (idempotent); False if threadpoolctl is missing."""
    global _registered
    if _registered:
        return True
    try:
        import threadpoolctl
    except ImportError:
        return False
    if not hasattr(threadpoolctl, "register"):  # threadpoolctl < 3.5 has no custom controllers
        return False

    class MinifloatController(threadpoolctl.LibController):
        user_api = "minifloat"
        internal_api = "minifloat"
        # the extension module's file (_core.cpython-...so); the symbols
        # below tell it apart from other libraries' _core modules
        filename_prefixes = ("_core",)
        check_symbols = ("minifloat_get_num_threads", "minifloat_set_num_threads")

        def get_num_threads(self):
            return self.dynlib.minifloat_get_num_threads()

        def set_num_threads(self, num_threads):
            # (threadpool_limits passes any int: 2**31 wrapped to 1 in a C int)
            self.dynlib.minifloat_set_num_threads(min(max(1, int(num_threads)), _core._MAX_THREADS))

        def get_version(self):
            # the installed distribution's (this module may not import the
            # package), else the imported package's (run from a source tree)
            try:
                return importlib.metadata.version("minifloat")
            except importlib.metadata.PackageNotFoundError:
                return getattr(sys.modules.get("minifloat"), "__version__", None)

    threadpoolctl.register(MinifloatController)
    _registered = True
    return True


_core._set_num_threads(_initial_count())
# For test runs (tests/tools/sanitize.sh): split arrays from this many values
# on, instead of the measured minimum of each kind of work, so that the
# suite's small arrays run on the pool too.
if os.environ.get("MINIFLOAT_THREAD_MIN_CHUNK", "").strip().isdigit():
    _core._set_thread_min_chunk(int(os.environ["MINIFLOAT_THREAD_MIN_CHUNK"]))
atexit.register(_core._shutdown_threads)
# threadpoolctl finds its controllers when a limit is set: registered now,
# where it is installed (about 2 ms of import time), so that
# threadpool_limits(1) limits minifloat whichever was imported first.
if importlib.util.find_spec("threadpoolctl") is not None:
    register_threadpoolctl()
