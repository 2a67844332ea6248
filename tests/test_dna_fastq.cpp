// FASTQ: byte-exact round trips of real reads and of edge files, and errors naming the read.
#include "test_dna_support.hpp"

#include <bitplane/error.hpp>

namespace {

using namespace dna_test;
using bitplane::dna::fastq;

TEST(DnaFastq, RealReadsRoundTrip) {
    const std::string text = read_bytes(fixture("bowtie2_reads.fq"));
    ASSERT_FALSE(text.empty());
    const fastq q = fastq::parse(text);
    ASSERT_EQ(q.size(), 4u);
    EXPECT_EQ(q[0].name(), "r1");
    EXPECT_EQ(q[0].size, q[0].quality.size());
    EXPECT_EQ(q.to_text(), text);
    EXPECT_GT(bitplane::dna::count_bases(q.letters()).n, 0u);
    EXPECT_EQ(q.letters().substr(q[1].first, q[1].size), text.substr(text.find('\n', text.find("@r2")) + 1, q[1].size));
}

TEST(DnaFastq, EdgeFilesRoundTrip) {
    for (const std::string text : {"", "@a\nACGT\n+\nIIII\n", "@a desc\nACGT\n+a desc\n!!~~", "@a\r\nAC\r\n+\r\nII\r\n",
                                   "@a\nnnRY\n+\n####\n@b\nA\n+\nI\n", "@empty\n\n+\n\n"}) {
        const fastq q = fastq::parse(text);
        EXPECT_EQ(q.to_text(), text) << text;
    }
}

std::string error_of(std::string_view text) {
    try {
        (void)fastq::parse(text);
    } catch (const bitplane::parse_error& e) {
        return e.what();
    }
    return "(accepted)";
}

TEST(DnaFastq, ErrorsNameTheRead) {
    EXPECT_NE(error_of("@a\nACGT\n+\nIIII\n@b\nACXT\n+\nIIII\n").find("read 2, line 6, column 3: 'X'"), std::string::npos);
    EXPECT_NE(error_of("@a\nACGT\n+\nIII\n").find("3 qualities for 4 letters"), std::string::npos);
    EXPECT_NE(error_of("@a\nACGT\nACGT\n+\nIIII\n").find("multi-line"), std::string::npos);
    EXPECT_NE(error_of(">a\nACGT\n").find("expected '@'"), std::string::npos);
    EXPECT_NE(error_of("@a\nACGT\n+\nII I\n").find("column 3: space"), std::string::npos);
    EXPECT_NE(error_of("@a\nACGT\n").find("ends inside a read"), std::string::npos);
    EXPECT_NE(error_of("@a\n\n+\n").find("no quality line"), std::string::npos);
}

}  // namespace

namespace {

// Random near-FASTQ text: parsed and written back exactly, or a parse_error; nothing else.
TEST(DnaFastqRandomText, ParseRoundTripsOrRejectsRandomText) {
    std::mt19937_64 rng(bitplane_test::case_seed("fastq-fuzzish"));
    const std::vector<std::string> pieces = {"@r", "\n", "ACGT", "N", "+", "IIII", "!", "\r\n", " ", "x", "@", "acgt"};
    int accepted = 0;
    for (int k = 0; k < (bitplane_test::quick_mode() ? 300 : 3000); ++k) {
        std::string text = k % 2 == 0 ? "@r\nACGT\n+\nIIII\n" : "";
        for (std::size_t i = 0, n = rng() % 30; i < n; ++i) text += pieces[rng() % pieces.size()];
        try {
            const fastq q = fastq::parse(text);
            ASSERT_EQ(q.to_text(), text) << "case " << k;
            ++accepted;
        } catch (const bitplane::parse_error&) {
        }
    }
    EXPECT_GT(accepted, 0);
}

}  // namespace
