// The real genomes scripts/fetch-genomes.sh downloads (skipped with the reason when absent):
// exact round trips of the text and of both packed forms, sizes against UCSC 2bit (issue #5's
// acceptance), and the operations against byte loops on real letters.
#include "test_dna_support.hpp"

#include <bitplane/parallel.hpp>

namespace {

using namespace dna_test;
using bitplane::dna::fasta;

struct genome_case {
    const char* file;
    bool plain_upper;  // N-free upper case: planes form at most 2.05 bits per base
    bool large = false;  // megabases: the modeled form (2 MB/s) is left out under sanitizers
};

const genome_case genomes[] = {
    {"lambda_phage.fa.gz", true},         {"ecoli_k12_mg1655.fa.gz", true, true},
    {"vcholerae_o1.fa.gz", false, true},  {"pseudopig_softmasked.fa.gz", false},
};

void check_genome(const genome_case& g) {
    const auto path = genome(g.file);
    if (!path) {
        GTEST_SKIP() << g.file << " not downloaded (run scripts/fetch-genomes.sh)";
    }
    const std::string gz = read_bytes(*path);
    const fasta f = fasta::parse_bytes(std::as_bytes(std::span<const char>(gz.data(), gz.size())));
    const std::string text = f.to_text();
    // The text is the gunzipped file, byte for byte (compare with zlib's own inflate, via parse).
    const fasta again = fasta::parse(text);
    ASSERT_TRUE(again == f);
    const double bases = static_cast<double>(f.letters().size());
    const auto twobit = bitplane::dna::twobit_bytes(f);
    for (const auto mode : {bitplane::dna::pack_mode::planes, bitplane::dna::pack_mode::modeled}) {
        if (mode == bitplane::dna::pack_mode::modeled && g.large && bitplane_test::quick_mode()) {
            std::printf("  %s: modeled form skipped in quick mode (sanitizers or BITPLANE_TEST_QUICK)\n", g.file);
            continue;
        }
        std::vector<std::byte> bytes;
        bitplane::dna::pack(f, bytes, mode);
        const fasta back = bitplane::dna::unpack(bytes);
        ASSERT_EQ(back.to_text(), text) << g.file << " mode " << static_cast<int>(mode);
        const double bits = 8.0 * static_cast<double>(bytes.size()) / bases;
        std::printf("  %-28s %-8s %10zu bytes  %.4f bits/base  (2bit %llu bytes, %.4f)\n", g.file,
                    mode == bitplane::dna::pack_mode::planes ? "planes" : "modeled", bytes.size(), bits,
                    static_cast<unsigned long long>(twobit), 8.0 * static_cast<double>(twobit) / bases);
        if (mode == bitplane::dna::pack_mode::planes && g.plain_upper) {
            EXPECT_LE(bits, 2.05) << g.file;
        }
        if (mode == bitplane::dna::pack_mode::modeled) {
            EXPECT_LE(bits, 2.1) << g.file;
            EXPECT_LT(bytes.size(), twobit) << g.file;
        }
    }
    // Operations on real letters against the byte loops.
    const std::string letters = f.letters().to_string();
    EXPECT_EQ(bitplane::dna::count_bases(f.letters()), reference_counts(letters));
    const std::size_t n = letters.size();
    const std::size_t cut = std::min<std::size_t>(n, 300000);
    EXPECT_EQ(bitplane::dna::reverse_complement(f.letters(), n - cut, cut).to_string(),
              reference_reverse_complement(std::string_view(letters).substr(n - cut)));
    // The whole genome too: its scattered ambiguity codes take the special-letter path.
    EXPECT_EQ(bitplane::dna::reverse_complement(f.letters()).to_string(), reference_reverse_complement(letters));
    const std::string pattern = letters.substr(n / 2, 12);
    EXPECT_EQ(bitplane::dna::find(f.letters(), pattern, 0, cut), reference_find(std::string_view(letters).substr(0, cut), pattern));
}

TEST(DnaGenomes, LambdaPhage) { check_genome(genomes[0]); }
TEST(DnaGenomes, EColiK12) { check_genome(genomes[1]); }
TEST(DnaGenomes, VibrioCholeraeIupac) { check_genome(genomes[2]); }
TEST(DnaGenomes, PseudopigSoftMasked) { check_genome(genomes[3]); }

TEST(DnaGenomes, BioMarKsAmpliconsRoundTrip) {
    const auto path = genome("biomarks_18s.fa.gz");
    if (!path) {
        GTEST_SKIP() << "biomarks_18s.fa.gz not downloaded (run scripts/fetch-genomes.sh)";
    }
    const std::string gz = read_bytes(*path);
    const fasta f = fasta::parse_bytes(std::as_bytes(std::span<const char>(gz.data(), gz.size())));
    EXPECT_EQ(f.size(), 50000u);
    std::vector<std::byte> bytes;
    bitplane::dna::pack(f, bytes);
    EXPECT_EQ(bitplane::dna::unpack(bytes).to_text(), f.to_text());
}

TEST(DnaGenomes, BowtieReadsFastqRoundTrip) {
    const auto path = genome("bowtie2_reads.fq.gz");
    if (!path) {
        GTEST_SKIP() << "bowtie2_reads.fq.gz not downloaded (run scripts/fetch-genomes.sh)";
    }
    const std::string gz = read_bytes(*path);
    const auto bytes = std::as_bytes(std::span<const char>(gz.data(), gz.size()));
    const auto q = bitplane::dna::fastq::parse_bytes(bytes);
    EXPECT_EQ(q.size(), 10000u);
    const auto again = bitplane::dna::fastq::parse(q.to_text());
    EXPECT_EQ(again.to_text(), q.to_text());
}

// Human chromosome 20 (63 M letters, 3.5 M of them N): seconds in Release, minutes under ASan.
TEST(DnaGenomesSlow, HumanChr20) {
    const auto path = genome("human_chr20_grch37.fa.gz");
    if (!path) {
        GTEST_SKIP() << "human_chr20_grch37.fa.gz not downloaded (run scripts/fetch-genomes.sh)";
    }
    check_genome({"human_chr20_grch37.fa.gz", false, false});
}

// The planes form of chr20 alone, fast enough for every run.
TEST(DnaGenomes, HumanChr20PlanesRoundTrip) {
    const auto path = genome("human_chr20_grch37.fa.gz");
    if (!path) {
        GTEST_SKIP() << "human_chr20_grch37.fa.gz not downloaded (run scripts/fetch-genomes.sh)";
    }
    if (bitplane_test::quick_mode()) {
        GTEST_SKIP() << "63 M letters: left to DnaGenomesSlow.HumanChr20 under sanitizers";
    }
    const std::string gz = read_bytes(*path);
    const fasta f = fasta::parse_bytes(std::as_bytes(std::span<const char>(gz.data(), gz.size())));
    const std::string text = f.to_text();
    EXPECT_TRUE(fasta::parse(text) == f);
    std::vector<std::byte> bytes;
    bitplane::dna::pack(f, bytes);
    EXPECT_EQ(bitplane::dna::unpack(bytes).to_text(), text);
    EXPECT_LT(bytes.size(), bitplane::dna::twobit_bytes(f)) << "N runs are free in planes";
    const auto counts = bitplane::dna::count_bases(f.letters());
    EXPECT_EQ(counts.n, 3520000u);  // what `grep -v '>' | fold -w1 | sort | uniq -c` says
    EXPECT_EQ(counts.a, 16523053u);
    EXPECT_EQ(counts.c, 13107828u);
    EXPECT_EQ(counts.g, 13149412u);
    EXPECT_EQ(counts.t, 16725227u);
}

}  // namespace
