// The portable whole-block kernels (the reference for the AVX2 ones) and the choice of table.
#include "bitset/bitset_kernels.hpp"

#include "bitset/bitset_words.hpp"
#include "simd/kernels.hpp"

#include <bit>
#include <cstring>

namespace bitplane::detail {

namespace {

constexpr std::size_t block_words64 = 32;

inline std::uint64_t load64(const void* p, std::size_t i) noexcept {
    std::uint64_t w;
    std::memcpy(&w, static_cast<const unsigned char*>(p) + 8 * i, 8);
    return w;
}

inline void store64(void* p, std::size_t i, std::uint64_t w) noexcept {
    std::memcpy(static_cast<unsigned char*>(p) + 8 * i, &w, 8);
}

struct op_and { static std::uint64_t apply(std::uint64_t a, std::uint64_t b) noexcept { return a & b; } };
struct op_or { static std::uint64_t apply(std::uint64_t a, std::uint64_t b) noexcept { return a | b; } };
struct op_xor { static std::uint64_t apply(std::uint64_t a, std::uint64_t b) noexcept { return a ^ b; } };
struct op_andnot { static std::uint64_t apply(std::uint64_t a, std::uint64_t b) noexcept { return a & ~b; } };

template <class Op>
block_stats combine(const void* a, const void* b, void* out) noexcept {
    block_stats s;
    std::uint64_t carry = 0;
    for (std::size_t i = 0; i < block_words64; ++i) {
        const std::uint64_t r = Op::apply(load64(a, i), load64(b, i));
        store64(out, i, r);
        s.count += popcount64(r);
        s.transitions += popcount64(r ^ ((r << 1) | carry));
        carry = r >> 63;
    }
    return s;
}

block_stats not_block(const void* a, void* out) noexcept {
    block_stats s;
    std::uint64_t carry = 0;
    for (std::size_t i = 0; i < block_words64; ++i) {
        const std::uint64_t r = ~load64(a, i);
        store64(out, i, r);
        s.count += popcount64(r);
        s.transitions += popcount64(r ^ ((r << 1) | carry));
        carry = r >> 63;
    }
    return s;
}

block_stats stats(const void* a) noexcept {
    block_stats s;
    std::uint64_t carry = 0;
    for (std::size_t i = 0; i < block_words64; ++i) {
        const std::uint64_t r = load64(a, i);
        s.count += popcount64(r);
        s.transitions += popcount64(r ^ ((r << 1) | carry));
        carry = r >> 63;
    }
    return s;
}

block_stats stats_transitions(const void* a, void* t) noexcept {
    block_stats s;
    std::uint64_t carry = 0;
    for (std::size_t i = 0; i < block_words64; ++i) {
        const std::uint64_t r = load64(a, i);
        const std::uint64_t bounds = r ^ ((r << 1) | carry);
        store64(t, i, bounds);
        s.count += popcount64(r);
        s.transitions += popcount64(bounds);
        carry = r >> 63;
    }
    return s;
}

std::uint32_t and_count(const void* a, const void* b) noexcept {
    std::uint32_t n = 0;
    for (std::size_t i = 0; i < block_words64; ++i) n += popcount64(load64(a, i) & load64(b, i));
    return n;
}


std::uint32_t decode_gaps(const std::byte* payload, std::uint32_t bytes, std::uint16_t* out) noexcept {
    std::uint32_t n = 0, next = 0;
    for (std::uint32_t i = 0; i < bytes;) {
        std::uint32_t gap = static_cast<std::uint32_t>(payload[i++]);
        if (gap == 255) {
            std::memcpy(&out[n], payload + i, 2);  // u16 little-endian (the library is little-endian only)
            gap = out[n];
            i += 2;
        }
        next += gap;
        out[n++] = static_cast<std::uint16_t>(next);
        ++next;
    }
    return n;
}

// The positions of a that are (Keep) or are not in b, by a branch-free merge.
template <bool Keep>
std::uint32_t filter(const std::uint16_t* a, std::uint32_t n, const std::uint16_t* b, std::uint32_t m,
                     std::uint16_t* out) noexcept {
    std::uint32_t i = 0, j = 0, k = 0;
    while (i < n && j < m) {
        const std::uint16_t x = a[i], y = b[j];
        out[k] = x;
        k += Keep ? (x == y) : (x < y);
        i += x <= y;
        j += y <= x;
    }
    if (!Keep)
        while (i < n) out[k++] = a[i++];
    return k;
}

std::uint32_t extract_positions(const void* block, std::uint16_t* out) noexcept {
    std::uint32_t n = 0;
    for (std::uint32_t w = 0; w < block_words64; ++w) {
        for (std::uint64_t word = load64(block, w); word != 0; word &= word - 1)
            out[n++] = static_cast<std::uint16_t>(64 * w + static_cast<std::uint32_t>(std::countr_zero(word)));
    }
    return n;
}

std::uint64_t and_count_span(const void* a, const void* b, std::size_t blocks) noexcept {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < blocks * block_words64; ++i) n += popcount64(load64(a, i) & load64(b, i));
    return n;
}

template <class Op>
void stretch(const void* a, const void* b, void* out, std::size_t blocks, block_stats* stats) noexcept {
    constexpr std::size_t bytes = block_words64 * 8;
    for (std::size_t i = 0; i < blocks; ++i)
        stats[i] = combine<Op>(static_cast<const unsigned char*>(a) + bytes * i, static_cast<const unsigned char*>(b) + bytes * i,
                               static_cast<unsigned char*>(out) + bytes * i);
}

template <class T>
void widen_positions(const void* in, std::uint32_t n, T base, T* out) noexcept {
    const auto* bytes = static_cast<const unsigned char*>(in);
    for (std::uint32_t k = 0; k < n; ++k) {
        std::uint16_t v;
        std::memcpy(&v, bytes + 2 * k, 2);  // little-endian (the library is little-endian only)
        out[k] = base + v;
    }
}

template <class T>
void ramp(T start, std::uint32_t n, T* out) noexcept {
    for (std::uint32_t k = 0; k < n; ++k) out[k] = start + k;
}

std::uint32_t extract_bits(const std::byte* bytes, std::uint32_t n, std::uint32_t first, std::uint16_t* out) noexcept {
    std::uint32_t k = 0;
    for (std::uint32_t i = 0; i < n; i += 8) {
        std::uint64_t word = 0;
        std::memcpy(&word, bytes + i, n - i < 8 ? n - i : 8);
        for (; word != 0; word &= word - 1)
            out[k++] = static_cast<std::uint16_t>(first + 8 * i + static_cast<std::uint32_t>(std::countr_zero(word)));
    }
    return k;
}

constexpr bitset_kernel_table portable_table{.path = simd_path::scalar,
                                             .and_blocks = combine<op_and>,
                                             .or_blocks = combine<op_or>,
                                             .xor_blocks = combine<op_xor>,
                                             .andnot_blocks = combine<op_andnot>,
                                             .not_block = not_block,
                                             .stats = stats,
                                             .stats_transitions = stats_transitions,
                                             .and_count = and_count,
                                             .union_positions = merge_positions<false>,
                                             .xor_positions = merge_positions<true>,
                                             .and_positions = filter<true>,
                                             .andnot_positions = filter<false>,
                                             .extract_positions = extract_positions,
                                             .extract_sparse = extract_positions,
                                             .decode_gaps = decode_gaps,
                                             .and_count_span = and_count_span,
                                             .and_stretch = stretch<op_and>,
                                             .or_stretch = stretch<op_or>,
                                             .xor_stretch = stretch<op_xor>,
                                             .andnot_stretch = stretch<op_andnot>,
                                             .widen_positions64 = widen_positions<std::uint64_t>,
                                             .widen_positions32 = widen_positions<std::uint32_t>,
                                             .ramp64 = ramp<std::uint64_t>,
                                             .ramp32 = ramp<std::uint32_t>,
                                             .extract_bits = extract_bits};

}  // namespace

const bitset_kernel_table& portable_bitset_kernels() noexcept { return portable_table; }

const bitset_kernel_table& bitset_kernels() {
#if defined(BITPLANE_X86)
    const simd_path path = active_kernels().path;
    if (path >= simd_path::avx512) return avx512_bitset_kernels();
    if (path >= simd_path::avx2) return avx2_bitset_kernels();
#endif
    return portable_table;
}

}  // namespace bitplane::detail
