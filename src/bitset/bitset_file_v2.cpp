// Bitset file version 2 (docs/format.md, section 5.1). The writer reads every block as a plane,
// estimates per block what each segment mode would cost, joins neighbouring blocks of one mode
// (empty blocks join position and run segments, full ones run and clear-position segments)
// and then codes each segment with its best Rice parameter, or as raw bits where that is no
// larger. The loader checks every size against the bytes present before using it and every
// decoded value against the segment's length; blocks are then stored as memory chooses.
#include "bitset/bitset_file_v2.hpp"

#include "bitset/bitset_block.hpp"
#include "core/checked_size.hpp"
#include "core/file_header.hpp"

#include <bitplane/error.hpp>

#include <algorithm>
#include <bit>
#include <string>

namespace bitplane::detail::bitset_v2 {

namespace {

using file::header_bytes;

constexpr std::uint64_t max_size = std::uint64_t{1} << 48;
// Values are coded with a per-segment parameter byte: k in bits 0-6, bit 7 the family.
// Rice (bit 7 clear): a quotient q = v >> k below escape_quotient in unary (q zeros, then a
// one), then k low bits; otherwise escape_quotient zeros, 6 bits of width w (1..max_width),
// then the value in w bits. Exponential Golomb (bit 7 set; better for heavy-tailed values
// such as the runs of real columns): u = (v >> k) + 1 of w bits as w - 1 zeros, a one, the
// w - 1 bits of u below its top bit, then k low bits of v.
constexpr std::uint32_t escape_quotient = 32;
constexpr std::uint32_t max_k = 48;
constexpr std::uint32_t max_width = 49;
constexpr std::uint32_t exp_golomb = 0x80;
// Largest segment header: mode, two varints of up to 10 bytes, two parameter bytes.
constexpr std::uint64_t max_segment_header = 23;
// The in-memory summary of a loaded set takes 16 bytes per 64 blocks whatever the file holds:
// a file may announce a universe whose summary needs up to this many bytes, or more if the
// file is at least 1/64 of it (sparse sets up to 2^40 load from any file).
constexpr std::uint64_t free_summary_bytes = std::uint64_t{1} << 27;

enum class mode : std::uint8_t { positions = 0, runs = 1, zeros = 2, raw = 3 };

// ---- bits ----------------------------------------------------------------------------------

/// Appends codes to `out`, which it grows by `bits` (the exact size of what will be put,
/// rounded up to bytes) plus 8 bytes of slack that finish() takes back.
class bit_writer {
public:
    bit_writer(std::vector<std::byte>& out, std::uint64_t bits) : out_(out), start_(out.size()) {
        out_.resize(start_ + static_cast<std::size_t>((bits + 7) / 8) + 8);
        at_ = out_.data() + start_;
    }
    void put(std::uint64_t bits, std::uint32_t n) noexcept {  // n <= 56, bits < 2^n
        if (fill_ + n > 63) {
            store_le<std::uint64_t>(at_, acc_);
            at_ += fill_ / 8;
            acc_ = fill_ >= 64 ? 0 : acc_ >> (fill_ & ~7u);
            fill_ &= 7;
        }
        acc_ |= n == 0 ? 0 : bits << fill_;
        fill_ += n;
    }
    /// Writes the last bits (zero-padded to a byte) and trims the slack.
    void finish() {
        store_le<std::uint64_t>(at_, acc_);
        at_ += (fill_ + 7) / 8;
        out_.resize(static_cast<std::size_t>(at_ - out_.data()));
    }
    void rice(std::uint64_t v, std::uint32_t k) {
        const std::uint64_t q = v >> k;
        if (q < escape_quotient) {
            put(std::uint64_t{1} << q, static_cast<std::uint32_t>(q) + 1);
            if (k > 0) put(v & ((std::uint64_t{1} << k) - 1), k);
            return;
        }
        const auto w = static_cast<std::uint32_t>(std::bit_width(v));
        put(0, escape_quotient);
        put(w, 6);
        put(v, w);
    }
    void code(std::uint64_t v, std::uint32_t param) {
        const std::uint32_t k = param & ~exp_golomb;
        if ((param & exp_golomb) == 0) return rice(v, k);
        const std::uint64_t u = (v >> k) + 1;
        const auto w = static_cast<std::uint32_t>(std::bit_width(u));
        put(std::uint64_t{1} << (w - 1), w);
        if (w > 1) put(u & ((std::uint64_t{1} << (w - 1)) - 1), w - 1);
        if (k > 0) put(v & ((std::uint64_t{1} << k) - 1), k);
    }

private:
    std::vector<std::byte>& out_;
    std::size_t start_;
    std::byte* at_;
    std::uint64_t acc_ = 0;
    std::uint32_t fill_ = 0;
};

/// Bits of an untrusted segment payload, LSB first; reading past its end throws.
class bit_reader {
public:
    bit_reader(std::span<const std::byte> bytes, std::uint64_t base) noexcept
        : bytes_(bytes), base_(base), total_(8 * static_cast<std::uint64_t>(bytes.size())) {}

    [[nodiscard]] std::uint64_t position() const noexcept { return pos_; }
    [[nodiscard]] std::uint64_t left() const noexcept { return total_ - pos_; }
    [[nodiscard]] std::uint64_t offset() const noexcept { return base_ + pos_ / 8; }

    std::uint64_t peek() const noexcept {
        const std::size_t at = static_cast<std::size_t>(pos_ / 8);
        std::uint64_t word = 0;
        if (at + 8 <= bytes_.size()) word = load_le<std::uint64_t>(bytes_.data() + at);
        else if (at < bytes_.size()) std::memcpy(&word, bytes_.data() + at, bytes_.size() - at);
        return word >> (pos_ % 8);
    }
    void skip(std::uint32_t n) {
        if (n > left()) throw format_error("truncated bitset segment: a code runs past its end", base_ + bytes_.size());
        pos_ += n;
    }
    std::uint64_t get(std::uint32_t n) {  // n <= 56
        if (n == 0) return 0;
        const std::uint64_t v = peek() & ((std::uint64_t{1} << n) - 1);
        skip(n);
        return v;
    }
    std::uint64_t rice(std::uint32_t k) {
        const std::uint64_t word = peek();  // 57 bits or more
        const auto q = static_cast<std::uint32_t>(std::countr_zero(word));
        if (q < escape_quotient && q + 1 + k <= 57) [[likely]] {  // the whole code is in `word`
            skip(q + 1 + k);
            return (std::uint64_t{q} << k) | ((word >> (q + 1)) & ((std::uint64_t{1} << k) - 1));
        }
        if (q < escape_quotient) {
            skip(q + 1);
            return (std::uint64_t{q} << k) | get(k);
        }
        skip(escape_quotient);
        const auto w = static_cast<std::uint32_t>(get(6));
        if (w == 0 || w > max_width) throw format_error("Rice escape of width " + std::to_string(w), offset());
        return get(w);
    }
    std::uint64_t code(std::uint32_t param) {
        const std::uint32_t k = param & ~exp_golomb;
        if ((param & exp_golomb) == 0) return rice(k);
        const auto q = static_cast<std::uint32_t>(std::countr_zero(peek()));
        if (q + k > max_k) throw format_error("exponential Golomb code of " + std::to_string(q + k) + " bits", offset());
        if (2 * q + 1 + k <= 57) {  // the whole code is in `word`
            const std::uint64_t word = peek();
            skip(2 * q + 1 + k);
            const std::uint64_t u = (std::uint64_t{1} << q) | ((word >> (q + 1)) & ((std::uint64_t{1} << q) - 1));
            return ((u - 1) << k) | ((word >> (2 * q + 1)) & ((std::uint64_t{1} << k) - 1));
        }
        skip(q + 1);
        const std::uint64_t u = (std::uint64_t{1} << q) | get(q);
        return ((u - 1) << k) | get(k);
    }

private:
    std::span<const std::byte> bytes_;
    std::uint64_t base_;
    std::uint64_t total_;
    std::uint64_t pos_ = 0;
};

// ---- choosing modes ------------------------------------------------------------------------

struct rice_cost {
    std::uint64_t bits = 0;
    std::uint32_t k = 0;  // the parameter byte: k, and exp_golomb for that family
};

/// Estimated cost of n values summing to about `sum`: n (k + 1) + sum / 2^k at the best k.
rice_cost estimate(std::uint64_t n, std::uint64_t sum) noexcept {
    if (n == 0) return {};
    rice_cost best{n + sum, 0};
    for (std::uint32_t k = 1; k < 40; ++k) {
        const std::uint64_t bits = n * (k + 1) + (sum >> k);
        if (bits < best.bits) best = {bits, k};
        if ((sum >> k) == 0) break;
    }
    return best;
}

/// Exact cost of Rice-coding `values` with parameter k.
std::uint64_t exact_cost(const std::vector<std::uint64_t>& values, std::uint32_t k) noexcept {
    std::uint64_t bits = 0;
    for (const std::uint64_t v : values) {
        const std::uint64_t q = v >> k;
        bits += q < escape_quotient ? q + 1 + k : escape_quotient + 6 + static_cast<std::uint64_t>(std::bit_width(v));
    }
    return bits;
}

/// Exact cost of exponential-Golomb-coding `values` with parameter k.
std::uint64_t exact_cost_exp_golomb(const std::vector<std::uint64_t>& values, std::uint32_t k) noexcept {
    std::uint64_t bits = 0;
    for (const std::uint64_t v : values) bits += 2 * static_cast<std::uint64_t>(std::bit_width((v >> k) + 1)) - 1 + k;
    return bits;
}

/// The best code for `values` and its exact cost: Rice with k around the mean's width, or
/// exponential Golomb with k around the median's. Large lists choose on a sample of 4096
/// values (the exact cost of the choice is then one pass).
rice_cost best_k(const std::vector<std::uint64_t>& values) noexcept {
    if (values.empty()) return {};
    constexpr std::size_t sample = 4096;
    if (values.size() > 2 * sample) {
        std::vector<std::uint64_t> some(sample);
        const std::size_t step = values.size() / sample;
        for (std::size_t i = 0; i < sample; ++i) some[i] = values[i * step];
        const rice_cost chosen = best_k(some);
        const std::uint32_t k = chosen.k & ~exp_golomb;
        return {(chosen.k & exp_golomb) != 0 ? exact_cost_exp_golomb(values, k) : exact_cost(values, k), chosen.k};
    }
    std::uint64_t sum = 0;
    std::uint64_t widths[65] = {};
    for (const std::uint64_t v : values) {
        sum += v;
        ++widths[std::bit_width(v)];
    }
    const std::uint64_t mean = sum / values.size();
    const auto centre = static_cast<std::int32_t>(mean == 0 ? 0 : std::bit_width(mean) - 1);
    rice_cost best{~std::uint64_t{0}, 0};
    for (std::int32_t k = std::max(0, centre - 2); k <= std::min<std::int32_t>(max_k, centre + 1); ++k) {
        const std::uint64_t bits = exact_cost(values, static_cast<std::uint32_t>(k));
        if (bits < best.bits) best = {bits, static_cast<std::uint32_t>(k)};
    }
    std::int32_t median = 0;
    for (std::uint64_t seen = 0; median < 64 && (seen += widths[median]) < (values.size() + 1) / 2;) ++median;
    for (std::int32_t k = std::max(0, median - 3); k <= std::min<std::int32_t>(max_k, median); ++k) {
        const std::uint64_t bits = exact_cost_exp_golomb(values, static_cast<std::uint32_t>(k));
        if (bits < best.bits) best = {bits, static_cast<std::uint32_t>(k) | exp_golomb};
    }
    return best;
}

struct block_info {
    std::uint64_t block = 0;
    bool full = false;
    mode choice = mode::raw;
    std::uint32_t items = 0;  // what the chosen mode codes in this block
    std::uint32_t k1 = 0, k2 = 0;
};

block_info plan_block(std::uint64_t b, const plane& p, std::uint32_t len) {
    const block_stats s = bitset_kernels().stats(p.data());
    const std::uint32_t n = s.count, runs = runs_of(s, p);
    block_info info{b, false, mode::raw, 0, 0, 0};
    std::uint64_t best = len;
    const rice_cost pos = estimate(n, len - n);
    if (pos.bits < best) { best = pos.bits; info = {b, false, mode::positions, n, pos.k, 0}; }
    const rice_cost gaps = estimate(runs, len - n), lengths = estimate(runs, n - runs);
    if (gaps.bits + lengths.bits < best) {
        best = gaps.bits + lengths.bits;
        info = {b, false, mode::runs, runs, gaps.k, lengths.k};
    }
    const rice_cost zeros = estimate(len - n, n);
    if (zeros.bits < best) info = {b, false, mode::zeros, len - n, zeros.k, 0};
    return info;
}

struct segment {
    std::uint64_t first = 0, end = 0;  // blocks [first, end)
    std::size_t info_begin = 0, info_end = 0;  // its non-empty blocks in the info list
    bool has_empty = false, has_full = false, has_stored = false;
    mode m = mode::positions;
    std::uint32_t k1 = 0, k2 = 0;

    [[nodiscard]] bool takes_empty() const noexcept {
        return has_stored ? (m == mode::positions || m == mode::runs) : true;
    }
    [[nodiscard]] bool takes_full() const noexcept { return has_stored ? (m == mode::runs || m == mode::zeros) : true; }
    [[nodiscard]] bool takes(const block_info& x) const noexcept {
        if (!has_stored) {
            if (has_empty && x.choice != mode::positions && x.choice != mode::runs) return false;
            if (has_full && x.choice != mode::runs && x.choice != mode::zeros) return false;
            return true;
        }
        if (x.choice != m) return false;
        if (x.choice == mode::raw || x.items < 32) return true;
        auto near = [](std::uint32_t a, std::uint32_t b) { return a + 1 >= b && b + 1 >= a; };
        return near(x.k1, k1) && (x.choice != mode::runs || near(x.k2, k2));
    }
    // An segment without stored blocks: positions if only empty blocks, clear positions if
    // only full ones, runs for both.
    void settle() noexcept {
        if (has_stored) return;
        m = has_empty && has_full ? mode::runs : has_full ? mode::zeros : mode::positions;
    }
};

std::uint64_t segment_bits(std::uint64_t size, const segment& s) {
    return std::min(s.end * block_values, size) - s.first * block_values;
}

// ---- the writer ----------------------------------------------------------------------------

class writer {
public:
    writer(const bitset_core& c, std::vector<std::byte>& out) : c_(c), out_(out) {}

    std::uint64_t run() {
        collect();
        std::uint64_t count = 0;
        for (segment& s : segments_) {
            s.settle();
            write(s);
            ++count;
        }
        return count;
    }

private:
    void collect() {
        const std::vector<summary_word>& words = c_.words();
        segment cur;
        bool open = false;
        std::uint64_t covered = 0;  // blocks before this one belong to a segment (or are empty)
        auto close = [&] {
            if (!open) return;
            cur.info_end = infos_.size();
            segments_.push_back(cur);
            open = false;
        };
        auto start = [&](std::uint64_t first) {
            cur = segment{};
            cur.first = first;
            cur.end = first;
            cur.info_begin = infos_.size();
            open = true;
        };
        plane p{};
        for (std::size_t w = 0; w < words.size(); ++w) {
            for (std::uint64_t m = words[w].nonempty; m != 0; m &= m - 1) {
                const std::uint64_t b = 64 * std::uint64_t{w} + lowest_bit(m);
                const bool full = ((words[w].full >> lowest_bit(m)) & 1) != 0;
                const std::uint32_t len = c_.block_len(static_cast<std::size_t>(b));
                if (b > covered) {  // empty blocks [covered, b)
                    if (!open || !cur.takes_empty()) {
                        close();
                        start(covered);
                    }
                    cur.has_empty = true;
                    cur.end = b;
                }
                block_info x;
                if (full) {
                    x = block_info{b, true, mode::runs, 0, 0, 0};
                    if (!open || !cur.takes_full()) {
                        close();
                        start(b);
                    }
                    cur.has_full = true;
                } else {
                    c_.block_plane(static_cast<std::size_t>(b), p);
                    x = plan_block(b, p, len);
                    if (!open || !cur.takes(x)) {
                        close();
                        start(b);
                    }
                    if (!cur.has_stored) {
                        cur.has_stored = true;
                        cur.m = x.choice;
                        cur.k1 = x.k1;
                        cur.k2 = x.k2;
                    }
                }
                infos_.push_back(x);
                cur.end = b + 1;
                covered = b + 1;
            }
        }
        close();
    }

    // The values of segment s in mode s.m into values_ (runs: gaps into values_, lengths into
    // lengths_).
    void gather(const segment& s) {
        values_.clear();
        lengths_.clear();
        position_buffer<> positions;
        plane p{};
        std::uint64_t next = 0;                       // positions, zeros: one past the last
        std::uint64_t run_begin = 0, run_end = 0;     // runs: the open run
        bool run_open = false;
        auto add_run = [&](std::uint64_t begin, std::uint64_t end) {
            if (run_open && begin == run_end) {
                run_end = end;
                return;
            }
            if (run_open) {
                values_.push_back(run_begin - next);
                lengths_.push_back(run_end - run_begin - 1);
                next = run_end + 1;
            }
            run_begin = begin;
            run_end = end;
            run_open = true;
        };
        for (std::size_t i = s.info_begin; i < s.info_end; ++i) {
            const block_info& x = infos_[i];
            const std::uint64_t base = (x.block - s.first) * block_values;
            const std::uint32_t len = c_.block_len(static_cast<std::size_t>(x.block));
            if (x.full) {
                if (s.m == mode::runs) add_run(base, base + len);
                continue;
            }
            c_.block_plane(static_cast<std::size_t>(x.block), p);
            if (s.m == mode::zeros) {
                const plane q = complement(p, len);
                const std::uint32_t n = bitset_kernels().extract_positions(q.data(), positions.data());
                for (std::uint32_t j = 0; j < n; ++j) {
                    values_.push_back(base + positions.data()[j] - next);
                    next = base + positions.data()[j] + 1;
                }
                continue;
            }
            const std::uint32_t n = bitset_kernels().extract_positions(p.data(), positions.data());
            const std::uint16_t* q = positions.data();
            if (s.m == mode::positions) {
                for (std::uint32_t j = 0; j < n; ++j) {
                    values_.push_back(base + q[j] - next);
                    next = base + q[j] + 1;
                }
            } else {
                for (std::uint32_t j = 0; j < n;) {
                    std::uint32_t e = j + 1;
                    while (e < n && q[e] == q[e - 1] + 1) ++e;
                    add_run(base + q[j], base + q[e - 1] + 1);
                    j = e;
                }
            }
        }
        if (run_open) {
            values_.push_back(run_begin - next);
            lengths_.push_back(run_end - run_begin - 1);
        }
    }

    void put_header(mode m, std::uint64_t blocks) {
        out_.push_back(static_cast<std::byte>(m));
        put_varint(blocks);
    }
    void put_varint(std::uint64_t v) {
        while (v >= 0x80) {
            out_.push_back(static_cast<std::byte>((v & 0x7F) | 0x80));
            v >>= 7;
        }
        out_.push_back(static_cast<std::byte>(v));
    }

    void write(const segment& s) {
        const std::uint64_t bits = segment_bits(c_.size(), s);
        const std::uint64_t raw_bytes = (bits + 7) / 8;
        if (s.m != mode::raw) {
            gather(s);
            const rice_cost a = best_k(values_);
            const rice_cost b = s.m == mode::runs ? best_k(lengths_) : rice_cost{};
            if ((a.bits + b.bits + 7) / 8 < raw_bytes) {  // ties: raw, the fastest to load
                put_header(s.m, s.end - s.first);
                put_varint(values_.size());
                out_.push_back(static_cast<std::byte>(a.k));
                if (s.m == mode::runs) out_.push_back(static_cast<std::byte>(b.k));
                const std::size_t need = out_.size() + static_cast<std::size_t>((a.bits + b.bits) / 8 + 16);
                if (need > out_.capacity()) out_.reserve(std::max(need, 2 * out_.capacity()));
                bit_writer bw(out_, a.bits + b.bits);
                for (std::size_t i = 0; i < values_.size(); ++i) {
                    bw.code(values_[i], a.k);
                    if (s.m == mode::runs) bw.code(lengths_[i], b.k);
                }
                bw.finish();
                return;
            }
        }
        write_raw(s);
    }

    // Every block of s as raw_plane_bytes(len) bytes (empty blocks as zeros, full as ones).
    void write_raw(const segment& s) {
        put_header(mode::raw, s.end - s.first);
        std::size_t i = s.info_begin;
        plane p{};
        for (std::uint64_t b = s.first; b < s.end; ++b) {
            const std::uint32_t len = c_.block_len(static_cast<std::size_t>(b));
            p = plane{};
            if (i < s.info_end && infos_[i].block == b) {
                if (infos_[i].full) p = ones_plane(len);
                else c_.block_plane(static_cast<std::size_t>(b), p);
                ++i;
            }
            const std::size_t at = out_.size();
            out_.resize(at + raw_plane_bytes(len));
            raw_payload::write(p, len, out_.data() + at);
        }
    }

    const bitset_core& c_;
    std::vector<std::byte>& out_;
    std::vector<block_info> infos_;
    std::vector<segment> segments_;
    std::vector<std::uint64_t> values_, lengths_;
};

// ---- the loader ----------------------------------------------------------------------------

struct header {
    std::uint64_t size = 0, blocks = 0, count = 0, segments = 0, body = 0;
};

header parse_header(std::span<const std::byte> bytes) {
    const std::byte* h = bytes.data();
    if (h[11] != std::byte{0}) throw format_error("reserved header byte is not 0", 11);
    header f;
    f.size = load_le<std::uint64_t>(h + 16);
    f.blocks = load_le<std::uint64_t>(h + 24);
    f.count = load_le<std::uint64_t>(h + 32);
    f.segments = load_le<std::uint64_t>(h + 40);
    f.body = load_le<std::uint64_t>(h + 48);
    if (f.size > max_size) throw format_error("bitset size " + std::to_string(f.size) + " too large", 16);
    if (f.blocks != (f.size + block_values - 1) / block_values)
        throw format_error("block count " + std::to_string(f.blocks) + " does not match size " + std::to_string(f.size),
                           24);
    if (f.count > f.size)
        throw format_error("set bit count " + std::to_string(f.count) + " exceeds size " + std::to_string(f.size), 32);
    if (f.segments > f.blocks)
        throw format_error("segment count " + std::to_string(f.segments) + " exceeds block count " +
                               std::to_string(f.blocks),
                           40);
    // No segment is larger than its raw bits (the writer falls back to raw) plus its header.
    const std::uint64_t bound = (f.size + 7) / 8 + (max_segment_header + 1) * f.blocks;
    if (f.body > bound)
        throw format_error("body of " + std::to_string(f.body) + " bytes exceeds the bound " + std::to_string(bound) +
                               " for " + std::to_string(f.size) + " bits",
                           48);
    if (f.body < 2 * f.segments)
        throw format_error("body of " + std::to_string(f.body) + " bytes too small for " + std::to_string(f.segments) +
                               " segments",
                           48);
    const std::uint64_t summary = 16 * ((f.blocks + 63) / 64);
    if (summary > free_summary_bytes && summary / 64 > header_bytes + f.body)
        throw format_error("bitset of " + std::to_string(f.size) + " bits needs a " + std::to_string(summary) +
                               "-byte summary in memory: too large for a file of " +
                               std::to_string(header_bytes + f.body) + " bytes",
                           16);
    return f;
}

/// Blocks in order into the core writer: bits of the current block gather in a plane.
class block_sink {
public:
    block_sink(core_writer& out) noexcept : out_(out) {}
    plane& at(std::uint64_t b) {
        if (b != current_) {
            flush();
            current_ = b;
            bits_ = plane{};
        }
        return bits_;
    }
    void full(std::uint64_t b) {
        flush();
        out_.add_full(static_cast<std::size_t>(b));
    }
    void flush() {
        if (current_ == none) return;
        out_.add_plane(static_cast<std::size_t>(current_), bits_, bitset_kernels().stats(bits_.data()));
        current_ = none;
    }

private:
    static constexpr std::uint64_t none = ~std::uint64_t{0};
    core_writer& out_;
    std::uint64_t current_ = none;
    plane bits_{};
};

std::uint64_t read_varint(byte_reader& r, const char* what) {
    std::uint64_t v = 0;
    for (std::uint32_t shift = 0;; shift += 7) {
        const auto byte = static_cast<std::uint8_t>(r.read<std::uint8_t>(what));
        if (shift == 63 && byte > 1) r.fail(std::string(what) + ": varint overflows 64 bits");
        v |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
        if ((byte & 0x80) == 0) return v;
    }
}

void check_padding(const bit_reader& bits, std::span<const std::byte> payload, std::uint64_t base) {
    const std::uint64_t used = bits.position();
    if (used % 8 != 0 && (static_cast<unsigned>(payload[static_cast<std::size_t>(used / 8)]) >> (used % 8)) != 0)
        throw format_error("segment padding bits are not 0", base + used / 8);
}

}  // namespace

void save(const bitset_core& c, std::vector<std::byte>& out) {
    const std::size_t start = out.size();
    out.resize(start + header_bytes);
    std::uint64_t segments = 0;
    {
        writer w(c, out);
        segments = w.run();
    }
    std::byte* h = out.data() + start;
    file::write_header_start(h, file::kind_bitset, 0, version);
    store_le<std::uint64_t>(h + 16, c.size());
    store_le<std::uint64_t>(h + 24, c.block_count());
    store_le<std::uint64_t>(h + 32, c.count());
    store_le<std::uint64_t>(h + 40, segments);
    store_le<std::uint64_t>(h + 48, out.size() - start - header_bytes);
    const std::span<const std::byte> file(h, out.size() - start);
    store_le<std::uint64_t>(h + file::checksum_offset, file::checksum(file));
}

std::uint64_t total_bytes(std::span<const std::byte> header_only) {
    return header_bytes + parse_header(header_only).body;
}

std::unique_ptr<bitset_core> load(std::span<const std::byte> bytes) {
    const header f = parse_header(bytes);
    if (bytes.size() - header_bytes != f.body)
        throw format_error("file is " + std::to_string(bytes.size()) + " bytes, header announces " +
                               std::to_string(header_bytes + f.body),
                           std::min<std::uint64_t>(bytes.size(), header_bytes + f.body));
    if (load_le<std::uint64_t>(bytes.data() + file::checksum_offset) != file::checksum(bytes))
        throw format_error("checksum mismatch: the file is corrupted", file::checksum_offset);

    core_writer out(f.size, 0, 0);
    block_sink sink(out);
    byte_reader r(bytes.subspan(header_bytes), header_bytes);
    std::uint64_t block = 0;  // first block of the next segment
    for (std::uint64_t seg = 0; seg < f.segments; ++seg) {
        const std::uint64_t at = r.offset();
        const auto m = static_cast<mode>(r.read<std::uint8_t>("segment mode"));
        if (static_cast<unsigned>(m) > 3)
            throw format_error("segment " + std::to_string(seg) + ": unknown mode " + std::to_string(static_cast<unsigned>(m)),
                               at);
        const std::uint64_t blocks = read_varint(r, "segment block count");
        if (blocks == 0 || blocks > f.blocks - block)
            throw format_error("segment " + std::to_string(seg) + ": block count " + std::to_string(blocks) +
                                   " outside [1, " + std::to_string(f.blocks - block) + "]",
                               at + 1);
        segment s;
        s.first = block;
        s.end = block + blocks;
        const std::uint64_t bits = segment_bits(f.size, s);
        if (m == mode::raw) {
            for (std::uint64_t b = s.first; b < s.end; ++b) {
                const std::uint32_t len = out.block_len(static_cast<std::size_t>(b));
                plane& p = sink.at(b);
                raw_payload::apply(r, len, p);  // checks the bytes present and the bits past len
                sink.flush();
            }
            block = s.end;
            continue;
        }
        const std::uint64_t n = read_varint(r, "segment item count");
        const std::uint64_t limit = m == mode::runs ? (bits + 1) / 2 : bits;
        const std::uint64_t cost = m == mode::runs ? 2 : 1;  // bits each item takes at least
        if (n > limit || n > 8 * static_cast<std::uint64_t>(r.remaining()) / cost)
            throw format_error("segment " + std::to_string(seg) + ": " + std::to_string(n) +
                                   " items do not fit its " + std::to_string(bits) + " bits or the bytes left",
                               at + 1);
        const auto k1 = static_cast<std::uint32_t>(r.read<std::uint8_t>("segment code parameter"));
        const std::uint32_t k2 = m == mode::runs ? r.read<std::uint8_t>("segment code parameter") : 0;
        if ((k1 & ~exp_golomb) > max_k || (k2 & ~exp_golomb) > max_k)
            throw format_error("segment " + std::to_string(seg) + ": code parameter k above " + std::to_string(max_k),
                               r.offset() - 1);
        const std::span<const std::byte> payload = bytes.subspan(static_cast<std::size_t>(r.offset()));
        bit_reader in(payload, r.offset());
        const std::uint64_t base = s.first * block_values;
        auto bad = [&](const std::string& what) {
            throw format_error("segment " + std::to_string(seg) + ": " + what, in.offset());
        };
        std::uint64_t next = 0;  // one past the last position or run
        if (m == mode::positions) {
            for (std::uint64_t i = 0; i < n; ++i) {
                const std::uint64_t v = in.code(k1);
                if (v >= bits - next) bad("position beyond the segment's " + std::to_string(bits) + " bits");
                const std::uint64_t p = next + v;
                const std::uint32_t bit = static_cast<std::uint32_t>((base + p) % block_values);
                sink.at((base + p) / block_values)[bit >> 5] |= 1u << (bit & 31);
                next = p + 1;
            }
            sink.flush();
        } else if (m == mode::zeros) {
            std::uint64_t b = s.first;  // blocks before b are done
            plane* ones = nullptr;
            for (std::uint64_t i = 0; i < n; ++i) {
                const std::uint64_t v = in.code(k1);
                if (v >= bits - next) bad("clear position beyond the segment's " + std::to_string(bits) + " bits");
                const std::uint64_t p = base + next + v;
                const std::uint64_t pb = p / block_values;
                if (ones == nullptr || pb != b) {
                    if (ones != nullptr) ++b;
                    for (; b < pb; ++b) sink.full(b);
                    ones = &sink.at(pb);
                    *ones = ones_plane(out.block_len(static_cast<std::size_t>(pb)));
                }
                const std::uint32_t bit = static_cast<std::uint32_t>(p % block_values);
                (*ones)[bit >> 5] &= ~(1u << (bit & 31));
                next = next + v + 1;
            }
            if (ones != nullptr) ++b;
            for (; b < s.end; ++b) sink.full(b);
        } else {
            for (std::uint64_t i = 0; i < n; ++i) {
                const std::uint64_t gap = in.code(k1);
                if (next >= bits || gap >= bits - next) bad("run starts beyond the segment's " + std::to_string(bits) + " bits");
                const std::uint64_t begin = next + gap;
                const std::uint64_t length = in.code(k2);  // bits in the run, less one
                if (length >= bits - begin) bad("run ends beyond the segment's " + std::to_string(bits) + " bits");
                std::uint64_t lo = base + begin;
                const std::uint64_t hi = base + begin + length + 1;
                while (lo < hi) {
                    const std::uint64_t b = lo / block_values;
                    const std::uint64_t block_begin = b * block_values;
                    const std::uint32_t len = out.block_len(static_cast<std::size_t>(b));
                    const std::uint64_t stop = std::min(hi, block_begin + len);
                    if (lo == block_begin && stop == block_begin + len) sink.full(b);
                    else flip_range(sink.at(b), static_cast<std::uint32_t>(lo - block_begin),
                                    static_cast<std::uint32_t>(stop - block_begin));
                    lo = stop;
                }
                next = begin + length + 2;  // runs never touch: the next starts a bit further
            }
            sink.flush();
        }
        check_padding(in, payload, r.offset());
        (void)r.take(static_cast<std::size_t>((in.position() + 7) / 8), "segment payload");
        block = s.end;
    }
    sink.flush();
    if (r.remaining() != 0)
        throw format_error("segments end " + std::to_string(r.remaining()) + " bytes before the file does", r.offset());
    std::unique_ptr<bitset_core> core = out.finish();
    if (core->count() != f.count)
        throw format_error("segments hold " + std::to_string(core->count()) + " set bits, header announces " +
                               std::to_string(f.count),
                           32);
    return core;
}

}  // namespace bitplane::detail::bitset_v2
