// A vector_writer of either value type fed with 32-bit patterns, finished into an
// output_file: what every pack format ends in.
#pragma once

#include "output_file.hpp"

#include <bitplane/stream_writer.hpp>

#include <cstdint>
#include <span>
#include <variant>

namespace bitplane::cli {

class column_writer {
public:
    /// Keeps the encoded blocks until finish(). Writes format version 2 (no zstd stage), as
    /// the placed form below must: a pack gives the same file from a file and from a pipe.
    explicit column_writer(bool is_signed) {
        const save_options v2{.zstd_level = 0};
        if (is_signed) {
            writer_.emplace<vector_writer<std::int32_t>>(v2);
        } else {
            writer_.emplace<vector_writer<std::uint32_t>>(v2);
        }
    }
    /// Exactly `values` values, each batch of blocks written into `out` as soon as it is
    /// encoded (out.placeable() must hold); nothing is kept.
    column_writer(bool is_signed, std::uint64_t values, output_file& out) : placed_(true) {
        if (is_signed) {
            writer_.emplace<vector_writer<std::int32_t>>(values, out);
        } else {
            writer_.emplace<vector_writer<std::uint32_t>>(values, out);
        }
    }

    void append(std::span<const std::uint32_t> bits) {
        std::visit(
            [&](auto& w) {
                using T = typename std::decay_t<decltype(w)>::value_type;
                w.append(std::span<const T>(reinterpret_cast<const T*>(bits.data()), bits.size()));
            },
            writer_);
    }
    [[nodiscard]] std::uint64_t size() const noexcept {
        return std::visit([](const auto& w) { return w.size(); }, writer_);
    }
    /// Writes the file into `out` (not committed; for the placed form, the `out` it was made
    /// with); returns its size.
    std::uint64_t finish(output_file& out) {
        return std::visit(
            [&](auto& w) {
                if (placed_) return w.finish();
                return w.finish([&](std::span<const std::byte> b) { out.write(b); });
            },
            writer_);
    }

private:
    std::variant<vector_writer<std::uint32_t>, vector_writer<std::int32_t>> writer_;
    bool placed_ = false;
};

}  // namespace bitplane::cli
