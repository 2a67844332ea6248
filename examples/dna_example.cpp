// docs/dna.md's example, run on E. coli K-12 MG1655 (scripts/fetch-genomes.sh) with checks after
// it: the lines between the markers are what the document shows (tests/check_doc_example.cmake
// compares them, four spaces of indentation off). The test runs it in a folder where
// ecoli.fa.gz is that genome; without the genome it exits 77, which CTest reports as skipped.
#include <bitplane/dna/dna.hpp>  // before main: inside main, where the document has it, it expands to nothing

#include <cassert>
#include <cstdio>
#include <filesystem>

int main() {
    if (!std::filesystem::exists("ecoli.fa.gz")) {
        std::printf("dna_example: no ecoli.fa.gz here (run scripts/fetch-genomes.sh), skipped\n");
        return 77;
    }
    // docs/dna.md begins
    #include <bitplane/dna/dna.hpp>
    namespace dna = bitplane::dna;

    dna::fasta genome = dna::fasta::read_file("ecoli.fa.gz");      // plain or gzip
    const dna::sequence& s = genome.letters();                      // all records, one sequence
    auto r = genome[0];                                             // name(), description(), first, size, lines
    dna::base_counts c = dna::count_bases(s, r.first, r.size);      // A C G T N, ambiguous, gaps, lower
    double gc = c.gc_content();
    dna::sequence rc = dna::reverse_complement(s, r.first, r.size);
    std::vector<std::uint64_t> hits = dna::find(s, "GAATTC");       // EcoRI sites, IUPAC allowed
    std::string piece = s.substr(1000, 60);
    std::vector<std::byte> file;
    dna::pack(genome, file, dna::pack_mode::modeled);               // 1.92 bits/base on E. coli
    assert(dna::unpack(file).to_text() == genome.to_text());
    // docs/dna.md ends

    // What assert() would check, and more, in Release builds too (figures counted with Python from the FASTA text).
    const bool ok = genome.size() == 1 && r.name() == "K-12-MG1655" && c.a == 1142228 && c.c == 1179554 &&
                    c.g == 1176923 && c.t == 1140970 && c.total() == 4639675 && gc > 0.5078 && gc < 0.5080 &&
                    rc.substr(0, 60) == "GAAAAATACTTACTAAGGCGTTTTTTATTTGGTGATATTTTTTTCAATATCATGCAGCAA" &&
                    hits.size() == 645 && piece == "GTTGCGAGATTTGGACGGACGTTGACGGGGTCTATACCTGCGACCCGCGTCAGGTGCCCG" &&
                    8.0 * static_cast<double>(file.size()) / static_cast<double>(s.size()) < 1.93 &&
                    dna::unpack(file).to_text() == genome.to_text();
    std::printf("E. coli: GC %.4f, %zu EcoRI sites, %zu bytes packed: %s\n", gc, hits.size(), file.size(),
                ok ? "as expected" : "NOT AS EXPECTED");
    return ok ? 0 : 1;
}
