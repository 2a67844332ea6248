// Bit-level helpers on one working plane (2048 bits as 64 little-endian 32-bit words, so
// byte i bit k is plane bit 8i + k, the same order as a raw payload). Host and device code
// (host_device.hpp): the encoder's shared part builds on them.
#pragma once

#include <bitplane/block.hpp>

#include "host_device.hpp"

#include <cstddef>
#include <cstdint>

namespace bitplane::detail {

inline constexpr std::uint32_t block_bits = static_cast<std::uint32_t>(block_values);

/// Bytes a raw plane of `len` bits takes.
BITPLANE_HOST_DEVICE constexpr std::uint32_t raw_plane_bytes(std::uint32_t len) noexcept { return (len + 7) / 8; }

BITPLANE_HOST_DEVICE inline bool test_bit(const plane& p, std::uint32_t bit) noexcept {
    return (p[bit >> 5] >> (bit & 31)) & 1u;
}

BITPLANE_HOST_DEVICE inline void flip_bit(plane& p, std::uint32_t bit) noexcept { p[bit >> 5] ^= 1u << (bit & 31); }

BITPLANE_HOST_DEVICE inline std::uint32_t popcount(const plane& p) noexcept {
    std::uint32_t total = 0;
    for (std::size_t w = 0; w < plane_words; ++w) total += popcount32(p[w]);
    return total;
}

/// Flips bits [begin, end) (begin <= end <= 2048).
BITPLANE_HOST_DEVICE inline void flip_range(plane& p, std::uint32_t begin, std::uint32_t end) noexcept {
    if (begin >= end) return;
    std::uint32_t first = begin >> 5;
    const std::uint32_t last = (end - 1) >> 5;
    const std::uint32_t head = ~0u << (begin & 31);
    const std::uint32_t tail = ~0u >> (31 - ((end - 1) & 31));
    if (first == last) {
        p[first] ^= head & tail;
        return;
    }
    p[first++] ^= head;
    for (; first < last; ++first) p[first] = ~p[first];
    p[last] ^= tail;
}

/// Clears every bit at or above `len`.
BITPLANE_HOST_DEVICE inline void clear_from(plane& p, std::uint32_t len) noexcept {
    if (len >= block_bits) return;
    std::uint32_t word = len >> 5;
    if (len & 31) p[word++] &= ~(~0u << (len & 31));
    for (; word < plane_words; ++word) p[word] = 0;
}

/// The plane with bits [0, len) set.
BITPLANE_HOST_DEVICE inline plane ones_plane(std::uint32_t len) noexcept {
    plane p{};
    flip_range(p, 0, len);
    return p;
}

/// ~p restricted to [0, len).
BITPLANE_HOST_DEVICE inline plane complement(const plane& p, std::uint32_t len) noexcept {
    plane out;
    for (std::size_t w = 0; w < plane_words; ++w) out[w] = ~p[w];
    clear_from(out, len);
    return out;
}

BITPLANE_HOST_DEVICE inline plane xor_planes(const plane& a, const plane& b) noexcept {
    plane out;
    for (std::size_t w = 0; w < plane_words; ++w) out[w] = a[w] ^ b[w];
    return out;
}

/// t = p XOR (p shifted up by one bit across the whole plane): bit i of t is set where p
/// changes between i-1 and i (with p[-1] = 0). popcount(t_a XOR t_b) is then the number of
/// transitions of a XOR b, which gives its run count without building it.
/// (Each word reads its predecessor instead of carrying a bit along, so that the loop has no
/// dependency from one word to the next and the compiler vectorizes it.)
BITPLANE_HOST_DEVICE inline plane transitions(const plane& p) noexcept {
    plane t;
    t[0] = p[0] ^ (p[0] << 1);
    for (std::size_t w = 1; w < plane_words; ++w) t[w] = p[w] ^ ((p[w] << 1) | (p[w - 1] >> 31));
    return t;
}

/// Runs of set bits of a plane whose transitions count is `transitions_count` and whose
/// last bit (bit len-1) is `last_bit`: every run contributes a start and an end
/// transition, except a run reaching the end of the plane.
BITPLANE_HOST_DEVICE constexpr std::uint32_t runs_from_transitions(std::uint32_t transitions_count, bool last_bit) noexcept {
    return (transitions_count + (last_bit ? 1u : 0u)) / 2;
}

/// Calls f(bit) for each set bit in ascending order.
template <class F>
BITPLANE_HOST_DEVICE inline void for_each_set_bit(const plane& p, F&& f) {
    for (std::uint32_t w = 0; w < plane_words; ++w) {
        std::uint32_t word = p[w];
        while (word) {
            f(w * 32 + countr_zero32(word));
            word &= word - 1;
        }
    }
}

/// Calls f(begin, end) for each maximal run of set bits in ascending order.
template <class F>
BITPLANE_HOST_DEVICE inline void for_each_run(const plane& p, F&& f) {
    std::uint32_t begin = 0;
    bool inside = false;
    for (std::uint32_t w = 0; w < plane_words; ++w) {
        std::uint32_t word = p[w];
        std::uint32_t base = w * 32;
        std::uint32_t consumed = 0;  // bits of this word already looked at
        while (consumed < 32) {
            if (!inside) {
                if (word == 0) break;
                const std::uint32_t skip = countr_zero32(word);
                begin = base + consumed + skip;
                consumed += skip;
                word = consumed < 32 ? word >> skip : 0;
                inside = true;
            } else {
                const std::uint32_t ones = countr_one32(word);
                consumed += ones;
                if (consumed >= 32) break;  // the run goes on into the next word
                word >>= ones;
                f(begin, base + consumed);
                inside = false;
            }
        }
    }
    if (inside) f(begin, block_bits);
}

}  // namespace bitplane::detail
