// What the fuzz targets share: the harness step that gets mutated files past the checksum.
//
// Every bitplane file (vector, bitset, packed DNA, saved DNA sequence) carries an XXH3 checksum
// of its bytes in header bytes 56-63 (docs/format.md section 3), checked before any block or
// record is parsed. A mutated input almost never carries the right one, so without this step
// the fuzzer's mutations stop at the checksum check and the parsers behind it see only the
// seeds. The targets copy their input and rewrite that field with the library's own checksum
// (core/file_header.hpp, the function the loaders check with) before loading. The checksum
// check itself is covered by the unit tests (a flipped byte anywhere is refused).
#pragma once

#include "core/file_header.hpp"

#include <bitplane/dna/fasta.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace bitplane::fuzz {

/// A mutable copy of `bytes` whose checksum field holds the checksum of the copy, when it is
/// long enough to have a header (shorter inputs are copied as they are).
inline std::vector<std::byte> with_checksum(std::span<const std::byte> bytes) {
    std::vector<std::byte> file(bytes.begin(), bytes.end());
    if (file.size() >= detail::file::header_bytes)
        detail::store_le<std::uint64_t>(file.data() + detail::file::checksum_offset, detail::file::checksum(file));
    return file;
}

/// `f` as its text parses back: the line-end flags that its text cannot carry (the CRLF flag of
/// a text with no line end; the final-line-end flag of an empty text) set as a parser sets them.
/// fasta's setters allow any flags on any records, and pack keeps them, so a packed file may
/// hold such flags; unpack(pack(f)) == f holds, text round trips hold up to these flags.
inline bool same_as_its_text(const dna::fasta& f) {
    const std::string text = f.to_text();
    dna::fasta g = dna::fasta::parse(text);
    if (text.find('\n') == std::string::npos) g.set_crlf(f.crlf());
    if (text.empty()) g.set_final_newline(f.final_newline());
    return g == f;
}

// ---- the modeled decoder's cost ---------------------------------------------------------------
// The modeled DNA decoder (src/dna/base_model.cpp) runs its context-mixing model once per coded
// plain base, about a microsecond a base under ASan, and a payload may announce thousands at
// no cost in bytes (past its end the coded bytes read as zeros). Under libFuzzer, dna_modeled
// and load_dna skip inputs that announce more than these (the replays check every input):
// 8192 letters are four rest-part blocks (three block boundaries, the vector's growth) and
// every path of the model is reached within a few bases; longer sequences are the unit tests'
// (tests/test_dna_fasta.cpp).
inline constexpr std::uint64_t max_fuzzed_modeled_letters = 8192;
inline constexpr std::uint64_t max_fuzzed_coded_bases = 512;

/// The plain base count of a modeled payload (base_model.cpp: u64 rest-part size R, R bytes,
/// u64 plain base count, coded bases), or 0 when the payload is too short to hold it.
inline std::uint64_t modeled_plain_bases(std::span<const std::byte> payload) {
    if (payload.size() < 8) return 0;
    const auto rest = detail::load_le<std::uint64_t>(payload.data());
    if (rest > payload.size() - 8 || payload.size() - 8 - rest < 8) return 0;
    return detail::load_le<std::uint64_t>(payload.data() + 8 + rest);
}

// ---- structure-aware mutation --------------------------------------------------------------
// A mutation that inserts or erases bytes breaks the header's size fields, and the loaders
// refuse a file whose announced size is not its size before parsing anything else. The custom
// mutators of the load targets (LLVMFuzzerCustomMutator, libFuzzer builds only) run libFuzzer's
// own mutation and then, three times in four, rewrite the size field that the file's length
// decides, so that changed lengths reach the parsers too.

/// A vector file (and a saved DNA sequence): payload size S = length - payload offset P
/// (version 1), or S = length - 64 - 2 D - M (version 2: blocks, sizes table, block map), or
/// version 3's frame size C (bytes 64-71) = what follows it, so that mutations reach the frame.
inline void fix_vector_sizes(std::span<std::byte> file) {
    if (file.size() < detail::file::header_bytes) return;
    if (detail::load_le<std::uint16_t>(file.data() + 8) == 3) {
        if (file.size() >= detail::file::header_bytes + 8)
            detail::store_le<std::uint64_t>(file.data() + detail::file::header_bytes, file.size() - detail::file::header_bytes - 8);
        return;
    }
    if (detail::load_le<std::uint16_t>(file.data() + 8) >= 2) {
        const auto stored = detail::load_le<std::uint64_t>(file.data() + 32);
        const auto map = detail::load_le<std::uint64_t>(file.data() + 40);
        if (stored > file.size() || map > file.size()) return;  // no overflow below
        const std::uint64_t other = detail::file::header_bytes + 2 * stored + map;
        if (other <= file.size()) detail::store_le<std::uint64_t>(file.data() + 48, file.size() - other);
        return;
    }
    const auto payload_offset = detail::load_le<std::uint64_t>(file.data() + 40);
    if (payload_offset <= file.size()) detail::store_le<std::uint64_t>(file.data() + 48, file.size() - payload_offset);
}

/// A bitset file: payload size = length - (64 + 16 words + 4 stored blocks).
inline void fix_bitset_sizes(std::span<std::byte> file) {
    if (file.size() < detail::file::header_bytes) return;
    const auto blocks = detail::load_le<std::uint64_t>(file.data() + 24);
    const auto stored = detail::load_le<std::uint64_t>(file.data() + 40);
    if (blocks / 64 >= file.size() || stored > file.size()) return;  // no overflow below
    const std::uint64_t payload_offset = detail::file::header_bytes + 16 * ((blocks + 63) / 64) + 4 * stored;
    if (payload_offset <= file.size()) detail::store_le<std::uint64_t>(file.data() + 48, file.size() - payload_offset);
}

/// A packed DNA file: payload size = length - 64 - stored metadata size.
inline void fix_dna_sizes(std::span<std::byte> file) {
    if (file.size() < detail::file::header_bytes) return;
    const auto meta = detail::load_le<std::uint64_t>(file.data() + 32);
    const std::uint64_t available = file.size() - detail::file::header_bytes;
    if (meta <= available) detail::store_le<std::uint64_t>(file.data() + 48, available - meta);
}

}  // namespace bitplane::fuzz

#if defined(BITPLANE_LIBFUZZER)
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace bitplane::fuzz {

/// The structure-aware mutation of the load targets: libFuzzer's mutation, then, three times
/// in four, the size fields `fix` rewrites from the file's length (so most mutants get past
/// the size checks to the parsers, and a quarter still test the checks themselves).
inline std::size_t mutate_then_fix(std::uint8_t* data, std::size_t size, std::size_t max_size, unsigned int seed,
                                   void (*fix)(std::span<std::byte>)) {
    size = LLVMFuzzerMutate(data, size, max_size);
    if (seed % 4 != 0) fix(std::span<std::byte>(reinterpret_cast<std::byte*>(data), size));
    return size;
}

}  // namespace bitplane::fuzz
#endif
