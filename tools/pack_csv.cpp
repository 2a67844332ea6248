// CSV columns: the file is read in 4 MiB chunks and fed to csv_column_reader, whose values
// go to the writer chunk by chunk.
#include "cli_error.hpp"
#include "column_writer.hpp"
#include "input_file.hpp"
#include "output_file.hpp"
#include "pack_formats.hpp"
#include "progress.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace bitplane::cli {

namespace {
constexpr std::size_t chunk_bytes = std::size_t{4} << 20;
}

pack_result pack_csv(const pack_target& target, csv_options options) {
    const auto start = std::chrono::steady_clock::now();
    options.is_signed = target.is_signed;
    csv_column_reader reader(options);  // argument errors (column 0, ...) before any file is touched
    const auto out = about_file(target.output, [&] { return std::make_unique<output_file>(target.output); });
    pack_result result;
    result.format = "csv";
    result.type = target.is_signed ? "int32" : "uint32";
    column_writer writer(target.is_signed);
    about_file(target.input, [&] {
        input_file in(target.input, target.kind);
        progress bar("pack " + target.input, in.size_on_disk(), target.progress);
        std::vector<char> text(chunk_bytes);
        std::vector<std::uint32_t> values;
        for (;;) {
            const std::size_t got = in.read(std::as_writable_bytes(std::span<char>(text)));
            result.input_bytes += got;
            reader.feed(std::string_view(text.data(), got), values);
            if (got < text.size()) reader.finish(values);
            writer.append(values);
            values.clear();
            bar.update(in.disk_position());
            if (got < text.size()) break;
        }
    });
    result.column = reader.header_name() ? *reader.header_name() : "column " + std::to_string(reader.column_index() + 1);
    result.values = writer.size();
    about_file(target.output, [&] {
        result.output_bytes = writer.finish(*out);
        out->commit();
    });
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

}  // namespace bitplane::cli
