// The public block functions of include/bitplane/block.hpp, on top of the active kernel table.
#include "simd/kernels.hpp"

#include <bitplane/block.hpp>
#include <bitplane/error.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace bitplane {
namespace {

// The kernels see a block's planes as one run of 32 x 64 words.
static_assert(sizeof(block_planes) == plane_count * plane_bytes, "block_planes must be 32 planes, no padding");
static_assert(sizeof(hamming_matrix) == plane_count * plane_count * sizeof(std::uint16_t),
              "hamming_matrix must be 32 x 32 entries, no padding");

std::uint32_t* words_of(block_planes& b) noexcept {
    return b.planes.front().data();
}

const std::uint32_t* words_of(const block_planes& b) noexcept {
    return b.planes.front().data();
}

void check_size(const char* what, std::size_t n) {
    if (n > block_values) {
        throw size_error(std::string(what) + ": " + std::to_string(n) + " values given, a block holds at most " +
                         std::to_string(block_values));
    }
}

// Planes that hold any set bit; the others need not be read back.
std::uint32_t nonzero_planes(const block_planes& in) noexcept {
    std::uint32_t live = 0;
    for (std::size_t j = 0; j < plane_count; ++j) {
        std::uint32_t any = 0;
        for (const std::uint32_t w : in.planes[j]) {
            any |= w;
        }
        live |= static_cast<std::uint32_t>(any != 0) << j;
    }
    return live;
}

}  // namespace

void transpose(std::span<const std::uint32_t> values, block_planes& out) {
    check_size("transpose", values.size());
    const detail::kernel_table& k = detail::active_kernels();
    if (values.size() == block_values) {
        k.transpose(values.data(), words_of(out));
        return;
    }
    alignas(64) std::array<std::uint32_t, block_values> padded{};
    std::copy(values.begin(), values.end(), padded.begin());
    k.transpose(padded.data(), words_of(out));
}

void untranspose(const block_planes& in, std::span<std::uint32_t> out) {
    check_size("untranspose", out.size());
    if (out.empty()) {
        return;
    }
    const detail::kernel_table& k = detail::active_kernels();
    const std::uint32_t live = nonzero_planes(in);
    if (out.size() == block_values) {
        k.untranspose(words_of(in), live, out.data());
        return;
    }
    alignas(64) std::array<std::uint32_t, block_values> full;
    k.untranspose(words_of(in), live, full.data());
    std::copy_n(full.begin(), out.size(), out.begin());
}

hamming_matrix compute_hamming_matrix(const block_planes& in) {
    hamming_matrix m;
    detail::active_kernels().pair_popcounts(words_of(in), plane_count, m.front().data());
    return m;
}

}  // namespace bitplane
