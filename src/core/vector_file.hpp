// The parts of the vector file (docs/format.md section 3, versions 2 and 3) that save() and
// the stream writer share: the block map's run encoding, the bound on blocks per file byte
// and the zstd stage of version 3 (its writer and its bounded, checked reader).
#pragma once

#include "core/file_header.hpp"

#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <span>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace bitplane::detail::file {

/// A vector file of version 2 holds at most this many blocks per byte of file (docs/format.md
/// section 4): the loader's memory is proportional to the block count, and a block map run
/// can announce any count, so the count is bounded by the file's size. Writers pad the block
/// map with zero bytes to meet it (only a vector of more than ~512K values per file byte,
/// e.g. 2^30 equal values, needs any).
inline constexpr std::uint64_t blocks_per_file_byte = 256;
/// And at most this many bytes of blocks per byte of file, counting a stored block once for
/// every block that names it (the size of the blocks expanded, as version 1 stored them):
/// the loaded vector keeps some per-block data in proportion to a block's size (gap-list
/// side entries, up to about 8 times the block), so repeating a large block must cost file bytes too.
inline constexpr std::uint64_t expanded_bytes_per_file_byte = 4096;

/// The smallest file that a vector of `blocks` blocks, `expanded` bytes of blocks expanded,
/// may have (docs/format.md section 4).
constexpr std::uint64_t min_file_bytes(std::uint64_t blocks, std::uint64_t expanded) noexcept {
    return std::max((blocks + blocks_per_file_byte - 1) / blocks_per_file_byte,
                    (expanded + expanded_bytes_per_file_byte - 1) / expanded_bytes_per_file_byte);
}

/// The key under which the writers look for an earlier copy of a block: a hash of its size,
/// its first and last 64 bytes and 8 samples of 8 bytes between (a small block: all of it).
/// Equal blocks have equal keys; different blocks rarely do, and those are told apart byte by
/// byte. Sampling instead of hashing every byte keeps the search from costing a pass over
/// the blocks beside the copy and the checksum (which made saving ~1.5x slower).
inline std::uint64_t block_key(std::span<const std::byte> block) noexcept {
    constexpr std::size_t edge = 64, samples = 8, sample = 8;
    if (block.size() <= 2 * edge + samples * sample) return XXH3_64bits_withSeed(block.data(), block.size(), block.size());
    std::array<std::byte, 2 * edge + samples * sample> picked;
    std::memcpy(picked.data(), block.data(), edge);
    std::memcpy(picked.data() + edge, block.data() + block.size() - edge, edge);
    const std::size_t span = block.size() - 2 * edge - sample;
    for (std::size_t i = 0; i < samples; ++i)
        std::memcpy(picked.data() + 2 * edge + i * sample, block.data() + edge + span * (2 * i + 1) / (2 * samples), sample);
    return XXH3_64bits_withSeed(picked.data(), picked.size(), block.size());
}

/// Stored blocks kept per key: a block whose key matches more stored blocks than this, none
/// equal to it, is stored again (bounding the comparisons per block on adversarial input).
inline constexpr std::size_t candidates_per_key = 4;

/// The writers' index of stored blocks by block_key: an open-addressing table (linear
/// probing, at most half full) of (key, stored block), up to candidates_per_key entries a key.
class block_index {
public:
    /// Room for `stored` stored blocks without growing.
    void reserve(std::uint64_t stored) {
        std::size_t want = 64;
        while (want < 2 * stored) want *= 2;
        if (want > slots_.size()) rehash(want);
    }

    /// The stored block of `key` for which `same(stored)` holds, if any; otherwise records
    /// `next` (the stored block the caller is about to add) under `key` (unless the key has
    /// candidates_per_key entries already) and returns no_block.
    template <class Same>
    std::uint64_t find_or_add(std::uint64_t key, std::uint64_t next, Same&& same) {
        if (2 * (used_ + 1) > slots_.size()) rehash(std::max<std::size_t>(64, 2 * slots_.size()));
        const std::size_t mask = slots_.size() - 1;
        std::size_t i = static_cast<std::size_t>(key) & mask, candidates = 0;
        for (; slots_[i].stored != no_block; i = (i + 1) & mask) {
            if (slots_[i].key != key) continue;
            if (same(slots_[i].stored)) return slots_[i].stored;
            ++candidates;
        }
        if (candidates < candidates_per_key) {
            slots_[i] = {key, next};
            ++used_;
        }
        return no_block;
    }
    [[nodiscard]] std::size_t memory_bytes() const noexcept { return slots_.capacity() * sizeof(slot); }

    static constexpr std::uint64_t no_block = ~std::uint64_t{0};

private:
    struct slot {
        std::uint64_t key = 0;
        std::uint64_t stored = no_block;
    };
    void rehash(std::size_t size) {
        std::vector<slot> old(size);
        old.swap(slots_);
        const std::size_t mask = size - 1;
        for (const slot& s : old) {
            if (s.stored == no_block) continue;
            std::size_t i = static_cast<std::size_t>(s.key) & mask;
            while (slots_[i].stored != no_block) i = (i + 1) & mask;
            slots_[i] = s;
        }
    }
    std::vector<slot> slots_;
    std::size_t used_ = 0;
};

/// Run kinds of the block map: the next k stored blocks in order, or one stored block k times.
inline constexpr std::uint64_t run_new = 0;
inline constexpr std::uint64_t run_repeat = 1;

inline void put_varint(std::vector<std::byte>& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<std::byte>((v & 0x7F) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<std::byte>(v));
}

inline std::uint64_t zigzag(std::int64_t v) noexcept {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::int64_t unzigzag(std::uint64_t v) noexcept {
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

/// Builds the block map from the stored block of each block, in block order (add), as runs:
/// `new` when the block introduces the next stored block, `repeat` (with the stored block's
/// distance from the previous block's) otherwise.
class block_map_builder {
public:
    /// Block `blocks()` is stored block `stored`, of `size` bytes; `fresh` when it is the next
    /// new one.
    void add(std::uint64_t stored, bool fresh, std::uint64_t size) {
        expanded_ += size;
        if (fresh) {
            if (count_ > 0 && kind_ == run_new) {
                ++count_;
            } else {
                flush();
                kind_ = run_new;
                count_ = 1;
            }
        } else if (count_ > 0 && kind_ == run_repeat && stored == stored_) {
            ++count_;
        } else {
            flush();
            kind_ = run_repeat;
            count_ = 1;
            stored_ = stored;
            before_ = last_;
        }
        last_ = stored;
        ++blocks_;
    }
    [[nodiscard]] std::uint64_t blocks() const noexcept { return blocks_; }
    /// Bytes of the blocks added, each block counted (what min_file_bytes bounds).
    [[nodiscard]] std::uint64_t expanded() const noexcept { return expanded_; }

    /// The map's bytes, padded with zero bytes so that a file of `other_bytes` besides the map
    /// meets min_file_bytes.
    [[nodiscard]] std::vector<std::byte> finish(std::uint64_t other_bytes) {
        flush();
        const std::uint64_t need = min_file_bytes(blocks_, expanded_);
        if (other_bytes + bytes_.size() < need) bytes_.resize(static_cast<std::size_t>(need - other_bytes), std::byte{0});
        return std::move(bytes_);
    }

private:
    void flush() {
        if (count_ == 0) return;
        put_varint(bytes_, ((count_ - 1) << 1) | kind_);
        if (kind_ == run_repeat)
            put_varint(bytes_, zigzag(static_cast<std::int64_t>(stored_) - static_cast<std::int64_t>(before_)));
        count_ = 0;
    }

    std::vector<std::byte> bytes_;
    std::uint64_t kind_ = run_new;
    std::uint64_t count_ = 0;   // blocks in the open run
    std::uint64_t stored_ = 0;  // repeat: its stored block
    std::uint64_t before_ = 0;  // repeat: the stored block of the block before the run
    std::uint64_t last_ = 0;    // the stored block of the last block added
    std::uint64_t blocks_ = 0;
    std::uint64_t expanded_ = 0;  // bytes of the blocks, each block counted
};

// ---- Version 3: the version 2 body (payload, sizes table, block map) as one zstd frame ----

/// Bytes of a version 3 file before its frame: the header, then the frame's size C (u64).
inline constexpr std::uint64_t zstd_frame_at = header_bytes + 8;
/// A version 3 file's body (S + 2D + M bytes, decompressed) is at most this many times the
/// file's size (docs/format.md section 4): the loader allocates the body before it
/// decompresses the frame into it, so a zstd bomb of a few KB cannot announce gigabytes.
/// (Version 2 already lets a file of F bytes load into ~31 KiB per byte through its block
/// map; 1024 keeps the body a small part of that.) Writers keep version 2 when the frame
/// would break it.
inline constexpr std::uint64_t body_bytes_per_file_byte = 1024;

/// Whether a version 3 file of `blocks` blocks, `expanded` bytes of blocks expanded, a body
/// of `body` bytes and a frame of `frame` bytes meets the loader's bounds (section 4).
constexpr bool zstd_file_in_bounds(std::uint64_t blocks, std::uint64_t expanded, std::uint64_t body,
                                   std::uint64_t frame) noexcept {
    const std::uint64_t total = zstd_frame_at + frame;
    return total >= min_file_bytes(blocks, expanded) && body <= body_bytes_per_file_byte * total;
}

/// The zstd levels a writer takes: 0 (no zstd stage: version 2) or 1 to ZSTD_maxCLevel().
/// argument_error naming `where` otherwise.
inline void check_zstd_level(int level, const char* where) {
    if (level < 0 || level > ZSTD_maxCLevel())
        throw argument_error(std::string(where) + ": zstd level " + std::to_string(level) + " outside [0, " +
                             std::to_string(ZSTD_maxCLevel()) + "] (0: no zstd stage)");
}

/// Compresses a body of `body_bytes` bytes, handed over in order by `each_piece(add)` (add
/// takes a std::span<const std::byte>), into one zstd frame at `level` that declares its
/// content size and has no zstd checksum (the file's XXH3 covers it). Pieces are always fed
/// as a stream (ZSTD_e_continue, then an empty ZSTD_e_end), so that the frame does not depend
/// on how the body is split: save() and vector_writer write the same bytes. Returns nothing
/// when the frame and its size field would not be smaller than the body (the writer then
/// keeps version 2); the
/// output never holds more than the body's size.
template <class Pieces>
std::optional<std::vector<std::byte>> compress_body(int level, std::uint64_t body_bytes, Pieces&& each_piece) {
    if (body_bytes == 0) return std::nullopt;
    const std::unique_ptr<ZSTD_CCtx, std::size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
    if (!cctx) throw std::bad_alloc();
    auto ok = [](std::size_t r) {
        if (ZSTD_isError(r)) throw error(std::string("bitplane: zstd compression failed: ") + ZSTD_getErrorName(r));
    };
    ok(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level));
    ok(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 1));
    ok(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 0));
    ok(ZSTD_CCtx_setPledgedSrcSize(cctx.get(), body_bytes));
    std::vector<std::byte> out(static_cast<std::size_t>(body_bytes));
    ZSTD_outBuffer o{out.data(), out.size(), 0};
    bool full = false;
    each_piece([&](std::span<const std::byte> piece) {
        ZSTD_inBuffer in{piece.data(), piece.size(), 0};
        while (!full && in.pos < in.size) {
            ok(ZSTD_compressStream2(cctx.get(), &o, &in, ZSTD_e_continue));
            if (o.pos == o.size) full = true;
        }
    });
    if (full) return std::nullopt;
    ZSTD_inBuffer none{nullptr, 0, 0};
    for (;;) {
        const std::size_t left = ZSTD_compressStream2(cctx.get(), &o, &none, ZSTD_e_end);
        ok(left);
        if (left == 0) break;
        if (o.pos == o.size) return std::nullopt;
    }
    if (o.pos + (zstd_frame_at - header_bytes) >= body_bytes) return std::nullopt;  // the file would not shrink
    out.resize(o.pos);
    return out;
}

/// Decompresses the zstd frame of a version 3 file (`frame`, at file offset `frame_at`) into
/// exactly `body_bytes` bytes, which the caller has bounded (body_bytes_per_file_byte).
/// format_error at the frame when it is not exactly one zstd frame that declares a content
/// size of `body_bytes`, or when it is truncated or corrupt; never more memory than the body
/// and a zstd decompression context (single pass into the body: no window buffer).
inline std::vector<std::byte> decompress_body(std::span<const std::byte> frame, std::uint64_t body_bytes,
                                              std::uint64_t frame_at) {
    const unsigned long long declared = ZSTD_getFrameContentSize(frame.data(), frame.size());
    if (declared == ZSTD_CONTENTSIZE_ERROR)
        throw format_error("zstd frame of " + std::to_string(frame.size()) + " bytes: not a zstd frame (bad magic or header)", frame_at);
    if (declared == ZSTD_CONTENTSIZE_UNKNOWN)
        throw format_error("zstd frame does not declare its content size", frame_at);
    if (declared != body_bytes)
        throw format_error("zstd frame declares " + std::to_string(declared) + " bytes of content, the header " +
                               std::to_string(body_bytes) + " (payload, sizes table and block map)",
                           frame_at);
    const std::size_t frame_bytes = ZSTD_findFrameCompressedSize(frame.data(), frame.size());
    if (ZSTD_isError(frame_bytes))
        throw format_error(std::string("zstd frame truncated or corrupt: ") + ZSTD_getErrorName(frame_bytes), frame_at);
    if (frame_bytes != frame.size())
        throw format_error("zstd frame ends after " + std::to_string(frame_bytes) + " of its " +
                               std::to_string(frame.size()) + " bytes",
                           frame_at + frame_bytes);
    const std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
    if (!dctx) throw std::bad_alloc();
    std::vector<std::byte> body(static_cast<std::size_t>(body_bytes));
    const std::size_t got = ZSTD_decompressDCtx(dctx.get(), body.data(), body.size(), frame.data(), frame.size());
    if (ZSTD_isError(got))
        throw format_error(std::string("zstd frame corrupt: ") + ZSTD_getErrorName(got), frame_at);
    if (got != body_bytes)
        throw format_error("zstd frame holds " + std::to_string(got) + " bytes, it declares " + std::to_string(body_bytes),
                           frame_at);
    return body;
}

}  // namespace bitplane::detail::file
