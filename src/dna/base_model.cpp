// The modeled payload (base_model.hpp).
//
// Layout: u64 size of the rest-part, the rest-part, u64 plain base count, the coded bases.
// The rest-part is the vector of r(letter) = lower | special << 1 | group << 2 | (special ?
// base bits : 0) << 4 as u16 block sizes (0 = an all-zero block, not stored) and the blocks.
// The coded bases are the 2-bit base of every plain letter, in order, each as two binary
// decisions (high bit, then low bit) predicted by mixing context models of orders 1 to 24 over
// the preceding plain bases.
#include "dna/base_model.hpp"

#include <bitplane/codec.hpp>
#include <bitplane/error.hpp>

#include "codec/byte_io.hpp"
#include "core/checked_size.hpp"
#include "dna/code_window.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

namespace bitplane::dna::detail {
namespace {

using bitplane::detail::load_le;
using bitplane::detail::store_le;

// ---- the model -------------------------------------------------------------------------------

// Coder v1 (modeled_coder::v1): the mixer's weights are never clamped, and on long exact
// repeats they grow until the dot product passes 32 bits (a 1 Mb "ACAC..." repeat does). Files
// coded by v1 were coded with 32-bit two's-complement sums that wrap there; the model is part of
// the format (docs/format.md section 6), so v1 keeps the wrap, as defined arithmetic instead of
// signed overflow (undefined behaviour, which UBSan reported): bit for bit what the compiled
// code gave before. Coder v2 fixes the cause (model::update says how).
[[nodiscard]] constexpr int wrapping_add(int a, int b) noexcept {
    return static_cast<int>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
[[nodiscard]] constexpr int wrapping_mul(int a, int b) noexcept {
    return static_cast<int>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}
static_assert(wrapping_add(0x7FFFFFFF, 1) == -0x7FFFFFFF - 1 && wrapping_mul(0x10000, 0x10000) == 0 &&
              wrapping_mul(-3, 5) == -15);

// Logistic helpers over 12-bit probabilities, as in lpaq: stretch(p) = ln(p / (1 - p)), squash
// its inverse, both scaled by 256.
struct logistic {
    std::array<std::int16_t, 4096> stretch_table{};
    logistic() {
        for (int i = 0; i < 4096; ++i) {
            const double p = (i + 0.5) / 4096.0;
            stretch_table[static_cast<std::size_t>(i)] = static_cast<std::int16_t>(std::lround(std::log(p / (1 - p)) * 256.0));
        }
    }
    [[nodiscard]] int stretch(int p) const noexcept { return stretch_table[static_cast<std::size_t>(p)]; }
    static int squash(int x) noexcept {  // x in 1/256 units -> 12-bit probability
        if (x > 2047) x = 2047;
        if (x < -2047) x = -2047;
        const double p = 1.0 / (1.0 + std::exp(-x / 256.0));
        return std::clamp(static_cast<int>(p * 4096.0), 1, 4095);
    }
};

struct squash_table {
    std::array<std::int16_t, 4096> t{};
    squash_table() {
        for (int i = 0; i < 4096; ++i) t[static_cast<std::size_t>(i)] = static_cast<std::int16_t>(logistic::squash(i - 2048));
    }
    [[nodiscard]] int operator()(int x) const noexcept {
        x = std::clamp(x, -2047, 2047);
        return t[static_cast<std::size_t>(x + 2048)];
    }
};

const logistic& logit() {
    static const logistic l;
    return l;
}
const squash_table& squasher() {
    static const squash_table s;
    return s;
}

// Context orders: how many preceding plain bases each model reads. Low orders index a table
// directly; high orders hash into a table sized for the sequence (2^16 to 2^22 slots of 8
// bytes: at most 32 MiB a model). Chosen on lambda, E. coli and human chr20 (docs/dna.md):
// more or other orders changed E. coli by under 0.01 bit per base and cost time.
constexpr std::array<unsigned, 6> orders = {2, 3, 6, 11, 16, 22};
// Orders from this one up also learn from the reverse complement of what they see (inverted
// repeats: a gene on the other strand), as GeCo does; worth 0.01-0.05 bit per base.
constexpr unsigned inverted_repeat_order = 11;
constexpr unsigned model_count = orders.size();
constexpr unsigned inputs = model_count + 1;  // + a bias input

// A slot: the counters of the three binary decisions of one context (node 0: high bit;
// nodes 1, 2: low bit after high bit 0 or 1), each a 12-bit probability and a 4-bit count.
// Stored XORed with the initial counter (probability 1/2, count 0: 2048 << 4), so that a new
// table is all zeros (value-initialized: one memset, not a loop over the slots).
struct slot {
    std::uint16_t node[4];
};
constexpr std::uint16_t initial_counter = 2048 << 4;
[[nodiscard]] constexpr int counter_of(std::uint16_t stored) noexcept { return stored ^ initial_counter; }
[[nodiscard]] constexpr std::uint16_t stored_of(int counter) noexcept {
    return static_cast<std::uint16_t>(counter ^ initial_counter);
}
static_assert(counter_of(0) == initial_counter && counter_of(stored_of(0x1234)) == 0x1234);

// One model's table: 2^bits slots, indexed by context (or its hash). Stored densely, or, for a
// sequence too short to touch more than a small part of it, as an open-addressing map of the
// slots it touched (the others hold the initial counters): the same table, the same coded
// bytes, without allocating and clearing 2^bits slots (512 KiB at 2^16) for a few hundred
// bases. A base touches at most two slots of a table (its context, and the inverted repeat's),
// so a sequence of n plain bases touches at most 2n: the map has 4n cells (at most half full)
// and never grows. Kept for n up to 2^bits / 64 (1024 bases at 2^16: 48 KiB a table); past
// that the probing costs more than clearing the dense table (release build, dev VM, pack and
// unpack: 300 bases 3x faster, 1,000 bases 1.2-1.5x; 4,000 bases were 1.6x slower as a map).
class slot_table {
public:
    slot_table(unsigned bits, std::uint64_t plain) {
        const std::size_t dense = std::size_t{1} << bits;
        if (bits >= 16 && plain <= dense / 64) {  // the hashed tables (orders 11 and up)
            const std::size_t cells = std::bit_ceil(std::max<std::size_t>(64, 4 * static_cast<std::size_t>(plain)));
            mask_ = cells - 1;
            keys_ = std::make_unique<std::uint32_t[]>(cells);
            slots_ = std::make_unique<slot[]>(cells);
        } else {
            slots_ = std::make_unique<slot[]>(dense);  // zeros: one memset
        }
    }
    [[nodiscard]] slot& operator[](std::size_t index) noexcept {
        if (!keys_) return slots_[index];
        const auto key = static_cast<std::uint32_t>(index + 1);  // 0: an empty cell; index < 2^22
        std::size_t cell = index & mask_;  // indices of the tables kept sparse are hashes
        while (keys_[cell] != key) {
            if (keys_[cell] == 0) {
                keys_[cell] = key;
                break;
            }
            cell = (cell + 1) & mask_;
        }
        return slots_[cell];
    }

private:
    std::unique_ptr<std::uint32_t[]> keys_;  // null: dense
    std::unique_ptr<slot[]> slots_;
    std::size_t mask_ = 0;
};

// The mixer's output is squash(clamp(dot >> 16, -2047, 2047)): past +-2047 (a probability of
// 4094/4096 or 1/4096) it saturates. v1 stepped the weights by the coding error even there, and
// that error never vanishes (the probability cannot pass 4094/4096, so a predicted 1 still has
// err = 4): on a perfectly predicted stretch (a long exact repeat) every decision pushed the
// weights further out, without bound, until the 32-bit sums wrapped and the predictions turned
// to noise (20 copies of a random 200 kb sequence: 2.44 bits per base, more than 2-bit
// packing). v2 takes no mixer step where the output is saturated and already agrees with the
// bit (the gradient of the clamped output is zero there), clamps every weight to
// +-max_weight (a bound for any input, forged ones included; ordinary genomes stay far below
// it) and sums in 64 bits (|w| <= 2^20, |st| <= 2307, 7 inputs: |dot| < 2^35).
constexpr int max_weight = 1 << 20;  // 16.0 in the weights' 16.16 fixed point

template <modeled_coder Coder>
class model {
    static constexpr bool bounded = Coder != modeled_coder::v1;

public:
    explicit model(std::uint64_t plain) {
        // Tables of high orders: about one slot per base, 2^16 .. 2^22 slots.
        unsigned bits = 16;
        while (bits < 22 && (std::uint64_t{1} << bits) < plain) ++bits;
        for (unsigned m = 0; m < model_count; ++m) {
            const unsigned direct = 2 * orders[m];
            table_bits_[m] = direct <= bits ? direct : bits;
            tables_[m].emplace(table_bits_[m], plain);
        }
        for (auto& w : weights_) w = (1 << 16) / static_cast<int>(model_count);
    }

    // Point every model at the context of the next base.
    void start_base() {
        for (unsigned m = 0; m < model_count; ++m) current_[m] = &(*tables_[m])[index(m, history_)];
    }

    // Probability (12 bits) that the bit of decision `node` is 1.
    int predict(unsigned node) {
        node_ = node;
        const logistic& l = logit();
        const int* w = &weights_[weight_set(node) * inputs];
        if constexpr (bounded) {
            std::int64_t dot = 0;
            for (unsigned m = 0; m < model_count; ++m) {
                st_[m] = l.stretch(counter_of(current_[m]->node[node]) >> 4);
                dot += std::int64_t{w[m]} * st_[m];
            }
            st_[model_count] = 256;
            dot += std::int64_t{w[model_count]} * 256;
            const std::int64_t x = dot >> 16;
            saturated_ = x >= 2047 ? 1 : x <= -2047 ? -1 : 0;
            p_ = squasher()(static_cast<int>(std::clamp<std::int64_t>(x, -2047, 2047)));
        } else {
            int dot = 0;
            for (unsigned m = 0; m < model_count; ++m) {
                st_[m] = l.stretch(counter_of(current_[m]->node[node]) >> 4);
                dot = wrapping_add(dot, wrapping_mul(w[m], st_[m]));
            }
            st_[model_count] = 256;
            dot = wrapping_add(dot, wrapping_mul(w[model_count], 256));
            p_ = squasher()(dot >> 16);
        }
        return p_;
    }

    void update(int bit) {
        // Mixer: gradient step on coding cost (a small rate: DNA is noisy).
        const int err = ((bit << 12) - p_) * 2;
        int* w = &weights_[weight_set(node_) * inputs];
        if constexpr (bounded) {
            if (saturated_ != (bit ? 1 : -1)) {
                for (unsigned m = 0; m < inputs; ++m)
                    w[m] = std::clamp(w[m] + ((st_[m] * err) >> 12), -max_weight, max_weight);  // |st * err| < 2^25
            }
        } else {
            for (unsigned m = 0; m < inputs; ++m) w[m] = wrapping_add(w[m], (st_[m] * err) >> 12);  // |st * err| < 2^25
        }
        for (unsigned m = 0; m < model_count; ++m) learn(current_[m]->node[node_], bit, limit_[m]);
    }

    void end_base(unsigned base) {
        history_ = (history_ << 2) | base;
        reverse_ = (reverse_ >> 2) | (std::uint64_t{3u - base} << 62);
        // Inverted repeats: the (o+1)-mer that ends here, reverse-complemented, is context
        // (the complements of the last o bases, newest first) followed by the complement of
        // the base before them.
        for (unsigned m = 0; m < model_count; ++m) {
            const unsigned o = orders[m];
            if (o < inverted_repeat_order) continue;
            const std::uint64_t ctx = reverse_ >> (64 - 2 * o);
            const auto symbol = static_cast<unsigned>(3u - ((history_ >> (2 * o)) & 3u));
            slot& s = (*tables_[m])[index(m, ctx)];
            const int high = static_cast<int>(symbol >> 1);
            learn(s.node[0], high, limit_[m]);
            learn(s.node[1 + high], static_cast<int>(symbol & 1u), limit_[m]);
        }
    }

private:
    [[nodiscard]] static unsigned weight_set(unsigned node) noexcept { return node; }

    [[nodiscard]] std::size_t index(unsigned m, std::uint64_t history) const noexcept {
        const unsigned o = orders[m];
        const std::uint64_t ctx = history & ((std::uint64_t{1} << (2 * o)) - 1);
        if (2 * o <= table_bits_[m]) return static_cast<std::size_t>(ctx);
        return static_cast<std::size_t>(((ctx + o) * 0x9E3779B97F4A7C15ull) >> (64 - table_bits_[m]));
    }

    // A counter moves toward the bit by 1/(count + 1.5): a frequency estimate while the context
    // is young, then (count capped at `limit`) an adaptive one.
    static void learn(std::uint16_t& stored, int bit, int limit) noexcept {
        const int n = counter_of(stored);
        const int p = n >> 4, count = n & 15;
        const int target = bit ? 4095 : 0;
        const int next = p + (((target - p) * recip_[static_cast<std::size_t>(count)]) >> 16);
        stored = stored_of((std::clamp(next, 1, 4095) << 4) | std::min(count + 1, limit));
    }
    // 65536 / (count + 1.5), as the constructor computed it in double before.
    static constexpr std::array<int, 17> recip_ = [] {
        std::array<int, 17> r{};
        for (unsigned k = 0; k < 17; ++k) r[k] = static_cast<int>(65536.0 / (k + 1.5));
        return r;
    }();

    std::array<std::optional<slot_table>, model_count> tables_;
    std::array<unsigned, model_count> table_bits_{};
    std::array<slot*, model_count> current_{};
    std::array<int, 3 * inputs> weights_{};
    std::array<int, inputs> st_{};
    static constexpr std::array<int, model_count> limit_ = {15, 15, 15, 15, 6, 4};
    std::uint64_t history_ = 0;  // plain bases, newest in the low bits
    std::uint64_t reverse_ = 0;  // their complements, newest in the high bits
    unsigned node_ = 0;
    int p_ = 2048;
    int saturated_ = 0;  // v2: +1 / -1 where the last prediction's dot >> 16 reached +2047 / -2047
};

// Soft-masking, one binary decision a letter ("lower case?"), predicted from the previous
// letter's case and how long its run has been (in powers of two): masked runs of real genomes
// are hundreds of letters long, so a case change costs about log2(run length) bits and a
// letter inside a run almost nothing.
class case_model {
public:
    case_model() {
        for (auto& c : cells_) c = {32768, 0};
    }
    [[nodiscard]] int predict() const noexcept { return std::clamp(cells_[context()].p >> 4, 1, 4095); }
    void update(int lower) noexcept {
        cell& c = cells_[context()];
        // Frequency estimate (1 / (n + 1.5)) for the first thousand letters of a context, so
        // that a genome without soft-masking pays a few bits in all, not a bit per thousand.
        const int target = lower ? 65535 : 0;
        c.p += static_cast<int>((static_cast<std::int64_t>(target - c.p) * 2) / (2 * c.n + 3));
        c.n = std::min(c.n + 1, 1023);
        run_ = lower == last_ ? run_ + 1 : 1;
        last_ = lower;
    }

private:
    struct cell {
        int p;  // probability of lower case, 16 bits
        int n;  // letters seen in this context (capped)
    };
    [[nodiscard]] std::size_t context() const noexcept {
        return static_cast<std::size_t>(last_) * 13 + std::min<std::size_t>(std::bit_width(run_), 12);
    }
    std::array<cell, 26> cells_{};
    std::uint64_t run_ = 0;
    int last_ = 0;
};

// ---- binary arithmetic coder (carry-less, 32-bit, as in lpaq) --------------------------------

class encoder {
public:
    explicit encoder(std::vector<std::byte>& out) : out_(out) {}
    void code(int bit, int p) {  // p: 12-bit probability of a 1
        const std::uint32_t mid = x1_ + static_cast<std::uint32_t>((static_cast<std::uint64_t>(x2_ - x1_) * static_cast<std::uint32_t>(p)) >> 12);
        if (bit) x2_ = mid; else x1_ = mid + 1;
        while (((x1_ ^ x2_) & 0xFF000000u) == 0) {
            out_.push_back(static_cast<std::byte>(x2_ >> 24));
            x1_ <<= 8;
            x2_ = (x2_ << 8) | 255;
        }
    }
    void flush() {
        for (int k = 0; k < 4; ++k) {
            out_.push_back(static_cast<std::byte>(x1_ >> 24));
            x1_ <<= 8;
        }
    }

private:
    std::vector<std::byte>& out_;
    std::uint32_t x1_ = 0, x2_ = 0xFFFFFFFFu;
};

class decoder {
public:
    explicit decoder(std::span<const std::byte> in) : in_(in) {
        for (int k = 0; k < 4; ++k) x_ = (x_ << 8) | next_byte();
    }
    int code(int p) {
        const std::uint32_t mid = x1_ + static_cast<std::uint32_t>((static_cast<std::uint64_t>(x2_ - x1_) * static_cast<std::uint32_t>(p)) >> 12);
        const int bit = x_ <= mid ? 1 : 0;
        if (bit) x2_ = mid; else x1_ = mid + 1;
        while (((x1_ ^ x2_) & 0xFF000000u) == 0) {
            x1_ <<= 8;
            x2_ = (x2_ << 8) | 255;
            x_ = (x_ << 8) | next_byte();
        }
        return bit;
    }

private:
    std::uint32_t next_byte() noexcept {  // past the end: zeros (the checksum vouches for the bytes)
        return pos_ < in_.size() ? static_cast<std::uint32_t>(in_[pos_++]) : 0u;
    }
    std::span<const std::byte> in_;
    std::size_t pos_ = 0;
    std::uint32_t x1_ = 0, x2_ = 0xFFFFFFFFu, x_ = 0;
};

// ---- the rest-part ---------------------------------------------------------------------------

// The rest-part value of a code: special << 1 | group << 2 | (special ? base bits : 0) << 4
// (bit 0 is always 0: case is coded by case_model).
std::uint32_t rest_of(std::uint32_t c) noexcept {
    const std::uint32_t special = (c >> 3) & 1u;
    return special << 1 | ((c >> 4) & 3u) << 2 | (special ? (c & 3u) : 0u) << 4;
}
std::uint32_t code_of(std::uint32_t rest, std::uint32_t base, std::uint32_t lower) noexcept {
    const std::uint32_t special = (rest >> 1) & 1u;
    return (special ? (rest >> 4) & 3u : base) | lower << 2 | special << 3 | ((rest >> 2) & 3u) << 4;
}

constexpr codec::encode_options rest_options{false, false, false, false, true, true};

template <modeled_coder Coder>
void write_modeled_with(const sequence& s, std::vector<std::byte>& out) {
    const std::size_t n = s.size();
    const std::size_t blocks = (n + block_values - 1) / block_values;
    // Pass 1: the rest-part, and the plain base count.
    const std::size_t rest_start = out.size();
    out.resize(rest_start + 8 + 2 * blocks);
    std::array<std::uint32_t, block_values> codes, rest;
    std::array<std::byte, codec::max_block_bytes> scratch;
    std::uint64_t plain = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t count = std::min(block_values, n - b * block_values);
        s.codes().decode(b * block_values, std::span<std::uint32_t>(codes.data(), count));
        std::uint32_t any = 0;
        for (std::size_t i = 0; i < count; ++i) {
            rest[i] = rest_of(codes[i]);
            any |= rest[i];
            plain += ((codes[i] >> 3) & 1u) ^ 1u;
        }
        std::size_t size = 0;
        if (any != 0) {
            size = codec::encode_block(std::span<const std::uint32_t>(rest.data(), count), false, scratch, rest_options);
            out.insert(out.end(), scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(size));
        }
        store_le<std::uint16_t>(out.data() + rest_start + 8 + 2 * b, static_cast<std::uint16_t>(size));
    }
    store_le<std::uint64_t>(out.data() + rest_start, out.size() - rest_start - 8);
    // Pass 2: the plain bases.
    const std::size_t count_at = out.size();
    out.resize(count_at + 8);
    store_le<std::uint64_t>(out.data() + count_at, plain);
    model<Coder> m(plain);
    case_model cases;
    encoder enc(out);
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t count = std::min(block_values, n - b * block_values);
        s.codes().decode(b * block_values, std::span<std::uint32_t>(codes.data(), count));
        for (std::size_t i = 0; i < count; ++i) {
            const int lower = static_cast<int>((codes[i] >> 2) & 1u);
            enc.code(lower, cases.predict());
            cases.update(lower);
            if (codes[i] & special_bit) continue;
            const unsigned base = codes[i] & 3u;
            m.start_base();
            const int high = static_cast<int>(base >> 1);
            enc.code(high, m.predict(0));
            m.update(high);
            const int low = static_cast<int>(base & 1u);
            enc.code(low, m.predict(1u + static_cast<unsigned>(high)));
            m.update(low);
            m.end_base(base);
        }
    }
    enc.flush();
}

// docs/format.md section 6 (modeled payload): the most plain bases a coded byte may announce.
constexpr std::uint64_t max_plain_bases_per_coded_byte = 8192;

template <modeled_coder Coder>
bitplane::vector<std::uint32_t> read_modeled_with(std::span<const std::byte> payload, std::uint64_t base, std::uint64_t letters) {
    bitplane::detail::byte_reader in(payload, base);
    const auto rest_bytes = in.read<std::uint64_t>("rest-part size");
    in.need(rest_bytes, "rest-part");
    const std::uint64_t blocks = bitplane::detail::checked_add(letters, block_values - 1, "letter count", base) / block_values;
    if (blocks > rest_bytes / 2) throw format_error("packed DNA: rest-part too small for " + std::to_string(letters) + " letters", in.offset());
    const std::size_t table_at = in.position();
    in.take(2 * blocks, "block sizes");
    std::uint64_t total = 0;
    for (std::uint64_t b = 0; b < blocks; ++b) {
        const auto size = load_le<std::uint16_t>(payload.data() + table_at + 2 * b);
        if (size > codec::max_block_bytes) throw format_error("packed DNA: block size " + std::to_string(size), base + table_at + 2 * b);
        total += size;
    }
    if (total != rest_bytes - 2 * blocks) throw format_error("packed DNA: rest-part blocks do not fill it exactly", base + table_at);
    const std::size_t blocks_at = in.position();
    in.take(total, "rest-part blocks");
    const auto plain = in.read<std::uint64_t>("plain base count");
    if (plain > letters) throw format_error("packed DNA: more plain bases than letters", in.offset() - 8);
    // Expansion bound, before the model's loop: every plain base costs three binary decisions
    // (case, two base bits) at a probability of at most 4095/4096 each, so at least 0.00105
    // bits; a coded byte holds at most 7570 plain bases. A forged count past 8192 a byte (plus
    // the coder's 4-byte flush and some slack) is refused instead of decoded from zeros.
    const std::uint64_t coded_bytes = payload.size() - in.position();
    if (plain / max_plain_bases_per_coded_byte > coded_bytes + 8)
        throw format_error("packed DNA: " + std::to_string(plain) + " plain bases cannot be coded in " +
                               std::to_string(coded_bytes) + " bytes",
                           in.offset() - 8);
    decoder dec(payload.subspan(in.position()));
    model<Coder> m(plain);
    case_model cases;
    bitplane::vector<std::uint32_t> out;
    std::array<std::uint32_t, block_values> rest, codes;
    std::uint64_t decoded = 0;
    std::size_t at = blocks_at;
    code_window window;
    for (std::uint64_t b = 0; b < blocks; ++b) {
        const std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(block_values, letters - b * block_values));
        const auto size = load_le<std::uint16_t>(payload.data() + table_at + 2 * b);
        if (size == 0) {
            std::fill(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(count), 0u);
        } else {
            try {
                codec::decode_block(payload.subspan(at, size), std::span<std::uint32_t>(rest.data(), count));
            } catch (const format_error& e) {
                throw format_error(std::string("packed DNA rest-part block ") + std::to_string(b) + ": " + e.what(), base + at);
            }
            at += size;
        }
        std::uint32_t any = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const bool special = (rest[i] & 2u) != 0;
            if (rest[i] >= 64 || (rest[i] & 1u) != 0 || (!special && rest[i] != 0) ||
                (special && !is_valid_code(code_of(rest[i], 0, 0))))
                throw format_error("packed DNA: rest-part value " + std::to_string(rest[i]) + " of letter " +
                                       std::to_string(b * block_values + i) + " is not one",
                                   base + at);
            const int lower = dec.code(cases.predict());
            cases.update(lower);
            unsigned bits = 0;
            if (!special) {
                if (++decoded > plain) throw format_error("packed DNA: more plain letters than the count says", base);
                m.start_base();
                const int high = dec.code(m.predict(0));
                m.update(high);
                const int low = dec.code(m.predict(1u + static_cast<unsigned>(high)));
                m.update(low);
                bits = static_cast<unsigned>(high << 1 | low);
                m.end_base(bits);
            }
            codes[i] = code_of(rest[i], bits, static_cast<std::uint32_t>(lower));
            if (!is_valid_code(codes[i]))  // a lower-case gap
                throw format_error("packed DNA: letter " + std::to_string(b * block_values + i) + " decodes to no letter", base);
            any |= codes[i];
        }
        window.clear();
        transpose(std::span<const std::uint32_t>(codes.data(), count), window.planes);
        window.nonzero = any;
        append_window(out, window, count);
    }
    if (decoded != plain) throw format_error("packed DNA: fewer plain letters than the count says", base);
    return out;
}

}  // namespace

void write_modeled(const sequence& s, std::vector<std::byte>& out, modeled_coder coder) {
    if (coder == modeled_coder::v1) {
        write_modeled_with<modeled_coder::v1>(s, out);
    } else {
        write_modeled_with<modeled_coder::v2>(s, out);
    }
}

bitplane::vector<std::uint32_t> read_modeled(std::span<const std::byte> payload, std::uint64_t base, std::uint64_t letters,
                                             modeled_coder coder) {
    return coder == modeled_coder::v1 ? read_modeled_with<modeled_coder::v1>(payload, base, letters)
                                      : read_modeled_with<modeled_coder::v2>(payload, base, letters);
}

}  // namespace bitplane::dna::detail
