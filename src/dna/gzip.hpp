// gzip through zlib: whole buffers in and out (FASTA files are read whole).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace bitplane::dna::detail {

/// Whether bytes start with the gzip magic (1F 8B).
[[nodiscard]] bool is_gzip(std::span<const std::byte> bytes) noexcept;

/// Decompresses a gzip stream, every member of it (bgzip writes many). format_error with the
/// compressed offset for a corrupt or truncated stream.
[[nodiscard]] std::string gunzip(std::span<const std::byte> bytes);

/// gzip-compresses `text` at `level` (1..9).
[[nodiscard]] std::string gzip(std::string_view text, int level);

/// Raw deflate / inflate (zlib format) of a small section of a packed file.
[[nodiscard]] std::string deflate_bytes(std::string_view data, int level);
/// Inflates exactly `size` bytes; format_error (at `offset`) otherwise.
[[nodiscard]] std::string inflate_bytes(std::span<const std::byte> data, std::size_t size, std::uint64_t offset);

}  // namespace bitplane::dna::detail
