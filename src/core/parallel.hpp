// Splitting work over blocks across threads (oneTBB when built with it, serial otherwise).
#pragma once

#include <bitplane/parallel.hpp>

#include <cstddef>
#include <functional>

namespace bitplane::detail {

/// Calls body(first, last) on disjoint sub-ranges covering [0, count), in parallel when
/// thread_count() > 1 and count is at least `grain`. Sub-ranges hold at least `grain` items
/// (except the last). Exceptions from body propagate to the caller.
void parallel_for(std::size_t count, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& body);

}  // namespace bitplane::detail
