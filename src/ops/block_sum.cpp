// The sum of an encoded block from its planes (ops/block_sum.hpp).
//
// Residual r[k] = sum_j 2^j P_j[k] over the block's planes (k a position of the block; a
// sparse block's planes list only the non-zero residuals, the others are 0). With pop_j the set
// bits of plane j and pos_j the sum of their block positions:
//
//   sum of residuals         R = sum_j 2^j pop_j
//   position-weighted sum    K = sum_k k r[k] = sum_j 2^j pos_j
//
//   none                 sum = R, plane 31 weighing -2^31 in int32 columns
//   frame of reference   sum = R + n base                       (base + r must not wrap)
//   delta                v[i] = first + r[0] + sum_{0<k<=i} (r[k] + min), so
//                        sum = n first + n R - K + min n (n - 1) / 2   (no v[i] may wrap)
//   zigzag               v = r / 2 (r even), -(r + 1) / 2 (r odd), so with z_j = pop(P_j AND P_0)
//                        sum = sum_{j>0} 2^(j-1) (pop_j - 2 z_j) - pop_0   (+ 2^32 pop_0 as uint32)
//
// All-one planes count L bits at positions 0..L-1 (dense) or the mask's positions (sparse).
// Counts come from the payloads where they lie (raw bits by the word_moments kernel, position
// and gap lists by their entries, runs by their ends), with a base of one complementing them;
// a plane that refers to another, a sparse delta block (positions through its mask) and a
// zigzag block (plane pairs) are rebuilt first.
//
// Wrapping: the identities hold for the values as integers. The encoder's delta blocks of
// sorted data never wrap, but values that cross 2^32 (or int32's range) can: the walk
// first + prefix is checked against the type's range from its bounds (exact when min >= 0:
// the walk rises), and a block that may wrap is decoded.
#include "ops/block_sum.hpp"

#include "codec/block_decoding.hpp"
#include "codec/byte_io.hpp"
#include "codec/plane_bits.hpp"
#include "codec/plane_gaps.hpp"
#include "ops/reduce_support.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>

namespace bitplane::detail {
namespace {

using codec::base_kind;
using codec::payload_kind;

std::atomic<bool> rebuilt_only{false};

struct moments {
    std::uint64_t pop = 0;        // set bits
    std::uint64_t positions = 0;  // sum of their positions
};

const std::uint8_t* as_u8(const void* p) noexcept {
    return static_cast<const std::uint8_t*>(p);
}

moments word_moments(const std::uint8_t* words, std::size_t stride, std::size_t count, bool positions,
                     const kernel_table& kernels) noexcept {
    std::uint64_t out[2];
    kernels.word_moments(words, stride, count, positions, out);
    return {out[0], out[1]};
}

// A raw payload: ceil(length / 8) bytes, bits past `length` clear.
moments raw_moments(const std::byte* payload, std::uint32_t length, bool positions, const kernel_table& kernels) {
    const std::uint32_t bytes = (length + 7) / 8;
    const std::uint32_t full = bytes / 4;
    moments m = word_moments(as_u8(payload), 4, full, positions, kernels);
    if (bytes % 4 != 0) {
        std::uint8_t tail[4] = {};
        std::memcpy(tail, payload + 4 * full, bytes % 4);
        const moments t = word_moments(tail, 4, 1, positions, kernels);
        m.pop += t.pop;
        m.positions += t.positions + std::uint64_t{32} * full * t.pop;
    }
    return m;
}

// A stored plane whose base is the zero or the one plane, from its payload.
moments payload_moments(const stored_plane& p, const std::byte* block, std::uint32_t length, bool positions,
                        const kernel_table& kernels) {
    const std::byte* payload = block + p.payload_offset;
    moments m;
    switch (p.payload) {
        case payload_kind::none: break;
        case payload_kind::raw: m = raw_moments(payload, length, positions, kernels); break;
        case payload_kind::positions:
            m.pop = p.items;
            if (positions) {
                for (std::uint32_t i = 0; i < p.items; ++i) m.positions += load_le<std::uint16_t>(payload + 2 * i);
            }
            break;
        case payload_kind::runs:
            for (std::uint32_t i = 0; i < p.items; ++i) {
                const std::uint64_t begin = load_le<std::uint16_t>(payload + 4 * i);
                const std::uint64_t end = load_le<std::uint16_t>(payload + 4 * i + 2);
                m.pop += end - begin;
                m.positions += (begin + end - 1) * (end - begin) / 2;  // begin + ... + end - 1
            }
            break;
        case payload_kind::gaps:
            gaps_payload::for_each_position(payload, p.items, [&m](std::uint32_t position) {
                ++m.pop;
                m.positions += position;
                return true;
            });
            break;
    }
    if (p.base == base_kind::one) {  // the payload flips bits of an all-one plane
        m.pop = length - m.pop;
        m.positions = std::uint64_t{length} * (length - 1) / 2 - m.positions;
    }
    return m;
}

// Per-plane counts of the planes in `nonzero`; other entries are not written.
struct plane_counts {
    std::uint32_t nonzero = 0;
    std::uint64_t pop[plane_count];
    std::uint64_t positions[plane_count];  // block positions (delta only)
    std::uint64_t with_zero[plane_count];  // pop(P_j AND P_0) (zigzag only)
};

bool refers(const parsed_block& h) noexcept {
    if (h.all_raw) return false;
    for (std::uint32_t i = 0; i < h.stored; ++i) {
        if (h.planes[i].base == base_kind::plane || h.planes[i].base == base_kind::complement) return true;
    }
    return false;
}

// From the payloads in place (dense blocks, or sparse ones without positions; no references).
void counts_in_place(const parsed_block& h, std::span<const std::byte> bytes, bool positions,
                     const kernel_table& kernels, plane_counts& c) {
    const std::uint32_t length = h.length;
    c.nonzero = h.live | h.ones;
    if (h.interleaved && h.stored != 0) {
        const std::uint8_t* payload = as_u8(bytes.data() + h.planes[0].payload_offset);
        if (!positions) {
            std::uint32_t counts[plane_count];
            kernels.interleaved_popcounts(payload, h.stored, counts, nullptr, 0);
            for (std::uint32_t i = 0; i < h.stored; ++i) c.pop[h.planes[i].index] = counts[i];
        } else {
            for (std::uint32_t i = 0; i < h.stored; ++i) {
                const moments m = word_moments(payload + 4 * i, 4 * std::size_t{h.stored}, plane_words, true, kernels);
                c.pop[h.planes[i].index] = m.pop;
                c.positions[h.planes[i].index] = m.positions;
            }
        }
    } else {
        for (std::uint32_t i = 0; i < h.stored; ++i) {
            const moments m = payload_moments(h.planes[i], bytes.data(), length, positions, kernels);
            c.pop[h.planes[i].index] = m.pop;
            c.positions[h.planes[i].index] = m.positions;
        }
    }
    for (std::uint32_t ones = h.ones; ones != 0; ones &= ones - 1) {
        const auto j = static_cast<std::size_t>(std::countr_zero(ones));
        c.pop[j] = length;
        c.positions[j] = std::uint64_t{length} * (length - 1) / 2;
    }
}

// Plane `p` of a validated block into `out`, its base plane (if any) already in `planes`: the
// decoder's rebuild_plane without the checks (the block was validated when it was sealed or
// loaded).
void rebuild_trusted(const stored_plane& p, const std::byte* block, std::uint32_t length, const block_planes& planes,
                     plane& out) noexcept {
    switch (p.base) {
        case base_kind::zero:  // words past plane_words_for(length) are never read (reduce_support.hpp)
            std::fill_n(out.data(), plane_words_for(length), 0u);
            break;
        case base_kind::one: out = ones_plane(length); break;
        case base_kind::plane: out = planes.planes[p.reference]; break;
        case base_kind::complement: out = complement(planes.planes[p.reference], length); break;
    }
    const std::byte* payload = block + p.payload_offset;
    switch (p.payload) {
        case payload_kind::none: break;
        case payload_kind::raw: {
            const std::uint32_t bytes = (length + 7) / 8;
            std::uint32_t w = 0;
            for (; 4 * w + 4 <= bytes; ++w) out[w] ^= load_le<std::uint32_t>(payload + 4 * w);
            for (std::uint32_t b = 4 * w; b < bytes; ++b) out[w] ^= static_cast<std::uint32_t>(payload[b]) << (8 * (b - 4 * w));
            break;
        }
        case payload_kind::positions:
            for (std::uint32_t i = 0; i < p.items; ++i) flip_bit(out, load_le<std::uint16_t>(payload + 2 * i));
            break;
        case payload_kind::runs:
            for (std::uint32_t i = 0; i < p.items; ++i) {
                flip_range(out, load_le<std::uint16_t>(payload + 4 * i), load_le<std::uint16_t>(payload + 4 * i + 2));
            }
            break;
        case payload_kind::gaps:
            gaps_payload::for_each_position(payload, p.items, [&out](std::uint32_t position) {
                flip_bit(out, position);
                return true;
            });
            break;
    }
}

// The block position of each bit of a sparse block's planes (the set bits of its mask in order),
// made on first use.
struct position_table {
    bool built = false;
    std::uint16_t at[block_values];

    // From the mask's payload where it lists the positions (a zero base): no bit scan.
    void build_from_list(const stored_plane& mask, const std::byte* block) noexcept {
        const std::byte* payload = block + mask.payload_offset;
        if (mask.payload == codec::payload_kind::positions) {
            for (std::uint32_t i = 0; i < mask.items; ++i) at[i] = load_le<std::uint16_t>(payload + 2 * i);
        } else {
            std::uint32_t t = 0;
            gaps_payload::for_each_position(payload, mask.items, [this, &t](std::uint32_t position) {
                at[t++] = static_cast<std::uint16_t>(position);
                return true;
            });
        }
        built = true;
    }

    void build(const plane& mask) noexcept {
        std::uint32_t t = 0;
        for (std::uint32_t w = 0; w < plane_words; ++w) {
            for (std::uint32_t x = mask[w]; x != 0; x &= x - 1) at[t++] = static_cast<std::uint16_t>(32 * w + std::countr_zero(x));
        }
        built = true;
    }
};

// Planes of at most this many set bits are walked bit by bit through the position table; denser
// ones are deposited onto the mask (pdep: slow on AMD before Zen 3) and counted by word_moments.
constexpr std::uint64_t walk_limit = 128;

// Set bits of the compact plane p (`words` words) and the sum of their block positions.
moments sparse_moments(const std::uint32_t* p, std::size_t words, const plane& mask, position_table& table,
                       plane& deposited, const kernel_table& kernels) noexcept {
    moments m;
    m.pop = kernels.popcount_words(p, words);
    if (m.pop <= walk_limit) {
        if (!table.built) table.build(mask);
        for (std::size_t w = 0; w < words; ++w) {
            for (std::uint32_t x = p[w]; x != 0; x &= x - 1) m.positions += table.at[32 * w + std::countr_zero(x)];
        }
        return m;
    }
    kernels.deposit_plane(p, mask.data(), deposited.data());
    return word_moments(as_u8(deposited.data()), 4, plane_words, true, kernels);
}

// From rebuilt planes: any block.
void counts_rebuilt(const parsed_block& h, std::span<const std::byte> bytes, bool positions, bool with_zero,
                    const kernel_table& kernels, block_sum_scratch& scratch, plane_counts& c) {
    // Counts alone: a copy or complement of another plane with no payload of its own (sign
    // extension, sentinel flags), that no plane refers to, is counted from its base, not rebuilt.
    std::uint32_t derived = 0;
    if (!h.interleaved && !positions && !with_zero) {
        std::uint32_t referenced = 0;
        for (std::uint32_t i = 0; i < h.stored; ++i) {
            if (h.planes[i].base == base_kind::plane || h.planes[i].base == base_kind::complement) {
                referenced |= 1u << h.planes[i].reference;
            }
        }
        for (std::uint32_t i = 0; i < h.stored; ++i) {
            const stored_plane& p = h.planes[i];
            if ((p.base == base_kind::plane || p.base == base_kind::complement) && p.payload == payload_kind::none &&
                ((referenced >> p.index) & 1u) == 0) {
                derived |= 1u << p.index;
            }
        }
    }
    if (h.interleaved) {
        rebuild_planes(h, bytes, 0, scratch.planes, scratch.mask);
    } else {
        if (h.sparse) rebuild_trusted(h.mask, bytes.data(), h.count, scratch.planes, scratch.mask);
        for (std::uint32_t i = 0; i < h.stored; ++i) {
            if (((derived >> h.planes[i].index) & 1u) != 0) continue;
            rebuild_trusted(h.planes[i], bytes.data(), h.length, scratch.planes, scratch.planes.planes[h.planes[i].index]);
        }
        if (h.ones != 0) {
            const plane ones = ones_plane(h.length);
            for (std::uint32_t rest = h.ones; rest != 0; rest &= rest - 1) scratch.planes.planes[std::countr_zero(rest)] = ones;
        }
    }
    c.nonzero = h.live | h.ones;
    const std::size_t words = plane_words_for(h.length);
    const std::uint32_t* listed[plane_count];
    std::uint32_t listed_count = 0;
    position_table table;
    if (positions && h.sparse && h.mask.base == base_kind::zero &&
        (h.mask.payload == payload_kind::positions || h.mask.payload == payload_kind::gaps)) {
        table.build_from_list(h.mask, bytes.data());
    }
    for (std::uint32_t rest = c.nonzero & ~derived; rest != 0; rest &= rest - 1) {
        const auto j = static_cast<std::size_t>(std::countr_zero(rest));
        const std::uint32_t* p = scratch.planes.planes[j].data();
        listed[listed_count++] = p;
        moments m;
        if (positions && h.sparse) {  // to block positions: through the mask
            m = sparse_moments(p, words, scratch.mask, table, scratch.deposited, kernels);
        } else if (positions) {
            m = word_moments(as_u8(p), 4, words, true, kernels);
        } else {
            m.pop = kernels.popcount_words(p, words);
        }
        c.pop[j] = m.pop;
        c.positions[j] = m.positions;
    }
    for (std::uint32_t i = 0; i < h.stored && derived != 0; ++i) {  // their bases are counted: none is derived
        const stored_plane& p = h.planes[i];
        if (((derived >> p.index) & 1u) == 0) continue;
        c.pop[p.index] = p.base == base_kind::plane ? c.pop[p.reference] : h.length - c.pop[p.reference];
        c.positions[p.index] = 0;
    }
    if (with_zero) {
        std::uint32_t out[plane_count] = {};
        if ((c.nonzero & 1u) != 0) {
            const std::uint32_t* zero = scratch.planes.planes[0].data();
            kernels.and_popcounts(&zero, 1, listed, listed_count, words, out);
        }
        std::uint32_t t = 0;
        for (std::uint32_t rest = c.nonzero; rest != 0; rest &= rest - 1, ++t) {
            c.with_zero[std::countr_zero(rest)] = out[t];
        }
    }
}

// sum_j 2^j x_j over the counted planes, plane 31 weighing -2^31 when `negative_top`.
int128 weighted(const plane_counts& c, const std::uint64_t* x, bool negative_top) noexcept {
    int128 s = 0;
    for (std::uint32_t rest = c.nonzero; rest != 0; rest &= rest - 1) {
        const auto j = static_cast<unsigned>(std::countr_zero(rest));
        const int128 t = static_cast<int128>(x[j]) << j;
        s += negative_top && j == 31 ? -t : t;
    }
    return s;
}

// The block's sum from its plane counts; false when the values may wrap (decode instead).
bool sum_from_counts(const parsed_block& h, const plane_counts& c, bool is_signed, int128& out) noexcept {
    const int128 n = h.count;
    const int128 lo = is_signed ? int128{INT32_MIN} : int128{0};
    const int128 hi = is_signed ? int128{INT32_MAX} : int128{UINT32_MAX};
    switch (h.value_transform) {
        case codec::transform::none: out = weighted(c, c.pop, is_signed); return true;
        case codec::transform::frame_of_reference: {
            const int128 base = is_signed ? int128{static_cast<std::int32_t>(h.for_base)} : int128{h.for_base};
            if (base + c.nonzero > hi) return false;  // a residual is at most its planes' mask
            out = weighted(c, c.pop, false) + base * n;
            return true;
        }
        case codec::transform::delta: {
            const int128 first = is_signed ? int128{static_cast<std::int32_t>(h.delta_first)} : int128{h.delta_first};
            const int128 min = static_cast<std::int32_t>(h.delta_min);  // mod 2^32: either reading holds
            const int128 r = weighted(c, c.pop, false);
            const int128 k = weighted(c, c.positions, false);
            // The walk first + r[0] + sum (r[k] + min) stays within [lo, hi]: with min >= 0 it rises
            // to its last value; with min < 0 it stays below first + R and above first + (n-1) min.
            const bool inside = min >= 0 ? first + r + (n - 1) * min <= hi
                                         : first + r <= hi && first + (n - 1) * min >= lo;
            if (!inside) return false;
            out = n * first + n * r - k + min * (n * (n - 1) / 2);
            return true;
        }
        case codec::transform::zigzag: {
            const std::uint64_t odd = (c.nonzero & 1u) != 0 ? c.pop[0] : 0;
            int128 s = -static_cast<int128>(odd);
            for (std::uint32_t rest = c.nonzero & ~1u; rest != 0; rest &= rest - 1) {
                const auto j = static_cast<unsigned>(std::countr_zero(rest));
                s += (static_cast<int128>(c.pop[j]) - 2 * static_cast<int128>(c.with_zero[j])) << (j - 1);
            }
            out = is_signed ? s : s + (static_cast<int128>(odd) << 32);
            return true;
        }
    }
    return false;
}

int128 decoded_sum(const parsed_block& h, std::span<const std::byte> bytes, bool is_signed) {
    alignas(64) std::uint32_t values[block_values];
    decode_parsed(h, bytes, 0, std::span<std::uint32_t>(values, h.count));
    std::int64_t s = 0;  // 2048 values below 2^32 fit either way
    if (is_signed) {
        for (std::uint32_t i = 0; i < h.count; ++i) s += static_cast<std::int32_t>(values[i]);
    } else {
        for (std::uint32_t i = 0; i < h.count; ++i) s += values[i];
    }
    return s;
}

}  // namespace

uint128 encoded_block_sum(const parsed_block& header, std::span<const std::byte> bytes, bool is_signed,
                          const kernel_table& kernels, block_sum_scratch& scratch) {
    const codec::transform t = header.value_transform;
    const bool positions = t == codec::transform::delta;
    const bool zigzag = t == codec::transform::zigzag;
    plane_counts c;
    if (zigzag || (positions && header.sparse) || refers(header) || rebuilt_only.load(std::memory_order_relaxed)) {
        counts_rebuilt(header, bytes, positions, zigzag, kernels, scratch, c);
    } else {
        counts_in_place(header, bytes, positions, kernels, c);
    }
    int128 s = 0;
    if (!sum_from_counts(header, c, is_signed, s)) s = decoded_sum(header, bytes, is_signed);
    return static_cast<uint128>(s);
}

std::uint64_t encoded_block_popcount(const parsed_block& header, std::span<const std::byte> bytes,
                                    const kernel_table& kernels, block_sum_scratch& scratch) {
    plane_counts c;
    if (refers(header) || rebuilt_only.load(std::memory_order_relaxed)) {
        counts_rebuilt(header, bytes, false, false, kernels, scratch, c);
    } else {
        counts_in_place(header, bytes, false, kernels, c);
    }
    std::uint64_t n = 0;
    for (std::uint32_t rest = c.nonzero; rest != 0; rest &= rest - 1) n += c.pop[std::countr_zero(rest)];
    return n;
}

void force_rebuilt_plane_sums(bool on) noexcept {
    rebuilt_only.store(on, std::memory_order_relaxed);
}

}  // namespace bitplane::detail
