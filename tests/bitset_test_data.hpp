// Shared data of the bitset tests: the shapes of sets (random densities 0.01% .. 99.99%, runs,
// a different shape per block, all-zero, all-one), the sizes around block and summary-word
// edges, references as std::vector<bool>, and the bytes of a bitset file's header (reading and
// writing fields, resealing the checksum after an edit). One copy, so that the file, view,
// edit and algebra tests cover the same sets.
#pragma once

#include "test_support.hpp"

#include <bitplane/bitset.hpp>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace bitplane_test {

using ref_bits = std::vector<bool>;
using file_bytes = std::vector<std::byte>;

// ---- shapes of sets ---------------------------------------------------------------------------

struct set_shape {
    std::string name;
    double density;  // for random shapes; -1: runs, -2: mixed blocks, 0: all-zero, 1: all-one
};

inline std::vector<set_shape> set_shapes() {
    return {{"zero", 0.0},     {"d0.01%", 0.0001}, {"d0.1%", 0.001}, {"d1%", 0.01},        {"d10%", 0.1},
            {"d50%", 0.5},     {"d90%", 0.9},      {"d99%", 0.99},   {"d99.99%", 0.9999}, {"one", 1.0},
            {"runs", -1.0},    {"mixed", -2.0}};
}

// A seed salt from a shape's density; through int64_t, as the negative markers do not fit an
// unsigned type (casting them straight is undefined: clang's UBSan stops there).
inline std::uint64_t density_salt(double density) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(density * 1e6));
}

inline ref_bits make_bits(const set_shape& shape, std::size_t n, std::uint64_t seed) {
    constexpr std::size_t block = bitplane::block_values;
    std::mt19937_64 rng(seed);
    ref_bits bits(n, false);
    auto fill_random = [&](std::size_t begin, std::size_t end, double d) {
        if (d <= 0) return;
        if (d >= 1) {
            for (std::size_t i = begin; i < end; ++i) bits[i] = true;
            return;
        }
        std::bernoulli_distribution coin(d);
        for (std::size_t i = begin; i < end; ++i) bits[i] = coin(rng);
    };
    if (shape.density == -1.0) {  // runs of 1 .. 3000 bits, alternating
        bool value = rng() & 1;
        for (std::size_t i = 0; i < n;) {
            const std::size_t len = 1 + rng() % 3000;
            for (const std::size_t e = std::min(n, i + len); i < e; ++i) bits[i] = value;
            value = !value;
        }
    } else if (shape.density == -2.0) {  // each block a different shape
        const double choices[] = {0.0, 0.0001, 0.003, 0.05, 0.5, 0.97, 0.9995, 1.0, -1.0};
        for (std::size_t b = 0; b * block < n; ++b) {
            const std::size_t begin = b * block, end = std::min(n, begin + block);
            const double d = choices[rng() % std::size(choices)];
            if (d == -1.0) {
                const std::size_t from = begin + rng() % (end - begin), to = from + rng() % (end - from + 1);
                for (std::size_t i = from; i < to; ++i) bits[i] = true;
            } else {
                fill_random(begin, end, d);
            }
        }
    } else {
        fill_random(0, n, shape.density);
    }
    return bits;
}

inline std::vector<std::uint64_t> positions_of(const ref_bits& bits) {
    std::vector<std::uint64_t> out;
    for (std::size_t i = 0; i < bits.size(); ++i)
        if (bits[i]) out.push_back(i);
    return out;
}

inline bitplane::bitset make_set(const ref_bits& bits) {
    return bitplane::bitset::from_positions(positions_of(bits), bits.size());
}

/// Sizes around a block's edges, a partial last block, and (outside quick mode) more than one
/// summary word of blocks.
inline std::vector<std::size_t> set_sizes() {
    if (quick_mode()) return {0, 1, 2047, 2048, 2049, 3 * 2048 + 5, 70 * 2048 + 17};
    return {0, 1, 2, 2047, 2048, 2049, 3 * 2048 + 5, 131 * 2048 + 17};
}

// ---- the bytes of a bitset file (docs/format.md section 5) ------------------------------------

constexpr std::size_t bitset_header_size = 64;
constexpr std::size_t bitset_checksum_at = 56;

template <class U>
U field_at(const file_bytes& f, std::size_t at) {
    U v;
    std::memcpy(&v, f.data() + at, sizeof(U));
    return v;
}

template <class U>
void put_field(file_bytes& f, std::size_t at, U v) {
    std::memcpy(f.data() + at, &v, sizeof(U));
}

/// The checksum a bitset file's header carries: XXH3-64 of the header before the checksum
/// field and of everything after the header.
inline std::uint64_t bitset_file_checksum(std::span<const std::byte> f) {
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    XXH3_64bits_update(&state, f.data(), bitset_checksum_at);
    XXH3_64bits_update(&state, f.data() + bitset_header_size, f.size() - bitset_header_size);
    return XXH3_64bits_digest(&state);
}

/// Rewrites the checksum after an edit, so that a test reaches the rule it breaks.
inline void reseal_bitset_file(file_bytes& f) {
    const std::uint64_t sum = bitset_file_checksum(f);
    std::memcpy(f.data() + bitset_checksum_at, &sum, 8);
}

}  // namespace bitplane_test
