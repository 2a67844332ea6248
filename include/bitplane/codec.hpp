// The block codec: one block of at most 2048 values <-> its compressed bytes.
//
// A block is stored as a value transform (none, frame of reference, delta, zigzag), a layout
// (dense: all values' planes; sparse: a non-zero mask plane plus the planes of the non-zero
// values only) and, per plane, "base XOR payload": the base is the zero plane, the one plane,
// another plane of the block or its complement; the payload is empty, a sorted position list,
// a run list or raw bits. docs/format.md describes the bytes; docs/design.md the choices.
//
// All functions are thread-safe (they touch no shared state besides the SIMD dispatch).
#pragma once

#include <bitplane/block.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace bitplane::codec {

/// Upper bound on the encoded size of one block (header, descriptors, 33 planes).
inline constexpr std::size_t max_block_bytes = 9 * 1024;

enum class transform : std::uint8_t { none = 0, frame_of_reference = 1, delta = 2, zigzag = 3 };
enum class layout : std::uint8_t { dense = 0, sparse = 1 };
/// What a stored plane is XORed onto.
enum class base_kind : std::uint8_t { zero = 0, one = 1, plane = 2, complement = 3 };
/// What is XORed onto the base.
enum class payload_kind : std::uint8_t { none = 0, positions = 1, runs = 2, raw = 3, gaps = 4 };
inline constexpr std::size_t payload_kind_count = 5;

/// How one plane of a block is stored. Elided planes have base zero/one and no payload.
struct plane_info {
    base_kind base = base_kind::zero;
    payload_kind payload = payload_kind::none;
    std::uint8_t reference = 0;   ///< the plane used as base (base plane/complement)
    std::uint16_t items = 0;      ///< positions or runs in the payload (gaps: payload bytes)
    std::uint32_t bytes = 0;      ///< bytes this plane costs (descriptor + payload)
};

/// The structure of an encoded block, for statistics and tools.
struct block_info {
    transform value_transform = transform::none;
    layout value_layout = layout::dense;
    std::uint32_t values = 0;        ///< values in the block
    std::uint32_t stored_values = 0; ///< values whose planes are stored (non-zeros if sparse)
    std::uint32_t bytes = 0;         ///< encoded size
    std::array<plane_info, plane_count> planes{};
    plane_info mask{};               ///< the non-zero mask plane (sparse layout only)
};

/// What the encoder may use. The defaults give the smallest blocks; turning choices off is
/// for measuring what each one buys (benchmarks, `bitplane stats`) or for callers that want
/// every block to stay plane-operable without decoding (no delta, no zigzag).
struct encode_options {
    bool frame_of_reference = true;
    bool delta = true;
    bool zigzag = true;
    bool sparse = true;
    bool references = true;  ///< planes stored as XOR onto other planes
    bool runs = true;        ///< run-list payloads
    /// Dense full blocks stored all-raw (interleaved) where that takes no more memory than
    /// their smallest encoding with what a vector keeps beside it for reads (gap lists' maps
    /// and positions, read plans), or a little more for wide values: a random read then reads
    /// one or two cache lines. Off: the smallest encoding always.
    bool raw_for_reads = true;
};

/// Encodes `values` (1..2048 of them; two's complement bits when `is_signed`) into `out`,
/// which must hold at least max_block_bytes. Picks the transform, layout and per-plane
/// encodings that make the block smallest. Returns the number of bytes written.
/// Throws size_error when values is empty or longer than 2048, or out is too small.
std::size_t encode_block(std::span<const std::uint32_t> values, bool is_signed,
                         std::span<std::byte> out, const encode_options& options = {});

/// Encodes a plain (untransformed, dense) block of `count` values from their planes, quickly:
/// all-zero and all-one planes are elided and every other plane stored on its own as raw
/// bits, positions or gaps, whichever is smallest; no transforms, references, runs or sparse
/// layout are tried. For results computed on planes (bitwise operations), where re-encoding
/// from values would cost more than the operation. Only planes in `candidates` are read (the
/// others are taken as zero); bits at or above `count` must be clear. Returns bytes written.
std::size_t encode_planes(const block_planes& planes, std::uint32_t candidates, std::size_t count,
                          std::span<std::byte> out);

/// The same for a block in the sparse layout (untransformed): `mask` has bit i set for each
/// non-zero value i < count, and `planes` are the planes of those values only, in order
/// (popcount(mask) bits each; higher bits clear). Every value it describes must be non-zero
/// (no position where all candidate planes are clear). For results of operations that keep
/// a sparse operand's zeros (AND, AND-NOT). Returns bytes written.
std::size_t encode_sparse_planes(const plane& mask, const block_planes& planes, std::uint32_t candidates,
                                 std::size_t count, std::span<std::byte> out);

/// Decodes a block of `out.size()` values (the count it was encoded with). Validates as it
/// goes: malformed bytes throw format_error with the offset inside `bytes`.
void decode_block(std::span<const std::byte> bytes, std::span<std::uint32_t> out);

/// One value of a block of `count` values, without decoding the rest where the layout
/// allows it (delta blocks decode up to `index`). The block must have been validated.
std::uint32_t decode_value(std::span<const std::byte> bytes, std::size_t count, std::size_t index);

/// Checks every structural rule of a block of `count` values (header, references acyclic,
/// positions sorted and in range, runs ordered, sizes matching `bytes.size()` exactly).
/// Throws format_error on the first violation.
void validate_block(std::span<const std::byte> bytes, std::size_t count);

/// Describes a validated block.
block_info describe_block(std::span<const std::byte> bytes, std::size_t count);

}  // namespace bitplane::codec
