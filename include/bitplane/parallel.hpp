// How many threads bitplane's bulk operations use. Blocks are independent, so encode (bulk
// construction), decode and every bulk operation split their blocks across threads (oneTBB).
// The default is every hardware thread; 1 means no threads at all.
#pragma once

#include <cstddef>

namespace bitplane {

/// Threads bulk operations may use (>= 1).
[[nodiscard]] std::size_t thread_count() noexcept;

/// Sets the thread count for bulk operations started afterwards; 0 restores the default
/// (all hardware threads). Not meant to race with running operations.
void set_thread_count(std::size_t threads);

/// Whether this build has a thread pool (oneTBB); without one, every operation is serial.
[[nodiscard]] bool parallel_available() noexcept;

}  // namespace bitplane
