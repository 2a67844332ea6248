// The file format (docs/format.md): a 64-byte header, an offsets table, then the encoded
// blocks. Every size in an untrusted file is checked against the bytes actually present
// before it is used, and every block is validated, so load() either returns the vector that
// was saved or throws format_error. Validation decodes every block, so the block summaries
// (min, max, sum: block_summary.hpp) are taken from those values instead of a second decode.
#include <bitplane/serialize.hpp>

#include "codec/block_decoding.hpp"
#include "core/vector_access.hpp"
#include "codec/block_format.hpp"
#include "codec/byte_io.hpp"

#include "core/checked_size.hpp"
#include "core/file_header.hpp"

#include <algorithm>
#include <array>
#include <istream>
#include <ostream>
#include <string>

namespace bitplane {

namespace {

using detail::checked_add;
using detail::checked_mul;
using detail::load_le;
using detail::store_le;

using detail::file::checksum;
using detail::file::checksum_offset;
using detail::file::header_bytes;
using detail::file::kind_vector;
constexpr std::size_t payload_alignment = 64;

template <class T> constexpr std::uint8_t value_type_code = std::is_signed_v<T> ? 1 : 0;

constexpr std::uint64_t align_up(std::uint64_t n, std::uint64_t a) { return (n + a - 1) / a * a; }

std::uint64_t blocks_for(std::uint64_t values) { return (values + block_values - 1) / block_values; }


struct file_header {
    std::uint64_t values = 0;
    std::uint64_t blocks = 0;
    std::uint64_t payload_offset = 0;
    std::uint64_t payload_bytes = 0;
    std::uint64_t total_bytes() const { return payload_offset + payload_bytes; }
};

// Checks the fixed header; afterwards the file's total size is known and bounded by the
// header's own fields, which are checked for overflow.
template <class T>
file_header parse_header(std::span<const std::byte> bytes) {
    detail::byte_reader r(bytes);
    r.need(header_bytes, "file header");
    detail::file::check_header(bytes, kind_vector, "a vector");
    const auto type = static_cast<std::uint8_t>(bytes[11]);
    if (type != value_type_code<T>)
        throw format_error(std::string("file holds ") + (type == 1 ? "int32" : type == 0 ? "uint32" : "unknown") +
                               " values, asked for " + (std::is_signed_v<T> ? "int32" : "uint32"),
                           11);
    file_header h;
    h.values = load_le<std::uint64_t>(bytes.data() + 16);
    h.blocks = load_le<std::uint64_t>(bytes.data() + 24);
    const auto table_offset = load_le<std::uint64_t>(bytes.data() + 32);
    h.payload_offset = load_le<std::uint64_t>(bytes.data() + 40);
    h.payload_bytes = load_le<std::uint64_t>(bytes.data() + 48);
    if (h.values > (std::uint64_t{1} << 48)) throw format_error("value count " + std::to_string(h.values) + " too large", 16);
    if (h.blocks != blocks_for(h.values))
        throw format_error("block count " + std::to_string(h.blocks) + " does not match value count " +
                               std::to_string(h.values),
                           24);
    if (table_offset != header_bytes) throw format_error("offsets table not after the header", 32);
    const std::uint64_t table_end =
        checked_add(header_bytes, checked_mul(8, checked_add(h.blocks, 1, "offsets table", 24), "offsets table", 24),
                    "offsets table", 24);
    if (h.payload_offset != align_up(table_end, payload_alignment))
        throw format_error("payload offset inconsistent with block count", 40);
    if (h.payload_bytes > checked_mul(h.blocks, codec::max_block_bytes, "payload bound", 24))
        throw format_error("payload size " + std::to_string(h.payload_bytes) + " too large for " +
                               std::to_string(h.blocks) + " blocks",
                           48);
    (void)checked_add(h.payload_offset, h.payload_bytes, "file size", 48);  // total_bytes()
    return h;
}

template <class T>
vector<T> parse_file(std::span<const std::byte> bytes) {
    const file_header h = parse_header<T>(bytes);
    if (bytes.size() != h.total_bytes())
        throw format_error("file is " + std::to_string(bytes.size()) + " bytes, header announces " +
                               std::to_string(h.total_bytes()),
                           std::min<std::uint64_t>(bytes.size(), h.total_bytes()));
    if (load_le<std::uint64_t>(bytes.data() + checksum_offset) != checksum(bytes))
        throw format_error("checksum mismatch: the file is corrupted", checksum_offset);

    const std::byte* table = bytes.data() + header_bytes;
    const std::span<const std::byte> payload = bytes.subspan(h.payload_offset, h.payload_bytes);
    const std::size_t full_blocks = h.values / block_values;
    std::vector<std::uint64_t> offsets(full_blocks);
    std::vector<std::uint32_t> sizes(full_blocks);
    std::vector<detail::block_summary> summaries(full_blocks);
    std::vector<std::uint32_t> tail;
    std::uint64_t previous = load_le<std::uint64_t>(table);
    if (previous != 0) throw format_error("first block offset is not 0", header_bytes);
    for (std::uint64_t b = 0; b < h.blocks; ++b) {
        const std::uint64_t entry = header_bytes + 8 * (b + 1);
        const auto end = load_le<std::uint64_t>(table + 8 * (b + 1));
        if (end < previous || end > h.payload_bytes || end - previous > codec::max_block_bytes || end == previous)
            throw format_error("block " + std::to_string(b) + " extent [" + std::to_string(previous) + ", " +
                                   std::to_string(end) + ") invalid",
                               entry);
        const std::size_t count = std::min<std::uint64_t>(block_values, h.values - b * block_values);
        const std::span<const std::byte> block = payload.subspan(previous, end - previous);
        const std::uint64_t at = h.payload_offset + previous;
        const detail::parsed_block parsed = detail::parse_block(block, count, true, at);
        alignas(64) std::uint32_t values[block_values];
        detail::decode_parsed(parsed, block, at, {values, count});
        if (count == block_values) {
            offsets[b] = previous;
            sizes[b] = static_cast<std::uint32_t>(end - previous);
            summaries[b] = detail::summarize_values({values, block_values}, std::is_signed_v<T>);
        } else {
            tail.assign(values, values + count);
        }
        previous = end;
    }
    if (previous != h.payload_bytes)
        throw format_error("blocks end before the payload does", header_bytes + 8 * h.blocks);

    vector<T> out;
    const std::size_t arena_bytes = full_blocks ? offsets.back() + sizes.back() : 0;
    detail::vector_access::core(out).adopt(payload.first(arena_bytes), offsets, sizes, tail, h.values, summaries);
    return out;
}

}  // namespace

template <column_value T>
void save(const vector<T>& v, std::vector<std::byte>& out) {
    const detail::vector_core& core = v.core();
    const std::uint64_t blocks = blocks_for(core.size());
    const std::uint64_t payload_offset = align_up(header_bytes + 8 * (blocks + 1), payload_alignment);
    const std::size_t start = out.size();
    out.resize(start + payload_offset);
    std::array<std::byte, codec::max_block_bytes> scratch;
    std::uint64_t payload = 0;
    auto add_block = [&](std::uint64_t b, std::span<const std::byte> bytes) {
        out.insert(out.end(), bytes.begin(), bytes.end());
        payload += bytes.size();
        store_le<std::uint64_t>(out.data() + start + header_bytes + 8 * (b + 1), payload);
    };
    for (std::size_t b = 0; b < core.sealed_block_count(); ++b) add_block(b, core.sealed_block(b, scratch));
    if (!core.tail().empty()) {
        const std::size_t bytes = codec::encode_block(core.tail(), core.is_signed(), scratch);
        add_block(core.sealed_block_count(), std::span<const std::byte>(scratch).first(bytes));
    }
    std::byte* h = out.data() + start;
    detail::file::write_header_start(h, kind_vector, value_type_code<T>);
    store_le<std::uint64_t>(h + 16, core.size());
    store_le<std::uint64_t>(h + 24, blocks);
    store_le<std::uint64_t>(h + 32, header_bytes);
    store_le<std::uint64_t>(h + 40, payload_offset);
    store_le<std::uint64_t>(h + 48, payload);
    store_le<std::uint64_t>(h + header_bytes, 0);
    const std::span<const std::byte> file(out.data() + start, out.size() - start);
    store_le<std::uint64_t>(h + checksum_offset, checksum(file));
}

template <column_value T>
void save(const vector<T>& v, std::ostream& out) {
    std::vector<std::byte> bytes;
    save(v, bytes);
    const std::string failed = "bitplane::save: writing " + std::to_string(bytes.size()) + " bytes to the stream failed";
    try {  // streams with exceptions() enabled throw instead of setting badbit
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    } catch (const std::ios_base::failure& e) {
        throw io_error(failed + ": " + e.what());
    }
    if (!out) throw io_error(failed);
}

template <column_value T>
vector<T> load(std::span<const std::byte> bytes) {
    return parse_file<T>(bytes);
}

namespace {

// Reads up to `count` bytes; returns how many arrived. Streams with exceptions() enabled
// throw at end of input instead of returning short, which is the same fact.
std::size_t read_some(std::istream& in, std::byte* into, std::size_t count) {
    try {
        in.read(reinterpret_cast<char*>(into), static_cast<std::streamsize>(count));
    } catch (const std::ios_base::failure&) {
        if (in.bad()) throw io_error("bitplane::load: reading the stream failed");
    }
    return static_cast<std::size_t>(in.gcount());
}

}  // namespace

template <column_value T>
vector<T> load(std::istream& in) {
    std::vector<std::byte> bytes(header_bytes);
    const std::size_t got = read_some(in, bytes.data(), header_bytes);
    if (got != header_bytes)
        throw format_error("truncated file header: " + std::to_string(got) + " of 64 bytes", got);
    const file_header h = parse_header<T>(bytes);
    // The announced size is bounded by the header checks, but the stream may still be
    // shorter: read in chunks so that a lying header cannot make us allocate it all up front.
    constexpr std::size_t chunk = 1 << 20;
    while (bytes.size() < h.total_bytes()) {
        const std::size_t have = bytes.size();
        const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, h.total_bytes() - have));
        bytes.resize(have + want);
        const std::size_t arrived = read_some(in, bytes.data() + have, want);
        if (arrived != want)
            throw format_error("truncated file: header announces " + std::to_string(h.total_bytes()) +
                                   " bytes, stream ended",
                               have + arrived);
    }
    return parse_file<T>(bytes);
}

template void save(const vector<std::uint32_t>&, std::vector<std::byte>&);
template void save(const vector<std::int32_t>&, std::vector<std::byte>&);
template void save(const vector<std::uint32_t>&, std::ostream&);
template void save(const vector<std::int32_t>&, std::ostream&);
template vector<std::uint32_t> load(std::span<const std::byte>);
template vector<std::int32_t> load(std::span<const std::byte>);
template vector<std::uint32_t> load(std::istream&);
template vector<std::int32_t> load(std::istream&);

}  // namespace bitplane
