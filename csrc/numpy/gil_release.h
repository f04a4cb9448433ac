// The GIL released around bulk work, safe when the interpreter exits
// meanwhile. A thread that takes the GIL back while the interpreter
// finalizes is ended by CPython 3.11-3.13 with pthread_exit, whose forced
// unwind runs the C++ destructors above it: from pybind11's noexcept
// gil_scoped_release that is std::terminate (pybind/pybind11#2215), and on
// 3.13 a destructor's Py_DECREF on a thread without a thread state
// segfaults. So no thread may be waiting for the GIL here when finalization
// starts: at exit (minifloat's atexit hook, before finalization) exiting_now()
// marks the process as exiting and waits, the GIL released, until the
// threads already waiting have it back; a thread that leaves its work after
// that is parked instead (the process is ending; it holds no lock and no
// chunk of the thread pool), as CPython 3.14 parks such threads itself.
// Never parked: the thread running the exit hooks, and a non-daemon thread
// that began its call after the mark (another exit hook's worker, which that
// hook joins; atexit runs hooks registered before minifloat's after it).
// A thread already in a call at the mark is a daemon one or will be ended by
// CPython anyway: Python joins its non-daemon threads before exit hooks.
#pragma once

#include <Python.h>

namespace minifloat {

class GilReleased {
public:
    GilReleased() : parks_at_exit_(parks_if_exiting()), state_(PyEval_SaveThread()) {}
    ~GilReleased() noexcept(false);  // (noexcept(false): an unwind may pass through it)
    GilReleased(const GilReleased&) = delete;
    GilReleased& operator=(const GilReleased&) = delete;

private:
    // With the GIL: whether this thread is parked if the process is exiting
    // when its call ends (an atomic load before exit, a lookup after).
    static bool parks_if_exiting();

    bool parks_at_exit_;
    PyThreadState* state_;
};

// At interpreter exit, with the GIL held: marks the process as exiting and
// waits (the GIL released, at most `timeout_ms`) until no thread is waiting
// to take the GIL back in a GilReleased.
void exiting_now(int timeout_ms);

}  // namespace minifloat
