// Little-endian loads and stores, and a bounds-checked reader that reports the offset of
// whatever it could not read. Encoded bytes carry no alignment guarantee: every access goes
// through memcpy, which compiles to a plain (unaligned) load on every target we build for.
#pragma once

#include <bitplane/error.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

namespace bitplane::detail {

static_assert(std::endian::native == std::endian::little,
              "bitplane's in-memory encoding is little-endian; add byte swaps for big-endian hosts");

template <class T>
inline T load_le(const std::byte* p) noexcept {
    T value;
    std::memcpy(&value, p, sizeof(T));
    return value;
}

template <class T>
inline void store_le(std::byte* p, T value) noexcept {
    std::memcpy(p, &value, sizeof(T));
}

/// Sequential reader over untrusted bytes. `base` is added to offsets in error messages so
/// that they are relative to the whole file, not to a block.
class byte_reader {
public:
    byte_reader(std::span<const std::byte> bytes, std::uint64_t base = 0) noexcept
        : bytes_(bytes), base_(base) {}

    [[nodiscard]] std::size_t position() const noexcept { return pos_; }
    [[nodiscard]] std::size_t remaining() const noexcept { return bytes_.size() - pos_; }
    [[nodiscard]] std::uint64_t offset() const noexcept { return base_ + pos_; }
    [[nodiscard]] const std::byte* here() const noexcept { return bytes_.data() + pos_; }

    /// Checks that `count` more bytes exist; `what` names them in the error.
    void need(std::size_t count, const char* what) const {
        if (count > remaining())
            throw format_error(std::string("truncated ") + what + ": need " + std::to_string(count) +
                                   " bytes, " + std::to_string(remaining()) + " left",
                               offset());
    }

    template <class T>
    T read(const char* what) {
        need(sizeof(T), what);
        T value = load_le<T>(here());
        pos_ += sizeof(T);
        return value;
    }

    std::span<const std::byte> take(std::size_t count, const char* what) {
        need(count, what);
        std::span<const std::byte> out = bytes_.subspan(pos_, count);
        pos_ += count;
        return out;
    }

    [[noreturn]] void fail(const std::string& what) const { throw format_error(what, offset()); }
    [[noreturn]] void fail_at(const std::string& what, std::size_t position) const {
        throw format_error(what, base_ + position);
    }

private:
    std::span<const std::byte> bytes_;
    std::uint64_t base_;
    std::size_t pos_ = 0;
};

}  // namespace bitplane::detail
