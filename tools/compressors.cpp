#include "compressors.hpp"

#include <bitplane/error.hpp>

#include <zlib.h>
#include <zstd.h>

#include <string>
#include <vector>

namespace bitplane::cli {

std::uint64_t deflate_size(std::span<const std::byte> bytes, int level) {
    // Streamed through a fixed buffer: only the size is wanted.
    z_stream z{};
    if (deflateInit(&z, level) != Z_OK) throw bitplane::error("zlib: deflateInit failed");
    std::vector<unsigned char> out(1 << 20);
    std::uint64_t total = 0;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(bytes.data()));
    std::size_t left = bytes.size();
    int status = Z_OK;
    do {
        if (z.avail_in == 0 && left > 0) {
            const auto take = static_cast<uInt>(std::min<std::size_t>(left, 1u << 30));
            z.avail_in = take;
            left -= take;
        }
        z.next_out = out.data();
        z.avail_out = static_cast<uInt>(out.size());
        status = deflate(&z, left == 0 && z.avail_in == 0 ? Z_FINISH : Z_NO_FLUSH);
        total += out.size() - z.avail_out;
    } while (status == Z_OK || status == Z_BUF_ERROR);
    deflateEnd(&z);
    if (status != Z_STREAM_END) throw bitplane::error("zlib: deflate failed");
    return total;
}

std::uint64_t zstd_size(std::span<const std::byte> bytes, int level) {
    std::vector<std::byte> out(ZSTD_compressBound(bytes.size()));
    const std::size_t n = ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), level);
    if (ZSTD_isError(n)) throw bitplane::error(std::string("zstd: ") + ZSTD_getErrorName(n));
    return n;
}

}  // namespace bitplane::cli
