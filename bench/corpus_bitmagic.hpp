// BitMagic's bm::sparse_vector behind a plain interface, for bench_corpus.cpp: corpus_bitmagic.cpp
// is the only file that includes BitMagic, and it is compiled with AVX2 flags (BMAVX2OPT) when
// the build is given BITPLANE_BITMAGIC_DIR; without it, bench_corpus reports BitMagic absent.
// Values cross the interface as 32-bit patterns; a signed column is a sparse_vector<int>.
#pragma once

#include <cstddef>
#include <bitplane/int128.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace corpus_bitmagic {

struct column;
struct column_deleter {
    void operator()(column* c) const noexcept;
};
using column_ptr = std::unique_ptr<column, column_deleter>;

/// "BitMagic <version>, <SIMD>", e.g. "BitMagic 7.x, AVX2".
const char* describe();
/// import() of every value, then optimize() (what encoding costs).
column_ptr build(const std::uint32_t* bits, std::size_t count, bool is_signed);
/// Sum of the 32-bit patterns of get(index[k]) (random access; the loop runs in this file).
std::uint64_t random_reads(const column& c, const std::uint32_t* index, std::size_t count);
/// Sum of the 32-bit patterns through const_iterator (sequential access).
std::uint64_t iterate(const column& c);
/// decode() of everything into out (count values).
void decode(const column& c, std::uint32_t* out, std::size_t count);
/// Sum from the bit-slices' popcounts (count() of each slice; count_and with the sign slice for
/// signed columns), as signed 128-bit.
bitplane::int128 plane_sum(const column& c);
/// Scanner find_eq / find_range into a bvector; returns its count(); positions appended when
/// given (for the check).
std::uint64_t find_eq(const column& c, std::uint32_t x, std::vector<std::uint64_t>* positions);
std::uint64_t find_range(const column& c, std::uint32_t lo, std::uint32_t hi, std::vector<std::uint64_t>* positions);
/// Bytes of sparse_vector_serializer's output, XOR compression on.
std::size_t serialized_bytes(const column& c);
/// calc_stat()'s memory_used.
std::size_t memory_bytes(const column& c);

}  // namespace corpus_bitmagic
