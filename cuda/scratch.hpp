// Device and pinned scratch that host entry points keep between calls (one set per calling
// thread, grown on demand, freed at thread exit or by release_scratch()). Every entry point that
// uses it waits for its work before returning, so a thread's scratch is never in use by two
// calls at once.
#pragma once

#include <bitplane/cuda/device_vector.hpp>

#include <cstddef>

namespace bitplane::cuda::detail {

/// Scratch slots: reductions, transfer payloads of operands a and b, their offsets, results.
enum class scratch_slot { reduce, payload_a, payload_b, offsets_a, offsets_b, decode, count };

/// At least `bytes` of device memory in `slot` for this thread (contents undefined).
void* device_scratch(scratch_slot slot, std::size_t bytes);
/// At least `bytes` of pinned host memory for this thread (small results).
void* pinned_scratch(std::size_t bytes);

}  // namespace bitplane::cuda::detail
