// libFuzzer target: bitplane::bitset_view over arbitrary bytes (the frozen layout, bitset file
// version 3, docs/format.md section 5.3, read in place; other versions copied), compared with
// load_bitset of the same bytes. Both must refuse (format_error, at the same offset) or both
// accept the same set; an accepted view must then answer every read-only operation as the
// loaded set does (count, contains, rank, select, iteration, positions, the set algebra with the
// loaded set as the other operand, both ways), validate, and, when read in place, save back to
// the same bytes (a view accepts only memory's own encoding of each block) and load the same
// through the generic decoder (the file relabelled with another memory layout version). The input's
// checksum field is rewritten first (fuzz_support.hpp) and the input copied into aligned
// storage (std::vector's), so mutations reach the summary, the entries and the payloads.
#include "fuzz_support.hpp"

#include <bitplane/bitplane.hpp>
#include <bitplane/bitset_view.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

namespace {

// As fuzz_load_bitset: version 2 inputs may announce 2^40 bits from a few bytes; keep
// universes below 2^32 bits (version 3 needs 16 file bytes per 2^17 bits anyway).
constexpr std::uint64_t max_fuzzed_size = std::uint64_t{1} << 32;

void check(bool ok) {
    if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::vector<std::byte> bytes =
        bitplane::fuzz::with_checksum(std::span(reinterpret_cast<const std::byte*>(data), size));
    if (bytes.size() >= 24 && bitplane::detail::load_le<std::uint64_t>(bytes.data() + 16) > max_fuzzed_size) return 0;
    bitplane::bitset loaded;
    std::int64_t load_error = -1;
    try {
        loaded = bitplane::load_bitset(bytes);
    } catch (const bitplane::format_error& e) {
        load_error = static_cast<std::int64_t>(e.offset());
    }
    bitplane::bitset_view view;
    try {
        view = bitplane::bitset_view(std::span<const std::byte>(bytes));
    } catch (const bitplane::format_error& e) {
        check(load_error == static_cast<std::int64_t>(e.offset()));  // the same rule broken
        return 0;
    }
    check(load_error < 0);
    const bitplane::bitset& v = view.bits();
    check(v.size() == loaded.size() && v.count() == loaded.count());
    check(v == loaded && loaded == v);
    v.validate();
    if (view.borrows()) {
        std::vector<std::byte> again;
        bitplane::save_frozen(v, again);
        check(again == bytes);  // memory's own encoding, byte for byte
        // The same file under another memory layout version goes through the generic decoder
        // (every block decoded into a plane and re-encoded), not the in-place checks: the same set.
        std::vector<std::byte> other = bytes;
        other[11] = std::byte{0xFE};
        other = bitplane::fuzz::with_checksum(other);
        check(bitplane::load_bitset(other) == v);
    }
    // Queries, sampled (constant blocks take a few bytes for 2048 positions).
    const std::uint64_t n = v.size();
    std::uint64_t h = size * 0x9E3779B97F4A7C15ull + 1;
    for (int k = 0; k < 32 && n > 0; ++k) {
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9ull;
        const std::uint64_t pos = h % n;
        check(v.contains(pos) == loaded.contains(pos));
        check(v.rank(pos) == loaded.rank(pos));
        check(v.next_set(pos) == loaded.next_set(pos));
        const std::uint64_t end = pos + (h >> 32) % (n - pos + 1);
        check(v.count_range(pos, end) == loaded.count_range(pos, end));
        if (v.count() > 0) {
            const std::uint64_t r = (h >> 17) % v.count();
            check(v.select(r) == loaded.select(r));
        }
    }
    if (v.count() <= (std::uint64_t{1} << 22)) {
        const std::vector<std::uint64_t> positions = v.to_positions();
        check(positions == loaded.to_positions());
        std::size_t i = 0;
        for (const std::uint64_t p : v) check(i < positions.size() && positions[i++] == p);
        check(i == positions.size());
    }
    // Algebra: the view with the loaded set, both ways, and with its complement.
    check((v & loaded) == loaded && (loaded & v) == loaded);
    check((v | loaded) == loaded);
    check((v ^ loaded).none());
    check(andnot(v, loaded).none());
    check(bitplane::and_count(v, loaded) == v.count());
    check(bitplane::is_subset(v, loaded));
    check(bitplane::intersects(v, loaded) == v.any());
    const bitplane::bitset complement = ~loaded;
    check((v & complement).none() && (v | complement).all());
    check(bitplane::and_count(complement, v) == 0);
    bitplane::bitset copy = v;  // owned
    copy ^= v;
    check(copy.none());
    return 0;
}

#if defined(BITPLANE_LIBFUZZER)
namespace {

// Version 3's arena size (bytes 48-55): what the length leaves after the header, the summary,
// the entries and the 16 slack bytes; versions 1 and 2 as fuzz_load_bitset fixes them.
void fix_sizes(std::span<std::byte> file) {
    namespace d = bitplane::detail;
    if (file.size() < d::file::header_bytes) return;
    const auto version = d::load_le<std::uint16_t>(file.data() + 8);
    if (version == 3) {
        const auto blocks = d::load_le<std::uint64_t>(file.data() + 24);
        const auto stored = d::load_le<std::uint64_t>(file.data() + 40);
        if (blocks / 64 >= file.size() || stored > file.size()) return;  // no overflow below
        const std::uint64_t arena_offset = d::file::header_bytes + 16 * ((blocks + 63) / 64) + 16 * stored;
        if (arena_offset + 16 <= file.size())
            d::store_le<std::uint64_t>(file.data() + 48, file.size() - arena_offset - 16);
        return;
    }
    if (version == 2) {
        d::store_le<std::uint64_t>(file.data() + 48, file.size() - d::file::header_bytes);
        return;
    }
    bitplane::fuzz::fix_bitset_sizes(file);
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
    return bitplane::fuzz::mutate_then_fix(data, size, max_size, seed, fix_sizes);
}
#endif
