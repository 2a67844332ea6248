// Encoding a block: pick a value transform and a layout, slice the residuals into planes,
// measure the planes (Hamming matrices of the planes and of their transition planes), pick
// each plane's encoding with the reference tree, and write the bytes block_format.hpp lays
// out. Candidates are encoded in full and the smallest kept, so the estimates only decide
// what is tried, never what is correct.
#include "block_format.hpp"
#include "plane_bits.hpp"
#include "plane_gaps.hpp"
#include "plane_positions.hpp"
#include "plane_raw.hpp"
#include "plane_runs.hpp"
#include "reference_tree.hpp"
#include "simd/kernels.hpp"
#include "thresholds.hpp"
#include "value_transform.hpp"

#include <bitplane/error.hpp>

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

namespace bitplane::detail {

namespace {

using codec::base_kind;
using codec::payload_kind;

struct encoder_scratch {
    block_planes planes;
    alignas(64) std::uint32_t live[plane_count * plane_words];
    alignas(64) std::uint32_t transitions[plane_count * plane_words];
    alignas(64) std::uint32_t padded[block_values];
    std::uint16_t hamming[plane_count * plane_count];
    std::uint16_t transition_hamming[plane_count * plane_count];
};

class block_writer {
public:
    explicit block_writer(std::byte* out) noexcept : out_(out) {}
    template <class T>
    void put(T value) noexcept {
        store_le<T>(out_ + size_, value);
        size_ += sizeof(T);
    }
    [[nodiscard]] std::byte* cursor() noexcept { return out_ + size_; }
    void advance(std::uint32_t bytes) noexcept { size_ += bytes; }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] std::byte* data() noexcept { return out_; }

private:
    std::byte* out_;
    std::size_t size_ = 0;
};

void put_descriptor(block_writer& w, std::uint8_t index, const plane_choice& c) {
    w.put<std::uint8_t>(static_cast<std::uint8_t>(index | (static_cast<unsigned>(c.payload) << 5)));
    w.put<std::uint8_t>(static_cast<std::uint8_t>(static_cast<unsigned>(c.base) | (c.reference << 2)));
    if (c.payload == payload_kind::positions || c.payload == payload_kind::runs || c.payload == payload_kind::gaps)
        w.put<std::uint16_t>(c.items);
}

plane base_plane(const plane_choice& c, const block_planes& planes, std::uint32_t length) {
    switch (c.base) {
        case base_kind::zero: return plane{};
        case base_kind::one: return ones_plane(length);
        case base_kind::plane: return planes.planes[c.reference];
        case base_kind::complement: return complement(planes.planes[c.reference], length);
    }
    return plane{};
}

// Gap payloads were chosen at their lower bound; size them exactly now and fall back to a
// position list where escapes make the gaps larger.
void size_gaps(plane_choice& c, const plane& value, const block_planes& planes, std::uint32_t length) {
    if (c.payload != payload_kind::gaps) return;
    const std::uint32_t bytes = gaps_payload::payload_bytes(xor_planes(value, base_plane(c, planes, length)));
    if (bytes > positions_payload::payload_bytes(c.items))
        c.payload = payload_kind::positions;
    else
        c.items = static_cast<std::uint16_t>(bytes);
}

void put_payload(block_writer& w, const plane& value, const plane_choice& c, const block_planes& planes,
                 std::uint32_t length) {
    if (c.payload == payload_kind::none) return;
    const plane diff = xor_planes(value, base_plane(c, planes, length));
    switch (c.payload) {
        case payload_kind::positions: w.advance(positions_payload::write(diff, w.cursor())); break;
        case payload_kind::runs: w.advance(runs_payload::write(diff, w.cursor())); break;
        case payload_kind::raw: w.advance(raw_payload::write(diff, length, w.cursor())); break;
        case payload_kind::gaps: w.advance(gaps_payload::write(diff, w.cursor())); break;
        case payload_kind::none: break;
    }
}

plane_facts facts_of(const plane& p, std::uint8_t index, std::uint32_t length) {
    plane_facts f;
    f.index = index;
    f.popcount = static_cast<std::uint16_t>(popcount(p));
    f.transitions = static_cast<std::uint16_t>(popcount(transitions(p)));
    f.first = test_bit(p, 0);
    f.end = test_bit(p, length - 1);
    return f;
}

// The mask plane of a sparse block is stored on its own: the tree with a single node.
plane_choice choose_alone(const plane& p, std::uint32_t length, const codec::encode_options& options) {
    const plane_facts f = facts_of(p, 0, length);
    const std::uint16_t none = 0;
    tree_input in{1, length, &f, &none, &none, options.references, options.runs};
    std::uint8_t order = 0;
    plane_choice choice;
    choose_references(in, &order, &choice);
    return choice;
}

// Writes the live mask, ones mask, descriptors and payloads of `count` values whose bits
// form planes of `length` bits. Returns the flags it contributes.
std::uint8_t write_planes(block_writer& w, const kernel_table& kernels, encoder_scratch& s,
                          const std::uint32_t* values, std::uint32_t length, const codec::encode_options& options) {
    std::uint32_t any = 0, all = ~0u;
    for (std::uint32_t i = 0; i < length; ++i) {
        any |= values[i];
        all &= values[i];
    }
    const std::uint32_t ones = all;
    const std::uint32_t live = any & ~all;
    std::uint8_t flags = ones ? block_flags::has_ones : 0;
    w.put<std::uint32_t>(live);
    if (ones) w.put<std::uint32_t>(ones);
    if (!live) return flags;

    std::copy_n(values, length, s.padded);
    std::fill(s.padded + length, s.padded + block_values, 0u);
    kernels.transpose(s.padded, s.planes.planes[0].data());

    // Measure the live planes, gathered contiguously for the pair-popcount kernel.
    std::uint8_t index[plane_count];
    plane_facts facts[plane_count];
    std::uint32_t n = 0;
    for (std::uint32_t bits = live; bits; bits &= bits - 1, ++n) {
        index[n] = static_cast<std::uint8_t>(std::countr_zero(bits));
        const plane& p = s.planes.planes[index[n]];
        std::memcpy(s.live + n * plane_words, p.data(), plane_bytes);
        if (!options.runs) continue;
        const plane t = transitions(p);
        std::memcpy(s.transitions + n * plane_words, t.data(), plane_bytes);
    }
    kernels.pair_popcounts(s.live, n, s.hamming);
    if (options.runs) kernels.pair_popcounts(s.transitions, n, s.transition_hamming);
    for (std::uint32_t j = 0; j < n; ++j) {
        const plane& p = s.planes.planes[index[j]];
        facts[j].index = index[j];
        facts[j].popcount = s.hamming[j * n + j];
        facts[j].transitions = options.runs ? s.transition_hamming[j * n + j] : 0;
        facts[j].first = test_bit(p, 0);
        facts[j].end = test_bit(p, length - 1);
    }

    std::uint8_t order[plane_count];
    plane_choice choices[plane_count];
    choose_references({n, length, facts, s.hamming, s.transition_hamming, options.references, options.runs}, order,
                      choices);
    for (std::uint32_t j = 0; j < n; ++j) size_gaps(choices[j], s.planes.planes[index[j]], s.planes, length);

    const bool all_raw = std::all_of(choices, choices + n, [](const plane_choice& c) {
        return c.base == base_kind::zero && c.payload == payload_kind::raw;
    });
    if (all_raw && length == block_values) {
        std::byte* out = w.cursor();
        for (std::uint32_t column = 0; column < plane_words; ++column)
            for (std::uint32_t j = 0; j < n; ++j)
                store_le<std::uint32_t>(out + interleaved_offset(column, j, n), s.planes.planes[index[j]][column]);
        w.advance(n * static_cast<std::uint32_t>(plane_bytes));
        return flags | block_flags::all_raw;
    }
    if (all_raw) {
        for (std::uint32_t j = 0; j < n; ++j) put_payload(w, s.planes.planes[index[j]], choices[j], s.planes, length);
        return flags | block_flags::all_raw;
    }
    for (std::uint32_t k = 0; k < n; ++k) put_descriptor(w, index[order[k]], choices[order[k]]);
    for (std::uint32_t k = 0; k < n; ++k)
        put_payload(w, s.planes.planes[index[order[k]]], choices[order[k]], s.planes, length);
    return flags;
}

void write_transform_header(block_writer& w, const transform_choice& t) {
    if (t.kind == codec::transform::frame_of_reference) w.put<std::uint32_t>(t.for_base);
    if (t.kind == codec::transform::delta) {
        w.put<std::uint32_t>(t.delta_first);
        w.put<std::uint32_t>(t.delta_min);
    }
}

std::size_t encode_dense(const transform_choice& t, const std::uint32_t* residuals, std::uint32_t count,
                         const kernel_table& kernels, encoder_scratch& s, std::byte* out,
                         const codec::encode_options& options) {
    block_writer w(out);
    w.put<std::uint8_t>(0);
    write_transform_header(w, t);
    const std::uint8_t flags = write_planes(w, kernels, s, residuals, count, options);
    out[0] = static_cast<std::byte>(static_cast<std::uint8_t>(t.kind) | flags);
    return w.size();
}

std::size_t encode_sparse(const transform_choice& t, const std::uint32_t* residuals, std::uint32_t count,
                          const kernel_table& kernels, encoder_scratch& s, std::byte* out,
                          const codec::encode_options& options) {
    plane mask{};
    alignas(64) std::uint32_t stored[block_values];
    std::uint32_t m = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
        if (residuals[i] == 0) continue;
        mask[i >> 5] |= 1u << (i & 31);
        stored[m++] = residuals[i];
    }
    block_writer w(out);
    w.put<std::uint8_t>(0);
    write_transform_header(w, t);
    w.put<std::uint16_t>(static_cast<std::uint16_t>(m));
    plane_choice mask_choice = choose_alone(mask, count, options);
    size_gaps(mask_choice, mask, s.planes, count);
    put_descriptor(w, 0, mask_choice);
    put_payload(w, mask, mask_choice, s.planes, count);
    const std::uint8_t flags = write_planes(w, kernels, s, stored, m, options);
    out[0] = static_cast<std::byte>(static_cast<std::uint8_t>(t.kind) | block_flags::sparse | flags);
    return w.size();
}

}  // namespace

}  // namespace bitplane::detail

namespace bitplane::codec {

std::size_t encode_block(std::span<const std::uint32_t> values, bool is_signed, std::span<std::byte> out,
                         const encode_options& options) {
    using namespace bitplane::detail;
    if (values.empty() || values.size() > block_values)
        throw size_error("encode_block: " + std::to_string(values.size()) + " values, expected 1..2048");
    if (out.size() < max_block_bytes)
        throw size_error("encode_block: output holds " + std::to_string(out.size()) + " bytes, needs " +
                         std::to_string(max_block_bytes));
    const auto count = static_cast<std::uint32_t>(values.size());
    const kernel_table& kernels = active_kernels();

    transform_choice candidates[4];
    std::size_t ranked = rank_transforms(values, is_signed, candidates);
    ranked = static_cast<std::size_t>(
        std::remove_if(candidates, candidates + ranked,
                       [&](const transform_choice& c) {
                           return (c.kind == transform::frame_of_reference && !options.frame_of_reference) ||
                                  (c.kind == transform::delta && !options.delta) ||
                                  (c.kind == transform::zigzag && !options.zigzag);
                       }) -
        candidates);
    std::size_t tries = 1;
    if (ranked > 1 && candidates[1].estimate <= candidates[0].estimate + thresholds::transform_runner_up_planes)
        tries = 2;

    encoder_scratch scratch;
    alignas(64) std::uint32_t residuals[block_values];
    alignas(64) std::byte trial[max_block_bytes];
    std::size_t best = 0;  // bytes of the best encoding so far, which sits in `out`
    auto consider = [&](std::size_t size) {
        if (best == 0 || size < best) {
            std::memcpy(out.data(), trial, size);
            best = size;
        }
    };
    for (std::size_t c = 0; c < tries; ++c) {
        apply_transform(candidates[c], values, residuals);
        const auto zeros = static_cast<std::uint32_t>(std::count(residuals, residuals + count, 0u));
        consider(encode_dense(candidates[c], residuals, count, kernels, scratch, trial, options));
        if (options.sparse && zeros < count && zeros * 16 >= count * thresholds::sparse_min_zero_sixteenths)
            consider(encode_sparse(candidates[c], residuals, count, kernels, scratch, trial, options));
    }
    return best;
}

}  // namespace bitplane::codec
