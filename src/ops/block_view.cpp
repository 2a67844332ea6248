#include "ops/block_view.hpp"

#include "codec/block_decoding.hpp"
#include "codec/block_format.hpp"
#include "codec/value_transform.hpp"
#include "simd/kernels.hpp"

#include <algorithm>
#include <bit>

namespace bitplane::detail {

namespace {

void view_parsed_block(const parsed_block& block, std::span<const std::byte> bytes, block_view& out) {
    rebuild_planes(block, bytes, 0, out.planes, out.mask);
    out.count = block.count;
    out.transform = block.value_transform;
    out.for_base = block.for_base;
    out.delta_first = block.delta_first;
    out.delta_min = block.delta_min;
    out.sparse = block.sparse;
    out.length = block.length;
    out.live = block.live;
    out.ones = block.ones;
}

}  // namespace

void view_encoded_block(std::span<const std::byte> bytes, std::uint32_t count, block_view& out) {
    view_parsed_block(parse_block(bytes, count, false), bytes, out);
}

void view_values(std::span<const std::uint32_t> values, block_view& out) {
    const auto count = static_cast<std::uint32_t>(values.size());
    alignas(64) std::uint32_t padded[block_values];
    const std::uint32_t* source = values.data();
    if (count != block_values) {
        std::copy_n(values.data(), count, padded);
        std::fill(padded + count, padded + block_values, 0u);
        source = padded;
    }
    const kernel_table& kernels = active_kernels();
    kernels.transpose(source, out.planes.planes[0].data());
    value_stats stats;
    kernels.stats(values.data(), count, &stats);
    out.count = count;
    out.transform = codec::transform::none;
    out.for_base = out.delta_first = out.delta_min = 0;
    out.sparse = false;
    out.length = count;
    out.ones = stats.all;
    out.live = stats.any & ~stats.all;
}

void view_block(const vector_core& v, std::size_t block, block_view& out) {
    if (block == v.sealed_block_count()) {
        view_values(v.tail(), out);
        return;
    }
    const std::span<const std::uint32_t> hot = v.write_back_values(block);
    if (!hot.empty()) {
        view_values(hot, out);
        return;
    }
    // The block table's descriptor: no header parse.
    const std::span<const std::byte> bytes = v.sealed_block(block, {});
    view_parsed_block(expand_descriptor(v.sealed_descriptor(block), bytes.data(), static_cast<std::uint32_t>(block_values)),
                      bytes, out);
}

void view_to_values(const block_view& view, std::span<std::uint32_t> out) {
    alignas(64) std::uint32_t residuals[block_values];
    active_kernels().untranspose(view.planes.planes[0].data(), view.nonzero(), residuals);
    if (view.sparse) {
        std::uint32_t next = 0;
        for (std::uint32_t i = 0; i < view.count; ++i) out[i] = test_bit(view.mask, i) ? residuals[next++] : 0u;
    } else {
        std::copy_n(residuals, view.count, out.data());
    }
    parsed_block header;
    header.value_transform = view.transform;
    header.for_base = view.for_base;
    header.delta_first = view.delta_first;
    header.delta_min = view.delta_min;
    undo_transform(header, out.first(view.count));
}

const block_planes& value_planes(const block_view& view, block_planes& scratch, std::uint32_t& nonzero) {
    if (view.planes_are_values()) {
        nonzero = view.nonzero();
        return view.planes;
    }
    alignas(64) std::uint32_t values[block_values];
    view_to_values(view, {values, view.count});
    std::fill(values + view.count, values + block_values, 0u);
    const kernel_table& kernels = active_kernels();
    kernels.transpose(values, scratch.planes[0].data());
    value_stats stats;
    kernels.stats(values, view.count, &stats);
    nonzero = stats.any;
    return scratch;
}

}  // namespace bitplane::detail
