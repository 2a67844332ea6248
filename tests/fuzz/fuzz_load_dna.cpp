// libFuzzer target: loading DNA from untrusted bytes. The first byte picks the loader (even:
// a packed FASTA file, dna::unpack; odd: a saved sequence, dna::load_sequence). Either
// format_error, or what was loaded writes back and loads again to the same thing.
#include <bitplane/bitplane.hpp>
#include <bitplane/dna/dna.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data + 1), size - 1);
    if ((data[0] & 1) == 0) {
        bitplane::dna::fasta file;
        try {
            file = bitplane::dna::unpack(bytes);
        } catch (const bitplane::format_error&) {
            return 0;
        }
        // The text it writes parses back to the same file, and repacks to an equal one.
        if (!(bitplane::dna::fasta::parse(file.to_text()) == file)) std::abort();
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
