// Operations on the code planes of sequences (sequence.hpp): counts, mismatches and pattern
// search (the reverse complement, which builds a sequence, is in reverse_complement.cpp). Each
// works on windows of 2048 letters aligned to the start of its range (whole blocks, read in
// place, when the range starts on a block boundary) and hands the plane work to the DNA kernels.
#include <bitplane/dna/sequence.hpp>

#include <bitplane/codec.hpp>
#include <bitplane/error.hpp>

#include "dna/code_window.hpp"
#include "dna/dna_kernels.hpp"
#include "dna/letter_builder.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <string>

namespace bitplane::dna {
namespace {

using detail::code_window;
using detail::window_reader;

// Two-plane blocks handed to the counting kernels a call: enough that the per-call sums and the
// prefetch start-up do not show, few enough for the stack.
constexpr std::size_t batch_blocks = 64;

std::size_t clip(const sequence& s, std::size_t first, std::size_t count, const char* what) {
    if (first > s.size())
        throw index_error(std::string("dna::") + what + ": first " + std::to_string(first) + " > size " +
                          std::to_string(s.size()));
    return std::min(count, s.size() - first);
}

// Reads consecutive windows [first + 2048 k, ...) of a range: whole blocks when aligned. The
// reader of unaligned windows (two cached blocks, 16 KiB) is set up on first use.
class range_windows {
public:
    range_windows(const sequence& s, std::size_t first, std::size_t count)
        : codes_(s.codes()), first_(first), count_(count) {}
    void load(std::size_t k, code_window& out) {
        const std::size_t start = first_ + k * block_values;
        if (first_ % block_values == 0) {
            detail::read_block(codes_, start / block_values, out);
            return;  // the range's end is clipped by the callers' counts
        }
        if (!reader_) reader_.emplace(codes_, first_, first_ + count_);
        reader_->load(static_cast<std::int64_t>(start), out);
    }

private:
    const bitplane::vector<std::uint32_t>& codes_;
    std::size_t first_, count_;
    std::optional<window_reader> reader_;
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
    std::optional<code_window> w;  // for blocks of other letters (8 KiB, zeroed when first needed)
    base_counts total;
    // Plain upper-case blocks are counted in place, a batch at a time.
    std::array<const std::byte*, batch_blocks> batch;
    std::size_t batched = 0;
    auto count_batch = [&] {
        std::uint64_t cgt[3];
        kernels.count2(batch.data(), batched, cgt);
        total.c += cgt[0];
        total.g += cgt[1];
        total.t += cgt[2];
        total.a += batched * block_values - cgt[0] - cgt[1] - cgt[2];
        batched = 0;
    };
    const bool aligned = first % block_values == 0;
    for (std::size_t k = 0; k * block_values < count; ++k) {
        const std::size_t n = std::min(block_values, count - k * block_values);
        if (const std::byte* payload = aligned && n == block_values ? detail::two_plane_payload(s.codes(), first / block_values + k) : nullptr) {
            batch[batched++] = payload;
            if (batched == batch_blocks) count_batch();
            continue;
        }
        if (!w) w.emplace();
        windows.load(k, *w);
        clip_tail(*w, n);
        std::uint64_t c[7];
        kernels.count_codes(w->data(), w->nonzero, c);
        total.c += c[0];
        total.g += c[1];
        total.t += c[2];
        total.a += n - c[0] - c[1] - c[2] - c[3];
        total.n += c[4];
        total.gaps += c[5];
        total.ambiguous += c[3] - c[4] - c[5];
        total.lower += c[6];
    }
    if (batched != 0) count_batch();
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
    std::optional<code_window> x, y;  // for blocks of other letters (zeroed when first needed)
    std::uint64_t total = 0;
    // Pairs of plain upper-case blocks are compared in place, a batch at a time.
    std::array<const std::byte*, batch_blocks> batch_a, batch_b;
    std::size_t batched = 0;
    const bool aligned = a_first % block_values == 0 && b_first % block_values == 0;
    for (std::size_t k = 0; k * block_values < count; ++k) {
        const std::size_t n = std::min(block_values, count - k * block_values);
        if (aligned && n == block_values) {
            const std::byte* pa = detail::two_plane_payload(a.codes(), a_first / block_values + k);
            const std::byte* pb = pa != nullptr ? detail::two_plane_payload(b.codes(), b_first / block_values + k) : nullptr;
            if (pb != nullptr) {
                batch_a[batched] = pa;
                batch_b[batched++] = pb;
                if (batched == batch_blocks) {
                    total += kernels.mismatch2(batch_a.data(), batch_b.data(), batched);
                    batched = 0;
                }
                continue;
            }
        }
        if (!x) {
            x.emplace();
            y.emplace();
        }
        wa.load(k, *x);
        wb.load(k, *y);
        clip_tail(*x, n);
        clip_tail(*y, n);
        total += kernels.mismatch_planes(x->data(), y->data(), compare & (x->nonzero | y->nonzero));
    }
    return total + kernels.mismatch2(batch_a.data(), batch_b.data(), batched);
}

std::uint64_t mismatch_count(const sequence& a, const sequence& b, case_rule rule) {
    if (a.size() != b.size())
        throw size_error("dna::mismatch_count: sequences of " + std::to_string(a.size()) + " and " +
                         std::to_string(b.size()) + " letters");
    return mismatch_count(a, 0, b, 0, a.size(), rule);
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
