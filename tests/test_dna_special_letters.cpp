// Blocks of plain bases with a few special letters (src/dna/special_letters.hpp), the form the
// reverse complement uses for scattered N, IUPAC codes and short lower-case stretches: reading
// such a block in place against the codec's decoder, the block writer against the codec's
// validator, decoder and plane encoder, and the reverse complement of sequences with special
// letters at many densities against the table loop, on every SIMD path.
#include "test_dna_support.hpp"

#include "dna/code_window.hpp"
#include "dna/dna_kernels.hpp"
#include "dna/special_letters.hpp"

#include <bitplane/codec.hpp>
#include <bitplane/simd.hpp>

#include <array>
#include <bit>

namespace {

using namespace dna_test;
namespace detail = bitplane::dna::detail;
using bitplane::block_values;
using bitplane::dna::sequence;

struct path_guard {
    bitplane::simd_path saved = bitplane::active_simd_path();
    ~path_guard() { bitplane::set_simd_path(saved); }
};

// Plain upper-case bases with `k` sprinkles: single ambiguity codes, gaps and lower-case
// letters, runs of N and lower-case stretches of 1 to 40 letters.
std::string sprinkled(std::size_t n, std::size_t k, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::string s = make_letters(letters_shape::acgt, n, seed);
    static const std::string single = "NSW-RKMYBDHVnswrkmybdhvacgt";
    for (std::size_t i = 0; i < k && n > 0; ++i) {
        const std::size_t at = rng() % n, len = 1 + rng() % 40;
        switch (rng() % 4) {
            case 0:
                for (std::size_t j = at; j < std::min(n, at + len); ++j) s[j] = 'N';
                break;
            case 1:  // lower case ('-' has none: it stays)
                for (std::size_t j = at; j < std::min(n, at + len); ++j) s[j] = s[j] == '-' ? '-' : static_cast<char>(s[j] | 0x20);
                break;
            default: s[at] = single[rng() % single.size()];
        }
    }
    return s;
}

// The special letters of a string of letters, as (position, code).
std::vector<std::pair<std::size_t, unsigned>> reference_specials(std::string_view letters) {
    std::vector<std::pair<std::size_t, unsigned>> out;
    for (std::size_t i = 0; i < letters.size(); ++i) {
        const unsigned c = bitplane::dna::to_code(letters[i]);
        if (c >= 4) out.emplace_back(i, c);
    }
    return out;
}

std::vector<std::pair<std::size_t, unsigned>> as_pairs(const std::vector<detail::special_letter>& letters) {
    std::vector<std::pair<std::size_t, unsigned>> out;
    for (const auto& s : letters) out.emplace_back(s.position, s.letter);
    return out;
}

constexpr std::size_t limit = 256;

TEST(DnaSpecialLetters, ReadInPlaceMatchesTheDecoder) {
    std::size_t read_in_place = 0;
    for (const std::size_t k : {0, 1, 2, 5, 20, 60, 200, 400, 2000}) {
        const std::string text = sprinkled(4 * block_values + 100, k, bitplane_test::case_seed("special-read", k));
        const sequence s(text);
        for (std::size_t b = 0; b < 5; ++b) {  // the last one is the tail
            SCOPED_TRACE("k=" + std::to_string(k) + " block " + std::to_string(b));
            const std::string_view letters = std::string_view(text).substr(b * block_values, block_values);
            const auto expect = reference_specials(letters);
            detail::code_window decoded;
            detail::read_block(s.codes(), b, decoded);
            std::vector<detail::special_letter> found;
            const bool fits = detail::find_special_letters(decoded, limit, found);
            ASSERT_EQ(fits, expect.size() <= limit);
            if (fits) {
                ASSERT_EQ(as_pairs(found), expect);
            }
            detail::code_window scratch;
            alignas(64) std::array<std::byte, 2 * bitplane::plane_bytes> payload, expect_payload;
            std::vector<detail::special_letter> in_place;
            const auto result = detail::read_special_block(s.codes(), b, limit, scratch, payload.data(), in_place);
            if (result == detail::special_read::other_layout) continue;  // two-plane, runs as raw, tail, ...
            ASSERT_EQ(result == detail::special_read::done, fits);
            if (!fits) continue;
            ++read_in_place;
            ASSERT_EQ(as_pairs(in_place), expect);
            detail::scalar_dna_kernels().interleave2(decoded.planes.planes[0].data(), decoded.planes.planes[1].data(),
                                                      expect_payload.data());
            ASSERT_EQ(payload, expect_payload);
        }
    }
    EXPECT_GT(read_in_place, 10u) << "the quick encoder's layout should be common";
}

TEST(DnaSpecialLetters, WrittenBlocksValidateDecodeAndAreNoLarger) {
    const auto& scalar = detail::scalar_dna_kernels();
    std::size_t written = 0;
    for (const std::size_t k : {1, 2, 3, 10, 30, 100, 255}) {
        for (int round = 0; round < 6; ++round) {
            std::string letters = sprinkled(block_values, k, bitplane_test::case_seed("special-write", k, round));
            if (round == 4) {  // plain letters all one base: a constant plane 0 or 1
                for (char& c : letters)
                    if (bitplane::dna::to_code(c) < 4) c = 'T';
            }
            detail::code_window w;
            ASSERT_TRUE(scalar.encode_letters(letters.data(), letters.size(), w.data(), &w.nonzero));
            std::vector<detail::special_letter> specials;
            if (!detail::find_special_letters(w, block_values - 1, specials)) continue;
            alignas(64) std::array<std::byte, 2 * bitplane::plane_bytes> payload;
            scalar.interleave2(w.planes.planes[0].data(), w.planes.planes[1].data(), payload.data());
            alignas(64) std::array<std::byte, bitplane::codec::max_block_bytes> out, quick;
            const std::size_t size = detail::encode_special_block(payload.data(), specials, out);
            auto near_constant = [&](unsigned j) {  // fewer than 256 set or clear bits
                std::size_t set = 0;
                for (const std::uint32_t x : w.planes.planes[j]) set += static_cast<std::size_t>(std::popcount(x));
                return set < 256 || set > block_values - 256;
            };
            SCOPED_TRACE("k=" + std::to_string(k) + " round " + std::to_string(round));
            if (size == 0) {
                EXPECT_TRUE(near_constant(0) || near_constant(1));
                continue;
            }
            ASSERT_FALSE(near_constant(0) || near_constant(1));
            ++written;
            const auto bytes = std::span<const std::byte>(out.data(), size);
            ASSERT_NO_THROW(bitplane::codec::validate_block(bytes, block_values));
            std::vector<std::uint32_t> values(block_values);
            bitplane::codec::decode_block(bytes, values);
            for (std::size_t i = 0; i < block_values; ++i) ASSERT_EQ(values[i], bitplane::dna::to_code(letters[i])) << i;
            // Planes 0 and 1 raw as the quick plane encoder stores them; the higher planes'
            // lists no larger than its choices (it has no runs).
            EXPECT_LE(size, bitplane::codec::encode_planes(w.planes, w.nonzero, block_values, quick));
        }
    }
    EXPECT_GT(written, 20u);
}

TEST(DnaSpecialLetters, ReverseComplementAtManyDensitiesOnEveryPath) {
    BITPLANE_SEED_TRACE();
    path_guard guard;
    for (const auto path : bitplane_test::paths_to_sweep()) {
        bitplane::set_simd_path(path);
        for (const std::size_t k : {1, 10, 100, 1000, 4000}) {
            const std::size_t n = 40 * block_values + 333;
            const std::string text = sprinkled(n, k, bitplane_test::case_seed("special-rc", k));
            const sequence s(text);
            for (const auto& [first, count] : std::vector<std::pair<std::size_t, std::size_t>>{
                     {0, n}, {5, n - 10}, {block_values, 20 * block_values}, {1000, 30 * block_values + 7}, {n - 4100, 4100}}) {
                SCOPED_TRACE(std::string(bitplane::to_string(path)) + " k=" + std::to_string(k) + " [" + std::to_string(first) +
                             "+" + std::to_string(count) + ")");
                const sequence rc = bitplane::dna::reverse_complement(s, first, count);
                ASSERT_EQ(rc.to_string(), reference_reverse_complement(std::string_view(text).substr(first, count)));
                ASSERT_NO_THROW(rc.codes().core().validate());
                // And back: its blocks (many written by the special-letter writer) read in place.
                const sequence back = bitplane::dna::reverse_complement(rc);
                ASSERT_EQ(back.to_string(), text.substr(first, count));
            }
        }
    }
}

}  // namespace
