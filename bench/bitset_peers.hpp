// The peers of bench_bitset_peers.cpp behind one plain interface: bitset_peer_croaring.cpp
// (CRoaring 5.x, roaring_bitmap_t) and bitset_peer_bitmagic.cpp (BitMagic bm::bvector<>, compiled
// alone with AVX2 flags) are the only files that include them; each is compiled only where the
// build is given its snapshot (scripts/build-peers.sh), and bench_bitset_peers then reports it
// absent. Positions cross the interface as sorted 32-bit values (both peers' native width).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace bitset_peers {

enum class op { and_, or_, xor_, andnot };

/// One peer library: a set type behind a pointer and the operations the benchmark times.
/// Results of op are new sets (as a user of the library would write `a & b`).
struct set;
struct set_deleter {
    void (*destroy)(set*) = nullptr;
    void operator()(set* s) const noexcept { destroy(s); }
};
using set_ptr = std::unique_ptr<set, set_deleter>;

struct library {
    const char* name;
    /// Library, version and SIMD code in use, e.g. "CRoaring 5.1.0, AVX2".
    const char* (*describe)();
    /// A set of the sorted positions, optimized/compressed as the library's users are told to.
    set_ptr (*build)(const std::uint32_t* positions, std::size_t count, std::uint64_t universe);
    set_ptr (*combine)(const set& a, const set& b, op which);
    std::uint64_t (*count)(const set& s);
    std::uint64_t (*and_count)(const set& a, const set& b);
    /// Sum of the positions through the library's iterator.
    std::uint64_t (*iterate_sum)(const set& s);
    /// Every position into out (resized).
    void (*to_positions)(const set& s, std::vector<std::uint32_t>& out);
    /// Bytes of the library's portable serialized form (after its own optimization).
    std::size_t (*serialized_bytes)(const set& s);
    /// set() of each position, one call each, on s; returns the count after.
    std::uint64_t (*set_each)(set& s, const std::uint32_t* positions, std::size_t count);
    /// A copy of s (for set_each on a fresh set each round).
    set_ptr (*copy)(const set& s);
};

/// The peers built into this binary (CRoaring first, then BitMagic), possibly none.
std::vector<const library*> libraries();

#if defined(BITPLANE_BENCH_HAS_CROARING)
const library& croaring();
#endif
#if defined(BITPLANE_BENCH_HAS_BITMAGIC_BITSET)
const library& bitmagic();
#endif

}  // namespace bitset_peers
