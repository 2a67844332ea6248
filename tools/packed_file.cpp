#include "packed_file.hpp"

#include "cli_error.hpp"
#include "input_file.hpp"
#include "output_file.hpp"

#include <bitplane/error.hpp>
#include <bitplane/serialize.hpp>

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

namespace bitplane::cli {

namespace {

constexpr std::size_t kind_offset = 10;
constexpr std::byte dna_kind{3};
constexpr std::uint8_t modeled_flag = 0x4;

packed_file column_of(std::vector<std::byte> bytes, const std::string& path) {
    if (is_packed_dna(bytes))
        throw format_error("a packed DNA file, not a column of integers: read it with unpack, stats, gc or find",
                           kind_offset);
    packed_file out;
    out.path = path;
    out.file_bytes = bytes.size();
    // Byte 11 is the value type (docs/format.md section 3); load checks it again, and
    // everything else, so a short or foreign file fails there with its offset.
    if (bytes.size() > 11 && bytes[11] == std::byte{1}) out.column = load<std::int32_t>(bytes);
    else out.column = load<std::uint32_t>(bytes);
    return out;
}

packed_dna dna_of(const std::vector<std::byte>& bytes, const std::string& path) {
    if (!is_packed_dna(bytes)) throw format_error("not a packed DNA file (pack one with `bitplane pack --dna`)", 0);
    packed_dna out;
    out.path = path;
    out.file_bytes = bytes.size();
    out.fasta = dna::unpack(bytes);
    out.modeled = (static_cast<std::uint8_t>(bytes[11]) & modeled_flag) != 0;
    return out;
}

}  // namespace

bool is_packed_dna(std::span<const std::byte> bytes) noexcept {
    constexpr std::string_view magic = "BITPLANE";
    if (bytes.size() <= kind_offset + 1) return false;
    for (std::size_t i = 0; i < magic.size(); ++i)
        if (bytes[i] != static_cast<std::byte>(magic[i])) return false;
    return bytes[kind_offset] == dna_kind;
}

std::vector<std::byte> read_packed_bytes(const std::string& path) {
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
    return bytes;
}

packed_file load_packed(const std::string& path) {
    return about_file(path, [&] { return column_of(read_packed_bytes(path), path); });
}

packed_dna load_dna(const std::string& path) {
    return about_file(path, [&] { return dna_of(read_packed_bytes(path), path); });
}

any_packed load_any(const std::string& path) {
    return about_file(path, [&]() -> any_packed {
        std::vector<std::byte> bytes = read_packed_bytes(path);
        if (is_packed_dna(bytes)) return dna_of(bytes, path);
        return column_of(std::move(bytes), path);
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
