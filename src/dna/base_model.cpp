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
#include "dna/code_window.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <memory>
#include <string>

namespace bitplane::dna::detail {
namespace {

using bitplane::detail::load_le;
using bitplane::detail::store_le;

// ---- the model -------------------------------------------------------------------------------

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

// Context orders, and how many plain bases of history each reads. Low orders index a table
// directly; high orders hash into a table sized for the sequence.
constexpr std::array<unsigned, 7> orders = {1, 2, 3, 6, 11, 16, 22};
constexpr unsigned model_count = orders.size();
constexpr unsigned inputs = model_count + 1;  // + a bias input

// A slot: the counters of the three binary decisions of one context (node 0: high bit;
// nodes 1, 2: low bit after high bit 0 or 1), each a 12-bit probability and a 4-bit count.
struct slot {
    std::uint16_t node[4];
};

class model {
public:
    explicit model(std::uint64_t plain) {
        // Tables of high orders: about one slot per base, 2^16 .. 2^22 slots.
        unsigned bits = 16;
        while (bits < 22 && (std::uint64_t{1} << bits) < plain) ++bits;
        for (unsigned m = 0; m < model_count; ++m) {
            const unsigned direct = 2 * orders[m];
            table_bits_[m] = direct <= bits ? direct : bits;
            tables_[m] = std::make_unique<slot[]>(std::size_t{1} << table_bits_[m]);
            for (std::size_t i = 0; i < (std::size_t{1} << table_bits_[m]); ++i)
                for (auto& n : tables_[m][i].node) n = static_cast<std::uint16_t>(2048 << 4);
        }
        for (auto& w : weights_) w = (1 << 16) / 3;
        for (unsigned k = 0; k < 17; ++k) recip_[k] = static_cast<int>(65536.0 / (k + 1.5));
    }

    // Point every model at the context of the next base.
    void start_base() {
        for (unsigned m = 0; m < model_count; ++m) {
            const unsigned o = orders[m];
            const std::uint64_t ctx = o >= 32 ? history_ : history_ & ((std::uint64_t{1} << (2 * o)) - 1);
            std::uint64_t index = ctx;
            if (2 * o > table_bits_[m]) index = ((ctx + o) * 0x9E3779B97F4A7C15ull) >> (64 - table_bits_[m]);
            current_[m] = &tables_[m][index];
        }
    }

    // Probability (12 bits) that the bit of decision `node` is 1.
    int predict(unsigned node) {
        node_ = node;
        const logistic& l = logit();
        int dot = 0;
        const int* w = &weights_[weight_set(node) * inputs];
        for (unsigned m = 0; m < model_count; ++m) {
            st_[m] = l.stretch(current_[m]->node[node] >> 4);
            dot += w[m] * st_[m];
        }
        st_[model_count] = 256;
        dot += w[model_count] * 256;
        p_ = squasher()(dot >> 16);
        return p_;
    }

    void update(int bit) {
        // Mixer: gradient step on coding cost.
        const int err = ((bit << 12) - p_) * 6;
        int* w = &weights_[weight_set(node_) * inputs];
        for (unsigned m = 0; m < inputs; ++m) w[m] += (st_[m] * err) >> 10;
        // Counters: faster adaptation while a context is young.
        for (unsigned m = 0; m < model_count; ++m) {
            std::uint16_t& n = current_[m]->node[node_];
            const int p = n >> 4, count = n & 15;
            const int target = bit ? 4095 : 0;
            const int next = p + (((target - p) * recip_[count]) >> 16);
            n = static_cast<std::uint16_t>((std::clamp(next, 1, 4095) << 4) | std::min(count + 1, limit_[m]));
        }
    }

    void end_base(unsigned base) { history_ = (history_ << 2) | base; }

private:
    [[nodiscard]] unsigned weight_set(unsigned node) const noexcept {
        return node * 16 + static_cast<unsigned>(history_ & 15);
    }

    std::array<std::unique_ptr<slot[]>, model_count> tables_;
    std::array<unsigned, model_count> table_bits_{};
    std::array<slot*, model_count> current_{};
    std::array<int, 3 * 16 * inputs> weights_{};
    std::array<int, inputs> st_{};
    std::array<int, 17> recip_{};
    static constexpr std::array<int, model_count> limit_ = {15, 15, 15, 15, 12, 6, 4};
    std::uint64_t history_ = 0;
    unsigned node_ = 0;
    int p_ = 2048;
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

std::uint32_t rest_of(std::uint32_t c) noexcept {
    const std::uint32_t special = (c >> 3) & 1u;
    return ((c >> 2) & 1u) | special << 1 | ((c >> 4) & 3u) << 2 | (special ? (c & 3u) : 0u) << 4;
}
std::uint32_t code_of(std::uint32_t rest, std::uint32_t base) noexcept {
    const std::uint32_t special = (rest >> 1) & 1u;
    return (special ? (rest >> 4) & 3u : base) | (rest & 1u) << 2 | special << 3 | ((rest >> 2) & 3u) << 4;
}

constexpr codec::encode_options rest_options{false, false, false, false, true, true};

}  // namespace

void write_modeled(const sequence& s, std::vector<std::byte>& out) {
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
    model m(plain);
    encoder enc(out);
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t count = std::min(block_values, n - b * block_values);
        s.codes().decode(b * block_values, std::span<std::uint32_t>(codes.data(), count));
        for (std::size_t i = 0; i < count; ++i) {
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

bitplane::vector<std::uint32_t> read_modeled(std::span<const std::byte> payload, std::uint64_t base, std::uint64_t letters) {
    bitplane::detail::byte_reader in(payload, base);
    const auto rest_bytes = in.read<std::uint64_t>("rest-part size");
    in.need(rest_bytes, "rest-part");
    const std::uint64_t blocks = (letters + block_values - 1) / block_values;
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
    decoder dec(payload.subspan(in.position()));
    model m(plain);
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
            if (rest[i] >= 64 || (special ? !is_valid_code(code_of(rest[i], 0)) : (rest[i] & ~1u) != 0))
                throw format_error("packed DNA: rest-part value " + std::to_string(rest[i]) + " of letter " +
                                       std::to_string(b * block_values + i) + " is not one",
                                   base + at);
            unsigned bits = 0;
            if ((rest[i] & 2u) == 0) {
                if (++decoded > plain) throw format_error("packed DNA: more plain letters than the count says", base);
                m.start_base();
                const int high = dec.code(m.predict(0));
                m.update(high);
                const int low = dec.code(m.predict(1u + static_cast<unsigned>(high)));
                m.update(low);
                bits = static_cast<unsigned>(high << 1 | low);
                m.end_base(bits);
            }
            codes[i] = code_of(rest[i], bits);
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

}  // namespace bitplane::dna::detail
