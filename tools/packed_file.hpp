// .bp files as the commands see them: a vector of either value type, loaded with every check
// of bitplane::load, and written through output_file (complete or not at all).
#pragma once

#include <bitplane/vector.hpp>

#include <cstdint>
#include <string>
#include <variant>

namespace bitplane::cli {

using any_vector = std::variant<vector<std::uint32_t>, vector<std::int32_t>>;

struct packed_file {
    std::string path;
    any_vector column;
    std::uint64_t file_bytes = 0;
};

/// Loads a .bp file holding a vector of uint32 or int32 values (the type byte of the header
/// decides). Errors become failures naming the path: exit 3 when the file cannot be read,
/// 2 when it is not a valid bitplane vector file.
[[nodiscard]] packed_file load_packed(const std::string& path);

/// Saves a vector to `path` atomically; returns the bytes written.
std::uint64_t save_packed(const std::string& path, const any_vector& column);

/// "uint32" or "int32".
[[nodiscard]] const char* type_name(const any_vector& column) noexcept;
template <class T>
[[nodiscard]] constexpr const char* type_name() noexcept {
    return std::is_signed_v<T> ? "int32" : "uint32";
}

}  // namespace bitplane::cli
