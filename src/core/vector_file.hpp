// The parts of the vector file (docs/format.md section 3, version 2) that save() and the
// stream writer share: the block map's run encoding and the bound on blocks per file byte.
#pragma once

#include "core/file_header.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
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
/// skip entries, 1/8 of the block), so repeating a large block must cost file bytes too.
inline constexpr std::uint64_t expanded_bytes_per_file_byte = 4096;

/// The smallest file that a vector of `blocks` blocks, `expanded` bytes of blocks expanded,
/// may have (docs/format.md section 4).
constexpr std::uint64_t min_file_bytes(std::uint64_t blocks, std::uint64_t expanded) noexcept {
    return std::max((blocks + blocks_per_file_byte - 1) / blocks_per_file_byte,
                    (expanded + expanded_bytes_per_file_byte - 1) / expanded_bytes_per_file_byte);
}

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

}  // namespace bitplane::detail::file
