// A value made once, by whichever thread asks first (the others wait), and
// kept for the life of the process: the lazily made operation tables and
// the measured kernel choice.
#pragma once

#include <atomic>
#include <mutex>

namespace minifloat {

template <class T>
class OnceValue {
public:
    // The value, made by make(T&) on the first call.
    template <class Make>
    const T& get(Make&& make) {
        std::call_once(once_, [&] {
            make(value_);
            made_.store(true, std::memory_order_release);
        });
        return value_;
    }

    // Whether it has been made (never waits for it), and the value if so.
    bool made() const { return made_.load(std::memory_order_acquire); }
    const T* if_made() const { return made() ? &value_ : nullptr; }

private:
    std::once_flag once_;
    std::atomic<bool> made_{false};
    T value_{};
};

}  // namespace minifloat
