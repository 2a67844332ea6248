// The packed DNA file (docs/format.md, "DNA"): fasta <-> bytes, every field of an untrusted
// file checked before use.
#include <bitplane/dna/fasta.hpp>

#include <bitplane/codec.hpp>
#include <bitplane/error.hpp>

#include "codec/byte_io.hpp"
#include "core/checked_size.hpp"
#include "core/vector_access.hpp"
#include "core/file_header.hpp"
#include "dna/base_model.hpp"
#include "dna/fasta_access.hpp"
#include "dna/gzip.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace bitplane::dna {
namespace {

using bitplane::detail::checked_add;
using bitplane::detail::checked_mul;
using bitplane::detail::load_le;
using bitplane::detail::store_le;
namespace file = bitplane::detail::file;

constexpr std::uint8_t flag_crlf = 0x01;
constexpr std::uint8_t flag_final_newline = 0x02;
constexpr std::uint8_t flag_modeled = 0x04;
constexpr std::uint8_t flag_deflated = 0x08;
constexpr std::uint8_t flag_modeled_v2 = 0x10;  // with flag_modeled: coded by modeled_coder::v2
constexpr std::uint8_t flags_known = 0x1F;
// zlib cannot expand data by more than about 1032:1; a larger claim is a lie.
constexpr std::uint64_t max_inflate_ratio = 1032;
// Records a file may hold per byte of stored metadata, beyond a fixed allowance: each record
// costs a reader about 50 bytes of memory, and deflate packs an empty record into a third of
// a byte (10^8 of them in 285 KB would cost 5 GB). Metadata that deflates further is stored
// as it is (3 bytes or more a record), so every file the packer writes meets the bound.
constexpr std::uint64_t max_records_per_stored_byte = 8;
constexpr std::uint64_t record_allowance = std::uint64_t{1} << 20;

bool records_fit(std::uint64_t records, std::uint64_t stored_metadata) noexcept {
    return records <= record_allowance || (records - record_allowance) / max_records_per_stored_byte < stored_metadata;
}

void put_varint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>(v | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

// Reads LEB128 varints from the metadata; errors name the offset in the file, or in the
// inflated metadata (`inflated`), which has no file offset of its own.
class meta_reader {
public:
    meta_reader(std::string_view data, std::uint64_t base, bool inflated) : data_(data), base_(base), inflated_(inflated) {}
    [[nodiscard]] bool done() const noexcept { return pos_ == data_.size(); }
    [[nodiscard]] std::size_t remaining() const noexcept { return data_.size() - pos_; }
    std::uint64_t varint(const char* what) {
        std::uint64_t v = 0;
        for (unsigned shift = 0; shift < 64; shift += 7) {
            if (pos_ == data_.size()) fail(std::string("truncated ") + what);
            const auto byte = static_cast<std::uint8_t>(data_[pos_++]);
            if (shift == 63 && byte > 1) fail(std::string(what) + " overflows 64 bits");
            v |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
            if ((byte & 0x80) == 0) return v;
        }
        fail(std::string(what) + " overflows 64 bits");
    }
    std::string_view take(std::uint64_t n, const char* what) {
        if (n > remaining()) fail(std::string("truncated ") + what);
        const std::string_view out = data_.substr(pos_, n);
        pos_ += n;
        return out;
    }
    /// Where an error is reported: the file offset of the next byte, or the metadata's own.
    [[nodiscard]] std::uint64_t offset() const noexcept { return inflated_ ? base_ : base_ + pos_; }
    [[noreturn]] void fail(const std::string& what) const {
        throw format_error("packed DNA metadata: " + what +
                               (inflated_ ? " (at byte " + std::to_string(pos_) + " of the inflated metadata)" : ""),
                           inflated_ ? base_ : base_ + pos_);
    }

private:
    std::string_view data_;
    std::uint64_t base_;
    bool inflated_;
    std::size_t pos_ = 0;
};

std::string write_metadata(const fasta& f) {
    std::string meta;
    const auto& records = fasta_access::records(f);
    const auto& runs = fasta_access::runs(f);
    const auto& headers = fasta_access::headers(f);
    for (const auto& e : records) {
        put_varint(meta, e.header_end - e.header_begin);
        meta.append(headers, e.header_begin, e.header_end - e.header_begin);
        put_varint(meta, e.size);
        put_varint(meta, e.run_end - e.run_begin);
        for (std::uint64_t r = e.run_begin; r < e.run_end; ++r) {
            put_varint(meta, runs[r].length);
            put_varint(meta, runs[r].count);
        }
    }
    return meta;
}

// Empty sequence lines a packed file may hold in all: one per letter and per record, plus a
// fixed allowance. Real files have a few (a blank line between records); the bound keeps the
// unpacked text within about three bytes per letter, line ends included (docs/format.md).
// Both counts are below 2^62 after the header checks; the sum is checked all the same.
std::uint64_t empty_line_limit(std::uint64_t letter_count, std::uint64_t record_count) {
    constexpr std::uint64_t allowance = std::uint64_t{1} << 20;
    return checked_add(checked_add(letter_count, record_count, "empty line limit", 16), allowance, "empty line limit", 16);
}

void read_metadata(meta_reader& in, std::uint64_t record_count, std::uint64_t letter_count, bool crlf,
                   bool final_newline, fasta& f) {
    auto& records = fasta_access::records(f);
    auto& runs = fasta_access::runs(f);
    auto& headers = fasta_access::headers(f);
    // Each record takes at least three bytes: the count cannot exceed what is there.
    if (record_count > in.remaining() / 3) in.fail(std::to_string(record_count) + " records announced, too few bytes");
    records.reserve(record_count);
    std::uint64_t letters = 0;
    std::uint64_t empty_line_budget = empty_line_limit(letter_count, record_count);
    for (std::uint64_t i = 0; i < record_count; ++i) {
        fasta_access::entry e;
        const std::string_view header = in.take(in.varint("header length"), "header");
        if (header.find('\n') != std::string_view::npos) in.fail("record " + std::to_string(i + 1) + ": header holds a line feed");
        e.header_begin = headers.size();
        headers.append(header);
        e.header_end = headers.size();
        e.first = letters;
        e.size = in.varint("record length");
        if (e.size > letter_count - letters) in.fail("record " + std::to_string(i + 1) + ": more letters than the file holds");
        letters += e.size;
        const std::uint64_t run_count = in.varint("line run count");
        if (run_count > in.remaining() / 2) in.fail("record " + std::to_string(i + 1) + ": too many line runs");
        e.run_begin = runs.size();
        std::uint64_t covered = 0;
        for (std::uint64_t r = 0; r < run_count; ++r) {
            line_run run;
            run.length = in.varint("line length");
            run.count = in.varint("line count");
            if (run.count == 0) in.fail("record " + std::to_string(i + 1) + ": a line run of no lines");
            if (run.length != 0 && run.count > (e.size - covered) / run.length)
                in.fail("record " + std::to_string(i + 1) + ": lines hold more letters than the record");
            // Empty lines hold no letters, so the check above cannot bound them; each one is a
            // line end in the text, and a varint count could announce 2^64 of them.
            if (run.length == 0) {
                if (run.count > empty_line_budget)
                    in.fail("record " + std::to_string(i + 1) + ": a run of " + std::to_string(run.count) +
                            " empty lines goes past the file's limit of " +
                            std::to_string(empty_line_limit(letter_count, record_count)) + " empty lines");
                empty_line_budget -= run.count;
            }
            covered = checked_add(covered, checked_mul(run.length, run.count, "line run letters", in.offset()),
                                  "record letters", in.offset());
            if (r > 0 && runs.back().length == run.length) in.fail("record " + std::to_string(i + 1) + ": two runs of one length in a row");
            runs.push_back(run);
        }
        if (covered != e.size) in.fail("record " + std::to_string(i + 1) + ": lines hold fewer letters than the record");
        e.run_end = runs.size();
        records.push_back(e);
    }
    if (letters != letter_count) in.fail("records hold " + std::to_string(letters) + " letters, the header says " + std::to_string(letter_count));
    if (!in.done()) in.fail("trailing bytes after the last record");
    if (!final_newline && !records.empty() && records.back().run_end > records.back().run_begin &&
        runs.back().length == 0)
        in.fail("an empty last line in a file without a final line ending");
    // In an LF file, a first line ending in CR followed by a line feed would read back as CRLF.
    if (!crlf && !records.empty()) {
        const auto& first = records.front();
        const bool ends_in_cr = first.header_end > first.header_begin && headers[first.header_end - 1] == '\r';
        const bool line_feed_follows = records.size() > 1 || first.run_end > first.run_begin || final_newline;
        if (ends_in_cr && line_feed_follows) in.fail("first header ends with CR in an LF file (it would read back as CRLF)");
    }
}

// ---- planes payload: block sizes, then the blocks --------------------------------------------
//
// Sizes are varints of zigzag(size - 517), 517 being a plain two-plane block, so that a plain
// block's size costs one byte.

constexpr std::int64_t usual_block_bytes = 5 + 2 * static_cast<std::int64_t>(plane_bytes);

void write_planes(const sequence& s, std::vector<std::byte>& out) {
    const auto& core = s.codes().core();
    const std::size_t blocks = (s.size() + block_values - 1) / block_values;
    std::string sizes;
    std::vector<std::byte> body;
    std::array<std::byte, codec::max_block_bytes> scratch;
    for (std::size_t b = 0; b < blocks; ++b) {
        std::span<const std::byte> bytes;
        if (b < core.sealed_block_count()) {
            bytes = core.sealed_block(b, scratch);
        } else {
            bytes = std::span<const std::byte>(scratch).first(codec::encode_block(core.tail(), false, scratch));
        }
        const std::int64_t delta = static_cast<std::int64_t>(bytes.size()) - usual_block_bytes;
        put_varint(sizes, static_cast<std::uint64_t>(delta < 0 ? -2 * delta - 1 : 2 * delta));
        body.insert(body.end(), bytes.begin(), bytes.end());
    }
    const auto* p = reinterpret_cast<const std::byte*>(sizes.data());
    out.insert(out.end(), p, p + sizes.size());
    out.insert(out.end(), body.begin(), body.end());
}

bitplane::vector<std::uint32_t> read_planes(std::span<const std::byte> payload, std::uint64_t base, std::uint64_t letters) {
    const std::uint64_t blocks = checked_add(letters, block_values - 1, "letter count", 16) / block_values;
    // A block takes at least 6 bytes (one of size, five of header).
    if (blocks > payload.size() / 6) throw format_error("packed DNA: " + std::to_string(blocks) + " blocks cannot fit in the payload", base);
    meta_reader sizes(std::string_view(reinterpret_cast<const char*>(payload.data()), payload.size()), base, false);
    std::vector<std::uint64_t> offsets;
    std::vector<std::uint32_t> lengths;
    offsets.reserve(blocks);
    lengths.reserve(blocks);
    std::uint64_t at = 0;
    for (std::uint64_t b = 0; b < blocks; ++b) {
        const std::uint64_t z = sizes.varint("block size");
        const std::int64_t size = usual_block_bytes + ((z & 1u) != 0 ? -static_cast<std::int64_t>((z + 1) / 2) : static_cast<std::int64_t>(z / 2));
        if (z > 2 * codec::max_block_bytes || size <= 0 || size > static_cast<std::int64_t>(codec::max_block_bytes))
            sizes.fail("block " + std::to_string(b) + " has an impossible size");
        offsets.push_back(at);
        lengths.push_back(static_cast<std::uint32_t>(size));
        at += static_cast<std::uint64_t>(size);
    }
    const std::size_t table_bytes = payload.size() - sizes.remaining();
    if (at != sizes.remaining()) throw format_error("packed DNA: blocks do not fill the payload exactly", base + table_bytes);
    const std::span<const std::byte> arena = payload.subspan(table_bytes);
    const std::uint64_t full = letters / block_values;
    std::vector<std::uint32_t> tail(letters % block_values);
    for (std::uint64_t b = 0; b < blocks; ++b) {
        const auto bytes = arena.subspan(offsets[b], lengths[b]);
        try {
            if (b < full) {
                codec::validate_block(bytes, block_values);
            } else {
                codec::decode_block(bytes, tail);
            }
        } catch (const format_error& e) {
            throw format_error(std::string("packed DNA block ") + std::to_string(b) + ": " + e.what(), base + table_bytes + offsets[b]);
        }
    }
    bitplane::vector<std::uint32_t> codes;
    const std::uint64_t arena_bytes = full == 0 ? 0 : offsets[full - 1] + lengths[full - 1];
    bitplane::detail::vector_access::core(codes).adopt(arena.first(arena_bytes), std::span<const std::uint64_t>(offsets.data(), full),
                       std::span<const std::uint32_t>(lengths.data(), full), tail, letters);
    return codes;
}

}  // namespace

void pack(const fasta& f, std::vector<std::byte>& out, pack_mode mode) {
    detail::pack_with_coder(f, out, mode, detail::modeled_coder::v2);
}

void detail::pack_with_coder(const fasta& f, std::vector<std::byte>& out, pack_mode mode, modeled_coder coder) {
    const bool modeled = mode == pack_mode::modeled;
    const bool v2 = modeled && coder != modeled_coder::v1;
    const std::size_t start = out.size();
    out.resize(start + file::header_bytes);
    const std::string meta = write_metadata(f);
    const std::string deflated = meta.size() >= 64 ? detail::deflate_bytes(meta, 9) : std::string();
    const bool use_deflated = !deflated.empty() && deflated.size() < meta.size() && records_fit(f.size(), deflated.size());
    const std::string& stored = use_deflated ? deflated : meta;
    const auto* m = reinterpret_cast<const std::byte*>(stored.data());
    out.insert(out.end(), m, m + stored.size());
    const std::size_t payload_start = out.size();
    if (modeled) {
        detail::write_modeled(f.letters(), out, v2 ? modeled_coder::v2 : modeled_coder::v1);
    } else {
        write_planes(f.letters(), out);
    }
    std::byte* h = out.data() + start;
    file::write_header_start(h, file::kind_dna,
                             static_cast<std::uint8_t>((f.crlf() ? flag_crlf : 0) | (f.final_newline() ? flag_final_newline : 0) |
                                                       (modeled ? flag_modeled : 0) | (v2 ? flag_modeled_v2 : 0) |
                                                       (use_deflated ? flag_deflated : 0)));
    store_le<std::uint64_t>(h + 16, f.letters().size());
    store_le<std::uint64_t>(h + 24, f.size());
    store_le<std::uint64_t>(h + 32, stored.size());
    store_le<std::uint64_t>(h + 40, meta.size());
    store_le<std::uint64_t>(h + 48, out.size() - payload_start);
    store_le<std::uint64_t>(h + file::checksum_offset,
                            file::checksum(std::span<const std::byte>(out.data() + start, out.size() - start)));
}

fasta unpack(std::span<const std::byte> bytes) {
    bitplane::detail::byte_reader in(bytes);
    in.need(file::header_bytes, "file header");
    const std::byte* h = bytes.data();
    file::check_header(bytes, file::kind_dna, "packed DNA");
    const auto flags = static_cast<std::uint8_t>(h[11]);
    if ((flags & ~flags_known) != 0) throw format_error("unknown flags", 11);
    if ((flags & flag_modeled_v2) != 0 && (flags & flag_modeled) == 0)
        throw format_error("flag bit 4 (modeled coder 2) without bit 2 (modeled letters)", 11);
    const auto letters = load_le<std::uint64_t>(h + 16);
    const auto record_count = load_le<std::uint64_t>(h + 24);
    const auto meta_bytes = load_le<std::uint64_t>(h + 32);
    const auto meta_raw = load_le<std::uint64_t>(h + 40);
    const auto payload_bytes = load_le<std::uint64_t>(h + 48);
    const std::uint64_t available = bytes.size() - file::header_bytes;
    if (meta_bytes > available || payload_bytes != available - meta_bytes)
        throw format_error("sizes in the header (metadata " + std::to_string(meta_bytes) + ", payload " +
                               std::to_string(payload_bytes) + ") do not add up to the file's " +
                               std::to_string(bytes.size()) + " bytes",
                           32);
    if ((flags & flag_deflated) == 0
            ? meta_raw != meta_bytes
            : meta_raw > checked_add(checked_mul(meta_bytes, max_inflate_ratio, "inflated metadata bound", 32), 64,
                                     "inflated metadata bound", 32))
        throw format_error("inflated metadata size " + std::to_string(meta_raw) + " impossible for " +
                               std::to_string(meta_bytes) + " stored bytes",
                           40);
    if (!records_fit(record_count, meta_bytes))
        throw format_error(std::to_string(record_count) + " records announced, more than " +
                               std::to_string(max_records_per_stored_byte) + " per byte of the " +
                               std::to_string(meta_bytes) + " stored metadata bytes (beyond the first " +
                               std::to_string(record_allowance) + ")",
                           24);
    // Each letter costs at least a bit of payload in any mode except runs of N, which cost a
    // few bytes per 2048 letters: bound the letter count by the payload before any allocation.
    if (letters / block_values > payload_bytes) throw format_error("more letters than the payload can hold", 16);
    if (load_le<std::uint64_t>(h + file::checksum_offset) != file::checksum(bytes))
        throw format_error("checksum mismatch (the file is damaged)", file::checksum_offset);

    fasta f;
    f.set_crlf((flags & flag_crlf) != 0);
    f.set_final_newline((flags & flag_final_newline) != 0);
    const auto meta_span = bytes.subspan(file::header_bytes, meta_bytes);
    std::string inflated;
    std::string_view meta(reinterpret_cast<const char*>(meta_span.data()), meta_span.size());
    if ((flags & flag_deflated) != 0) {
        inflated = detail::inflate_bytes(meta_span, meta_raw, file::header_bytes);
        meta = inflated;
    }
    meta_reader reader(meta, file::header_bytes, (flags & flag_deflated) != 0);
    read_metadata(reader, record_count, letters, f.crlf(), f.final_newline(), f);

    const std::uint64_t payload_base = file::header_bytes + meta_bytes;
    const auto payload = bytes.subspan(payload_base, payload_bytes);
    bitplane::vector<std::uint32_t> codes = (flags & flag_modeled) != 0
                                                ? detail::read_modeled(payload, payload_base, letters,
                                                                       (flags & flag_modeled_v2) != 0 ? detail::modeled_coder::v2
                                                                                                      : detail::modeled_coder::v1)
                                                : read_planes(payload, payload_base, letters);
    try {
        fasta_access::letters(f) = sequence::from_codes(std::move(codes));
    } catch (const argument_error& e) {
        throw format_error(std::string("packed DNA: ") + e.what(), payload_base);
    }
    return f;
}

}  // namespace bitplane::dna
