#include "packed_file.hpp"

#include "cli_error.hpp"
#include "input_file.hpp"
#include "output_file.hpp"

#include <bitplane/serialize.hpp>

#include <algorithm>
#include <vector>

namespace bitplane::cli {

packed_file load_packed(const std::string& path) {
    return about_file(path, [&] {
        input_file in(path);
        if (in.gzipped()) throw format_error("gzip data, not a bitplane file (gunzip it first)", 0);
        // Whole file: load checks sizes against the bytes present before trusting any field.
        std::vector<std::byte> bytes(std::max<std::uint64_t>(in.size_on_disk(), 1 << 16));
        std::size_t have = 0;
        for (;;) {
            have += in.read(std::span<std::byte>(bytes).subspan(have));
            if (have < bytes.size()) break;
            bytes.resize(bytes.size() * 2);
        }
        bytes.resize(have);
        packed_file out;
        out.path = path;
        out.file_bytes = have;
        // Byte 11 is the value type (docs/format.md section 3); load checks it again, and
        // everything else, so a short or foreign file fails there with its offset.
        if (have > 11 && bytes[11] == std::byte{1}) out.column = load<std::int32_t>(bytes);
        else out.column = load<std::uint32_t>(bytes);
        return out;
    });
}

std::uint64_t save_packed(const std::string& path, const any_vector& column) {
    return about_file(path, [&] {
        std::vector<std::byte> bytes;
        std::visit([&](const auto& v) { save(v, bytes); }, column);
        output_file out(path);
        out.write(bytes);
        out.commit();
        return static_cast<std::uint64_t>(bytes.size());
    });
}

const char* type_name(const any_vector& column) noexcept {
    return column.index() == 1 ? "int32" : "uint32";
}

}  // namespace bitplane::cli
