// Reading and writing the code planes of a sequence's blocks (code_window.hpp).
#include "dna/code_window.hpp"
#include "core/vector_access.hpp"

#include "dna/dna_kernels.hpp"

#include "codec/block_format.hpp"
#include "codec/byte_io.hpp"
#include "ops/block_view.hpp"
#include "simd/kernels.hpp"

#include <bitplane/codec.hpp>

#include <algorithm>
#include <bit>
#include <array>
#include <cstring>

namespace bitplane::dna::detail {
namespace {

constexpr std::size_t two_plane_block_bytes = 5 + 2 * plane_bytes;  // flags, live mask, payload

// Whether encoded bytes are an all-raw interleaved block of exactly planes 0 and 1 (what
// append_window writes for plain upper-case ACGT): then the planes are read in place.
bool is_two_plane_block(std::span<const std::byte> bytes) noexcept {
    return bytes.size() == two_plane_block_bytes &&
           static_cast<std::uint8_t>(bytes[0]) == bitplane::detail::block_flags::all_raw &&
           bitplane::detail::load_le<std::uint32_t>(bytes.data() + 1) == 3u;
}

// The codec's choices for DNA blocks: plane encodings only (references and runs are what
// pays for N and soft-masked runs); no value transform, no sparse layout, so that planes
// stay codes.
constexpr codec::encode_options dna_options{false, false, false, false, true, true};

}  // namespace

void code_window::clear(std::uint32_t keep) noexcept {
    for (std::uint32_t bits = nonzero & ~keep; bits; bits &= bits - 1)
        planes.planes[static_cast<std::size_t>(std::countr_zero(bits))].fill(0);
    nonzero = 0;
}

const std::byte* two_plane_payload(const bitplane::vector<std::uint32_t>& codes, std::size_t block) noexcept {
    const auto& core = codes.core();
    if (block >= core.sealed_block_count() || !core.write_back_values(block).empty()) return nullptr;
    const std::span<const std::byte> bytes = core.sealed_block(block, {});
    return is_two_plane_block(bytes) ? bytes.data() + 5 : nullptr;
}

void read_block(const bitplane::vector<std::uint32_t>& codes, std::size_t block, code_window& out) {
    if (const std::byte* payload = two_plane_payload(codes, block)) {
        out.clear(3u);
        dna_kernels().deinterleave2(payload, out.planes.planes[0].data(), out.planes.planes[1].data());
        out.nonzero = 3;
        return;
    }
    const auto& core = codes.core();
    out.clear();
    thread_local bitplane::detail::block_view view;
    thread_local block_planes scratch;
    bitplane::detail::view_block(core, block, view);
    std::uint32_t nonzero = 0;
    const block_planes& planes = bitplane::detail::value_planes(view, scratch, nonzero);
    nonzero &= (1u << code_planes) - 1u;  // loaded sequences are validated: no higher plane
    for (std::uint32_t bits = nonzero; bits; bits &= bits - 1) {
        const auto j = static_cast<std::size_t>(std::countr_zero(bits));
        out.planes.planes[j] = planes.planes[j];
    }
    out.nonzero = nonzero;
}

std::size_t encode_window(const code_window& window, std::span<std::byte> out) {
    const auto& p = window.planes.planes;
    std::uint32_t all0 = ~0u, all1 = ~0u;
    if (window.nonzero == 3u) {
        for (std::size_t c = 0; c < plane_words; ++c) {
            all0 &= p[0][c];
            all1 &= p[1][c];
        }
    }
    if (window.nonzero == 3u && all0 != ~0u && all1 != ~0u) {
        // Two live planes, neither constant: the all-raw interleaved block, written directly.
        out[0] = std::byte{bitplane::detail::block_flags::all_raw};
        bitplane::detail::store_le<std::uint32_t>(out.data() + 1, 3u);
        dna_kernels().interleave2(p[0].data(), p[1].data(), out.data() + 5);
        return two_plane_block_bytes;
    }
    // A higher plane (case, N, ambiguity) that is neither all zero nor all one: when its set bits
    // form a few long runs (soft-masked or N runs), a run list is far smaller than positions or
    // raw bits, and only the full encoder tries runs; scattered letters (an ambiguity code here
    // and there) are positions, which the quick plane encoder writes.
    bool partial_high = false;
    const auto& kernels = bitplane::detail::active_kernels();
    for (std::uint32_t bits = window.nonzero & ~3u; bits; bits &= bits - 1) {
        const auto& plane = p[static_cast<std::size_t>(std::countr_zero(bits))];
        const auto set = kernels.popcount_words(plane.data(), plane_words);
        if (set == block_values) continue;
        std::uint64_t edges = 0;  // run starts and ends
        std::uint32_t carry = 0;
        for (std::size_t w = 0; w < plane_words; ++w) {
            edges += static_cast<std::uint64_t>(std::popcount(plane[w] ^ ((plane[w] << 1) | carry)));
            carry = plane[w] >> 31;
        }
        const std::uint64_t run_bytes = 2 * (edges + 1);  // 4 bytes a run
        partial_high = partial_high || run_bytes < std::min<std::uint64_t>(2 * set, plane_bytes);
    }
    if (!partial_high) return codec::encode_planes(window.planes, window.nonzero, block_values, out);
    std::array<std::uint32_t, block_values> values;
    untranspose(window.planes, values);
    return codec::encode_block(values, false, out, dna_options);
}

void append_window(bitplane::vector<std::uint32_t>& codes, const code_window& window, std::size_t count) {
    if (count < block_values) {
        std::array<std::uint32_t, block_values> values;
        untranspose(window.planes, values);
        codes.append(std::span<const std::uint32_t>(values.data(), count));
        return;
    }
    alignas(64) std::array<std::byte, codec::max_block_bytes> out;
    const std::size_t size = encode_window(window, out);
    bitplane::detail::vector_access::core(codes).append_encoded_block(std::span<const std::byte>(out.data(), size));
}

const code_window& window_reader::block(std::size_t index) {
    for (unsigned k = 0; k < 2; ++k)
        if (cached_[k] == index) return cache_[k];
    const unsigned k = next_slot_;
    next_slot_ ^= 1u;
    read_block(codes_, index, cache_[k]);
    cached_[k] = index;
    return cache_[k];
}

void window_reader::load(std::int64_t start, code_window& out) {
    out.clear();
    const auto n = static_cast<std::int64_t>(codes_.size());
    const std::int64_t lo = std::max<std::int64_t>(static_cast<std::int64_t>(lo_), std::max<std::int64_t>(start, 0));
    const std::int64_t hi = std::min<std::int64_t>({static_cast<std::int64_t>(hi_), start + static_cast<std::int64_t>(block_values), n});
    if (lo >= hi) return;
    const auto bv = static_cast<std::int64_t>(block_values);
    const std::int64_t first_block = (start >= 0 ? start : start - bv + 1) / bv;
    const auto shift = static_cast<std::size_t>(start - first_block * bv);  // 0..2047
    const auto words = static_cast<std::size_t>(plane_words);
    // The two blocks the window overlaps, as 128 words per plane (missing blocks read as 0).
    std::uint32_t nonzero = 0;
    const code_window* parts[2] = {nullptr, nullptr};
    for (std::int64_t b = 0; b < 2; ++b) {
        const std::int64_t index = first_block + b;
        if (index < 0 || index * bv >= n || (b == 1 && shift == 0)) continue;
        if (index * bv >= hi || (index + 1) * bv <= lo) continue;
        parts[b] = &block(static_cast<std::size_t>(index));
        nonzero |= parts[b]->nonzero;
    }
    const std::size_t ws = shift / 32, bs = shift % 32;
    for (std::uint32_t bits = nonzero; bits; bits &= bits - 1) {
        const auto j = static_cast<std::size_t>(std::countr_zero(bits));
        // The plane's words of both blocks, one after another (a missing block reads as 0).
        alignas(64) std::uint32_t both[2 * plane_words + 8];
        for (std::size_t b = 0; b < 2; ++b) {
            if (parts[b] != nullptr) {
                std::memcpy(both + b * words, parts[b]->planes.planes[j].data(), plane_bytes);
            } else {
                std::memset(both + b * words, 0, plane_bytes);
            }
        }
        both[2 * words] = 0;
        std::uint32_t* o = out.planes.planes[j].data();
        const std::uint32_t* src = both + ws;
        if (bs == 0) {
            std::memcpy(o, src, plane_bytes);
        } else {
            for (std::size_t w = 0; w < words; ++w) o[w] = (src[w] >> bs) | (src[w + 1] << (32 - bs));
        }
    }
    out.nonzero = nonzero;
    // Clip to [lo, hi): window positions [lo - start, hi - start).
    const auto from = static_cast<std::size_t>(lo - start), to = static_cast<std::size_t>(hi - start);
    if (from == 0 && to == block_values) return;
    for (std::size_t w = 0; w < words; ++w) {
        const std::size_t a = 32 * w, e = a + 32;
        std::uint32_t keep = 0;
        if (from <= a && e <= to) continue;
        if (e > from && a < to) {
            const std::size_t k0 = std::max(a, from) - a, k1 = std::min(e, to) - a;
            keep = (k1 - k0 == 32 ? ~0u : ((1u << (k1 - k0)) - 1u)) << k0;
        }
        for (std::uint32_t bits = nonzero; bits; bits &= bits - 1)
            out.planes.planes[static_cast<std::size_t>(std::countr_zero(bits))][w] &= keep;
    }
}

}  // namespace bitplane::dna::detail
