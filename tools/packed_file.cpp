#include "packed_file.hpp"

#include "cli_error.hpp"
#include "input_file.hpp"
#include "output_file.hpp"

#include <bitplane/error.hpp>
#include <bitplane/serialize.hpp>

#include <algorithm>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

namespace bitplane::cli {

namespace {

constexpr std::size_t kind_offset = 10;
constexpr std::byte dna_kind{3};
constexpr std::uint8_t modeled_flag = 0x4;
constexpr std::size_t header_bytes = 64;  // every .bp file kind (docs/format.md sections 3, 5, 6)

std::uint64_t le64(std::span<const std::byte> bytes, std::size_t at) noexcept {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(bytes[at + i]) << (8 * i);
    return v;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
    return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) noexcept {
    return b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b ? std::numeric_limits<std::uint64_t>::max() : a * b;
}

// The file size a header announces (saturating; docs/format.md), or the header alone for a
// kind this program does not know (the loader rejects it by its kind byte).
std::uint64_t announced_size(std::span<const std::byte> header) noexcept {
    switch (static_cast<std::uint8_t>(header[kind_offset])) {
        case 1:
            if (static_cast<std::uint8_t>(header[8]) >= 2 || header[9] != std::byte{0})  // version 2: 64 + S + 2 D + M
                return saturating_add(saturating_add(header_bytes, le64(header, 48)),
                                      saturating_add(saturating_mul(2, le64(header, 32)), le64(header, 40)));
            return saturating_add(le64(header, 40), le64(header, 48));  // version 1: payload offset + payload size
        case 2: {
            const std::uint64_t words = le64(header, 24) / 64 + 1;
            return saturating_add(saturating_add(header_bytes, saturating_mul(16, words)),
                                  saturating_add(saturating_mul(4, le64(header, 40)), le64(header, 48)));
        }
        case 3: return saturating_add(header_bytes, saturating_add(le64(header, 32), le64(header, 48)));
        default: return header_bytes;
    }
}

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
    // The header first: a file that is not a .bp file fails on its first bytes (a 1 GiB
    // file of something else, /dev/zero), and no more than the size the header announces is
    // ever asked for (one byte beyond, so that the loader sees a longer file for what it is).
    std::vector<std::byte> bytes(header_bytes);
    bytes.resize(in.read(bytes));
    constexpr std::string_view magic = "BITPLANE";
    const std::size_t seen = std::min(magic.size(), bytes.size());  // a shorter file: the loader says "truncated"
    if (!std::equal(magic.begin(), magic.begin() + static_cast<std::ptrdiff_t>(seen), bytes.begin(),
                    [](char c, std::byte b) { return static_cast<std::byte>(c) == b; }))
        throw format_error("not a bitplane file (bad magic)", 0);
    if (bytes.size() < header_bytes) return bytes;  // the loader reports the short header
    const std::uint64_t announced = announced_size(bytes);
    const std::uint64_t limit = announced == std::numeric_limits<std::uint64_t>::max() ? announced : announced + 1;
    // Allocation follows the bytes that arrive (1 MiB, then doubling), capped by the announced
    // size: a header announcing terabytes costs what the file holds, not what it claims.
    std::uint64_t want = std::min<std::uint64_t>(limit, in.size_on_disk() > 0 ? in.size_on_disk() + 1 : std::uint64_t{1} << 20);
    while (bytes.size() < limit) {
        want = std::max<std::uint64_t>(want, bytes.size() + 1);
        const std::size_t have = bytes.size();
        bytes.resize(static_cast<std::size_t>(want));
        const std::size_t got = in.read(std::span<std::byte>(bytes).subspan(have));
        bytes.resize(have + got);
        if (have + got < want) break;
        want = std::min<std::uint64_t>(limit, 2 * want);
    }
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
