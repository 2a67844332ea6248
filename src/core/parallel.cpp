#include "core/parallel.hpp"

#include <bitplane/int128.hpp>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <thread>

#if BITPLANE_HAS_TBB
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#endif

namespace bitplane {

namespace {

std::size_t hardware_threads() noexcept {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : n;
}

std::atomic<std::size_t> requested{0};  // 0: all hardware threads

#if BITPLANE_HAS_TBB
// One arena per thread count, made when first needed, so that a changed count takes effect
// without touching TBB's global state (other libraries in the process may use TBB too).
std::mutex arena_mutex;
std::shared_ptr<tbb::task_arena> arena;
std::size_t arena_threads = 0;

std::shared_ptr<tbb::task_arena> arena_for(std::size_t threads) {
    const std::lock_guard lock(arena_mutex);
    if (!arena || arena_threads != threads) {
        arena = std::make_shared<tbb::task_arena>(static_cast<int>(threads));
        arena_threads = threads;
    }
    return arena;
}
#endif

}  // namespace

std::size_t thread_count() noexcept {
    const std::size_t n = requested.load(std::memory_order_relaxed);
    return n == 0 ? hardware_threads() : n;
}

void set_thread_count(std::size_t threads) { requested.store(threads, std::memory_order_relaxed); }

bool parallel_available() noexcept {
#if BITPLANE_HAS_TBB
    return true;
#else
    return false;
#endif
}

std::string to_string(uint128 value) {
    if (value == 0) return "0";
    std::string digits;
    while (value != 0) {
        digits.push_back(static_cast<char>('0' + static_cast<int>(value % 10)));
        value /= 10;
    }
    std::reverse(digits.begin(), digits.end());
    return digits;
}

std::string to_string(int128 value) {
    if (value >= 0) return to_string(static_cast<uint128>(value));
    std::string text = to_string(static_cast<uint128>(-(value + 1)) + 1);  // |INT128_MIN| fits only unsigned
    text.insert(text.begin(), '-');
    return text;
}

}  // namespace bitplane

namespace bitplane::detail {

void parallel_for(std::size_t count, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& body) {
    if (count == 0) return;
    grain = std::max<std::size_t>(grain, 1);
    const std::size_t threads = thread_count();
#if BITPLANE_HAS_TBB
    if (threads > 1 && count >= 2 * grain) {
        arena_for(threads)->execute([&] {
            tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count, grain),
                              [&](const tbb::blocked_range<std::size_t>& r) { body(r.begin(), r.end()); });
        });
        return;
    }
#else
    (void)threads;
#endif
    body(0, count);
}

}  // namespace bitplane::detail
