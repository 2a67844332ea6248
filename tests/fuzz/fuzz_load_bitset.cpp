// libFuzzer target: bitplane::load_bitset on arbitrary bytes (file versions 1 and 2). It must
// either throw format_error or return a bitset whose every query agrees with its own position
// list (count, contains, rank, select, iteration), and which survives save + load unchanged in
// both versions. The input's checksum field is rewritten first (fuzz_support.hpp), so mutations
// reach the summary, the descriptors, the segments and the payloads.
#include "fuzz_support.hpp"

#include "bitset/bitset_file_v2.hpp"

#include <bitplane/bitplane.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

namespace {

// A version 2 file may announce 2^40 bits from a few bytes (docs/format.md 5.1 bounds the
// memory that takes); loading and re-saving such sets block by block takes seconds under
// ASan, past libFuzzer's time limit, so inputs keep universes below 2^32 bits. The unit tests
// load the large ones.
constexpr std::uint64_t max_fuzzed_size = std::uint64_t{1} << 32;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::vector<std::byte> bytes =
        bitplane::fuzz::with_checksum(std::span(reinterpret_cast<const std::byte*>(data), size));
    if (bytes.size() >= 24 && bitplane::detail::load_le<std::uint64_t>(bytes.data() + 16) > max_fuzzed_size) return 0;
    bitplane::bitset set;
    try {
        set = bitplane::load_bitset(bytes);
    } catch (const bitplane::format_error&) {
        return 0;
    }
    set.validate();  // whatever load accepts, validate accepts too
    // Constant blocks take a few bytes for 2048 positions: keep the position list bounded.
    if (set.count() > (std::uint64_t{1} << 22)) {
        const std::uint64_t last = set.select(set.count() - 1);
        if (!set.contains(last) || set.rank(last) != set.count() - 1) std::abort();
        return 0;
    }
    const std::vector<std::uint64_t> positions = set.to_positions();
    if (positions.size() != set.count()) std::abort();
    std::uint64_t previous = 0;
    for (std::size_t k = 0; k < positions.size(); ++k) {
        if (positions[k] >= set.size() || (k > 0 && positions[k] <= previous)) std::abort();
        previous = positions[k];
    }
    // A sample of positions and ranks (all of them would make big sets cost seconds).
    const std::size_t step = 1 + positions.size() / 64;
    for (std::size_t k = 0; k < positions.size(); k += step) {
        if (!set.contains(positions[k]) || set.select(k) != positions[k] || set.rank(positions[k]) != k) std::abort();
    }
    if (set.size() > 0 && set.count() < set.size()) {
        // A position that is not in the set must be reported absent.
        std::uint64_t gap = 0;
        for (const std::uint64_t p : positions) {
            if (p != gap) break;
            ++gap;
        }
        if (set.contains(gap)) std::abort();
    }
    std::vector<std::byte> again, old;
    bitplane::save(set, again);
    const bitplane::bitset reloaded = bitplane::load_bitset(again);
    if (reloaded.size() != set.size() || reloaded.to_positions() != positions || !(reloaded == set)) std::abort();
    std::vector<std::byte> twice;
    bitplane::save(reloaded, twice);
    if (twice != again) std::abort();  // the writer is deterministic
    bitplane::detail::bitset_v1::save(set, old);
    if (!(bitplane::load_bitset(old) == set)) std::abort();
    return 0;
}

#if defined(BITPLANE_LIBFUZZER)
namespace {

// The size fields of either version: version 2's body is everything after the header.
void fix_sizes(std::span<std::byte> file) {
    if (file.size() < bitplane::detail::file::header_bytes) return;
    if (bitplane::detail::load_le<std::uint16_t>(file.data() + 8) != bitplane::detail::bitset_v2::version)
        return bitplane::fuzz::fix_bitset_sizes(file);
    bitplane::detail::store_le<std::uint64_t>(file.data() + 48, file.size() - bitplane::detail::file::header_bytes);
}

}  // namespace

// Structure-aware mutation (fuzz_support.hpp): libFuzzer's mutation, then the size field fixed.
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
    return bitplane::fuzz::mutate_then_fix(data, size, max_size, seed, fix_sizes);
}
#endif
