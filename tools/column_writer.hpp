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
    explicit column_writer(bool is_signed) {
        if (is_signed) writer_.emplace<vector_writer<std::int32_t>>();
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
    /// Writes the file into `out` (not committed); returns its size.
    std::uint64_t finish(output_file& out) {
        return std::visit([&](auto& w) { return w.finish([&](std::span<const std::byte> b) { out.write(b); }); },
                          writer_);
    }

private:
    std::variant<vector_writer<std::uint32_t>, vector_writer<std::int32_t>> writer_;
};

}  // namespace bitplane::cli
