// The body of a version 4 vector file (docs/format.md section 3, "Version 4"): the column's
// values laid out for a byte-oriented entropy coder instead of as encoded blocks. Bit-planes
// cut a value into bits, so repetition in the value sequence (a country code that recurs
// every few ranges, a time zone's offset pair that alternates for decades) is invisible to
// zstd in version 3's blocks; the same values as bytes show it again. save() writes this form
// only when its file is the smaller one; load() re-encodes the values into blocks.
//
// The body works on keys: a uint32 value as is, an int32 value's bits with the sign bit
// flipped (so that keys order as the values do). Two codings:
// - frame of reference: `lanes` (1 to 4) byte lanes of N bytes; lane k holds byte k of every
//   key minus `base`;
// - dictionary: the K (1 to 256) distinct keys ascending, u32 little-endian, then N one-byte
//   codes (the index of each value's key).
#pragma once

#include "codec/byte_io.hpp"
#include "core/file_header.hpp"

#include <bitplane/error.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace bitplane::detail::file {

inline constexpr std::uint16_t vector_values_version = 4;  // vector files whose body is the values (section 3)

enum class value_coding : std::uint8_t { frame_of_reference = 0, dictionary = 1 };
/// The most distinct keys a dictionary body holds: codes are one byte.
inline constexpr std::uint32_t max_dictionary_keys = 256;

/// What the version 4 header (bytes 32-47) says about the body.
struct value_body_fields {
    value_coding coding = value_coding::frame_of_reference;
    std::uint8_t lanes = 1;   // frame of reference: bytes kept of each key minus base
    std::uint32_t base = 0;   // frame of reference: the smallest key
    std::uint32_t keys = 0;   // dictionary: K

    /// The body's size for `values` values (values < 2^48: no overflow).
    [[nodiscard]] std::uint64_t body_bytes(std::uint64_t values) const noexcept {
        return coding == value_coding::dictionary ? 4 * std::uint64_t{keys} + values : lanes * values;
    }
};

/// The key of a value's bits: order-preserving for int32 columns.
constexpr std::uint32_t key_of(std::uint32_t bits, bool is_signed) noexcept {
    return is_signed ? bits ^ 0x80000000u : bits;
}

struct value_body {
    value_body_fields fields;
    std::vector<std::byte> bytes;
};

namespace value_body_detail {

constexpr std::uint8_t lanes_for(std::uint32_t range) noexcept {
    return range < (1u << 8) ? 1 : range < (1u << 16) ? 2 : range < (1u << 24) ? 3 : 4;
}

/// The distinct keys of a column of at most max_dictionary_keys of them: an open-addressing
/// table (linear probing, at most half full) that gives up at the first key past them, so a
/// column of many distinct values costs a few hundred probes, not a pass.
class key_table {
public:
    /// Adds the keys; false (the table then unusable) at the first past max_dictionary_keys.
    bool add_all(std::span<const std::uint32_t> keys) {
        for (const std::uint32_t k : keys) {
            const std::size_t i = slot_of(k);
            if (used_[i]) continue;
            if (++count_ > max_dictionary_keys) return false;
            used_[i] = true;
            key_[i] = k;
        }
        return true;
    }
    /// The keys ascending; afterwards code(k) is each key's index among them.
    std::vector<std::uint32_t> sorted() {
        std::vector<std::uint32_t> out;
        for (std::size_t i = 0; i < slots; ++i)
            if (used_[i]) out.push_back(key_[i]);
        std::sort(out.begin(), out.end());
        for (std::size_t i = 0; i < slots; ++i)
            if (used_[i]) code_[i] = static_cast<std::uint8_t>(std::lower_bound(out.begin(), out.end(), key_[i]) - out.begin());
        return out;
    }
    /// The code of a key that was added.
    [[nodiscard]] std::uint8_t code(std::uint32_t k) const noexcept { return code_[slot_of(k)]; }

private:
    static constexpr std::size_t slots = 2 * max_dictionary_keys;  // 512: 9 bits of hash
    [[nodiscard]] std::size_t slot_of(std::uint32_t k) const noexcept {
        std::size_t i = (k * 0x9E3779B1u) >> 23;
        while (used_[i] && key_[i] != k) i = (i + 1) & (slots - 1);
        return i;
    }
    std::array<std::uint32_t, slots> key_{};
    std::array<std::uint8_t, slots> code_{};
    std::array<bool, slots> used_{};
    std::size_t count_ = 0;
};

}  // namespace value_body_detail

/// The frame-of-reference body of `keys` (at least one): as many lanes as the range needs.
inline value_body frame_of_reference_body(std::span<const std::uint32_t> keys) {
    const auto [lo, hi] = std::minmax_element(keys.begin(), keys.end());
    value_body out;
    out.fields = {.coding = value_coding::frame_of_reference, .lanes = value_body_detail::lanes_for(*hi - *lo), .base = *lo, .keys = 0};
    out.bytes.resize(static_cast<std::size_t>(out.fields.body_bytes(keys.size())));
    for (std::size_t lane = 0; lane < out.fields.lanes; ++lane) {
        std::byte* at = out.bytes.data() + lane * keys.size();
        for (std::size_t i = 0; i < keys.size(); ++i) at[i] = static_cast<std::byte>((keys[i] - *lo) >> (8 * lane));
    }
    return out;
}

/// The dictionary body of `keys` (at least one), or nothing when they hold more than
/// max_dictionary_keys distinct keys.
inline std::optional<value_body> dictionary_body(std::span<const std::uint32_t> keys) {
    value_body_detail::key_table table;
    if (!table.add_all(keys)) return std::nullopt;
    const std::vector<std::uint32_t> dictionary = table.sorted();
    value_body out;
    out.fields = {.coding = value_coding::dictionary, .lanes = 1, .base = 0, .keys = static_cast<std::uint32_t>(dictionary.size())};
    out.bytes.resize(static_cast<std::size_t>(out.fields.body_bytes(keys.size())));
    for (std::size_t d = 0; d < dictionary.size(); ++d) store_le<std::uint32_t>(out.bytes.data() + 4 * d, dictionary[d]);
    std::byte* codes = out.bytes.data() + 4 * dictionary.size();
    for (std::size_t i = 0; i < keys.size(); ++i) codes[i] = static_cast<std::byte>(table.code(keys[i]));
    return out;
}

/// The body save() writes for `keys` (at least one): a dictionary when the keys take fewer
/// bytes as one-byte codes than as frame-of-reference lanes (at most 256 distinct keys spread
/// over more than a byte's range), frame of reference otherwise.
inline value_body make_value_body(std::span<const std::uint32_t> keys) {
    const auto [lo, hi] = std::minmax_element(keys.begin(), keys.end());
    if (value_body_detail::lanes_for(*hi - *lo) > 1)
        if (std::optional<value_body> d = dictionary_body(keys)) return std::move(*d);
    return frame_of_reference_body(keys);
}

/// Checks the header's fields (format_error at `fields_at`, the header's byte 32, or at the
/// field): a known coding, lanes in [1, 4] for frame of reference, K in [1, 256] for a
/// dictionary.
inline void check_value_fields(const value_body_fields& f, std::uint64_t fields_at) {
    if (f.coding != value_coding::frame_of_reference && f.coding != value_coding::dictionary)
        throw format_error("unknown value coding " + std::to_string(static_cast<int>(f.coding)), fields_at);
    if (f.coding == value_coding::frame_of_reference && (f.lanes < 1 || f.lanes > 4))
        throw format_error("frame of reference with " + std::to_string(f.lanes) + " byte lanes (1 to 4)", fields_at + 1);
    if (f.coding == value_coding::dictionary && (f.keys < 1 || f.keys > max_dictionary_keys))
        throw format_error("dictionary of " + std::to_string(f.keys) + " keys (1 to 256)", fields_at + 8);
}

/// Reads the keys of a checked body (`body`: exactly f.body_bytes(keys.size()) bytes) into
/// `keys`. format_error at the offending byte of the body: a key past 2^32 - 1 (base plus
/// residual), a dictionary not strictly ascending, a code not below K.
inline void read_value_body(std::span<const std::byte> body, const value_body_fields& f, std::span<std::uint32_t> keys) {
    const std::size_t n = keys.size();
    if (f.coding == value_coding::dictionary) {
        std::array<std::uint32_t, max_dictionary_keys> dictionary{};
        for (std::size_t d = 0; d < f.keys; ++d) {
            dictionary[d] = load_le<std::uint32_t>(body.data() + 4 * d);
            if (d > 0 && dictionary[d] <= dictionary[d - 1])
                throw format_error("dictionary key " + std::to_string(d) + " not above the one before", 4 * d);
        }
        const std::byte* codes = body.data() + 4 * std::size_t{f.keys};
        for (std::size_t i = 0; i < n; ++i) {
            const auto code = static_cast<std::uint8_t>(codes[i]);
            if (code >= f.keys)
                throw format_error("code " + std::to_string(code) + " past the dictionary's " + std::to_string(f.keys) + " keys",
                                   4 * std::uint64_t{f.keys} + i);
            keys[i] = dictionary[code];
        }
        return;
    }
    std::fill(keys.begin(), keys.end(), 0u);
    for (std::size_t lane = 0; lane < f.lanes; ++lane) {
        const std::byte* at = body.data() + lane * n;
        for (std::size_t i = 0; i < n; ++i) keys[i] |= std::uint32_t{static_cast<std::uint8_t>(at[i])} << (8 * lane);
    }
    const std::uint32_t room = ~std::uint32_t{0} - f.base;  // the largest residual that stays a key
    for (std::size_t i = 0; i < n; ++i) {
        if (keys[i] > room)
            throw format_error("value " + std::to_string(i) + ": base " + std::to_string(f.base) + " plus residual " +
                                   std::to_string(keys[i]) + " past 2^32 - 1",
                               i);
        keys[i] += f.base;
    }
}

}  // namespace bitplane::detail::file
