// libFuzzer target: loading DNA from untrusted bytes. The first byte picks the loader (even:
// a packed FASTA file, dna::unpack; odd: a saved sequence, dna::load_sequence). Either
// format_error, or what was loaded writes back and loads again to the same thing. The file's
// checksum field is rewritten first (fuzz_support.hpp), so mutations reach the metadata and
// the payload parsers.
//
// Under libFuzzer, a packed file with a modeled payload that announces more than 8192 letters
// or more than 512 coded plain bases is skipped (fuzz_support.hpp says why): a forged letter
// count (up to 2048 per payload byte) made a run cost tens of milliseconds. The header and
// record-table checks still run on planes files of any size, and make_corpus's seeds include
// a modeled file of four blocks within the bounds. Replays (CTest) check every input, the
// checked-in finding of 40,000 plain bases included.
#include "fuzz_support.hpp"

#include <bitplane/bitplane.hpp>
#include <bitplane/dna/dna.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

namespace {
#if defined(BITPLANE_LIBFUZZER)
// The header of a packed DNA file (docs/format.md section 6): flags at byte 11 (0x04: modeled
// payload), the letter count at bytes 16-23, the stored metadata size at 32-39; the payload
// follows the 64-byte header and the metadata.
bool modeled_and_costly(std::span<const std::byte> file) {
    using bitplane::detail::load_le;
    if (file.size() < 64 || (static_cast<std::uint8_t>(file[11]) & 0x04) == 0) return false;
    if (load_le<std::uint64_t>(file.data() + 16) > bitplane::fuzz::max_fuzzed_modeled_letters) return true;
    const auto meta = load_le<std::uint64_t>(file.data() + 32);
    if (meta > file.size() - 64) return false;
    return bitplane::fuzz::modeled_plain_bases(file.subspan(64 + meta)) > bitplane::fuzz::max_fuzzed_coded_bases;
}
#endif
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::vector<std::byte> bytes =
        bitplane::fuzz::with_checksum(std::span(reinterpret_cast<const std::byte*>(data + 1), size - 1));
#if defined(BITPLANE_LIBFUZZER)
    if ((data[0] & 1) == 0 && modeled_and_costly(bytes)) return 0;
#endif
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
