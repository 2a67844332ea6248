// Code planes of 2048 letters in L1, and moving them in and out of a sequence's blocks: the
// starting point of every DNA operation (as ops/block_view.hpp is for columns).
#pragma once

#include <bitplane/block.hpp>
#include <bitplane/dna/sequence.hpp>

#include <cstddef>
#include <cstdint>

namespace bitplane::dna {

/// The library's access to a sequence's codes (the friend of sequence).
class sequence_access {
public:
    static bitplane::vector<std::uint32_t>& codes(sequence& s) noexcept { return s.codes_; }
};

namespace detail {

/// The planes of up to 2048 letters. Planes 0..5 hold the codes; every plane outside `nonzero`
/// is all zero (written), so kernels may read all six. Planes 6..31 stay zero (the block
/// encoder reads a whole block_planes).
struct code_window {
    block_planes planes;
    std::uint32_t nonzero = 0;

    [[nodiscard]] std::uint32_t* data() noexcept { return planes.planes[0].data(); }
    [[nodiscard]] const std::uint32_t* data() const noexcept { return planes.planes[0].data(); }
    /// Zeroes the planes that `nonzero` says may be set, except those in `keep` (about to be
    /// overwritten), then clears it.
    void clear(std::uint32_t keep = 0) noexcept;
};

/// The interleaved payload of block `block` when it is a sealed two-plane block (plain
/// upper-case ACGT: see dna_kernels.hpp), else null.
[[nodiscard]] const std::byte* two_plane_payload(const bitplane::vector<std::uint32_t>& codes, std::size_t block) noexcept;

/// Block `block` of `codes` into `out` (letters past the end of a last, partial block are 0).
void read_block(const bitplane::vector<std::uint32_t>& codes, std::size_t block, code_window& out);

/// Appends `count` letters (2048, or fewer for the last block) of `window` to `codes`, whose
/// size must be a multiple of 2048 when count is 2048. Plain two-plane blocks are written
/// directly (all-raw, interleaved); blocks with partly set higher planes (N runs, soft-masked
/// runs) go through the full block encoder, which finds runs; it is never asked for value
/// transforms or the sparse layout, so that every block built here is a plain dense block
/// whose planes are its codes.
void append_window(bitplane::vector<std::uint32_t>& codes, const code_window& window, std::size_t count);

/// Encodes a full window (2048 letters) as append_window would append it; `out` holds
/// codec::max_block_bytes. Returns the bytes written.
std::size_t encode_window(const code_window& window, std::span<std::byte> out);

/// Windows of 2048 letters starting anywhere, letters outside [lo, hi) read as code 0. Keeps
/// the last two blocks it read, so that consecutive windows decode each block once.
class window_reader {
public:
    window_reader(const bitplane::vector<std::uint32_t>& codes, std::uint64_t lo, std::uint64_t hi) noexcept
        : codes_(codes), lo_(lo), hi_(hi) {}

    /// Letters [start, start + 2048) into `out`.
    void load(std::int64_t start, code_window& out);

private:
    const code_window& block(std::size_t index);

    const bitplane::vector<std::uint32_t>& codes_;
    std::uint64_t lo_, hi_;
    code_window cache_[2];
    std::size_t cached_[2] = {static_cast<std::size_t>(-1), static_cast<std::size_t>(-1)};
    unsigned next_slot_ = 0;
};

}  // namespace detail
}  // namespace bitplane::dna
