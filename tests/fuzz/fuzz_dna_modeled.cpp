// libFuzzer target: the modeled DNA payload decoder (src/dna/base_model.cpp, read_modeled), on
// its own. In a packed file the coded bytes sit behind the header, the record table and the
// checksum; here they are the input. Input: bytes 0-1 the letter count (little-endian, mod
// 8192: four blocks) and, in bit 13, the coder (set: v1, the files written before flag bit 4;
// clear: v2, what pack writes), then the payload. read_modeled must throw format_error or return exactly
// that many letter codes (sequence::from_codes accepts them), which the modeled coder writes
// and reads back the same (checked on one input in eight). Under libFuzzer, a payload that
// announces more than 512 coded plain bases is skipped (fuzz_support.hpp says why).
#include "fuzz_support.hpp"

#include "dna/base_model.hpp"

#include <bitplane/bitplane.hpp>
#include <bitplane/dna/dna.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const std::uint64_t letters = (data[0] | (data[1] << 8)) % 8192;
    const auto coder = (data[1] & 0x20) != 0 ? bitplane::dna::detail::modeled_coder::v1 : bitplane::dna::detail::modeled_coder::v2;
    const std::span<const std::byte> payload(reinterpret_cast<const std::byte*>(data + 2), size - 2);
#if defined(BITPLANE_LIBFUZZER)
    if (bitplane::fuzz::modeled_plain_bases(payload) > bitplane::fuzz::max_fuzzed_coded_bases) return 0;
#endif
    bitplane::vector<std::uint32_t> codes;
    try {
        codes = bitplane::dna::detail::read_modeled(payload, 64, letters, coder);
    } catch (const bitplane::format_error&) {
        return 0;
    }
    if (codes.size() != letters) std::abort();
    // Every code a letter: an argument_error here escapes and is a finding.
    const bitplane::dna::sequence s = bitplane::dna::sequence::from_codes(codes);
    // The round trip costs two more model runs: checked on one decoded input in eight, chosen
    // by the input's last byte.
    if ((data[size - 1] & 7) != 0) return 0;
    std::vector<std::byte> again;
    bitplane::dna::detail::write_modeled(s, again, coder);
    if (!(bitplane::dna::detail::read_modeled(again, 0, letters, coder) == codes)) std::abort();
    return 0;
}
