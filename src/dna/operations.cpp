// Operations on the code planes of sequences (sequence.hpp): counts, mismatches, reverse
// complement, pattern search. Each works on windows of 2048 letters aligned to the start of
// its range (whole blocks, read in place, when the range starts on a block boundary) and hands
// the plane work to the DNA kernels.
#include <bitplane/dna/sequence.hpp>

#include <bitplane/codec.hpp>
#include <bitplane/error.hpp>

#include "dna/code_window.hpp"
#include "dna/dna_kernels.hpp"
#include "dna/letter_builder.hpp"

#include <boost/container/vector.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <string>

namespace bitplane::dna {
namespace {

using detail::code_window;
using detail::window_reader;

std::size_t clip(const sequence& s, std::size_t first, std::size_t count, const char* what) {
    if (first > s.size())
        throw index_error(std::string("dna::") + what + ": first " + std::to_string(first) + " > size " +
                          std::to_string(s.size()));
    return std::min(count, s.size() - first);
}

// Reads consecutive windows [first + 2048 k, ...) of a range: whole blocks when aligned.
class range_windows {
public:
    range_windows(const sequence& s, std::size_t first, std::size_t count)
        : codes_(s.codes()), first_(first), reader_(s.codes(), first, first + count) {}
    void load(std::size_t k, code_window& out) {
        const std::size_t start = first_ + k * block_values;
        if (first_ % block_values == 0) {
            detail::read_block(codes_, start / block_values, out);
            return;  // the range's end is clipped by the callers' counts
        }
        reader_.load(static_cast<std::int64_t>(start), out);
    }

private:
    const bitplane::vector<std::uint32_t>& codes_;
    std::size_t first_;
    window_reader reader_;
};

// Clears the letters at or past `count` of a window (a range's last window read in place).
void clip_tail(code_window& w, std::size_t count) {
    if (count >= block_values) return;
    for (std::uint32_t bits = w.nonzero; bits; bits &= bits - 1) {
        auto& p = w.planes.planes[static_cast<std::size_t>(std::countr_zero(bits))];
        for (std::size_t word = 0; word < plane_words; ++word) {
            const std::size_t lo = 32 * word;
            p[word] &= count >= lo + 32 ? ~0u : count <= lo ? 0u : (1u << (count - lo)) - 1u;
        }
    }
}

}  // namespace

base_counts count_bases(const sequence& s, std::size_t first, std::size_t count) {
    count = clip(s, first, count, "count_bases");
    const auto& kernels = detail::dna_kernels();
    range_windows windows(s, first, count);
    code_window w;
    base_counts total;
    const bool aligned = first % block_values == 0;
    for (std::size_t k = 0; k * block_values < count; ++k) {
        const std::size_t n = std::min(block_values, count - k * block_values);
        if (const std::byte* payload = aligned && n == block_values ? detail::two_plane_payload(s.codes(), first / block_values + k) : nullptr) {
            std::uint64_t cgt[3];  // plain upper-case ACGT, counted in place
            kernels.count2(payload, cgt);
            total.c += cgt[0];
            total.g += cgt[1];
            total.t += cgt[2];
            total.a += block_values - cgt[0] - cgt[1] - cgt[2];
            continue;
        }
        windows.load(k, w);
        clip_tail(w, n);
        std::uint64_t c[7];
        kernels.count_codes(w.data(), w.nonzero, c);
        total.c += c[0];
        total.g += c[1];
        total.t += c[2];
        total.a += n - c[0] - c[1] - c[2] - c[3];
        total.n += c[4];
        total.gaps += c[5];
        total.ambiguous += c[3] - c[4] - c[5];
        total.lower += c[6];
    }
    return total;
}

double gc_content(const sequence& s, std::size_t first, std::size_t count) {
    return count_bases(s, first, count).gc_content();
}

std::uint64_t mismatch_count(const sequence& a, std::size_t a_first, const sequence& b, std::size_t b_first,
                             std::size_t count, case_rule rule) {
    if (a_first > a.size() || count > a.size() - a_first || b_first > b.size() || count > b.size() - b_first)
        throw index_error("dna::mismatch_count: ranges [" + std::to_string(a_first) + ", +" + std::to_string(count) +
                          ") of " + std::to_string(a.size()) + " letters and [" + std::to_string(b_first) + ", +" +
                          std::to_string(count) + ") of " + std::to_string(b.size()) + " letters");
    const std::uint32_t compare = rule == case_rule::ignore ? 0x3Bu : 0x3Fu;  // all planes but (or with) case
    const auto& kernels = detail::dna_kernels();
    range_windows wa(a, a_first, count), wb(b, b_first, count);
    code_window x, y;
    std::uint64_t total = 0;
    const bool aligned = a_first % block_values == 0 && b_first % block_values == 0;
    for (std::size_t k = 0; k * block_values < count; ++k) {
        const std::size_t n = std::min(block_values, count - k * block_values);
        if (aligned && n == block_values) {  // two plain upper-case blocks: compared in place
            const std::byte* pa = detail::two_plane_payload(a.codes(), a_first / block_values + k);
            const std::byte* pb = pa != nullptr ? detail::two_plane_payload(b.codes(), b_first / block_values + k) : nullptr;
            if (pb != nullptr) {
                total += kernels.mismatch2(pa, pb);
                continue;
            }
        }
        wa.load(k, x);
        wb.load(k, y);
        clip_tail(x, n);
        clip_tail(y, n);
        total += kernels.mismatch_planes(x.data(), y.data(), compare & (x.nonzero | y.nonzero));
    }
    return total;
}

std::uint64_t mismatch_count(const sequence& a, const sequence& b, case_rule rule) {
    if (a.size() != b.size())
        throw size_error("dna::mismatch_count: sequences of " + std::to_string(a.size()) + " and " +
                         std::to_string(b.size()) + " letters");
    return mismatch_count(a, 0, b, 0, a.size(), rule);
}

sequence reverse_complement(const sequence& s, std::size_t first, std::size_t count) {
    count = clip(s, first, count, "reverse_complement");
    const auto& kernels = detail::dna_kernels();
    sequence result;
    auto& codes = sequence_access::codes(result);
    const auto end = static_cast<std::int64_t>(first + count);
    // Output block k holds the reverse complement of input letters [end - 2048 (k + 1), end - 2048 k).
    auto window_start = [&](std::size_t k) { return end - static_cast<std::int64_t>((k + 1) * block_values); };
    // Whole output blocks. Plain upper-case input blocks take the two-plane path: planes 0 and
    // 1 of input blocks b0 and b0 + 1, reversed and complemented by one kernel straight into
    // the output block's bytes. Blocks are written in order into one arena that the result then
    // adopts (no per-block appends).
    const std::size_t full = count / block_values;
    boost::container::vector<std::byte> arena;  // grown without zero-filling (default_init)
    std::vector<std::uint64_t> offsets(full);
    std::vector<std::uint32_t> sizes(full);
    // Plain blocks take 517 bytes; blocks with a few ambiguity codes a little more (positions):
    // room for those, so that the arena is not moved while it grows.
    arena.reserve(full * (5 + 2 * plane_bytes) + full * 8 + 65536);
    // Planes 0 and 1 of input blocks in `slots` consecutive slots: window k needs blocks b0 and
    // b0 + 1 side by side, and window k + 1 needs b0 - 1 and b0, so blocks are placed downward,
    // one new block per window, and the buffer is refilled from its top when it runs out.
    constexpr std::size_t slots = 32;
    // (zeroed: with a shift of 0 the kernel reads one word of the slot above, times zero)
    auto p0 = std::make_unique<std::uint32_t[]>((slots + 1) * plane_words + 8);
    auto p1 = std::make_unique<std::uint32_t[]>((slots + 1) * plane_words + 8);
    std::size_t low_slot = slots;                          // slot of block low_block
    std::size_t low_block = static_cast<std::size_t>(-1);  // slots hold low_block, low_block + 1, ...
    auto place = [&](std::size_t slot, const std::byte* payload) {
        kernels.deinterleave2(payload, p0.get() + slot * plane_words, p1.get() + slot * plane_words);
    };
    alignas(64) std::array<std::byte, codec::max_block_bytes> out;
    window_reader reader(s.codes(), first, first + count);
    code_window in, reversed;
    for (std::size_t k = 0; k < full; ++k) {
        const auto start = static_cast<std::size_t>(window_start(k));  // >= first: whole windows lie in the range
        const std::size_t b0 = start / block_values, shift = start % block_values;
        const std::byte* x = detail::two_plane_payload(s.codes(), b0);
        const std::byte* y = x != nullptr && shift != 0 ? detail::two_plane_payload(s.codes(), b0 + 1) : nullptr;
        std::size_t size = 0;
        if (x != nullptr && (shift == 0 || y != nullptr)) {
            const bool have_next = low_block != static_cast<std::size_t>(-1) && low_block == b0 + 1;
            if (have_next && low_slot > 0) {
                place(--low_slot, x);  // the usual step: one new block below the last
            } else {
                // Start over at the top: b0 in slot slots - 2, b0 + 1 (if needed) above it.
                low_slot = slots - 2;
                if (y != nullptr) place(slots - 1, y);
                place(low_slot, x);
            }
            low_block = b0;
            const std::size_t at = arena.size();
            arena.resize(at + 5 + 2 * plane_bytes, boost::container::default_init);
            if (kernels.revcomp2(p0.get() + low_slot * plane_words, p1.get() + low_slot * plane_words, shift,
                                 arena.data() + at + 5) == 3u) {
                arena[at] = std::byte{0x10};  // all-raw (docs/format.md section 2), live planes 0 and 1
                arena[at + 1] = std::byte{3};
                arena[at + 2] = arena[at + 3] = arena[at + 4] = std::byte{0};
                offsets[k] = at;
                sizes[k] = static_cast<std::uint32_t>(5 + 2 * plane_bytes);
                continue;
            }
            arena.resize(at);
        } else {
            low_block = static_cast<std::size_t>(-1);
        }
        reader.load(static_cast<std::int64_t>(start), in);
        reversed.nonzero = kernels.reverse_complement(in.data(), in.nonzero, block_values, reversed.data());
        size = detail::encode_window(reversed, out);
        offsets[k] = arena.size();
        sizes[k] = static_cast<std::uint32_t>(size);
        arena.insert(arena.end(), out.begin(), out.begin() + static_cast<std::ptrdiff_t>(size));
    }
    std::array<std::uint32_t, block_values> tail_values;
    std::size_t tail = 0;
    if (const std::size_t n = count % block_values; n != 0) {  // the last, partial output block
        reader.load(window_start(full), in);
        reversed.nonzero = kernels.reverse_complement(in.data(), in.nonzero, n, reversed.data());
        untranspose(reversed.planes, tail_values);
        tail = n;
    }
    codes.core().adopt(std::span<const std::byte>(arena.data(), arena.size()), offsets, sizes, std::span<const std::uint32_t>(tail_values.data(), tail), count);
    return result;
}

std::vector<std::uint64_t> find(const sequence& s, std::string_view pattern, std::size_t first, std::size_t count) {
    count = clip(s, first, count, "find");
    std::vector<std::uint64_t> hits;
    if (pattern.empty() || pattern.size() > count) return hits;
    // The bases each pattern letter accepts.
    std::vector<std::uint8_t> accepts(pattern.size());
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const std::uint8_t c = to_code(pattern[i]);
        if (c == 0xFF)
            throw parse_error("dna::find: pattern column " + std::to_string(i + 1) + ": " +
                              detail::describe_byte(pattern[i]) + " is not a DNA letter");
        accepts[i] = bases_of(c);
    }
    const std::size_t k = std::min<std::size_t>(pattern.size(), 64);  // the prefix searched on planes
    // Match masks per distinct base set: 2048 bits of this window, 256 of the next, zeros.
    constexpr std::size_t mask_words = 36 + 4;  // + room for the kernel's unaligned reads
    std::array<std::array<std::uint64_t, mask_words>, 16> masks{};
    std::array<const std::uint64_t*, 64> rows{};
    std::uint32_t sets_used = 0;
    for (std::size_t j = 0; j < k; ++j) {
        rows[j] = masks[accepts[j]].data();
        sets_used |= 1u << accepts[j];
    }
    const auto& kernels = detail::dna_kernels();
    range_windows windows(s, first, count);
    code_window pair[2];
    unsigned here = 0;
    windows.load(0, pair[0]);
    clip_tail(pair[0], std::min(block_values, count));
    std::array<std::uint64_t, 32> result;
    std::string tail_letters;
    for (std::size_t w = 0; w * block_values < count; ++w) {
        const bool has_next = (w + 1) * block_values < count;
        const code_window& current = pair[here];
        code_window& next = pair[here ^ 1u];
        if (has_next) {
            windows.load(w + 1, next);
            clip_tail(next, std::min(block_values, count - (w + 1) * block_values));
        } else {
            next.clear();
        }
        // "letter i is the plain base b", for this window and the first 256 letters of the next;
        // past the range every mask is zero (valid clears them, since code 0 reads as A).
        const std::size_t valid_here = std::min(block_values, count - w * block_values);
        const std::size_t valid_next = has_next ? std::min(block_values, count - (w + 1) * block_values) : 0;
        for (std::size_t i = 0; i < 36; ++i) {
            const code_window& src = i < 32 ? current : next;
            const std::size_t word = i % 32;
            const std::size_t valid = i < 32 ? valid_here : valid_next;
            auto get = [&](unsigned j) -> std::uint64_t {
                std::uint64_t v;
                std::memcpy(&v, src.planes.planes[j].data() + 2 * word, 8);
                return v;
            };
            const std::uint64_t p0 = get(0), p1 = get(1), plain = ~get(3);
            const std::size_t lo = 64 * word;
            const std::uint64_t in_range = valid >= lo + 64 ? ~0ull : valid <= lo ? 0ull : (1ull << (valid - lo)) - 1ull;
            const std::uint64_t base[4] = {~p0 & ~p1 & plain & in_range, p0 & ~p1 & plain & in_range,
                                           ~p0 & p1 & plain & in_range, p0 & p1 & plain & in_range};
            for (std::uint32_t bits = sets_used; bits; bits &= bits - 1) {
                const auto set = static_cast<unsigned>(std::countr_zero(bits));
                std::uint64_t m = 0;
                for (unsigned b = 0; b < 4; ++b)
                    if ((set >> b) & 1u) m |= base[b];
                masks[set][i] = m;
            }
        }
        kernels.shift_and(rows.data(), k, result.data());
        for (std::size_t word = 0; word < 32; ++word) {
            for (std::uint64_t bits = result[word]; bits; bits &= bits - 1) {
                const std::size_t offset = w * block_values + 64 * word + static_cast<std::size_t>(std::countr_zero(bits));
                if (offset + pattern.size() > count) continue;
                if (pattern.size() > k) {  // check the rest of a long pattern on its letters
                    tail_letters = s.substr(first + offset + k, pattern.size() - k);
                    bool same = true;
                    for (std::size_t i = 0; i < tail_letters.size() && same; ++i) {
                        const code c = to_code(tail_letters[i]);
                        same = (c & special_bit) == 0 && ((accepts[k + i] >> (c & base_mask)) & 1u) != 0;
                    }
                    if (!same) continue;
                }
                hits.push_back(first + offset);
            }
        }
        here ^= 1u;
    }
    return hits;
}

}  // namespace bitplane::dna
