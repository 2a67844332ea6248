// Blocks of plain bases with a few special letters (special_letters.hpp).
#include "dna/special_letters.hpp"

#include "dna/dna_kernels.hpp"

#include "codec/block_format.hpp"
#include "codec/byte_io.hpp"
#include "codec/plane_bits.hpp"
#include "codec/thresholds.hpp"
#include "simd/kernels.hpp"

#include <bitplane/codec.hpp>

#include <array>
#include <bit>
#include <cstring>

namespace bitplane::dna::detail {

namespace {

// The special letters of the words of `window` marked in `words` (bit w: word w of some plane
// 2-5 may be non-zero), in ascending position. Planes outside `nonzero` are zero (code_window),
// so all six are read without branches.
bool collect_letters(const code_window& window, std::uint64_t words, std::size_t limit, std::vector<special_letter>& out) {
    out.clear();
    const auto& p = window.planes.planes;
    for (; words != 0; words &= words - 1) {
        const auto w = static_cast<std::size_t>(std::countr_zero(words));
        for (std::uint32_t bits = p[2][w] | p[3][w] | p[4][w] | p[5][w]; bits != 0; bits &= bits - 1) {
            if (out.size() == limit) return false;
            const auto bit = static_cast<unsigned>(std::countr_zero(bits));
            unsigned c = 0;
            for (unsigned j = 0; j < code_planes; ++j) c |= ((p[j][w] >> bit) & 1u) << j;
            out.push_back({static_cast<std::uint16_t>(32 * w + bit), static_cast<code>(c)});
        }
    }
    return true;
}

}  // namespace

bool find_special_letters(const code_window& window, std::size_t limit, std::vector<special_letter>& out) {
    std::uint64_t words = 0;
    if ((window.nonzero & ~std::uint32_t{base_mask}) != 0) {
        const auto& p = window.planes.planes;
        alignas(64) std::uint32_t any[plane_words];
        for (std::size_t w = 0; w < plane_words; ++w) {
            any[w] = p[2][w] | p[3][w] | p[4][w] | p[5][w];
            words |= static_cast<std::uint64_t>(any[w] != 0) << w;
        }
        // Blocks of N or lower case: counted, not collected up to the limit.
        if (bitplane::detail::active_kernels().popcount_words(any, plane_words) > limit) {
            out.clear();
            return false;
        }
    }
    return collect_letters(window, words, limit, out);
}

namespace {

namespace bd = bitplane::detail;

// XORs the positions, gaps or runs payload of a stored higher plane onto `bits` (its base,
// already there), marking the words it touches in `words`. Returns false when the list holds
// more than `limit` positions (N or lower-case stretches): on the zero base, more special
// letters than that.
bool apply_list(const bd::stored_plane& sp, const std::byte* payload, std::size_t limit, plane& bits, std::uint64_t& words) {
    auto flip = [&](std::uint32_t p) {
        bits[p / 32] ^= 1u << (p % 32);
        words |= std::uint64_t{1} << (p / 32);
    };
    switch (sp.payload) {
        case codec::payload_kind::positions:
            if (sp.items > limit) return false;
            for (std::size_t i = 0; i < sp.items; ++i) flip(bd::load_le<std::uint16_t>(payload + 2 * i));
            return true;
        case codec::payload_kind::runs: {
            std::size_t set = 0;
            for (std::size_t i = 0; i < sp.items; ++i) {
                const std::uint32_t begin = bd::load_le<std::uint16_t>(payload + 4 * i);
                const std::uint32_t end = bd::load_le<std::uint16_t>(payload + 4 * i + 2);
                set += end - begin;
                if (set > limit) return false;
                bd::flip_range(bits, begin, end);
                for (std::uint32_t w = begin / 32; w <= (end - 1) / 32; ++w) words |= std::uint64_t{1} << w;
            }
            return true;
        }
        default: {  // gaps: one byte per position (a gap), 255 escaping to a u16 gap
            std::size_t set = 0;
            std::uint32_t next = 0;
            for (std::uint32_t i = 0; i < sp.payload_bytes;) {
                std::uint32_t gap = static_cast<std::uint32_t>(payload[i++]);
                if (gap == 255) {
                    gap = bd::load_le<std::uint16_t>(payload + i);
                    i += 2;
                }
                if (++set > limit) return false;
                flip(next + gap);
                next += gap + 1;
            }
            return true;
        }
    }
}

}  // namespace

special_read read_special_block(const bitplane::vector<std::uint32_t>& codes, std::size_t block, std::size_t limit,
                                code_window& w, std::byte* payload, std::vector<special_letter>& out) {
    const auto& core = codes.core();
    if (block >= core.sealed_block_count() || !core.write_back_values(block).empty()) return special_read::other_layout;
    const std::span<const std::byte> bytes = core.sealed_block(block, {});
    const bd::parsed_block pb = bd::parse_block(bytes, block_values, true);
    // The layouts the DNA encoders write for such blocks: plain and dense, planes 0 and 1 raw,
    // the higher planes as lists on the zero plane or on another higher plane (the full
    // encoder's references: N runs inside an IUPAC-coded plane, say).
    if (pb.value_transform != codec::transform::none || pb.sparse || pb.all_raw || pb.ones != 0 ||
        (pb.live & base_mask) != base_mask || (pb.live >> code_planes) != 0)
        return special_read::other_layout;
    w.clear(base_mask);     // planes 0 and 1 are overwritten below (the layout has both) ...
    w.nonzero = base_mask;  // ... or zeroed by the next clear() if this returns early
    auto& p = w.planes.planes;
    std::array<std::uint64_t, code_planes> words{};  // bit k: word k of plane j may be non-zero
    for (std::uint32_t i = 0; i < pb.stored; ++i) {
        const bd::stored_plane& sp = pb.planes[i];
        const std::byte* at = bytes.data() + sp.payload_offset;
        w.nonzero |= 1u << sp.index;  // (so that clear() zeroes it next time)
        if (sp.index < 2) {
            if (sp.payload != codec::payload_kind::raw || sp.base != codec::base_kind::zero) return special_read::other_layout;
            std::memcpy(p[sp.index].data(), at, plane_bytes);  // little-endian words: the plane's bits in order
            continue;
        }
        if (sp.payload == codec::payload_kind::raw || sp.payload == codec::payload_kind::none) return special_read::other_layout;
        const bool on_zero = sp.base == codec::base_kind::zero;
        if (!on_zero) {
            // A reference decoded before this plane (parse_block checked the order).
            if (sp.base != codec::base_kind::plane || sp.reference < 2) return special_read::other_layout;
            p[sp.index] = p[sp.reference];
            words[sp.index] = words[sp.reference];
        }
        // On the zero base a long list means many special letters; on a reference, XOR may
        // cancel, so only the letters found count.
        if (!apply_list(sp, at, on_zero ? limit : block_values, p[sp.index], words[sp.index]) && on_zero)
            return special_read::too_many;
    }
    const std::uint64_t any = words[2] | words[3] | words[4] | words[5];
    if (!collect_letters(w, any, limit, out)) return special_read::too_many;
    dna_kernels().interleave2(p[0].data(), p[1].data(), payload);
    return special_read::done;
}

namespace {

using bitplane::detail::store_le;
using codec::payload_kind;

// The letters' positions in one higher plane: the letters with that code bit, in order.
struct plane_list {
    std::array<std::uint16_t, block_values> positions;
    std::uint32_t count = 0;
};

// The smallest payload of a plane given by its set positions, measured as the codec measures
// them (docs/format.md, payloads): positions 2 bytes each, runs 4, gaps 1 (3 past 254 zero bits),
// raw 256; lists carry a 2-byte count in their descriptor.
struct plane_choice {
    payload_kind kind = payload_kind::raw;
    std::uint32_t items = 0;  // positions or runs; gaps: the byte count
};

constexpr std::uint32_t gap_escape = 255;

plane_choice choose(const plane_list& list) {
    namespace th = bitplane::detail::thresholds;
    std::uint32_t runs = 0, gap_bytes = 0, next = 0;  // next: the position after the previous one
    for (std::uint32_t i = 0; i < list.count; ++i) {
        const std::uint32_t p = list.positions[i];
        runs += i == 0 || p != next ? 1u : 0u;
        gap_bytes += p - next >= gap_escape ? 3u : 1u;
        next = p + 1;
    }
    plane_choice best;  // raw
    std::uint32_t best_bytes = plane_bytes;
    auto consider = [&](payload_kind kind, std::uint32_t bytes, std::uint32_t items) {
        if (bytes + th::item_count_bytes < best_bytes) {
            best = {kind, items};
            best_bytes = bytes + th::item_count_bytes;
        }
    };
    consider(payload_kind::positions, list.count * th::position_bytes, list.count);
    consider(payload_kind::runs, runs * th::run_bytes, runs);
    consider(payload_kind::gaps, gap_bytes, gap_bytes);
    return best;
}

std::byte* write_payload(const plane_list& list, payload_kind kind, std::byte* at) {
    switch (kind) {
        case payload_kind::positions:
            for (std::uint32_t i = 0; i < list.count; ++i, at += 2) store_le<std::uint16_t>(at, list.positions[i]);
            return at;
        case payload_kind::runs:
            for (std::uint32_t i = 0; i < list.count;) {
                std::uint32_t end = i + 1;
                while (end < list.count && list.positions[end] == list.positions[end - 1] + 1) ++end;
                store_le<std::uint16_t>(at, list.positions[i]);
                store_le<std::uint16_t>(at + 2, static_cast<std::uint16_t>(list.positions[end - 1] + 1));
                at += 4;
                i = end;
            }
            return at;
        case payload_kind::gaps: {
            std::uint32_t next = 0;
            for (std::uint32_t i = 0; i < list.count; ++i) {
                const std::uint32_t gap = list.positions[i] - next;
                if (gap >= gap_escape) {
                    *at++ = static_cast<std::byte>(gap_escape);
                    store_le<std::uint16_t>(at, static_cast<std::uint16_t>(gap));
                    at += 2;
                } else {
                    *at++ = static_cast<std::byte>(gap);
                }
                next = list.positions[i] + 1u;
            }
            return at;
        }
        default: {
            plane bits{};
            for (std::uint32_t i = 0; i < list.count; ++i) bits[list.positions[i] / 32] |= 1u << (list.positions[i] % 32);
            for (const std::uint32_t w : bits) {  // raw: the words in little-endian order
                store_le<std::uint32_t>(at, w);
                at += 4;
            }
            return at;
        }
    }
}

// Whether a base plane is far enough from all zero and all one that raw bits are its smallest
// payload (fewer than 256 set or clear bits make a gap list, with a zero or one base, smaller).
bool raw_is_smallest(const std::uint32_t* words) noexcept {
    const std::uint64_t set = bitplane::detail::active_kernels().popcount_words(words, plane_words);
    return set >= 256 && set <= block_values - 256;
}

}  // namespace

std::size_t encode_special_block(const std::byte* payload, std::span<const special_letter> letters, std::span<std::byte> out) {
    alignas(64) std::uint32_t base[2][plane_words];
    dna_kernels().deinterleave2(payload, base[0], base[1]);
    if (!raw_is_smallest(base[0]) || !raw_is_smallest(base[1]) || letters.size() >= block_values) return 0;
    std::array<plane_list, code_planes> lists;  // planes 2-5 used
    std::uint32_t live = base_mask;
    for (const special_letter& s : letters) {
        for (std::uint32_t bits = s.letter & ~std::uint32_t{base_mask}; bits; bits &= bits - 1) {
            plane_list& l = lists[static_cast<std::size_t>(std::countr_zero(bits))];
            l.positions[l.count++] = s.position;
        }
        live |= s.letter;
    }
    // Header (docs/format.md section 2): flags 0 (no transform, dense, no ones mask, not
    // all-raw), the live mask, one descriptor per live plane (base zero, ascending plane order),
    // then the payloads in the same order: planes 0 and 1 raw.
    std::array<plane_choice, code_planes> choice{};
    std::byte* at = out.data();
    *at++ = std::byte{0};
    store_le<std::uint32_t>(at, live);
    at += 4;
    for (std::uint32_t bits = live; bits; bits &= bits - 1) {
        const auto j = static_cast<std::size_t>(std::countr_zero(bits));
        if (j >= 2) choice[j] = choose(lists[j]);
        at[0] = static_cast<std::byte>(j | (static_cast<unsigned>(choice[j].kind) << 5));
        at[1] = std::byte{0};  // base: the zero plane
        at += 2;
        if (choice[j].kind != payload_kind::raw) {
            store_le<std::uint16_t>(at, static_cast<std::uint16_t>(choice[j].items));
            at += 2;
        }
    }
    for (unsigned j = 0; j < 2; ++j)
        for (const std::uint32_t w : base[j]) {
            store_le<std::uint32_t>(at, w);
            at += 4;
        }
    for (std::uint32_t bits = live & ~std::uint32_t{base_mask}; bits; bits &= bits - 1) {
        const auto j = static_cast<std::size_t>(std::countr_zero(bits));
        at = write_payload(lists[j], choice[j].kind, at);
    }
    const auto size = static_cast<std::size_t>(at - out.data());
#ifndef NDEBUG
    codec::validate_block(out.first(size), block_values);  // debug builds check every block written
#endif
    return size;
}

}  // namespace bitplane::dna::detail
