// libFuzzer target: the FASTA and FASTQ parsers on arbitrary text. The first byte picks the
// parser (even: FASTA, odd: FASTQ). Either parse_error, or the parsed file writes back the
// input byte for byte (the documented identity), and for FASTA the packed file unpacks to the
// same records.
#include <bitplane/bitplane.hpp>
#include <bitplane/dna/dna.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const bool fastq = (data[0] & 1) != 0;
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    if (fastq) {
        bitplane::dna::fastq reads;
        try {
            reads = bitplane::dna::fastq::parse(text);
        } catch (const bitplane::parse_error&) {
            return 0;
        }
        if (reads.to_text() != text) std::abort();
        return 0;
    }
    bitplane::dna::fasta file;
    try {
        file = bitplane::dna::fasta::parse(text);
    } catch (const bitplane::parse_error&) {
        return 0;
    }
    if (file.to_text() != text) std::abort();
    // Planes only: the modeled coder sets up its model tables per call, which would cut this
    // target's rate a hundredfold (its round trips are in tests/test_dna_fasta.cpp).
    std::vector<std::byte> packed;
    bitplane::dna::pack(file, packed, bitplane::dna::pack_mode::planes);
    if (!(bitplane::dna::unpack(packed) == file)) std::abort();
    return 0;
}
