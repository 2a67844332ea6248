// Bitset file version 2 (docs/format.md, section 5.1): round trips on every shape and size and
// on every SIMD path, sparse sets over 2^40 bits, version 1 files (checked in and written now)
// still loading, every truncation and byte flip rejected, flips with a recomputed checksum
// rejected or loaded consistently, and hand-made files that break each rule of a segment.
#include "bitset_test_data.hpp"
#include "test_support.hpp"

#include "bitset/bitset_core.hpp"
#include "bitset/bitset_file_v2.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/error.hpp>
#include <bitplane/serialize.hpp>
#include <bitplane/simd.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::bitset;
using bitplane::block_values;
using bytes = std::vector<std::byte>;

bytes saved(const bitset& s) {
    bytes f;
    bitplane::save(s, f);
    return f;
}

bytes saved_v1(const bitset& s) {
    bytes f;
    bitplane::detail::bitset_v1::save(s, f);
    return f;
}

bitset loaded(const bytes& f) { return bitplane::load_bitset(std::span<const std::byte>(f)); }

bitset loaded_from_stream(const bytes& f) {
    std::stringstream stream(std::string(reinterpret_cast<const char*>(f.data()), f.size()));
    return bitplane::load_bitset(stream);
}

// Round trip through both loaders, checked against the positions.
void expect_round_trip(const bitset& s, const std::vector<std::uint64_t>& positions) {
    const bytes f = saved(s);
    ASSERT_GE(f.size(), bitset_header_size);
    EXPECT_EQ(field_at<std::uint16_t>(f, 8), 2);
    EXPECT_EQ(static_cast<int>(f[10]), 2);
    EXPECT_EQ(field_at<std::uint64_t>(f, 16), s.size());
    EXPECT_EQ(field_at<std::uint64_t>(f, 24), (s.size() + block_values - 1) / block_values);
    EXPECT_EQ(field_at<std::uint64_t>(f, 32), s.count());
    EXPECT_EQ(field_at<std::uint64_t>(f, 48), f.size() - bitset_header_size);
    const bitset a = loaded(f);
    EXPECT_EQ(a, s);
    EXPECT_EQ(a.size(), s.size());
    EXPECT_EQ(a.to_positions(), positions);
    EXPECT_NO_THROW(a.validate());
    EXPECT_EQ(loaded_from_stream(f), s);
    EXPECT_EQ(saved(a), f);  // the writer is deterministic
}

// ---- round trips ----------------------------------------------------------------------------------

TEST(BitsetFileV2, RoundTripsForEveryShapeSizeAndPath) {
    BITPLANE_SEED_TRACE();
    for (const std::size_t n : set_sizes()) {
        for (const set_shape& shape : set_shapes()) {
            SCOPED_TRACE(shape.name + " n=" + std::to_string(n));
            const ref_bits ref = make_bits(shape, n, case_seed("file-v2", n, density_salt(shape.density)));
            const bitset s = make_set(ref);
            const std::vector<std::uint64_t> p = positions_of(ref);
            on_every_path([&] { expect_round_trip(s, p); });
            // save appends
            bytes f = {std::byte{0xAB}};
            bitplane::save(s, f);
            EXPECT_EQ(f[0], std::byte{0xAB});
            EXPECT_EQ(bitplane::load_bitset(std::span<const std::byte>(f).subspan(1)), s);
            // Version 1 of the same set still loads.
            EXPECT_EQ(loaded(saved_v1(s)), s);
        }
    }
}

TEST(BitsetFileV2, RoundTripsLargeSparseSets) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("large"));
    for (const std::uint64_t size : {std::uint64_t{1} << 40, (std::uint64_t{1} << 40) - 5, (std::uint64_t{1} << 33) + 3,
                                     std::uint64_t{1} << 26}) {
        SCOPED_TRACE("size " + std::to_string(size));
        std::vector<std::uint64_t> p = {0, 1, 2, 5, 2047, 2048, size / 2, size / 2 + 1, size - 1};
        for (int i = 0; i < 300; ++i) p.push_back(rng() % size);
        // A dense cluster, a run across block boundaries and a nearly full stretch.
        for (std::uint64_t i = 0; i < 5000; i += 3) p.push_back(size / 3 + i);
        for (std::uint64_t i = 0; i < 9000; ++i) p.push_back(size / 5 + 1000 + i);
        for (std::uint64_t i = 0; i < 3 * block_values; ++i)
            if (i % 997 != 0) p.push_back(size / 7 / block_values * block_values + i);
        std::sort(p.begin(), p.end());
        p.erase(std::unique(p.begin(), p.end()), p.end());
        const bitset s = bitset::from_positions(p, size);
        expect_round_trip(s, p);
        EXPECT_LT(saved(s).size(), 8000u);  // no per-block cost over 2^40 bits
    }
    // Full and nearly full sets of many blocks: runs and clear positions.
    for (const std::uint64_t size : {std::uint64_t{1} << 21, (std::uint64_t{1} << 21) + 77}) {
        std::vector<std::uint64_t> all(size);
        for (std::uint64_t i = 0; i < size; ++i) all[i] = i;
        expect_round_trip(bitset::from_positions(all, size), all);
        EXPECT_LT(saved(bitset::from_positions(all, size)).size(), 200u);
        std::vector<std::uint64_t> most;
        for (std::uint64_t i = 0; i < size; ++i)
            if (rng() % 5000 != 0) most.push_back(i);
        expect_round_trip(bitset::from_positions(most, size), most);
    }
}

// Random sets at a few densities come within a few percent of their entropy (the figure
// BitMagic's interpolative coding reaches); version 1 spent a byte or more per position.
TEST(BitsetFileV2, RandomSetsCodeNearTheirEntropy) {
    const std::size_t n = std::size_t{1} << 21;
    for (const double d : {0.1, 0.01, 0.001, 0.0001}) {
        SCOPED_TRACE("density " + std::to_string(d));
        const bitset s = make_set(make_bits({"random", d}, n, case_seed("entropy", density_salt(d))));
        const double h = -(d * std::log2(d) + (1 - d) * std::log2(1 - d));
        const double entropy_bytes = h * static_cast<double>(n) / 8;
        EXPECT_LT(static_cast<double>(saved(s).size()), 1.05 * entropy_bytes + 100);
    }
    // Runs: a few bytes per run, not per block.
    const bitset runs = make_set(make_bits({"runs", -1.0}, n, case_seed("entropy-runs")));
    EXPECT_LT(saved(runs).size(), 4 * (n / 1500) + 200);
}

// ---- version 1 -------------------------------------------------------------------------------------

// The checked-in version 1 files (tests/fixtures/bitset/, written by the version 1 writer of
// the in-memory encodings of their day, which may since have changed): bitset_v1_mixed.bp
// holds fixture_positions() over fixture_size bits.
constexpr std::uint64_t fixture_size = 9 * block_values + 300;

std::vector<std::uint64_t> fixture_positions() {
    std::vector<std::uint64_t> p;
    for (std::uint64_t i = 0; i < fixture_size; ++i) {
        const std::uint64_t b = i / block_values;
        const bool in = b == 0 ? i % 97 == 3                         // positions
                        : b == 1 ? (i / 64) % 3 == 0                 // runs
                        : b == 2 ? ((i * 2654435761u) >> 7) % 2 == 0  // raw
                        : b == 3 ? true                              // full
                        : b == 5 ? i % 11 == 0                       // gaps
                        : b == 7 ? i % 1000 != 0                     // nearly full
                        : b == 9 ? i % 7 == 1                        // the short last block
                                 : false;
        if (in) p.push_back(i);
    }
    return p;
}

bytes read_fixture(const std::string& name) {
    namespace fs = std::filesystem;
    for (fs::path p : {fs::path(__FILE__).parent_path(), fs::current_path()}) {
        if (p.is_relative()) p = fs::current_path() / p;
        for (; !p.empty(); p = p.parent_path()) {
            for (const fs::path& f : {p / "fixtures" / "bitset" / name, p / "tests" / "fixtures" / "bitset" / name}) {
                if (!fs::exists(f)) continue;
                std::ifstream in(f, std::ios::binary);
                const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
                bytes out(text.size());
                std::memcpy(out.data(), text.data(), text.size());
                return out;
            }
            if (p == p.parent_path()) break;
        }
    }
    return {};
}

TEST(BitsetFileV2, CheckedInVersion1FilesLoad) {
    const std::vector<std::uint64_t> p = fixture_positions();
    const bitset expected = bitset::from_positions(p, fixture_size);
    const bytes f = read_fixture("bitset_v1_mixed.bp");
    ASSERT_FALSE(f.empty()) << "fixture tests/fixtures/bitset/bitset_v1_mixed.bp missing";
    EXPECT_EQ(field_at<std::uint16_t>(f, 8), 1);
    const bitset s = loaded(f);
    EXPECT_EQ(s, expected);
    EXPECT_EQ(s.to_positions(), p);
    EXPECT_EQ(loaded_from_stream(f), expected);
    EXPECT_EQ(loaded(saved(s)), expected);  // and saves as version 2
    const bytes empty = read_fixture("bitset_v1_empty.bp");
    ASSERT_FALSE(empty.empty()) << "fixture tests/fixtures/bitset/bitset_v1_empty.bp missing";
    EXPECT_EQ(loaded(empty), bitset(100000));
}

// ---- hostile files ---------------------------------------------------------------------------------

std::vector<set_shape> hostile_shapes() {
    return {{"mixed", -2.0}, {"runs", -1.0}, {"d1%", 0.01}, {"d0.1%", 0.001}, {"d90%", 0.9}, {"one", 1.0}};
}

TEST(BitsetFileV2, EveryTruncationIsRejected) {
    const std::size_t n = 5 * 2048 + 300;
    for (const set_shape& shape : hostile_shapes()) {
        const bytes f = saved(make_set(make_bits(shape, n, case_seed("truncate-v2", density_salt(shape.density)))));
        for (std::size_t len = 0; len < f.size(); ++len) {
            SCOPED_TRACE(shape.name + " length " + std::to_string(len));
            EXPECT_THROW((void)bitplane::load_bitset(std::span<const std::byte>(f.data(), len)), bitplane::format_error);
            std::stringstream stream(std::string(reinterpret_cast<const char*>(f.data()), len));
            EXPECT_THROW((void)bitplane::load_bitset(stream), bitplane::format_error);
        }
        bytes longer = f;
        longer.push_back(std::byte{0});
        EXPECT_THROW((void)loaded(longer), bitplane::format_error);
    }
}

TEST(BitsetFileV2, EveryByteFlipIsRejected) {
    const std::size_t n = 4 * 2048 + 300;
    for (const set_shape& shape : hostile_shapes()) {
        const bytes f = saved(make_set(make_bits(shape, n, case_seed("flip-v2", density_salt(shape.density)))));
        for (std::size_t at = 0; at < f.size(); ++at) {
            for (const unsigned mask : {0x01u, 0x80u, 0xFFu}) {
                bytes g = f;
                g[at] ^= static_cast<std::byte>(mask);
                try {
                    (void)loaded(g);
                    ADD_FAILURE() << shape.name << ": flip at " << at << " mask " << mask << " was accepted";
                } catch (const bitplane::format_error& e) {
                    EXPECT_LE(e.offset(), g.size());
                }
            }
        }
    }
}

// With the checksum recomputed, a flip must be rejected or load a consistent bitset.
TEST(BitsetFileV2, ForgedFlipsAreRejectedOrConsistent) {
    BITPLANE_SEED_TRACE();
    const std::size_t n = 4 * 2048 + 300;
    std::size_t rejected = 0, accepted = 0;
    for (const set_shape& shape : hostile_shapes()) {
        SCOPED_TRACE(shape.name);
        const bytes f = saved(make_set(make_bits(shape, n, case_seed("forge-v2", density_salt(shape.density)))));
        std::mt19937_64 rng(case_seed("forge-v2-flips"));
        for (std::size_t at = 0; at < f.size(); ++at) {
            if (at >= bitset_checksum_at && at < bitset_header_size) continue;
            for (int t = 0; t < 3; ++t) {
                bytes g = f;
                g[at] ^= static_cast<std::byte>(1u << (rng() % 8));
                reseal_bitset_file(g);
                try {
                    const bitset s = loaded(g);
                    ++accepted;
                    const std::vector<std::uint64_t> p = s.to_positions();
                    ASSERT_EQ(p.size(), s.count());
                    ASSERT_TRUE(std::is_sorted(p.begin(), p.end()));
                    ASSERT_TRUE(p.empty() || p.back() < s.size());
                    ASSERT_EQ(s, bitset::from_positions(p, s.size()));
                    ASSERT_NO_THROW(s.validate());
                    ASSERT_EQ(loaded(saved(s)), s);
                } catch (const bitplane::format_error& e) {
                    ++rejected;
                    EXPECT_LE(e.offset(), g.size());
                }
            }
        }
    }
    EXPECT_GT(rejected, 0u);
    EXPECT_GT(accepted, 0u);  // moving a position keeps the count: a valid, different set
}

// Hand-made version 2 files: a header and segments, with a recomputed checksum.
class file_builder {
public:
    file_builder(std::uint64_t size, std::uint64_t count) : size_(size), count_(count) {}
    file_builder& byte(unsigned v) {
        flush_bits();
        body_.push_back(static_cast<std::byte>(v));
        return *this;
    }
    file_builder& varint(std::uint64_t v) {
        flush_bits();
        while (v >= 0x80) {
            body_.push_back(static_cast<std::byte>((v & 0x7F) | 0x80));
            v >>= 7;
        }
        body_.push_back(static_cast<std::byte>(v));
        return *this;
    }
    // A segment header: mode, blocks, and for coded modes the item count and parameters.
    file_builder& segment(unsigned mode, std::uint64_t blocks) {
        ++segments_;
        return byte(mode).varint(blocks);
    }
    file_builder& bits(std::uint64_t v, unsigned n) {
        for (unsigned i = 0; i < n; ++i) {
            if ((v >> i) & 1) acc_ |= 1u << fill_;
            if (++fill_ == 8) flush_bits();
        }
        return *this;
    }
    file_builder& rice(std::uint64_t v, unsigned k) {
        const auto w = static_cast<unsigned>(std::bit_width(v));
        if ((v >> k) >= 32) return bits(0, 32).bits(w, 6).bits(v, w);  // escape
        for (std::uint64_t q = v >> k; q > 0; --q) bits(0, 1);
        bits(1, 1);
        return bits(v, k);
    }
    // Exponential Golomb: u = (v >> k) + 1 of w bits as w - 1 zeros, a one, u's low w - 1
    // bits, then v's k low bits.
    file_builder& exp_golomb(std::uint64_t v, unsigned k) {
        const std::uint64_t u = (v >> k) + 1;
        const auto w = static_cast<unsigned>(std::bit_width(u));
        return bits(std::uint64_t{1} << (w - 1), w).bits(u, w - 1).bits(v, k);
    }
    file_builder& align() {
        flush_bits();
        return *this;
    }
    file_builder& set_segments(std::uint64_t s) {
        segments_override_ = s;
        return *this;
    }
    bytes build() {
        flush_bits();
        bytes f(bitset_header_size);
        std::memcpy(f.data(), "BITPLANE", 8);
        put_field<std::uint16_t>(f, 8, 2);
        f[10] = std::byte{2};
        put_field<std::uint32_t>(f, 12, 64);
        put_field<std::uint64_t>(f, 16, size_);
        put_field<std::uint64_t>(f, 24, (size_ + block_values - 1) / block_values);
        put_field<std::uint64_t>(f, 32, count_);
        put_field<std::uint64_t>(f, 40, segments_override_ != ~std::uint64_t{0} ? segments_override_ : segments_);
        put_field<std::uint64_t>(f, 48, body_.size());
        for (const std::byte b : body_) f.push_back(b);
        reseal_bitset_file(f);
        return f;
    }

private:
    void flush_bits() {
        if (fill_ == 0) return;
        body_.push_back(static_cast<std::byte>(acc_));
        acc_ = 0;
        fill_ = 0;
    }
    std::uint64_t size_, count_;
    std::uint64_t segments_ = 0, segments_override_ = ~std::uint64_t{0};
    bytes body_;
    unsigned acc_ = 0, fill_ = 0;
};

// Positions {5, 6, 7, 3000} over 4096 bits, k = 2.
file_builder positions_file() {
    file_builder b(4096, 4);
    b.segment(0, 2).varint(4).byte(2).rice(5, 2).rice(0, 2).rice(0, 2).rice(3000 - 8, 2);
    return b;
}

TEST(BitsetFileV2, HandMadeFilesOfEveryModeLoad) {
    const bitset expected = bitset::from_positions(std::vector<std::uint64_t>{5, 6, 7, 3000}, 4096);
    EXPECT_EQ(loaded(positions_file().build()), expected);
    // Runs: [5, 8) and [3000, 3001), k = 0 and 1.
    file_builder runs(4096, 4);
    runs.segment(1, 2).varint(2).byte(0).byte(1).rice(5, 0).rice(2, 1).rice(3000 - 9, 0).rice(0, 1);
    EXPECT_EQ(loaded(runs.build()), expected);
    // Raw: two blocks of 256 bytes.
    file_builder raw(4096, 4);
    raw.segment(3, 2).byte(0xE0);
    for (int i = 1; i < 3000 / 8; ++i) raw.byte(0);
    raw.byte(1u << (3000 % 8));
    for (int i = 3000 / 8 + 1; i < 512; ++i) raw.byte(0);
    EXPECT_EQ(loaded(raw.build()), expected);
    // Clear positions: all of blocks 0 and 1 but bits 0 and 2048; then an empty positions
    // segment over blocks 2 and 3 (2049 bits).
    file_builder zeros(2049 + 4096, 4094);
    zeros.segment(2, 2).varint(2).byte(3).rice(0, 3).rice(2047, 3).align().segment(0, 2).varint(0).byte(0);
    std::vector<std::uint64_t> most;
    for (std::uint64_t i = 1; i < 4096; ++i)
        if (i != 2048) most.push_back(i);
    EXPECT_EQ(loaded(zeros.build()), bitset::from_positions(most, 2049 + 4096));
    // Escaped Rice codes: 32 zeros, 6 bits of width, the value.
    file_builder esc(4096, 1);
    esc.segment(0, 2).varint(1).byte(0).bits(0, 32).bits(12, 6).bits(3000, 12);
    EXPECT_EQ(loaded(esc.build()), bitset::from_positions(std::vector<std::uint64_t>{3000}, 4096));
    // Exponential Golomb codes (parameter byte 0x80 | k): positions and runs.
    file_builder eg(4096, 4);
    eg.segment(0, 2).varint(4).byte(0x81).exp_golomb(5, 1).exp_golomb(0, 1).exp_golomb(0, 1).exp_golomb(3000 - 8, 1);
    EXPECT_EQ(loaded(eg.build()), expected);
    file_builder eg_runs(4096, 4);
    eg_runs.segment(1, 2).varint(2).byte(0x80).byte(0x83).exp_golomb(5, 0).exp_golomb(2, 3).exp_golomb(3000 - 9, 0).exp_golomb(0, 3);
    EXPECT_EQ(loaded(eg_runs.build()), expected);
    // Blocks after the last segment are empty.
    file_builder tail(10 * 2048, 1);
    tail.segment(0, 1).varint(1).byte(0).rice(9, 0);
    EXPECT_EQ(loaded(tail.build()), bitset::from_positions(std::vector<std::uint64_t>{9}, 10 * 2048));
}

TEST(BitsetFileV2, MalformedSegmentsAreRejected) {
    struct bad {
        const char* what;
        bytes file;
    };
    std::vector<bad> cases;
    auto add = [&](const char* what, file_builder b) { cases.push_back({what, b.build()}); };
    add("unknown mode", [] { file_builder b(4096, 1); b.segment(4, 2).varint(1).byte(0).rice(5, 0); return b; }());
    add("zero blocks", [] { file_builder b(4096, 1); b.segment(0, 0).varint(1).byte(0).rice(5, 0); return b; }());
    add("blocks past the end", [] { file_builder b(4096, 1); b.segment(0, 3).varint(1).byte(0).rice(5, 0); return b; }());
    add("second segment past the end", [] {
        file_builder b(4096, 1);
        b.segment(0, 2).varint(1).byte(0).rice(5, 0).align().segment(0, 1).varint(0).byte(0);
        return b;
    }());
    add("more positions than bits", [] { file_builder b(100, 1); b.segment(0, 1).varint(101).byte(0).rice(5, 0); return b; }());
    add("more positions than bytes", [] { file_builder b(4096, 1); b.segment(0, 2).varint(100).byte(0).rice(5, 0); return b; }());
    add("huge varint", [] {
        file_builder b(4096, 1);
        b.segment(0, 2);
        for (int i = 0; i < 10; ++i) b.byte(0xFF);
        b.byte(0x01).byte(0).rice(5, 0);
        return b;
    }());
    add("Rice parameter too large", [] { file_builder b(4096, 1); b.segment(0, 2).varint(1).byte(49).bits(5, 49); return b; }());
    add("position beyond the segment", [] { file_builder b(100, 1); b.segment(0, 1).varint(1).byte(7).rice(100, 7); return b; }());
    add("positions beyond the segment after others", [] {
        file_builder b(100, 2);
        b.segment(0, 1).varint(2).byte(3).rice(50, 3).rice(49, 3);
        return b;
    }());
    add("count mismatch", [] { file_builder b = positions_file(); return file_builder(b); }());
    add("padding bit set", [] { file_builder b(4096, 1); b.segment(0, 2).varint(1).byte(0).rice(5, 0).bits(1, 1); return b; }());
    add("code cut off", [] { file_builder b(4096, 1); b.segment(0, 2).varint(1).byte(20).bits(1, 1).bits(0, 3); return b; }());
    add("escape width 0", [] { file_builder b(4096, 1); b.segment(0, 2).varint(1).byte(0).bits(0, 32).bits(0, 6); return b; }());
    add("escape width 50", [] {
        file_builder b(4096, 1);
        b.segment(0, 2).varint(1).byte(0).bits(0, 32).bits(50, 6).bits(0, 50);
        return b;
    }());
    add("exponential Golomb code too long", [] {
        file_builder b(4096, 1);
        b.segment(0, 2).varint(1).byte(0x80 | 40).bits(0, 9).bits(1, 1).bits(0, 49);
        return b;
    }());
    add("exponential Golomb position beyond", [] { file_builder b(4096, 1); b.segment(0, 2).varint(1).byte(0x80).exp_golomb(4096, 0); return b; }());
    add("exponential Golomb parameter 0x80 | 49", [] { file_builder b(4096, 1); b.segment(0, 2).varint(1).byte(0x80 | 49).exp_golomb(5, 49); return b; }());
    add("runs: start beyond", [] { file_builder b(100, 1); b.segment(1, 1).varint(1).byte(7).byte(0).rice(100, 7).rice(0, 0); return b; }());
    add("runs: end beyond", [] { file_builder b(100, 2); b.segment(1, 1).varint(1).byte(7).byte(2).rice(98, 7).rice(2, 2); return b; }());
    add("runs: too many", [] {
        file_builder b(4, 3);
        b.segment(1, 1).varint(3).byte(0).byte(0).rice(0, 0).rice(0, 0).rice(0, 0).rice(0, 0).rice(0, 0).rice(0, 0);
        return b;
    }());
    add("clear position beyond", [] { file_builder b(100, 99); b.segment(2, 1).varint(1).byte(7).rice(100, 7); return b; }());
    add("raw bits beyond a short block", [] {
        file_builder b(100, 1);
        b.segment(3, 1);
        for (int i = 0; i < 12; ++i) b.byte(0);
        b.byte(0x10);
        return b;
    }());
    add("raw cut off", [] { file_builder b(4096, 1); b.segment(3, 2).byte(1); return b; }());
    add("fewer segments announced", [] {
        file_builder b(4096, 1);
        b.segment(0, 1).varint(1).byte(0).rice(5, 0).align().segment(0, 1).varint(0).byte(0);
        b.set_segments(1);
        return b;
    }());
    add("more segments announced", [] { file_builder b(4096, 1); b.segment(0, 2).varint(1).byte(0).rice(5, 0); b.set_segments(2); return b; }());
    add("trailing byte", [] { file_builder b(4096, 1); b.segment(0, 2).varint(1).byte(0).rice(5, 0).align().byte(0); return b; }());
    // count: positions_file() holds 4 set bits; announce 5.
    cases[10].file = [] {
        bytes f = positions_file().build();
        put_field<std::uint64_t>(f, 32, 5);
        reseal_bitset_file(f);
        return f;
    }();
    for (const bad& c : cases) {
        SCOPED_TRACE(c.what);
        EXPECT_THROW((void)loaded(c.file), bitplane::format_error);
        EXPECT_THROW((void)loaded_from_stream(c.file), bitplane::format_error);
    }
    EXPECT_NO_THROW((void)loaded(positions_file().build()));
}

TEST(BitsetFileV2, HostileHeadersAreRejected) {
    const bytes f = positions_file().build();
    auto rejects = [&](const char* what, auto&& edit) {
        SCOPED_TRACE(what);
        bytes g = f;
        edit(g);
        reseal_bitset_file(g);
        EXPECT_THROW((void)loaded(g), bitplane::format_error);
        EXPECT_THROW((void)loaded_from_stream(g), bitplane::format_error);
    };
    rejects("version 3", [](bytes& g) { put_field<std::uint16_t>(g, 8, 3); });
    rejects("reserved byte", [](bytes& g) { g[11] = std::byte{1}; });
    rejects("huge size", [](bytes& g) { put_field<std::uint64_t>(g, 16, ~std::uint64_t{0}); });
    rejects("size vs blocks", [](bytes& g) { put_field<std::uint64_t>(g, 24, 3); });
    rejects("count > size", [](bytes& g) { put_field<std::uint64_t>(g, 32, 5000); });
    rejects("segments > blocks", [](bytes& g) { put_field<std::uint64_t>(g, 40, 3); });
    rejects("body size", [](bytes& g) { put_field<std::uint64_t>(g, 48, field_at<std::uint64_t>(g, 48) + 1); });
    rejects("body huge", [](bytes& g) { put_field<std::uint64_t>(g, 48, std::uint64_t{1} << 60); });
    rejects("2^48 bits from a tiny file (a 32 GiB summary in memory)", [](bytes& g) {
        put_field<std::uint64_t>(g, 16, std::uint64_t{1} << 48);
        put_field<std::uint64_t>(g, 24, (std::uint64_t{1} << 48) / 2048);
    });
    rejects("2^44 bits from a tiny file", [](bytes& g) {
        put_field<std::uint64_t>(g, 16, std::uint64_t{1} << 44);
        put_field<std::uint64_t>(g, 24, (std::uint64_t{1} << 44) / 2048);
    });
    bytes g = f;
    g[60] ^= std::byte{1};
    EXPECT_THROW((void)loaded(g), bitplane::format_error);  // checksum
}

}  // namespace
