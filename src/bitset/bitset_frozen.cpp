// Bitset file version 3, the frozen layout (docs/format.md section 5.3; bitset_frozen.hpp).
//
// The reader checks every rule version 1's reader checks (sizes before use, summary against
// entries, each payload inside the arena and well formed, counts), and for a file of this
// build's layout version also that each block is stored exactly as memory would store it (its
// kind and item count those choose_plan() gives, the payload packed where the previous one
// ended, an inline payload inline): then the arena can serve as memory's own, borrowed, and the
// core built from the file is equal (bitset_core::equals compares payload bytes) to any other
// holding the same bits. Files of another layout version are decoded and re-encoded.
#include "bitset/bitset_frozen.hpp"
#include "bitset/bitset_file_fields.hpp"

#include "bitset/bitset_kernels.hpp"

#include <bitplane/bitset_view.hpp>
#include <bitplane/error.hpp>

#include "core/checked_size.hpp"
#include "core/file_header.hpp"

#include <cerrno>
#include <cstring>
#include <optional>
#include <ostream>
#include <string>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bitplane::detail::bitset_frozen {

namespace {

using file::checksum;
using file::checksum_offset;
using file::header_bytes;
using file::kind_bitset;

constexpr std::size_t entry_bytes = 16;
// bitset_core refuses universes whose summary would exceed 2^34 bytes (2^46 bits).
constexpr std::uint64_t max_size = std::uint64_t{1} << 46;
using bitset_file::max_block_payload;

struct header {
    std::uint64_t size = 0;    // universe bits
    std::uint64_t blocks = 0;
    std::uint64_t count = 0;   // set bits
    std::uint64_t stored = 0;  // entries
    std::uint64_t arena = 0;   // arena bytes
    std::uint8_t layout = 0;
    [[nodiscard]] std::uint64_t words() const { return (blocks + 63) / 64; }
    [[nodiscard]] std::uint64_t entries_offset() const { return header_bytes + 16 * words(); }
    [[nodiscard]] std::uint64_t arena_offset() const { return entries_offset() + entry_bytes * stored; }
    [[nodiscard]] std::uint64_t total_bytes() const { return arena_offset() + arena + slack_bytes; }
};

// The fixed header (after the checks every file shares); afterwards every field is bounded, so
// total_bytes() cannot overflow.
header parse_header(std::span<const std::byte> bytes) {
    const std::byte* h = bytes.data();
    header f;
    f.layout = static_cast<std::uint8_t>(h[11]);
    f.size = load_le<std::uint64_t>(h + 16);
    f.blocks = load_le<std::uint64_t>(h + 24);
    f.count = load_le<std::uint64_t>(h + 32);
    f.stored = load_le<std::uint64_t>(h + 40);
    f.arena = load_le<std::uint64_t>(h + 48);
    if (f.layout == 0) throw format_error("frozen bitset: memory layout version 0", 11);
    bitset_file::check_counts(f.size, f.blocks, f.count, f.stored, max_size);
    if (f.arena > checked_mul(f.stored, max_block_payload, "arena bound", 40))
        throw format_error("arena size " + std::to_string(f.arena) + " too large for " + std::to_string(f.stored) +
                               " stored blocks",
                           48);
    const std::uint64_t summary = checked_mul(16, f.words(), "summary size", 24);
    const std::uint64_t entries = checked_mul(entry_bytes, f.stored, "entry table size", 40);
    (void)checked_add(checked_add(checked_add(checked_add(header_bytes, summary, "file size", 24), entries, "file size", 40),
                                  f.arena, "file size", 48),
                      slack_bytes, "file size", 48);
    return f;
}

const char* kind_name(block_kind k) noexcept {
    switch (k) {
        case block_kind::positions: return "positions";
        case block_kind::runs: return "runs";
        case block_kind::raw: return "raw";
        case block_kind::gaps: return "gaps";
    }
    return "unknown";
}

// Decodes a payload into `bits` (zero on entry), every rule of its encoding checked; `at` is
// the payload's file offset (for errors).
void decode(block_kind kind, std::uint32_t items, std::uint32_t len, std::span<const std::byte> payload,
            std::uint64_t at, plane& bits) {
    byte_reader r(payload, at);
    switch (kind) {
        case block_kind::positions: positions_payload::apply(r, items, len, bits); break;
        case block_kind::runs: runs_payload::apply(r, items, len, bits); break;
        case block_kind::gaps: gaps_payload::apply(r, items, len, bits); break;
        case block_kind::raw: raw_payload::assign(r, len, bits); break;
    }
}

// Whether a payload is memory's own encoding of its block, checked where it lies without
// decoding it into a plane (a view's common case): every rule of its encoding, its set bits
// `count`, and the kind and item count choose_plan() gives. False when anything is off; the
// caller then decodes the block to say what.
bool is_memory_block(block_kind kind, std::uint32_t items, std::uint32_t count, std::uint32_t len, const std::byte* p,
                     const bitset_kernel_table& k) noexcept {
    std::uint32_t runs = 0;
    switch (kind) {
        case block_kind::positions: {
            std::uint32_t next = 0;  // one past the previous position
            for (std::uint32_t i = 0; i < items; ++i) {
                const std::uint32_t bit = load_le<std::uint16_t>(p + 2 * i);
                if (bit >= len || (i > 0 && bit < next)) return false;
                runs += (i == 0) | (bit != next);
                next = bit + 1;
            }
            if (count != items) return false;
            break;
        }
        case block_kind::runs: {
            std::uint32_t bits = 0, previous_end = 0;
            for (std::uint32_t i = 0; i < items; ++i) {
                const std::uint32_t begin = load_le<std::uint16_t>(p + 4 * i);
                const std::uint32_t end = load_le<std::uint16_t>(p + 4 * i + 2);
                if (begin >= end || end > len || (i > 0 && begin <= previous_end)) return false;
                bits += end - begin;
                previous_end = end;
            }
            if (bits != count) return false;
            runs = items;
            break;
        }
        case block_kind::raw: {
            if (len != block_values) return false;  // a short block's bits past len: decoded
            const block_stats st = k.stats(p);
            if (st.count != count) return false;
            runs = runs_from_transitions(st.transitions, (static_cast<std::uint32_t>(p[block_values / 8 - 1]) >> 7) != 0);
            break;
        }
        default: return false;
    }
    const bitset_block_plan plan = choose_plan(count, runs, len);
    return plan.kind == kind && plan.items == items;
}

}  // namespace

std::uint64_t total_bytes(std::span<const std::byte> header_bytes_in) { return parse_header(header_bytes_in).total_bytes(); }

std::unique_ptr<bitset_core> load(std::span<const std::byte> bytes, bool borrow, bool* borrowed) {
    if (borrowed != nullptr) *borrowed = false;
    const header f = parse_header(bytes);
    bitset_file::check_file_length(bytes.size(), f.total_bytes());
    if (load_le<std::uint64_t>(bytes.data() + checksum_offset) != checksum(bytes))
        throw format_error("checksum mismatch: the file is corrupted", checksum_offset);

    const auto words = static_cast<std::size_t>(f.words());
    const std::byte* summary = bytes.data() + header_bytes;
    bitset_file::check_summary(summary, words, f.blocks, header_bytes, f.stored);

    // In place only where memory would store every block exactly so (this layout version), at
    // an address memory's loads accept.
    const bool strict = f.layout == layout_version;
    const bool in_place = strict && reinterpret_cast<std::uintptr_t>(bytes.data()) % view_alignment == 0;
    // Strict: the core is filled field by field; otherwise each block is re-encoded.
    std::unique_ptr<bitset_core> core;
    std::optional<core_writer> out;
    if (strict) {
        core = std::make_unique<bitset_core>(f.size);
        core_access::entries(*core).resize(static_cast<std::size_t>(f.stored));
    } else {
        out.emplace(f.size, static_cast<std::size_t>(f.stored), static_cast<std::size_t>(f.arena));
    }

    const bitset_kernel_table& kernels = bitset_kernels();
    const std::byte* const arena = bytes.data() + f.arena_offset();
    std::uint64_t next = 0;  // where the next arena payload starts
    std::uint64_t entry_at = f.entries_offset();
    std::size_t i = 0;
    std::uint64_t ones = 0;
    for (std::size_t w = 0; w < words; ++w) {
        const auto nonempty = load_le<std::uint64_t>(summary + 8 * w);
        const auto full = load_le<std::uint64_t>(summary + 8 * (words + w));
        if (strict) {
            core_access::words(*core)[w].nonempty = nonempty;
            core_access::words(*core)[w].full = full;
        }
        for (std::uint64_t m = nonempty; m != 0; m &= m - 1) {
            const std::size_t b = 64 * w + lowest_bit(m);
            const std::uint32_t len = block_length(f.size, b);
            if ((full >> lowest_bit(m)) & 1) {
                if (!strict) out->add_full(b);
                ones += len;
                continue;
            }
            const std::byte* d = bytes.data() + entry_at;
            if (d[14] != std::byte{0} || d[15] != std::byte{0})
                throw format_error("block entry: reserved bytes are not 0", entry_at + 14);
            const auto kind = static_cast<block_kind>(d[12]);
            const std::uint32_t items = load_le<std::uint16_t>(d + 10);
            bitset_file::check_items(kind, items, len, "block entry", entry_at + 10, entry_at + 12, strict);
            const std::uint32_t count = load_le<std::uint16_t>(d + 8);
            if (count == 0 || count >= len)
                throw format_error("stored block " + std::to_string(b) + ": set bit count " + std::to_string(count) +
                                       " outside [1, len - 1] (empty and full blocks are summary bits)",
                                   entry_at + 8);
            const std::uint32_t bytes_of_payload = payload_size(kind, items, len);
            const auto inline_flag = static_cast<std::uint8_t>(d[13]);
            if (inline_flag > 1 || (inline_flag == 1 && !is_inline(bytes_of_payload)) ||
                (strict && inline_flag != (is_inline(bytes_of_payload) ? 1 : 0)))
                throw format_error("block entry: inline flag " + std::to_string(inline_flag) + " for a payload of " +
                                       std::to_string(bytes_of_payload) + " bytes",
                                   entry_at + 13);
            std::span<const std::byte> payload;
            std::uint64_t payload_at = entry_at;
            const std::uint64_t offset = next;
            if (inline_flag == 1) {
                for (std::uint32_t k = bytes_of_payload; k < 8; ++k)
                    if (d[k] != std::byte{0}) throw format_error("block entry: inline payload padding is not 0", entry_at + k);
                payload = bytes.subspan(static_cast<std::size_t>(entry_at), bytes_of_payload);
            } else {
                const auto at = load_le<std::uint64_t>(d);
                if (at != next)
                    throw format_error("stored block " + std::to_string(b) + ": payload at arena offset " +
                                           std::to_string(at) + ", expected " + std::to_string(next) +
                                           " (payloads are packed in block order)",
                                       entry_at);
                if (bytes_of_payload > f.arena - next)
                    throw format_error("stored block " + std::to_string(b) + ": payload runs past the arena's end", entry_at);
                payload_at = f.arena_offset() + next;
                payload = bytes.subspan(static_cast<std::size_t>(payload_at), bytes_of_payload);
                next += bytes_of_payload;
            }
            if (!(strict && is_memory_block(kind, items, count, len, payload.data(), kernels))) {
                plane bits{};
                decode(kind, items, len, payload, payload_at, bits);
                const block_stats st = kernels.stats(bits.data());
                if (st.count != count)
                    throw format_error("stored block " + std::to_string(b) + " holds " + std::to_string(st.count) +
                                           " set bits, its entry says " + std::to_string(count),
                                       entry_at + 8);
                if (!strict) {
                    out->add_plane(b, bits, st);
                } else {
                    const bitset_block_plan plan = plan_for_plane(bits, st, len);
                    if (plan.kind != kind || plan.items != items)
                        throw format_error("stored block " + std::to_string(b) + " is " + kind_name(kind) + " of " +
                                               std::to_string(items) + " items; memory stores it as " +
                                               kind_name(plan.kind) + " of " + std::to_string(plan.items),
                                           entry_at + 12);
                    // Accepted: the short last raw block, whose bits past len are checked here.
                }
            }
            if (strict) {
                block_entry& e = core_access::entries(*core)[i];
                if (inline_flag == 1) {
                    std::memcpy(&e.offset, d, 8);  // the payload's bytes as memory keeps them
                } else {
                    e.offset = offset;
                }
                e.count = static_cast<std::uint16_t>(count);
                e.items = static_cast<std::uint16_t>(items);
                e.kind = kind;
                e.inline_payload = inline_flag;
            }
            ones += count;
            ++i;
            entry_at += entry_bytes;
        }
    }
    if (next != f.arena)
        throw format_error("payloads end " + std::to_string(f.arena - next) + " bytes before the arena does",
                           f.arena_offset() + next);
    for (std::uint64_t k = 0; k < slack_bytes; ++k)
        if (arena[f.arena + k] != std::byte{0})
            throw format_error("slack byte after the arena is not 0", f.arena_offset() + f.arena + k);
    if (ones != f.count)
        throw format_error("blocks hold " + std::to_string(ones) + " set bits, header announces " + std::to_string(f.count),
                           32);
    if (!strict) return out->finish();
    core_access::index(*core);
    byte_buffer& arena_buffer = core_access::arena(*core);
    if (f.arena != 0) {
        arena_buffer.borrow(arena, static_cast<std::size_t>(f.arena));
        if (!(in_place && borrow)) arena_buffer = byte_buffer(arena_buffer);  // an owned copy
    }
    if (borrowed != nullptr) *borrowed = in_place && borrow;
    return core;
}

void save(const bitset_core& c, std::vector<std::byte>& out) {
    const std::vector<summary_word>& words = c.words();
    const std::vector<block_entry>& entries = c.entries();
    std::uint64_t arena = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const std::uint32_t bytes = payload_size(entries[i], c.stored_len(i));
        if (!is_inline(bytes)) arena += bytes;
    }
    header f;
    f.size = c.size();
    f.blocks = c.block_count();
    f.count = c.count();
    f.stored = entries.size();
    f.arena = arena;
    const std::size_t start = out.size();
    out.resize(start + static_cast<std::size_t>(f.total_bytes()));  // zero-filled: padding, slack
    std::byte* h = out.data() + start;
    file::write_header_start(h, kind_bitset, layout_version, version);
    store_le<std::uint64_t>(h + 16, f.size);
    store_le<std::uint64_t>(h + 24, f.blocks);
    store_le<std::uint64_t>(h + 32, f.count);
    store_le<std::uint64_t>(h + 40, f.stored);
    store_le<std::uint64_t>(h + 48, f.arena);
    const std::size_t nwords = words.size();
    for (std::size_t w = 0; w < nwords; ++w) {
        store_le<std::uint64_t>(h + header_bytes + 8 * w, words[w].nonempty);
        store_le<std::uint64_t>(h + header_bytes + 8 * (nwords + w), words[w].full);
    }
    std::byte* d = h + f.entries_offset();
    std::byte* const a = h + f.arena_offset();
    std::uint64_t next = 0;
    for (std::size_t i = 0; i < entries.size(); ++i, d += entry_bytes) {
        const block_entry& e = entries[i];
        const std::uint32_t bytes = payload_size(e, c.stored_len(i));
        if (is_inline(bytes)) {
            std::memcpy(d, c.payload(e), bytes);  // the rest stays 0 (memory may keep stale bytes there)
            d[13] = std::byte{1};
        } else {
            store_le<std::uint64_t>(d, next);
            std::memcpy(a + next, c.payload(e), bytes);
            next += bytes;
        }
        store_le<std::uint16_t>(d + 8, e.count);
        store_le<std::uint16_t>(d + 10, e.items);
        d[12] = static_cast<std::byte>(e.kind);
    }
    store_le<std::uint64_t>(h + checksum_offset,
                            checksum(std::span<const std::byte>(h, static_cast<std::size_t>(f.total_bytes()))));
}

}  // namespace bitplane::detail::bitset_frozen

// ---- bitset_view --------------------------------------------------------------------------------

namespace bitplane {

bitset_view::bitset_view(std::span<const std::byte> bytes) { open(bytes); }

void bitset_view::open(std::span<const std::byte> bytes) {
    bytes_ = bytes;
    if (bytes.size() >= detail::file::header_bytes &&
        detail::file::check_header(bytes, detail::file::kind_bitset, "a bitset", detail::bitset_frozen::version) ==
            detail::bitset_frozen::version) {
        bits_ = detail::bitset_access::make(detail::bitset_frozen::load(bytes, true, &borrows_));
    } else {
        bits_ = load_bitset(bytes);  // versions 1 and 2, copied (and every header error)
    }
}

bitset_view::bitset_view(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw io_error("bitset_view: cannot open " + path.string() + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        throw io_error("bitset_view: cannot stat " + path.string() + ": " + std::strerror(err));
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size != 0) {
        void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        const int err = errno;
        ::close(fd);
        if (p == MAP_FAILED) throw io_error("bitset_view: cannot map " + path.string() + ": " + std::strerror(err));
        mapping_ = p;
        mapping_bytes_ = size;
    } else {
        ::close(fd);
    }
    try {
        open(std::span<const std::byte>(static_cast<const std::byte*>(mapping_), size));
    } catch (...) {
        release();
        throw;
    }
}

bitset_view::bitset_view(bitset_view&& other) noexcept
    : bytes_(std::exchange(other.bytes_, {})),
      mapping_(std::exchange(other.mapping_, nullptr)),
      mapping_bytes_(std::exchange(other.mapping_bytes_, 0)),
      bits_(std::move(other.bits_)),
      borrows_(std::exchange(other.borrows_, false)) {
    other.bits_ = bitset();
}

bitset_view& bitset_view::operator=(bitset_view&& other) noexcept {
    if (this == &other) return *this;
    bits_ = std::move(other.bits_);  // first: the old set may borrow from the mapping released below
    other.bits_ = bitset();
    bytes_ = std::exchange(other.bytes_, {});
    borrows_ = std::exchange(other.borrows_, false);
    release();
    mapping_ = std::exchange(other.mapping_, nullptr);
    mapping_bytes_ = std::exchange(other.mapping_bytes_, 0);
    return *this;
}

bitset_view::~bitset_view() {
    bits_ = bitset();
    release();
}

void bitset_view::release() noexcept {
    if (mapping_ != nullptr) ::munmap(mapping_, mapping_bytes_);
    mapping_ = nullptr;
    mapping_bytes_ = 0;
}

void save_frozen(const bitset& set, std::vector<std::byte>& out) {
    detail::bitset_frozen::save(detail::core_of(set), out);
}

void save_frozen(const bitset& set, std::ostream& out) {
    std::vector<std::byte> bytes;
    save_frozen(set, bytes);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out)
        throw io_error("bitplane::save_frozen: writing " + std::to_string(bytes.size()) + " bytes to the stream failed");
}

}  // namespace bitplane
