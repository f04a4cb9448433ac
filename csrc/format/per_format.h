// Per-format state that grows with the registry: one T per format index,
// made on first use, at a stable address, readable from any thread without
// a lock (formats are added at run time while kernels run on others).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>

namespace minifloat {

// Most formats a process can hold (built-in and made at run time); each
// index has its own ArrFuncs entry points (array_functions.cpp).
inline constexpr int kMaxFormats = 1024;

template <class T>
class PerFormat {
public:
    static constexpr int kChunk = 64;

    PerFormat() = default;
    PerFormat(const PerFormat&) = delete;
    PerFormat& operator=(const PerFormat&) = delete;
    // Chunks are kept for the life of the process (a kernel may still run
    // on another thread at exit), like the formats themselves.

    // The T of format `index` (0 <= index < kMaxFormats), value-initialized
    // the first time any format of its chunk is asked for.
    T& operator[](int index) {
        std::atomic<T*>& slot = chunks_[index / kChunk];
        T* chunk = slot.load(std::memory_order_acquire);
        if (chunk == nullptr) {
            std::lock_guard<std::mutex> lock(mutex_);
            chunk = slot.load(std::memory_order_acquire);
            if (chunk == nullptr) {
                chunk = new T[kChunk]();
                slot.store(chunk, std::memory_order_release);
            }
        }
        return chunk[index % kChunk];
    }

private:
    std::atomic<T*> chunks_[kMaxFormats / kChunk] = {};
    std::mutex mutex_;
};

}  // namespace minifloat
