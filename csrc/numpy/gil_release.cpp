#include "gil_release.h"

#include <atomic>
#include <chrono>
#include <thread>

namespace minifloat {
namespace {

std::atomic<bool> g_exiting{false};
std::atomic<int> g_taking_gil_back{0};  // threads between the check below and their GIL
std::atomic<unsigned long> g_exiting_thread{0};  // the thread running the exit hooks: never parked

[[noreturn]] void park() {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

// threading.current_thread().daemon, with the GIL; true where it cannot be
// told (a thread threading does not know is a _DummyThread: a daemon).
bool current_thread_is_daemon() {
    PyObject* threading = PyImport_ImportModule("threading");  // (in sys.modules: a lookup)
    if (threading == nullptr) {
        PyErr_Clear();
        return true;
    }
    PyObject* thread = PyObject_CallMethod(threading, "current_thread", nullptr);
    Py_DECREF(threading);
    PyObject* daemon = thread == nullptr ? nullptr : PyObject_GetAttrString(thread, "daemon");
    Py_XDECREF(thread);
    const int truth = daemon == nullptr ? -1 : PyObject_IsTrue(daemon);
    Py_XDECREF(daemon);
    if (truth < 0) PyErr_Clear();
    return truth != 0;
}

}  // namespace

bool GilReleased::parks_if_exiting() {
    if (!g_exiting.load()) return true;  // in a call at the mark: parked if it ends after it
    if (PyThread_get_thread_ident() == g_exiting_thread.load()) return false;
    return current_thread_is_daemon();
}

GilReleased::~GilReleased() noexcept(false) {
    g_taking_gil_back.fetch_add(1);
    if (parks_at_exit_ && g_exiting.load() && PyThread_get_thread_ident() != g_exiting_thread.load()) {
        g_taking_gil_back.fetch_sub(1);
        park();
    }
    PyEval_RestoreThread(state_);
    g_taking_gil_back.fetch_sub(1);
}

void exiting_now(int timeout_ms) {
    g_exiting_thread.store(PyThread_get_thread_ident());
    g_exiting.store(true);
    if (g_taking_gil_back.load() == 0) return;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    PyThreadState* state = PyEval_SaveThread();
    while (g_taking_gil_back.load() > 0 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    PyEval_RestoreThread(state);
}

}  // namespace minifloat
