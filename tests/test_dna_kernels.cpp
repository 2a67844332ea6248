// The DNA kernels of every SIMD path against the portable table (itself checked against the
// alphabet letter by letter), on windows of every letter shape and length.
#include "test_dna_support.hpp"

#include "dna/dna_kernels.hpp"

#include <bitplane/simd.hpp>

#include <array>
#include <cstring>

namespace {

using namespace dna_test;
namespace detail = bitplane::dna::detail;
using bitplane::plane_words;

constexpr std::size_t window_words = bitplane::dna::code_planes * plane_words;
using planes_t = std::array<std::uint32_t, window_words>;

// The DNA table of a path: the one dna_kernels() hands out while that path is active.
const detail::dna_kernel_table& table_of(bitplane::simd_path path) {
    const auto saved = bitplane::active_simd_path();
    bitplane::set_simd_path(path);
    const auto& table = detail::dna_kernels();
    bitplane::set_simd_path(saved);
    EXPECT_EQ(table.path, path);
    return table;
}

std::vector<bitplane::simd_path> paths() { return bitplane_test::paths_to_sweep(); }

// Letters of every shape and every length 0..2048 that matters, plus bad bytes at chosen spots.
std::vector<std::string> windows() {
    std::vector<std::string> out;
    std::uint64_t k = 0;
    for (const auto shape : all_letter_shapes())
        for (const std::size_t n : {0, 1, 5, 31, 32, 33, 63, 64, 100, 1000, 2047, 2048})
            out.push_back(make_letters(shape, n, bitplane_test::case_seed("dna-kernels", ++k)));
    return out;
}

TEST(DnaKernels, EncodeLettersMatchesTheAlphabet) {
    const auto& scalar = detail::scalar_dna_kernels();
    for (const std::string& w : windows()) {
        planes_t planes;
        std::uint32_t nonzero = 0;
        ASSERT_TRUE(scalar.encode_letters(w.data(), w.size(), planes.data(), &nonzero));
        std::uint32_t expect_nonzero = 0;
        for (std::size_t i = 0; i < bitplane::block_values; ++i) {
            const std::uint32_t code = i < w.size() ? bitplane::dna::to_code(w[i]) : 0;
            expect_nonzero |= code;
            for (unsigned j = 0; j < bitplane::dna::code_planes; ++j)
                ASSERT_EQ((planes[j * plane_words + i / 32] >> (i % 32)) & 1u, (code >> j) & 1u) << "letter " << i;
        }
        EXPECT_EQ(nonzero, expect_nonzero);
        std::string back(w.size(), '?');
        scalar.decode_letters(planes.data(), nonzero, w.size(), back.data());
        EXPECT_EQ(back, w);
    }
}

TEST(DnaKernels, EveryPathMatchesScalar) {
    const auto& scalar = detail::scalar_dna_kernels();
    const auto all = windows();
    for (const auto path : paths()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        const auto& t = table_of(path);
        for (std::size_t c = 0; c < all.size(); ++c) {
            const std::string& w = all[c];
            planes_t a, b;
            std::uint32_t na = 0, nb = 0;
            ASSERT_TRUE(scalar.encode_letters(w.data(), w.size(), a.data(), &na));
            ASSERT_TRUE(t.encode_letters(w.data(), w.size(), b.data(), &nb));
            ASSERT_EQ(a, b) << "encode, case " << c;
            ASSERT_EQ(na, nb);
            std::string x(w.size(), '?'), y(w.size(), '!');
            scalar.decode_letters(a.data(), na, w.size(), x.data());
            t.decode_letters(a.data(), na, w.size(), y.data());
            ASSERT_EQ(x, y) << "decode, case " << c;
            std::uint64_t cs[7], ct[7];
            scalar.count_codes(a.data(), na, cs);
            t.count_codes(a.data(), na, ct);
            ASSERT_TRUE(std::equal(cs, cs + 7, ct)) << "count, case " << c;
            const std::string& other = all[(c * 7 + 3) % all.size()];
            planes_t o;
            std::uint32_t no = 0;
            ASSERT_TRUE(scalar.encode_letters(other.data(), other.size(), o.data(), &no));
            for (const std::uint32_t compare : {0x3u, 0x3Bu, 0x3Fu, 0x8u})
                ASSERT_EQ(scalar.mismatch_planes(a.data(), o.data(), compare), t.mismatch_planes(a.data(), o.data(), compare))
                    << "mismatch, case " << c;
            for (const std::size_t count : {std::size_t{0}, std::size_t{1}, w.size(), std::size_t{2048}}) {
                planes_t rs, rt;
                const auto ns = scalar.reverse_complement(a.data(), na, count, rs.data());
                const auto nt = t.reverse_complement(a.data(), na, count, rt.data());
                ASSERT_EQ(rs, rt) << "reverse complement, case " << c << " count " << count;
                ASSERT_EQ(ns, nt);
            }
        }
    }
}

TEST(DnaKernels, BadLettersAreReportedOnEveryPath) {
    for (const auto path : paths()) {
        const auto& t = table_of(path);
        for (const char bad : {'\n', '\r', 'X', 'U', ' ', '>', '*', '\0', '\x80', '\xff', '.'}) {
            for (const std::size_t at : {0, 1, 31, 32, 1000, 2047}) {
                std::string w = make_letters(letters_shape::iupac, 2048, at);
                w[at] = bad;
                planes_t p;
                std::uint32_t nz = 0;
                EXPECT_FALSE(t.encode_letters(w.data(), w.size(), p.data(), &nz)) << bitplane::to_string(path) << " byte " << int(bad) << " at " << at;
                // And past the end of a short window it is not read.
                EXPECT_TRUE(t.encode_letters(w.data(), at, p.data(), &nz));
            }
        }
    }
}

TEST(DnaKernels, ShiftAndMatchesScalar) {
    std::mt19937_64 rng(bitplane_test::case_seed("shift-and"));
    for (const auto path : paths()) {
        const auto& t = table_of(path);
        for (int round = 0; round < 50; ++round) {
            const std::size_t k = 1 + rng() % 64;
            std::vector<std::array<std::uint64_t, 40>> masks(k);
            std::vector<const std::uint64_t*> rows(k);
            for (std::size_t j = 0; j < k; ++j) {
                for (std::size_t i = 0; i < 36; ++i) masks[j][i] = rng() | rng() | (round % 2 ? rng() : 0);  // dense
                for (std::size_t i = 36; i < 40; ++i) masks[j][i] = 0;
                rows[j] = masks[j].data();
            }
            std::array<std::uint64_t, 32> a, b;
            detail::scalar_dna_kernels().shift_and(rows.data(), k, a.data());
            t.shift_and(rows.data(), k, b.data());
            ASSERT_EQ(a, b) << bitplane::to_string(path) << " k=" << k;
            // Direct definition, bit by bit.
            for (std::size_t i = 0; i < 2048; ++i) {
                bool all = true;
                for (std::size_t j = 0; j < k && all; ++j) all = (masks[j][(i + j) / 64] >> ((i + j) % 64)) & 1u;
                ASSERT_EQ((a[i / 64] >> (i % 64)) & 1u, all ? 1u : 0u) << "bit " << i << " k=" << k;
            }
        }
    }
}

}  // namespace

namespace {

// A two-plane payload (planes 0 and 1 interleaved by column) of random plain bases.
std::vector<std::byte> random_payload(std::mt19937_64& rng) {
    std::vector<std::byte> p(2 * bitplane::plane_bytes);
    for (auto& b : p) b = static_cast<std::byte>(rng());
    return p;
}

TEST(DnaKernels, TwoPlaneKernelsMatchScalarOnEveryPath) {
    const auto& scalar = detail::scalar_dna_kernels();
    std::mt19937_64 rng(bitplane_test::case_seed("two-plane"));
    for (const auto path : paths()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        const auto& t = table_of(path);
        for (int round = 0; round < 40; ++round) {
            auto a = random_payload(rng), b = random_payload(rng);
            if (round % 4 == 1) b = a;                                                     // identical
            if (round % 4 == 2) std::fill(a.begin(), a.end(), std::byte{0});              // all A
            if (round % 4 == 3) std::fill(b.begin(), b.begin() + 256, std::byte{0xFF});    // mixed
            std::array<std::uint32_t, plane_words> s0, s1, t0, t1;
            scalar.deinterleave2(a.data(), s0.data(), s1.data());
            t.deinterleave2(a.data(), t0.data(), t1.data());
            ASSERT_EQ(s0, t0);
            ASSERT_EQ(s1, t1);
            std::vector<std::byte> back(a.size());
            t.interleave2(t0.data(), t1.data(), back.data());
            ASSERT_EQ(back, a);
            std::uint64_t cs[3], ct[3];
            const std::byte* one[1] = {a.data()};
            scalar.count2(one, 1, cs);
            t.count2(one, 1, ct);
            ASSERT_TRUE(std::equal(cs, cs + 3, ct));
            // Against the general kernels on the same planes.
            std::array<std::uint32_t, window_words> planes{}, other{};
            std::copy(s0.begin(), s0.end(), planes.begin());
            std::copy(s1.begin(), s1.end(), planes.begin() + plane_words);
            std::uint64_t general[7];
            scalar.count_codes(planes.data(), 3u, general);
            ASSERT_TRUE(std::equal(cs, cs + 3, general));
            scalar.deinterleave2(b.data(), other.data(), other.data() + plane_words);
            const std::byte* other_one[1] = {b.data()};
            ASSERT_EQ(t.mismatch2(one, other_one, 1), scalar.mismatch_planes(planes.data(), other.data(), 3u));
            ASSERT_EQ(scalar.mismatch2(one, other_one, 1), scalar.mismatch_planes(planes.data(), other.data(), 3u));
            // Reverse complement across two blocks at every kind of shift.
            for (const std::size_t shift : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{32}, std::size_t{1000},
                                            std::size_t{2047}, static_cast<std::size_t>(rng() % 2048)}) {
                std::vector<std::byte> rs(a.size()), rt(a.size());
                const auto fs = scalar.revcomp2(a.data(), b.data(), shift, rs.data());
                const auto ft = t.revcomp2(a.data(), b.data(), shift, rt.data());
                ASSERT_EQ(rs, rt) << "shift " << shift;
                ASSERT_EQ(fs, ft) << "shift " << shift;
            }
        }
    }
}

// count2 and mismatch2 take many blocks a call (their sums stay in registers and the next
// blocks are prefetched): every count from 0 to past a batch, blocks scattered in memory.
TEST(DnaKernels, ManyBlockCountsMatchScalarOnEveryPath) {
    const auto& scalar = detail::scalar_dna_kernels();
    std::mt19937_64 rng(bitplane_test::case_seed("two-plane-many"));
    std::vector<std::vector<std::byte>> a, b;
    for (int k = 0; k < 70; ++k) {
        a.push_back(random_payload(rng));
        b.push_back(k % 5 == 0 ? a.back() : random_payload(rng));
        if (k % 7 == 3) std::fill(a.back().begin(), a.back().end(), std::byte{0xFF});  // all T
    }
    std::vector<const std::byte*> pa, pb;
    for (int k = 0; k < 70; ++k) {  // not in order: the kernels take any addresses
        pa.push_back(a[static_cast<std::size_t>((k * 31) % 70)].data());
        pb.push_back(b[static_cast<std::size_t>((k * 17) % 70)].data());
    }
    for (const auto path : paths()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        const auto& t = table_of(path);
        for (const std::size_t n : {0, 1, 2, 3, 8, 63, 64, 65, 70}) {
            std::uint64_t cs[3], ct[3];
            scalar.count2(pa.data(), n, cs);
            t.count2(pa.data(), n, ct);
            ASSERT_TRUE(std::equal(cs, cs + 3, ct)) << "count2, n " << n;
            std::uint64_t one_by_one[3] = {0, 0, 0};
            for (std::size_t k = 0; k < n; ++k) {
                std::uint64_t c[3];
                scalar.count2(&pa[k], 1, c);
                for (unsigned j = 0; j < 3; ++j) one_by_one[j] += c[j];
            }
            ASSERT_TRUE(std::equal(cs, cs + 3, one_by_one)) << "count2 sums, n " << n;
            ASSERT_EQ(scalar.mismatch2(pa.data(), pb.data(), n), t.mismatch2(pa.data(), pb.data(), n)) << "mismatch2, n " << n;
        }
    }
}

}  // namespace
