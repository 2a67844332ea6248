// libFuzzer target: bitplane::load on arbitrary bytes, as uint32 and as int32 vectors.
// load must either throw format_error or return a vector that decodes, reads element by
// element the same way, and survives save + load unchanged (at the default zstd level and
// without the zstd stage). The input's checksum field is rewritten first (fuzz_support.hpp),
// so mutations reach the tables and the blocks: the version 2 sizes table and block map
// (seeds from make_corpus.cpp, runs of repeated blocks among them), the version 3 zstd frame
// (seeds of make_corpus.cpp at the default level and at 1 and 19), the version 4 values form
// (checked-in seeds seed_v4_*: a dictionary and a frame of reference) and the version 1
// offsets table (checked-in seeds in tests/fuzz/corpus/).
#include "fuzz_support.hpp"

#include <bitplane/bitplane.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

namespace {

template <class T>
void check(std::span<const std::byte> bytes) {
    bitplane::vector<T> v;
    try {
        v = bitplane::load<T>(bytes);
    } catch (const bitplane::format_error&) {
        return;
    }
    v.validate();  // whatever load accepts, validate accepts too
    const std::vector<T> values = v.to_std_vector();
    for (std::size_t i = 0; i < values.size(); i += 1 + values.size() / 64)
        if (v[i] != values[i]) std::abort();
    std::vector<std::byte> again;
    bitplane::save(v, again);
    if (bitplane::load<T>(again).to_std_vector() != values) std::abort();
    again.clear();
    bitplane::save(v, again, bitplane::save_options{.zstd_level = 0});
    if (bitplane::load<T>(again).to_std_vector() != values) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::vector<std::byte> bytes =
        bitplane::fuzz::with_checksum(std::span(reinterpret_cast<const std::byte*>(data), size));
    check<std::uint32_t>(bytes);
    check<std::int32_t>(bytes);
    return 0;
}

#if defined(BITPLANE_LIBFUZZER)
// Structure-aware mutation (fuzz_support.hpp): libFuzzer's mutation, then the size field fixed.
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
    return bitplane::fuzz::mutate_then_fix(data, size, max_size, seed, bitplane::fuzz::fix_vector_sizes);
}
#endif
