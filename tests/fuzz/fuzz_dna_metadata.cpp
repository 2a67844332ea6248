// libFuzzer target: the record table of a packed DNA file (its metadata: headers, record
// lengths, line runs), stored deflated or raw. In load_dna the deflated table is an opaque
// zlib stream that mutations only break; here the fuzzer writes the inflated table and the
// harness deflates it, so mutations reach the record parser behind the inflater.
//
// Input: byte 0 flags (bit 0 CRLF, bit 1 final newline, bit 2 store the table deflated, bit 3
// modeled payload), bytes 1-2 the letter count (mod 4096, little-endian), bytes 3-4 the record
// count, then the table as the packer writes it before deflating. The harness packs a record
// of that many letters for the payload, puts the table and the header fields around it and
// fixes the checksum (fuzz_support.hpp); dna::unpack must then throw format_error or return a
// file whose text parses back to it and which repacks to an equal one.
#include "fuzz_support.hpp"

#include "dna/gzip.hpp"

#include <bitplane/bitplane.hpp>
#include <bitplane/dna/dna.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace file = bitplane::detail::file;
using bitplane::detail::load_le;
using bitplane::detail::store_le;

// A packed file of one record of `letters` letters (bases, N runs and soft-masked stretches).
std::vector<std::byte> pack_letters(std::size_t letters, bool modeled) {
    std::string text = ">r\n";
    static constexpr std::string_view pattern = "ACGTTGCAacgtNNNNACCGGTTAAGCTTGCANNNNNNNNRYACGGT";
    for (std::size_t i = 0; i < letters; ++i) text += pattern[(i * 7 + i / 64) % pattern.size()];
    std::vector<std::byte> out;
    bitplane::dna::pack(bitplane::dna::fasta::parse(text), out,
                        modeled ? bitplane::dna::pack_mode::modeled : bitplane::dna::pack_mode::planes);
    return out;
}

// The same, packed once per letter count and mode (packing dominated each run otherwise).
const std::vector<std::byte>& packed_letters(std::size_t letters, bool modeled) {
    static std::vector<std::vector<std::byte>> cache(2 * 4096);
    std::vector<std::byte>& packed = cache[2 * letters + (modeled ? 1 : 0)];
    if (packed.empty()) packed = pack_letters(letters, modeled);
    return packed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 5) return 0;
    const std::uint8_t flags = data[0];
    const std::size_t letters = (data[1] | (data[2] << 8)) % 4096;
    const std::uint64_t records = data[3] | (data[4] << 8);
    const std::string_view table(reinterpret_cast<const char*>(data + 5), size - 5);
    const bool deflated = (flags & 4) != 0;
    const std::string stored = deflated ? bitplane::dna::detail::deflate_bytes(table, 6) : std::string(table);

    const std::vector<std::byte>& model = packed_letters(letters, (flags & 8) != 0);
    const auto payload_bytes = load_le<std::uint64_t>(model.data() + 48);
    std::vector<std::byte> bytes(model.begin(), model.begin() + file::header_bytes);
    bytes[11] = static_cast<std::byte>((flags & 3) | ((flags & 8) != 0 ? 0x14 : 0) | (deflated ? 0x08 : 0));  // 0x14: modeled, coder 2 (pack's)
    store_le<std::uint64_t>(bytes.data() + 24, records);
    store_le<std::uint64_t>(bytes.data() + 32, stored.size());
    store_le<std::uint64_t>(bytes.data() + 40, table.size());
    const auto* s = reinterpret_cast<const std::byte*>(stored.data());
    bytes.insert(bytes.end(), s, s + stored.size());
    bytes.insert(bytes.end(), model.end() - static_cast<std::ptrdiff_t>(payload_bytes), model.end());
    bytes = bitplane::fuzz::with_checksum(bytes);

    bitplane::dna::fasta f;
    try {
        f = bitplane::dna::unpack(bytes);
    } catch (const bitplane::format_error&) {
        return 0;
    }
    if (f.size() != records || f.letters().size() != letters) std::abort();
    if (!bitplane::fuzz::same_as_its_text(f)) std::abort();
    std::vector<std::byte> again;
    bitplane::dna::pack(f, again);
    if (!(bitplane::dna::unpack(again) == f)) std::abort();
    return 0;
}
