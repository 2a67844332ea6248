// dna::sequence and its operations against byte-string references, on every letter shape,
// sizes around block edges, ranges at every alignment, and every SIMD path.
#include "test_dna_support.hpp"

#include <bitplane/error.hpp>
#include <bitplane/serialize.hpp>
#include <bitplane/simd.hpp>

namespace {

using namespace dna_test;
using bitplane::dna::sequence;

struct path_guard {
    bitplane::simd_path saved = bitplane::active_simd_path();
    ~path_guard() { bitplane::set_simd_path(saved); }
};

// Ranges of a sequence of n letters: whole, empty, block-aligned, misaligned, short, at the end.
std::vector<std::pair<std::size_t, std::size_t>> ranges(std::size_t n, std::uint64_t seed) {
    std::vector<std::pair<std::size_t, std::size_t>> out = {{0, n}, {0, 0}, {n, 0}};
    std::mt19937_64 rng(seed);
    for (int k = 0; k < 6 && n > 0; ++k) {
        const std::size_t first = rng() % n;
        out.push_back({first, rng() % (n - first + 1)});
    }
    if (n > 2048) out.push_back({2048, n - 2048});
    if (n > 5) out.push_back({n - 5, 5});
    return out;
}

TEST(DnaSequence, LettersRoundTripEveryShapeAndSize) {
    BITPLANE_SEED_TRACE();
    path_guard guard;
    for (const auto path : bitplane_test::paths_to_sweep()) {
        bitplane::set_simd_path(path);
        for (const auto shape : all_letter_shapes()) {
            for (const std::size_t n : dna_sizes()) {
                SCOPED_TRACE(shape_name(shape) + " n=" + std::to_string(n) + " " + std::string(bitplane::to_string(path)));
                const std::string text = make_letters(shape, n, bitplane_test::case_seed("seq", n, static_cast<unsigned>(shape)));
                const sequence s(text);
                ASSERT_EQ(s.size(), n);
                ASSERT_EQ(s.to_string(), text);
                for (std::size_t i = 0; i < n; i += 1 + n / 37) ASSERT_EQ(s[i], text[i]) << i;
                for (const auto& [first, count] : ranges(n, n))
                    ASSERT_EQ(s.substr(first, count), text.substr(first, count)) << first << "+" << count;
            }
        }
    }
}

TEST(DnaSequence, AppendInPiecesEqualsWhole) {
    const std::string text = make_letters(letters_shape::mixed, 9000, bitplane_test::case_seed("append"));
    std::mt19937_64 rng(bitplane_test::case_seed("append-cuts"));
    sequence s;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t len = std::min<std::size_t>(text.size() - at, rng() % 3000);
        s.append(std::string_view(text).substr(at, len));
        at += len;
    }
    EXPECT_EQ(s.to_string(), text);
    EXPECT_EQ(s, sequence(text));
}

TEST(DnaSequence, BadLettersNameTheColumnAndAppendNothing) {
    for (const char bad : {'X', 'U', 'u', ' ', '\n', '\r', '*', '.', '0', '\0', '\xff'}) {
        for (const std::size_t at : {0, 1, 2047, 2048, 2500}) {
            std::string text = make_letters(letters_shape::acgt, 3000, at);
            text[at] = bad;
            sequence s("ACGT");
            try {
                s.append(text);
                FAIL() << "accepted byte " << int(bad);
            } catch (const bitplane::parse_error& e) {
                EXPECT_NE(std::string(e.what()).find("column " + std::to_string(at + 1)), std::string::npos) << e.what();
            }
            EXPECT_EQ(s.to_string(), "ACGT");
        }
    }
}

TEST(DnaSequence, AccessorsCheckBounds) {
    const sequence s("ACGTN");
    EXPECT_EQ(s.at(4), 'N');
    EXPECT_THROW((void)s.at(5), bitplane::index_error);
    EXPECT_THROW((void)s.substr(6), bitplane::index_error);
    EXPECT_EQ(s.substr(5), "");
    EXPECT_EQ(s.substr(3, 100), "TN");
    EXPECT_EQ(s.code_at(4), bitplane::dna::code_N);
}

TEST(DnaSequence, CountsAndGcMatchTheByteLoop) {
    BITPLANE_SEED_TRACE();
    path_guard guard;
    for (const auto path : bitplane_test::paths_to_sweep()) {
        bitplane::set_simd_path(path);
        for (const auto shape : all_letter_shapes())
            for (const std::size_t n : dna_sizes()) {
                const std::string text = make_letters(shape, n, bitplane_test::case_seed("counts", n, static_cast<unsigned>(shape)));
                const sequence s(text);
                for (const auto& [first, count] : ranges(n, n + 1)) {
                    const auto expect = reference_counts(std::string_view(text).substr(first, count));
                    const auto got = bitplane::dna::count_bases(s, first, count);
                    ASSERT_EQ(got, expect) << shape_name(shape) << " n=" << n << " [" << first << "+" << count << ") "
                                           << bitplane::to_string(path);
                    ASSERT_EQ(got.total(), count);
                    ASSERT_DOUBLE_EQ(bitplane::dna::gc_content(s, first, count), expect.gc_content());
                }
            }
    }
    EXPECT_THROW((void)bitplane::dna::count_bases(sequence("AC"), 3), bitplane::index_error);
}

TEST(DnaSequence, MismatchCountMatchesTheByteLoopAtEveryAlignment) {
    BITPLANE_SEED_TRACE();
    path_guard guard;
    for (const auto path : bitplane_test::paths_to_sweep()) {
        bitplane::set_simd_path(path);
        for (const auto shape : all_letter_shapes()) {
            const std::string a = make_letters(shape, 9000, bitplane_test::case_seed("mm-a", static_cast<unsigned>(shape)));
            std::string b = a;
            std::mt19937_64 rng(bitplane_test::case_seed("mm-b", static_cast<unsigned>(shape)));
            const std::string every = every_letter();
            for (std::size_t i = 0; i < b.size(); i += 1 + rng() % 20) b[i] = every[rng() % every.size()];
            const sequence sa(a), sb(b);
            for (const auto& [af, bf, count] : std::vector<std::tuple<std::size_t, std::size_t, std::size_t>>{
                     {0, 0, 9000}, {0, 0, 0}, {1, 0, 8000}, {2048, 0, 4100}, {31, 2081, 5000}, {4000, 3999, 5000}, {8999, 8999, 1}}) {
                for (const bool ignore : {true, false}) {
                    const auto expect = reference_mismatches(std::string_view(a).substr(af, count), std::string_view(b).substr(bf, count), ignore);
                    const auto got = bitplane::dna::mismatch_count(sa, af, sb, bf, count,
                                                                   ignore ? bitplane::dna::case_rule::ignore : bitplane::dna::case_rule::compare);
                    ASSERT_EQ(got, expect) << shape_name(shape) << " " << af << "/" << bf << "+" << count << " ignore=" << ignore
                                           << " " << bitplane::to_string(path);
                }
            }
        }
    }
    EXPECT_EQ(bitplane::dna::mismatch_count(sequence("ACGTacgt"), sequence("acgtACGA")), 1u);
    EXPECT_EQ(bitplane::dna::mismatch_count(sequence("ACGTacgt"), sequence("acgtACGA"), bitplane::dna::case_rule::compare), 8u);
    EXPECT_THROW((void)bitplane::dna::mismatch_count(sequence("AC"), sequence("ACG")), bitplane::size_error);
    EXPECT_THROW((void)bitplane::dna::mismatch_count(sequence("AC"), 1, sequence("ACG"), 0, 2), bitplane::index_error);
}

TEST(DnaSequence, ReverseComplementMatchesTheTableLoop) {
    BITPLANE_SEED_TRACE();
    path_guard guard;
    for (const auto path : bitplane_test::paths_to_sweep()) {
        bitplane::set_simd_path(path);
        for (const auto shape : all_letter_shapes())
            for (const std::size_t n : dna_sizes()) {
                const std::string text = make_letters(shape, n, bitplane_test::case_seed("rc", n, static_cast<unsigned>(shape)));
                const sequence s(text);
                for (const auto& [first, count] : ranges(n, n + 2)) {
                    const sequence rc = bitplane::dna::reverse_complement(s, first, count);
                    ASSERT_EQ(rc.to_string(), reference_reverse_complement(std::string_view(text).substr(first, count)))
                        << shape_name(shape) << " n=" << n << " [" << first << "+" << count << ") " << bitplane::to_string(path);
                }
                // Twice is the identity.
                ASSERT_EQ(bitplane::dna::reverse_complement(bitplane::dna::reverse_complement(s)), s);
            }
    }
}

TEST(DnaSequence, FindMatchesTheNaiveSearch) {
    BITPLANE_SEED_TRACE();
    path_guard guard;
    std::mt19937_64 rng(bitplane_test::case_seed("find"));
    for (const auto path : bitplane_test::paths_to_sweep()) {
        bitplane::set_simd_path(path);
        for (const auto shape : all_letter_shapes()) {
            for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{100}, std::size_t{2048}, std::size_t{2049}, std::size_t{7000}}) {
                if (n == 7000 && bitplane_test::quick_mode() && path != bitplane_test::paths_to_sweep().back()) continue;
                // Low-entropy text so that patterns occur often: a 4-letter alphabet for acgt.
                const std::string text = make_letters(shape, n, bitplane_test::case_seed("find-text", n, static_cast<unsigned>(shape)));
                const sequence s(text);
                std::vector<std::string> patterns = {"A", "AC", "acg", "N", "RY", "NNNN", "ACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGT"};
                for (const std::size_t len : {1, 2, 3, 5, 8, 16, 31, 32, 33, 63, 64, 65, 100, 300}) {
                    if (n >= len) {  // taken from the text: at least one hit where it is all bases
                        const std::size_t at = rng() % (n - len + 1);
                        patterns.push_back(text.substr(at, len));
                    }
                }
                for (std::string& p : patterns) {
                    if (p.find('-') != std::string::npos) continue;
                    for (const auto& [first, count] : ranges(n, n + 3)) {
                        const auto expect = reference_find(std::string_view(text).substr(first, count), p);
                        auto got = bitplane::dna::find(s, p, first, count);
                        for (auto& g : got) g -= first;
                        ASSERT_EQ(got, expect) << shape_name(shape) << " n=" << n << " pattern " << p.size() << " '"
                                               << p.substr(0, 20) << "' [" << first << "+" << count << ") " << bitplane::to_string(path);
                    }
                }
            }
        }
    }
    EXPECT_TRUE(bitplane::dna::find(sequence("ACGT"), "").empty());
    EXPECT_THROW((void)bitplane::dna::find(sequence("ACGT"), "AXG"), bitplane::parse_error);
}

TEST(DnaSequence, FindOnALongHomopolymerReturnsEveryOverlappingHit) {
    const sequence s(std::string(10000, 'A'));
    const auto hits = bitplane::dna::find(s, std::string(70, 'A'));
    ASSERT_EQ(hits.size(), 10000u - 69u);
    for (std::size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i], i);
}

TEST(DnaSequence, SaveLoadRoundTripAndRejectsCodesThatAreNoLetters) {
    for (const auto shape : all_letter_shapes()) {
        const sequence s(make_letters(shape, 5000, static_cast<unsigned>(shape)));
        std::vector<std::byte> bytes;
        bitplane::dna::save(s, bytes);
        EXPECT_EQ(bitplane::dna::load_sequence(bytes), s);
    }
    for (const std::uint32_t bad : {20u, 16u, 15u, 48u, 60u, 64u, 1000u}) {  // group without special, lower gap, group 3...
        bitplane::vector<std::uint32_t> codes(3000, 0u);
        codes.set(2100, bad);
        std::vector<std::byte> bytes;
        bitplane::save(codes, bytes);
        EXPECT_THROW((void)bitplane::dna::load_sequence(bytes), bitplane::format_error) << bad;
        EXPECT_THROW((void)sequence::from_codes(codes), bitplane::argument_error) << bad;
    }
}

TEST(DnaSequence, PlainUpperCaseCostsTwoPlanes) {
    const sequence s(make_letters(letters_shape::acgt, 200 * 2048, 7));
    std::vector<std::byte> bytes;
    bitplane::dna::save(s, bytes);
    // 2 raw planes + 5 header bytes + an 8-byte offset per block, plus the file header.
    EXPECT_LE(8.0 * static_cast<double>(bytes.size()) / static_cast<double>(s.size()), 2.06);
    const sequence n(std::string(200 * 2048, 'N'));
    bytes.clear();
    bitplane::dna::save(n, bytes);
    EXPECT_LE(bytes.size(), 200u * 32u) << "an N block is a few header bytes";
}

}  // namespace

namespace {

// Long plain sequences, where the reverse complement keeps input blocks in a ring of slots and
// falls back to the general path around blocks with other letters.
TEST(DnaSequence, ReverseComplementOfLongSequencesWithIslands) {
    path_guard guard;
    for (const auto path : bitplane_test::paths_to_sweep()) {
        bitplane::set_simd_path(path);
        std::string text = make_letters(letters_shape::acgt, 100 * 2048 + 777, bitplane_test::case_seed("rc-long"));
        std::mt19937_64 rng(bitplane_test::case_seed("rc-islands"));
        for (int k = 0; k < 6; ++k) text[rng() % text.size()] = "NRYacgt"[k];
        const sequence s(text);
        for (const auto& [first, count] : std::vector<std::pair<std::size_t, std::size_t>>{
                 {0, text.size()}, {2048, 80 * 2048}, {5, 70 * 2048 + 3}, {1000, text.size() - 1000}}) {
            ASSERT_EQ(bitplane::dna::reverse_complement(s, first, count).to_string(),
                      reference_reverse_complement(std::string_view(text).substr(first, count)))
                << bitplane::to_string(path) << " [" << first << "+" << count << ")";
        }
    }
}

}  // namespace
