// libFuzzer target: loading DNA from untrusted bytes. The first byte picks the loader (even:
// a packed FASTA file, dna::unpack; odd: a saved sequence, dna::load_sequence). Either
// format_error, or what was loaded writes back and loads again to the same thing. The file's
// checksum field is rewritten first (fuzz_support.hpp), so mutations reach the metadata and
// the payload parsers.
#include "fuzz_support.hpp"

#include <bitplane/bitplane.hpp>
#include <bitplane/dna/dna.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::vector<std::byte> bytes =
        bitplane::fuzz::with_checksum(std::span(reinterpret_cast<const std::byte*>(data + 1), size - 1));
    if ((data[0] & 1) == 0) {
        bitplane::dna::fasta file;
        try {
            file = bitplane::dna::unpack(bytes);
        } catch (const bitplane::format_error&) {
            return 0;
        }
        // The text it writes parses back to the same file, and repacks to an equal one.
        if (!bitplane::fuzz::same_as_its_text(file)) std::abort();
        std::vector<std::byte> again;
        bitplane::dna::pack(file, again);
        if (!(bitplane::dna::unpack(again) == file)) std::abort();
        return 0;
    }
    bitplane::dna::sequence s;
    try {
        s = bitplane::dna::load_sequence(bytes);
    } catch (const bitplane::format_error&) {
        return 0;
    }
    std::vector<std::byte> again;
    bitplane::dna::save(s, again);
    if (!(bitplane::dna::load_sequence(again) == s)) std::abort();
    return 0;
}

#if defined(BITPLANE_LIBFUZZER)
// Structure-aware mutation (fuzz_support.hpp): libFuzzer's mutation, then the size field of the
// file behind the mode byte fixed (a packed FASTA's payload size, a saved sequence's S).
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
    size = LLVMFuzzerMutate(data, size, max_size);
    if (size < 1 || seed % 4 == 0) return size;
    const std::span<std::byte> file(reinterpret_cast<std::byte*>(data + 1), size - 1);
    if ((data[0] & 1) == 0) {
        bitplane::fuzz::fix_dna_sizes(file);
    } else {
        bitplane::fuzz::fix_vector_sizes(file);
    }
    return size;
}
#endif
