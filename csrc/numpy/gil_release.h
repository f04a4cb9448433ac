// The GIL released around bulk work, safe when the interpreter exits
// meanwhile. pybind11's gil_scoped_release takes the GIL back in a noexcept
// destructor; a daemon thread that asks for it while the interpreter
// finalizes is ended by CPython 3.11-3.13 with pthread_exit, whose forced
// unwind out of a noexcept destructor is std::terminate: the process
// aborts at exit (pybind/pybind11#2215). Here such a thread is parked
// instead, as CPython 3.14 does itself: the process is exiting, and the
// thread holds no lock and no chunk of the thread pool any more. The
// destructor is noexcept(false) for the window between the check and the
// call, where the unwind then passes through.
#pragma once

#include <Python.h>

#include <chrono>
#include <thread>

namespace minifloat {

inline bool interpreter_finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing() != 0;
#else
    return _Py_IsFinalizing() != 0;
#endif
}

class GilReleased {
public:
    GilReleased() : state_(PyEval_SaveThread()) {}
    ~GilReleased() noexcept(false) {
        while (interpreter_finalizing()) std::this_thread::sleep_for(std::chrono::hours(1));
        PyEval_RestoreThread(state_);
    }
    GilReleased(const GilReleased&) = delete;
    GilReleased& operator=(const GilReleased&) = delete;

private:
    PyThreadState* state_;
};

}  // namespace minifloat
