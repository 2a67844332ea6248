// Reverse complement of a range of a sequence (sequence.hpp), built block by block.
//
// Output block k is the reverse complement of the input window [end - 2048 (k + 1), end - 2048 k),
// which covers input blocks b0 and b0 + 1 (b0 alone when it is aligned). Three paths, by what
// those blocks hold:
//   - plain upper-case ACGT (two-plane blocks, read in place): one kernel reverses, complements
//     and interleaves planes 0 and 1 straight into the output block's bytes;
//   - a few other letters (at most max_special a block: scattered N or IUPAC codes, short
//     lower-case stretches): the same kernel on planes 0 and 1, then those letters fixed up one
//     by one and the block written with small lists for the higher planes (special_letters.hpp);
//   - anything else (N runs, soft-masked regions): the window's six planes, the general kernel
//     and the codec's encoder, which finds runs.
// Output blocks go in order into one arena that the result then adopts; the last, partial
// output block (if any) is its tail.
#include <bitplane/dna/sequence.hpp>

#include <bitplane/codec.hpp>
#include <bitplane/detail/default_init_allocator.hpp>
#include <bitplane/error.hpp>

#include "dna/code_window.hpp"
#include "core/vector_access.hpp"
#include "dna/dna_kernels.hpp"
#include "dna/special_letters.hpp"


#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

namespace bitplane::dna {
namespace {

using detail::code_window;
using detail::special_letter;

// Special letters a block may hold and still take the fixing-up path. A scattered ambiguity
// code costs a few nanoseconds there; a block with more (N runs, soft-masked stretches) takes
// the general path, about 1 us a window, whose encoder stores such runs in a few bytes.
constexpr std::size_t max_special = 256;

constexpr std::size_t no_block = static_cast<std::size_t>(-1);

// An input block as the windows that read it need it: planes 0 and 1 as a two-plane payload
// and its special letters, or a mark that it needs the general path.
struct prepared_block {
    std::size_t index = no_block;
    const std::byte* payload = nullptr;  // in the sequence (two-plane blocks) or in `own`
    bool general = false;
    std::vector<special_letter> special;
    alignas(64) std::array<std::byte, 2 * plane_bytes> own;
    code_window planes;  // scratch

    void prepare(const bitplane::vector<std::uint32_t>& codes, std::size_t block) {
        index = block;
        special.clear();
        general = false;
        if ((payload = detail::two_plane_payload(codes, block)) != nullptr) return;
        switch (detail::read_special_block(codes, block, max_special, planes, own.data(), special)) {
            case detail::special_read::done: payload = own.data(); return;
            case detail::special_read::too_many: general = true; return;
            case detail::special_read::other_layout: break;
        }
        detail::read_block(codes, block, planes);
        if (!detail::find_special_letters(planes, max_special, special)) {
            general = true;
            return;
        }
        detail::dna_kernels().interleave2(planes.planes.planes[0].data(), planes.planes.planes[1].data(), own.data());
        payload = own.data();
    }
};

// Sets the base bits (planes 0 and 1) of letter `i` of a two-plane payload to those of `c`.
void set_base_bits(std::byte* payload, std::size_t i, code c) noexcept {
    for (unsigned j = 0; j < 2; ++j) {
        std::byte* at = payload + 8 * (i / 32) + 4 * j;
        std::uint32_t w;
        std::memcpy(&w, at, 4);
        w = (w & ~(1u << (i % 32))) | (((c >> j) & 1u) << (i % 32));
        std::memcpy(at, &w, 4);
    }
}

}  // namespace

sequence reverse_complement(const sequence& s, std::size_t first, std::size_t count) {
    if (first > s.size())
        throw index_error("dna::reverse_complement: first " + std::to_string(first) + " > size " + std::to_string(s.size()));
    count = std::min(count, s.size() - first);
    const auto& kernels = detail::dna_kernels();
    const auto& in_codes = s.codes();
    sequence result;
    auto& codes = sequence_access::codes(result);
    const auto end = static_cast<std::int64_t>(first + count);
    auto window_start = [&](std::size_t k) { return end - static_cast<std::int64_t>((k + 1) * block_values); };
    const std::size_t full = count / block_values;
    std::vector<std::byte, bitplane::detail::default_init_allocator<std::byte>> arena;  // grown without zero-filling
    std::vector<std::uint64_t> offsets(full);
    std::vector<std::uint32_t> sizes(full);
    // Plain blocks take 517 bytes; blocks with special letters a little more: room for a few,
    // so that the arena is seldom moved while it grows.
    arena.reserve(full * (5 + 2 * plane_bytes) + full * 8 + 65536);
    // The two input blocks of the current window; window k + 1 reuses block b0 of window k.
    prepared_block blocks[2];
    auto get = [&](std::size_t block, const prepared_block* keep) -> prepared_block& {
        for (prepared_block& p : blocks)
            if (p.index == block) return p;
        prepared_block& slot = keep == &blocks[0] ? blocks[1] : blocks[0];
        slot.prepare(in_codes, block);
        return slot;
    };
    std::vector<special_letter> special;  // of the current window, in output positions
    alignas(64) std::array<std::byte, 2 * plane_bytes> fixed;
    alignas(64) std::array<std::byte, codec::max_block_bytes> out;
    detail::window_reader reader(in_codes, first, first + count);
    code_window in, reversed;
    for (std::size_t k = 0; k < full; ++k) {
        const auto start = static_cast<std::size_t>(window_start(k));  // >= first: whole windows lie in the range
        const std::size_t b0 = start / block_values, shift = start % block_values;
        const prepared_block* high = shift != 0 ? &get(b0 + 1, nullptr) : nullptr;
        const prepared_block& low = get(b0, high);
        if (high == nullptr) high = &low;  // read by the kernel, unused
        const std::size_t at = arena.size();
        offsets[k] = at;
        if (!low.general && !high->general) {
            // Window letter i is output letter 2047 - i: high's letters below `shift` come
            // first in the output, then low's from `shift` up, each in descending position.
            special.clear();
            if (shift != 0)
                for (auto it = high->special.rbegin(); it != high->special.rend(); ++it)
                    if (it->position < shift)
                        special.push_back({static_cast<std::uint16_t>(shift - 1 - it->position), complement(it->letter)});
            for (auto it = low.special.rbegin(); it != low.special.rend(); ++it)
                if (it->position >= shift)
                    special.push_back({static_cast<std::uint16_t>(block_values - 1 + shift - it->position), complement(it->letter)});
            if (special.empty()) {  // straight into the arena
                arena.resize(at + 5 + 2 * plane_bytes);
                if (kernels.revcomp2(low.payload, high->payload, shift, arena.data() + at + 5) == 3u) {
                    arena[at] = std::byte{0x10};  // all-raw (docs/format.md section 2), live planes 0 and 1
                    arena[at + 1] = std::byte{3};
                    arena[at + 2] = arena[at + 3] = arena[at + 4] = std::byte{0};
                    sizes[k] = static_cast<std::uint32_t>(5 + 2 * plane_bytes);
                    continue;
                }
                arena.resize(at);  // a constant plane (a window of one base): the general path
            } else {
                // The kernel complements base bits as for plain bases; N, S, W and '-' keep theirs.
                kernels.revcomp2(low.payload, high->payload, shift, fixed.data());
                for (const special_letter& x : special) set_base_bits(fixed.data(), x.position, x.letter);
                if (const std::size_t size = detail::encode_special_block(fixed.data(), special, out); size != 0) {
                    arena.insert(arena.end(), out.begin(), out.begin() + static_cast<std::ptrdiff_t>(size));
                    sizes[k] = static_cast<std::uint32_t>(size);
                    continue;
                }
            }
        }
        // The general path.
        reader.load(static_cast<std::int64_t>(start), in);
        reversed.nonzero = kernels.reverse_complement(in.data(), in.nonzero, block_values, reversed.data());
        const std::size_t size = detail::encode_window(reversed, out);
        arena.insert(arena.end(), out.begin(), out.begin() + static_cast<std::ptrdiff_t>(size));
        sizes[k] = static_cast<std::uint32_t>(size);
    }
    std::array<std::uint32_t, block_values> tail_values;
    std::size_t tail = 0;
    if (const std::size_t n = count % block_values; n != 0) {  // the last, partial output block
        reader.load(window_start(full), in);
        reversed.nonzero = kernels.reverse_complement(in.data(), in.nonzero, n, reversed.data());
        untranspose(reversed.planes, tail_values);
        tail = n;
    }
    bitplane::detail::vector_access::core(codes).adopt(std::span<const std::byte>(arena.data(), arena.size()), offsets, sizes,
                       std::span<const std::uint32_t>(tail_values.data(), tail), count);
    return result;
}

}  // namespace bitplane::dna
