// .bp files as the commands see them: a vector of either value type, loaded with every check
// of bitplane::load, and written through output_file (complete or not at all).
#pragma once

#include <bitplane/dna/fasta.hpp>
#include <bitplane/vector.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace bitplane::cli {

using any_vector = std::variant<vector<std::uint32_t>, vector<std::int32_t>>;

struct packed_file {
    std::string path;
    any_vector column;
    std::uint64_t file_bytes = 0;
};

/// A packed DNA file (docs/format.md section 6): the FASTA it holds, checked by dna::unpack.
struct packed_dna {
    std::string path;
    dna::fasta fasta;
    std::uint64_t file_bytes = 0;
    bool modeled = false;  ///< letters stored with pack_mode::modeled (flag bit 2)
};

/// Whether `bytes` start like a packed DNA file: the magic and kind 3 (byte 10).
[[nodiscard]] bool is_packed_dna(std::span<const std::byte> bytes) noexcept;

/// The whole of a .bp file (path or "-"), refusing gzip data. Throws library errors; callers
/// wrap with about_file.
[[nodiscard]] std::vector<std::byte> read_packed_bytes(const std::string& path);

/// Loads a .bp file holding a vector of uint32 or int32 values (the type byte of the header
/// decides). Errors become failures naming the path: exit 3 when the file cannot be read,
/// 2 when it is not a valid bitplane vector file (a packed DNA file included: the message
/// names the commands that read those).
[[nodiscard]] packed_file load_packed(const std::string& path);

/// Loads a packed DNA file; exit 2 when it is not one or fails a check, 3 when unreadable.
[[nodiscard]] packed_dna load_dna(const std::string& path);

/// Either kind of .bp file, decided by its header.
using any_packed = std::variant<packed_file, packed_dna>;
[[nodiscard]] any_packed load_any(const std::string& path);

/// Saves a vector to `path` atomically; returns the bytes written.
std::uint64_t save_packed(const std::string& path, const any_vector& column);

/// "uint32" or "int32".
[[nodiscard]] const char* type_name(const any_vector& column) noexcept;
template <class T>
[[nodiscard]] constexpr const char* type_name() noexcept {
    return std::is_signed_v<T> ? "int32" : "uint32";
}

}  // namespace bitplane::cli
