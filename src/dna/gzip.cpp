// gzip through zlib (gzip.hpp).
#include "dna/gzip.hpp"

#include <bitplane/error.hpp>

#include <zlib.h>

#include <cstdint>
#include <limits>

namespace bitplane::dna::detail {
namespace {

// zlib counts in uInt: feed at most this much at a time.
constexpr std::size_t zlib_chunk = std::size_t{1} << 30;

}  // namespace

bool is_gzip(std::span<const std::byte> bytes) noexcept {
    return bytes.size() >= 2 && bytes[0] == std::byte{0x1F} && bytes[1] == std::byte{0x8B};
}

std::string gunzip(std::span<const std::byte> bytes) {
    std::string out;
    out.resize(bytes.size() < (std::size_t{1} << 26) ? 4 * bytes.size() + 1024 : bytes.size() * 3);
    std::size_t produced = 0;
    std::size_t consumed = 0;
    z_stream z{};
    if (inflateInit2(&z, 15 + 16) != Z_OK) throw format_error("gzip: zlib cannot start", 0);
    // Members one after another: restart after each end of stream while input remains.
    while (true) {
        if (out.size() - produced < 65536) out.resize(out.size() * 2);
        const std::size_t in_now = std::min(bytes.size() - consumed, zlib_chunk);
        const std::size_t out_now = std::min(out.size() - produced, zlib_chunk);
        z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(bytes.data() + consumed));
        z.avail_in = static_cast<uInt>(in_now);
        z.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
        z.avail_out = static_cast<uInt>(out_now);
        const int status = inflate(&z, Z_NO_FLUSH);
        consumed += in_now - z.avail_in;
        produced += out_now - z.avail_out;
        if (status == Z_STREAM_END) {
            if (consumed == bytes.size()) break;
            inflateReset(&z);
            continue;
        }
        if (status == Z_BUF_ERROR && z.avail_out != 0 && consumed == bytes.size()) {
            inflateEnd(&z);
            throw format_error("gzip: stream truncated", consumed);
        }
        if (status != Z_OK && status != Z_BUF_ERROR) {
            const std::string why = z.msg != nullptr ? z.msg : "corrupt data";
            inflateEnd(&z);
            throw format_error("gzip: " + why, consumed);
        }
    }
    inflateEnd(&z);
    out.resize(produced);
    return out;
}

std::string gzip(std::string_view text, int level) {
    z_stream z{};
    if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK)
        throw argument_error("gzip: level " + std::to_string(level) + " not accepted by zlib");
    std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 64, '\0');
    std::size_t consumed = 0, produced = 0;
    int status = Z_OK;
    while (status != Z_STREAM_END) {
        if (out.size() - produced < 65536) out.resize(out.size() * 2);
        const std::size_t in_now = std::min(text.size() - consumed, zlib_chunk);
        const std::size_t out_now = std::min(out.size() - produced, zlib_chunk);
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data() + consumed));
        z.avail_in = static_cast<uInt>(in_now);
        z.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
        z.avail_out = static_cast<uInt>(out_now);
        status = deflate(&z, consumed + in_now == text.size() ? Z_FINISH : Z_NO_FLUSH);
        consumed += in_now - z.avail_in;
        produced += out_now - z.avail_out;
        if (status == Z_STREAM_ERROR) {
            deflateEnd(&z);
            throw error("gzip: zlib failed");
        }
    }
    deflateEnd(&z);
    out.resize(produced);
    return out;
}

std::string deflate_bytes(std::string_view data, int level) {
    uLongf size = compressBound(static_cast<uLong>(data.size()));
    std::string out(size, '\0');
    if (compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(data.data()),
                  static_cast<uLong>(data.size()), level) != Z_OK)
        throw error("deflate: zlib failed");
    out.resize(size);
    return out;
}

std::string inflate_bytes(std::span<const std::byte> data, std::size_t size, std::uint64_t offset) {
    std::string out(size, '\0');
    uLongf produced = static_cast<uLongf>(size);
    uLong consumed = static_cast<uLong>(data.size());
    const int status = uncompress2(reinterpret_cast<Bytef*>(out.data()), &produced,
                                   reinterpret_cast<const Bytef*>(data.data()), &consumed);
    if (status != Z_OK || produced != size || consumed != data.size())
        throw format_error("packed DNA: metadata does not inflate to its announced " + std::to_string(size) + " bytes",
                           offset);
    return out;
}

}  // namespace bitplane::dna::detail
