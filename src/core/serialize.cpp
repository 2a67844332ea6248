// The vector file (docs/format.md section 3): a 64-byte header, the distinct encoded blocks,
// their sizes and the block map that says which stored block each block is (version 2), or
// those three as one zstd frame after the header and the frame's size (version 3); load
// also reads version 1 (an offsets table, then every block). Every size in an untrusted file is checked against the bytes actually present
// before it is used, and every block is validated, so load() either returns the vector that
// was saved or throws format_error. Validation decodes every block, so the block summaries
// (min, max, sum: block_summary.hpp) are taken from those values instead of a second decode.
#include <bitplane/serialize.hpp>

#include "codec/block_decoding.hpp"
#include "core/vector_access.hpp"
#include "codec/block_format.hpp"
#include "codec/byte_io.hpp"
#include "codec/thresholds.hpp"

#include "core/checked_size.hpp"
#include "core/file_header.hpp"
#include "core/value_file.hpp"
#include "core/vector_file.hpp"

#include <algorithm>
#include <array>
#include <cstring>
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
    std::uint16_t version = 0;
    std::uint64_t values = 0;
    std::uint64_t blocks = 0;
    std::uint64_t payload_offset = 0;
    std::uint64_t payload_bytes = 0;
    std::uint64_t stored = 0;     // version 2: stored blocks D
    std::uint64_t map_bytes = 0;  // version 2: block map size M
    std::uint64_t frame_bytes = 0;  // versions 3, 4: the zstd frame's size C
    detail::file::value_body_fields value_fields;  // version 4
    std::uint64_t body_bytes() const {  // versions 2, 3: S + 2D + M; version 4: the values body
        return version == detail::file::vector_values_version ? value_fields.body_bytes(values)
                                                              : payload_bytes + 2 * stored + map_bytes;
    }
    std::uint64_t total = 0;      // the file's size
    std::uint64_t total_bytes() const { return total; }
};

// The zstd frame's size C of a version 3 or 4 file (bytes 64-71), at least 1; the file's
// size follows.
void read_frame_size(std::span<const std::byte> bytes, file_header& h) {
    if (bytes.size() < detail::file::zstd_frame_at)
        throw format_error("truncated file header: version " + std::to_string(h.version) +
                               " needs the zstd frame size at bytes 64-71",
                           bytes.size());
    h.frame_bytes = load_le<std::uint64_t>(bytes.data() + header_bytes);
    if (h.frame_bytes == 0) throw format_error("zstd frame size 0", header_bytes);
    h.total = checked_add(detail::file::zstd_frame_at, h.frame_bytes, "file size", header_bytes);
}

// The body of a version 3 or 4 file (a zstd frame) may hold at most body_bytes_per_file_byte
// bytes per byte of the file: checked before anything is allocated for it (a small file cannot
// ask for a huge decompression). format_error at the header's byte 48, naming `what`.
void check_body_bound(std::uint64_t body, std::uint64_t file_bytes, const std::string& what) {
    constexpr std::uint64_t per_byte = detail::file::body_bytes_per_file_byte;
    if (body / per_byte > file_bytes || (body / per_byte == file_bytes && body % per_byte != 0))
        throw format_error(what + " of " + std::to_string(body) + " bytes too large for a file of " +
                               std::to_string(file_bytes) + " bytes (at most " + std::to_string(per_byte) +
                               " per file byte)",
                           48);
}

// Version 4 (bytes 32-55): coding, lanes, base, K and the body's size, which must be the one
// they imply and at most body_bytes_per_file_byte times the file's size. The body holds at
// least a byte per value, so the value count is bounded by the file's size too.
file_header parse_values_header(std::span<const std::byte> bytes, file_header h) {
    namespace file = detail::file;
    constexpr std::uint64_t fields_at = 32;
    h.value_fields.coding = static_cast<file::value_coding>(bytes[32]);
    h.value_fields.lanes = static_cast<std::uint8_t>(bytes[33]);
    h.value_fields.base = load_le<std::uint32_t>(bytes.data() + 36);
    h.value_fields.keys = load_le<std::uint32_t>(bytes.data() + 40);
    for (const std::size_t zero : {34, 35, 44, 45, 46, 47})
        if (bytes[zero] != std::byte{0}) throw format_error("reserved header byte not zero", zero);
    file::check_value_fields(h.value_fields, fields_at);
    if (h.values == 0) throw format_error("version 4 file of no values", 16);
    if (h.value_fields.coding == file::value_coding::frame_of_reference && h.value_fields.keys != 0)
        throw format_error("frame of reference with a dictionary size", 40);
    if (h.value_fields.coding == file::value_coding::dictionary && (h.value_fields.lanes != 1 || h.value_fields.base != 0))
        throw format_error("dictionary with byte lanes or a base", 33);
    const std::uint64_t body = load_le<std::uint64_t>(bytes.data() + 48);
    if (body != h.body_bytes())
        throw format_error("values body size " + std::to_string(body) + ", its coding needs " +
                               std::to_string(h.body_bytes()),
                           48);
    read_frame_size(bytes, h);
    check_body_bound(body, h.total, "values body");
    return h;
}

// Checks the fixed header; afterwards the file's total size is known and bounded by the
// header's own fields, which are checked for overflow.
template <class T>
file_header parse_header(std::span<const std::byte> bytes) {
    detail::byte_reader r(bytes);
    r.need(header_bytes, "file header");
    file_header h;
    h.version = detail::file::check_header(bytes, kind_vector, "a vector", detail::file::vector_values_version);
    const auto type = static_cast<std::uint8_t>(bytes[11]);
    if (type != value_type_code<T>)
        throw format_error(std::string("file holds ") + (type == 1 ? "int32" : type == 0 ? "uint32" : "unknown") +
                               " values, asked for " + (std::is_signed_v<T> ? "int32" : "uint32"),
                           11);
    h.values = load_le<std::uint64_t>(bytes.data() + 16);
    h.blocks = load_le<std::uint64_t>(bytes.data() + 24);
    h.payload_bytes = load_le<std::uint64_t>(bytes.data() + 48);
    if (h.values > (std::uint64_t{1} << 48)) throw format_error("value count " + std::to_string(h.values) + " too large", 16);
    if (h.blocks != blocks_for(h.values))
        throw format_error("block count " + std::to_string(h.blocks) + " does not match value count " +
                               std::to_string(h.values),
                           24);
    if (h.version == detail::file::vector_values_version) return parse_values_header(bytes, h);
    if (h.version >= 2) {
        // Version 2: payload at 64, then the sizes table (2 D bytes) and the block map (M).
        h.stored = load_le<std::uint64_t>(bytes.data() + 32);
        h.map_bytes = load_le<std::uint64_t>(bytes.data() + 40);
        h.payload_offset = header_bytes;
        if (h.stored > h.blocks || (h.stored == 0) != (h.blocks == 0))
            throw format_error("stored block count " + std::to_string(h.stored) + " invalid for " +
                                   std::to_string(h.blocks) + " blocks",
                               32);
        if ((h.map_bytes == 0) != (h.blocks == 0))
            throw format_error("block map size " + std::to_string(h.map_bytes) + " invalid for " +
                                   std::to_string(h.blocks) + " blocks",
                               40);
        if (h.payload_bytes < h.stored ||
            h.payload_bytes > checked_mul(h.stored, codec::max_block_bytes, "payload bound", 32))
            throw format_error("payload size " + std::to_string(h.payload_bytes) + " invalid for " +
                                   std::to_string(h.stored) + " stored blocks",
                               48);
        const std::uint64_t body =
            checked_add(checked_add(h.payload_bytes, checked_mul(2, h.stored, "sizes table", 32), "file size", 48),
                        h.map_bytes, "file size", 40);
        if (h.version == detail::file::vector_zstd_version) {
            // Version 3: the body is a zstd frame of C bytes after the header and C; the
            // body's size is bounded by the file's before anything is allocated for it.
            read_frame_size(bytes, h);
            check_body_bound(body, h.total, "payload, sizes table and block map");
        } else {
            h.total = checked_add(header_bytes, body, "file size", 40);
        }
        constexpr std::uint64_t per_byte = detail::file::blocks_per_file_byte;
        if (h.total < h.blocks / per_byte + (h.blocks % per_byte != 0))
            throw format_error("block count " + std::to_string(h.blocks) + " too large for a file of " +
                                   std::to_string(h.total) + " bytes (at most " +
                                   std::to_string(detail::file::blocks_per_file_byte) + " blocks per byte)",
                               24);
        return h;
    }
    const auto table_offset = load_le<std::uint64_t>(bytes.data() + 32);
    h.payload_offset = load_le<std::uint64_t>(bytes.data() + 40);
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
    h.total = checked_add(h.payload_offset, h.payload_bytes, "file size", 48);
    return h;
}

// The checks every version shares before the blocks: exact size and checksum.
void check_size_and_checksum(std::span<const std::byte> bytes, const file_header& h) {
    if (bytes.size() != h.total_bytes())
        throw format_error("file is " + std::to_string(bytes.size()) + " bytes, header announces " +
                               std::to_string(h.total_bytes()),
                           std::min<std::uint64_t>(bytes.size(), h.total_bytes()));
    if (load_le<std::uint64_t>(bytes.data() + checksum_offset) != checksum(bytes))
        throw format_error("checksum mismatch: the file is corrupted", checksum_offset);
}

template <class T>
vector<T> parse_v1(std::span<const std::byte> bytes, const file_header& h) {
    const std::byte* table = bytes.data() + header_bytes;
    const std::span<const std::byte> payload = bytes.subspan(h.payload_offset, h.payload_bytes);
    const std::size_t full_blocks = h.values / block_values;
    std::vector<std::uint64_t> offsets(full_blocks);
    std::vector<std::uint32_t> sizes(full_blocks);
    std::vector<detail::block_summary> summaries(full_blocks);
    std::vector<detail::presence_filter> presences(full_blocks);
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
            presences[b] = detail::summarize_presence({values, block_values}, summaries[b], std::is_signed_v<T>);
        } else {
            tail.assign(values, values + count);
        }
        previous = end;
    }
    if (previous != h.payload_bytes)
        throw format_error("blocks end before the payload does", header_bytes + 8 * h.blocks);

    vector<T> out;
    const std::size_t arena_bytes = full_blocks ? offsets.back() + sizes.back() : 0;
    detail::vector_access::core(out).adopt(payload.first(arena_bytes), offsets, sizes, tail, h.values, summaries,
                                           presences);
    return out;
}

// Reads a varint of the block map at `at` (relative to the map, which ends at map.size()).
std::uint64_t read_varint(std::span<const std::byte> map, std::size_t& at, std::uint64_t map_offset) {
    const std::size_t begin = at;
    std::uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (at >= map.size()) throw format_error("block map ends inside a run", map_offset + begin);
        const auto byte = static_cast<std::uint8_t>(map[at++]);
        if (shift == 63 && byte > 1) throw format_error("block map varint overflows 64 bits", map_offset + begin);
        v |= std::uint64_t{byte & 0x7Fu} << shift;
        if ((byte & 0x80) == 0) return v;
    }
}

struct map_run {
    std::uint64_t first_block = 0;  // the run's first block
    std::uint64_t count = 0;        // blocks in the run
    std::uint64_t stored = 0;       // its first stored block (new) or its stored block (repeat)
    bool repeat = false;
};

// The body of a version 2 or 3 file: `bytes` holds the payload, the sizes table and the
// block map (S + 2D + M bytes, as the header announces); `base` is the body's offset in the
// file, which error offsets add (64 for version 2; 0 for the decompressed body of version 3,
// whose errors the caller places at the frame).
template <class T>
vector<T> parse_body(std::span<const std::byte> body, const file_header& h, std::uint64_t base) {
    const std::span<const std::byte> bytes = body;
    const std::span<const std::byte> payload = bytes.first(h.payload_bytes);
    const std::uint64_t sizes_at = h.payload_bytes;
    const std::uint64_t map_at = sizes_at + 2 * h.stored;
    // Sizes table: offsets of the stored blocks by a prefix sum; every size in
    // [1, max_block_bytes], the sizes adding up to S exactly.
    std::vector<std::uint64_t> stored_offset(h.stored + 1);
    for (std::uint64_t s = 0; s < h.stored; ++s) {
        const std::uint64_t size = load_le<std::uint16_t>(bytes.data() + sizes_at + 2 * s);
        if (size == 0 || size > codec::max_block_bytes || size > h.payload_bytes - stored_offset[s])
            throw format_error("stored block " + std::to_string(s) + " size " + std::to_string(size) +
                                   " invalid (at " + std::to_string(stored_offset[s]) + " of a " +
                                   std::to_string(h.payload_bytes) + "-byte payload)",
                               base + sizes_at + 2 * s);
        stored_offset[s + 1] = stored_offset[s] + size;
    }
    if (stored_offset[h.stored] != h.payload_bytes)
        throw format_error("stored block sizes add up to " + std::to_string(stored_offset[h.stored]) +
                               ", payload size is " + std::to_string(h.payload_bytes),
                           base + sizes_at);
    // Block map: runs until the blocks add up to B, then zero padding to the map's end. A
    // repeat names a stored block already introduced, so stored blocks appear in the order of
    // their first use; all must be used.
    const std::span<const std::byte> map = bytes.subspan(map_at, h.map_bytes);
    std::vector<map_run> runs;
    std::uint64_t blocks = 0, next = 0, previous = 0;
    std::uint64_t expanded = 0;  // bytes of the blocks so far, each block counted (< B * 2^14: no wrap)
    const std::uint64_t expanded_limit =
        checked_mul(h.total_bytes(), detail::file::expanded_bytes_per_file_byte, "expanded bound", 24);
    std::size_t at = 0;
    while (blocks < h.blocks) {
        const std::uint64_t run_at = base + map_at + at;
        const std::uint64_t head = read_varint(map, at, base + map_at);
        map_run run;
        run.first_block = blocks;
        run.count = (head >> 1) + 1;  // head >> 1 < 2^63: no wrap
        run.repeat = (head & 1) == detail::file::run_repeat;
        if (run.count > h.blocks - blocks)
            throw format_error("block map run of " + std::to_string(run.count) + " blocks past the " +
                                   std::to_string(h.blocks) + " blocks (at block " + std::to_string(blocks) + ")",
                               run_at);
        if (run.repeat) {
            const std::int64_t delta = detail::file::unzigzag(read_varint(map, at, base + map_at));
            const std::uint64_t s = previous + static_cast<std::uint64_t>(delta);  // wraps to a huge value if < 0
            if (s >= next)
                throw format_error("block map repeats stored block " + std::to_string(static_cast<std::int64_t>(s)) +
                                       ", only " + std::to_string(next) + " introduced",
                                   run_at);
            run.stored = s;
            previous = s;
            expanded += run.count * (stored_offset[s + 1] - stored_offset[s]);
        } else {
            if (run.count > h.stored - next)
                throw format_error("block map run of " + std::to_string(run.count) + " new blocks past the " +
                                       std::to_string(h.stored) + " stored blocks",
                                   run_at);
            run.stored = next;
            expanded += stored_offset[next + run.count] - stored_offset[next];
            next += run.count;
            previous = next - 1;
        }
        if (expanded > expanded_limit)
            throw format_error("block map expands to more than " +
                                   std::to_string(detail::file::expanded_bytes_per_file_byte) +
                                   " bytes of blocks per file byte (" + std::to_string(expanded) + " for a file of " +
                                   std::to_string(h.total_bytes()) + " bytes)",
                               run_at);
        blocks += run.count;
        runs.push_back(run);
    }
    for (; at < map.size(); ++at)
        if (map[at] != std::byte{0}) throw format_error("block map has bytes after its runs", base + map_at + at);
    if (next != h.stored)
        throw format_error("stored blocks " + std::to_string(next) + " to " + std::to_string(h.stored - 1) +
                               " are never used",
                           base + map_at + map.size());

    // Each stored block used by a full block is decoded once, for its summary; the partial
    // last block (whatever stored block it names) is decoded on its own, with its count.
    const std::size_t full_blocks = h.values / block_values;
    const std::size_t tail_count = h.values % block_values;
    std::vector<std::uint8_t> full_use(h.stored, 0);
    for (const map_run& run : runs) {
        const std::uint64_t full = std::min<std::uint64_t>(run.count, full_blocks - std::min<std::uint64_t>(full_blocks, run.first_block));
        if (run.repeat) {
            if (full > 0) full_use[run.stored] = 1;
        } else {
            std::fill_n(full_use.begin() + static_cast<std::ptrdiff_t>(run.stored), full, std::uint8_t{1});
        }
    }
    std::vector<detail::block_summary> stored_summary(h.stored);
    std::vector<detail::presence_filter> stored_presence(h.stored);
    alignas(64) std::uint32_t values[block_values];
    auto decode = [&](std::uint64_t s, std::size_t count) {
        const std::span<const std::byte> block = payload.subspan(stored_offset[s], stored_offset[s + 1] - stored_offset[s]);
        const std::uint64_t where = base + stored_offset[s];
        const detail::parsed_block parsed = detail::parse_block(block, count, true, where);
        detail::decode_parsed(parsed, block, where, {values, count});
    };
    std::uint64_t arena_bytes = 0;
    for (std::uint64_t s = 0; s < h.stored; ++s) {
        if (!full_use[s]) continue;
        decode(s, block_values);
        stored_summary[s] = detail::summarize_values({values, block_values}, std::is_signed_v<T>);
        stored_presence[s] = detail::summarize_presence({values, block_values}, stored_summary[s], std::is_signed_v<T>);
        arena_bytes = stored_offset[s + 1];
    }
    std::vector<std::uint32_t> tail;
    if (tail_count != 0) {
        const map_run& last = runs.back();
        decode(last.repeat ? last.stored : last.stored + last.count - 1, tail_count);
        tail.assign(values, values + tail_count);
    }

    std::vector<std::uint64_t> offsets(full_blocks);
    std::vector<std::uint32_t> sizes(full_blocks);
    std::vector<detail::block_summary> summaries(full_blocks);
    std::vector<detail::presence_filter> presences(full_blocks);
    for (const map_run& run : runs) {
        const std::uint64_t end = std::min<std::uint64_t>(run.first_block + run.count, full_blocks);
        for (std::uint64_t b = run.first_block; b < end; ++b) {
            const std::uint64_t s = run.repeat ? run.stored : run.stored + (b - run.first_block);
            offsets[b] = stored_offset[s];
            sizes[b] = static_cast<std::uint32_t>(stored_offset[s + 1] - stored_offset[s]);
            summaries[b] = stored_summary[s];
            presences[b] = stored_presence[s];
        }
    }
    vector<T> out;
    detail::vector_access::core(out).adopt(payload.first(arena_bytes), offsets, sizes, tail, h.values, summaries,
                                           presences);
    return out;
}

template <class T>
vector<T> parse_file(std::span<const std::byte> bytes) {
    const file_header h = parse_header<T>(bytes);
    check_size_and_checksum(bytes, h);
    if (h.version == 1) return parse_v1<T>(bytes, h);
    if (h.version == 2) return parse_body<T>(bytes.subspan(header_bytes), h, header_bytes);
    constexpr std::uint64_t frame_at = detail::file::zstd_frame_at;
    const std::vector<std::byte> body =
        detail::file::decompress_body(bytes.subspan(frame_at), h.body_bytes(), frame_at);
    if (h.version == detail::file::vector_values_version) {
        std::vector<std::uint32_t> keys(static_cast<std::size_t>(h.values));
        try {
            detail::file::read_value_body(body, h.value_fields, keys);
        } catch (const format_error& e) {
            throw format_error(std::string("in the zstd frame's content (values), at its byte ") +
                                   std::to_string(e.offset()) + ": " + e.what(),
                               frame_at);
        }
        for (std::uint32_t& k : keys) k = detail::file::key_of(k, std::is_signed_v<T>);  // back to the value's bits
        return vector<T>(std::span<const T>(reinterpret_cast<const T*>(keys.data()), keys.size()));
    }
    try {
        return parse_body<T>(body, h, 0);
    } catch (const format_error& e) {
        throw format_error(std::string("in the zstd frame's content (payload, sizes table, block map), at its byte ") +
                               std::to_string(e.offset()) + ": " + e.what(),
                           frame_at);
    }
}

// The zstd frame of a values body at `level`, or nothing when zstd does not make it smaller.
std::optional<std::vector<std::byte>> values_frame(const detail::file::value_body& body, int level) {
    return detail::file::compress_body(level, body.bytes.size(), [&](auto&& add) { add(std::span<const std::byte>(body.bytes)); });
}

std::vector<std::uint32_t> keys_of(const detail::vector_core& core, std::size_t count) {
    std::vector<std::uint32_t> keys(count);
    core.decode(0, keys);
    for (std::uint32_t& k : keys) k = detail::file::key_of(k, core.is_signed());
    return keys;
}

// Whether a file of `values_bytes` is worth keeping over one of `blocks_bytes`
// (thresholds::value_form_keep_eighths).
bool values_form_pays(std::uint64_t values_bytes, std::uint64_t blocks_bytes) {
    return 8 * values_bytes <= detail::thresholds::value_form_keep_eighths * blocks_bytes;
}

// Whether the first value_form_sample_blocks blocks of a long column are smaller enough in
// the values form than as blocks, each through zstd at `level` (the sample's blocks are not
// deduplicated: a column of repeated blocks compresses them in the frame alike).
bool values_sample_pays(const detail::vector_core& core, int level) {
    constexpr std::size_t blocks = detail::thresholds::value_form_sample_blocks;
    const auto body = detail::file::make_value_body(keys_of(core, blocks * block_values));
    const auto values = values_frame(body, level);
    std::vector<std::byte> sealed;
    std::array<std::byte, codec::max_block_bytes> scratch;
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::span<const std::byte> block = core.sealed_block(b, scratch);
        sealed.insert(sealed.end(), block.begin(), block.end());
    }
    const auto frame = detail::file::compress_body(level, sealed.size(), [&](auto&& add) { add(std::span<const std::byte>(sealed)); });
    const std::uint64_t blocks_bytes = frame ? frame->size() : sealed.size();
    return values && values_form_pays(values->size(), blocks_bytes);
}

// Version 4 (docs/format.md section 3): replaces the file at `start` of `out` (version 2 or
// 3, header written, checksum not yet) by the values body in a zstd frame at `level` when
// that file is enough smaller (values_form_pays) and meets the loader's bound.
void save_values(const detail::vector_core& core, std::vector<std::byte>& out, std::size_t start, int level) {
    namespace file = detail::file;
    const std::uint64_t now = out.size() - start;
    if (now <= file::zstd_frame_at) return;
    if (core.size() > 2 * detail::thresholds::value_form_sample_blocks * block_values && !values_sample_pays(core, level))
        return;
    const file::value_body body = file::make_value_body(keys_of(core, core.size()));
    const auto frame = values_frame(body, level);
    if (!frame) return;
    const std::uint64_t total = file::zstd_frame_at + frame->size();
    if (!values_form_pays(total, now) || body.bytes.size() > file::body_bytes_per_file_byte * total) return;
    out.resize(start + file::zstd_frame_at);
    std::byte* h = out.data() + start;
    store_le<std::uint16_t>(h + 8, file::vector_values_version);
    std::fill(h + 32, h + 56, std::byte{0});
    h[32] = static_cast<std::byte>(body.fields.coding);
    h[33] = static_cast<std::byte>(body.fields.lanes);
    store_le<std::uint32_t>(h + 36, body.fields.base);
    store_le<std::uint32_t>(h + 40, body.fields.keys);
    store_le<std::uint64_t>(h + 48, body.bytes.size());
    store_le<std::uint64_t>(h + header_bytes, frame->size());
    out.insert(out.end(), frame->begin(), frame->end());
}

}  // namespace

template <column_value T>
void save(const vector<T>& v, std::vector<std::byte>& out, const save_options& options) {
    detail::file::check_zstd_level(options.zstd_level, "bitplane::save");
    // Version 2 (docs/format.md section 3): each distinct block once, in the order of first
    // use. A block equal to the previous one is found by one comparison; others through their
    // key (vector_file.hpp: block_key), compared byte by byte with the stored blocks of that
    // key.
    const detail::vector_core& core = v.core();
    const std::uint64_t blocks = blocks_for(core.size());
    std::array<std::byte, codec::max_block_bytes> hot_scratch, tail_scratch;
    std::vector<std::span<const std::byte>> all;  // every block, where it is (bytes not touched yet)
    all.reserve(static_cast<std::size_t>(blocks));
    std::uint64_t upper = header_bytes;
    for (std::size_t b = 0; b < core.sealed_block_count(); ++b) {
        all.push_back(core.sealed_block(b, hot_scratch));
        upper += all.back().size();
    }
    if (!core.tail().empty()) {
        all.push_back(std::span<const std::byte>(tail_scratch).first(codec::encode_block(core.tail(), core.is_signed(), tail_scratch)));
        upper += all.back().size();
    }
    // Room for everything (a block map run costs at most 21 bytes; padding at most one byte
    // per 256 blocks or per 4096 bytes of blocks), so that the payload is appended in one
    // pass and never moved; pages past what is written are never touched.
    const std::size_t start = out.size();
    out.reserve(static_cast<std::size_t>(start + upper + 23 * blocks + upper / 4096 + 64));
    out.resize(start + header_bytes);
    std::vector<std::uint64_t> stored_at;  // relative to start
    std::vector<std::uint16_t> stored_sizes;
    detail::file::block_index seen;
    seen.reserve(blocks);
    detail::file::block_map_builder map;
    std::uint64_t last = 0;
    auto stored = [&](std::uint64_t s) { return std::span<const std::byte>(out.data() + start + stored_at[s], stored_sizes[s]); };
    auto same = [](std::span<const std::byte> a, std::span<const std::byte> b) {
        return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
    };
    for (const std::span<const std::byte> block : all) {
        if (!stored_at.empty() && same(stored(last), block)) {
            map.add(last, false, block.size());
            continue;
        }
        // Copied first, then keyed from the copy (in cache): a new block is read once.
        const std::size_t at = out.size();
        out.insert(out.end(), block.begin(), block.end());
        const std::span<const std::byte> copy(out.data() + at, block.size());
        const std::uint64_t found = seen.find_or_add(detail::file::block_key(copy), stored_at.size(),
                                                     [&](std::uint64_t s) { return same(stored(s), copy); });
        if (found != detail::file::block_index::no_block) {
            out.resize(at);
            map.add(last = found, false, block.size());
            continue;
        }
        last = stored_at.size();
        stored_at.push_back(at - start);
        stored_sizes.push_back(static_cast<std::uint16_t>(block.size()));
        map.add(last, true, block.size());
    }
    const std::uint64_t payload = out.size() - start - header_bytes;
    const std::vector<std::byte> map_bytes = map.finish(out.size() - start + 2 * stored_sizes.size());
    for (const std::uint16_t size : stored_sizes) {
        out.push_back(static_cast<std::byte>(size & 0xFF));
        out.push_back(static_cast<std::byte>(size >> 8));
    }
    out.insert(out.end(), map_bytes.begin(), map_bytes.end());
    std::byte* h = out.data() + start;
    std::fill_n(h, header_bytes, std::byte{0});
    detail::file::write_header_start(h, kind_vector, value_type_code<T>, detail::file::vector_format_version);
    store_le<std::uint64_t>(h + 16, core.size());
    store_le<std::uint64_t>(h + 24, blocks);
    store_le<std::uint64_t>(h + 32, stored_sizes.size());
    store_le<std::uint64_t>(h + 40, map_bytes.size());
    store_le<std::uint64_t>(h + 48, payload);
    // Version 3: the body (payload, sizes table, block map) as one zstd frame, kept when it
    // is smaller and within the loader's bounds (vector_file.hpp).
    if (options.zstd_level > 0) {
        const std::uint64_t body = out.size() - start - header_bytes;
        auto frame = detail::file::compress_body(options.zstd_level, body, [&](auto&& add) {
            add(std::span<const std::byte>(out.data() + start + header_bytes, body));
        });
        if (frame && detail::file::zstd_file_in_bounds(blocks, map.expanded(), body, frame->size())) {
            out.resize(start + header_bytes);
            std::array<std::byte, 8> size;
            store_le<std::uint64_t>(size.data(), frame->size());
            out.insert(out.end(), size.begin(), size.end());
            out.insert(out.end(), frame->begin(), frame->end());
            h = out.data() + start;
            store_le<std::uint16_t>(h + 8, detail::file::vector_zstd_version);
        }
    }
    if (options.value_form && options.zstd_level > 0 && core.size() > 0) save_values(core, out, start, options.zstd_level);
    h = out.data() + start;
    const std::span<const std::byte> file(h, out.size() - start);
    store_le<std::uint64_t>(h + checksum_offset, checksum(file));
}

template <column_value T>
void save(const vector<T>& v, std::ostream& out, const save_options& options) {
    std::vector<std::byte> bytes;
    save(v, bytes, options);
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
    if (const auto version = load_le<std::uint16_t>(bytes.data() + 8);
        version == detail::file::vector_zstd_version || version == detail::file::vector_values_version) {
        // Versions 3 and 4 keep the zstd frame's size after the header (parse_header checks the rest).
        bytes.resize(detail::file::zstd_frame_at);
        const std::size_t more = read_some(in, bytes.data() + header_bytes, bytes.size() - header_bytes);
        if (more != bytes.size() - header_bytes)
            throw format_error("truncated file header: version " + std::to_string(version) +
                                   " needs the zstd frame size at bytes 64-71",
                               header_bytes + more);
    }
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

template void save(const vector<std::uint32_t>&, std::vector<std::byte>&, const save_options&);
template void save(const vector<std::int32_t>&, std::vector<std::byte>&, const save_options&);
template void save(const vector<std::uint32_t>&, std::ostream&, const save_options&);
template void save(const vector<std::int32_t>&, std::ostream&, const save_options&);
template vector<std::uint32_t> load(std::span<const std::byte>);
template vector<std::int32_t> load(std::span<const std::byte>);
template vector<std::uint32_t> load(std::istream&);
template vector<std::int32_t> load(std::istream&);

}  // namespace bitplane
