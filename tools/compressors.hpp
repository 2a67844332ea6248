// General-purpose compressors the demo compares against, on the same bytes: gzip (zlib's
// deflate, as `gzip -6` does) and zstd (level 3, zstd's default).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace bitplane::cli {

/// Compressed size of `bytes` by deflate at `level` (zlib format, within a few bytes of gzip's).
[[nodiscard]] std::uint64_t deflate_size(std::span<const std::byte> bytes, int level);
/// Compressed size of `bytes` by zstd at `level`.
[[nodiscard]] std::uint64_t zstd_size(std::span<const std::byte> bytes, int level);

}  // namespace bitplane::cli
