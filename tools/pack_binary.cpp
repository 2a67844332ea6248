// Binary columns: little-endian 32-bit values back to back. The input is read in chunks of
// 8 MiB (1024 blocks: each append keeps every core encoding) straight into a value buffer and
// handed to the writer, so the input is never held whole. From a regular file into a file,
// the value count is known up front and each chunk's blocks are written at once (the
// writer's placed form), so the output is not held either.
#include "cli_error.hpp"
#include "column_writer.hpp"
#include "input_file.hpp"
#include "output_file.hpp"
#include "pack_formats.hpp"
#include "progress.hpp"

#include <bitplane/error.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace bitplane::cli {

namespace {
constexpr std::size_t chunk_values = std::size_t{2} << 20;  // 8 MiB of input
}

pack_result pack_binary(const pack_target& target) {
    const auto start = std::chrono::steady_clock::now();
    // The output first: a destination that cannot be written fails before any work is done.
    const auto out = about_file(target.output, [&] { return std::make_unique<output_file>(target.output); });
    pack_result result;
    result.format = "binary";
    result.type = target.is_signed ? "int32" : "uint32";
    // A regular file's size gives the value count up front, and then blocks go to the output
    // as they are encoded (column_writer's placed form) instead of being held until the end.
    std::optional<column_writer> writer;
    about_file(target.input, [&] {
        input_file in(target.input, target.kind);
        if (in.mappable() && out->placeable()) {
            writer.emplace(target.is_signed, in.size_on_disk() / 4, *out);
        } else {
            writer.emplace(target.is_signed);
        }
        progress bar("pack " + target.input, in.size_on_disk(), target.progress);
        auto append = [&](std::span<const std::byte> bytes, bool last) {
            result.input_bytes += bytes.size();
            if (last && bytes.size() % 4 != 0)
                throw parse_error(std::to_string(result.input_bytes) + " bytes is not a whole number of 4-byte " +
                                  result.type + " values (" + std::to_string(bytes.size() % 4) + " bytes left over)");
            // Appending may write the output (placed form): its failures name the output.
            about_file(target.output, [&] {
                writer->append({reinterpret_cast<const std::uint32_t*>(bytes.data()), bytes.size() / 4});
            });
            bar.update(in.disk_position());
        };
        if (in.mappable()) {
            // Regular files: windows of the mapping go straight to the encoder (no copy).
            for (;;) {
                const std::span<const std::byte> window = in.map_next(chunk_values * 4);
                if (window.empty()) break;
                append(window, in.disk_position() >= in.size_on_disk());
            }
            return;
        }
        std::vector<std::uint32_t> values(chunk_values);
        for (;;) {
            const std::size_t got = in.read(std::as_writable_bytes(std::span<std::uint32_t>(values)));
            const bool last = got < values.size() * 4;
            append(std::as_bytes(std::span<const std::uint32_t>(values)).first(got), last);
            if (last) break;
        }
    });
    result.values = writer->size();
    about_file(target.output, [&] {
        result.output_bytes = writer->finish(*out);
        out->commit();
    });
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

}  // namespace bitplane::cli
