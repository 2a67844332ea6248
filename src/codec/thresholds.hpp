// Every number that decides a representation lives here, so that tuning is one file.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bitplane::detail::thresholds {

// ---- per-plane cost model (bytes) ----------------------------------------------------------
// A stored plane costs a 2-byte descriptor; positions and runs add a 2-byte item count.
inline constexpr std::uint32_t descriptor_bytes = 2;
inline constexpr std::uint32_t item_count_bytes = 2;
inline constexpr std::uint32_t position_bytes = 2;  // one u16 per flipped bit
inline constexpr std::uint32_t run_bytes = 4;       // u16 start + u16 end per run

// ---- value transforms ------------------------------------------------------------------------
// Transforms are ranked by an estimate of the planes they leave live. The best is encoded;
// the runner-up is encoded as well (and the smaller kept) when its estimate is within this
// many planes, because runs and references can make a plane much cheaper than raw.
inline constexpr unsigned transform_runner_up_planes = 2;
// Delta blocks must be decoded before any plane operation, so they are charged this many
// extra planes in the ranking: delta is taken only when it saves more than that.
inline constexpr unsigned delta_penalty_planes = 1;

// ---- sparse layout -------------------------------------------------------------------------
// The sparse layout (non-zero mask + planes of the non-zero values) is tried when at least
// this fraction of a block's values are zero (numerator / 16).
inline constexpr unsigned sparse_min_zero_sixteenths = 8;

// ---- vector storage -----------------------------------------------------------------------
// The arena is compacted when superseded block versions take more than this share of it
// (numerator / 4) and at least `compact_min_garbage_bytes`.
inline constexpr unsigned compact_garbage_quarters = 2;
inline constexpr std::size_t compact_min_garbage_bytes = 64 * 1024;

}  // namespace bitplane::detail::thresholds
