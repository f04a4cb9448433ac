#include "thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cfenv>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include <immintrin.h>
#endif

#include "memory_streams.h"

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#include <signal.h>
#define MINIFLOAT_POSIX_THREADS 1
#else
#define MINIFLOAT_POSIX_THREADS 0
#endif

namespace minifloat {

namespace {

// The status flags NumPy reports (inexact is not one of them).
constexpr int kReportedExcepts = FE_OVERFLOW | FE_INVALID | FE_DIVBYZERO | FE_UNDERFLOW;

std::atomic<int> g_threads{1};

using Clock = std::chrono::steady_clock;

// How long a worker that finished a job, and a caller waiting for its
// helpers, poll before sleeping on the condition variable. Waking a
// sleeping thread costs tens of microseconds in a VM, about a tenth of a
// 4M-value stochastic cast on two threads: calls in a loop find the workers
// awake. (OpenMP runtimes spin for the same reason, for longer.)
constexpr std::chrono::microseconds kSpin{100};

// A worker whose jobs come less than kLongestSpin apart polls for twice the
// last gap between them (at least kSpin): calls in a loop with other work
// between them (a one-thread call, NumPy's own work) then find it awake
// too. The poll is at most kPollPerWork times the worker's last job, so
// polling costs at most that many times the work it helps with (calls of
// 0.1 ms every 3 ms poll 0.4 ms of each gap, not all of it), and a longer
// gap brings it back to kSpin: a pause after a loop costs at most
// kLongestSpin of one core per worker. (OpenBLAS's idle threads poll for
// about 0.1 s, libgomp's for milliseconds.)
constexpr std::chrono::microseconds kLongestSpin{4000};
constexpr int kPollPerWork = 4;

Clock::duration poll_after(Clock::duration gap, Clock::duration worked) {
    if (gap >= kLongestSpin) return kSpin;
    const Clock::duration most = std::min<Clock::duration>(kLongestSpin, kPollPerWork * worked);
    return std::max<Clock::duration>(kSpin, std::min<Clock::duration>(2 * gap, most));
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

// Polls `done` until it holds or `poll` has passed; returns whether it held.
template <class Done>
bool spin_until(const Done& done, Clock::duration poll = kSpin) {
    const auto until = Clock::now() + poll;
    for (;;) {
        for (int i = 0; i < 64; i++) {
            if (done()) return true;
            cpu_relax();
        }
        if (Clock::now() >= until) return done();
    }
}
std::atomic<size_t> g_min_chunk_override{0};
std::atomic<bool> g_shut_down{false};
std::atomic<int> g_last_threads{1};
// Set on the pool's workers for their life and on a caller while it runs
// chunks: a parallel_for from there runs serially.
thread_local bool t_inside_parallel = false;

// One parallel_for's work, claimed in chunks whose size falls as the work
// left does ("guided"): a chunk is 1/(kGuided * threads) of what is left,
// at least `minimum` items, its start a multiple of `align`. Big chunks
// first keep the claims few; small ones last let a helper that woke late,
// or a thread slowed by others on the machine, finish with the rest (a
// worker woken from sleep joins about 0.1 ms late in a VM: a 4M-value
// stochastic cast on 2 threads took 0.36-0.38 ms in chunks of an eighth,
// against 0.29-0.31 with the worker already awake). The bounds depend only
// on where the last claim ended, never on which thread claims: the same
// for every run.
constexpr size_t kGuided = 2;

struct Job {
    detail::ChunkBody body{};
    size_t n = 0, align = 1, minimum = 1, threads = 1;
    size_t elements = 0;  // n times the weight of an item (memory_streams.h's OperationLengthScope)
    int max_helpers = 0;
    std::atomic<size_t> next{0};  // where the next chunk starts
    std::atomic<uint32_t> flags{0};
    std::atomic<int> raised{0};
    std::atomic<int> joined{0};
    std::atomic<int> helped{0};
    fenv_t env{};
    std::mutex error_mutex;
    std::exception_ptr error;

    // Claims the next chunk; false when none is left.
    bool claim(size_t& begin, size_t& end) {
        size_t start = next.load(std::memory_order_relaxed);
        for (;;) {
            if (start >= n) return false;
            const size_t size = std::max(minimum, (n - start) / (kGuided * threads));
            const size_t stop = std::min(n, (start + size + align - 1) / align * align);
            if (next.compare_exchange_weak(start, stop, std::memory_order_relaxed)) {
                begin = start;
                end = stop;
                return true;
            }
        }
    }

    void run_chunks() {
        const OperationLengthScope whole(elements);
        size_t begin = 0, end = 0;
        while (claim(begin, end)) {
            try {
                const uint32_t f = body(begin, end);
                if (f != 0) flags.fetch_or(f, std::memory_order_relaxed);
            } catch (...) {
                std::lock_guard<std::mutex> lock(error_mutex);
                if (!error) error = std::current_exception();
                next.store(n, std::memory_order_relaxed);  // the others stop early
            }
        }
    }
};

class Pool {
public:
    std::atomic<bool> busy{false};   // a caller's job owns the workers
    std::atomic<int> callers{0};     // calls running work above their kind's minimum, serial ones included
    Pool* retired_next = nullptr;    // pools left behind by fork() (see forget_after_fork)

    // Starts workers until there are `count` (the caller holds `busy`);
    // returns how many there are (fewer if the system refuses threads).
    int ensure_workers(int count) {
        std::lock_guard<std::mutex> lock(mutex_);
        while (static_cast<int>(workers_.size()) < count) {
            try {
                workers_.emplace_back(&Pool::worker_main, this, generation_.load());
            } catch (...) {
                break;
            }
        }
        return static_cast<int>(workers_.size());
    }

    // Runs `job` on the caller and up to job.max_helpers workers; returns
    // when every chunk is done.
    void run(Job& job) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            job_ = &job;
            generation_++;
        }
        wake_.notify_all();
        if (g_min_chunk_override.load(std::memory_order_relaxed) != 0) {
            // tests: every helper takes part before the caller starts, so
            // that a small job is really shared (see set_min_chunk_override)
            while (job.helped.load(std::memory_order_acquire) < job.max_helpers) std::this_thread::yield();
        }
        job.run_chunks();
        {
            std::lock_guard<std::mutex> lock(mutex_);
            job_ = nullptr;  // workers waking from now on skip it
        }
        // (a helper's decrement releases its writes to the job: flags, errors)
        if (spin_until([this] { return users_.load(std::memory_order_acquire) == 0; })) return;
        std::unique_lock<std::mutex> lock(mutex_);
        idle_.wait(lock, [this] { return users_.load(std::memory_order_acquire) == 0; });
    }

    void stop_and_join() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
            stopping_flag_.store(true, std::memory_order_release);
        }
        wake_.notify_all();
        for (std::thread& t : workers_) {
            if (t.joinable()) t.join();
        }
        workers_.clear();
    }

private:
    std::mutex mutex_;
    std::condition_variable wake_, idle_;
    Job* job_ = nullptr;
    // written under mutex_; read without it by spinning workers
    std::atomic<uint64_t> generation_{0};
    // workers inside job_: joined under mutex_, left without it
    std::atomic<int> users_{0};
    bool stopping_ = false;
    std::atomic<bool> stopping_flag_{false};  // stopping_, for spinning workers
    std::vector<std::thread> workers_;

    void worker_main(uint64_t seen) {
#if MINIFLOAT_POSIX_THREADS
        // signals go to Python's threads, never to a worker
        sigset_t all;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, nullptr);
#endif
#if defined(__linux__)
        // (top, gdb and /proc name them; 15 characters at most)
        pthread_setname_np(pthread_self(), "minifloat-pool");
#endif
        t_inside_parallel = true;
        Clock::duration poll = kSpin;
        Clock::time_point done_at = Clock::now() - kLongestSpin;  // (as if after a pause)
        Clock::duration worked{0};  // the last job's time on this worker
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            const auto ready = [&] { return stopping_ || (job_ != nullptr && generation_.load() != seen); };
            if (!ready()) {
                lock.unlock();
                spin_until(
                    [&] {
                        return stopping_flag_.load(std::memory_order_acquire) ||
                               generation_.load(std::memory_order_acquire) != seen;
                    },
                    poll);
                lock.lock();
            }
            wake_.wait(lock, ready);
            if (stopping_) return;
            seen = generation_.load();
            const Clock::time_point arrived = Clock::now();
            poll = poll_after(arrived - done_at, worked);
            done_at = arrived;
            worked = Clock::duration{0};
            Job& job = *job_;
            if (job.joined.fetch_add(1, std::memory_order_relaxed) >= job.max_helpers) continue;
            users_.fetch_add(1, std::memory_order_relaxed);
            lock.unlock();
            help(job);
            done_at = Clock::now();
            worked = done_at - arrived;
            // the job may end (and its memory go) once users_ reaches 0:
            // nothing of it is touched after this
            const bool last = users_.fetch_sub(1, std::memory_order_acq_rel) == 1;
            lock.lock();
            if (last) idle_.notify_all();
        }
    }

    static void help(Job& job) {
        // the caller's rounding mode and exception masks, no flags
        std::fesetenv(&job.env);
        std::feclearexcept(FE_ALL_EXCEPT);
        job.helped.fetch_add(1, std::memory_order_release);
        job.run_chunks();
        const int raised = std::fetestexcept(kReportedExcepts);
        if (raised != 0) job.raised.fetch_or(raised, std::memory_order_relaxed);
    }
};

std::atomic<Pool*> g_pool{nullptr};
Pool* g_retired = nullptr;

#if MINIFLOAT_POSIX_THREADS
// In a child of fork() the workers do not exist and the pool's mutex may be
// held by a thread that does not either: the child leaves the old pool
// alone (kept reachable, never freed) and makes a fresh one when it first
// needs it.
void forget_after_fork() {
    Pool* old = g_pool.exchange(nullptr);
    if (old != nullptr) {
        old->retired_next = g_retired;
        g_retired = old;
    }
    t_inside_parallel = false;
}
#endif

Pool& pool() {
    Pool* p = g_pool.load(std::memory_order_acquire);
    if (p != nullptr) return *p;
#if MINIFLOAT_POSIX_THREADS
    static std::once_flag registered;
    std::call_once(registered, [] { pthread_atfork(nullptr, nullptr, forget_after_fork); });
#endif
    Pool* fresh = new Pool;
    if (g_pool.compare_exchange_strong(p, fresh, std::memory_order_acq_rel)) return *fresh;
    delete fresh;
    return *p;
}

struct CallerCount {
    Pool& p;
    int others;
    explicit CallerCount(Pool& pool) : p(pool), others(pool.callers.fetch_add(1, std::memory_order_acq_rel)) {}
    ~CallerCount() { p.callers.fetch_sub(1, std::memory_order_acq_rel); }
};

}  // namespace

int num_threads() { return g_threads.load(std::memory_order_relaxed); }

void set_num_threads(int n) { g_threads.store(n < 1 ? 1 : std::min(n, kMaxThreads), std::memory_order_relaxed); }

void set_min_chunk_override(size_t elements) { g_min_chunk_override.store(elements, std::memory_order_relaxed); }

size_t min_chunk_override() { return g_min_chunk_override.load(std::memory_order_relaxed); }

// One thread's cost per value, measured at 1M values on an AMD EPYC (Zen 5,
// AVX-512): casts 0.1-0.3 ns, stochastic rounding 0.2 ns, 8-bit add 0.3 ns,
// bfloat16 exp/sin 0.7 ns (64K tables), MX quantize 0.5 ns, packing 0.02 ns.
// Each minimum is 20-50 us of one thread's work, a few times what waking a
// sleeping worker and waiting for it costs (10-20 us on an idle machine);
// benchmarks/thread_chunks.py measures the crossover where a machine is
// quiet enough for it.
size_t min_chunk(WorkKind kind) {
    const size_t forced = g_min_chunk_override.load(std::memory_order_relaxed);
    if (forced != 0) return forced;
    switch (kind) {
        case WorkKind::cast: return size_t{1} << 17;
        case WorkKind::stochastic: return size_t{1} << 17;
        case WorkKind::elementwise: return size_t{1} << 17;
        case WorkKind::exact_math: return size_t{1} << 16;
        case WorkKind::blocks: return size_t{1} << 16;
        case WorkKind::packing: return size_t{1} << 20;
        case WorkKind::matmul: return size_t{1} << 18;
    }
    return size_t{1} << 17;
}

int last_parallel_threads() { return g_last_threads.load(std::memory_order_relaxed); }

void shutdown_thread_pool() {
    g_shut_down.store(true);
    Pool* p = g_pool.load(std::memory_order_acquire);
    if (p == nullptr) return;
    bool expected = false;
    // a running job ends soon: its caller only waits for its chunks
    while (!p->busy.compare_exchange_weak(expected, true)) {
        expected = false;
        std::this_thread::yield();
    }
    p->stop_and_join();
    p->busy.store(false);
}

namespace detail {

uint32_t parallel_for_erased(size_t n, WorkKind kind, size_t align, size_t weight, ChunkBody body) {
    const size_t minimum = std::max<size_t>((min_chunk(kind) + weight - 1) / weight, 1);
    const int threads = num_threads();
    if (threads <= 1 || n < 2 * minimum || t_inside_parallel || g_shut_down.load(std::memory_order_relaxed)) {
        if (t_inside_parallel) return body(0, n);  // (the outer operation's length stands)
        if (n >= 2 * minimum) g_last_threads.store(1, std::memory_order_relaxed);
        const OperationLengthScope whole(n * weight);
        return body(0, n);
    }
    Pool& p = pool();
    const CallerCount count(p);
    // other callers running big work at this moment each keep one thread
    const int allowed = threads - count.others;
    const size_t parts = std::min<size_t>(allowed > 0 ? static_cast<size_t>(allowed) : 1, n / minimum);
    bool expected = false;
    if (parts <= 1 || !p.busy.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
        g_last_threads.store(1, std::memory_order_relaxed);
        const OperationLengthScope whole(n * weight);
        return body(0, n);
    }
    Job job;
    job.body = body;
    job.n = n;
    job.elements = n * weight;
    job.max_helpers = std::min(static_cast<int>(parts) - 1, p.ensure_workers(static_cast<int>(parts) - 1));
    job.align = std::max<size_t>(align, 1);
    job.minimum = minimum;
    job.threads = static_cast<size_t>(job.max_helpers) + 1;
    std::fegetenv(&job.env);
    t_inside_parallel = true;
    p.run(job);
    t_inside_parallel = false;
    p.busy.store(false, std::memory_order_release);
    g_last_threads.store(1 + job.helped.load(std::memory_order_relaxed), std::memory_order_relaxed);
    if (job.error) std::rethrow_exception(job.error);
    const int raised = job.raised.load(std::memory_order_relaxed);
    if (raised != 0) std::feraiseexcept(raised);
    return job.flags.load(std::memory_order_relaxed);
}

}  // namespace detail

}  // namespace minifloat
