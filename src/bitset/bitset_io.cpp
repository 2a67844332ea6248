// The bitset file (docs/format.md, section 5). save() writes version 2 (bitset_file_v2.cpp:
// segments of Rice-coded positions, runs or clear positions, or raw bits); the loader reads
// both versions. Version 1, here: a 64-byte header, the two summary bitmaps, one 4-byte
// descriptor per stored block, the payloads; validate() still goes through it, since its
// payloads are memory's own and the loader checks them. As for vectors, every size read from the
// input is checked against the bytes present before anything is allocated from it, the
// checksum is checked before any block is parsed, and every block is decoded with every rule
// of its payload encoding checked; a loaded block is then re-encoded as bitsets store it, so
// a loaded bitset is equal (operator==) to the one saved even if the writer chose otherwise.
#include "bitset/bitset_core.hpp"
#include "bitset/bitset_file_fields.hpp"
#include "bitset/bitset_file_v2.hpp"
#include "bitset/bitset_frozen.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/error.hpp>

#include "core/checked_size.hpp"
#include "core/file_header.hpp"

#include <algorithm>
#include <array>
#include <istream>
#include <ostream>
#include <string>

namespace bitplane {

namespace {

using detail::block_entry;
using detail::checked_add;
using detail::checked_mul;
using detail::block_kind;
using detail::load_le;
using detail::store_le;
using detail::summary_word;

using detail::file::checksum;
using detail::file::checksum_offset;
using detail::file::header_bytes;
using detail::file::kind_bitset;
constexpr std::size_t descriptor_bytes = 4;
constexpr std::uint64_t max_size = std::uint64_t{1} << 48;
using detail::bitset_file::max_block_payload;

struct file_header {
    std::uint64_t size = 0;     // universe bits
    std::uint64_t blocks = 0;
    std::uint64_t count = 0;    // set bits
    std::uint64_t stored = 0;   // stored blocks (descriptors)
    std::uint64_t payload = 0;  // payload bytes
    [[nodiscard]] std::uint64_t words() const { return (blocks + 63) / 64; }
    [[nodiscard]] std::uint64_t summary_offset() const { return header_bytes; }
    [[nodiscard]] std::uint64_t descriptors_offset() const { return header_bytes + 16 * words(); }
    [[nodiscard]] std::uint64_t payload_offset() const { return descriptors_offset() + descriptor_bytes * stored; }
    [[nodiscard]] std::uint64_t total_bytes() const { return payload_offset() + payload; }
};

// The fixed header; afterwards every field is bounded, so total_bytes() cannot overflow.
file_header parse_header(std::span<const std::byte> bytes) {
    const std::byte* h = bytes.data();
    if (h[11] != std::byte{0}) throw format_error("reserved header byte is not 0", 11);
    file_header f;
    f.size = load_le<std::uint64_t>(h + 16);
    f.blocks = load_le<std::uint64_t>(h + 24);
    f.count = load_le<std::uint64_t>(h + 32);
    f.stored = load_le<std::uint64_t>(h + 40);
    f.payload = load_le<std::uint64_t>(h + 48);
    detail::bitset_file::check_counts(f.size, f.blocks, f.count, f.stored, max_size);
    if (f.payload > checked_mul(f.stored, max_block_payload, "payload bound", 40))
        throw format_error("payload size " + std::to_string(f.payload) + " too large for " + std::to_string(f.stored) +
                               " stored blocks",
                           48);
    // The file's size (total_bytes()): summary, descriptors and payload after the header.
    const std::uint64_t summary = checked_mul(16, f.words(), "summary size", 24);
    const std::uint64_t descriptors = checked_mul(descriptor_bytes, f.stored, "descriptor table size", 40);
    (void)checked_add(checked_add(checked_add(header_bytes, summary, "file size", 24), descriptors, "file size", 40),
                      f.payload, "file size", 48);
    return f;
}

// The file's version, after the checks every file header shares.
std::uint16_t file_version(std::span<const std::byte> bytes) {
    detail::byte_reader r(bytes);
    r.need(header_bytes, "bitset file header");
    return detail::file::check_header(bytes, kind_bitset, "a bitset", detail::bitset_frozen::version);
}

bitset parse_v1(std::span<const std::byte> bytes) {
    const file_header f = parse_header(bytes);
    detail::bitset_file::check_file_length(bytes.size(), f.total_bytes());
    if (load_le<std::uint64_t>(bytes.data() + checksum_offset) != checksum(bytes))
        throw format_error("checksum mismatch: the file is corrupted", checksum_offset);

    const std::size_t words = static_cast<std::size_t>(f.words());
    const std::byte* summary = bytes.data() + f.summary_offset();
    detail::bitset_file::check_summary(summary, words, f.blocks, f.summary_offset(), f.stored);

    detail::core_writer out(f.size, static_cast<std::size_t>(f.stored), static_cast<std::size_t>(f.payload));
    const detail::bitset_kernel_table& kernels = detail::bitset_kernels();
    std::uint64_t descriptor = f.descriptors_offset();
    std::uint64_t payload = f.payload_offset();
    const std::uint64_t payload_end = f.total_bytes();
    for (std::size_t w = 0; w < words; ++w) {
        const auto nonempty = load_le<std::uint64_t>(summary + 8 * w);
        const auto full = load_le<std::uint64_t>(summary + 8 * (words + w));
        for (std::uint64_t m = nonempty; m != 0; m &= m - 1) {
            const std::size_t b = 64 * w + detail::lowest_bit(m);
            const std::uint32_t len = out.block_len(b);
            if ((full >> detail::lowest_bit(m)) & 1) {
                out.add_full(b);
                continue;
            }
            const std::byte* d = bytes.data() + descriptor;
            const auto kind = static_cast<block_kind>(d[0]);
            if (d[1] != std::byte{0}) throw format_error("block descriptor: reserved byte is not 0", descriptor + 1);
            const std::uint32_t items = load_le<std::uint16_t>(d + 2);
            detail::bitset_file::check_items(kind, items, len, "block descriptor", descriptor, descriptor, false);
            const std::uint32_t size = detail::payload_size(kind, items, len);
            if (size > payload_end - payload)
                throw format_error("block payload runs past the end of the file", descriptor);
            detail::byte_reader r(bytes.subspan(static_cast<std::size_t>(payload), size), payload);
            plane bits{};
            switch (kind) {
                case block_kind::positions: detail::positions_payload::apply(r, items, len, bits); break;
                case block_kind::runs: detail::runs_payload::apply(r, items, len, bits); break;
                case block_kind::gaps: detail::gaps_payload::apply(r, items, len, bits); break;
                case block_kind::raw: detail::raw_payload::apply(r, len, bits); break;
            }
            const detail::block_stats st = kernels.stats(bits.data());
            if (st.count == 0 || st.count == len)
                throw format_error("stored block " + std::to_string(b) + " is " + (st.count == 0 ? "empty" : "full") +
                                       " (such blocks are marked in the summary, not stored)",
                                   payload);
            out.add_plane(b, bits, st);
            descriptor += descriptor_bytes;
            payload += size;
        }
    }
    if (payload != payload_end)
        throw format_error("payloads end " + std::to_string(payload_end - payload) + " bytes before the file does",
                           payload);
    std::unique_ptr<detail::bitset_core> core = out.finish();
    if (core->count() != f.count)
        throw format_error("blocks hold " + std::to_string(core->count()) + " set bits, header announces " +
                               std::to_string(f.count),
                           32);
    return detail::bitset_access::make(std::move(core));
}

bitset parse_file(std::span<const std::byte> bytes) {
    const std::uint16_t version = file_version(bytes);
    if (version == detail::bitset_frozen::version)  // the frozen layout, copied (bitset_view reads it in place)
        return detail::bitset_access::make(detail::bitset_frozen::load(bytes, false));
    if (version == detail::bitset_v2::version)
        return detail::bitset_access::make(detail::bitset_v2::load(bytes));
    return parse_v1(bytes);
}

}  // namespace

void save(const bitset& set, std::vector<std::byte>& out) { detail::bitset_v2::save(detail::core_of(set), out); }

void detail::bitset_v1::save(const bitset& set, std::vector<std::byte>& out) {
    const detail::bitset_core& c = detail::core_of(set);
    const std::vector<summary_word>& words = c.words();
    const std::vector<block_entry>& entries = c.entries();
    // Stored blocks in order with their lengths (only the last block can be short).
    std::uint64_t payload = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) payload += detail::payload_size(entries[i], c.stored_len(i));

    file_header f;
    f.size = c.size();
    f.blocks = c.block_count();
    f.count = c.count();
    f.stored = entries.size();
    f.payload = payload;
    const std::size_t start = out.size();
    out.resize(start + static_cast<std::size_t>(f.total_bytes()));
    std::byte* h = out.data() + start;
    detail::file::write_header_start(h, kind_bitset, 0);
    store_le<std::uint64_t>(h + 16, f.size);
    store_le<std::uint64_t>(h + 24, f.blocks);
    store_le<std::uint64_t>(h + 32, f.count);
    store_le<std::uint64_t>(h + 40, f.stored);
    store_le<std::uint64_t>(h + 48, f.payload);
    const std::size_t nwords = words.size();
    for (std::size_t w = 0; w < nwords; ++w) {
        store_le<std::uint64_t>(h + f.summary_offset() + 8 * w, words[w].nonempty);
        store_le<std::uint64_t>(h + f.summary_offset() + 8 * (nwords + w), words[w].full);
    }
    std::byte* d = h + f.descriptors_offset();
    std::byte* p = h + f.payload_offset();
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const block_entry& e = entries[i];
        d[0] = static_cast<std::byte>(e.kind);
        d[1] = std::byte{0};
        store_le<std::uint16_t>(d + 2, e.items);
        d += descriptor_bytes;
        const std::uint32_t bytes = detail::payload_size(e, c.stored_len(i));
        std::memcpy(p, c.payload(e), bytes);
        p += bytes;
    }
    store_le<std::uint64_t>(h + checksum_offset,
                            checksum(std::span<const std::byte>(h, static_cast<std::size_t>(f.total_bytes()))));
}

void save(const bitset& set, std::ostream& out) {
    std::vector<std::byte> bytes;
    save(set, bytes);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw io_error("bitplane::save: writing " + std::to_string(bytes.size()) + " bytes to the stream failed");
}

bitset load_bitset(std::span<const std::byte> bytes) { return parse_file(bytes); }

// The loader is the one place every rule of a well-formed bitset is written down: validate
// serializes this bitset and runs it, rather than keep a second copy of the rules in step.
// Version 1 copies memory's payloads as they are, so its loader checks them.
void bitset::validate() const {
    std::vector<std::byte> bytes;
    detail::bitset_v1::save(*this, bytes);
    (void)parse_v1(bytes);
}

bitset load_bitset(std::istream& in) {
    std::vector<std::byte> bytes(header_bytes);
    in.read(reinterpret_cast<char*>(bytes.data()), header_bytes);
    if (in.gcount() != static_cast<std::streamsize>(header_bytes))
        throw format_error("truncated bitset file header: " + std::to_string(in.gcount()) + " of 64 bytes",
                           static_cast<std::uint64_t>(in.gcount()));
    const std::uint16_t version = file_version(bytes);
    const std::uint64_t total = version == detail::bitset_frozen::version ? detail::bitset_frozen::total_bytes(bytes)
                                : version == detail::bitset_v2::version    ? detail::bitset_v2::total_bytes(bytes)
                                                                           : parse_header(bytes).total_bytes();
    // Read in chunks: a header announcing more than the stream holds fails at the stream's
    // end, not in an allocation.
    constexpr std::size_t chunk = 1 << 20;
    while (bytes.size() < total) {
        const std::size_t have = bytes.size();
        const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, total - have));
        bytes.resize(have + want);
        in.read(reinterpret_cast<char*>(bytes.data() + have), static_cast<std::streamsize>(want));
        if (in.gcount() != static_cast<std::streamsize>(want))
            throw format_error("truncated bitset file: header announces " + std::to_string(total) +
                                   " bytes, stream ended",
                               have + static_cast<std::uint64_t>(in.gcount()));
    }
    return parse_file(bytes);
}

}  // namespace bitplane
