// bitplane::bitset_view (the frozen layout, bitset file version 3, docs/format.md section 5.3)
// against the bitset it was saved from: equality both ways, every read-only operation, set
// algebra with owned and viewed operands, on every shape (every stored kind, empty and full
// sets) and the edge sizes, on every SIMD path; a span over a buffer and a mapped file; the
// copying fallbacks (misaligned bytes, another memory layout version, versions 1 and 2);
// corrupted files (every header field, entries, payload bytes, truncation, the slack) give
// format_error at the offset of the field found wrong; writes through the set never reach the
// borrowed bytes.
#include "bitset_test_data.hpp"
#include "test_support.hpp"

#include "bitset/bitset_core.hpp"
#include "bitset/bitset_file_v2.hpp"
#include "bitset/bitset_frozen.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/bitset_view.hpp>
#include <bitplane/error.hpp>
#include <bitplane/simd.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::bitset;
using bitplane::bitset_view;
using bitplane::block_values;
using bitplane::detail::block_kind;
using bytes = std::vector<std::byte>;

bytes frozen(const bitset& s) {
    bytes f;
    bitplane::save_frozen(s, f);
    return f;
}

// The layout's offsets (section 5.3).
std::size_t words_of(const bytes& f) { return static_cast<std::size_t>((field_at<std::uint64_t>(f, 24) + 63) / 64); }
std::size_t entries_at(const bytes& f) { return bitset_header_size + 16 * words_of(f); }
std::size_t arena_at(const bytes& f) { return entries_at(f) + 16 * static_cast<std::size_t>(field_at<std::uint64_t>(f, 40)); }

// The format_error offset of viewing `f`, which load_bitset must report too; -1 when both
// accept.
std::int64_t error_offset(const bytes& f) {
    std::int64_t view_at = -1, load_at = -1;
    try {
        const bitset_view v{std::span<const std::byte>(f)};
    } catch (const bitplane::format_error& e) {
        view_at = static_cast<std::int64_t>(e.offset());
    }
    try {
        (void)bitplane::load_bitset(std::span<const std::byte>(f));
    } catch (const bitplane::format_error& e) {
        load_at = static_cast<std::int64_t>(e.offset());
    }
    EXPECT_EQ(view_at, load_at);
    return view_at;
}

// Every read-only query of `v` against `s` (the set it was saved from).
void expect_same_queries(const bitset& v, const bitset& s) {
    ASSERT_EQ(v.size(), s.size());
    ASSERT_EQ(v.count(), s.count());
    EXPECT_TRUE(v == s);
    EXPECT_TRUE(s == v);
    EXPECT_TRUE(v.core().equals(s.core()));
    EXPECT_NO_THROW(v.validate());
    const std::vector<std::uint64_t> p = s.to_positions();
    EXPECT_EQ(v.to_positions(), p);
    EXPECT_TRUE(std::equal(v.begin(), v.end(), p.begin(), p.end()));
    std::vector<std::uint64_t> out(p.size());
    EXPECT_EQ(v.to_positions(std::span<std::uint64_t>(out)), p.size());
    EXPECT_EQ(out, p);
    const std::size_t n = s.size();
    std::mt19937_64 rng(n * 31 + s.count());
    for (int k = 0; k < 64 && n > 0; ++k) {
        const std::size_t pos = rng() % n;
        EXPECT_EQ(v.contains(pos), s.contains(pos));
        EXPECT_EQ(v.test(pos), s.test(pos));
        EXPECT_EQ(v.rank(pos), s.rank(pos));
        EXPECT_EQ(v.next_set(pos), s.next_set(pos));
        const auto it = v.seek(pos);
        EXPECT_EQ(it == v.end() ? n : *it, s.next_set(pos));
        const std::size_t end = pos + rng() % (n - pos + 1);
        EXPECT_EQ(v.count_range(pos, end), s.count_range(pos, end));
        EXPECT_EQ(v.contains_range(pos, end), s.contains_range(pos, end));
    }
    EXPECT_EQ(v.rank(n), s.rank(n));
    for (std::size_t k = 0; k < p.size(); k += 1 + p.size() / 50) EXPECT_EQ(v.select(k), p[k]);
    EXPECT_EQ(~v, ~s);
}

// Set algebra of x and y (each a view's set or an owned one) against the owned a and b.
void expect_same_algebra(const bitset& x, const bitset& y, const bitset& a, const bitset& b) {
    EXPECT_EQ(x & y, a & b);
    EXPECT_EQ(x | y, a | b);
    EXPECT_EQ(x ^ y, a ^ b);
    EXPECT_EQ(andnot(x, y), andnot(a, b));
    EXPECT_EQ(bitplane::and_count(x, y), bitplane::and_count(a, b));
    EXPECT_EQ(bitplane::intersects(x, y), bitplane::intersects(a, b));
    EXPECT_EQ(bitplane::is_subset(x, y), bitplane::is_subset(a, b));
    EXPECT_EQ(bitplane::jaccard(x, y), bitplane::jaccard(a, b));
    const bitset* both[] = {&x, &y};
    const bitset* owned[] = {&a, &b};
    EXPECT_EQ(bitplane::unite(both), bitplane::unite(owned));
    EXPECT_EQ(bitplane::intersect(both), bitplane::intersect(owned));
    bitset c = x;  // owned copies, then the in-place operators with a viewed operand
    c &= y;
    EXPECT_EQ(c, a & b);
    c = x;
    c |= y;
    EXPECT_EQ(c, a | b);
    c = x;
    c ^= y;
    EXPECT_EQ(c, a ^ b);
    c = x;
    c.subtract(y);
    EXPECT_EQ(c, andnot(a, b));
}

// Stored kinds (and where payloads live) in a set.
struct kinds_seen {
    bool positions = false, runs = false, raw = false, inline_payload = false, arena = false;
};
void note_kinds(const bitset& s, kinds_seen& k) {
    for (const bitplane::detail::block_entry& e : s.core().entries()) {
        k.positions |= e.kind == block_kind::positions;
        k.runs |= e.kind == block_kind::runs;
        k.raw |= e.kind == block_kind::raw;
        k.inline_payload |= e.inline_payload != 0;
        k.arena |= e.inline_payload == 0;
    }
}

// ---- round trips ------------------------------------------------------------------------------------

TEST(BitsetView, MatchesTheSavedSetForEveryShapeSizeAndPath) {
    BITPLANE_SEED_TRACE();
    kinds_seen kinds;
    const std::vector<set_shape> shapes = set_shapes();
    for (const std::size_t n : set_sizes()) {
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            const set_shape& shape = shapes[i];
            const set_shape& other_shape = shapes[(i + 5) % shapes.size()];
            SCOPED_TRACE(shape.name + " x " + other_shape.name + " n=" + std::to_string(n));
            const bitset s = make_set(make_bits(shape, n, case_seed("view", n, density_salt(shape.density))));
            const bitset o =
                make_set(make_bits(other_shape, n, case_seed("view-o", n, density_salt(other_shape.density))));
            note_kinds(s, kinds);
            const bytes f = frozen(s), g = frozen(o);
            EXPECT_EQ(field_at<std::uint16_t>(f, 8), 3);
            EXPECT_EQ(static_cast<int>(f[11]), bitplane::detail::bitset_frozen::layout_version);
            const bitset_view v{std::span<const std::byte>(f)}, w{std::span<const std::byte>(g)};
            EXPECT_TRUE(v.borrows());
            EXPECT_EQ(v.bytes().data(), f.data());
            on_every_path([&] {
                expect_same_queries(v.bits(), s);
                expect_same_algebra(v.bits(), w.bits(), s, o);  // view x view
                expect_same_algebra(v.bits(), o, s, o);         // view x owned
                expect_same_algebra(s, w.bits(), s, o);         // owned x view
                expect_same_algebra(w.bits(), v.bits(), o, s);
                EXPECT_NO_THROW(bitset_view{std::span<const std::byte>(f)});  // validation on this path
            });
            EXPECT_EQ(bitplane::load_bitset(std::span<const std::byte>(f)), s);  // load_bitset reads version 3
            std::stringstream stream;
            bitplane::save_frozen(s, stream);
            EXPECT_EQ(bitplane::load_bitset(stream), s);
            EXPECT_EQ(frozen(v.bits()), f);  // the writer is deterministic
            EXPECT_EQ(frozen(bitplane::load_bitset(std::span<const std::byte>(f))), f);
            // save_frozen appends.
            bytes h = {std::byte{0xAB}};
            bitplane::save_frozen(s, h);
            EXPECT_EQ(bitplane::load_bitset(std::span<const std::byte>(h).subspan(1)), s);
        }
    }
    EXPECT_TRUE(kinds.positions && kinds.runs && kinds.raw && kinds.inline_payload && kinds.arena);
}

TEST(BitsetView, EmptyFullAndSizeZero) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2047}, std::size_t{2048},
                                std::size_t{2049}, std::size_t{64 * 2048 + 1}}) {
        SCOPED_TRACE(n);
        for (const bool value : {false, true}) {
            const bitset s(n, value);
            const bytes f = frozen(s);
            EXPECT_EQ(field_at<std::uint64_t>(f, 40), 0u);  // no stored block
            const bitset_view v{std::span<const std::byte>(f)};
            expect_same_queries(v.bits(), s);
            EXPECT_EQ(v.bits().count(), value ? n : 0);
        }
    }
    const bitset_view empty;
    EXPECT_EQ(empty.bits().size(), 0u);
    EXPECT_FALSE(empty.borrows());
}

// A view reads its payloads where they are and holds only the summary and the entries.
TEST(BitsetView, BorrowsTheArenaAndOwnsNothingElse) {
    const bitset s = make_set(make_bits({"mixed", -2.0}, 40 * 2048 + 3, case_seed("view-borrow")));
    const bytes f = frozen(s);
    const bitset_view v{std::span<const std::byte>(f)};
    ASSERT_TRUE(v.borrows());
    const bitplane::detail::bitset_core& core = v.bits().core();
    ASSERT_GT(core.payload_bytes(), 0u);
    EXPECT_EQ(core.arena(), f.data() + arena_at(f));
    EXPECT_LT(v.bits().memory_bytes(), s.memory_bytes());
    const bitset copy = v.bits();  // a copy owns its bytes
    EXPECT_NE(copy.core().arena(), core.arena());
    EXPECT_EQ(copy, s);
}

// ---- sources: a buffer, a mapped file, a stream; the copying fallbacks --------------------------------

TEST(BitsetView, MapsAFile) {
    const bitset s = make_set(make_bits({"d10%", 0.1}, 9 * 2048 + 77, case_seed("view-map")));
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() /
        ("bitplane_view_" + std::to_string(reinterpret_cast<std::uintptr_t>(&s)) + "_" +
         std::to_string(std::random_device{}()) + ".bps");
    {
        std::ofstream out(path, std::ios::binary);
        bitplane::save_frozen(s, out);
    }
    {
        bitset_view v(path);
        EXPECT_TRUE(v.borrows());
        EXPECT_EQ(v.bytes().size(), std::filesystem::file_size(path));
        expect_same_queries(v.bits(), s);
        bitset_view moved = std::move(v);  // the mapping moves with it
        EXPECT_EQ(moved.bits(), s);
        EXPECT_EQ(v.bits().size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty
        bitset_view other;
        other = std::move(moved);
        EXPECT_EQ(other.bits() & s, s);
        other = bitset_view();  // unmapped
        EXPECT_EQ(other.bits().size(), 0u);
    }
    std::filesystem::remove(path);
    EXPECT_THROW(bitset_view{path}, bitplane::io_error);  // gone
    { std::ofstream empty(path, std::ios::binary); }
    EXPECT_THROW(bitset_view{path}, bitplane::format_error);
    std::filesystem::remove(path);
}

TEST(BitsetView, CopiesWhatItCannotReadInPlace) {
    const bitset s = make_set(make_bits({"mixed", -2.0}, 12 * 2048 + 9, case_seed("view-copy")));
    const bytes f = frozen(s);
    // Bytes at an address that is not a multiple of 8.
    bytes shifted(f.size() + 8);
    for (std::size_t shift = 1; shift < 8; ++shift) {
        std::copy(f.begin(), f.end(), shifted.begin() + static_cast<std::ptrdiff_t>(shift));
        const bitset_view v{std::span<const std::byte>(shifted).subspan(shift, f.size())};
        EXPECT_FALSE(v.borrows());
        EXPECT_EQ(v.bits(), s);
    }
    // Another memory layout version: decoded and re-encoded, equal.
    bytes other = f;
    other[11] = std::byte{2};
    reseal_bitset_file(other);
    const bitset_view v{std::span<const std::byte>(other)};
    EXPECT_FALSE(v.borrows());
    EXPECT_EQ(v.bits(), s);
    EXPECT_EQ(bitplane::load_bitset(std::span<const std::byte>(other)), s);
    // Versions 1 and 2.
    bytes v2, v1;
    bitplane::save(s, v2);
    bitplane::detail::bitset_v1::save(s, v1);
    for (const bytes* g : {&v1, &v2}) {
        const bitset_view u{std::span<const std::byte>(*g)};
        EXPECT_FALSE(u.borrows());
        EXPECT_EQ(u.bits(), s);
    }
}

// Writes through the set (a const_cast) never reach the viewed bytes: the borrowed arena is
// copied first.
TEST(BitsetView, WritesNeverReachTheBorrowedBytes) {
    const bitset s = make_set(make_bits({"mixed", -2.0}, 20 * 2048 + 1, case_seed("view-write")));
    const bitset t = make_set(make_bits({"d50%", 0.5}, 20 * 2048 + 1, case_seed("view-write2")));
    const bytes f = frozen(s);
    const bytes before = f;
    std::mt19937_64 rng(7);
    for (int op = 0; op < 6; ++op) {
        SCOPED_TRACE(op);
        bitset_view v{std::span<const std::byte>(f)};
        ASSERT_TRUE(v.borrows());
        auto& bits = const_cast<bitset&>(v.bits());
        bitset expect = s;
        switch (op) {
            case 0:
                for (int k = 0; k < 300; ++k) {
                    const std::size_t pos = rng() % s.size();
                    const bool value = (rng() & 1) != 0;
                    bits.set(pos, value);
                    expect.set(pos, value);
                }
                break;
            case 1: bits &= t; expect &= t; break;
            case 2: bits |= t; expect |= t; break;
            case 3: bits ^= t; expect ^= t; break;
            case 4: bits.subtract(t); expect.subtract(t); break;
            default: bits.flip_range(100, 9000); expect.flip_range(100, 9000); break;
        }
        EXPECT_EQ(bits, expect);
        EXPECT_NO_THROW(bits.validate());
        EXPECT_EQ(f, before);
    }
}

// ---- corrupted files --------------------------------------------------------------------------------

// Positions (inline and in the arena), runs, raw, full and empty blocks, a short raw last block.
const bitset& corrupt_source() {
    static const bitset s = [] {
        std::vector<std::uint64_t> p = {3, 900, 2000};                                // block 0: 3 positions, inline
        for (std::uint64_t i = 2048 + 10; i < 2048 + 50; ++i) p.push_back(i);          // block 1: one run, inline
        for (std::uint64_t i = 2 * 2048; i < 3 * 2048; i += 3) p.push_back(i);         // block 2: raw
        for (std::uint64_t i = 3 * 2048; i < 4 * 2048; ++i) p.push_back(i);            // block 3: full
        for (std::uint64_t i = 5 * 2048; i < 5 * 2048 + 200; i += 2) p.push_back(i);   // block 5: 100 positions
        for (std::uint64_t i = 6 * 2048; i < 6 * 2048 + 1001; i += 2) p.push_back(i);  // block 6: raw, 1003 bits
        return bitset::from_positions(p, 6 * 2048 + 1003);
    }();
    return s;
}

TEST(BitsetView, TheCorruptedSetHasEveryKind) {
    const auto& e = corrupt_source().core().entries();
    ASSERT_EQ(e.size(), 5u);
    EXPECT_EQ(e[0].kind, block_kind::positions);
    EXPECT_EQ(e[0].inline_payload, 1);
    EXPECT_EQ(e[1].kind, block_kind::runs);
    EXPECT_EQ(e[2].kind, block_kind::raw);
    EXPECT_EQ(e[3].kind, block_kind::positions);
    EXPECT_EQ(e[3].inline_payload, 0);
    EXPECT_EQ(e[4].kind, block_kind::raw);
}

TEST(BitsetView, EveryHeaderFieldIsChecked) {
    const bytes f = frozen(corrupt_source());
    struct field {
        std::size_t at;
        std::uint64_t value;
        std::size_t width;
        std::int64_t offset;  // of the error
    };
    const std::uint64_t stored = field_at<std::uint64_t>(f, 40), arena = field_at<std::uint64_t>(f, 48);
    const std::uint64_t n = corrupt_source().size();
    const std::vector<field> fields = {
        {0, 0x58, 1, 0},                                    // magic
        {8, 4, 2, 8},                                       // version
        {10, 1, 1, 10},                                     // kind
        {11, 0, 1, 11},                                     // layout version 0
        {12, 65, 4, 12},                                    // header size
        {16, std::uint64_t{1} << 47, 8, 16},                // size too large
        {16, n + 2048, 8, 24},                              // size against the block count
        {24, 8, 8, 24},                                     // block count
        {32, n + 1, 8, 32},                                 // count above size
        {32, corrupt_source().count() + 1, 8, 32},          // count off by one (checked after the blocks)
        {40, 100, 8, 40},                                   // stored above blocks
        {40, stored - 1, 8, 40},                            // stored against the summary
        {48, arena + 8, 8, static_cast<std::int64_t>(f.size())},  // the file is shorter than announced
        {48, 4096 * stored + 1, 8, 48},                     // arena bound
    };
    for (const field& x : fields) {
        SCOPED_TRACE("field at " + std::to_string(x.at) + " = " + std::to_string(x.value));
        bytes g = f;
        std::memcpy(g.data() + x.at, &x.value, x.width);
        reseal_bitset_file(g);
        const std::int64_t at = error_offset(g);
        if (x.at == 40 && x.value == stored - 1) {
            EXPECT_GE(at, 0);  // the file size no longer matches first
        } else {
            EXPECT_EQ(at, x.offset);
        }
    }
    bytes g = f;
    g[60] ^= std::byte{1};  // the checksum
    EXPECT_EQ(error_offset(g), static_cast<std::int64_t>(bitset_checksum_at));
}

TEST(BitsetView, EntriesAndPayloadsAreChecked) {
    const bytes f = frozen(corrupt_source());
    const std::size_t e0 = entries_at(f), a0 = arena_at(f);
    ASSERT_EQ(field_at<std::uint64_t>(f, 40), 5u);  // blocks 0, 1, 2, 5, 6
    const std::size_t raw = e0 + 2 * 16, pos100 = e0 + 3 * 16, last = e0 + 4 * 16;
    ASSERT_EQ(field_at<std::uint64_t>(f, raw), 0u);      // the arena's first payload
    ASSERT_EQ(field_at<std::uint64_t>(f, pos100), 256u);
    ASSERT_EQ(field_at<std::uint64_t>(f, last), 456u);
    ASSERT_EQ(field_at<std::uint64_t>(f, 48), 456u + 126u);
    auto expect_at = [&](bytes g, std::size_t at, const char* what) {
        SCOPED_TRACE(what);
        reseal_bitset_file(g);
        EXPECT_EQ(error_offset(g), static_cast<std::int64_t>(at));
    };
    auto with = [&](auto change) {
        bytes g = f;
        change(g);
        return g;
    };
    expect_at(with([&](bytes& g) { g[e0 + 14] = std::byte{1}; }), e0 + 14, "reserved byte");
    expect_at(with([&](bytes& g) { g[e0 + 12] = std::byte{9}; }), e0 + 12, "unknown kind");
    expect_at(with([&](bytes& g) { put_field<std::uint16_t>(g, e0 + 8, 0); }), e0 + 8, "count 0");
    expect_at(with([&](bytes& g) { put_field<std::uint16_t>(g, e0 + 8, 4); }), e0 + 8, "count against the payload");
    expect_at(with([&](bytes& g) { g[e0 + 13] = std::byte{0}; }), e0 + 13, "inline flag");
    expect_at(with([&](bytes& g) { g[e0 + 13] = std::byte{2}; }), e0 + 13, "inline flag 2");
    expect_at(with([&](bytes& g) { g[raw + 13] = std::byte{1}; }), raw + 13, "256 bytes inline");
    expect_at(with([&](bytes& g) { g[e0 + 7] = std::byte{1}; }), e0 + 7, "inline padding");
    expect_at(with([&](bytes& g) { put_field<std::uint16_t>(g, e0 + 2, 3); }), e0 + 2, "positions out of order");
    expect_at(with([&](bytes& g) { put_field<std::uint16_t>(g, raw + 10, 1); }), raw + 10, "raw with items");
    expect_at(with([&](bytes& g) { put_field<std::uint16_t>(g, pos100 + 10, 0); }), pos100 + 10, "no positions");
    expect_at(with([&](bytes& g) { put_field<std::uint16_t>(g, e0 + 16 + 10, 1025); }), e0 + 16 + 10, "too many runs");
    expect_at(with([&](bytes& g) { put_field<std::uint64_t>(g, pos100, 258); }), pos100, "a payload off its place");
    // 101 positions: the last one read from the next payload is out of order.
    expect_at(with([&](bytes& g) { put_field<std::uint16_t>(g, pos100 + 10, 101); }), a0 + 456,
              "positions count against the payload");
    expect_at(with([&](bytes& g) { g[raw + 12] = static_cast<std::byte>(block_kind::gaps); }), raw + 12,
              "gaps are not memory's");
    expect_at(with([&](bytes& g) { g[a0] ^= std::byte{2}; }), raw + 8, "a raw payload byte");
    expect_at(with([&](bytes& g) { put_field<std::uint16_t>(g, a0 + 256 + 2, 0); }), a0 + 256 + 2,
              "positions payload out of order");
    // The last block's raw bits past its length (1003 bits: byte 125, bits 3..7).
    expect_at(with([&](bytes& g) { g[a0 + 456 + 125] |= std::byte{0x80}; }), a0 + 456 + 125, "bits past len");
    expect_at(with([&](bytes& g) { g[f.size() - 3] = std::byte{1}; }), f.size() - 3, "slack");
    // Summary: a full bit on an empty block, a non-empty bit past the last block.
    expect_at(with([&](bytes& g) { put_field<std::uint64_t>(g, bitset_header_size + 8, field_at<std::uint64_t>(f, bitset_header_size + 8) | 16); }),
              bitset_header_size + 8, "full within non-empty");
    expect_at(with([&](bytes& g) { put_field<std::uint64_t>(g, bitset_header_size, field_at<std::uint64_t>(f, bitset_header_size) | 128); }),
              bitset_header_size, "beyond the last block");
}

// A block stored validly but not as memory would store it: refused under this layout version
// (naming the block), accepted and re-encoded under another.
TEST(BitsetView, BlocksStoredOtherwiseThanMemoryWouldAreRefused) {
    // Bits 0..99 of one block: memory stores one run (4 bytes, inline). Written instead as 100
    // positions (200 bytes in the arena).
    std::vector<std::uint64_t> p;
    for (std::uint64_t i = 0; i < 100; ++i) p.push_back(i);
    const bitset s = bitset::from_positions(p, 2048);
    ASSERT_EQ(s.core().entries().at(0).kind, block_kind::runs);
    const bytes f = frozen(s);
    ASSERT_EQ(field_at<std::uint64_t>(f, 48), 0u);
    bytes g(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(arena_at(f)));
    const std::size_t e0 = entries_at(f);
    put_field<std::uint64_t>(g, e0, 0);
    put_field<std::uint16_t>(g, e0 + 10, 100);
    g[e0 + 12] = static_cast<std::byte>(block_kind::positions);
    g[e0 + 13] = std::byte{0};
    for (int i = 0; i < 100; ++i) {
        g.push_back(static_cast<std::byte>(i));
        g.push_back(std::byte{0});
    }
    g.resize(g.size() + 16);
    put_field<std::uint64_t>(g, 48, 200);
    reseal_bitset_file(g);
    try {
        const bitset_view v{std::span<const std::byte>(g)};
        ADD_FAILURE() << "accepted";
    } catch (const bitplane::format_error& e) {
        EXPECT_EQ(e.offset(), e0 + 12);
        EXPECT_NE(std::string(e.what()).find("stored block 0"), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)bitplane::load_bitset(std::span<const std::byte>(g)), bitplane::format_error);
    g[11] = std::byte{7};  // another layout version: decoded and re-encoded
    reseal_bitset_file(g);
    const bitset_view v{std::span<const std::byte>(g)};
    EXPECT_FALSE(v.borrows());
    EXPECT_EQ(v.bits(), s);
}

TEST(BitsetView, EveryTruncationAndFlipIsRejectedOrConsistent) {
    const bytes f = frozen(corrupt_source());
    for (std::size_t n = 0; n < f.size(); ++n) {
        const bytes g(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(n));
        EXPECT_GE(error_offset(g), 0) << "truncated to " << n;
    }
    std::size_t accepted = 0;
    for (std::size_t i = 0; i < f.size(); ++i) {
        for (const int bit : {0, 3, 7}) {
            bytes g = f;
            g[i] ^= static_cast<std::byte>(1 << bit);
            if (i >= bitset_header_size) {
                EXPECT_EQ(error_offset(g), static_cast<std::int64_t>(bitset_checksum_at)) << "flip at " << i;
            } else {
                EXPECT_GE(error_offset(g), 0) << "flip at " << i;  // a header field, or the checksum
            }
            if (i >= bitset_checksum_at && i < bitset_header_size) continue;
            reseal_bitset_file(g);
            // Resealed: refused, or a set both readers agree on, stored as memory stores it.
            try {
                const bitset_view v{std::span<const std::byte>(g)};
                EXPECT_EQ(v.bits(), bitplane::load_bitset(std::span<const std::byte>(g))) << "flip at " << i;
                EXPECT_NO_THROW(v.bits().validate());
                if (v.borrows()) {
                    EXPECT_EQ(frozen(v.bits()), g) << "flip at " << i;
                }
                ++accepted;
            } catch (const bitplane::format_error& e) {
                EXPECT_LE(e.offset(), g.size());
            }
        }
    }
    EXPECT_GT(accepted, 0u);  // raw payload bits moved within a block, the layout byte, ...
}

}  // namespace
